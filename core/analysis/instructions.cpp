// The instruction model (see instructions.h): one walk of the nest counts the events of the C
// the generator writes for it, following the generator's decisions (codegen/c_decisions.h).
#include "analysis/instructions.h"

#include "common/interval.h"
#include "common/saturating.h"

#include "analysis/cost_report.h"
#include "analysis/nest_count.h"
#include "codegen/c_decisions.h"

#include <algorithm>
#include <array>
#include <bitset>
#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <numeric>
#include <optional>
#include <set>

namespace loopscope::analysis {

using lower::Buffer;
using lower::Cond;
using lower::IndexId;
using lower::kNoIndex;
using lower::LoopNest;
using lower::Stmt;
using lower::ValueNode;

namespace {

/// Dimensions of a copy region the memcpy count handles (tensors have at most a few).
constexpr size_t kMaxCopyDims = 8;

/// detail::EnumerateCopiesScope and detail::closedFormCopies().
thread_local bool t_enumerateCopies = false;
thread_local int64_t t_closedFormCopies = 0;
thread_local int64_t t_enumeratedPoints = 0;

/// GCC -O2's complete unrolling (cunroll and cunrolli, tree_unroll_loops_completely without
/// growth) of a loop of `trips` iterations whose GIMPLE size is `size` statements, `folded` of
/// them folding away in the copies: the copies' statements, 2/3 of them (its estimate of what
/// later passes remove), no more than the loop's (estimated_unrolled_size). For two
/// iterations `-fdump-tree-cunroll-details` (scripts/unroll_decisions.py --sizes) confirms it
/// on all 727 innermost loops of calibrate's 1,500 random schedules of seeds 0, 100000 and
/// 300000, with GCC's own sizes; LoopShapes::gimpleSize estimates them (session 22).
bool unrollsWithoutGrowth(int64_t trips, int64_t size, int64_t folded)
{
    return trips * (size - folded) * 2 / 3 <= size;
}
/// GIMPLE statements of the requantization epilogue (ls_requantize and the saturation).
constexpr int kRequantGimpleSize = 22;
/// The statements of a loop's own control in GCC's size estimate (cunroll's tree_estimate_loop_size:
/// the counter's increment, the down-counter's and the exit test's two).
constexpr int kLoopControlSize = 4;
/// The same in cunrolli, before the loop is rotated: the test at its top and the increment.
constexpr int kEarlyLoopControlSize = 3;
/// The most a body's size estimate (loopBodySize, in GIMPLE statements) counts: 2^24, far past every
/// threshold GCC's unrolling compares it with.
constexpr int kMaxBodySize = 1 << 24;
/// Largest body of a two-iteration loop around kept loops that GCC -O2 unrolls completely, with
/// each kept loop counted once with its kLoopControlSize (LoopShapes' sizeOnce), and 4 more per
/// multiplication of the loop's counter that folds away in the copies. cunroll weighs an outer
/// loop as an innermost one (2/3 of the two copies less what folds, no larger than the loop: the
/// loop's size O about 4 times the folded E at most), and O also counts the inner loops' set-up, which
/// sizeOnce leaves out. `-fdump-tree-cunroll-details` over calibrate's 1,500 random schedules of
/// seeds 0, 100000 and 300000: GCC unrolls 161 of 1,950 such loops, the model kept all of them.
/// By sizeOnce alone, up to 11: 93 unrolled, 12 kept; 12 to 15: 58 and 73; from 16: 10 and 1,704.
/// Of 5, 7, 9, 11 and 13 (+ 4 per multiplication), and 13 alone, 9 gave the best figures
/// (docs/performance.md, "Session 20").
constexpr int kSmallBodyAroundLoops = 9;
/// The same for a DSP loop of two steps: GCC unrolls those of contiguous operands and a register
/// accumulator (sizes 5 to 14) and keeps those of an accumulator in memory (16 to 22): measured on
/// the examples, 60 random schedules and the search's DSP schedules (docs/cost-model.md). 4 more
/// per multiplication of the loop's counter that folds away in the copies, as for the scalar
/// loops: a strided (packed) int8 operand's (session 20: by `-fdump-tree-cunroll-details` over
/// calibrate's 1,500 random schedules, the two-step DSP loops of size 16 GCC unrolls, 15, a
/// strided operand beside a register accumulator, have one, E = 5; those it keeps, 6, an
/// accumulator in memory, none; decisions agreeing with GCC's on 113 -> 128 of 131 such loops; the
/// 13 of size 28 with two, E = 6, stay above the threshold, and GCC keeps 10 of them).
constexpr int kSmallDspBody = 15;
/// ... and kept whatever its size when its operands' addresses carry this many terms that do not
/// fold into the copies (LoopShapes: a ping-pong half that changes, a cache's computed origin).
constexpr int kKeptDspAddressTerms = 2;
/// GCC -O2's complete unrolling of a loop that broadcasts a bias element into an accumulator
/// in memory (cunroll, without growth: 2/3 of the copies' statements, less those folded away,
/// no more than the loop's). `-fopt-info-loop-optimized` over calibrate's 1,500 random schedules
/// of seeds 0, 100000 and 300000 (scripts/unroll_decisions.py): every one of 3 to 5 iterations
/// unrolled (35 of 35); of 6 and 8 iterations 29 of 59, those whose stores' addresses are
/// constants (`O_acc[h] = bias[k]`, `O_acc[n * 6 + h]` with n a loop of one iteration), not
/// those beside another loop's counter (`O_acc[c * 6 + h] = bias[c]`). Disagreements with GCC
/// over all loops of those schedules: 142 / 146 / 144 -> 107 / 90 / 118, none new. No loop of 7
/// was among them; 7 lies between, where GCC's estimate (the copies grow with the iterations)
/// asks less folding than for 8.
constexpr int64_t kUnrolledBroadcastTrips = 5;
constexpr int64_t kUnrolledConstantBroadcastTrips = 8;
/// Unrolled copies of a DSP loop whose word loads still advance their own pointers (post-indexed
/// LDR): random #100071's 3 and #300415's 2 do, the search's picks of 64 and more share a counter
/// as a register offset instead (search_dense_int8_dsp_1, search_conv2d_int8_dsp_1, measured on
/// qemu). Of calibrate's 1,500 random schedules of seeds 0, 100000 and 300000 one has a DSP loop
/// in more than 4 copies (random #117's 8, which GCC unrolls completely, so neither count is
/// right); 4 is where the evidence ends, not a fitted value.
constexpr int64_t kPostIndexedDspCopies = 4;
/// Int8 words a single-issue core's schedule holds beyond the set unrolled copies reuse (see the
/// registers of a loop in loop()). GCC schedules with register pressure in view and stops moving
/// loads up where the registers run out; where is not modelled: fitted on the qemu suite's
/// Cortex-M4 schedules, all of an iteration's words (no limit) predicted search_dense_int8_dsp_2
/// +22.0% and search_pointwise_conv_int8_resident_1 +20.0%, 6 predicted them +1.0% and +12.6%, 5
/// -6.0% and +10.1% with dense_int8_dsp at -4.0% (-18.2% without the rule), 4 left it at -11.1%.
constexpr double kLoadsAhead = 5;
/// The same in a body guards split into blocks (padded taps), counting the words of the block
/// with the most: 2 (fitted on the M4's guarded examples: with 5, or with every word,
/// conv2d_int8_tflite_small came out 30% high; with 2 it is -7.3%, _slide -5.6% and
/// conv2d_s2_int8_tflite_small -5.4%, from -19.8%, -18.4% and -16.5% without).
constexpr double kLoadsAheadGuarded = 2;
/// The same on a dual-issue core (the export compiles with -mcpu=cortex-m7), in a guarded body
/// only: conv2d_s2_int8_tflite_small's M7 code loads each padded tap's four F words before their
/// first SXTB16 (an unguarded body's it interleaves: dense_int8_dsp). 1 fitted on calibrate's
/// 500 random schedules and the examples (session 18): the 500 unchanged but random #212 (-3.7%
/// -> +2.0%); five examples moved, conv2d_s2_int8_tflite_small -10.1% -> -4.1%,
/// conv2d_int8_tflite_small -4.6% -> +2.8%, _slide -6.4% -> +0.9%, conv2d_int8_dsp -2.6% ->
/// +4.5%, depthwise_conv_int8_tflite_dsp +0.6% -> +5.3%; 2 put conv2d_int8_dsp at +11.6% (a
/// whole accumulator more on the stack, 2 accesses at each of its 36 update sites).
constexpr double kLoadsAheadGuardedDualIssue = 1;
/// index_op events (two instructions each) a signed floor division by a power of two costs on
/// the Cortex-M7 beyond the M4's two instructions (stridedDivisions).
constexpr double kSignedFloorDivM7 = 1;
/// Largest stride in bytes a Thumb-2 load reaches with a scaled register offset (LSL #3).
constexpr int64_t kRegisterOffsetStride = 8;
/// Instructions per output of a requantization whose channel's values GCC computes before the
/// loop (channelWork): the two it recomputes from the multiplier in the loop.
constexpr double kRequantHoistedResidue = 2;
/// The values of a channel's requantization GCC keeps across the loop then: the left shift, the
/// doubled multiplier, its sign mask, the right shift, the rounding mask and its half (random
/// #267: r10, r8, ip, r7, r6, lr).
constexpr double kRequantChannelValues = 6;

/// Unrolled copies of a loop that GCC's scheduler interleaves in one basic block, so that a value
/// they share is used by all of them while it is fresh: two (dense_int8_dsp's 2x2 block, no
/// spill on the M7). From three copies on the copies stay in the order the C writes them and a
/// value they share stays live across all of them (sharedOperand; the search's picks of 4 to 16
/// copies: conv2d_int8 with 16 oh copies reloads each of its 8 packed F pairs from the stack
/// at every use, 127 stack accesses per iteration).
constexpr double kInterleavedCopies = 2;
/// ... and only when each copy is small: at most this many unrolled copies inside it (the
/// search's conv2d_s2_int8 pick: 2 k copies of 8 oh x 3 r copies each, I's 17 rows loaded first
/// and kept across both k copies, 183 stack accesses per iteration).
constexpr double kInterleavedBody = 8;
/// Int accumulators in memory that GCC keeps in registers across unrolled copies updating them
/// apart (memoryAccumulator): 4 (dense's batch of 4 across 16 i copies); 16 are loaded and stored
/// at every update.
constexpr double kForwardedAccumulators = 4;

struct FeatureInfo {
    InsnFeature feature;
    const char* name;
    const char* category;
    double coefficient;  ///< default: instructions per event in straightforward code
};

constexpr FeatureInfo kFeatures[] = {
    {InsnFeature::Function, "function", "loop", 20},
    {InsnFeature::Load, "load", "loads", 1},
    {InsnFeature::Store, "store", "stores", 1},
    {InsnFeature::Mla, "mla", "mla", 1},
    {InsnFeature::FpuOp, "fpu_op", "fpu", 1},
    {InsnFeature::Alu, "alu", "alu", 1},
    {InsnFeature::AccInit, "acc_init", "alu", 1},
    {InsnFeature::LoopIteration, "loop_iteration", "loop", 2},
    {InsnFeature::LoopCounter, "loop_counter", "loop", 1},
    {InsnFeature::LoopEntry, "loop_entry", "loop", 2},
    {InsnFeature::StreamInit, "stream_init", "address", 2},
    {InsnFeature::FoldedStream, "folded_stream", "address", 0},
    {InsnFeature::SharedStream, "shared_stream", "address", 0.5},
    {InsnFeature::WordStream, "word_stream", "address", 1},
    {InsnFeature::StreamCopy, "stream_copy", "address", 1},
    {InsnFeature::GuardStream, "guard_stream", "guards", 1},
    {InsnFeature::OuterStream, "outer_stream", "address", 1},
    {InsnFeature::IndexOp, "index_op", "address", 2},
    {InsnFeature::Guard, "guard", "guards", 2},
    // A test of a guard computed before the loop: `cbz` of a flag in a register (1), a compare
    // and branch of the value computed before the loop (2), with a reload of it from the stack
    // (3); 1.5 fitted over calibrate's 500 random schedules (docs/cost-model.md, session 17).
    {InsnFeature::GuardFlag, "guard_flag", "guards", 1.5},
    {InsnFeature::Requantize, "requantize", "requantize", 11},
    {InsnFeature::RequantizeChannel, "requantize_channel", "requantize", 9},
    {InsnFeature::DspWord, "dsp_word", "loads", 1},
    {InsnFeature::DspUnpack, "dsp_unpack", "alu", 1},
    {InsnFeature::DspPack, "dsp_pack", "alu", 1},
    {InsnFeature::Smlad, "smlad", "smlad", 1},
    {InsnFeature::LibraryCall, "library_call", "library", 4},
    {InsnFeature::Library, "library", "library", 1},
    {InsnFeature::CopyStatement, "copy_statement", "copy_calls", 2},
    {InsnFeature::CopyCall, "copy_call", "copy_calls", 10},
    {InsnFeature::WaitCall, "wait_call", "copy_calls", 1},
    {InsnFeature::Spill, "spill", "spills", 2},
    {InsnFeature::SpillReload, "spill_reload", "spills", 1},
    {InsnFeature::HookCall, "hook_call", "copies", 9},
    {InsnFeature::HookRow, "hook_row", "copies", 9},
    {InsnFeature::Memcpy, "memcpy", "copies", 1},
    {InsnFeature::HookWait, "hook_wait", "copies", 1},
    // loopscope_widen_copy as arm-none-eabi-gcc 12 -O2 compiles it for the M7, M4 and M3 alike:
    // 14 instructions per call, 10 per row, 5 per element (ldrsb, add, strh, cmp, bne).
    {InsnFeature::WidenCall, "widen_call", "copies", 14},
    {InsnFeature::WidenRow, "widen_row", "copies", 10},
    {InsnFeature::WidenElement, "widen_element", "copies", 5},
};
static_assert(sizeof kFeatures / sizeof kFeatures[0] == kInsnFeatureCount);

const FeatureInfo& info(InsnFeature f) { return kFeatures[static_cast<int>(f)]; }

/// A std::map of a few entries in one sorted array: the same order and lookups, one allocation
/// instead of one per entry (the code loops' streams were a twentieth of an analysis in malloc).
template <typename K, typename V>
class FlatMap {
public:
    V& operator[](const K& k)
    {
        auto it = std::lower_bound(m_items.begin(), m_items.end(), k, [](const std::pair<K, V>& a, const K& b) { return a.first < b; });
        if (it == m_items.end() || it->first != k) {
            const auto at = it - m_items.begin();
            if (m_items.empty())
                m_items.reserve(4);  // a loop's few streams: one allocation
            it = m_items.insert(m_items.begin() + at, {k, V{}});
        }
        return it->second;
    }
    /// The value at `k`, or null.
    const V* find(const K& k) const
    {
        auto it = std::lower_bound(m_items.begin(), m_items.end(), k, [](const std::pair<K, V>& a, const K& b) { return a.first < b; });
        return it == m_items.end() || it->first != k ? nullptr : &it->second;
    }
    size_t size() const { return m_items.size(); }
    bool empty() const { return m_items.empty(); }
    auto begin() const { return m_items.begin(); }
    auto end() const { return m_items.end(); }

private:
    std::vector<std::pair<K, V>> m_items;
};

/// A std::set of a few keys in one sorted array (see FlatMap).
template <typename K>
class FlatSet {
public:
    void insert(const K& k)
    {
        auto it = std::lower_bound(m_items.begin(), m_items.end(), k);
        if (it == m_items.end() || *it != k) {
            const auto at = it - m_items.begin();
            if (m_items.empty())
                m_items.reserve(4);
            m_items.insert(m_items.begin() + at, k);
        }
    }
    size_t size() const { return m_items.size(); }
    bool empty() const { return m_items.empty(); }
    auto begin() const { return m_items.begin(); }
    auto end() const { return m_items.end(); }

private:
    std::vector<K> m_items;
};

/// A loop the compiled code keeps: not unrolled, more than one iteration.
struct CodeLoop {
    int slot = -1;
    int64_t iterations = 0;    ///< over the whole run
    /// Pointers advancing per iteration, by (buffer, elements per iteration): how many accesses
    /// use it in all iterations, and whether a post-indexed load can advance it.
    FlatMap<std::pair<int, int64_t>, std::pair<double, bool>> streams;
    size_t exitConds = 0;      ///< of the guards around the current statement, those GCC makes exits of the loop (exitGuards)
    bool exits = false;        ///< a guard inside is an exit: its check keeps an induction variable
    FlatSet<std::pair<int, int64_t>> outerStreams;
    /// Per stream: its float loads at offset 0 from the pointer, counted over the copies of the
    /// unrolled loops around them where the copy's constant offset is 0 (Counter::access).
    FlatMap<std::pair<int, int64_t>, double> zeroOffsetFloat;
    std::vector<codegen::SlotCoefficients> guardForms;  ///< distinct guard expressions advancing in it
    size_t condsAtEntry = 0;   ///< guards around the loop (those inside make its accesses conditional)
    bool dsp = false;          ///< a DSP loop (its word loads step by the lanes)
    /// Accumulators the code keeps in registers across its iterations, by buffer: the unrolled
    /// copies of the element (register pressure).
    FlatMap<int, double> accumulators;
    /// Places in one iteration where a float or DSP accumulator is updated apart from its other
    /// updates (liveAccumulator): a spilled one is reloaded and stored at each.
    double accumulatorSites = 1;
    /// Operands that unrolled copies inside the loop share and that stay live across copies that
    /// do not read them: the registers they hold at once, and the stack accesses per iteration of
    /// the loop when one of those registers is spilled (sharedOperand).
    struct SharedValues {
        double registers;  ///< held at once
        double accesses;   ///< stack accesses per iteration per register spilled
        bool fp;           ///< in the FPU's registers (float32 values)
        bool whole;        ///< spilled as one group (live across the unrolled body), else one by one
        bool invariant = false;  ///< values computed before the loop (invariant addresses, guard values): spilled first, one by one, leaving the rest as it was
    };
    std::vector<SharedValues> sharedOperands;
    /// DSP operands that do not change in the loop (dspBody): their events (kInvariantFeatures)
    /// counted in every iteration and counted where they are hoisted to, and the registers they
    /// would hold.
    std::array<double, 4> invariantInLoop{}, invariantHoisted{};
    double invariantRegisters = 0;
    /// Addresses of DSP word loads that do not change in the loop but stay in it, per
    /// iteration (addressesAlways: under a guard, never taken out; addressesUnlessHoisted: left
    /// in when the operands' registers do not fit, invariantRegisters): GCC's tree-level
    /// invariant motion takes the address computations out whatever the registers, one register
    /// each (depthwise_conv_int8_tflite_dsp: each of F's 9 tap addresses reloaded from the stack
    /// before its load).
    double addressesAlways = 0, addressesUnlessHoisted = 0;
    double addressLoadsAlways = 0, addressLoadsUnlessHoisted = 0;  ///< their loads per iteration
    /// Guard checks of values that do not change in the loop, computed before it and compared in
    /// every iteration: one register each (depthwise_conv_int8_mult_tflite_unrolled: its taps'
    /// w + s - 1 reloaded from the stack for the compare in each c iteration).
    double hoistedChecks = 0;
    /// Base registers beyond one per array of per-channel parameters addressed with a register
    /// offset (registerOffsetBases), per buffer.
    FlatMap<int, double> offsetBases;
    /// Words of int8 DSP operands loaded in each iteration (not taken out of the loop), whether
    /// a guard inside splits the body into blocks, and the words loaded in the block that loads
    /// the most: on a single-issue core GCC's scheduler issues int8 loads ahead (see loop()).
    double int8Words = 0;
    bool guarded = false;
    double maxBlockWords = 0;
    /// Registers of the DSP operand values that interleaved unrolled copies reuse (dspBody).
    double blockOperands = 0;
    /// The loop's streams GCC addresses with a scaled register offset from a counter
    /// (scaledIndex): no pointer of their own to advance; and the counters' steps, each
    /// counter's increment an instruction of each iteration.
    FlatMap<std::pair<int, int64_t>, int64_t> scaledStreams;
    /// Values of the requantizations whose channel's values are computed before the loop
    /// (channelWork), and their uses per iteration: reloaded at each use when spilled.
    double channelValues = 0, channelUses = 0;
    /// A requantization of `outputs` outputs whose per-channel part (`loads` loads) can run
    /// `once` times before a loop with kept loops inside, where their registers allow
    /// (decided where the loop ends).
    struct HoistedChannel {
        double outputs, once, loads;
    };
    std::vector<HoistedChannel> hoistedChannels;
    /// The general registers the innermost kept loops inside hold (this loop's own if it is one).
    double innerRegisters = 0;
    /// An integer element is read or written through one of the loop's own pointers (streams):
    /// with a guard made an exit of the loop, GCC then counts the iterations (exitGuards).
    bool intStreams = false;
};

/// The events of a DSP operand's loads and unpacking or packing (CodeLoop::invariantInLoop).
constexpr InsnFeature kInvariantFeatures[] = {InsnFeature::DspWord, InsnFeature::DspUnpack, InsnFeature::Load, InsnFeature::DspPack};

/// An enclosing For of the statement being counted.
/// The copies of a guard's block: the unrolled loops (inside the innermost loop the code keeps,
/// and between it and the next kept loop outside) whose counters its conditions read.
struct CopySpace {
    struct Loop {
        int slot;
        int64_t trips;
        bool written;  ///< unrolled in the C (else by the compiler)
    };
    std::vector<Loop> loops;
    int64_t combos = 1;  ///< at most 257 (257: too many to enumerate)
    /// The copy of the C a combination belongs to: the copies GCC unrolls itself are one copy of
    /// the C, which keeps a check wherever one of them needs it.
    int64_t keyOf(int64_t k) const
    {
        int64_t key = 0, radix = 1;
        for (const Loop& l : loops) {
            if (l.written)
                key += (k % l.trips) * radix;
            radix *= l.trips;
            k /= l.trips;
        }
        return key;
    }
};

struct Enclosing {
    int slot;
    int64_t trips;      ///< iterations as the C writes them
    int code;           ///< index into the code loops when the compiled code keeps it, else -1
    bool written = false;  ///< unrolled in the C, one block per iteration (each copy's counter a constant)
};

/// Arithmetic of a value expression without the offsets of loaded registers (x + 128), which the
/// code computes once per load.
int valueArithmetic(const LoopNest& n, int v)
{
    const ValueNode& nd = n.values[v];
    switch (nd.op) {
    case ValueNode::Op::Const:
    case ValueNode::Op::Reg: return 0;
    case ValueNode::Op::Neg: return 1 + valueArithmetic(n, nd.a);
    default: break;
    }
    if ((nd.op == ValueNode::Op::Add || nd.op == ValueNode::Op::Sub) && n.values[nd.a].op == ValueNode::Op::Reg && n.values[nd.b].op == ValueNode::Op::Const)
        return 0;
    return 1 + valueArithmetic(n, nd.a) + valueArithmetic(n, nd.b);
}

/// The loaded registers a value expression adds an offset to (x + 128, which the code computes
/// once per load; valueArithmetic leaves it out), appended to `out`.
void offsetRegisters(const LoopNest& n, int v, std::vector<int>& out)
{
    const ValueNode& nd = n.values[v];
    switch (nd.op) {
    case ValueNode::Op::Const:
    case ValueNode::Op::Reg: return;
    case ValueNode::Op::Neg: offsetRegisters(n, nd.a, out); return;
    default: break;
    }
    if ((nd.op == ValueNode::Op::Add || nd.op == ValueNode::Op::Sub) && n.values[nd.a].op == ValueNode::Op::Reg && n.values[nd.b].op == ValueNode::Op::Const) {
        if (!n.offsetFolded(v))
            out.push_back(n.values[nd.a].reg);
        return;
    }
    offsetRegisters(n, nd.a, out);
    offsetRegisters(n, nd.b, out);
}

/// An index as GCC's front end folds the C's sum of terms (written in slot order): a
/// multiplication's constant factor is taken out of the first terms when they share it, or
/// when the smaller is a power of two dividing the larger (fold_plusminus_mult_expr: `j * 4 +
/// i * 2` is `(j * 2 + i) * 2`); once a sum is not a product, nothing more folds. Each addend
/// of the result: its terms (slot, coefficient within it) and its factor.
struct FoldedAddend {
    std::vector<std::pair<int, int64_t>> terms;
    int64_t factor = 1;
};
std::vector<FoldedAddend> foldedIndex(const codegen::SlotCoefficients& coeff)
{
    std::vector<FoldedAddend> out;
    for (const auto& [slot, k] : coeff) {
        if (k == 0)
            continue;
        if (out.size() == 1) {
            FoldedAddend& a = out[0];
            // The sum so far as a product: its factor, or a lone term's coefficient.
            const bool lone = a.factor == 1 && a.terms.size() == 1;
            const int64_t c0 = a.factor != 1 ? a.factor : lone ? a.terms[0].second : 1;
            if (c0 != 1 || k != 1) {
                if (c0 == k) {
                    if (lone)
                        a = FoldedAddend{{{a.terms[0].first, 1}}, c0};
                    a.terms.push_back({slot, 1});
                    continue;
                }
                const int64_t small = std::min(std::abs(c0), std::abs(k)), big = std::max(std::abs(c0), std::abs(k));
                if (small > 1 && (small & (small - 1)) == 0 && big % small == 0) {
                    FoldedAddend folded{{}, small};
                    for (const auto& [s2, k2] : a.terms)
                        folded.terms.push_back({s2, k2 * a.factor / small});
                    folded.terms.push_back({slot, k / small});
                    a = folded;
                    continue;
                }
            }
        }
        out.push_back(FoldedAddend{{{slot, k}}, 1});
    }
    return out;
}

/// What the compiler makes of each loop of a nest, computed once bottom-up: its iterations as
/// the C writes them, its DSP plan, the size and branches of its body, and whether the compiled
/// code keeps it as a loop (see compilerKeepsLoop) or makes it a memset.
class LoopShapes {
public:
    explicit LoopShapes(const LoopNest& n)
        : m_n(n), m_info(n.stmts.size()), m_halfSlot(n.buffers.size(), -1), m_slotLoop(n.slotExtents.size(), -1), m_parent(n.stmts.size(), -1)
    {
        if (n.root < 0)
            return;
        for (size_t i = 0; i < n.stmts.size(); ++i)
            for (int c : n.stmts[i].body)
                m_parent[c] = static_cast<int>(i);
        if (std::any_of(n.buffers.begin(), n.buffers.end(), [](const lower::Buffer& b) { return b.doubleBuffer; })) {
            const std::vector<bool> pingPong = lower::pingPongBuffers(n);
            std::function<void(int, const Stmt*)> find = [&](int id, const Stmt* loop) {
                const Stmt& s = n.stmts[id];
                if (s.kind == Stmt::Kind::Alloc && pingPong[s.buffer] && loop && loop->extent > 1)
                    m_halfSlot[s.buffer] = loop->slot;
                for (int c : s.body)
                    find(c, s.kind == Stmt::Kind::For ? &s : loop);
            };
            find(n.root, nullptr);
        }
        for (size_t i = 0; i < n.stmts.size(); ++i)
            if (n.stmts[i].kind == Stmt::Kind::For && n.stmts[i].slot >= 0 && n.stmts[i].slot < static_cast<int>(m_slotLoop.size()))
                m_slotLoop[n.stmts[i].slot] = static_cast<int>(i);
        visit(n.root);
    }

    struct Info {
        std::optional<codegen::DspLoop> dsp;
        int64_t trips = 0;
        int size = 0;             ///< loopBodySize (For) or the statement's own size
        int sizeOnce = 0;         ///< the same with each kept loop inside counted once, with its counter and exit (kLoopControlSize)
        bool calls = false;       ///< a copy (a call) inside
        bool keptInside = false;  ///< a kept loop inside
        bool zeroes = false;      ///< only zeroes accumulators in memory (and has at least one)
        bool onlyZeroes = true;
        bool memset = false;
        bool copies = false;      ///< only copies elements unchanged (plainCopy) (and has at least one)
        bool onlyCopies = true;
        bool memcpy = false;
        bool writtenOut = false;  ///< a vectorized loop written out like an unrolled one
        bool kept = false;
        int gimple = 0;           ///< a two-iteration innermost loop's GIMPLE size (gimpleSize, with its control), else 0
        int gimpleFolded = 0;     ///< of it, what folds away in the copies
    };

    const Info& operator[](int id) const { return m_info[id]; }
    /// The slot whose parity selects a ping-pong buffer's half (the C's `[(x & 1)]`), or -1.
    int halfSlot(int buffer) const { return m_halfSlot[buffer]; }

private:
    void visit(int id)
    {
        const Stmt& s = m_n.stmts[id];
        Info& in = m_info[id];
        for (int c : s.body)
            visit(c);
        int size = 0, sizeOnce = 0;
        bool onlyZeroes = true, anyZero = false, onlyCopies = true, anyCopy = false;
        for (int c : s.body) {
            const Stmt& b = m_n.stmts[c];
            const Info& ci = m_info[c];
            in.calls = in.calls || ci.calls || b.kind == Stmt::Kind::Copy;
            in.keptInside = in.keptInside || ci.kept || ci.keptInside;
            onlyZeroes = onlyZeroes && ci.onlyZeroes;
            anyZero = anyZero || ci.zeroes;
            onlyCopies = onlyCopies && ci.onlyCopies;
            anyCopy = anyCopy || ci.copies;
            // Sizes saturate at kMaxBodySize: nested unrolled copies of a large body multiply
            // past an int (a fuzzed kernel: 64 x 33,828,864), and every threshold they are
            // compared with is far below.
            const auto add = [](int& to, int64_t more) { to = static_cast<int>(std::min<int64_t>(kMaxBodySize, to + more)); };
            switch (b.kind) {
            case Stmt::Kind::For: {
                const int copies = static_cast<int>(std::min<int64_t>(ci.trips, 64));
                add(size, int64_t(copies) * ci.size);
                add(sizeOnce, ci.kept ? int64_t(ci.sizeOnce) + kLoopControlSize : int64_t(copies) * ci.sizeOnce);
                break;
            }
            case Stmt::Kind::If: add(size, 3 + int64_t(ci.size)); add(sizeOnce, 3 + int64_t(ci.sizeOnce)); break;
            default: add(size, ci.size); add(sizeOnce, ci.sizeOnce);
            }
        }
        switch (s.kind) {
        case Stmt::Kind::For: {
            if (s.loopKind == sched::LoopKind::Vectorized) {
                in.dsp = codegen::dspLoop(m_n, s);
                in.writtenOut = codegen::vectorizedWrittenOut(m_n, s);
            }
            in.trips = s.extent / (in.dsp ? in.dsp->lanes : 1);
            int dspAddressTerms = 0;
            if (in.dsp) {
                // The operands' address terms GCC cannot fold into the copies: a ping-pong half
                // that changes (per loop choosing it) and an origin computed where a cache is
                // allocated (per buffer).
                std::vector<int64_t> terms;
                auto operand = [&](const codegen::DspOperand& o) {
                    if (!o.load)
                        return 0;
                    if (m_halfSlot[o.load->buffer] >= 0)
                        terms.push_back(m_halfSlot[o.load->buffer]);
                    if (codegen::bufferOffset(m_n, o.load->buffer, o.load->index).base)
                        terms.push_back(-1 - o.load->buffer);
                    return o.stride == 1 ? (in.dsp->int8 ? 4 : 2) : (in.dsp->int8 ? 10 : 5);
                };
                const bool lanes = in.dsp->path == codegen::DspLoop::Path::Lanes;
                // An accumulator in memory adds its load, store and address, as for a Compute.
                size = operand(in.dsp->x) + operand(in.dsp->y) + (lanes ? in.dsp->lanes * 3 : (in.dsp->int8 ? 2 : 1))
                    + (m_n.buffers[in.dsp->update->buffer].level >= 0 ? 3 * (lanes ? in.dsp->lanes : in.dsp->int8 ? 2 : 1) : 0);
                std::sort(terms.begin(), terms.end());
                dspAddressTerms = static_cast<int>(std::unique(terms.begin(), terms.end()) - terms.begin());
            }
            in.size = size;
            in.sizeOnce = in.dsp ? in.size : sizeOnce;  // a DSP loop's size is its steps' own
            in.onlyZeroes = onlyZeroes && s.loopKind != sched::LoopKind::Vectorized;
            in.zeroes = anyZero;
            in.memset = in.onlyZeroes && in.zeroes;
            in.onlyCopies = onlyCopies && s.loopKind != sched::LoopKind::Vectorized && s.loopKind != sched::LoopKind::Unrolled
                && (s.extent == 1 || contiguousCopies(s, s.slot));
            in.copies = anyCopy;
            in.memcpy = in.onlyCopies && in.copies;
            // Unrolled loops, and vectorized ones the generator writes out, are straight-line code.
            const bool loopy = s.loopKind != sched::LoopKind::Unrolled && !in.writtenOut && in.trips > 1 && !in.memset && !in.memcpy;
            // GCC -O2 unrolls a two-iteration loop completely when that does not make the code
            // larger (cunroll: 2/3 of the copies' statements less those folded away, at most the
            // loop's): weighed statement by statement for an innermost loop (gimpleSize). For a
            // DSP loop only the multiplications count: a strided operand's index multiplies its
            // counter (`c_inner * 8`), folded away in the copies (kSmallDspBody).
            const bool twoInnermost = loopy && in.trips == 2 && !in.keptInside && !in.calls;
            if (twoInnermost && !in.dsp) {
                const GimpleSize gs = gimpleSize(id);
                in.gimple = gs.size + kLoopControlSize;
                in.gimpleFolded = gs.folded + kLoopControlSize;
            }
            int small = kSmallDspBody;
            if (twoInnermost && in.dsp && in.size > small)
                small += 4 * foldedByPeeling(id);
            // A two-step DSP loop whose operands' addresses carry kKeptDspAddressTerms terms
            // that do not fold is kept whatever its size (GCC's own decisions over the search's
            // fronts, scripts/unroll_decisions.py: the 8-channel blocks of the 9 schedules whose
            // two-step loops it all kept have two, a ping-pong I cache with its origin or an F
            // cache ping-ponged beside an I cache's origin; of the 35 schedules whose loops it
            // unrolled one has, whose 34 of 36 it unrolled; -50.2% -> +7.4% for the worst).
            in.kept = loopy
                && (in.trips > 2 || in.keptInside || in.calls || dspAddressTerms >= kKeptDspAddressTerms
                    || (in.dsp ? in.size > small : !unrollsWithoutGrowth(in.trips, in.gimple, in.gimpleFolded)));
            // A two-iteration loop around kept loops: GCC's estimate counts each of them once
            // with its counter and exit, and unrolls the outer loop when the copies are no
            // larger (kSmallBodyAroundLoops); each copy then runs the kept loops with the outer
            // counter a constant.
            if (in.kept && in.keptInside && !in.calls && !in.dsp && in.trips == 2
                && sizeOnce <= kSmallBodyAroundLoops + 4 * foldedByPeeling(id))
                in.kept = false;
            // A bias broadcast into an accumulator in memory (`O_acc[h] = bias[c]`): GCC unrolls
            // it completely up to kUnrolledBroadcastTrips iterations, and up to
            // kUnrolledConstantBroadcastTrips where every store's address is a constant (the
            // accumulator's other counters are copies' constants or loops of one iteration).
            if (in.kept && !in.keptInside && !in.calls && !in.dsp) {
                const int init = broadcastsBias(id);
                if (init >= 0
                    && (in.trips <= kUnrolledBroadcastTrips
                        || (in.trips <= kUnrolledConstantBroadcastTrips && constantBase(m_n.stmts[init].index, s.slot))))
                    in.kept = false;
            }
            break;
        }
        case Stmt::Kind::Block:
        case Stmt::Kind::Alloc:
        case Stmt::Kind::If:
            in.size = size;
            in.sizeOnce = sizeOnce;
            in.onlyZeroes = onlyZeroes && s.kind != Stmt::Kind::If;
            in.zeroes = anyZero;
            in.onlyCopies = onlyCopies && s.kind != Stmt::Kind::If;
            in.copies = anyCopy;
            break;
        case Stmt::Kind::Load: in.size = 2; in.onlyZeroes = in.onlyCopies = false; break;
        case Stmt::Kind::Compute: in.size = 1 + valueArithmetic(m_n, s.value) + (m_n.buffers[s.buffer].level >= 0 ? 3 : 0); in.onlyZeroes = in.onlyCopies = false; break;
        case Stmt::Kind::AccInit:
            in.size = s.src >= 0 ? 2 : 1;
            in.zeroes = s.src < 0 && m_n.buffers[s.buffer].level >= 0;
            in.onlyZeroes = in.zeroes;
            in.copies = in.onlyCopies = plainCopy(s);
            break;
        case Stmt::Kind::AccStore:
            in.size = m_n.kernel->stages[s.stage].requant ? 20 : 2;
            in.onlyZeroes = false;
            in.copies = in.onlyCopies = plainCopy(s);
            break;
        case Stmt::Kind::Copy: in.size = 12; in.onlyZeroes = in.onlyCopies = false; break;
        // Accelerator instructions: the model runs on CPU targets only (analyze skips it for
        // accelerators; analysis/array_model.cpp counts these).
        case Stmt::Kind::Matmul:
        case Stmt::Kind::Fill: in.size = 0; in.onlyZeroes = in.onlyCopies = false; break;
        }
        if (s.body.empty())
            in.sizeOnce = in.size;  // a statement: counted once as it is
    }

    /// Whether every copy in `s`'s body outside the loops in it (loops of one iteration aside)
    /// steps by one element along `slot` on both sides: a loop GCC can make a memcpy (a bias read
    /// at the same element in every iteration, `acc[.. + ow] = bias[k]`, is not).
    bool contiguousCopies(const Stmt& s, int slot) const
    {
        for (int c : s.body) {
            const Stmt& b = m_n.stmts[c];
            if (b.kind == Stmt::Kind::For && b.extent != 1)
                continue;
            if ((b.kind == Stmt::Kind::AccInit || b.kind == Stmt::Kind::AccStore) && b.src >= 0) {
                if (codegen::bufferOffset(m_n, b.buffer, b.index).coefficient(slot) != 1
                    || codegen::bufferOffset(m_n, b.src, b.srcIndex).coefficient(slot) != 1)
                    return false;
            } else if (!contiguousCopies(b, slot)) {
                return false;
            }
        }
        return true;
    }

    /// The AccInit a loop's body is, through loops of one iteration, when it broadcasts a bias
    /// element that does not change in the loop into an accumulator in memory (`O_acc[h] =
    /// bias[c]`); else -1.
    int broadcastsBias(int id) const
    {
        const Stmt& loop = m_n.stmts[id];
        const Stmt* b = &loop;
        while (b->body.size() == 1) {
            const int ci = b->body[0];
            const Stmt& c = m_n.stmts[ci];
            if (c.kind == Stmt::Kind::AccInit) {
                if (c.src < 0 || m_n.buffers[c.buffer].level < 0)
                    return -1;
                std::vector<int> read;
                addSlots(m_n.index, c.srcIndex, read);
                return std::find(read.begin(), read.end(), loop.slot) == read.end() ? ci : -1;
            }
            if (c.kind != Stmt::Kind::For || c.extent != 1)
                return -1;
            b = &c;
        }
        return -1;
    }

    /// Whether every counter in `index` but `slot`'s is a constant in the C: a loop of one
    /// iteration, or one an unroll step writes out.
    bool constantBase(const std::vector<IndexId>& index, int slot) const
    {
        std::vector<int> read;
        addSlots(m_n.index, index, read);
        for (int r : read) {
            if (r == slot || m_n.slotExtents[r] <= 1)
                continue;
            const int f = m_slotLoop[r];
            if (f < 0 || m_n.stmts[f].loopKind != sched::LoopKind::Unrolled)
                return false;
        }
        return true;
    }

    /// An AccInit from a bias, or an AccStore without requantization, that copies an element
    /// unchanged between two buffers of the same type, one of them an accumulator in memory: a
    /// loop of these GCC may make a memcpy (random #100045's `C[i * 12 + j] = C_acc[i * 12 + j]`).
    bool plainCopy(const Stmt& s) const
    {
        if (s.src < 0)
            return false;
        const Buffer& from = m_n.buffers[s.src];
        const Buffer& to = m_n.buffers[s.buffer];
        const Buffer& acc = s.kind == Stmt::Kind::AccInit ? to : from;
        if (acc.level < 0 || from.dtype != to.dtype)
            return false;
        return s.kind == Stmt::Kind::AccInit || (!m_n.kernel->stages[s.stage].requant && s.multBuffer < 0 && s.shiftBuffer < 0);
    }

    /// Index arithmetic of a loop's body that GCC's size estimate counts as folded away in the
    /// copies of a complete unrolling (cunroll: "Induction variable computation will be folded
    /// away"): the multiplications of the loop's counter by an index coefficient. For a loop
    /// around kept loops (kSmallBodyAroundLoops) and for a two-step DSP loop (kSmallDspBody),
    /// whose thresholds were fitted with it (an innermost loop is weighed by gimpleSize).
    int foldedByPeeling(int id) const
    {
        const Stmt& loop = m_n.stmts[id];
        std::vector<std::pair<int, const std::vector<IndexId>*>> accesses;
        bool splits = false;  // a guard on the loop's counter
        std::vector<std::pair<int, int64_t>> steps;  // (slot, step) of the DSP loops inside: their counters advance by the lanes
        std::vector<int> read;
        std::function<void(int)> collect = [&](int c) {
            const Stmt& b = m_n.stmts[c];
            switch (b.kind) {
            case Stmt::Kind::If:
                for (const Cond& cond : b.conds) {
                    read.clear();
                    addSlots(m_n.index, condExprs(cond), read);
                    splits = splits || std::find(read.begin(), read.end(), loop.slot) != read.end();
                }
                break;
            case Stmt::Kind::For:
                if (m_info[c].dsp)
                    steps.push_back({b.slot, m_info[c].trips > 1 ? m_info[c].dsp->lanes : 0});
                break;
            case Stmt::Kind::Load: accesses.push_back({b.buffer, &b.index}); break;
            case Stmt::Kind::Compute:
            case Stmt::Kind::AccInit:
                if (m_n.buffers[b.buffer].level >= 0)
                    accesses.push_back({b.buffer, &b.index});
                if (b.kind == Stmt::Kind::AccInit && b.src >= 0)
                    accesses.push_back({b.src, &b.srcIndex});
                break;
            case Stmt::Kind::AccStore:
                if (m_n.buffers[b.src].level >= 0)
                    accesses.push_back({b.src, &b.srcIndex});
                accesses.push_back({b.buffer, &b.index});
                break;
            default: break;
            }
            for (int k : b.body)
                collect(k);
        };
        for (int c : loop.body)
            collect(c);
        // The thresholds were fitted counting nothing folded where a guard reads the counter.
        if (splits)
            return 0;
        std::set<int64_t> multiplied;
        for (const auto& [buffer, index] : accesses) {
            const codegen::BufferOffset off = codegen::bufferOffset(m_n, buffer, *index);
            const int64_t c = off.coefficient(loop.slot);
            if (c == 0 || !off.nonlinear.empty() || off.base)
                continue;
            // GCC factors the coefficients' common divisor out of the sum (the offset is
            // (... + v) * 4 when every term is a multiple of 4): v is then not multiplied.
            // A DSP loop's counter advances by its lanes (and is 0 in a loop of one step).
            int64_t common = 0;
            for (const auto& term : off.coeff) {
                auto step = std::find_if(steps.begin(), steps.end(), [&](const auto& st) { return st.first == term.first; });
                common = std::gcd(common, std::abs(term.second) * (step == steps.end() ? 1 : step->second));
            }
            if (common != 0 && c / common != 1)
                multiplied.insert(c / common);
        }
        return static_cast<int>(multiplied.size());
    }

    /// GCC's size estimate of a loop's body (cunroll's tree_estimate_loop_size, without the
    /// loop's own counter and exit) and the part of it that folds away in the copies of a
    /// complete unrolling, statement by statement of the GIMPLE the exported C becomes.
    struct GimpleSize {
        int size = 0;
        int folded = 0;
    };
    /// Whether GCC's first complete unrolling (cunrolli, before invariant motion, without
    /// growth) unrolls the innermost loop `id`: its later passes then see straight-line copies.
    bool earlyUnrolled(int id) const
    {
        if (m_early.empty())
            m_early.assign(m_n.stmts.size(), -1);
        if (m_early[id] < 0)
            m_early[id] = weighEarly(id) ? 1 : 0;
        return m_early[id] == 1;
    }
    bool weighEarly(int id) const
    {
        const Info& in = m_info[id];
        if (in.trips < 2 || in.trips > 16 || in.dsp || in.keptInside || in.calls || in.memset || in.memcpy
            || anyInside(m_n, m_n.stmts[id], [&](const Stmt& x) { return x.kind == Stmt::Kind::For && x.extent > 1 && x.loopKind != sched::LoopKind::Unrolled; }))
            return false;
        // The loop is still tested at its top there: the test and the increment (3), and the
        // copies are one per iteration.
        const GimpleSize gs = gimpleSize(id, /*early=*/true);
        return unrollsWithoutGrowth(in.trips, gs.size + kEarlyLoopControlSize, gs.folded + kEarlyLoopControlSize);
    }
    GimpleSize gimpleSize(int id, bool early = false) const
    {
        const Stmt& loop = m_n.stmts[id];
        struct Inner {
            int slot;
            int64_t trips;
            int64_t step;  // a DSP loop's counter advances by its lanes
            bool loop;     // a loop in the C (GCC's own unrolling comes after its invariant motion)
        };
        std::vector<Inner> inner;  // the unrolled loops around the statement being walked
        auto isInnerSlot = [&](int slot) {
            return std::any_of(inner.begin(), inner.end(), [&](const Inner& x) { return x.slot == slot; });
        };
        // An index form: the coefficients of the slots that are not inner counters, and the
        // bytes a pointer argument scales it by (1 for a static array, indexed directly).
        struct Form {
            codegen::SlotCoefficients outer;
            int scale;
            std::set<int64_t> offsets;  // the copies' constants it is computed with
        };
        std::vector<Form> forms;
        // (buffer, form, constant, copy offset): a pointer argument's address; with the kind, an access
        std::set<std::tuple<int, size_t, int64_t, int64_t>> pointers;
        std::set<std::tuple<int, size_t, int64_t, int64_t, int>> accesses;
        std::set<int64_t> multiplied;
        std::set<std::pair<int, int64_t>> products;  // early: other counters' multiplications
        GimpleSize g;
        std::vector<int> read;
        std::vector<Interval> ranges;  // per slot: its values (the copies' counters fixed in turn)
        std::set<std::tuple<const Cond*, int64_t, int64_t>> tested;  // a condition and its bounds on what is not a copy
        std::vector<std::pair<int, int64_t>> loadCopies;  // per loaded register: its copies in the loop (0: moved before it, or its offset counted)
        std::vector<int> regs;
        // Before invariant motion, a multiplication a guard around the loop computes is there
        // already (value numbering: `i_outer * 5` of `i_outer * 5 + i_inner <= 31`).
        if (early)
            for (int a = m_parent[id]; a >= 0; a = m_parent[a])
                if (m_n.stmts[a].kind == Stmt::Kind::If)
                    for (const Cond& cond : m_n.stmts[a].conds) {
                        const lower::IndexPool::Node& e = m_n.index.node(cond.expr);
                        if (e.op == lower::IndexPool::Node::Op::Linear)
                            for (const lower::IndexPool::Term& t : e.terms)
                                if (t.atom >= 0 && std::abs(t.coeff) != 1)
                                    products.insert({t.atom, std::abs(t.coeff)});
                    }
        // The multiplication of the loop's counter by `k` (once per distinct factor), which
        // folds away in the copies; and, before invariant motion, another counter's.
        auto multiply = [&](int slot, int64_t k) {
            const int64_t factor = std::abs(k);
            if (factor == 1)
                return;
            if (slot == loop.slot ? multiplied.insert(factor).second : products.insert({slot, factor}).second) {
                ++g.size;
                if (slot == loop.slot)
                    ++g.folded;
            }
        };
        const bool byteStores = anyInside(m_n, loop, [&](const Stmt& x) {
            return x.kind == Stmt::Kind::AccStore && m_n.buffers[x.buffer].role == Buffer::Role::Home
                && ir::dtypeBytes(m_n.buffers[x.buffer].dtype) == 1;
        });
        // One access of buffer[index] in every copy of the inner loops (a load, a store, or a load
        // repeated in every copy); a word (a DSP operand read by memcpy) is read through its
        // address, as a pointer argument's element; a guarded load, and one that `stays`, is not
        // moved before the loop. Returns the copies' distinct offsets (0: moved before it).
        enum Use { Load, Store, LoadEachCopy };
        auto access = [&](int buffer, const std::vector<IndexId>& index, Use kind, bool word = false, bool guarded = false, bool stays = false) {
            const codegen::BufferOffset off = codegen::bufferOffset(m_n, buffer, index);
            codegen::SlotCoefficients outer;
            std::vector<std::pair<int64_t, int64_t>> varying;  // (coefficient, trips) of inner slots
            for (const auto& term : off.coeff) {
                const int slot = term.first;
                const int64_t k = term.second;
                if (k == 0 || m_n.slotExtents[slot] <= 1)
                    continue;
                auto it = std::find_if(inner.begin(), inner.end(), [&](const Inner& x) { return x.slot == slot; });
                if (it != inner.end()) {
                    if (it->trips > 1)
                        varying.push_back({k * it->step, it->trips});
                } else {
                    outer.add(slot, k);
                }
            }
            const Buffer& b = m_n.buffers[buffer];
            const bool pointer = word || b.role == Buffer::Role::Home;
            const int scale = pointer ? ir::dtypeBytes(b.dtype) : 1;
            const int64_t c = outer[loop.slot];
            bool invariant = off.base || !off.nonlinear.empty();
            for (const auto& term : outer)
                invariant = invariant || term.first != loop.slot;
            // An address that does not change in the loop (the constants of the copies the C
            // writes out included; a loop of the C inside changes it there) is computed before
            // it, and a load from it is moved there too (invariant motion) unless it is guarded
            // (it may trap), a DSP operand, or a store through a byte pointer (which may point
            // anywhere) comes after it.
            const bool invariantAddress = !early && c == 0 && !off.base && off.nonlinear.empty()
                && std::none_of(inner.begin(), inner.end(), [](const Inner& x) { return x.loop && x.trips > 1; });
            if (invariantAddress && !guarded && kind != Store && !byteStores && !stays)
                return 0;
            auto form = std::find_if(forms.begin(), forms.end(), [&](const Form& x) { return x.scale == scale && x.outer == outer; });
            if (form == forms.end()) {
                forms.push_back(Form{outer, scale, {}});
                form = forms.end() - 1;
                if (early) {
                    // Before invariant motion (cunrolli): every multiplication and addition of the
                    // folded index is in the loop (the copies' counters and loops of one
                    // iteration are constants there).
                    int addends = 0;
                    for (const FoldedAddend& a : foldedIndex(off.coeff)) {
                        int terms = 0;
                        for (const auto& [slot, k] : a.terms) {
                            if (m_n.slotExtents[slot] <= 1 || isInnerSlot(slot))
                                continue;
                            ++terms;
                            multiply(slot, k);
                        }
                        if (terms > 0) {
                            g.size += terms - 1 + (a.factor != 1 ? 1 : 0);
                            ++addends;
                        }
                    }
                    g.size += std::max(0, addends - 1) + static_cast<int>(off.nonlinear.size()) * 2;
                } else if (c != 0) {
                    // The part that changes with the loop's counter: its multiplication (folded
                    // in the copies), its sum with what does not change inside its addend, the
                    // addend's factor, and the sum with the other addends that do not change.
                    auto invariantSlot = [&](int slot) {
                        return slot != loop.slot && m_n.slotExtents[slot] > 1 && !isInnerSlot(slot);
                    };
                    const std::vector<FoldedAddend> addends = foldedIndex(off.coeff);
                    bool otherInvariant = off.base || !off.nonlinear.empty();
                    for (const FoldedAddend& a : addends) {
                        const bool hasCounter = std::any_of(a.terms.begin(), a.terms.end(), [&](const auto& t) { return t.first == loop.slot; });
                        if (!hasCounter) {
                            otherInvariant = otherInvariant || std::any_of(a.terms.begin(), a.terms.end(), [&](const auto& t) { return invariantSlot(t.first); });
                            continue;
                        }
                        for (const auto& [slot, k] : a.terms)
                            if (slot == loop.slot)
                                multiply(slot, k);
                        const bool inside = std::any_of(a.terms.begin(), a.terms.end(), [&](const auto& t) { return invariantSlot(t.first); });
                        g.size += (inside ? 1 : 0) + (a.factor != 1 ? 1 : 0);
                    }
                    if (otherInvariant)
                        ++g.size;
                    g.size += static_cast<int>(off.nonlinear.size()) * 2;
                    // A pointer argument's constant offset is added after the conversion to bytes,
                    // and after a cache's computed origin (its two terms added one by one).
                    if (off.base)
                        ++g.size;
                    if ((pointer || off.base) && off.constant != 0)
                        ++g.size;
                }
            }
            // Every copy's offset: the inner counters' constants.
            std::vector<int64_t> offsets{0};
            for (const auto& [k, trips] : varying) {
                std::vector<int64_t> next;
                for (int64_t o : offsets)
                    for (int64_t v = 0; v < trips && next.size() < 64; ++v)
                        next.push_back(o + k * v);
                offsets.swap(next);
            }
            int repeated = 0;
            for (int64_t o : offsets) {
                // An address that does not change in the loop is computed before it.
                const bool before = invariantAddress;
                if (form->offsets.insert(o).second && !before) {
                    const int arithmetic = (o != 0 ? 1 : 0) + (scale > 1 ? 1 : 0);
                    g.size += arithmetic;
                    if (!invariant)
                        g.folded += arithmetic;
                }
                const size_t f = static_cast<size_t>(form - forms.begin());
                if (pointer && !before && pointers.insert({buffer, f, off.constant, o}).second)
                    ++g.size;
                if (kind == LoadEachCopy || accesses.insert({buffer, f, off.constant, o, kind}).second)
                    ++g.size;
                ++repeated;
            }
            return repeated;
        };
        // A DSP loop's steps: its operands' words (unpacked to halfword pairs), or a strided
        // operand's elements (packed in pairs), the SMLADs and the accumulator.
        auto dspSteps = [&](int dspLoop, int64_t trips, int64_t times) {
            const codegen::DspLoop& d = *m_info[dspLoop].dsp;
            const Stmt& dl = m_n.stmts[dspLoop];
            const int steps = static_cast<int>(std::min<int64_t>(times * trips, 64));
            if (d.path == codegen::DspLoop::Path::Lanes) {
                g.size += m_info[dspLoop].size * steps;
                return;
            }
            inner.push_back({dl.slot, trips, d.lanes, true});
            for (const codegen::DspOperand* o : std::array<const codegen::DspOperand*, 2>{&d.x, &d.y}) {
                if (!o->load)
                    continue;
                // The operands are read in the loop whatever their address (the accumulator's
                // stores there may alias them, by GCC's account).
                access(o->load->buffer, o->load->index, Load, /*word=*/o->stride == 1, /*guarded=*/false, /*stays=*/true);
                const int extra = o->stride == 1 ? (d.int8 ? 2 : 0) : (d.int8 ? 3 + 2 : 1 + 1);
                g.size += extra * steps;
            }
            const int macs = d.int8 ? 2 : 1;
            g.size += macs * steps;
            // The accumulator stays in memory: GCC's store motion does not take it out of a
            // loop of DSP steps (their words are read by memcpy, an access of any type, and
            // the strided operands' bytes through char pointers).
            const Stmt& u = *d.update;
            if (m_n.buffers[u.buffer].level >= 0) {
                // Its load, and a store per SMLAD (both results are stored; the second load is
                // the first store's value).
                access(u.buffer, u.index, Load);
                const int stored = access(u.buffer, u.index, Store);
                g.size += (macs - 1) * stored;
            }
            inner.pop_back();
        };
        std::function<void(int, int64_t, bool)> walk = [&](int c, int64_t times, bool guarded) {
            const Stmt& b = m_n.stmts[c];
            const int copies = static_cast<int>(std::min<int64_t>(times, 64));
            switch (b.kind) {
            case Stmt::Kind::If: {
                // Per condition and value of the copies' counters it reads, a test (2), and
                // where it changes in the loop the multiplication of the counter (folded in the
                // copies), the sum with what does not change, and for a range the subtraction of
                // its low bound (one unsigned test). A test that always holds there is folded
                // (value ranges), and copies testing the same are one test (jump threading),
                // but for the copies of a loop GCC unrolls in the same pass.
                for (const Cond& cond : b.conds) {
                    read.clear();
                    addSlots(m_n.index, condExprs(cond), read);
                    std::sort(read.begin(), read.end());
                    read.erase(std::unique(read.begin(), read.end()), read.end());
                    const bool range = cond.lo != kNoIndex && cond.hi != kNoIndex;
                    const bool onCounter = std::binary_search(read.begin(), read.end(), loop.slot);
                    std::vector<const Inner*> fixed;
                    for (const Inner& x : inner)
                        if (x.trips > 1 && std::binary_search(read.begin(), read.end(), x.slot))
                            fixed.push_back(&x);
                    const bool varies = onCounter || !fixed.empty();
                    int64_t loopCopies = 1;
                    for (const Inner& x : inner)
                        if (x.loop && x.trips > 1 && !std::binary_search(read.begin(), read.end(), x.slot))
                            loopCopies *= x.trips;
                    if (ranges.empty())
                        for (int64_t e : m_n.slotExtents)
                            ranges.push_back(Interval{0, std::max<int64_t>(0, e - 1), 1});
                    std::vector<int64_t> values(fixed.size(), 0);
                    for (int combos = 0; combos < 64; ++combos) {
                        for (size_t k = 0; k < fixed.size(); ++k)
                            ranges[fixed[k]->slot] = Interval::point(values[k] * fixed[k]->step);
                        const Interval e = m_n.index.range(cond.expr, ranges);
                        const bool holds = (cond.lo == kNoIndex || m_n.index.range(cond.lo, ranges).hi <= e.lo)
                            && (cond.hi == kNoIndex || e.hi <= m_n.index.range(cond.hi, ranges).lo);
                        // A test is known by its bound on what is not a copy's constant: copies
                        // whose constants give the same bound test the same (`o_outer * 3 + 1 <= 15`
                        // and `o_outer * 3 + 2 <= 15` are both o_outer <= 4).
                        // A condition not of that form (bounds that are not constants, a term
                        // that is not linear) is a test of its own in every combination.
                        int64_t lo = std::numeric_limits<int64_t>::min(), hi = std::numeric_limits<int64_t>::max();
                        const lower::IndexPool::Node& en = m_n.index.node(cond.expr);
                        int64_t v = en.constant, g2 = 0, loBound = 0, hiBound = 0;
                        bool keyed = en.op == lower::IndexPool::Node::Op::Linear
                            && (cond.hi == kNoIndex || m_n.index.isConst(cond.hi, &hiBound))
                            && (cond.lo == kNoIndex || m_n.index.isConst(cond.lo, &loBound));
                        if (keyed)
                            for (const lower::IndexPool::Term& t : en.terms) {
                                auto f = std::find_if(fixed.begin(), fixed.end(), [&](const Inner* x) { return x->slot == t.atom; });
                                if (f != fixed.end())
                                    v += t.coeff * values[static_cast<size_t>(f - fixed.begin())] * (*f)->step;
                                else
                                    g2 = std::gcd(g2, std::abs(t.coeff));
                            }
                        keyed = keyed && g2 > 0;
                        if (keyed) {
                            if (cond.hi != kNoIndex)
                                hi = floorDiv(hiBound - v, g2);
                            if (cond.lo != kNoIndex)
                                lo = -floorDiv(v - loBound, g2);
                        } else {
                            lo = static_cast<int64_t>(tested.size());  // a key no other test has
                        }
                        if (!holds && tested.insert({&cond, lo, hi}).second) {
                            g.size += (2 + (varies ? 1 + (range ? 1 : 0) : 0)) * static_cast<int>(std::min<int64_t>(loopCopies, 64));
                            const lower::IndexPool::Node& n = m_n.index.node(cond.expr);
                            if (onCounter && n.op == lower::IndexPool::Node::Op::Linear)
                                for (const lower::IndexPool::Term& t : n.terms)
                                    if (t.atom == loop.slot)
                                        multiply(t.atom, t.coeff);
                        }
                        size_t k = 0;
                        while (k < fixed.size() && ++values[k] == fixed[k]->trips)
                            values[k++] = 0;
                        if (k == fixed.size())
                            break;
                    }
                    for (const Inner* x : fixed)
                        ranges[x->slot] = Interval{0, std::max<int64_t>(0, m_n.slotExtents[x->slot] - 1), 1};
                }
                for (int k : b.body)
                    walk(k, times, true);
                return;
            }
            case Stmt::Kind::For: {
                const int64_t trips = std::max<int64_t>(1, m_info[c].trips);
                if (m_info[c].dsp) {
                    dspSteps(c, trips, times);
                    return;
                }
                inner.push_back({b.slot, trips, 1, b.loopKind != sched::LoopKind::Unrolled && !m_info[c].writtenOut && !earlyUnrolled(c)});
                for (int k : b.body)
                    walk(k, times * trips, guarded);
                inner.pop_back();
                return;
            }
            case Stmt::Kind::Load:
                // Its register's offset, if a value adds one, is computed once per copy of the
                // load, where the load is: before the loop for a load moved there.
                loadCopies.push_back({b.reg, access(b.buffer, b.index, Load, /*word=*/false, guarded) == 0 ? 0 : times});
                break;
            case Stmt::Kind::Compute: {
                g.size += copies * (valueArithmetic(m_n, b.value) + (b.accumulate ? 1 : 0));
                regs.clear();
                offsetRegisters(m_n, b.value, regs);
                for (int reg : regs) {
                    auto load = std::find_if(loadCopies.begin(), loadCopies.end(), [&](const auto& l) { return l.first == reg; });
                    if (load != loadCopies.end() && load->second > 0) {
                        g.size += static_cast<int>(std::min<int64_t>({load->second, times, 64}));
                        load->second = 0;  // counted
                    }
                }
                if (m_n.buffers[b.buffer].level >= 0) {
                    // Store motion keeps it in a register where its element does not change in
                    // the loop (nor in a loop of the C inside), unguarded (it may trap), with no
                    // store through a byte pointer beside it (which may alias it).
                    const codegen::BufferOffset acc = codegen::bufferOffset(m_n, b.buffer, b.index);
                    const bool promoted = !early && b.accumulate && !guarded && !byteStores && acc.coefficient(loop.slot) == 0
                        && std::none_of(inner.begin(), inner.end(), [&](const Inner& x) { return x.loop && x.trips > 1 && acc.coefficient(x.slot) != 0; });
                    if (!promoted) {
                        if (b.accumulate)
                            access(b.buffer, b.index, Load);
                        access(b.buffer, b.index, Store);
                    }
                }
                break;
            }
            case Stmt::Kind::AccInit:
                if (b.src >= 0)
                    access(b.src, b.srcIndex, Load, /*word=*/false, guarded);
                if (m_n.buffers[b.buffer].level >= 0)
                    access(b.buffer, b.index, Store);
                break;
            case Stmt::Kind::AccStore:
                if (m_n.buffers[b.src].level >= 0)
                    access(b.src, b.srcIndex, Load);
                access(b.buffer, b.index, Store);
                if (m_n.kernel->stages[b.stage].requant) {
                    // A per-channel multiplier and shift are loaded again in every copy (after
                    // the store through a pointer argument), and the multiplier's sign mask is
                    // computed: 3 statements more than the constants'.
                    const bool perChannel = b.multBuffer >= 0 && b.shiftBuffer >= 0 && b.channel != kNoIndex;
                    if (perChannel) {
                        access(b.multBuffer, {b.channel}, LoadEachCopy);
                        access(b.shiftBuffer, {b.channel}, LoadEachCopy);
                    }
                    g.size += (kRequantGimpleSize + (perChannel ? 3 : 0)) * copies;
                }
                break;
            case Stmt::Kind::Block:
            case Stmt::Kind::Alloc: break;
            default: g.size += m_info[c].size; break;
            }
            for (int k : b.body)
                walk(k, times, guarded);
        };
        for (int c : loop.body)
            walk(c, 1, false);
        return g;
    }

    const LoopNest& m_n;
    std::vector<Info> m_info;
    std::vector<int> m_halfSlot;  ///< per buffer: a ping-pong buffer's half, the slot of the loop around its allocation (-1: none, or one iteration)
    std::vector<int> m_slotLoop;  ///< per slot: a For statement of it (-1: none); an accumulator's init, compute and store nests share slots, and their loops the schedule's loop kind
    std::vector<int> m_parent;    ///< per statement: the statement whose body holds it (-1: the root)
    mutable std::vector<int8_t> m_early;  ///< per statement: earlyUnrolled, once weighed (-1: not yet)
};

/// What GCC makes of a loop (nest) that only zeroes accumulators in memory (LoopShapes'
/// memset), per entry. Loop distribution (-ftree-loop-distribute-patterns) turns it into
/// one memset per contiguous run: around the zeroing, going outward, a loop whose counter
/// steps the element by the run so far extends the run (random #100045: a 12 x 12
/// accumulator zeroed by one call of 576 bytes); the first that does not, and every loop
/// outside it, repeat the run. The copies of an unrolled loop are separate statements in the
/// C: a run of one element each (random #100004: four calls of 32 bytes per iteration of
/// the loop around them). A run of fewer than kInlineMemsetBytes is expanded in line as word
/// stores, in the loops that repeat it; a longer one is a call of the C library's memset.
/// Checked on the 500 random schedules of calibrate (seed 100000) by the calls qemu counts:
/// 45 of the 47 that zero an accumulator in memory get the calls right (the other two zero
/// it under a guard, which GCC hoists; the model keeps those as loops).
constexpr int64_t kInlineMemsetBytes = 32;
/// GCC completely unrolls loops of up to 3 iterations around so little code before it
/// distributes loops (cunrolli: no larger unrolled): their copies are separate runs (random
/// #100352: a loop of 2 around loops of 8 floats, a call of 32 bytes per copy). And it merges
/// at most two loops into one call (#100405: 4 x 4 x 4 x 5 contiguous int32, 16 calls of 80
/// bytes).
constexpr int64_t kUnrolledBeforeDistribution = 3;
constexpr int kMergedMemsetLoops = 2;
/// Copies of up to 64 bytes are made in line (LDR and STM; of calibrate's 500, every copy
/// of 64 bytes or fewer, 18 schedules, and a call for every one of 96 or more, 16).
constexpr int64_t kInlineMemcpyBytes = 64;
struct LibraryCode {
    int64_t calls = 0;         ///< calls of memset or memcpy
    int64_t instructions = 0;  ///< inside them
    int64_t stores = 0;        ///< word stores of runs stored in line
    int64_t loads = 0;         ///< word loads of runs copied in line
    int64_t iterations = 0;    ///< iterations of the loops repeating those
};
/// The same for a loop (nest) that only copies elements unchanged (LoopShapes' memcpy: a
/// bias into an accumulator, an accumulator out): calls of memcpy where both sides step by
/// the run, by the same rules but two: copies of up to kInlineMemcpyBytes are made in line,
/// and only the innermost loop of up to 3 iterations is unrolled first (random #100090: 2 x
/// 12 floats copied out by one call of 96 bytes, where the same nest zeroing them makes two
/// calls). Of calibrate's 500, 54 of the 56 schedules that call memset or memcpy, or are
/// predicted to, get the calls right.
LibraryCode libraryCode(const LoopNest& n, int id)
{
    LibraryCode out;
    std::vector<int> loops;  // the loops from `id` inward to the statement visited
    std::function<void(int)> visit = [&](int c) {
        const Stmt& b = n.stmts[c];
        if (b.kind == Stmt::Kind::For)
            loops.push_back(c);
        const bool copy = b.src >= 0 && (b.kind == Stmt::Kind::AccInit || b.kind == Stmt::Kind::AccStore);
        if (b.kind == Stmt::Kind::AccInit || copy) {
            const codegen::BufferOffset off = codegen::bufferOffset(n, b.buffer, b.index);
            const codegen::BufferOffset from = copy ? codegen::bufferOffset(n, b.src, b.srcIndex) : off;
            int64_t run = 1, repeats = 1, iterations = 0;
            int merged = 0;
            auto copies = [&](const Stmt& l) {
                return l.loopKind == sched::LoopKind::Unrolled || (l.extent <= kUnrolledBeforeDistribution && (!copy || &l == &n.stmts[loops.back()]));
            };
            bool merging = true;
            for (size_t i = loops.size(); i-- > 0;) {
                const Stmt& l = n.stmts[loops[i]];
                if (l.extent == 1)
                    continue;
                merging = merging && !copies(l) && merged < kMergedMemsetLoops && off.coefficient(l.slot) == run && from.coefficient(l.slot) == run;
                if (merging) {
                    run = satMul(run, l.extent);
                    ++merged;
                    continue;
                }
                repeats = satMul(repeats, l.extent);
            }
            // The loops that repeat the run, as loops: their iterations, outermost first.
            int64_t around = 1;
            for (size_t i = 0; i < loops.size(); ++i) {
                const Stmt& l = n.stmts[loops[i]];
                if (copies(l) || around >= repeats)
                    continue;
                around = satMul(around, l.extent);
                iterations = satAdd(iterations, around);
            }
            const int64_t bytes = satMul(run, ir::dtypeBytes(n.buffers[b.buffer].dtype));
            const int64_t words = (bytes + 3) / 4;
            if (copy ? bytes <= kInlineMemcpyBytes : bytes < kInlineMemsetBytes) {
                // A copy in line loads the words and stores them four at a time (STM).
                out.stores = satAdd(out.stores, satMul(repeats, copy ? (words + 3) / 4 : words));
                if (copy)
                    out.loads = satAdd(out.loads, satMul(repeats, words));
                out.iterations = satAdd(out.iterations, iterations);
            } else {
                out.calls = satAdd(out.calls, repeats);
                out.instructions = satAdd(out.instructions, satMul(repeats, copy ? memcpyInstructions(bytes, 0, 0) : memsetInstructions(bytes, 0)));
            }
        }
        for (int k : b.body)
            visit(k);
        if (b.kind == Stmt::Kind::For)
            loops.pop_back();
    };
    visit(id);
    return out;
}

class Counter {
public:
    Counter(const LoopNest& n, const std::vector<int64_t>& execs, std::vector<LoopFeatures>* loops)
        : m_n(n), m_execs(execs), m_loopFeatures(loops), m_shapes(n),
          m_singleIssue(n.target && n.target->issue.present && n.target->issue.width < 2)
    {
        // The walk's stacks, reserved once rather than grown by doublings.
        const size_t depth = n.slotExtents.size() + 1;
        m_code.reserve(depth);
        m_enclosing.reserve(depth);
        m_enclosingStmt.reserve(depth);
        m_slots.reserve(depth);
        m_records.reserve(depth);
        m_conds.reserve(16);
        m_guards.reserve(16);
        if (m_loopFeatures)
            m_loopFeatures->reserve(m_loopFeatures->size() + n.slotExtents.size());
        findSharedOffsets();
    }

    InsnFeatures run()
    {
        m_f[InsnFeature::Function] = 1;
        walk(m_n.root);
        return m_f;
    }

private:
    // ---- context --------------------------------------------------------------------------

    int64_t execs(int id) const { return id < static_cast<int>(m_execs.size()) ? m_execs[id] : 0; }

    /// How often the compiled code computes something that depends on `slots` in a statement
    /// executed `n` times: loop-invariant code motion takes it out of the kept loops inside the
    /// innermost kept loop it depends on, and in the straight-line code of unrolled copies the
    /// copies that give it the same value share one computation.
    double evaluations(const std::vector<int>& slots, double n, bool hoisted = true) const
    {
        auto depends = [&](const Enclosing& e) { return e.trips > 1 && std::binary_search(slots.begin(), slots.end(), e.slot); };
        size_t k = 0;
        for (size_t i = m_enclosing.size(); i-- > 0;)
            if (m_enclosing[i].code >= 0 && (depends(m_enclosing[i]) || !hoisted)) {
                k = i + 1;
                break;
            }
        double inner = 1;
        for (size_t i = k; i < m_enclosing.size(); ++i)
            if (!depends(m_enclosing[i]))
                inner *= static_cast<double>(std::max<int64_t>(1, m_enclosing[i].trips));
        return n / inner;
    }

    /// An accumulator kept in a register across the innermost kept loop (store motion, or a local
    /// of the generated C): one register per unrolled copy of its element inside that loop.
    /// A float or DSP (`dsp`: updated by a DSP loop) accumulator counts update sites: its updates
    /// by the copies of an unrolled reduction loop with copies of the element inside it
    /// (matmul_f32's k.inner around i.inner) are apart: GCC reloads and stores a spilled one at each of them (the search's matmul_f32
    /// pick, 32 float accumulators and 2 k copies: 14 spilled, 4 stack accesses each per
    /// iteration). Scalar int accumulators are left at one site: their copies interleave (random
    /// #100092 measured 5,181 stack accesses where counting sites predicted 13,800).
    void liveAccumulator(int buffer, const std::vector<int>& slots, double registers, bool dsp)
    {
        const bool countSites = dsp || ir::isFloat(m_n.buffers[buffer].dtype);
        double copies = registers, sites = 1;
        bool indexInside = false;
        for (size_t i = m_enclosing.size(); i-- > 0;) {
            const Enclosing& e = m_enclosing[i];
            if (e.code >= 0) {
                double& live = m_code[e.code].accumulators[buffer];
                live = std::max(live, copies);
                // A DSP loop written out inside copies of the element: the scheduler interleaves
                // its steps across the copies, each step a site of its own.
                if (dsp && indexInside && m_enclosing.back().code < 0)
                    sites *= static_cast<double>(m_enclosing.back().trips);
                if (countSites) {
                    double& s = m_code[e.code].accumulatorSites;
                    s = std::max(s, sites);
                }
                return;
            }
            if (e.trips <= 1)
                continue;
            if (std::binary_search(slots.begin(), slots.end(), e.slot)) {
                copies *= static_cast<double>(e.trips);
                indexInside = true;
            } else if (indexInside) {
                sites *= static_cast<double>(e.trips);
            }
        }
    }

    /// An operand (`registers` per value) that depends on `slots`, in the straight-line code of
    /// the unrolled copies inside the innermost kept loop. Copies that do not read an unrolled
    /// loop's counter share its value (evaluations); when such a loop is outside one the operand
    /// reads (a 2x2 block's B pair, reused by both rows), the values for every copy of the loops
    /// inside it stay live across it: they hold registers, and GCC spills the surplus to the stack
    /// and reloads it for each copy that uses it (search-found conv2d_int8: 16 packed F pairs of
    /// 8 k copies reused by 8 oh copies, 74 reloads and 19 stores per iteration).
    /// `interleaves`: a plain int value used as loaded (a scalar int load, a DSP int16 word),
    /// whose copies GCC interleaves however many there are (random #100092's scalar F values
    /// across 4 oh copies; the search's dense_int16 picks).
    /// `interleaved` (DSP operands): set to the registers the values reused by interleaved copies
    /// take at once, the loop of the DSP steps itself left out (0: no copy reuses them, or they
    /// are counted as shared).
    void sharedOperand(const std::vector<int>& slots, double registers, bool fp = false, bool interleaves = false, double* interleaved = nullptr)
    {
        const size_t kept = innermostKeptIndex();
        if (kept == m_enclosing.size())
            return;
        auto reads = [&](const Enclosing& e) { return std::binary_search(slots.begin(), slots.end(), e.slot); };
        double atOnce = 1, values = 1, reuse = 1;
        double reusedAtOnce = 1;  // (interleaved) the copies whose values stay live while a copy that does not read them runs
        bool shared = false, reused = false;
        const size_t end = m_enclosing.size() - (interleaved ? 1 : 0);
        for (size_t i = kept + 1; i < m_enclosing.size(); ++i) {
            const Enclosing& e = m_enclosing[i];
            if (e.trips <= 1)
                continue;
            const double t = static_cast<double>(e.trips);
            if (i < end) {
                if (!reads(e))
                    reused = true;
                else if (reused)
                    reusedAtOnce *= t;
            }
            if (!reads(e)) {
                // Two copies in one basic block are interleaved by GCC's scheduler, which keeps
                // the live ranges short (kInterleavedCopies); more stay in order, and so do copies
                // a guard inside each makes blocks of their own. A plain int value is the
                // exception (`interleaves`): a load and nothing else, the copies using it
                // interleave (the search's dense_int16 picks, 4 b copies sharing W's words: no
                // spill).
                double inner = 1;  // the copies inside one copy of this loop
                for (size_t j = i + 1; j < m_enclosing.size(); ++j)
                    if (m_enclosing[j].trips > 1 && m_enclosing[j].code < 0)
                        inner *= static_cast<double>(m_enclosing[j].trips);
                const bool inOrder = t > kInterleavedCopies || inner > kInterleavedBody;
                shared = shared || (inOrder && !interleaves) || (!m_guardDepths.empty() && m_guardDepths.back() > i);
                reuse *= t;
            } else {
                values *= t;
                if (shared)
                    atOnce *= t;
            }
        }
        if (interleaved)
            *interleaved = reused && !shared ? reusedAtOnce * registers : 0;
        if (!shared)
            return;
        // Each spilled register holds values/atOnce of the values in turn: a store and a reload
        // for every copy after the first that uses it.
        m_code[m_enclosing[kept].code].sharedOperands.push_back({atOnce * registers, values / atOnce * reuse, fp, true});
    }

    /// A scalar load at `off`, executed `n` times, `loads` of them in the compiled code. One that
    /// does not change in the innermost kept loop is taken out of it (GCC's tree-level invariant
    /// motion, which does not weigh registers): its distinct values stay live across the loop, one
    /// register each, and those beyond the registers are reloaded from the stack in every
    /// iteration (search-found matmul_int8: 64 k copies of an 8-row block, 512 values of A
    /// invariant in the j loop, a stack reload per MAC; conv2d_int8 with ow and s unrolled: the
    /// 18 values of I[ow + s] out of the k loop, 17 reloads per iteration).
    void hoistedOperand(const codegen::BufferOffset& off, const std::vector<int>& slots, double n, double loads, bool fp)
    {
        const Enclosing* e = innermostKept();
        if (!e || e->trips <= 1 || std::binary_search(slots.begin(), slots.end(), e->slot) || conditionalInLoop())
            return;
        if (!off.nonlinear.empty()) {
            // A division or minimum of the loops outside (a double buffer's half, a strided
            // cache's row) is part of the invariant base; one of an unrolled copy's counter makes
            // the offsets unknown here (the search's conv2d_s2_int8 picks: I's 33 values of
            // I_SRAM[r & 1][(oh * 2 + r - o) / 2 * 256 + c + ow * 16 + s * 8] out of the k loop,
            // on the stack, were not counted: -51.8% -> -41.3%).
            std::vector<int> ns;
            for (lower::IndexId t : off.nonlinear)
                m_n.index.slotsOf(t, ns);
            for (size_t i = m_enclosing.size(); i-- > 0 && m_enclosing[i].code < 0;)
                if (m_enclosing[i].trips > 1 && std::find(ns.begin(), ns.end(), m_enclosing[i].slot) != ns.end())
                    return;
        }
        CodeLoop& L = m_code[e->code];
        if (L.iterations <= 0 || loads >= evaluations(slots, n, false))
            return;
        // Distinct values in one iteration: the offsets the unrolled copies inside the loop give
        // (copies whose counters add up to the same offset, as ow + s, share a value).
        std::vector<int64_t> offsets{0};
        for (size_t i = m_enclosing.size(); i-- > 0 && m_enclosing[i].code < 0;) {
            const int64_t c = off.coefficient(m_enclosing[i].slot);
            if (c == 0 || m_enclosing[i].trips <= 1)
                continue;
            if (offsets.size() * static_cast<size_t>(m_enclosing[i].trips) > 4096)
                return;  // a block that large is beyond the registers anyway; left uncounted
            std::vector<int64_t> next;
            for (int64_t o : offsets)
                for (int64_t v = 0; v < m_enclosing[i].trips; ++v)
                    next.push_back(o + c * v);
            std::sort(next.begin(), next.end());
            next.erase(std::unique(next.begin(), next.end()), next.end());
            offsets = std::move(next);
        }
        L.sharedOperands.push_back({static_cast<double>(offsets.size()), 1, fp, false});
    }

    std::vector<int> slotsOf(const codegen::BufferOffset& off) const
    {
        std::vector<int> out;
        for (const auto& [slot, c] : off.coeff)
            out.push_back(slot);
        for (IndexId e : off.nonlinear)
            addSlots(m_n.index, e, out);
        std::sort(out.begin(), out.end());
        out.erase(std::unique(out.begin(), out.end()), out.end());
        return out;
    }

    /// Instructions of one evaluation of a division, modulo, minimum or maximum in an index.
    int nodeCost(IndexId e) const
    {
        const lower::IndexPool::Node& nd = m_n.index.node(e);
        auto linear = [&](IndexId x) {
            if (x == kNoIndex)
                return 0;
            const lower::IndexPool::Node& l = m_n.index.node(x);
            if (l.op != lower::IndexPool::Node::Op::Linear)
                return nodeCost(x);
            int c = 0;
            for (const auto& t : l.terms)
                c += t.atom >= 0 ? 1 : 1 + nodeCost(-t.atom - 1);
            return std::max(0, c - 1) + (l.constant != 0 && !l.terms.empty() ? 0 : 0);
        };
        switch (nd.op) {
        case lower::IndexPool::Node::Op::Div:
        case lower::IndexPool::Node::Op::Mod: {
            const bool pow2 = nd.constant > 0 && (nd.constant & (nd.constant - 1)) == 0;
            const bool nonNegative = m_n.index.bounds(nd.a, m_n.slotExtents).first >= 0;
            const bool div = nd.op == lower::IndexPool::Node::Op::Div;
            int c = nonNegative ? (pow2 ? (div ? 2 : 3) : (div ? 3 : 5)) : (pow2 ? (div ? 5 : 7) : (div ? 8 : 10));
            return c + linear(nd.a);
        }
        case lower::IndexPool::Node::Op::Min:
        case lower::IndexPool::Node::Op::Max: return 3 + linear(nd.a) + linear(nd.b);
        case lower::IndexPool::Node::Op::Linear: return linear(e);
        }
        return 0;
    }

    /// Registers an access to `buffer[index]` by a statement executed `n` times.
    void access(int buffer, const std::vector<IndexId>& index, double n, bool word = false)
    {
        if (m_n.buffers[buffer].level < 0)
            return;  // an accumulator in registers
        stridedDivisions(buffer, index, n);
        access(buffer, codegen::bufferOffset(m_n, buffer, index), n, word);
    }

    /// A strided cache (a stride-2 convolution's input rows) whose origin is computed at run
    /// time: the C indexes it with ls_floordiv(g - origin, step), the division computed where g
    /// changes (bufferOffset folds the loops' multiples of the step out of it, and the linear
    /// index left is charged as such). For a power-of-two step GCC tuned for the Cortex-M7 makes
    /// the signed division a compare and a conditional add before the shift (`cmp r0, #0; it lt;
    /// addlt.w ip, r0, #1; add.w ip, r3, ip, asr #1`), two instructions more than the M4's
    /// branchless `add r2, lr, lr, lsr #31; add r2, r3, r2, asr #1`, which the charge covers
    /// (random #100037: -12.1% -> -2.4% on the M7; over the search's fronts 18 moved, all closer;
    /// over calibrate's 528 on the M7 4 moved, 3 closer; nothing on the M4).
    void stridedDivisions(int buffer, const std::vector<IndexId>& index, double n)
    {
        if (m_singleIssue)
            return;
        const Buffer& b = m_n.buffers[buffer];
        for (size_t d = 0; d < b.step.size() && d < index.size(); ++d) {
            const int64_t step = b.step[d];
            if (step <= 1 || (step & (step - 1)) != 0 || b.origin[d] == kNoIndex || m_n.index.isPureLinear(b.origin[d]) || index[d] == kNoIndex)
                continue;
            std::vector<int> slots;
            addSlots(m_n.index, index[d], slots);
            std::sort(slots.begin(), slots.end());
            slots.erase(std::unique(slots.begin(), slots.end()), slots.end());
            m_f[InsnFeature::IndexOp] += evaluations(slots, n) * kSignedFloorDivM7;
        }
    }

    /// Whether GCC -O2's induction-variable choice (IVOPTs) addresses an integer access that
    /// moves by `c` elements of `esize` bytes per iteration from a counter, with a scaled register
    /// offset (`ldrsb r2, [r1, r3, lsl #3]; adds r3, r3, #1; ...; cmp r3, #16`), rather than by a
    /// post-indexed pointer: an int8 element 2, 4 or 8 bytes apart (LSL #1 to #3), an int16 or
    /// int32 element at any stride but one element (the counter steps by the stride, shifted by
    /// the element's size; scaledStep). Found in arm-none-eabi-gcc 12's code for a loop of two loads at
    /// every such stride, the same for -mcpu=cortex-m7, m4 and m3; an int8 element 3, 5, 12 or
    /// 16 or more bytes apart is post-indexed (`ldrsb ip, [r2], #16`). The counter costs an
    /// instruction per iteration, which the model did not count: random #314's c loop over
    /// `F[k + c * 8]` runs 7 instructions per iteration where 6 were predicted (-13.0%).
    /// Counted alone, over calibrate's 2,000 random schedules on the M7 44 of the 288 beyond 10%
    /// came within it and 16 went beyond (channelWork brought most of those back); the loops
    /// where a pointer advanced beyond 255 bytes had counted a pointer's increment for the
    /// counter (dense_int16's `Wt[i + o * 128]`).
    static bool scaledIndex(int64_t esize, int64_t c)
    {
        const int64_t bytes = std::abs(c * esize);
        if (esize == 1)
            return bytes == 2 || bytes == 4 || bytes == 8;
        return (esize == 2 || esize == 4) && std::abs(c) != 1;
    }

    /// The step of the counter GCC reads such an access from: 1 where the stride is 2, 4 or 8
    /// bytes (the shift scales it), else the stride in elements (the shift by the element's
    /// size). Accesses with the same step share a counter, one per step otherwise (`G[c * 3]`
    /// of int32 beside int8 `F[c * 4]`: `adds r3, r3, #1` and `adds r2, r2, #3`).
    static int64_t scaledStep(int64_t esize, int64_t c)
    {
        const int64_t bytes = std::abs(c * esize);
        return bytes == 2 || bytes == 4 || bytes == 8 ? 1 : std::abs(c);
    }

    /// The same with the access's offset computed already.
    void access(int buffer, const codegen::BufferOffset& off, double n, bool word = false)
    {
        const Buffer& b = m_n.buffers[buffer];
        if (b.level < 0)
            return;
        const bool wordData = word || ir::isFloat(b.dtype);
        const int64_t esize = ir::dtypeBytes(b.dtype);
        const bool conditional = conditionalInLoop(true);
        bool innermost = true;
        for (size_t i = m_enclosing.size(); i-- > 0;) {
            if (m_enclosing[i].code < 0)
                continue;
            CodeLoop& L = m_code[m_enclosing[i].code];
            const int64_t c = off.coefficient(L.slot);
            if (c != 0) {
                if (!innermost) {
                    L.outerStreams.insert({buffer, c});
                } else {
                    // Post-indexed addressing can advance the pointer: integer loads and stores
                    // by up to 255 bytes, VLDM/VSTM (and word loads) by one word.
                    // An access under a guard cannot advance a pointer the loop advances anyway.
                    const int64_t bytes = c * esize;
                    // A DSP loop's word load steps by its lanes, one word per step: LDR's
                    // post-index advances the pointer (dense_int16's X and Wt words, random
                    // #100171: `ldr.w r1, [r3], #4; ldr.w r5, [r2], #4; cmp; smlad; bne`),
                    // unless the address carries a term computed outside the loop (a cache's
                    // origin, a rolling row), to which GCC adds the step's offset in a register
                    // (conv2d_s2_int8_tiled's I word: `add r1, sl, r6; ldr r1, [r1, fp]`), or
                    // the loop is one of more than kPostIndexedDspCopies unrolled copies, which
                    // share one counter as a register offset (search_dense_int8_dsp_1's 64). A
                    // ping-pong half selected outside the loop is such a term too (random #209
                    // and #300093, a half and no origin: post-indexed they were predicted -6.7%
                    // and -9.5%, with the register offset +0.3% and -7.4%).
                    bool dspWord = word && L.dsp && off.nonlinear.empty() && !off.base && m_shapes.halfSlot(buffer) < 0;
                    if (dspWord) {
                        int64_t copies = 1;  // of the loop, by the unrolled loops between it and the next kept one
                        for (size_t j = i; j-- > 0 && m_enclosing[j].code < 0 && copies <= kPostIndexedDspCopies;)
                            copies *= std::max<int64_t>(1, m_enclosing[j].trips);
                        dspWord = copies <= kPostIndexedDspCopies;
                    }
                    const bool foldable = !conditional && (dspWord || (wordData ? bytes == 4 : std::abs(bytes) <= 255));
                    if (!word && !ir::isFloat(b.dtype) && !L.dsp && !m_shapes[m_enclosingStmt[i]].keptInside && scaledIndex(esize, c))
                        L.scaledStreams[{buffer, c}] = scaledStep(esize, c);
                    if (!ir::isFloat(b.dtype))
                        L.intStreams = true;
                    auto& st = L.streams[{buffer, c}];
                    st.first += n;
                    st.second = foldable;
                    if (ir::isFloat(b.dtype) && !conditional && !foldable && std::abs(bytes) <= 255 && off.nonlinear.empty() && !off.base)
                        L.zeroOffsetFloat[{buffer, c}] += n * zeroOffsetShare(off);
                }
            }
            innermost = false;
        }
        // Divisions, modulos, minima: computed where their operands change, once per value.
        for (IndexId e : off.nonlinear)
            charge(e, n);
    }

    /// The share of the copies of the loops around the current statement that the compiled
    /// code does not keep (unrolled copies: their counters are constants) in which an access at
    /// `off` has a constant part of 0 (every kept loop's counter left out: the pointer's).
    double zeroOffsetShare(const codegen::BufferOffset& off) const
    {
        std::vector<std::pair<int64_t, int64_t>> terms;  // (coefficient, values) of the copies' counters
        int64_t combos = 1;
        for (const Enclosing& e : m_enclosing)
            if (e.code < 0 && e.trips > 1) {
                const int64_t k = off.coefficient(e.slot);
                if (k != 0) {
                    terms.push_back({k, e.trips});
                    combos = satMul(combos, e.trips);
                }
            }
        if (combos > 4096)
            return 0;  // not enumerated: no copy counted
        int64_t zero = 0;
        for (int64_t q = 0; q < combos; ++q) {
            int64_t sum = off.constant, r = q;
            for (const auto& [k, values] : terms) {
                sum += k * (r % values);
                r /= values;
            }
            zero += sum == 0 ? 1 : 0;
        }
        return static_cast<double>(zero) / static_cast<double>(combos);
    }

    /// Charges an index computation (once for equal expressions in one region of code).
    void charge(IndexId e, double n)
    {
        std::vector<int> slots;
        addSlots(m_n.index, e, slots);
        int owner = -1;
        for (size_t i = m_enclosing.size(); i-- > 0;)
            if (std::binary_search(slots.begin(), slots.end(), m_enclosing[i].slot)) {
                owner = static_cast<int>(i);
                break;
            }
        auto& seen = m_charged[owner < 0 ? -1 : m_enclosingStmt[owner]];
        if (std::any_of(seen.begin(), seen.end(), [&](IndexId x) { return m_n.index.same(x, e); }))
            return;
        seen.push_back(e);
        m_f[InsnFeature::IndexOp] += evaluations(slots, n) * nodeCost(e);
    }

    // ---- values ---------------------------------------------------------------------------

    /// Registers whose value the code offsets by a constant (x + 128): the offset is computed
    /// once per load of the register, whatever uses it.
    void findSharedOffsets()
    {
        for (size_t i = 0; i < m_n.values.size(); ++i)
            if (isRegPlusConst(static_cast<int>(i)) && !m_n.offsetFolded(static_cast<int>(i)))  // a folded offset is not added
                m_offsetRegs.insert(m_n.values[m_n.values[i].a].reg);
    }

    bool isRegPlusConst(int v) const
    {
        const ValueNode& n = m_n.values[v];
        return (n.op == ValueNode::Op::Add || n.op == ValueNode::Op::Sub) && n.a >= 0 && n.b >= 0 && m_n.values[n.a].op == ValueNode::Op::Reg
            && m_n.values[n.b].op == ValueNode::Op::Const;
    }

    /// Arithmetic of a value expression, the shared offsets excluded.
    int valueOps(int v) const
    {
        const ValueNode& n = m_n.values[v];
        switch (n.op) {
        case ValueNode::Op::Const:
        case ValueNode::Op::Reg: return 0;
        case ValueNode::Op::Neg: return 1 + valueOps(n.a);
        default: break;
        }
        if (isRegPlusConst(v))
            return 0;
        return 1 + valueOps(n.a) + valueOps(n.b);
    }

    // ---- loops the compiler keeps ---------------------------------------------------------

    int64_t trips(int id) const { return m_shapes[id].trips; }
    bool kept(int id) const { return m_shapes[id].kept; }

    // ---- the walk -------------------------------------------------------------------------

    void body(const Stmt& s)
    {
        for (int c : s.body)
            walk(c);
    }

    void walk(int id)
    {
        const Stmt& s = m_n.stmts[id];
        const double n = static_cast<double>(execs(id));
        switch (s.kind) {
        case Stmt::Kind::Block:
        case Stmt::Kind::Alloc: body(s); break;
        case Stmt::Kind::For: loop(id, s, execs(id)); break;
        case Stmt::Kind::If: guard(s, n); break;
        case Stmt::Kind::Copy: copy(s, execs(id)); break;
        case Stmt::Kind::AccInit: {
            const Buffer& acc = m_n.buffers[s.buffer];
            if (s.src >= 0) {
                m_f[InsnFeature::Load] += n;
                access(s.src, s.srcIndex, n);
                registerOffsetBases(s.src, s.srcIndex);
            } else {
                m_f[InsnFeature::AccInit] += n;
            }
            if (acc.level >= 0) {
                m_f[InsnFeature::Store] += n;
                access(s.buffer, s.index, n);
            }
            break;
        }
        case Stmt::Kind::Load: {
            // Unrolled copies that load the same element share one load (and its offset).
            const codegen::BufferOffset off = codegen::bufferOffset(m_n, s.buffer, s.index);
            const std::vector<int> slots = slotsOf(off);
            const double loads = evaluations(slots, n);
            stridedDivisions(s.buffer, s.index, n);
            const bool fp = ir::isFloat(m_n.buffers[s.buffer].dtype);
            sharedOperand(slots, 1, fp, !fp);
            hoistedOperand(off, slots, n, loads, fp);
            m_f[InsnFeature::Load] += loads;
            if (m_offsetRegs.count(s.reg))
                m_f[InsnFeature::Alu] += loads;
            access(s.buffer, off, loads);
            break;
        }
        case Stmt::Kind::Compute: compute(s, n); break;
        case Stmt::Kind::AccStore: {
            const Buffer& acc = m_n.buffers[s.src];
            if (acc.level >= 0) {
                m_f[InsnFeature::Load] += n;
                access(s.src, s.srcIndex, n);
            }
            const ir::Stage& st = m_n.kernel->stages[s.stage];
            if (st.requant)
                m_f[InsnFeature::Requantize] += n;
            if (s.multBuffer >= 0 || s.shiftBuffer >= 0) {
                // A channel's multiplier and shift are loaded and turned into shifts and masks
                // (channelWork: per output, or once per channel); constants fold into the code.
                const int loads = (s.multBuffer >= 0 ? 1 : 0) + (s.shiftBuffer >= 0 ? 1 : 0);
                channelWork(s, n, loads);
                for (int q : {s.multBuffer, s.shiftBuffer})
                    if (q >= 0) {
                        access(q, {s.channel}, n);
                        registerOffsetBases(q, {s.channel});
                    }
            }
            m_f[InsnFeature::Store] += n;
            access(s.buffer, s.index, n);
            break;
        }
        case Stmt::Kind::Matmul:
        case Stmt::Kind::Fill: break;  // accelerator instructions: not run by the CPU (see visit)
        }
    }

    void compute(const Stmt& s, double n)
    {
        const Buffer& b = m_n.buffers[s.buffer];
        const ValueNode& top = m_n.values[s.value];
        const bool fl = ir::isFloat(b.dtype);
        if (!s.accumulate) {
            m_f[fl ? InsnFeature::FpuOp : InsnFeature::Alu] += n * valueOps(s.value);
            m_f[InsnFeature::Store] += n;
            access(s.buffer, s.index, n);
            return;
        }
        if (fl)
            m_f[InsnFeature::FpuOp] += n * (1 + valueOps(s.value));
        else if (top.op == ValueNode::Op::Mul) {
            m_f[InsnFeature::Mla] += n;
            m_f[InsnFeature::Alu] += n * (valueOps(top.a) + valueOps(top.b));
        } else {
            m_f[InsnFeature::Alu] += n * (1 + valueOps(s.value));
        }
        if (b.level >= 0)
            memoryAccumulator(s.buffer, s.index, n, false, false);
        else
            registerAccumulator(s.buffer, s.index, false);
    }

    /// An accumulator the generator keeps in a local variable (one per unrolled copy of its index),
    /// `registers` per element (the lanes of a DSP loop on the Lanes path).
    void registerAccumulator(int buffer, const std::vector<IndexId>& index, bool dsp, double registers = 1)
    {
        std::vector<int> slots;
        for (IndexId e : index)
            if (e != kNoIndex)
                addSlots(m_n.index, e, slots);
        std::sort(slots.begin(), slots.end());
        slots.erase(std::unique(slots.begin(), slots.end()), slots.end());
        liveAccumulator(buffer, slots, registers, dsp);
    }

    /// A per-channel parameter (bias, multiplier, shift) read in copies of an unrolled loop inside
    /// the innermost kept loop, at a stride of at most 8 bytes per iteration of that loop: GCC
    /// addresses each copy as [base + copy's offset, counter, lsl #k] (Thumb-2's register offset
    /// shifts by 0-3), one base register per copy where the model counts one pointer per array;
    /// the bases are computed before the loop and, beyond the registers, reloaded before their
    /// loads (depthwise_conv_int8_mult_tflite_unrolled: bias, multiplier and shift of channels
    /// 2c and 2c + 1, `ldr.w r8, [r7, r4, lsl #3]`, four of the six bases reloaded from the stack
    /// in each c iteration; M7 -11.0% -> -8.8%). At a larger stride GCC advances one pointer and
    /// reaches the copies by immediate offsets (conv2d_int8_tflite_dsp's multipliers of
    /// k.outer * 4 + k.inner, 16 bytes apart: LDRD pairs from one pointer).
    void registerOffsetBases(int buffer, const std::vector<IndexId>& index)
    {
        const Enclosing* kept = innermostKept();
        if (!kept || kept->trips <= 1 || m_n.buffers[buffer].level < 0)
            return;
        const codegen::BufferOffset off = codegen::bufferOffset(m_n, buffer, index);
        const int64_t bytes = std::abs(off.coefficient(kept->slot)) * ir::dtypeBytes(m_n.buffers[buffer].dtype);
        if (bytes == 0 || bytes > kRegisterOffsetStride || !off.nonlinear.empty() || off.base)
            return;
        const std::vector<int> slots = slotsOf(off);
        const double copies = unrolledCopies([&](int slot) { return slot != kept->slot && std::binary_search(slots.begin(), slots.end(), slot); });
        if (copies > 1) {
            double& b = m_code[kept->code].offsetBases[buffer];
            b = std::max(b, copies - 1);
        }
    }

    /// Whether the current statement sits under a guard inside the innermost kept loop (with
    /// `exitsOut`, one the code checks as an exit of that loop does not count: exitGuards).
    bool conditionalInLoop(bool exitsOut = false) const
    {
        for (size_t i = m_enclosing.size(); i-- > 0;)
            if (m_enclosing[i].code >= 0)
                return m_liveConds > m_code[m_enclosing[i].code].condsAtEntry + (exitsOut ? m_code[m_enclosing[i].code].exitConds : 0);
        return m_liveConds > 0;
    }

    /// The per-channel part of a requantization (`s`, executed `n` times, `loads` of its
    /// multiplier and shift): loaded and turned into shifts and masks. GCC's invariant motion
    /// takes it out of the loops that do not move the channel when the innermost kept loop
    /// around the output and the copies inside that loop do not, and the output is not under a
    /// guard in that loop (a load that may trap stays where it is), nor past a guard further out:
    /// then it runs once per iteration of what is left outside, and per output
    /// kRequantHoistedResidue instructions of what GCC recomputes from the hoisted multiplier
    /// (`sbfx r3, r0, #30, #1; lsls r3, r0, #1` beside the SMMLAR of random #300397). The
    /// kRequantChannelValues values stay live across the loop: in an innermost loop among its
    /// shared operands, reloaded at each use when the registers run out (spill); around kept
    /// loops only where they fit beside the registers those loops hold, else GCC's allocator
    /// undoes the motion (search_conv2d_int8_dsp_6's oh loop around an s loop holding 13: per
    /// output, as measured) — decided where the loop ends. Otherwise per output: several
    /// channels in one iteration (depthwise_conv_int8_tflite_dsp's block of 4, 14.6 instructions
    /// per output and 78 reloads and 20 spills per iteration of the block's loop) keep their
    /// values in no register, and under a guard the loads stay. Counted per output everywhere,
    /// random #267's requantization in its w loop around the c loop was predicted 9 instructions
    /// per output high (measured: `lsl; and; smmlar; and; sub; add; asrs; add; mvn; qadd; ssat;
    /// strb`, the channel's six values in registers from the k loop); counted so, calibrate's
    /// 1,500 random schedules beyond 10% on the M7 went 215 -> 183 with the scaled counters
    /// (scaledIndex).
    void channelWork(const Stmt& s, double n, int loads)
    {
        const auto perOutput = [&] { chargeChannel({n, n, static_cast<double>(loads)}, false); };
        const size_t ki = innermostKeptIndex();
        if (ki == m_enclosing.size() || m_enclosing[ki].trips <= 1 || conditionalInLoop())
            return perOutput();
        std::vector<int> slots;
        addSlots(m_n.index, s.channel, slots);
        for (size_t i = m_enclosing.size(); i-- > ki;)
            if (m_enclosing[i].trips > 1 && std::binary_search(slots.begin(), slots.end(), m_enclosing[i].slot))
                return perOutput();  // the kept loop or a copy inside it moves the channel
        // Taken out of the loops inside the innermost one that moves the channel, but not past
        // a guard around them (the loads may trap before it): once per iteration of what is
        // left outside.
        size_t from = m_guardDepths.empty() ? 0 : m_guardDepths.back();
        for (size_t i = ki; i-- > from;)
            if (m_enclosing[i].trips > 1 && std::binary_search(slots.begin(), slots.end(), m_enclosing[i].slot)) {
                from = i + 1;
                break;
            }
        double once = n;
        for (size_t i = from; i < m_enclosing.size(); ++i)
            once /= static_cast<double>(std::max<int64_t>(1, m_enclosing[i].trips));
        CodeLoop& L = m_code[m_enclosing[ki].code];
        const CodeLoop::HoistedChannel h{n, once, static_cast<double>(loads)};
        if (m_shapes[m_enclosingStmt[ki]].keptInside) {
            L.hoistedChannels.push_back(h);  // decided where the loop ends, its inner loops' registers known
            return;
        }
        chargeChannel(h, true);
        L.channelValues += kRequantChannelValues;
        L.channelUses += n / static_cast<double>(std::max<int64_t>(1, L.iterations));
    }

    /// Counts a requantization's per-channel part taken out of its loop (`hoisted`), or per output.
    void chargeChannel(const CodeLoop::HoistedChannel& h, bool hoisted)
    {
        const double count = hoisted ? h.once : h.outputs;
        m_f[InsnFeature::RequantizeChannel] += count;
        m_f[InsnFeature::Load] += count * h.loads;
        if (hoisted)
            m_f[InsnFeature::Alu] += h.outputs * kRequantHoistedResidue;
    }

    /// Whether GCC takes a reference to accumulator `buffer` (at `off`, whose slots are `slots`)
    /// for one that may trap (tree_could_trap_p): an element of a tensor argument (through a
    /// pointer), or of a static array at an index that reads a counter of a loop the code keeps
    /// or an origin computed at run time. Copies of unrolled loops (written out in the C, or
    /// unrolled by the compiler before its last invariant-motion pass) index it with constants,
    /// and an element of a static array at a constant index within its bounds does not trap
    /// (random #459's C_acc[i_inner * 4 + j_inner] under `i_outer * 3 + i_inner <= 15`: kept in
    /// registers with flags, as counted).
    bool mayTrapInLoop(int buffer, const codegen::BufferOffset& off, const std::vector<int>& slots) const
    {
        if (m_n.buffers[buffer].role == Buffer::Role::Home || off.base)
            return true;
        return std::any_of(m_enclosing.begin(), m_enclosing.end(), [&](const Enclosing& e) {
            return e.code >= 0 && e.trips > 1 && std::binary_search(slots.begin(), slots.end(), e.slot);
        });
    }

    /// The updates of an element (indexed by `slots`) that follow one another in the innermost
    /// kept loop: the copies of the unrolled loops inside it that do not move the element, up to
    /// the first (innermost first) that does.
    double adjacentUpdates(const std::vector<int>& slots) const
    {
        double adjacent = 1;
        for (size_t i = m_enclosing.size(); i-- > 0 && m_enclosing[i].code < 0;) {
            const Enclosing& e = m_enclosing[i];
            if (e.trips <= 1)
                continue;
            if (std::binary_search(slots.begin(), slots.end(), e.slot))
                break;
            adjacent *= static_cast<double>(e.trips);
        }
        return adjacent;
    }

    /// An accumulator in memory: loaded and stored where it changes. In a loop that does not
    /// move it the compiler keeps it in a register (store motion) and touches memory around it;
    /// under a guard inside the innermost kept loop it does the same when the element is the
    /// same in every iteration of that loop and its reference cannot trap (mayTrapInLoop), with a
    /// flag (a second register, set at each update) that says after the loop whether to store; an
    /// element that changes in that loop, or one whose reference may trap, is loaded and stored
    /// at each update. `dsp`: updated by a DSP step into one accumulator (its update sites count,
    /// liveAccumulator); `dspBody`: in a DSP loop's body, a lane's accumulator too.
    void memoryAccumulator(int buffer, const std::vector<IndexId>& index, double n, bool dsp, bool dspBody)
    {
        const codegen::BufferOffset off = codegen::bufferOffset(m_n, buffer, index);
        const std::vector<int> slots = slotsOf(off);
        // The element is the same in every iteration of the innermost kept loop (or there is none).
        const Enclosing* kept = innermostKept();
        const bool fixed = !kept || !std::binary_search(slots.begin(), slots.end(), kept->slot);
        const bool conditional = conditionalInLoop();
        double times = conditional && !fixed ? n : evaluations(slots, n);
        if (!fixed && !conditional && !ir::isFloat(m_n.buffers[buffer].dtype)) {
            // The copies of an unrolled loop that does not move the element share its load and
            // store when they update it one after another (the loop is inside every unrolled loop
            // that moves it). Outside one that does, each copy's update is apart from the next
            // (the other elements' updates lie between): GCC then keeps at most
            // kForwardedAccumulators int elements in registers across the copies, and loads and
            // stores each of more at every update (the search's conv2d_s2_int8 picks: 16 ow
            // elements updated by 3 s copies, 48 loads and stores per iteration: -67.0% ->
            // -48.3%; matmul_int8's 4 k copies around 4 x 4 elements: -37.9% -> +6.6%; dense's 4
            // batch elements across 16 i copies stay in registers). Float elements stay in the
            // FPU's 32 (matmul_f32's picks).
            double copies = 1;
            bool apart = false;
            for (size_t i = m_enclosing.size(); i-- > 0 && m_enclosing[i].code < 0;) {
                const Enclosing& e = m_enclosing[i];
                if (e.trips <= 1)
                    continue;
                if (std::binary_search(slots.begin(), slots.end(), e.slot)) {
                    if (!apart)
                        copies *= static_cast<double>(e.trips);
                } else if (copies > 1) {
                    apart = true;
                }
            }
            if (apart && copies > kForwardedAccumulators)
                times = n / adjacentUpdates(slots);
        }
        if (kept && conditional && fixed && !dspBody && mayTrapInLoop(buffer, off, slots)) {
            // GCC's store motion (tree-ssa-loop-im: a reference that may trap must be accessed in
            // every iteration) leaves a guarded update of such an element in the loop: a load and
            // a store, no register across the loop. Updates of the element that follow one
            // another in an iteration (copies of unrolled loops inside those that move it, no
            // other element's update between) share them. Read in GCC's code: random #700007's
            // C_acc[j_outer * 24 + i_outer * 12 + i_inner * 3 + j_inner] in its k.inner loop, the
            // j_inner = 2 copies under `j_outer * 3 + j_inner <= 19`, each a load, an MLA and a
            // store at every update (+70.8% -> +11.1%: the model kept all 12 in registers with
            // flags and spilled 19); #133's O_acc element updated by 3 r copies of 2 c.inner
            // copies under the r padding guards, one load per iteration of the s loop (the model
            // counts one load and one store per group of updates that runs, estimated as the
            // updates over the group's copies; GCC stores after two of the copies). Only in a kept
            // loop (in straight-line code there is no store motion to leave). Not in DSP bodies:
            // their elements are in memory too (search_conv2d_int8_dsp_4 stores 139,520 words,
            // 4,096 of them the bias broadcast: one store per update of its 64 elements), but the
            // register count of their shared operands, whose spills GCC makes there (656k stack
            // accesses, every operand reloaded at each use), was fitted with these elements
            // counted as registers with flags: without them it predicts -27% where it predicts -5%.
            times = n / adjacentUpdates(slots);
            m_f[InsnFeature::Load] += times;
            m_f[InsnFeature::Store] += times;
            access(buffer, off, times);
            return;
        }
        if (times < n && fixed) {
            // store motion: in a register across the loop; under a guard with a flag beside it
            // (set at each update, tested after the loop).
            liveAccumulator(buffer, slots, conditional ? 2 : 1, dsp);
            if (conditional)
                m_f[InsnFeature::Alu] += n;
        }
        m_f[InsnFeature::Load] += times;
        m_f[InsnFeature::Store] += times;
        access(buffer, off, times);
    }

    /// Where the copies of the current statement come from: the unrolled loops from m_enclosing's
    /// `outerFirst` on but `kept`, the innermost loop the code keeps (m_enclosing.size(): none):
    /// those inside it, and those between it and the next kept loop outside, each of whose copies
    /// has a loop of its own.
    void copyRange(size_t& outerFirst, size_t& kept) const
    {
        size_t first = 0;
        kept = m_enclosing.size();
        for (size_t i = m_enclosing.size(); i-- > 0;)
            if (m_enclosing[i].code >= 0) {
                first = i + 1;
                kept = i;
                break;
            }
        outerFirst = first;
        if (kept < m_enclosing.size()) {
            outerFirst = kept;
            while (outerFirst > 0 && m_enclosing[outerFirst - 1].code < 0)
                --outerFirst;
        }
    }

    /// The copies of the current statement over the loops whose counters `slots` lists.
    CopySpace copySpace(const std::vector<int>& slots) const
    {
        CopySpace space;
        size_t outerFirst = 0, kept = 0;
        copyRange(outerFirst, kept);
        for (size_t i = outerFirst; i < m_enclosing.size(); ++i)
            if (i != kept && m_enclosing[i].trips > 1 && std::find(slots.begin(), slots.end(), m_enclosing[i].slot) != slots.end()) {
                space.loops.push_back({m_enclosing[i].slot, m_enclosing[i].trips, m_enclosing[i].written});
                space.combos = space.combos > 256 / m_enclosing[i].trips ? 257 : space.combos * m_enclosing[i].trips;
            }
        return space;
    }

    /// Comparisons a guard costs per execution, averaged over the unrolled copies of the current
    /// statement: in a copy where the copy's constants and the loops' ranges prove a bound, the
    /// compiler drops its check; 0 <= x <= hi is one unsigned comparison. With `space` (the
    /// guard's copies, at most 256 combinations) and `checked`: sets the copies of the C
    /// (CopySpace::keyOf) in which this condition keeps a check.
    double checksPerExecution(const Cond& c, const CopySpace* space = nullptr, std::bitset<256>* checked = nullptr) const
    {
        // Where the count gives up (no linear form, too many copies), every copy keeps a check.
        auto everyCopy = [&] {
            if (space && checked)
                checked->set();
        };
        int64_t lo0 = 0;
        const bool rangeTrick = c.lo != kNoIndex && c.hi != kNoIndex && m_n.index.isConst(c.lo, &lo0) && lo0 == 0;
        const double all = rangeTrick ? 1 : (c.lo != kNoIndex) + (c.hi != kNoIndex);
        // Linear forms of expr - lo (must be >= 0) and hi - expr.
        codegen::BufferOffset forms[2];
        for (int which = 0; which < 2; ++which) {
            const IndexId bound = which == 0 ? c.lo : c.hi;
            if (bound == kNoIndex)
                continue;
            for (auto [e, sign] : {std::pair{c.expr, which == 0 ? 1 : -1}, std::pair{bound, which == 0 ? -1 : 1}}) {
                const lower::IndexPool::Node& nd = m_n.index.node(e);
                if (nd.op != lower::IndexPool::Node::Op::Linear)
                    return everyCopy(), all;
                forms[which].constant += sign * nd.constant;
                for (const auto& t : nd.terms) {
                    if (t.atom < 0)
                        return everyCopy(), all;
                    forms[which].coeff.add(t.atom, sign * t.coeff);
                }
            }
        }
        size_t outerFirst = 0, kept = 0;
        copyRange(outerFirst, kept);
        std::vector<std::pair<int, int64_t>> copies;
        int64_t combos = 1;
        int64_t outsideCombos = 1;  // the combinations of the copies outside the kept loop (listed first)
        for (size_t i = outerFirst; i < m_enclosing.size(); ++i)
            if (i != kept && m_enclosing[i].trips > 1 && (forms[0].coefficient(m_enclosing[i].slot) != 0 || forms[1].coefficient(m_enclosing[i].slot) != 0)) {
                copies.push_back({m_enclosing[i].slot, m_enclosing[i].trips});
                combos = combos > 256 / m_enclosing[i].trips ? 257 : combos * m_enclosing[i].trips;
                if (i < kept)
                    outsideCombos = combos;
            }
        // The kept loop's own counter: a bound that fails only in its first iteration costs no check
        // (GCC enters the loop past it: the first iteration's condition is a constant).
        const int keptSlot = kept < m_enclosing.size() && m_enclosing[kept].trips > 1 ? m_enclosing[kept].slot : -1;
        if ((copies.empty() && keptSlot < 0) || combos > 256)
            return everyCopy(), all;
        auto isCopy = [&](int slot) { return std::any_of(copies.begin(), copies.end(), [&](const auto& u) { return u.first == slot; }); };
        // rest: the bound's least value over what is not a copy (where a check is needed: below 0);
        // most: its greatest (below 0, the condition never holds in the copy: GCC drops the check
        // and the code it guards).
        int64_t rest[2], most[2];
        for (int which = 0; which < 2; ++which) {
            most[which] = forms[which].constant;
            for (const auto& [slot, coeff] : forms[which].coeff)
                if (!isCopy(slot) && coeff > 0)
                    most[which] += coeff * (m_n.slotExtents[slot] - 1);
            // The first iteration's check is a constant only when nothing else varies in it.
            bool constantAtEntry = true;
            for (const auto& [slot, coeff] : forms[which].coeff)
                constantAtEntry = constantAtEntry && (isCopy(slot) || slot == keptSlot);
            rest[which] = forms[which].constant;
            for (const auto& [slot, coeff] : forms[which].coeff) {
                if (isCopy(slot))
                    continue;
                if (slot == keptSlot && constantAtEntry)
                    rest[which] += coeff < 0 ? coeff * (m_n.slotExtents[slot] - 1) : std::min<int64_t>(coeff, coeff * (m_n.slotExtents[slot] - 1));
                else if (coeff < 0)
                    rest[which] += coeff * (m_n.slotExtents[slot] - 1);
            }
        }
        double total = 0;
        std::array<bool, 256> needAt{};  // per combination of the copies: a check is left
        // Copies whose conditions are one and the same condition on what is not a copy are
        // checked once: over integers x, a*x + v >= 0 is (a/g)*x >= -floor(v/g), g the common
        // divisor of the coefficients a, so copies with one floor(v/g) test one value, and GCC
        // (value ranges, jump threading) tests it in one and knows it in the others (random
        // #300231's `j_outer * 3 + j_inner <= 15` in the j.inner copies 1 and 2, both j_outer <= 4:
        // one `cmp r2, #5` for the two; #100472's `c_outer * 3 + c_inner <= 15`). Only within one
        // iteration of the kept loop: copies outside it each run a loop of their own, in which
        // the test stays (jump threading does not carry it from one loop into the next), so
        // their combination is part of the key.
        int64_t divisor[2] = {0, 0};
        for (int which = 0; which < 2; ++which)
            for (const auto& [slot, coeff] : forms[which].coeff)
                if (!isCopy(slot))
                    divisor[which] = std::gcd(divisor[which], std::abs(coeff));
        // The conditions checked so far: floor(v/g) per bound, and the copy outside the kept loop.
        std::array<std::array<int64_t, 3>, 256> tested;
        size_t testedCount = 0;
        for (int64_t k = 0; k < combos; ++k) {
            bool need[2] = {false, false}, never = false;
            std::array<int64_t, 3> key{INT64_MIN, INT64_MIN, k % outsideCombos};  // INT64_MIN: no check on that bound
            for (int which = 0; which < 2; ++which) {
                if ((which == 0 ? c.lo : c.hi) == kNoIndex)
                    continue;
                int64_t shift = 0, r = k;
                for (const auto& [slot, trips] : copies) {
                    shift += forms[which].coefficient(slot) * (r % trips);
                    r /= trips;
                }
                need[which] = rest[which] + shift < 0;
                never = never || most[which] + shift < 0;
                if (need[which] && divisor[which] > 0)
                    key[static_cast<size_t>(which)] = floorDiv(forms[which].constant + shift, divisor[which]);
            }
            bool repeated = false;  // the condition of a copy checked before
            if (!never && (need[0] || need[1])) {
                const auto end = tested.begin() + static_cast<std::ptrdiff_t>(testedCount);
                repeated = std::find(tested.begin(), end, key) != end;
                if (!repeated)
                    tested[testedCount++] = key;
            }
            if (!never && !repeated)
                total += rangeTrick && need[0] && need[1] ? 1 : need[0] + need[1];
            needAt[static_cast<size_t>(k)] = !never && !repeated && (need[0] || need[1]);
        }
        // The copies of the guard (the shared space of all its conditions) where this condition
        // keeps a check: each combination of the space projected onto this condition's copies.
        if (space && checked)
            for (int64_t k = 0; k < space->combos; ++k) {
                int64_t own = 0, ownRadix = 1;
                for (const auto& [slot, trips] : copies) {
                    int64_t value = 0, left = k;
                    for (const CopySpace::Loop& l : space->loops) {
                        if (l.slot == slot) {
                            value = left % l.trips;
                            break;
                        }
                        left /= l.trips;
                    }
                    own += value * ownRadix;
                    ownRadix *= trips;
                }
                if (needAt[static_cast<size_t>(own)])
                    checked->set(static_cast<size_t>(space->keyOf(k)));
            }
        return total / static_cast<double>(combos);
    }

    /// The innermost loop the compiled code keeps around the current statement (nullptr: none).
    /// The copies of the unrolled loops inside the innermost kept loop whose counters `reads`
    /// (a predicate on a slot) says a value depends on: that many distinct values in one iteration.
    template <typename Reads>
    double unrolledCopies(Reads reads) const
    {
        double copies = 1;
        for (size_t i = m_enclosing.size(); i-- > 0 && m_enclosing[i].code < 0;)
            if (m_enclosing[i].trips > 1 && reads(m_enclosing[i].slot))
                copies *= static_cast<double>(m_enclosing[i].trips);
        return copies;
    }

    /// The index in m_enclosing of the innermost loop the compiled code keeps (its size: none).
    size_t innermostKeptIndex() const
    {
        for (size_t i = m_enclosing.size(); i-- > 0;)
            if (m_enclosing[i].code >= 0)
                return i;
        return m_enclosing.size();
    }

    const Enclosing* innermostKept() const
    {
        for (size_t i = m_enclosing.size(); i-- > 0;)
            if (m_enclosing[i].code >= 0)
                return &m_enclosing[i];
        return nullptr;
    }

    /// The conditions of `s` that GCC turns into exits of the innermost kept loop: `s` is the
    /// loop's whole body, and each condition checked in it can fail only in the loop's last
    /// iteration, its expression advancing by one with the counter (a partial tile one element
    /// short, `i_outer * 5 + i_inner <= 23` in a 5-iteration loop). Value-range propagation then
    /// knows that a failed check is followed by the loop's end and threads the branch to the
    /// exit: the guarded accesses run in every iteration the loop makes, and their pointers
    /// advance by post-indexed addressing (`str.w r4, [r6], #4`), while the check keeps an
    /// induction variable of its own (a counter compared with a bound computed before the loop:
    /// `cmp r3, lr; add.w r3, r3, #1; beq` to the exit), counted as a guard stream. Measured
    /// (tests/data/analysis/exit_guard.sched.yaml, 4,800 iterations): 64,702 instructions, 64,684
    /// predicted, 67,768 before (+4.7%); random #100010 +13.0% -> +4.7%; over calibrate's 528 on
    /// the M7 25 moved, beyond 10% 82 -> 80, median 4.32 -> 4.28%; on the M4 85 -> 83. A
    /// coefficient other than one is not threaded (#100475's `k_inner + k_outer_inner * 5 <= 15`:
    /// `bgt` to the latch), nor a bound that can fail earlier (#100040's `j_outer * 5 + j_inner
    /// <= 11`, exit_guard_short.sched.yaml).
    int exitGuards(const Stmt& s) const
    {
        if (m_enclosing.empty() || m_enclosing.back().code < 0 || m_enclosing.back().trips <= 1)
            return 0;
        const Stmt* only = &m_n.stmts[m_enclosingStmt.back()];  // the loop, then its blocks
        do {
            if (only->body.size() != 1)
                return 0;
            only = &m_n.stmts[only->body[0]];
        } while (only != &s && (only->kind == Stmt::Kind::Block || only->kind == Stmt::Kind::Alloc));
        if (only != &s)
            return 0;
        const int slot = m_enclosing.back().slot;
        const int64_t last = m_enclosing.back().trips - 1;
        int exits = 0;
        for (const Cond& c : s.conds) {
            if (checksPerExecution(c) <= 0)
                continue;
            if ((c.hi != kNoIndex) == (c.lo != kNoIndex))
                return 0;  // two bounds: not monotone
            // hi - expr (or expr - lo), which must stay >= 0: its least value with the counter
            // below its last value.
            const bool upper = c.hi != kNoIndex;
            int64_t least = 0;
            bool counted = false;
            for (auto [e, sign] : {std::pair{c.expr, upper ? -1 : 1}, std::pair{upper ? c.hi : c.lo, upper ? 1 : -1}}) {
                const lower::IndexPool::Node& nd = m_n.index.node(e);
                if (nd.op != lower::IndexPool::Node::Op::Linear)
                    return 0;
                least += sign * nd.constant;
                for (const auto& t : nd.terms) {
                    if (t.atom < 0)
                        return 0;
                    const int64_t k = sign * t.coeff;
                    if (t.atom == slot) {
                        if (k != -1)
                            return 0;
                        counted = true;
                        least -= last - 1;
                    } else {
                        least += std::min<int64_t>(0, k * (m_n.slotExtents[t.atom] - 1));
                    }
                }
            }
            if (!counted || least < 0)
                return 0;
            ++exits;
        }
        return exits;
    }

    void guard(const Stmt& s, double n)
    {
        double checks = 0;
        // A condition is evaluated once per value of the loop counters it reads: the copies of
        // an unrolled loop it does not read share one evaluation (GCC's CSE), and one that does
        // not change in the loop the code keeps around it is evaluated where that loop is
        // entered and tested in a register on every execution (loop-invariant motion).
        bool flagTested = false;
        double flagTests = 0;
        std::vector<int> slots;
        // The copies of the block, over the unrolled loops any condition reads: a flag is tested
        // in each copy of the C where one of the conditions can fail; in the others GCC knows
        // them all (random #100036: six copies of `0 <= oh_outer * 4 + r + oh_inner * 2 - 1`,
        // one tested per iteration).
        for (const Cond& c : s.conds)
            addSlots(m_n.index, condExprs(c), slots);
        const CopySpace space = copySpace(slots);
        std::bitset<256> flagCopies;
        int live = 0;  // conditions the code still checks (the others hold wherever it runs)
        for (const Cond& c : s.conds) {
            slots.clear();
            addSlots(m_n.index, condExprs(c), slots);
            auto reads = [&](int slot) { return std::find(slots.begin(), slots.end(), slot) != slots.end(); };
            double shared = 1;  // copies of unrolled loops inside the innermost kept loop it does not read
            // ... of which those outside an unrolled loop it reads: their copies' blocks are not
            // next to each other (other copies of the guarded code lie between), and each is
            // entered by a comparison of its own, the checked value shared or not (the search's
            // conv2d_int8 picks: 4 c.outer copies around 4 ow.inner copies, each ow.inner guard
            // compared in every c.outer copy; of the 138 front schedules this moves, 124 come
            // closer, the best -20.7% -> -8.1%).
            double apart = 1;
            bool readInside = false;
            bool hoisted = false;
            const Enclosing* keptLoop = nullptr;
            for (size_t i = m_enclosing.size(); i-- > 0;) {
                const Enclosing& e = m_enclosing[i];
                if (e.code >= 0) {
                    hoisted = e.trips > 1 && !reads(e.slot);
                    if (hoisted)
                        shared *= static_cast<double>(e.trips);
                    keptLoop = &e;
                    break;
                }
                if (!reads(e.slot)) {
                    shared *= static_cast<double>(std::max<int64_t>(1, e.trips));
                    if (readInside)
                        apart *= static_cast<double>(std::max<int64_t>(1, e.trips));
                } else if (e.trips > 1) {
                    readInside = true;
                }
            }
            std::bitset<256> checked;
            const double perExecution = checksPerExecution(c, space.combos <= 256 ? &space : nullptr, &checked);
            if (perExecution > 0)
                ++live;
            if (hoisted || shared > 1) {
                m_f[InsnFeature::Guard] += n / shared * apart * perExecution;
                if (hoisted && perExecution > 0) {
                    flagTested = true;
                    flagCopies |= checked;
                    // The checked value, computed before the loop, is live across it: one
                    // register per copy of the unrolled loops it reads that checks it.
                    m_code[keptLoop->code].hoistedChecks += unrolledCopies(reads) * perExecution;
                }
                continue;
            }
            checks += perExecution;
            // The checked expression advances with the loops it depends on (an induction variable
            // of its own), or is computed where its division or minimum changes.
            codegen::BufferOffset form;
            std::vector<std::pair<IndexId, int64_t>> atoms;
            const lower::IndexPool::Node& nd = m_n.index.node(c.expr);
            if (nd.op == lower::IndexPool::Node::Op::Linear) {
                for (const auto& t : nd.terms)
                    if (t.atom >= 0)
                        form.coeff.add(t.atom, t.coeff);
                    else
                        charge(-t.atom - 1, n);
            } else {
                charge(c.expr, n);
            }
            bool innermost = true;
            for (size_t i = m_enclosing.size(); i-- > 0;) {
                if (m_enclosing[i].code < 0)
                    continue;
                CodeLoop& L = m_code[m_enclosing[i].code];
                if (form.coefficient(L.slot) != 0 && innermost) {
                    if (std::find(L.guardForms.begin(), L.guardForms.end(), form.coeff) == L.guardForms.end())
                        L.guardForms.push_back(form.coeff);
                }
                innermost = false;
            }
        }
        m_f[InsnFeature::Guard] += n * checks;
        if (flagTested) {
            int64_t tested = space.combos;  // too many copies to tell: every one
            if (space.combos <= 256) {
                tested = 0;
                for (int64_t k = 0; k < space.combos; ++k)
                    tested += flagCopies.test(static_cast<size_t>(space.keyOf(k))) ? 1 : 0;
            }
            flagTests = n * static_cast<double>(tested) / static_cast<double>(space.combos);
            m_f[InsnFeature::GuardFlag] += flagTests;
        }
        m_conds.insert(m_conds.end(), s.conds.begin(), s.conds.end());
        for (const Cond& c : s.conds)
            m_guards.push_back(condFactor(m_n.index, c));
        const int exits = live > 0 ? exitGuards(s) : 0;
        const int exitLoop = exits > 0 ? m_enclosing.back().code : -1;
        if (exitLoop >= 0) {
            m_code[exitLoop].exitConds += exits;
            m_code[exitLoop].exits = true;
        }
        m_liveConds += live;
        // A checked guard inside the innermost kept loop makes its statements a block of their
        // own: the int8 words loaded in it are counted apart (CodeLoop::maxBlockWords).
        const Enclosing* kept = live > 0 ? innermostKept() : nullptr;
        if (live > 0)
            m_guardDepths.push_back(m_enclosing.size());
        if (kept) {
            m_code[kept->code].guarded = true;
            m_blockWords.push_back(0);
            m_blockExecs.push_back(n);
        }
        const int keptCode = kept ? kept->code : -1;  // an index: body() may reallocate m_code and m_enclosing
        body(s);
        if (keptCode >= 0) {
            double& most = m_code[keptCode].maxBlockWords;
            most = std::max(most, m_blockWords.back());
            m_blockWords.pop_back();
            m_blockExecs.pop_back();
        }
        if (live > 0)
            m_guardDepths.pop_back();
        m_liveConds -= live;
        if (exitLoop >= 0)
            m_code[exitLoop].exitConds -= exits;
        m_conds.resize(m_conds.size() - s.conds.size());
        m_guards.resize(m_conds.size());
    }

    void loop(int id, const Stmt& s, int64_t entries)
    {
        if (s.extent > 1 && (m_shapes[id].memset || m_shapes[id].memcpy)) {
            // Zeroing an accumulator in memory, or copying elements unchanged: GCC makes the loop
            // (nest) calls of memset or memcpy, whose instructions are the C library's, or code
            // in line (libraryCode).
            const LibraryCode code = libraryCode(m_n, id);
            const double n = static_cast<double>(entries);
            m_f[InsnFeature::LibraryCall] += n * static_cast<double>(code.calls);
            m_f[InsnFeature::Library] += n * static_cast<double>(code.instructions);
            m_f[InsnFeature::Store] += n * static_cast<double>(code.stores);
            m_f[InsnFeature::Load] += n * static_cast<double>(code.loads);
            m_f[InsnFeature::LoopIteration] += n * static_cast<double>(code.iterations);
            return;
        }
        const std::optional<codegen::DspLoop>& dsp = m_shapes[id].dsp;
        const int64_t trips = this->trips(id);
        const bool kept = this->kept(id);
        Enclosing e{s.slot, trips, -1, s.loopKind == sched::LoopKind::Unrolled || m_shapes[id].writtenOut};
        if (kept) {
            CodeLoop L;
            L.slot = s.slot;
            L.iterations = entries * trips;
            L.condsAtEntry = m_liveConds;
            L.dsp = dsp.has_value();
            m_code.push_back(L);
            e.code = static_cast<int>(m_code.size() - 1);
        }
        m_enclosing.push_back(e);
        m_enclosingStmt.push_back(id);
        size_t record = 0;
        const InsnFeatures before = m_f;
        if (kept && m_loopFeatures) {
            record = m_loopFeatures->size();
            m_loopFeatures->push_back({id, {}, m_records.empty() ? -1 : m_records.back()});
            m_records.push_back(static_cast<int>(record));
        }
        m_slots.push_back(s.slot);
        if (dsp)
            dspBody(*dsp, static_cast<double>(entries * trips));
        else
            body(s);
        m_slots.pop_back();
        m_enclosing.pop_back();
        m_enclosingStmt.pop_back();
        m_charged.erase(id);
        if (kept) {
            CodeLoop L = std::move(m_code.back());
            m_code.pop_back();
            const double it = static_cast<double>(L.iterations);
            m_f[InsnFeature::LoopEntry] += entries;
            m_f[InsnFeature::LoopIteration] += it;
            // A counter of its own: a loop without a pointer to compare against; or the counters
            // GCC addresses the scaled streams from, one per step (scaledIndex), one of them the
            // exit test.
            if (L.streams.empty() && L.outerStreams.empty())
                m_f[InsnFeature::LoopCounter] += it;
            FlatSet<int64_t> steps;
            for (const auto& [key, step] : L.scaledStreams) {
                const auto* st = L.streams.find(key);
                if (st && st->first <= it * 1.01)
                    steps.insert(step);
            }
            m_f[InsnFeature::LoopCounter] += it * static_cast<double>(std::max<size_t>(steps.size(), L.scaledStreams.empty() ? 0 : 1));
            bool wordCounter = false;
            for (const auto& [key, st] : L.streams) {
                if (L.scaledStreams.find(key))
                    continue;
                // One access per iteration: its load advances the pointer; several: one of them can.
                const bool single = st.first <= it * 1.01;
                const InsnFeature kind = !st.second ? InsnFeature::WordStream : single ? InsnFeature::FoldedStream : InsnFeature::SharedStream;
                // A DSP loop's word loads that cannot post-index (their address carries a term
                // computed outside the loop, or the loop is one of many unrolled copies) share
                // one induction variable: register offsets.
                if (L.dsp && kind == InsnFeature::WordStream) {
                    if (wordCounter)
                        continue;
                    wordCounter = true;
                }
                m_f[kind] += it;
            }
            // A guard's expression advancing in the loop needs an induction variable of its own
            // only in a loop without a pointer that advances: beside one, GCC compares that
            // pointer with a bound it computes before the loop (random #100238's partial-tile
            // guard `c.outer*3 + c.inner <= 7`: `cmp r3, sl` on the load's pointer; counted, the
            // 500 random schedules were over-predicted, signed median +2.7%, and a free fit put
            // this event at 0.01 instructions). A guard made an exit of the loop (exitGuards) keeps
            // one beside integer pointers: GCC counts the iterations in a register and compares it
            // at both exits (exit_guard.sched.yaml: `cmp r3, lr; add.w r3, r3, #1; beq` to the
            // exit, `cmp r3, #5; bne` back; random #103's `cmp r3, fp` and `cmp r3, #3`). Beside
            // float pointers only (VLDM/VSTM) it compares a pointer at both exits, the guard's
            // against a bound the loop around advances (random #700195's j.inner: `cmp r1, r4;
            // beq` to the exit, `cmp r1, r0; bne` back, `adds r4, #32` once per k.inner iteration):
            // no induction variable, and for the guard one step of that bound per entry (an outer
            // stream) instead of a value set up there. Over calibrate's 2,000 random schedules on
            // the M7 33 moved, 24 closer by half a point or more (#700195 +20.6% -> +7.4%, #300231
            // +10.3% -> +4.8%), 2 further (#100019 +1.6% -> -6.3%: a counter kept beside a VLDR
            // pointer stepping 48 bytes; #100110's stepping 32 is compared); beyond 10% 242 ->
            // 237 (the 500 held out 59 -> 56; on the M4 59 -> 56, 10 closer, 1 further).
            const bool pointerExits = L.exits && !L.streams.empty() && !L.intStreams;
            if (L.streams.empty() || (L.exits && !pointerExits))
                m_f[InsnFeature::GuardStream] += it * static_cast<double>(L.guardForms.size());
            // A float pointer advanced by a stride VLDR cannot post-increment (VLDM steps by one
            // word), read by one load at offset 0: GCC's scheduler puts the increment before the
            // load and keeps the old value in a copy, one MOV per iteration (matmul_f32_tiled's k
            // loop: `mov sl, r2; vldmia r3!, {s15}; adds r2, #64; vldr s13, [sl]`, 262,144 of
            // them, -11.3% -> +0.5%). At another offset the load takes the offset less the
            // stride and needs no copy (random #100103's k.inner copies 1 to 3: `vldr s15, [r3,
            // #12]`), nor with a stride of 256 bytes or more (matmul_f32_naive: the load before
            // `add.w r2, r2, #256`). Over the 71 of calibrate's 528 schedules that have such
            // loads, 385,500 copies predicted and 385,455 measured.
            for (const auto& [key, z] : L.zeroOffsetFloat) {
                const auto* st = L.streams.find(key);
                if (st && !st->second && st->first <= it * 1.01)
                    m_f[InsnFeature::StreamCopy] += z;
            }
            // Values live across an iteration: the loop's pointers and guard expressions, the
            // counter and two temporaries, and the accumulators kept in registers.
            double live = static_cast<double>(L.streams.size() + L.guardForms.size()) + 3 + L.blockOperands;
            // On a single-issue core (the export compiles with -mcpu=cortex-m4) GCC's scheduler
            // issues the int8 words of an unguarded body ahead of their SXTB16 unpacks, so more
            // of them are live at once than the operand set the copies reuse (dense_int8_dsp on
            // the M4: its 8 words loaded in the first 10 instructions, 12 stack accesses per
            // iteration; the M7 interleaves them, 1 stack access): up to kLoadsAhead words more,
            // and up to kLoadsAheadGuarded in a body guards split into blocks, counted in the
            // block that loads the most. Not int16 words (dense_int16_dsp: loaded in groups of
            // three, no spill). A dual-issue core holds kLoadsAheadGuardedDualIssue in a guarded
            // body and none in an unguarded one.
            const double ahead = m_singleIssue ? (L.guarded ? std::min(L.maxBlockWords - L.blockOperands, kLoadsAheadGuarded)
                                                            : std::min(L.int8Words - L.blockOperands, kLoadsAhead))
                                               : (L.guarded ? std::min(L.maxBlockWords - L.blockOperands, kLoadsAheadGuardedDualIssue) : 0.0);
            live += std::max(0.0, ahead);
            for (const auto& [buffer, copies] : L.accumulators)
                live += copies;
            // DSP operands that do not change in the loop: GCC's loop-invariant motion (RTL,
            // register-pressure aware) takes their loads and unpacks out of it when their registers
            // fit beside what is live (random #100210: B's packed pairs out of the i loop, 9
            // instructions per iteration instead of 17; +55.5% -> +6.6%), and leaves them in when
            // they do not (conv2d_int8_tflite_dsp's 3x3 taps unrolled in its loop).
            const bool hoists = live + L.invariantRegisters <= kAllocatableRegisters;
            for (size_t i = 0; i < std::size(kInvariantFeatures); ++i)
                m_f[kInvariantFeatures[i]] += (hoists ? L.invariantHoisted : L.invariantInLoop)[i];
            // The invariant addresses of the loads left in the loop: a register each, reloaded
            // before its load when spilled (one access per iteration).
            const double addresses = L.addressesAlways + (hoists ? 0 : L.addressesUnlessHoisted);
            const double addressLoads = L.addressLoadsAlways + (hoists ? 0 : L.addressLoadsUnlessHoisted);
            if (addresses > 0)
                L.sharedOperands.push_back({addresses, addressLoads / addresses, false, false, /*invariant=*/true});
            double bases = 0;
            for (const auto& [buffer, b] : L.offsetBases)
                bases += b;
            if (bases > 0)
                L.sharedOperands.push_back({bases, 1, false, false, /*invariant=*/true});
            if (L.hoistedChecks > 0)
                L.sharedOperands.push_back({L.hoistedChecks, 1, false, false, /*invariant=*/true});
            if (L.channelValues > 0)
                L.sharedOperands.push_back({L.channelValues, L.channelUses, false, false, /*invariant=*/true});
            if (!m_shapes[id].keptInside) {
                // Register pressure in the innermost kept loop: the accumulators kept in registers
                // across its iterations, its pointers and guard expressions, the counter and two
                // temporaries. Beyond the allocatable registers GCC keeps the rest on the stack and
                // reloads and stores each on every iteration (matmul_int8 found by the search: 64
                // accumulators, ldr/mla/str per MAC). Operands that unrolled copies share count
                // where the copies stay in order (sharedOperand): more than kInterleavedCopies
                // copies, or a guard in every copy; two copies in one basic block GCC's scheduler
                // interleaves, and counting them there predicted the 2x2 DSP blocks 20-45% high
                // on the M7. GCC spills the values cheapest to keep on the stack first: an
                // accumulator costs a load and a store per iteration (per update site: see
                // liveAccumulator), a shared operand a store and a reload for every copy using it.
                // Float values (operands, accumulators) live in the FPU's registers, the rest in
                // the general ones (the tutorial's matmul_f32 with k unrolled: 64 values of A out
                // of the j.inner loop, measured 979,293 kernel instructions; counted against the
                // general registers it was predicted +7.6%, against s0-s31 -1.2%).
                double fpAccumulators = 0, intAccumulators = 0;
                for (const auto& [buffer, copies] : L.accumulators)
                    (ir::isFloat(m_n.buffers[buffer].dtype) ? fpAccumulators : intAccumulators) += copies;
                spill(L, it, false, live - fpAccumulators - kAllocatableRegisters, intAccumulators);
                spill(L, it, true, fpAccumulators + 2 - kFpRegisters, fpAccumulators);
                double shared[2] = {0, 0};
                for (const CodeLoop::SharedValues& v : L.sharedOperands)
                    shared[v.fp ? 1 : 0] += v.registers;
                L.innerRegisters = live - fpAccumulators + shared[0];
                if (m_loopFeatures) {
                    (*m_loopFeatures)[record].registers = L.innerRegisters;
                    (*m_loopFeatures)[record].fpRegisters = fpAccumulators + 2 + shared[1];
                }
            }
            // Requantizations around the kept loops inside: their channel's values out of this
            // loop where they fit beside those loops' registers, else per output.
            for (const CodeLoop::HoistedChannel& h : L.hoistedChannels)
                chargeChannel(h, L.innerRegisters + kRequantChannelValues * static_cast<double>(L.hoistedChannels.size()) <= kAllocatableRegisters);
            if (!m_code.empty())
                m_code.back().innerRegisters = std::max(m_code.back().innerRegisters, L.innerRegisters);
            m_f[InsnFeature::StreamInit] += static_cast<double>(entries) * static_cast<double>(L.streams.size() + (pointerExits ? 0 : L.guardForms.size()));
            if (pointerExits)
                m_f[InsnFeature::OuterStream] += static_cast<double>(entries) * static_cast<double>(L.guardForms.size());
            // The pointers of the loops inside that this loop advances, once per iteration: in
            // its own record (they were in the record of the loop around it until session 16).
            m_f[InsnFeature::OuterStream] += it * static_cast<double>(L.outerStreams.size());
            if (m_loopFeatures) {
                for (int i = 0; i < kInsnFeatureCount; ++i)
                    (*m_loopFeatures)[record].features.count[i] = m_f.count[i] - before.count[i];
                m_records.pop_back();
            }
        }
    }

    /// Spills in the innermost kept loop `L` (`it` iterations) of one register file (`fp`: the
    /// FPU's), whose other live values leave `excess` registers over (negative: free): the
    /// accumulators and the file's shared operands, the cheapest to keep on the stack first.
    /// A group of values unrolled copies share goes to the stack whole: they live across the
    /// whole unrolled body, and freeing one register over it frees it for all (the search's
    /// conv2d_s2_int8 pick, one register over by the count: all 8 packed F pairs reloaded at
    /// each of their 16 uses, 123 stack accesses per iteration) when it is the first to go; after
    /// accumulators were spilled, and for values taken out of the loop (hoistedOperand) and
    /// accumulators, one by one (search_conv2d_int8_dsp_4: 128 accumulator registers spilled,
    /// its pairs whole would predict +17% where it is +1.9%).
    void spill(const CodeLoop& L, double it, bool fp, double excess, double accumulators)
    {
        for (const CodeLoop::SharedValues& v : L.sharedOperands)
            if (v.fp == fp)
                excess += v.registers;
        if (excess <= 0)
            return;
        struct Candidate {
            double accesses;  ///< stack accesses per iteration per spilled register
            double registers;
            bool accumulator;
            bool whole;
            bool invariant = false;
        };
        std::vector<Candidate> candidates{{2 * L.accumulatorSites, accumulators, true, false}};
        for (const CodeLoop::SharedValues& v : L.sharedOperands)
            if (v.fp == fp)
                candidates.push_back({v.accesses, v.registers, false, v.whole, v.invariant});
        std::stable_sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) { return a.accesses < b.accesses; });
        bool first = true;
        for (const Candidate& c : candidates) {
            if (excess <= 0)
                break;
            if (c.registers <= 0)
                continue;
            const double spilled = c.whole && first ? c.registers : std::min(excess, c.registers);
            first = first && c.invariant;  // values computed before the loop leave the other values' order as it was
            // Spill is a reload and a store (two accesses) per site, SpillReload one access.
            m_f[c.accumulator ? InsnFeature::Spill : InsnFeature::SpillReload] += it * spilled * (c.accumulator ? c.accesses / 2 : c.accesses);
            excess -= spilled;
        }
    }

    /// The DSP loop's body, `steps` times in all (steps of `lanes` lanes). An operand that does
    /// not depend on an unrolled copy is loaded and unpacked once for all copies; one that does
    /// not depend on the innermost kept loop is taken out of it when the registers allow (decided
    /// where that loop ends: CodeLoop::invariantRegisters).
    /// A DSP operand whose offset is the same in unrolled copies that read different counters
    /// (r + 2 * oh.inner of a stride-2 convolution, s + w.inner of depthwise taps over unrolled
    /// pixels): GCC loads such a value once and holds it from its first use to its last, across the
    /// copies between. The most held at once count among the loop's shared operands, spilled
    /// beyond the registers with a store and a reload per use. Their loads stay counted per copy:
    /// counting them once as well predicted the search's conv2d_s2_int8_tflite picks 4 points
    /// lower where they were already 19% low (the spills GCC makes of them are more than one
    /// store and a reload each); held, over the search's fronts 45 schedules moved, 43 closer
    /// (conv2d_s2_int8_tflite -19.1% -> -15.3%, depthwise picks -16.9% -> -14.1%).
    void coincidentOperand(const codegen::BufferOffset& off, double registersPerValue)
    {
        const size_t kept = innermostKeptIndex();
        if (kept == m_enclosing.size())
            return;
        std::vector<int64_t> seq{0};
        for (size_t i = kept + 1; i < m_enclosing.size(); ++i) {
            const int64_t c = off.coefficient(m_enclosing[i].slot);
            const int64_t t = m_enclosing[i].trips;
            if (c == 0 || t <= 1)
                continue;
            if (seq.size() * static_cast<size_t>(t) > 4096)
                return;  // a body that large is beyond the registers anyway
            std::vector<int64_t> next;
            next.reserve(seq.size() * static_cast<size_t>(t));
            for (int64_t o : seq)
                for (int64_t v = 0; v < t; ++v)
                    next.push_back(o + c * v);
            seq = std::move(next);
        }
        std::map<int64_t, std::pair<size_t, size_t>> span;  // value -> its first and last use, in the copies' order
        std::map<int64_t, int> uses;
        for (size_t k = 0; k < seq.size(); ++k) {
            auto [it, fresh] = span.emplace(seq[k], std::pair{k, k});
            if (!fresh)
                it->second.second = k;
            ++uses[seq[k]];
        }
        if (span.size() == seq.size())
            return;
        std::vector<int> live(seq.size() + 1, 0);
        double reused = 0, accesses = 0;
        for (const auto& [v, fl] : span)
            if (fl.second > fl.first) {
                ++live[fl.first];
                --live[fl.second];
                reused += 1;
                accesses += uses[v];
            }
        int atOnce = 0, now = 0;
        for (size_t k = 0; k < seq.size(); ++k) {
            now += live[k];
            atOnce = std::max(atOnce, now);
        }
        if (atOnce > 0)
            m_code[m_enclosing[kept].code].sharedOperands.push_back({atOnce * registersPerValue, accesses / reused, false, true});
    }

    void dspBody(const codegen::DspLoop& d, double steps)
    {
        CodeLoop* kept = nullptr;
        for (size_t i = m_enclosing.size(); i-- > 0;)
            if (m_enclosing[i].code >= 0) {
                kept = &m_code[m_enclosing[i].code];
                break;
            }
        // The values interleaved copies reuse, per operand (sharedOperand): GCC's scheduler keeps
        // the smaller set live while it works through the other.
        double blockRegs[2] = {0, 0};
        int operand = 0;
        for (const codegen::DspOperand* o : {&d.x, &d.y}) {
            ++operand;
            if (!o->load)
                continue;  // a pair constant, set up outside the loop
            const codegen::BufferOffset off = codegen::bufferOffset(m_n, o->load->buffer, o->load->index);
            const std::vector<int> slots = slotsOf(off);
            const double distinct = evaluations(slots, steps, false);
            // Registers of one value: an int8 word's two unpacked halves or two packed pairs; an
            // int16 word or pair.
            sharedOperand(slots, d.int8 ? 2 : 1, false, !d.int8 && o->stride == 1, &blockRegs[operand - 1]);
            if (kept && off.nonlinear.empty())
                coincidentOperand(off, d.int8 ? 2 : 1);
            // A load under a guard inside the loop is not taken out (it might fault where the
            // guard fails: random #100398 reloads and repacks F in its guarded ow.inner loop).
            const bool conditional = conditionalInLoop();
            const double outOfLoop = kept ? evaluations(slots, steps, true) : distinct;  // the loads were they taken out
            const double hoisted = !conditional ? outOfLoop : distinct;
            if (kept && o->stride == 1 && kept->iterations > 0 && outOfLoop < distinct) {
                // One address per copy of the unrolled loops inside the kept one that move it
                // (the guards decide how often each is loaded, not how many there are).
                const double copies = unrolledCopies([&](int slot) { return std::binary_search(slots.begin(), slots.end(), slot); });
                (conditional ? kept->addressesAlways : kept->addressesUnlessHoisted) += copies;
                (conditional ? kept->addressLoadsAlways : kept->addressLoadsUnlessHoisted) += distinct / static_cast<double>(kept->iterations);
            }
            // The events in kInvariantFeatures' order.
            auto count = [&](double times) {
                if (o->stride == 1)
                    return std::array<double, 4>{times, d.int8 ? 2 * times : 0, 0, 0};
                return std::array<double, 4>{0, 0, times * d.lanes, times * ((d.int8 ? 2 : 1) + (o->offset != 0 ? 2 : 0))};
            };
            if (hoisted < distinct) {
                const std::array<double, 4> inLoop = count(distinct), out = count(hoisted);
                for (size_t i = 0; i < inLoop.size(); ++i) {
                    kept->invariantInLoop[i] += inLoop[i];
                    kept->invariantHoisted[i] += out[i];
                }
                // Registers: an int8 word's two unpacked halves, or two packed pairs; one int16 word.
                kept->invariantRegisters += (d.int8 ? 2 : 1) * distinct / static_cast<double>(std::max<int64_t>(1, kept->iterations));
            } else {
                const std::array<double, 4> inLoop = count(distinct);
                for (size_t i = 0; i < inLoop.size(); ++i)
                    m_f[kInvariantFeatures[i]] += inLoop[i];
            }
            access(o->load->buffer, off, distinct, o->stride == 1);
            if (kept && d.int8 && o->stride == 1 && hoisted >= distinct && kept->iterations > 0) {
                kept->int8Words += distinct / static_cast<double>(kept->iterations);
                if (!m_blockWords.empty() && m_blockExecs.back() > 0)
                    m_blockWords.back() += distinct / m_blockExecs.back();
            }
        }
        if (kept)
            kept->blockOperands = std::max(kept->blockOperands, std::min(blockRegs[0], blockRegs[1]));
        if (d.path == codegen::DspLoop::Path::Lanes) {
            // One SMLABB or SMLATT per lane, each lane its own accumulator.
            m_f[InsnFeature::Smlad] += steps * d.lanes;
            if (m_n.buffers[d.update->buffer].level >= 0) {
                for (int lane = 0; lane < d.lanes; ++lane)
                    memoryAccumulator(d.update->buffer, d.update->index, steps, false, true);
            } else {
                // Each lane's accumulator in a register of its own (they were left out of the
                // registers live in the loop: depthwise_conv_int8_tflite_dsp's 2 rows x 4 lanes
                // across its unrolled 3x3 taps, predicted -8.2% and now -3.5%).
                registerAccumulator(d.update->buffer, d.update->index, true, d.lanes);
            }
            return;
        }
        m_f[InsnFeature::Smlad] += steps * (d.int8 ? 2 : 1);
        if (m_n.buffers[d.update->buffer].level >= 0)
            memoryAccumulator(d.update->buffer, d.update->index, steps, true, true);
        else
            registerAccumulator(d.update->buffer, d.update->index, true);
    }

    // ---- copies ---------------------------------------------------------------------------

    /// sumOfProducts over `slots` of the guards' factors and `extra` (appended to m_guards for
    /// the call and taken off again: the guards' factors are built once per guard, not per sum).
    int64_t guardedSum(const std::vector<int>& slots, std::vector<Factor>&& extra)
    {
        return sumOfProductsWith(slots, m_n.slotExtents, m_guards, std::move(extra));
    }

    void copy(const Stmt& s, int64_t n)
    {
        for (IndexId e : s.region.min)
            if (!m_n.index.isPureLinear(e))
                charge(e, static_cast<double>(n));
        for (IndexId e : s.region.count)
            if (!m_n.index.isPureLinear(e))
                charge(e, static_cast<double>(n));
        const codegen::CopyShape shape = codegen::copyShape(m_n, s);
        const bool widen = codegen::widensCopy(m_n, s);
        m_f[InsnFeature::CopyStatement] += n;
        if (!widen) {
            m_f[InsnFeature::WaitCall] += n;
            m_f[InsnFeature::HookWait] += n;
        }
        // Calls and rows: sums over the copy's executions of products of its runtime counts.
        const std::vector<int>& slots = m_slots;
        std::vector<Factor> calls;
        calls.reserve(s.region.count.size());
        for (size_t d = 0; d < s.region.count.size(); ++d)
            if (d < shape.outerDims)
                calls.push_back(countFactor(m_n.index, s.region.count[d]));
            else
                calls.push_back(nonEmptyFactor(s.region.count[d]));
        const int64_t callCount = guardedSum(slots, std::move(calls));
        m_f[InsnFeature::CopyCall] += callCount;
        m_f[widen ? InsnFeature::WidenCall : InsnFeature::HookCall] += callCount;
        const InsnFeature row = widen ? InsnFeature::WidenRow : InsnFeature::HookRow;
        if (shape.hasRowDim) {
            std::vector<Factor> rows;
            rows.reserve(s.region.count.size());
            for (size_t d = 0; d < s.region.count.size(); ++d)
                rows.push_back(d < shape.outerDims || d == shape.rowDim ? countFactor(m_n.index, s.region.count[d]) : nonEmptyFactor(s.region.count[d]));
            m_f[row] += guardedSum(slots, std::move(rows));
        } else {
            m_f[row] += callCount;
        }
        if (widen) {
            // Every element of the region, one by one.
            std::vector<Factor> elements;
            for (IndexId e : s.region.count)
                elements.push_back(countFactor(m_n.index, e));
            m_f[InsnFeature::WidenElement] += guardedSum(slots, std::move(elements));
            return;
        }
        std::vector<Factor> bytes;
        bytes.reserve(s.region.count.size() + 1);
        std::vector<int> guardVars;
        for (const Factor& g : m_guards)
            guardVars.insert(guardVars.end(), g.vars.begin(), g.vars.end());
        std::vector<int> folded;
        if (shape.elementBytes % 4 == 0 && s.region.count.size() <= kMaxCopyDims && !t_enumerateCopies) {
            alignedMemcpyFactors(s, shape, bytes);
            ++t_closedFormCopies;
        } else {
            bytes.push_back(memcpyFactor(s, shape, guardVars, folded));
            if (!folded.empty())
                ++t_closedFormCopies;
            int64_t points = 1;
            for (int v : bytes.back().vars)
                points = satMul(points, m_n.slotExtents[v]);
            t_enumeratedPoints = satAdd(t_enumeratedPoints, bytes.back().vars.empty() ? 0 : points);
        }
        // The loops the factor sums over itself are not enumerated again.
        std::vector<int> byteSlots;
        for (int v : slots)
            if (std::find(folded.begin(), folded.end(), v) == folded.end())
                byteSlots.push_back(v);
        m_f[InsnFeature::Memcpy] += guardedSum(byteSlots, std::move(bytes));
    }

    Factor nonEmptyFactor(IndexId e) const { return analysis::nonEmptyFactor(m_n.index, e); }

    /// Where one copy's rows start, as the cost of memcpy needs it: the byte offset of the first
    /// element in a buffer and the bytes per unit of each region dimension.
    struct Placement {
        std::array<int64_t, kMaxCopyDims> stride{};    ///< elements between neighbours of a dimension (buffer steps)
        std::array<int64_t, kMaxCopyDims> unitBytes{}; ///< bytes per unit of the region's dimension
    };

    /// Slots whose value changes the remainder modulo 4 of where a copy's rows start: those of
    /// the region's minima and the buffers' origins, except terms whose bytes are multiples of 4.
    void alignmentSlots(const Stmt& s, std::vector<int>& out) const
    {
        const int64_t es = ir::dtypeBytes(m_n.buffers[s.buffer].dtype);
        if (es % 4 == 0)
            return;
        for (const Buffer* b : {&m_n.buffers[s.src], &m_n.buffers[s.buffer]})
            for (size_t d = 0; d < s.region.min.size(); ++d) {
                const int64_t bytes = codegen::bufferStride(*b, d, b->step[d]) * es;
                for (IndexId e : {s.region.min[d], b->origin[d]}) {
                    if (e == kNoIndex)
                        continue;
                    const lower::IndexPool::Node& nd = m_n.index.node(e);
                    if (nd.op != lower::IndexPool::Node::Op::Linear) {
                        addSlots(m_n.index, e, out);
                        continue;
                    }
                    for (const auto& t : nd.terms) {
                        if (t.atom < 0)
                            addSlots(m_n.index, -t.atom - 1, out);
                        else if ((t.coeff % b->step[d] != 0) || (t.coeff / b->step[d] * bytes) % 4 != 0)
                            out.push_back(t.atom);
                    }
                }
            }
        std::sort(out.begin(), out.end());
        out.erase(std::unique(out.begin(), out.end()), out.end());
    }

    /// memcpyFactor() of a copy of whole words (every row starts at a multiple of 4 bytes), as
    /// one factor per region dimension: calls times rows times the instructions of one row are a
    /// product of functions of one count each, so loops that set different counts are summed
    /// apart (lattice_count.h) instead of over all their combinations.
    void alignedMemcpyFactors(const Stmt& s, const codegen::CopyShape& shape, std::vector<Factor>& out) const
    {
        const int64_t rowElementBytes = shape.runInnerElements * shape.elementBytes;
        for (size_t d = 0; d < s.region.count.size(); ++d) {
            Factor f = countFactor(m_n.index, s.region.count[d]);
            const bool call = d < shape.outerDims;
            const bool row = shape.hasRowDim && d == shape.rowDim;
            const bool run = shape.rowContiguous && d == shape.runStart;
            const lower::IndexPool* ix = &m_n.index;
            const IndexId e = s.region.count[d];
            f.plain = nullptr;  // eval below (countFactor's count, not a copy of its function)
            f.eval = [ix, e, call, row, run, rowElementBytes](const int64_t* v) -> int64_t {
                const int64_t c = std::max<int64_t>(0, ix->eval(e, v));
                if (c == 0)
                    return 0;
                return (call ? c : 1) * (row ? c : 1) * (run ? memcpyInstructions(c * rowElementBytes, 0, 0) : 1);
            };
            out.push_back(std::move(f));
        }
        if (!shape.rowContiguous) {
            const int64_t perRow = memcpyInstructions(shape.elementBytes, 0, 0);
            out.push_back(Factor{{}, [perRow](const int64_t*) -> int64_t { return perRow; }});
        }
    }

    /// The slots of `s`'s region minima and its buffers' origins that enter where its rows start
    /// only linearly, and nothing else (not a count, not a guard in `guardVars`, not inside a
    /// division, modulo, min or max), with the bytes one step of each moves the source and the
    /// destination: the memcpy factor sums over them in closed form (by remainders modulo 4)
    /// instead of enumerating their values.
    struct LinearSlot {
        int slot;
        int64_t srcBytes, dstBytes;
    };
    std::vector<LinearSlot> linearAlignmentSlots(const Stmt& s, const std::vector<int>& candidates, const std::vector<int>& countVars,
                                                 const std::vector<int>& guardVars, const Placement& ps, const Placement& pd) const
    {
        const size_t dims = s.region.min.size();
        const int64_t es = ir::dtypeBytes(m_n.buffers[s.buffer].dtype);
        std::vector<int> excluded(countVars);
        excluded.insert(excluded.end(), guardVars.begin(), guardVars.end());
        // Net coefficient of each slot in (min - origin) per buffer and dimension.
        std::vector<std::array<std::array<int64_t, kMaxCopyDims>, 2>> coeff;
        std::vector<int> slots;
        auto at = [&](int slot) -> std::array<std::array<int64_t, kMaxCopyDims>, 2>& {
            for (size_t i = 0; i < slots.size(); ++i)
                if (slots[i] == slot)
                    return coeff[i];
            slots.push_back(slot);
            coeff.push_back({});
            return coeff.back();
        };
        const Buffer* bufs[2] = {&m_n.buffers[s.src], &m_n.buffers[s.buffer]};
        for (int b = 0; b < 2; ++b)
            for (size_t d = 0; d < dims; ++d)
                for (int sign : {1, -1}) {
                    const IndexId e = sign > 0 ? s.region.min[d] : bufs[b]->origin[d];
                    if (e == kNoIndex)
                        continue;
                    const lower::IndexPool::Node& nd = m_n.index.node(e);
                    if (nd.op != lower::IndexPool::Node::Op::Linear) {
                        addSlots(m_n.index, e, excluded);
                        continue;
                    }
                    for (const auto& t : nd.terms) {
                        if (t.atom < 0)
                            addSlots(m_n.index, -t.atom - 1, excluded);
                        else
                            at(t.atom)[b][d] += sign * t.coeff;
                    }
                }
        std::vector<LinearSlot> out;
        for (int v : candidates) {
            if (std::find(excluded.begin(), excluded.end(), v) != excluded.end()
                || std::find(m_slots.begin(), m_slots.end(), v) == m_slots.end())
                continue;
            LinearSlot ls{v, 0, 0};
            bool linear = true;
            for (size_t i = 0; i < slots.size() && linear; ++i)
                if (slots[i] == v)
                    for (int b = 0; b < 2 && linear; ++b)
                        for (size_t d = 0; d < dims && linear; ++d) {
                            const int64_t c = coeff[i][b][d];
                            linear = c % bufs[b]->step[d] == 0;
                            (b == 0 ? ls.srcBytes : ls.dstBytes) += c / bufs[b]->step[d] * (b == 0 ? ps : pd).stride[d] * es;
                        }
            if (linear)
                out.push_back(ls);
        }
        return out;
    }

    /// memcpy instructions of one execution of the copy: per call and row, by the remainders
    /// modulo 4 of the source and destination addresses (buffers are at least 4-byte aligned).
    /// The slots that move the start only linearly are summed over here, in closed form: they
    /// are left out of the factor's variables and listed in `folded` (the caller must not
    /// enumerate them again).
    Factor memcpyFactor(const Stmt& s, const codegen::CopyShape& shape, const std::vector<int>& guardVars, std::vector<int>& folded) const
    {
        Factor f;
        const Buffer& src = m_n.buffers[s.src];
        const Buffer& dst = m_n.buffers[s.buffer];
        const size_t dims = s.region.min.size();
        for (IndexId e : s.region.count)
            addSlots(m_n.index, e, f.vars);
        const std::vector<int> countVars = f.vars;
        alignmentSlots(s, f.vars);
        // A ping-pong buffer's halves lie one after the other (`X_SRAM[2][5]`): where a half's
        // bytes are not a multiple of 4, the half the copy fills or empties moves its rows'
        // remainders (random #700015: 5 int16 a half, the odd tiles' copies 2 bytes off).
        int64_t halfBytes[2] = {0, 0};  // source, destination
        int halfSlots[2] = {-1, -1};
        for (int side = 0; side < 2; ++side) {
            const int b = side == 0 ? s.src : s.buffer;
            halfSlots[side] = m_shapes.halfSlot(b);
            if (halfSlots[side] >= 0 && m_n.buffers[b].bytes() % 4 != 0) {
                halfBytes[side] = m_n.buffers[b].bytes();
                f.vars.push_back(halfSlots[side]);
            }
        }
        std::vector<int> notLinear(guardVars);  // what the closed form must leave to the enumeration
        for (int side = 0; side < 2; ++side)
            if (halfBytes[side] != 0)
                notLinear.push_back(halfSlots[side]);
        std::sort(f.vars.begin(), f.vars.end());
        f.vars.erase(std::unique(f.vars.begin(), f.vars.end()), f.vars.end());
        if (dims > kMaxCopyDims) {
            f.vars.clear();
            f.eval = [](const int64_t*) -> int64_t { return 0; };
            return f;
        }
        Placement ps, pd;
        for (size_t d = 0; d < dims; ++d) {
            ps.stride[d] = codegen::bufferStride(src, d, src.step[d]);
            pd.stride[d] = codegen::bufferStride(dst, d, dst.step[d]);
            ps.unitBytes[d] = codegen::bufferStride(src, d, s.region.step[d]) * shape.elementBytes;
            pd.unitBytes[d] = codegen::bufferStride(dst, d, s.region.step[d]) * shape.elementBytes;
        }
        const bool aligned = shape.elementBytes % 4 == 0;
        std::vector<std::array<int64_t, 3>> linear;  // slot's extent, source and destination bytes per step
        if (!aligned && !t_enumerateCopies)
            for (const LinearSlot& ls : linearAlignmentSlots(s, f.vars, countVars, notLinear, ps, pd)) {
                folded.push_back(ls.slot);
                linear.push_back({m_n.slotExtents[ls.slot], ls.srcBytes, ls.dstBytes});
                f.vars.erase(std::find(f.vars.begin(), f.vars.end(), ls.slot));
            }
        const LoopNest* n = &m_n;
        const Stmt* st = &s;
        const std::vector<int> vars = f.vars;
        const size_t slots = m_n.slotExtents.size();
        // Only the factor's variables have values; the others add multiples of 4 bytes and stay
        // 0 in `scratch`, which the factor keeps (not cleared at every point it is evaluated at).
        std::vector<int64_t> scratch(slots, 0);
        f.eval = [n, st, shape, dims, ps, pd, aligned, &src, &dst, vars, scratch = std::move(scratch), linear, halfBytes,
                  halfSlots](const int64_t* given) mutable -> int64_t {
            int64_t* v = scratch.data();
            for (int x : vars)
                v[x] = given[x];
            std::array<int64_t, kMaxCopyDims> count{};
            for (size_t d = 0; d < dims; ++d) {
                count[d] = std::max<int64_t>(0, n->index.eval(st->region.count[d], v));
                if (count[d] == 0)
                    return 0;
            }
            const int64_t es = shape.elementBytes;
            const int64_t rowBytes = shape.rowContiguous ? count[shape.runStart] * shape.runInnerElements * es : es;
            const int64_t rows = shape.hasRowDim ? count[shape.rowDim] : 1;
            int64_t calls = 1;
            for (size_t d = 0; d < shape.outerDims; ++d)
                calls *= count[d];
            if (aligned)
                return memcpyInstructions(rowBytes, 0, 0) * rows * calls;
            // The first element's byte offset in a buffer.
            auto first = [&](const Buffer& b, const Placement& p) {
                int64_t off = 0;
                for (size_t d = 0; d < dims; ++d) {
                    if (b.origin[d] == st->region.min[d])
                        continue;  // a cache filled from its origin (the same expression): 0, not evaluated twice
                    const int64_t origin = b.origin[d] == kNoIndex ? 0 : n->index.eval(b.origin[d], v);
                    off += (n->index.eval(st->region.min[d], v) - origin) / b.step[d] * p.stride[d];
                }
                return off * es;
            };
            const int64_t s0 = first(src, ps) + (halfBytes[0] != 0 ? (v[halfSlots[0]] & 1) * halfBytes[0] : 0);
            const int64_t d0 = first(dst, pd) + (halfBytes[1] != 0 ? (v[halfSlots[1]] & 1) * halfBytes[1] : 0);
            // Histogram of (source, destination) remainders over calls and rows.
            std::array<int64_t, 16> hist{};
            hist[(((s0 % 4) + 4) % 4) * 4 + (((d0 % 4) + 4) % 4)] = 1;
            auto spread = [&](int64_t extent, int64_t ds, int64_t dd2) {
                if ((ds % 4) == 0 && (dd2 % 4) == 0) {
                    for (auto& h : hist)
                        h *= extent;
                    return;
                }
                std::array<int64_t, 16> out{};
                // The remainders present, listed once (a few of the 16), not tested at every j.
                std::array<int, 16> present;
                int count = 0;
                for (int a = 0; a < 16; ++a)
                    if (hist[a])
                        present[count++] = a;
                for (int j = 0; j < 4 && j < extent; ++j) {
                    const int64_t times = (extent - j + 3) / 4;
                    const int rs = static_cast<int>(((j * ds) % 4 + 4) % 4), rd = static_cast<int>(((j * dd2) % 4 + 4) % 4);
                    for (int i = 0; i < count; ++i) {
                        const int a = present[i];
                        out[((a / 4 + rs) % 4) * 4 + (a % 4 + rd) % 4] += hist[a] * times;
                    }
                }
                hist = out;
            };
            for (size_t d = 0; d < shape.outerDims; ++d)
                spread(count[d], ps.unitBytes[d], pd.unitBytes[d]);
            if (shape.hasRowDim)
                spread(rows, shape.srcRowStride * es, shape.dstRowStride * es);
            for (const auto& l : linear)
                spread(l[0], l[1], l[2]);
            int64_t total = 0;
            for (int a = 0; a < 16; ++a)
                if (hist[a])
                    total += hist[a] * memcpyInstructions(rowBytes, a / 4, a % 4);
            return total;
        };
        return f;
    }

    const LoopNest& m_n;
    const std::vector<int64_t>& m_execs;
    std::vector<LoopFeatures>* m_loopFeatures;
    std::vector<int> m_records;  ///< m_loopFeatures records of the kept loops being walked, outermost first
    LoopShapes m_shapes;
    const bool m_singleIssue;  ///< the nest's target issues one instruction per cycle (the M4's scheduling)
    InsnFeatures m_f;
    std::vector<CodeLoop> m_code;
    std::vector<Enclosing> m_enclosing;
    std::vector<int> m_enclosingStmt;
    std::map<int, std::vector<IndexId>> m_charged;  ///< index computations charged, per enclosing For (-1: none)
    std::vector<int> m_slots;
    std::vector<Cond> m_conds;
    std::vector<Factor> m_guards;  ///< condFactor of each of m_conds
    /// Depth of m_enclosing at each guard around the statement that the code checks.
    std::vector<size_t> m_guardDepths;
    /// Int8 words loaded so far in each guarded block being walked inside the innermost kept
    /// loop, per execution of the block, and the block's executions.
    std::vector<double> m_blockWords, m_blockExecs;
    size_t m_liveConds = 0;  ///< conditions around the statement that the code checks
    std::set<int> m_offsetRegs;
};

} // namespace

int64_t loopTrips(const LoopNest& n, const Stmt& s)
{
    const std::optional<codegen::DspLoop> dsp = codegen::dspLoop(n, s);
    return s.extent / (dsp ? dsp->lanes : 1);
}

int loopBodySize(const LoopNest& n, int stmt) { return LoopShapes(n)[stmt].size; }

const char* compiledName(LoopDecision::Compiled c)
{
    switch (c) {
    case LoopDecision::Compiled::Loop: return "loop";
    case LoopDecision::Compiled::UnrolledBySchedule: return "unrolled";
    case LoopDecision::Compiled::UnrolledByCompiler: return "unrolled by the compiler";
    case LoopDecision::Compiled::OneIteration: return "one iteration";
    case LoopDecision::Compiled::Memset: return "memset";
    case LoopDecision::Compiled::Memcpy: return "memcpy";
    case LoopDecision::Compiled::ZeroedInLine: return "zeroed in line";
    case LoopDecision::Compiled::CopiedInLine: return "copied in line";
    }
    return "loop";
}

std::vector<LoopDecision> loopDecisions(const LoopNest& n, const hw::Target& target)
{
    std::vector<LoopDecision> out;
    if (n.root < 0)
        return out;
    const std::vector<int64_t> execs = statementExecutions(n, target);
    std::vector<LoopFeatures> loops;
    instructionFeatures(n, execs, &loops);
    const std::array<double, kInsnFeatureCount> coeff = insnCoefficients(target);
    const LoopShapes shapes(n);
    std::vector<const LoopFeatures*> record(n.stmts.size(), nullptr);
    for (const LoopFeatures& l : loops)
        record[static_cast<size_t>(l.stmt)] = &l;
    // The outermost loop of a nest GCC makes memset or memcpy calls (or code in line) of decides
    // for the loops inside it.
    std::optional<LoopDecision::Compiled> library;
    std::function<void(int, int)> walk = [&](int id, int depth) {
        const Stmt& s = n.stmts[static_cast<size_t>(id)];
        bool startsLibrary = false;
        if (s.kind == Stmt::Kind::For) {
            const LoopShapes::Info& in = shapes[id];
            LoopDecision d;
            d.stmt = id;
            d.name = s.name;
            d.depth = depth;
            d.entries = execs[static_cast<size_t>(id)];
            d.trips = in.trips;
            d.dsp = in.dsp.has_value();
            d.bodySize = in.size;
            if (in.gimple > 0) {
                d.gccSize = in.gimple;
                d.gccFolded = in.gimpleFolded;
            }
            using C = LoopDecision::Compiled;
            if (in.kept)
                d.compiled = C::Loop;
            else if (s.loopKind == sched::LoopKind::Unrolled || in.writtenOut)
                d.compiled = C::UnrolledBySchedule;
            else if ((in.memset || in.memcpy) && s.extent > 1) {
                if (!library) {
                    library = libraryCode(n, id).calls > 0 ? (in.memset ? C::Memset : C::Memcpy) : (in.memset ? C::ZeroedInLine : C::CopiedInLine);
                    startsLibrary = true;
                }
                d.compiled = *library;
            }
            else if (in.trips <= 1)
                d.compiled = C::OneIteration;
            else
                d.compiled = C::UnrolledByCompiler;
            if (const LoopFeatures* r = record[static_cast<size_t>(id)]) {
                double sum = 0;
                for (int i = 0; i < kInsnFeatureCount; ++i)
                    if (!insnFeatureIsCopy(static_cast<InsnFeature>(i)))
                        sum += r->features.count[static_cast<size_t>(i)] * coeff[static_cast<size_t>(i)];
                d.instructions = sum;
                for (int i = 0; i < kInsnFeatureCount; ++i)
                    if (r->features.count[static_cast<size_t>(i)] != 0 && !insnFeatureIsCopy(static_cast<InsnFeature>(i)))
                        d.events.emplace_back(insnFeatureName(static_cast<InsnFeature>(i)), r->features.count[static_cast<size_t>(i)]);
                d.spills = 0;
                for (InsnFeature f : {InsnFeature::Spill, InsnFeature::SpillReload})
                    d.spills += r->features.count[static_cast<size_t>(f)] * coeff[static_cast<size_t>(f)];
                d.registers = r->registers;
                d.fpRegisters = r->fpRegisters;
            }
            out.push_back(std::move(d));
            ++depth;
        }
        for (int c : s.body)
            walk(c, depth);
        if (startsLibrary)
            library.reset();
    };
    walk(n.root, 0);
    return out;
}
bool isMemsetLoop(const LoopNest& n, int stmt) { return LoopShapes(n)[stmt].memset; }
bool compilerKeepsLoop(const LoopNest& n, int stmt) { return LoopShapes(n)[stmt].kept; }

namespace {

/// Per feature: the index of its category in the order of the categories' first features, and
/// whether it is a copy's. Computed once: the issue model and every prediction ask per feature
/// (string comparisons were 5% of an analysis).
struct CategoryTable {
    std::array<int, kInsnFeatureCount> index{};
    std::array<const char*, kInsnFeatureCount> names{};
    std::array<bool, kInsnFeatureCount> copy{};
    int count = 0;
};

const CategoryTable& categoryTable()
{
    static const CategoryTable t = [] {
        CategoryTable c;
        for (int i = 0; i < kInsnFeatureCount; ++i) {
            const char* cat = kFeatures[i].category;
            int k = 0;
            while (k < c.count && std::strcmp(c.names[k], cat) != 0)
                ++k;
            if (k == c.count)
                c.names[c.count++] = cat;
            c.index[i] = k;
            c.copy[i] = std::strcmp(cat, "copies") == 0;
        }
        return c;
    }();
    return t;
}

} // namespace

const char* insnFeatureName(InsnFeature f) { return info(f).name; }
const char* insnFeatureCategory(InsnFeature f) { return info(f).category; }
bool insnFeatureIsCopy(InsnFeature f) { return categoryTable().copy[static_cast<int>(f)]; }

bool insnFeatureIsExact(InsnFeature f)
{
    switch (f) {
    case InsnFeature::Load:
    case InsnFeature::Store:
    case InsnFeature::Mla:
    case InsnFeature::FpuOp:
    case InsnFeature::Smlad:
    case InsnFeature::DspWord:
    case InsnFeature::DspUnpack:
    case InsnFeature::DspPack:
    case InsnFeature::Library: return true;
    default: return false;
    }
}
double defaultInsnCoefficient(InsnFeature f) { return info(f).coefficient; }

namespace detail {

EnumerateCopiesScope::EnumerateCopiesScope() : m_previous(t_enumerateCopies) { t_enumerateCopies = true; }

EnumerateCopiesScope::~EnumerateCopiesScope() { t_enumerateCopies = m_previous; }

int64_t closedFormCopies() { return t_closedFormCopies; }

int64_t enumeratedPoints() { return t_enumeratedPoints; }

} // namespace detail

int64_t memcpyInstructions(int64_t n, int srcMod4, int dstMod4)
{
    if (n < 0)
        return 0;
    // Word path (both aligned, or either after aligning): blocks of 64, 16 and 4 bytes, then
    // the last 0-3 bytes (the IT block's two instructions count even when they do not apply).
    auto words = [](int64_t m) {
        int64_t c = 2 + 34 * (m / 64);
        c += 2 + 10 * ((m % 64) / 16);
        c += 2 + 4 * ((m % 16) / 4);
        const int64_t r = m % 4;
        c += 2 + (r == 0 ? 0 : 5 + ((r & 2) ? 2 : 0));
        return c + 2;  // mov, bx
    };
    int64_t c = 4;  // mov, orr, ands, bne
    if (srcMod4 == 0 && dstMod4 == 0)
        return c + words(n);
    c += 2;  // cmp, bcc
    if (n < 8) {
        c += 2;  // subs, bcc
        if (n < 4) {
            const int64_t r = n;
            return c + 2 + (r == 0 ? 0 : 5 + ((r & 2) ? 2 : 0)) + 2;
        }
        return c + 4 * (n - 3) + 8;
    }
    c += 2;  // source aligned?
    if (srcMod4 == 0)
        return c + words(n);
    c += 2;  // destination aligned?
    if (dstMod4 == 0)
        return c + words(n);
    const int head = 4 - dstMod4;  // bytes copied to align the destination
    c += 7 + ((head & 2) ? 3 : 0);
    return c + words(n - head);
}

int64_t memsetInstructions(int64_t n, int dstMod4)
{
    if (n < 0)
        return 0;
    // Bytes after the first 0-3 (`m`): blocks of 16 bytes (four STRs), then words, then bytes.
    auto aligned = [](int64_t m) {
        int64_t c = 2;  // cmp, bls
        const auto tail = [](int64_t r) { return 1 + (r == 0 ? 0 : 2 + 3 * r) + 1; };  // cbz, byte loop, pop
        if (m <= 3)
            return c + tail(m);
        c += 5;  // the byte splatted into a word, cmp
        int64_t r = m;
        if (m > 15) {
            c += 6 + 7 * (m / 16) + 5;
            r = m & 15;
            if ((r & 12) == 0)
                return c + 4 + ((r & 3) == 0 ? 2 : 2 + 3 * (r & 3) + 1);
        } else {
            c += 3;
        }
        return c + 4 + 3 * (r / 4) + 1 + tail(r & 3);
    };
    int64_t c = 3;  // lsls, push, beq
    if (dstMod4 == 0)
        return c + 3 + aligned(n);
    c += 3;  // subs, cmp, beq
    if (n == 0)
        return c + 1;
    c += 3;  // uxtb, mov, b
    const int64_t head = 4 - dstMod4;  // bytes stored one by one to align
    if (n < head)
        return c + 5 * n + 1;
    return c + 3 * head + 2 * (head - 1) + aligned(n - head);
}

InsnFeatures instructionFeatures(const LoopNest& nest, const std::vector<int64_t>& executions, std::vector<LoopFeatures>* loops)
{
    return Counter(nest, executions, loops).run();
}

namespace {

const std::array<double, kInsnFeatureCount>& defaultCoefficients()
{
    static const std::array<double, kInsnFeatureCount> c = [] {
        std::array<double, kInsnFeatureCount> d{};
        for (int i = 0; i < kInsnFeatureCount; ++i)
            d[i] = kFeatures[i].coefficient;
        return d;
    }();
    return c;
}

} // namespace

std::array<double, kInsnFeatureCount> insnCoefficients(const hw::Target& target)
{
    // No calibration (the shipped targets): no name to look up (analyze asks on every call).
    if (target.calibration.coefficients.empty())
        return defaultCoefficients();
    std::array<double, kInsnFeatureCount> c{};
    for (int i = 0; i < kInsnFeatureCount; ++i) {
        c[i] = kFeatures[i].coefficient;
        auto it = target.calibration.coefficients.find(kFeatures[i].name);
        if (it != target.calibration.coefficients.end())
            c[i] = it->second;
    }
    return c;
}

InstructionReport predictInstructions(const InsnFeatures& features, const hw::Target& target)
{
    InstructionReport r;
    r.features = features;
    r.available = target.kind != "accelerator";
    r.calibration = target.calibration.compiler;
    const auto c = target.calibration.coefficients.empty() ? defaultCoefficients() : insnCoefficients(target);
    double kernel = 0, copies = 0;
    // Categories in the order of their first feature (categoryTable()).
    const CategoryTable& table = categoryTable();
    std::array<double, kInsnFeatureCount> byCategory{};
    for (int i = 0; i < kInsnFeatureCount; ++i) {
        const double v = features.count[i] * c[i];
        (table.copy[i] ? copies : kernel) += v;
        byCategory[table.index[i]] += v;
    }
    r.kernel = countOf(std::round(kernel));
    r.copies = countOf(std::round(copies));
    r.predicted = r.kernel + r.copies;
    r.breakdown.reserve(table.count);
    for (int k = 0; k < table.count; ++k)
        r.breakdown.push_back({table.names[k], countOf(std::round(byCategory[k]))});
    return r;
}

} // namespace loopscope::analysis
