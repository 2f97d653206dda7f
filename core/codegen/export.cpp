// Assembles the files of an export: the kernel and, on request, the harness and build files.
#include "codegen/c_codegen.h"
#include "codegen/gemmini_codegen.h"
#include "codegen/harness_files.h"

namespace loopscope::codegen {

std::vector<GeneratedFile> exportFiles(const lower::LoopNest& nest, const ExportOptions& options)
{
    const std::string kid = cIdentifier(nest.kernel->name);
    if (isGemminiNest(nest)) {
        // Tensorized: gemmini.h calls (codegen/gemmini_codegen.h); the caller checks gemminiExportError first.
        const GemminiOptions g{options.gemminiAccScale};
        std::vector<GeneratedFile> files{{kid + ".h", generateGemminiHeader(nest, g)}, {kid + ".c", generateGemminiSource(nest, g)}};
        if (options.harness) {
            files.push_back({"main.c", generateGemminiHarnessMain(nest, options.seed, options.gemminiAccScale)});
            for (auto& f : gemminiSupportFiles(kid))
                files.push_back(std::move(f));
        }
        return files;
    }
    std::vector<GeneratedFile> files{{kid + ".h", generateHeader(nest)}, {kid + ".c", generateSource(nest)}};
    if (options.harness) {
        files.push_back({"main.c", generateHarnessMain(nest, options.seed)});
        for (auto& f : harnessSupportFiles(kid))
            files.push_back(std::move(f));
    }
    return files;
}

} // namespace loopscope::codegen
