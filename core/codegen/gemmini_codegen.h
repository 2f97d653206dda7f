// C generation for Gemmini accelerators from a lowered loop nest whose stages are tensorized:
// host loops in C99 (GNU C, as Gemmini's gemmini.h is), every block one preload + compute,
// operands moved by mvin and results by mvout at the rows lower::placeRows gives, the input
// offset's initial row in a separate <kernel>_prepare, int8 requantization on the host (or by
// Gemmini's acc_scale on request). The export harness ships its own gemmini.h with a functional
// model (host) and runs the same code bare-metal on qemu-system-riscv64.
#pragma once

#include "codegen/generated_file.h"
#include "lower/loop_nest.h"

#include <string>
#include <vector>

namespace loopscope::codegen {

struct GemminiOptions {
    /// Requantize with Gemmini's acc_scale on mvout (one float per configuration, rounding to
    /// nearest even) instead of TFLite's MultiplyByQuantizedMultiplier on the host: faster, not
    /// TFLite-exact; only for per-tensor requantization without output offset.
    bool accScale = false;
};

/// Whether the nest has tensorized stages: then an export writes Gemmini code.
bool isGemminiNest(const lower::LoopNest& nest);

/// Why the nest cannot become a Gemmini export ("" when it can): a stage that is not tensorized
/// (its code would run on the host; only tensorized stages are written), or an option the
/// kernel does not allow.
std::string gemminiExportError(const lower::LoopNest& nest, const GemminiOptions& options = {});

/// The tensors of the exported functions, for the harness: the kernel's parameters (home
/// tensors in kernel order, then the initial row when the input carries an offset), and
/// <kernel>_prepare's (the tensors it reads, then the initial row it writes).
struct GemminiSignature {
    std::vector<int> params;            ///< kernel tensors
    bool initRow = false;
    std::string initName;               ///< C name of the initial row
    int64_t initElements = 0;
    std::vector<int> prepareParams;     ///< kernel tensors <kernel>_prepare reads
};
GemminiSignature gemminiSignature(const lower::LoopNest& nest);

/// <kernel>.h: the entry function (and <kernel>_prepare), documented.
std::string generateGemminiHeader(const lower::LoopNest& nest, const GemminiOptions& options = {});
/// <kernel>.c: includes "gemmini.h" and calls its macros.
std::string generateGemminiSource(const lower::LoopNest& nest, const GemminiOptions& options = {});

/// main.c of a Gemmini export harness (c_harness.cpp): as the Cortex-M harness's, with the
/// functional model's byte and instruction counters and <kernel>_prepare before the kernel.
std::string generateGemminiHarnessMain(const lower::LoopNest& nest, uint64_t seed, bool accScale);

/// The harness support files of a Gemmini export (from resources/firmware/gemmini): gemmini.h,
/// gemmini_model.c, riscv/trap.c, Makefile, README.md. Throws std::invalid_argument for a
/// kernel name that cannot name the harness's kernel (harnessKernelNameError).
std::vector<GeneratedFile> gemminiSupportFiles(const std::string& kernelName);

} // namespace loopscope::codegen
