// Assembles the files of an export: the kernel and, on request, the harness and build files.
#include "codegen/c_codegen.h"
#include "codegen/code_size.h"
#include "codegen/gemmini_codegen.h"
#include "codegen/harness_files.h"

namespace loopscope::codegen {

std::string exportError(const lower::LoopNest& nest, const ExportOptions& options)
{
    if (std::string why = generatedCodeSizeError(nest); !why.empty())
        return why;
    if (isGemminiNest(nest)) {
        if (std::string why = gemminiExportError(nest, {options.gemminiAccScale}); !why.empty())
            return why;
    } else if (options.gemminiAccScale) {
        return "--gemmini-acc-scale applies to tensorized schedules only";
    }
    if (options.harness)
        if (std::string why = harnessKernelNameError(cIdentifier(nest.kernel->name)); !why.empty())
            return "the test harness cannot be written: " + why;
    return {};
}

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
