// Counts the instructions of an exported kernel on qemu (see measure.h).
#include "codegen/measure.h"

#include "codegen/c_codegen.h"
#include "codegen/export_writer.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

namespace loopscope::codegen {

bool parseInstructionCounts(const std::string& output, Measurement& m)
{
    const size_t line = output.find("insns total=");
    if (line == std::string::npos)
        return false;
    m.kernelInstructions = detail::countField(output, line, " kernel=");
    m.copyInstructions = detail::countField(output, line, " copies=");
    m.libraryInstructions = std::max(0LL, detail::countField(output, line, " calls="));  // absent before the plugin counted calls
    return m.kernelInstructions >= 0 && m.copyInstructions >= 0;
}

namespace detail {

long long countField(const std::string& output, size_t line, const char* name)
{
    const size_t end = output.find('\n', line);
    const size_t at = output.find(name, line);
    if (at == std::string::npos || at > end)
        return -1;
    return std::atoll(output.c_str() + at + std::strlen(name));
}

std::string qemuCore(const std::string& targetName, Measurement& m)
{
    const std::string core = targetName == "cortex-m7" ? "m7" : targetName == "cortex-m4" ? "m4" : "";
    if (core.empty())
        m.error = "measuring runs on qemu's Cortex-M7 or Cortex-M4 only (target " + targetName + ")";
    else
        m.machine = core == "m7" ? "qemu mps2-an500 (Cortex-M7)" : "qemu mps2-an386 (Cortex-M4)";
    return core;
}

std::string makeTemporaryDirectory(const std::string& prefix)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    std::string pattern = (fs::temp_directory_path(ec) / (prefix + "-XXXXXX")).string();
    return ::mkdtemp(pattern.data()) ? pattern : std::string();
}

int runCaptured(const std::string& command, std::string& output)
{
    FILE* p = popen(command.c_str(), "r");
    if (!p)
        return -1;
    char buf[4096];
    while (size_t n = fread(buf, 1, sizeof buf, p))
        output.append(buf, n);
    return pclose(p);
}

} // namespace detail

std::string armCompilerVersion()
{
    std::string v;
    detail::runCaptured("arm-none-eabi-gcc -dumpversion 2>/dev/null", v);
    v = v.substr(0, v.find_first_of("\r\n"));
    return v.empty() ? "unknown" : v;
}

Measurement measureOnQemu(const lower::LoopNest& nest, const std::string& targetName)
{
    namespace fs = std::filesystem;
    Measurement m;
    const std::string core = detail::qemuCore(targetName, m);
    if (core.empty())
        return m;
    // A directory of its own: measurements may run at the same time (the app measures on a
    // worker thread).
    const std::string tmp = detail::makeTemporaryDirectory("loopscope-measure");
    if (tmp.empty()) {
        m.error = "cannot create a temporary directory for measuring";
        return m;
    }
    const fs::path dir = tmp;
    std::error_code ec;
    ExportOptions options;
    options.harness = true;
    if (std::string why = exportError(nest, options); !why.empty()) {
        m.error = why;
        fs::remove_all(dir, ec);
        return m;
    }
    const ExportWriteResult written = writeExport(dir, exportFiles(nest, options), true);
    if (!written.ok) {
        m.error = written.error;
        fs::remove_all(dir, ec);
        return m;
    }
    std::string output;
    const int status = detail::runCaptured("make -s -C '" + dir.string() + "' insns-" + core + " 2>&1", output);
    if (status < 0)
        m.error = "cannot run make";
    else if (status == 0 && parseInstructionCounts(output, m)) {
        m.ok = true;
        // The harness's Makefile compiles with $(ARM_PREFIX)gcc, arm-none-eabi-gcc by default.
        m.compiler = "arm-none-eabi-gcc";
        m.compilerVersion = armCompilerVersion();
    }
    else
        m.error = "measuring failed (needs arm-none-eabi-gcc and qemu-system-arm):\n" + output;
    fs::remove_all(dir, ec);
    return m;
}

} // namespace loopscope::codegen
