// The lowered loop-nest IR: loops with kinds, buffers tagged with a memory level, copy
// stages between levels, guards for partial tiles, register temporaries. One walk of it
// gives the interpreter, the printer, the cost model and the C generator what they need.
#pragma once

#include "common/interval.h"
#include "hw/target.h"
#include "ir/kernel.h"
#include "sched/program.h"

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace loopscope::lower {

/// Id of an index expression in an IndexPool.
using IndexId = int;
inline constexpr IndexId kNoIndex = -1;

/// Integer index expressions over variable slots (loop counters). Affine parts are kept in a
/// canonical linear form so that differences such as (i.outer*16 + i.inner) - i.outer*16
/// simplify to i.inner; division, modulo, min and max are nodes of their own (floor
/// division and modulo).
class IndexPool {
public:
    struct Term {
        int atom;       ///< >= 0: a slot; < 0: -(node id + 1), a non-linear node
        int64_t coeff;
    };
    struct Node {
        enum class Op { Linear, Div, Mod, Min, Max };
        Op op = Op::Linear;
        bool slotsOnly = false;   ///< Linear over slots only (set by linear()): eval() inline
        std::vector<Term> terms;  ///< Linear
        int64_t constant = 0;     ///< Linear: constant part; Div/Mod: the divisor
        IndexId a = kNoIndex, b = kNoIndex;
    };

    IndexId constant(int64_t v);
    IndexId slot(int s);
    IndexId add(IndexId a, IndexId b);
    IndexId sub(IndexId a, IndexId b);
    IndexId mul(IndexId a, int64_t c);
    IndexId addConst(IndexId a, int64_t c);
    IndexId div(IndexId a, int64_t c);   ///< floor division by a positive constant
    IndexId mod(IndexId a, int64_t c);   ///< floor modulo by a positive constant
    IndexId min(IndexId a, IndexId b);
    IndexId max(IndexId a, IndexId b);
    /// `id` with slot `s` replaced by the expression `with` (a sliding cache's previous tile).
    IndexId substitute(IndexId id, int s, IndexId with);

    bool isConst(IndexId id, int64_t* value = nullptr) const;
    /// A linear combination of slots only (no min, max, division or modulo inside).
    bool isPureLinear(IndexId id) const;
    /// Structural equality.
    bool same(IndexId a, IndexId b) const;
    /// Smallest and largest value when every slot s ranges over [0, slotExtent[s]).
    std::pair<int64_t, int64_t> bounds(IndexId id, const std::vector<int64_t>& slotExtent) const;
    /// Interval of values when every slot s ranges over slots[s] (slots past the end: 0).
    /// bounds() is range() with every slot over [0, extent).
    Interval range(IndexId id, const std::vector<Interval>& slots) const;
    /// The value at slot values `slots`. A linear combination of slots is evaluated inline,
    /// without a call (the analysis evaluates these hundreds of thousands of times per search).
    int64_t eval(IndexId id, const int64_t* slotValues) const
    {
        const Node& n = m_nodes[id];
        if (!n.slotsOnly)
            return evalNode(id, slotValues);
        int64_t v = n.constant;
        for (const Term& t : n.terms)
            v += t.coeff * slotValues[t.atom];
        return v;
    }
    /// Slots the expression depends on (appended, unsorted, may repeat).
    void slotsOf(IndexId id, std::vector<int>& out) const;
    std::string str(IndexId id, const std::vector<std::string>& slotNames) const;
    const Node& node(IndexId id) const { return m_nodes[id]; }
    size_t size() const { return m_nodes.size(); }
    /// Room for `n` nodes (a lowering makes hundreds: one allocation instead of one per doubling).
    void reserve(size_t n) { m_nodes.reserve(n); }

private:
    int64_t evalNode(IndexId id, const int64_t* slotValues) const;
    IndexId linear(std::vector<Term> terms, int64_t c);
    /// Linear view of any node (a non-linear node becomes one atom).
    void linearize(IndexId id, int64_t scale, std::vector<Term>& terms, int64_t& c) const;
    /// Terms linearize() appends for `id`.
    size_t termsOf(IndexId id) const { return m_nodes[id].op == Node::Op::Linear ? m_nodes[id].terms.size() : 1; }
    std::vector<Node> m_nodes;
    static constexpr int64_t kSharedConstantMin = -1, kSharedConstantMax = 16;
    std::array<IndexId, kSharedConstantMax - kSharedConstantMin + 1> m_constants = filledConstants();
    std::vector<IndexId> m_slots;  ///< slot(s)'s node, once made
    static constexpr std::array<IndexId, kSharedConstantMax - kSharedConstantMin + 1> filledConstants()
    {
        std::array<IndexId, kSharedConstantMax - kSharedConstantMin + 1> a{};
        for (auto& x : a)
            x = kNoIndex;
        return a;
    }
};

/// The local index along a rolling buffer's rolling dimension: global mod extent, written with a
/// non-negative operand.
IndexId rollingIndex(IndexPool& index, IndexId global, int64_t extent, const std::vector<int64_t>& slotExtents);

/// Value expressions computed by the stage body, over register temporaries.
struct ValueNode {
    enum class Op { Const, Reg, Add, Sub, Mul, Neg };
    Op op = Op::Const;
    int64_t intValue = 0;
    double floatValue = 0;
    int reg = -1;
    int a = -1, b = -1;
};

/// A box of a tensor, in global indices: per dimension min, runtime count and step.
struct Region {
    std::vector<IndexId> min;
    std::vector<IndexId> count;
    std::vector<int64_t> step;
};

/// Storage of (part of) a tensor in one memory level. Accumulators have one dimension,
/// indexed row-major by the spatial loops they span, not by tensor coordinates.
struct Buffer {
    enum class Role { Home, Cache, Intermediate, Accumulator };
    std::string name;
    int tensor = -1;
    int level = -1;                 ///< index into Target::levels; -1 = registers
    ir::DType dtype = ir::DType::Float32;
    Role role = Role::Home;
    int ownerStage = -1;            ///< stage allowed to use it; -1 = every stage
    int cache = -1;                 ///< index into Program::caches for Role::Cache
    bool write = false;             ///< cache_write buffer (written back when its scope ends)
    bool doubleBuffer = false;
    int atStage = -1;               ///< stage/loop var of the loop whose body holds it (-1: root)
    int atVar = -1;
    std::vector<int64_t> shape;     ///< elements per dimension (the largest tile)
    std::vector<int64_t> step;      ///< global index distance between neighbours, per dimension
    std::vector<IndexId> origin;    ///< global index of element 0, per dimension (kNoIndex: 0)
    std::vector<int> order;         ///< storage order of the dimensions, outermost first (empty: row-major)
    /// Added to every element when the buffer is filled: a widening cache holds `T + c` where
    /// every load of T in the stage computes `T[...] + c` (sched::widenedOffset), so the stage's
    /// values drop that addition. Copies convert `dst = src - src.valueOffset + dst.valueOffset`.
    int64_t valueOffset = 0;
    /// A sliding cache (sched::CacheStage::slideVar) is a rolling buffer along this dimension:
    /// global index g lives at local index g mod shape[rollDim] (its origin there is kNoIndex), so
    /// the rows one iteration keeps stay where they are and the new ones take the places of the
    /// rows it no longer needs. -1: an ordinary buffer.
    int rollDim = -1;
    /// A rolling buffer's tile at one iteration of its loop (global indices over the loop
    /// counters): what it holds there, the kept rows and the new ones (the tile view draws it).
    Region window;

    /// Dimensions in storage order.
    std::vector<int> storageOrder() const;

    int64_t elements() const;
    int64_t bytes() const { return elements() * ir::dtypeBytes(dtype); }
    /// Bytes it occupies in its level: double buffers count twice.
    int64_t footprintBytes() const { return bytes() * (doubleBuffer ? 2 : 1); }
};

/// A guard condition lo <= expr <= hi (either bound may be kNoIndex).
struct Cond {
    IndexId expr = kNoIndex;
    IndexId lo = kNoIndex;
    IndexId hi = kNoIndex;
    /// Slide: the first or a later iteration of a sliding cache's loop (its fills).
    enum class Why { PartialTile, Padding, Region, Slide } why = Why::PartialTile;
};

struct Stmt {
    enum class Kind {
        Block,      ///< body
        For,        ///< for slot in [0, extent): body
        If,         ///< if all conds: body
        Alloc,      ///< buffer live during body
        Copy,       ///< region of src -> dst (cache fill or write-back)
        AccInit,    ///< buffer[index] = 0, or = bias (src[srcIndex])
        Load,       ///< reg = buffer[index]
        Compute,    ///< buffer[index] = value, or += value
        AccStore,   ///< buffer[index] = src[srcIndex] (through the requantize epilogue)
        Matmul,     ///< one accelerator instruction on a block: LoopNest::matmuls[op] (a tensorized stage)
        Fill,       ///< region of buffer = fillValue (the padding halo of a tensorized operand)
    };
    Kind kind = Kind::Block;
    std::vector<int> body;          ///< child statements (Block, For, If, Alloc)
    int stage = -1;

    // For
    std::string name;
    int slot = -1;
    int var = -1;                   ///< loop variable of `stage`
    int64_t extent = 0;
    sched::LoopKind loopKind = sched::LoopKind::Serial;
    bool reduction = false;

    // If
    std::vector<Cond> conds;

    // Alloc, Load, Compute, AccInit, AccStore (target), Copy (destination)
    int buffer = -1;
    // Copy (source), AccStore (accumulator), AccInit (bias buffer or -1)
    int src = -1;
    bool doubleBuffer = false;      ///< Copy: prefetched into a ping-pong double buffer (pingPongBuffers)
    /// Copy into a sliding cache: 0 the whole tile (its loop's first iteration), 1 only the part
    /// the previous iteration's tile did not hold; -1 an ordinary copy.
    int slidePart = -1;
    Region region;                  ///< Copy
    std::vector<IndexId> index;     ///< index into `buffer` (global tensor index, or loop
                                    ///< index for accumulators)
    std::vector<IndexId> srcIndex;  ///< AccInit (bias) / AccStore (accumulator): index into src
    int reg = -1;                   ///< Load
    int value = -1;                 ///< Compute: ValueNode id
    bool accumulate = false;        ///< Compute: += instead of =
    int multBuffer = -1;            ///< AccStore: buffers of per-channel multiplier / shift
    int shiftBuffer = -1;
    IndexId channel = kNoIndex;     ///< AccStore: channel index for multiplier / shift
    int op = -1;                    ///< Matmul: index into LoopNest::matmuls
    int64_t fillValue = 0;          ///< Fill (Region in `region`, destination `buffer`)
    /// Work the schedule added around the kernel's own (tensorize's offset correction on the
    /// host): its updates are not MACs of the kernel.
    bool helper = false;
};

/// One accelerator matrix multiply on a block of at most DIM x DIM x DIM (a Gemmini preload and
/// compute): C[block] (+)= A[block] x B[block] over the three tensorized loops, whose slots the
/// indices use. The interpreter runs it by these semantics, including the state the PEs keep
/// between consecutive instructions (reused weights in WS, partial sums in OS).
struct MatmulOp {
    int slotI = -1, slotJ = -1, slotK = -1;      ///< slots of the block's rows, columns and depth
    int64_t extentI = 0, extentJ = 0, extentK = 0;  ///< static block size (<= DIM)
    IndexId rows = kNoIndex, cols = kNoIndex, depth = kNoIndex;  ///< valid part at run time (partial blocks)
    int a = -1, b = -1, c = -1;                  ///< buffers: A and B in the scratchpad, C in the accumulator
    std::vector<IndexId> aIndex, bIndex, cIndex; ///< global tensor indices over the slots
    Region aRegion, bRegion, cRegion;            ///< the block of each operand (indices with the block loops at 0, counts)
    sched::Dataflow dataflow = sched::Dataflow::WeightStationary;
    /// The loop directly around the instruction over which the PEs keep state: WS keeps the
    /// weights (B does not depend on it), OS keeps the partial sums (a reduction loop C does not
    /// depend on). -1: none, every instruction loads its block.
    int reuseSlot = -1;
    int64_t reuseExtent = 0;
    /// Without an initial value the first result written to a C element overwrites it: when
    /// every slot here (the reduction loops around the block that C does not depend on) is 0.
    bool overwriteFirst = false;
    std::vector<int> firstSlots;
    int64_t offsetA = 0;                         ///< the offset folded into the initial value (for printing)
};

/// A stage whose input offset the C export folds into its bias: without padding,
/// sum((x + offset) * w) over the reduction is sum(x * w) + offset * sum(w), the second term one
/// number per output channel. The export's <kernel>_prepare computes bias + offset * sum(w) once
/// per set of weights and the kernel, given that folded bias, multiplies the raw inputs
/// (docs/export.md). The interpreter and the cost model's traffic ignore folds: they run the
/// kernel as written, which gives the same outputs.
struct OffsetFold {
    int stage = -1;
    int input = -1;      ///< tensor x whose offset is folded
    int weights = -1;    ///< tensor w summed over the reduction
    int bias = -1;       ///< the stage's bias, which the folded kernel takes with the offset in it
    int64_t offset = 0;
};

/// A lowered program: owns the index and value pools, the statements and the buffers.
struct LoopNest {
    std::shared_ptr<const ir::Kernel> kernel;
    std::shared_ptr<const hw::Target> target;
    IndexPool index;
    std::vector<ValueNode> values;
    std::vector<Stmt> stmts;
    std::vector<Buffer> buffers;
    std::vector<std::string> slotNames;
    std::vector<int64_t> slotExtents;  ///< extent of the loop that drives each slot
    std::vector<std::string> regNames;
    std::vector<sched::Step> trace;            ///< the schedule it came from (for messages)
    std::vector<sched::CacheStage> caches;     ///< Program::caches (Buffer::cache indexes it)
    std::vector<MatmulOp> matmuls;             ///< Stmt::Kind::Matmul statements' operations
    std::vector<OffsetFold> offsetFolds;       ///< findOffsetFolds (the C export's)
    std::vector<uint8_t> foldedValues;         ///< per value: an `x + offset` of a fold (the C export reads x alone)
    int root = -1;

    /// Local (buffer) index of a global tensor index in a buffer, per dimension (modulo the
    /// extent along a rolling buffer's rollDim).
    IndexId localIndex(const Buffer& b, int dim, IndexId global);
    /// Whether value `v` is `x + offset` whose offset the C export folds into the bias.
    bool offsetFolded(int v) const { return v >= 0 && static_cast<size_t>(v) < foldedValues.size() && foldedValues[v] != 0; }
};

/// Whether a statement inside `s` (its body, and theirs, at any depth; not `s` itself) satisfies
/// `pred(const Stmt&)`.
template <typename Pred>
bool anyInside(const LoopNest& nest, const Stmt& s, Pred pred)
{
    std::vector<int> todo(s.body.begin(), s.body.end());
    while (!todo.empty()) {
        const Stmt& st = nest.stmts[todo.back()];
        todo.pop_back();
        if (pred(st))
            return true;
        todo.insert(todo.end(), st.body.begin(), st.body.end());
    }
    return false;
}

/// Lowers a scheduled program to its loop nest.
LoopNest lower(const sched::Program& program);
/// The same for a program not needed afterwards: its trace is moved into the nest, not copied
/// (the search lowers every candidate once).
LoopNest lower(sched::Program&& program);

/// The name of the loop a sliding cache's buffer slides along (Buffer::rollDim >= 0).
std::string slideLoopName(const LoopNest& nest, const Buffer& buffer);

/// Readable pseudo-code of a loop nest, stable for golden tests.
std::string print(const LoopNest& nest);

/// Per buffer: whether it is a ping-pong over the innermost loop holding it, the next tile
/// fetched while the current one is used. A double-buffered read cache is, when its source
/// exists before that loop (a tensor's home, or a buffer allocated outside the loop); one whose
/// source is filled inside the same loop, or one outside every loop, has nothing to overlap
/// with and is copied synchronously. The generated code and the cost model both follow this.
std::vector<bool> pingPongBuffers(const LoopNest& nest);

} // namespace loopscope::lower
