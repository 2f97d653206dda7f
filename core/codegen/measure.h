// Instructions an exported kernel executes on an emulated Cortex-M: exports it with its harness
// into a fresh temporary directory, runs `make insns-m7` (or -m4) there (arm-none-eabi-gcc,
// qemu-system-arm with the harness's counting plugin: an exact count) and reads the count of
// instructions inside the kernel's own code. Takes a few seconds; needs the Arm toolchain and
// qemu on PATH.
#pragma once

#include "lower/loop_nest.h"

#include <string>

namespace loopscope::codegen {

struct Measurement {
    bool ok = false;
    std::string machine;              ///< e.g. "qemu mps2-an500 (Cortex-M7)"
    long long kernelInstructions = 0;  ///< inside the kernel's own code
    long long copyInstructions = 0;    ///< inside the DMA hooks and the library code they call (memcpy)
    std::string error;                ///< why it could not be measured
};

/// Measures on the core of `targetName` ("cortex-m7" or "cortex-m4"; anything else is refused).
Measurement measureOnQemu(const lower::LoopNest& nest, const std::string& targetName);

} // namespace loopscope::codegen
