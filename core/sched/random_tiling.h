// Random hand-style schedules: the kind a person writes while tuning a kernel — tilings with
// dividing and non-dividing factors (partial tiles), reorders of the tile loops and of the loops
// inside them, small loops unrolled, a reduction vectorized for the Arm DSP path, caches in the
// on-chip level (some transposed, some double-buffered), producers computed at a consumer loop.
// The instruction model is calibrated on them and the qemu suite checks it on others; both draw
// them from a seed, so a run is reproducible.
#pragma once

#include "common/rng.h"
#include "sched/program.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace loopscope::sched {

/// A kernel of the examples with the sizes random schedules give it.
struct TilingKernel {
    std::string name;  ///< examples/kernels/<name>.kernel.yaml
    std::vector<std::pair<std::string, std::vector<int64_t>>> params;  ///< size parameter -> choices
};

/// The kernels random tilings use: int8 (matmul, conv2d with strides 1 and 2, depthwise,
/// pointwise, dense), int16 (dense) and float (matmul, the two-stage depthwise-separable block),
/// at sizes that keep one run on the emulator short.
const std::vector<TilingKernel>& tilingKernels();

/// Splits a reduction axis of the last stage by 4 or 8, makes its inner part the innermost loop
/// and vectorizes it (a reduction that can take the DSP path); nullopt when a primitive refuses.
std::optional<Program> vectorizeAReduction(const Program& p, Rng& rng);

/// Where a random schedule's kernel came from, to write the schedule as a file.
struct RandomTilingSource {
    std::string kernelFile;                 ///< <kernelDir>/<name>.kernel.yaml
    std::map<std::string, int64_t> params;  ///< the sizes drawn
};

/// Random schedule number `n` (the same n gives the same schedule) of one of tilingKernels(),
/// loaded from `kernelDir`, for `target`; nullopt when the kernel file cannot be read. With
/// `source`, also says which kernel file and sizes it used.
std::optional<Program> randomTiling(uint64_t n, const std::string& kernelDir, std::shared_ptr<const hw::Target> target,
                                    RandomTilingSource* source = nullptr);

} // namespace loopscope::sched
