// Where buffers live in a row-addressed memory (Gemmini's scratchpad and accumulator): the row
// layout of one buffer and the rows every buffer of a nest occupies. The printer, the cost
// model, the Gemmini code generator and the memory view all use these, so the addresses in
// the exported code are the ones the tool shows.
#pragma once

#include "lower/loop_nest.h"

#include <cstdint>
#include <vector>

namespace loopscope::lower {

/// A buffer stored in rows of `lanes` elements: its innermost storage dimension is cut into
/// column blocks of `lanes` elements, and each block is a stack of rows, one per index of the
/// outer storage dimensions (row-major): element (outer o, inner e) sits in row
/// (e / lanes) * outerRows + o, lane e % lanes. This is Gemmini's layout of a matrix wider
/// than DIM (blocks of DIM columns).
struct RowLayout {
    int64_t lanes = 1;
    int64_t outerRows = 1;   ///< product of the outer storage dimensions
    int64_t colBlocks = 1;   ///< ceil(innermost extent / lanes)
    int64_t rows() const { return colBlocks * outerRows; }
};

/// Elements per row of a row-addressed level for a buffer: DIM on a target with a PE array
/// (a row holds DIM elements of any type), else rowBytes / element size; 0 when the buffer's
/// level is not row-addressed.
int64_t rowLanes(const hw::Target& t, const Buffer& b);

/// The layout of a buffer in a row-addressed level (lanes from rowLanes).
RowLayout rowLayout(const hw::Target& t, const Buffer& b);

/// The row of a buffer's first half holding the element at global tensor index `global`, built
/// in `pool` (a copy of the nest's pool when the nest is shared): for a block at a column that is a
/// multiple of the lanes, the row its DMA transfer or matmul operand starts at. Add the buffer's
/// RowPlacement::base, and RowPlacement::rows for the second half of a double buffer.
IndexId rowIndex(IndexPool& pool, const hw::Target& t, const Buffer& b, const std::vector<IndexId>& global);

/// Rows of one buffer in its level, from `base` (a double buffer holds two halves of `rows`
/// each: base and base + rows).
struct RowPlacement {
    int buffer = -1;
    int level = -1;
    int64_t base = 0;
    int64_t rows = 0;        ///< one half
    bool doubled = false;
};

/// Places every buffer of a row-addressed level: nested scopes stack upwards from row 0 (a
/// buffer's rows are free again when its scope ends, so sibling scopes share them), in the
/// order the nest allocates them. Indexed like LoopNest::buffers; level -1 for buffers not
/// placed. `peakRows` receives, per level of the target, the most rows live at once.
std::vector<RowPlacement> placeRows(const LoopNest& n, std::vector<int64_t>* peakRows = nullptr);

} // namespace loopscope::lower
