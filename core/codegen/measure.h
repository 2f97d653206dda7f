// Instructions an exported kernel executes on an emulated Cortex-M: exports it with its harness
// into a fresh temporary directory, runs `make insns-m7` (or -m4) there (arm-none-eabi-gcc,
// qemu-system-arm with the harness's counting plugin: an exact count) and reads the count of
// instructions inside the kernel's own code and, apart, those of the copies its default DMA
// hooks make (the hooks and memcpy: on a core without a DMA engine they run on the CPU).
// Takes a few seconds; needs the Arm toolchain and qemu on PATH.
#pragma once

#include "lower/loop_nest.h"

#include <string>

namespace loopscope::codegen {

struct Measurement {
    bool ok = false;
    std::string machine;              ///< e.g. "qemu mps2-an500 (Cortex-M7)"
    long long kernelInstructions = 0;  ///< the kernel's own code and the library code it calls (the DMA hooks excluded)
    long long copyInstructions = 0;    ///< the default DMA hooks' copies (hooks + memcpy)
    long long libraryInstructions = 0; ///< of kernelInstructions, the C library's code the kernel calls
                                       ///< itself (the memset and memcpy GCC makes of zeroing and copying loops)
    std::string compiler;             ///< what compiled the harness ("arm-none-eabi-gcc")
    std::string compilerVersion;      ///< its -dumpversion ("unknown" when it does not say)
    std::string error;                ///< why it could not be measured
};

/// Measures on the core of `targetName` ("cortex-m7" or "cortex-m4"; anything else is refused).
Measurement measureOnQemu(const lower::LoopNest& nest, const std::string& targetName);

/// The version arm-none-eabi-gcc reports (-dumpversion), "unknown" when it cannot be run.
std::string armCompilerVersion();

/// Reads the counts of the plugin's report line ("insns total=... kernel=<m> copies=<c> ...")
/// in `output` into `m`; false when there is none.
bool parseInstructionCounts(const std::string& output, Measurement& m);

namespace detail {
/// "m7" or "m4" for a target name, setting m.machine; "" (and m.error) for any other target.
std::string qemuCore(const std::string& targetName, Measurement& m);
/// A new private directory under the system's temporary directory ("" when it fails).
std::string makeTemporaryDirectory(const std::string& prefix);
/// Runs a shell command, appending its standard output to `output`; its wait status, or -1.
int runCaptured(const std::string& command, std::string& output);
/// The number after ` NAME=` on the plugin's report line that starts at `line` (`name` with
/// its leading space and `=`); -1 when that line has no such field.
long long countField(const std::string& output, size_t line, const char* name);
} // namespace detail

} // namespace loopscope::codegen
