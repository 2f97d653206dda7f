// Instructions of many exported kernels on an emulated Cortex-M in few runs: the kernels are
// compiled into one firmware image (or a few, when their buffers or tensors would not fit the
// board's memory), called one after the other, and qemu's counting plugin reports the
// instructions of each (kernel code and, apart, the copies of the default DMA hooks) at a mark
// between two calls. The counts equal those of measureOnQemu for each kernel alone: the same
// compiler, flags, start-up and linker scripts as the export harness, the tensors 8-byte
// aligned as the harness's static arrays are. Used by the prediction suite and calibration.
#pragma once

#include "codegen/measure.h"
#include "lower/loop_nest.h"

#include <string>
#include <vector>

namespace loopscope::codegen {

struct BatchOptions {
    int jobs = 2;              ///< parallel compiler processes
    std::string keepDirectory; ///< when set, build there and keep the files (for inspection)
    bool profile = false;      ///< with keepDirectory: each image writes profile.txt, the count of
                               ///< every instruction address of the kernels (qemu/insn_count.c)
};

/// Measures every nest on the core of `targetName` ("cortex-m7" or "cortex-m4"): one
/// Measurement per nest, in order. A failure (no toolchain, a build or run that fails) marks
/// every kernel of the image concerned with the error.
std::vector<Measurement> measureBatchOnQemu(const std::vector<const lower::LoopNest*>& nests, const std::string& targetName,
                                            const BatchOptions& options = {});

} // namespace loopscope::codegen
