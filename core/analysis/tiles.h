// The tile model of a loop nest: which region of the output one iteration of the outer loops
// computes, and which regions of each input are resident in each memory level meanwhile
// (with the region a double buffer prefetches). Derived from the loop nest alone, by interval
// evaluation of its index expressions; the tile view draws it and `loopscope-cli tiles`
// prints it.
//
// Use:
//     TileModel m = TileModel::build(nest);          // nest: shared_ptr<const LoopNest>
//     if (!m.ok()) show(m.message());
//     for (int64_t p = 0; p < m.positions(); ++p) {
//         m.loopValues(p);                           // one value per outerLoops() entry
//         m.outputTile(p);                           // Box of m.output().name
//         for (const TileInput& in : m.inputs())
//             m.residents(in, p);                    // one ResidentRegion per live buffer
//     }
//
// A "position" numbers the iterations of the outer loops in execution order (mixed radix,
// the innermost loop fastest). The outer loops are those outside the innermost on-chip
// buffer (cache, intermediate or accumulator in memory) around the last stage's update, or,
// without one, outside its accumulator: one position is one tile of the output. A
// reduction loop among them means the same tile is accumulated over several positions.
// Regions are boxes of global tensor indices (inclusive), clipped to the tensor. A sliding
// cache's region says which part was fetched at the position and which was kept.
#pragma once

#include "common/interval.h"
#include "lower/loop_nest.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace loopscope::analysis {

/// One loop that steps through the tiles.
struct TileLoop {
    std::string name;      ///< "i.outer"
    int slot = -1;         ///< loop-nest slot of its counter
    int64_t extent = 1;
    bool reduction = false;
};

/// A tensor as the tile model shows it.
struct TileTensor {
    int tensor = -1;                    ///< index into Kernel::tensors
    std::string name;
    std::vector<int64_t> shape;
    std::vector<std::string> dimNames;  ///< axis (output) or index expression (inputs) per dimension
};

/// A buffer of an input that can be live while a tile is computed (internal to the model,
/// exposed so that a TileInput can be kept and queried).
struct TileBuffer {
    int stmt = -1;              ///< its Alloc statement
    int buffer = -1;            ///< index into LoopNest::buffers
    int copy = -1;              ///< the copy filling or writing it back (its exact region), or -1
    bool exact = true;          ///< its region depends on the outer loops only
    int innermostOuter = -1;    ///< index into outerLoops() of the loop whose iterations refill it
    int slideCopy = -1;         ///< a sliding cache (rolling buffer): the copy of the new part, else -1
    int slideLoop = -1;         ///< index into outerLoops() of the loop it slides along (-1: inside a position)
};

/// An input (or intermediate) tensor read by some stage, and its buffers.
struct TileInput : TileTensor {
    std::string homeLevel;           ///< level holding all of it, "" when it is never stored whole
    std::vector<TileBuffer> buffers;
};

/// A region of an input resident in one level at one position.
struct ResidentRegion {
    std::string level;
    int levelIndex = 0;
    std::string buffer;
    Box box;                    ///< what the buffer holds (empty: nothing, past the edge)
    bool exact = true;          ///< false: refilled inside the position; box covers every fill
    int64_t bytes = 0;          ///< the buffer's size (one of the two when double-buffered)
    bool prefetches = false;    ///< a double buffer fetching the next region meanwhile
    Box next;                   ///< that next region (when prefetches)
    bool slides = false;        ///< a sliding cache: it keeps the overlap with the previous position's region
    Box fetched;                ///< (when slides) the part fetched for this position; the rest of box was kept
};

/// The block one accelerator instruction (a tensorized matmul) computes at a position: the part
/// of the output it updates and how much of the PE array it uses. Blocks at an edge may be
/// smaller than DIM and leave PE rows or columns idle.
struct ArrayBlock {
    Box out;                       ///< output elements it updates (global indices, inclusive)
    int64_t rows = 0;              ///< the block's output rows (<= DIM)
    int64_t cols = 0;              ///< its output columns (<= DIM)
    int64_t depth = 0;             ///< its reduction depth (<= DIM)
    int64_t peRows = 0;            ///< PE rows it uses: WS holds the weights (depth x cols), OS the sums (rows x cols)
    int64_t peCols = 0;            ///< PE columns it uses
    int64_t instructions = 0;      ///< instructions on this block at the position (one per reduction step)
};

class TileModel {
public:
    /// Positions whose output tiles are computed once and kept (more are computed on demand).
    static constexpr int64_t kMaxPrecomputed = 20000;

    /// Builds the model of a nest; check ok() (message() says why not).
    static TileModel build(std::shared_ptr<const lower::LoopNest> nest);

    bool ok() const { return m_message.empty(); }
    /// Why there is nothing to show ("" when ok()).
    const std::string& message() const { return m_message; }
    const lower::LoopNest* nest() const { return m_nest.get(); }

    /// The last stage's output, cut into tiles.
    const TileTensor& output() const { return m_output; }
    /// The loops stepping through the tiles, outermost first (empty: one tile).
    const std::vector<TileLoop>& outerLoops() const { return m_outer; }
    /// Iterations of the outer loops (capped at INT32_MAX, see truncated()).
    int64_t positions() const { return m_positions; }
    bool truncated() const { return m_truncated; }
    /// Values of the outer loops at a position, outermost first.
    std::vector<int64_t> loopValues(int64_t position) const;
    /// The region of the output computed at a position.
    Box outputTile(int64_t position) const;
    /// The tiles of every position are kept (positions() <= kMaxPrecomputed).
    bool allTilesKnown() const { return !m_tiles.empty() || m_positions == 0; }

    /// Tensors read by the stages: what the last stage reads first, then the others.
    const std::vector<TileInput>& inputs() const { return m_inputs; }
    /// The input called `name`, or null.
    const TileInput* input(const std::string& name) const;
    /// The regions of `in` resident at a position, outermost level first.
    std::vector<ResidentRegion> residents(const TileInput& in, int64_t position) const;

    /// Instructions enumerated per position for arrayBlocks() at most.
    static constexpr int64_t kMaxInstructions = 65536;
    /// DIM of the PE array when the nest computes the output with accelerator instructions, else 0.
    int64_t arrayDim() const;
    /// Whether the array keeps the weights (weight-stationary) rather than the sums.
    bool weightStationary() const { return m_weightStationary; }
    /// The blocks the accelerator computes at a position, in the order it first reaches them
    /// (one entry per block of the output and PE use; instructions counts the repeats).
    std::vector<ArrayBlock> arrayBlocks(int64_t position) const;

private:
    std::vector<Interval> slotRanges(const std::vector<int64_t>& values) const;
    Box computeTile(int64_t position) const;
    Box regionOf(const TileInput& in, const TileBuffer& b, const std::vector<Interval>& slots) const;
    /// The hull of a copy region over the slot ranges, clipped to the tensor.
    Box boxOf(const TileInput& in, const lower::Region& r, const std::vector<Interval>& slots) const;
    void buildInput(TileInput& in) const;
    bool isAncestor(int a, int b) const;
    /// Whether the guards around a statement can hold for some values of the slots.
    bool mayRun(int stmt, const std::vector<Interval>& slots) const;

    std::string m_message;
    std::shared_ptr<const lower::LoopNest> m_nest;
    TileTensor m_output;
    std::vector<TileLoop> m_outer;
    int64_t m_positions = 0;
    bool m_truncated = false;
    int m_tilePoint = -1;               ///< the innermost outer For (the root when there is none)
    std::vector<int> m_parent;          ///< parent statement of each reachable one
    std::vector<bool> m_reachable;
    std::vector<int> m_writers;         ///< statements writing the output (not its accumulator)
    std::vector<int> m_matmuls;         ///< accelerator instructions on the output under the tile point
    bool m_weightStationary = false;
    std::vector<Box> m_tiles;           ///< per position, when there are at most kMaxPrecomputed
    std::vector<TileInput> m_inputs;
};

} // namespace loopscope::analysis
