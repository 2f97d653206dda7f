// What vectorizing a scalar int8 or int16 reduction loop saves on a target with the Arm DSP
// extension, by the instruction model: the same nest with that loop vectorized, counted the same
// way (the `dsp-path` hint of analyze's diagnostics).
#pragma once

#include "hw/target.h"
#include "lower/loop_nest.h"

#include <cstdint>
#include <vector>

namespace loopscope::analysis {

/// A scalar reduction loop the generator would write on the DSP path if it were vectorized.
struct DspSaving {
    int stmt = -1;            ///< the For
    int64_t before = 0;       ///< predicted instructions of the kernel and copies as scheduled
    int64_t after = 0;        ///< the same with the loop vectorized
};

/// For every innermost reduction loop of `nest` that is neither vectorized nor unrolled and whose
/// body is int8 or int16 loads and one int32 multiply-accumulate, the predicted instructions with
/// the loop vectorized, when codegen::dspLoop then takes the DSP path. `executions` are the
/// statements' execution counts (vectorizing a reduction loop changes none of them), `predicted`
/// the prediction as scheduled. Empty on a target without `dsp`.
std::vector<DspSaving> dspVectorizeSavings(const lower::LoopNest& nest, const hw::Target& target, const std::vector<int64_t>& executions,
                                           int64_t predicted);

} // namespace loopscope::analysis
