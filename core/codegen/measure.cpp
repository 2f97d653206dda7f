// Counts the instructions of an exported kernel on qemu (see measure.h).
#include "codegen/measure.h"

#include "codegen/c_codegen.h"
#include "codegen/export_writer.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>

namespace loopscope::codegen {

Measurement measureOnQemu(const lower::LoopNest& nest, const std::string& targetName)
{
    namespace fs = std::filesystem;
    Measurement m;
    const std::string core = targetName == "cortex-m7" ? "m7" : targetName == "cortex-m4" ? "m4" : "";
    if (core.empty()) {
        m.error = "measuring runs on qemu's Cortex-M7 or Cortex-M4 only (target " + targetName + ")";
        return m;
    }
    m.machine = core == "m7" ? "qemu mps2-an500 (Cortex-M7)" : "qemu mps2-an386 (Cortex-M4)";
    std::error_code ec;
    // A directory of its own: measurements may run at the same time (the app measures on a
    // worker thread).
    std::string pattern = (fs::temp_directory_path(ec) / "loopscope-measure-XXXXXX").string();
    if (!::mkdtemp(pattern.data())) {
        m.error = "cannot create a temporary directory for measuring";
        return m;
    }
    const fs::path dir = pattern;
    ExportOptions options;
    options.harness = true;
    const ExportWriteResult written = writeExport(dir, exportFiles(nest, options), true);
    if (!written.ok) {
        m.error = written.error;
        fs::remove_all(dir, ec);
        return m;
    }
    const std::string cmd = "make -s -C '" + dir.string() + "' insns-" + core + " 2>&1";
    std::string output;
    if (FILE* p = popen(cmd.c_str(), "r")) {
        char buf[4096];
        while (size_t n = fread(buf, 1, sizeof buf, p))
            output.append(buf, n);
        const int status = pclose(p);
        const size_t at = output.find("kernel=");
        const size_t copies = output.find(" copies=");
        if (status == 0 && at != std::string::npos && copies != std::string::npos) {
            m.kernelInstructions = std::atoll(output.c_str() + at + 7);
            m.copyInstructions = std::atoll(output.c_str() + copies + 8);
            m.ok = true;
        } else {
            m.error = "measuring failed (needs arm-none-eabi-gcc and qemu-system-arm):\n" + output;
        }
    } else {
        m.error = "cannot run make";
    }
    fs::remove_all(dir, ec);
    return m;
}

} // namespace loopscope::codegen
