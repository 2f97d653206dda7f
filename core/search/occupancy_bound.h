// An upper bound, in closed form from a scheduled program (no lowering), of the bytes each
// memory level holds at once: the search prunes candidates over capacity with it before any
// candidate is lowered or analysed.
#pragma once

#include "sched/program.h"

#include <cstdint>
#include <string>
#include <vector>

namespace loopscope::search {

/// One buffer the program places in an on-chip level, as bounded before lowering.
struct BufferBound {
    int cache = -1;                 ///< index into Program::caches, or -1 for a computed-at intermediate
    int stage = -1;                 ///< the producer stage of an intermediate (cache == -1)
    int tensor = -1;
    int level = -1;
    std::vector<int64_t> shape;     ///< elements per dimension, at least the lowered buffer's
    int64_t bytes = 0;              ///< aligned, doubled when double-buffered (as analyze counts)
    bool accumulator = false;       ///< the accumulator of `stage` (one dimension)
    int elementBytes = 0;           ///< bytes per element when not the tensor's dtype (accumulators)
};

/// Per level: the bound of its peak, and the buffers that make it.
struct OccupancyBound {
    std::vector<int64_t> bytes;     ///< per target level (home tensors included in level 0)
    std::vector<BufferBound> buffers;

    /// First level over its capacity, or -1.
    int overCapacity(const hw::Target& target) const;
    /// First buffer with a dimension over the target's max_tile_size, or -1 (index into buffers).
    int overTileSize(const hw::Target& target) const;
};

/// Bounds every buffer of `program` from above: for a cache at loop X, each dimension's extent
/// is at most the span of its index over the loops inside X (sum of |coeff| times the axis'
/// span, plus the spread of the constants), and at most the tensor's own extent. A fused loop
/// inside X counts as spanning its axes whole. The bound equals the lowered buffer wherever an
/// index has unit stride; buffers of different stages are summed as if all were live at once.
OccupancyBound boundOccupancy(const sched::Program& program);

/// "SRAM must hold 37.5 KiB (I 18x18x16 x2 = 10.1 KiB, ...) but has 32 KiB".
std::string describeOverCapacity(const sched::Program& program, const OccupancyBound& bound, int level);

} // namespace loopscope::search
