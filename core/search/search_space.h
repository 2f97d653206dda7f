// The space a schedule search explores, built from a kernel's (possibly partly scheduled)
// program: per stage, the tile factor of every loop, the order of the outer and inner tile
// loops, where each tensor is cached, double buffering, unrolling and vectorization of the
// inner loops, and where each producer stage is computed. A Candidate is one point, as plain
// data; steps() turns it into the schedule steps that follow the pinned ones.
#pragma once

#include "sched/program.h"

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace loopscope::search {

struct SpaceOptions {
    bool partialTiles = false;      ///< also split factors that do not divide the extent (partial tiles)
    int64_t maxUnrollProduct = 64;  ///< largest product of the extents of the unrolled loops (code size)
};

/// A loop of the base program the search places: an active loop of its stage.
struct SpaceLoop {
    std::string name;
    int64_t extent = 1;
    bool reduction = false;
    bool splittable = true;          ///< serial and not fused: it can be split
    bool fixedInner = false;         ///< already unrolled or vectorized by a pinned step: stays inner, unsplit
    bool vectorized = false;         ///< vectorized by a pinned step: stays innermost
    bool anchor = false;             ///< a pinned cache stage or producer sits in its body: stays an outer loop, unsplit
    bool anchorWrite = false;        ///< a pinned cache_write sits in its body: no reduction loop may move outside it
    bool block = false;              ///< a loop of a pinned tensorize's block: stays innermost, whole, in its order
    int axis = -1;                   ///< the stage axis it runs over (-1: a fused loop)
    std::vector<int64_t> factors;    ///< inner extents the search may choose (ascending; extent last)
};

/// A way to tensorize a stage onto the accelerator's PE array: the loops (indices into
/// SpaceStage::loops) whose inner parts become the block's rows, columns and depth, and the
/// operands' SpaceTensor indices. Found legal by sched::planTensorize when the space is built.
struct ArrayMapping {
    int i = -1, j = -1, k = -1;
    int a = -1, b = -1, c = -1;      ///< SpaceTensor of the operand A (rows x depth), B (depth x columns), the output C
    std::vector<sched::Dataflow> dataflows;  ///< those legal (and the target's)
};

/// A tensor a stage may cache in the on-chip level.
struct SpaceTensor {
    int tensor = -1;
    std::string name;
    bool write = false;              ///< the stage's output (cache_write)
    std::vector<int> dims;           ///< per tensor dimension: the stage axis of a single-axis index, or -1
    /// An int8 operand of a stage on the DSP path with no pinned cache in the stage: its cache
    /// may widen it to int16 (cache_read's dtype), so that the inner loop loads int16 pairs
    /// with one word load and no unpacking, at the price of a fill the core makes itself.
    bool widenable = false;
};

struct SpaceStage {
    int stage = -1;
    std::string name;
    std::vector<SpaceLoop> loops;
    std::vector<SpaceTensor> tensors;
    int consumer = -1;               ///< a producer stage that may be computed at a loop of this stage
    bool operandsInt = false;        ///< int8/int16 operands (the DSP path applies)
    int lanes = 1;                   ///< SIMD lanes of the operand dtype on the target
    /// On a PE-array target: the tensorizations the search may choose (empty: none).
    std::vector<ArrayMapping> arrayMappings;
    bool tensorizedByPin = false;    ///< a pinned step tensorized the stage: its block stays as it is
};

/// One point of the space (indices refer to the SpaceStage of the same index).
struct Candidate {
    struct Stage {
        std::vector<int64_t> tile;       ///< per loop: the inner extent (extent: unsplit inner loop; 1: unsplit outer loop)
        std::vector<int> outerOrder;     ///< permutation of the loops, read for those with an outer part
        std::vector<int> innerOrder;     ///< permutation of the loops, read for those with an inner part
        std::vector<int> cacheAt;        ///< per SpaceTensor: -1 not cached, 0 at the stage's root, p > 0 in the body of the p-th outer loop
        std::vector<uint8_t> doubleBuffer;  ///< per SpaceTensor
        std::vector<uint8_t> vectorLast; ///< per SpaceTensor: store the vectorized loop's dimension last
        std::vector<uint8_t> widen;      ///< per SpaceTensor: a widenable tensor's cache holds it as int16
        /// Loops unrolled, innermost first (SearchSpace::unrollable): the inner loops after the
        /// vectorized one, then, once all of those are, the innermost outer loops inside every
        /// cache and producer placement of the stage (the tflite_dsp schedules' r and s).
        int unroll = 0;
        bool vectorize = false;          ///< vectorize the innermost inner loop
        int computeAt = -1;              ///< producer stages: -1 not computed at, p > 0 at the p-th outer loop of the consumer
        /// Array mode: the ArrayMapping tensorized (-1: the stage runs on the host). In array
        /// mode the mapping's loops are the inner band (rows, columns, depth; at most DIM each),
        /// every other loop is whole and outer, A and B are cached in the scratchpad and C in
        /// the accumulator (cacheAt >= 0), and unroll 1 unrolls the innermost outer loop.
        int tensorize = -1;
        int dataflow = 0;                ///< index into the mapping's dataflows
        /// Array mode, per loop: a tile of several blocks between the outer loop and the block
        /// (a multiple of the block, below the extent; 0: none). Its loop (`x.inner.outer`)
        /// runs in the middle band, outside the block (tiled_matmul_auto's tiles of blocks).
        std::vector<int64_t> tile2;
        bool operator==(const Stage&) const = default;
    };
    std::vector<Stage> stages;
    bool operator==(const Candidate&) const = default;
    uint64_t hash() const;
};

/// The loops of a stage's outer band (those with an outer part) and inner band, in order.
struct Bands {
    std::vector<int> outer;
    std::vector<int> middle;    ///< array mode: loops with a tile of blocks (their x.inner.outer), outside `inner`
    std::vector<int> inner;
};

class SearchSpace {
public:
    /// The space over `base` (the program after the pinned steps). The on-chip level is the
    /// innermost level of the target.
    SearchSpace(const sched::Program& base, SpaceOptions options = {});

    const sched::Program& base() const { return m_base; }
    const std::vector<SpaceStage>& stages() const { return m_stages; }
    const SpaceOptions& options() const { return m_options; }
    int cacheLevel() const { return m_level; }
    /// The level candidate `c` caches tensor `t` of stage `s` in (the scratchpad or the
    /// accumulator in array mode, else cacheLevel()).
    int cacheLevelOf(const Candidate& c, int s, int t) const;
    /// DIM of the target's PE array (0: none).
    int64_t arrayDim() const { return m_dim; }

    /// The candidate that adds nothing to the base program.
    Candidate identity() const;
    /// The candidate whose steps build what `scheduled` (the base program with more steps
    /// applied: a hand schedule's unpinned steps) holds, read from its loops, caches and
    /// placements: each space loop split at most once, the split parts' outer loops before
    /// their inner ones, every new cache in the on-chip level, an unroll set the space's unroll
    /// count can express, no fuse, slide or tensorize. Canonical. Nothing (and `why` says which
    /// loop, cache or primitive) when the program is outside the space. The candidate describes
    /// the same loops and caches; whether its steps give the same code is for the caller to check
    /// (the search compares the figures: see runSearch).
    std::optional<Candidate> project(const sched::Program& scheduled, std::string& why) const;
    /// A uniformly drawn candidate (then made canonical).
    Candidate sample(std::mt19937_64& rng) const;
    /// A neighbour: one to three random changes of `c`.
    Candidate mutate(const Candidate& c, std::mt19937_64& rng) const;
    /// Drops choices that do not apply (a double buffer at the root, a vectorize the DSP
    /// path cannot take, unrolling beyond the limits), so equal schedules are equal candidates.
    void canonicalize(Candidate& c) const;

    Bands bands(const Candidate& c, int stage) const;
    /// Name of the loop at outer position p > 0 (1-based) after the candidate's splits.
    std::string outerLoopName(const Candidate& c, int stage, int p) const;

    /// The loop-structure steps (splits, reorders, compute_at) of a candidate.
    std::vector<sched::Step> structureSteps(const Candidate& c) const;
    /// The placement steps (cache_read/cache_write, double_buffer, unroll, vectorize).
    std::vector<sched::Step> placementSteps(const Candidate& c) const;
    /// Both, in that order: what follows the pinned steps.
    std::vector<sched::Step> steps(const Candidate& c) const;

    /// The loops candidate `c` may unroll in stage `stage`, innermost first (see
    /// Candidate::Stage::unroll), within the limits on their number, extents and product;
    /// `outer` tells which are outer-band loops.
    struct UnrollLoop {
        int loop = -1;
        bool outer = false;
        int64_t copies = 1;   ///< straight-line copies its unrolling makes (its iterations)
    };
    std::vector<UnrollLoop> unrollable(const Candidate& c, int stage, const Bands& b) const;

    /// The candidate's register blocks as a hash: per stage the tile factors, the inner loops
    /// kept as loops in order, the set of loops unrolled, vectorize, widening, computeAt and the
    /// array mapping, but not the outer order, the order of the unrolled copies nor where
    /// tensors are cached. Points with one key run the same innermost
    /// code, and the instruction model's error on them is much the same (--measure-top measures
    /// one of each).
    uint64_t blockKey(const Candidate& c) const;
    /// The straight-line copies of the innermost body the candidate's unrolling writes: the
    /// product of the iterations of its unrolled loops, the largest over its stages (1: none).
    /// The instruction model's error grows with it (large unrolled bodies spill more than the
    /// model foresees), so --measure-top measures blocks of every size (SearchOptions::distinct).
    int64_t unrolledCopies(const Candidate& c) const;

    /// The number of distinct loop structures and placements, roughly (log10), for messages.
    double log10Size() const;

private:
    std::string innerName(const Candidate& c, int stage, int loop) const;
    std::string middleName(const Candidate& c, int stage, int loop) const;
    std::string outerName(const Candidate& c, int stage, int loop) const;
    void mutateOnce(Candidate& c, std::mt19937_64& rng) const;
    void findArrayMappings(SpaceStage& sp) const;
    void canonicalizeArray(Candidate& c, int s) const;
    void sampleArray(Candidate& c, int s, std::mt19937_64& rng) const;
    std::vector<sched::Step> arrayPlacementSteps(const Candidate& c, int s) const;

    sched::Program m_base;
    SpaceOptions m_options;
    std::vector<SpaceStage> m_stages;
    int m_level = -1;
    int64_t m_dim = 0;               ///< DIM of the PE array
    int m_scratchpad = -1, m_accumulator = -1;
};

} // namespace loopscope::search
