// The tensorize primitive: the three innermost loops of a matmul-like stage become one
// accelerator operation per block of at most DIM x DIM x DIM (a Gemmini preload + compute),
// its preconditions, the re-check after later steps, and the queries the schedule search uses.
#pragma once

#include "sched/program.h"

#include <optional>
#include <vector>

namespace loopscope::sched {

/// The one intrinsic: a Gemmini matmul (preload and compute on the PE array, operands in the
/// scratchpad, results in the accumulator).
inline constexpr const char* kGemminiMatmul = "gemmini_matmul";
/// Memory levels the intrinsic works in; a target for it names its levels so.
inline constexpr const char* kScratchpadLevel = "scratchpad";
inline constexpr const char* kAccumulatorLevel = "accumulator";

/// The operands of a tensorized stage C[.., i, j] += (A[.., i, .., k] + offset) * B[.., k, j].
struct TensorizeOperands {
    int a = -1;             ///< tensor of the operand indexed by i and k (the rows of a block)
    int b = -1;             ///< tensor of the operand indexed by k and j (the weights in WS)
    int loadA = -1;         ///< index of A's load in effectiveLoads(program, stage)
    int loadB = -1;
    int64_t offsetA = 0;    ///< constant added to A before the product (an input zero point)
    int axisI = -1, axisJ = -1, axisK = -1;  ///< stage axes the block loops step
};

/// Whether tensorizing stage `stage` on loop variables i, j, k (with the step's intrinsic and
/// dataflow) is legal in `p`: nothing, or the typed error naming the loops and tensors and, for
/// a missing cache, the step that would add it. apply() runs this.
std::optional<ScheduleError> checkTensorize(const Program& p, int stage, int i, int j, int k, const Step& step);

/// Re-checks the tensorize already applied to `stage` after a later step changed the program
/// (a reorder, split or cache move can break it). apply() runs this after every step.
std::optional<ScheduleError> recheckTensorize(const Program& p, int stage);

/// The operands of a stage whose tensorize is applied (fields -1 when it is not tensorized).
TensorizeOperands tensorizeOperands(const Program& p, int stage);

/// For the schedule search (and the app's one-click tensorize): what tensorizing the three
/// innermost loops of `stage` with `dataflow` takes from program `p`.
struct TensorizePlan {
    bool legal = false;                  ///< `steps` apply to `p` one after the other
    std::vector<Step> steps;             ///< the cache steps it still needs (possibly none), then the tensorize
    std::optional<ScheduleError> error;  ///< when no cache steps make it legal: why
};
TensorizePlan planTensorize(const Program& p, int stage, Dataflow dataflow);

} // namespace loopscope::sched
