// Lowering of a tensorized stage (used by lower.cpp): the block becomes one Matmul statement,
// the padding halo of its A operand a Fill with the pad value, and an offset on A a host-computed
// initial row of the accumulator. Internal to core/lower.
#pragma once

#include "lower/loop_nest.h"
#include "sched/tensorize.h"

#include <array>
#include <vector>

namespace loopscope::lower::detail {

/// What lower.cpp knows about one block when it reaches it.
struct MatmulInputs {
    int stage = -1;
    sched::Dataflow dataflow = sched::Dataflow::WeightStationary;
    std::array<int, 3> slots{};                ///< i, j, k
    std::array<int64_t, 3> extents{};
    std::vector<Cond> guards;                  ///< partial-tile guards that depend on a block loop
    int a = -1, b = -1, c = -1;                ///< buffers
    std::vector<IndexId> aIndex, bIndex, cIndex;
    bool overwriteFirst = false;               ///< no initial value: the first result overwrites
    std::vector<int> firstSlots;               ///< reduction loops around the block C does not depend on
    int64_t offsetA = 0;
};

/// Appends a Matmul statement for the block to `block`; when `block` is a For loop whose body
/// is only that statement, the PEs keep state across it (weights in WS when B does not depend on
/// the loop, partial sums in OS when it is a reduction C does not depend on).
int emitMatmul(LoopNest& n, int block, const MatmulInputs& in);

/// Appends Fill statements to `block` that set the part of `unclipped` outside the tensor
/// (whose clipped part is `clipped`, the region a copy moves) to `value`: one slab below and
/// one above the tensor along each dimension that can leave it.
void appendHaloFills(LoopNest& n, int block, int stage, int buffer, const Region& unclipped, const std::vector<int64_t>& tensorShape,
                     int64_t value);

/// The accumulator's initial row of a stage whose A operand carries an offset c:
/// init[j] = bias[j] + c x (sum over the reduction of B[..., j]), computed on the host at the
/// root of the stage. Appends the allocation to `block` and returns it (the stage's nest goes in
/// its body) and the buffer.
struct InitRow {
    int alloc = -1;
    int buffer = -1;
};
InitRow emitInitRow(LoopNest& n, const sched::Program& p, int stage, int block, const sched::TensorizeOperands& ops, int bHome, int biasHome);

} // namespace loopscope::lower::detail
