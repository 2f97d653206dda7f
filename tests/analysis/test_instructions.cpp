// The instruction model's event counts on nests small enough to count by hand, the memcpy count,
// the per-target coefficients and the report. The prediction against qemu's count is checked by
// the qemu suite (test_instructions_qemu.cpp).
#include "support/test_paths.h"

#include "analysis/cost_report.h"
#include "analysis/instructions.h"
#include "ir/kernel.h"
#include "lower/loop_nest.h"
#include "sched/schedule_file.h"
#include "target_loader.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <optional>

using namespace loopscope;
using analysis::InsnFeature;

namespace {

sched::Program example(const std::string& name)
{
    auto o = sched::openSchedule(test::sourceDir() + "/examples/schedules/" + name + ".sched.yaml",
                                 [](const std::string& n, const std::string& d) { return hw::resolveTarget(n, d); });
    EXPECT_TRUE(o.ok()) << o.errorText();
    return o->program;
}

analysis::InsnFeatures featuresOf(const sched::Program& p)
{
    lower::LoopNest nest = lower::lower(p);
    return analysis::instructionFeatures(nest, analysis::statementExecutions(nest, *p.target));
}

/// The events of tests/data/<dir>/<name>.sched.yaml (a failure, and none, if it does not open).
analysis::InsnFeatures dataFeatures(const std::string& dir, const std::string& name)
{
    auto o = sched::openSchedule(test::sourceDir() + "/tests/data/" + dir + "/" + name + ".sched.yaml",
                                 [](const std::string& n, const std::string& d) { return hw::resolveTarget(n, d); });
    if (!o.ok()) {
        ADD_FAILURE() << o.errorText();
        return {};
    }
    return featuresOf(o->program);
}

/// The events of a schedule the search found (tests/data/instructions/<name>.sched.yaml).
analysis::InsnFeatures searchFound(const std::string& name)
{
    return dataFeatures("instructions", name);
}

} // namespace

TEST(InstructionModel, CountsTheEventsOfTheNaiveMatmulByHand)
{
    // for i, j (64 x 64): acc = 0; for k (64): acc += (A[i,k] + 128) * B[k,j]; C[i,j] = acc
    const analysis::InsnFeatures f = featuresOf(example("matmul_int8_naive"));
    const double macs = 64.0 * 64 * 64;
    EXPECT_EQ(f[InsnFeature::Load], 2 * macs);         // A and B per MAC
    EXPECT_EQ(f[InsnFeature::Mla], macs);
    EXPECT_EQ(f[InsnFeature::Alu], macs);              // the +128 of each A element
    EXPECT_EQ(f[InsnFeature::AccInit], 64 * 64);
    EXPECT_EQ(f[InsnFeature::Store], 64 * 64);
    EXPECT_EQ(f[InsnFeature::LoopIteration], macs + 64 * 64 + 64);
    EXPECT_EQ(f[InsnFeature::LoopEntry], 64 * 64 + 64 + 1);
    // k advances two pointers, each read once per iteration (post-indexed loads).
    EXPECT_EQ(f[InsnFeature::FoldedStream], 2 * macs + 64 * 64);
    EXPECT_EQ(f[InsnFeature::Function], 1);
    // No caches: nothing goes through the DMA hooks.
    for (InsnFeature c : {InsnFeature::CopyCall, InsnFeature::HookCall, InsnFeature::HookRow, InsnFeature::Memcpy})
        EXPECT_EQ(f[c], 0) << analysis::insnFeatureName(c);
}

TEST(InstructionModel, ATwoIterationLoopIsUnrolledUnlessItsBodyIsLarge)
{
    auto open = [](const std::string& name) {
        auto o = sched::openSchedule(test::sourceDir() + "/tests/data/analysis/" + name + ".sched.yaml",
                                     [](const std::string& n, const std::string& d) { return hw::resolveTarget(n, d); });
        EXPECT_TRUE(o.ok()) << o.errorText();
        return lower::lower(o->program);
    };
    // Guards on the loop's own counter (those that do not read it are another matter).
    auto readsSlot = [](const lower::LoopNest& n, const lower::Stmt& guard, int slot) {
        std::vector<int> slots;
        for (const lower::Cond& c : guard.conds)
            for (lower::IndexId e : {c.expr, c.lo, c.hi})
                if (e != lower::kNoIndex)
                    n.index.slotsOf(e, slots);
        return std::find(slots.begin(), slots.end(), slot) != slots.end();
    };
    // Counts the two-iteration loops named `name` around a guard on their counter (`requantizing`
    // false) or around a requantization (true), and how many of them the model keeps as loops.
    auto twoTripLoops = [&](const lower::LoopNest& n, const std::string& name, bool requantizing, int& kept) {
        int found = 0;
        kept = 0;
        std::function<bool(int)> requantizes = [&](int id) {
            const lower::Stmt& b = n.stmts[id];
            return (b.kind == lower::Stmt::Kind::AccStore && n.kernel->stages[b.stage].requant) || std::any_of(b.body.begin(), b.body.end(), requantizes);
        };
        for (size_t i = 0; i < n.stmts.size(); ++i) {
            const lower::Stmt& s = n.stmts[i];
            if (s.kind == lower::Stmt::Kind::For && s.extent == 2 && s.loopKind == sched::LoopKind::Serial && s.name == name
                && requantizes(static_cast<int>(i)) == requantizing
                && (requantizing || std::any_of(s.body.begin(), s.body.end(), [&](int c) { return n.stmts[c].kind == lower::Stmt::Kind::If && readsSlot(n, n.stmts[c], s.slot); }))) {
                ++found;
                kept += analysis::compilerKeepsLoop(n, static_cast<int>(i)) ? 1 : 0;
            }
        }
        return found;
    };
    int kept = 0;
    // 0 <= oh.outer*4 + r + oh.inner*2 - 1 holds in the copy oh.inner = 1: GCC unrolls.
    const lower::LoopNest dropped = open("two_trip_guard_dropped");
    EXPECT_GT(twoTripLoops(dropped, "oh.inner", false, kept), 0);
    EXPECT_EQ(kept, 0);
    // 0 <= w.outer*2 + s + w.inner - 1 <= 5 stays in both copies, around one multiply-accumulate:
    // GCC unrolls them all the same (-fopt-info-loop: "loop with 1 iterations completely unrolled").
    const lower::LoopNest unrolled = open("two_trip_guard_unrolled");
    EXPECT_EQ(twoTripLoops(unrolled, "w.inner", false, kept), 1);
    EXPECT_EQ(kept, 0);
    // Around a requantization the body is too large to unroll without growing: a loop (measured).
    const lower::LoopNest large = open("two_trip_guard_large_body");
    EXPECT_EQ(twoTripLoops(large, "ow.inner", true, kept), 1);
    EXPECT_EQ(kept, 1);
}

namespace {

lower::LoopNest dataNest(const std::string& name)
{
    auto o = sched::openSchedule(test::sourceDir() + "/tests/data/analysis/" + name + ".sched.yaml",
                                 [](const std::string& n, const std::string& d) { return hw::resolveTarget(n, d); });
    EXPECT_TRUE(o.ok()) << o.errorText();
    return lower::lower(o->program);
}

/// How many two-iteration loops named `name` around a multiply-accumulate the nest has (not
/// those that set or store the accumulators), and how many of them the model keeps.
std::pair<int, int> twoTripLoopsKept(const lower::LoopNest& n, const std::string& name)
{
    std::function<bool(int)> accumulates = [&](int id) {
        const lower::Stmt& b = n.stmts[id];
        return (b.kind == lower::Stmt::Kind::Compute && b.accumulate) || std::any_of(b.body.begin(), b.body.end(), accumulates);
    };
    int found = 0, kept = 0;
    for (size_t i = 0; i < n.stmts.size(); ++i) {
        const lower::Stmt& s = n.stmts[i];
        if (s.kind == lower::Stmt::Kind::For && s.extent == 2 && s.loopKind == sched::LoopKind::Serial && s.name == name
            && accumulates(static_cast<int>(i))) {
            ++found;
            kept += analysis::compilerKeepsLoop(n, static_cast<int>(i)) ? 1 : 0;
        }
    }
    return {found, kept};
}

} // namespace

TEST(InstructionModel, ATwoIterationLoopWhoseIndexArithmeticFoldsAwayIsUnrolled)
{
    // w.inner around a 2x2 block of a static accumulator indexed by w.inner and constants: its
    // body is large, but GCC counts that index arithmetic as folded away in the copies and
    // unrolls it (-fdump-tree-cunroll-details).
    const lower::LoopNest folded = dataNest("two_trip_folded_index");
    EXPECT_EQ(twoTripLoopsKept(folded, "w.inner"), std::make_pair(1, 0));
    // The same kind of body behind a guard on the loop's own counter: GCC keeps it (its size
    // estimate with the guard's test and arithmetic is too large; the model weighed it as a loop
    // GCC splits at the guard until session 22); the unguarded oh.inner inside it is unrolled.
    const lower::LoopNest split = dataNest("two_trip_split_guard");
    EXPECT_EQ(twoTripLoopsKept(split, "ow.inner"), std::make_pair(1, 1));
    EXPECT_EQ(twoTripLoopsKept(split, "oh.inner"), std::make_pair(1, 0));
}

TEST(InstructionModel, ATwoIterationLoopWhoseIndexArithmeticDoesNotFoldIsKept)
{
    // i.inner.outer around a DSP loop of one step: the DSP counter is 0 in that step, so 4 is
    // factored out of the operands' offsets and nothing of i.inner.outer is multiplied; GCC
    // keeps the loop (size 25, 29 unrolled). Counting the DSP counter's coefficient 1 in the
    // common divisor found a multiplication folded away and unrolled it.
    EXPECT_EQ(twoTripLoopsKept(dataNest("two_trip_around_one_dsp_step"), "i.inner.outer"), std::make_pair(1, 1));
    // i.inner around two float k copies, one folded multiplication: one statement above the
    // largest body GCC unrolls (size 28, 30 unrolled), kept.
    EXPECT_EQ(twoTripLoopsKept(dataNest("two_trip_one_too_large"), "i.inner"), std::make_pair(1, 1));
}

TEST(InstructionModel, AFloatPointerReadAtOffsetZeroAfterItsIncrementIsCopied)
{
    // matmul_f32_tiled's k loop: A_SRAM by VLDM (one word, post-incremented), B_SRAM by VLDR at a
    // stride of 64 bytes, which VLDR cannot post-increment: one MOV per iteration (measured
    // 262,144 on qemu, one per MAC).
    EXPECT_EQ(featuresOf(example("matmul_f32_tiled"))[InsnFeature::StreamCopy], 64.0 * 64 * 64);
    // The naive matmul's B stride is 256 bytes: the load stays before `add.w r2, r2, #256`.
    EXPECT_EQ(featuresOf(example("matmul_f32_naive"))[InsnFeature::StreamCopy], 0);
    // Four copies of the i loop (k.inner unrolled around it): only the one reading at offset 0
    // copies its pointer, 1,152 iterations; the three at offsets 4, 8 and 12 bytes do not (4,608
    // if every copy were counted).
    const lower::LoopNest n = dataNest("float_stream_offsets");
    const std::shared_ptr<const hw::Target> target = test::builtinTarget("cortex-m7");
    const double copies = analysis::instructionFeatures(n, analysis::statementExecutions(n, *target))[InsnFeature::StreamCopy];
    EXPECT_GE(copies, 1152);
    EXPECT_LT(copies, 2 * 1152);
}

TEST(InstructionModel, AGuardThatIsAConstantInEveryCopyCostsNothing)
{
    // 0 <= ow*2 + s - 1 in the unrolled ow and s copies: true in 11 copies, false in one (its code
    // is dropped). No check, no flag, and the accumulators stay in registers across the c loop:
    // stored once per output and r, not per MAC.
    const lower::LoopNest n = dataNest("constant_guard_copies");
    const std::shared_ptr<const hw::Target> target = test::builtinTarget("cortex-m7");
    const analysis::InsnFeatures f = analysis::instructionFeatures(n, analysis::statementExecutions(n, *target));
    EXPECT_EQ(f[InsnFeature::GuardFlag], 0);
    const double macs = static_cast<double>(analysis::analyze(n, *target).macs);
    EXPECT_LT(f[InsnFeature::Store], macs / 8);
}

TEST(InstructionModel, DspOperandsThatDoNotChangeInTheLoopAreTakenOutOfIt)
{
    const std::shared_ptr<const hw::Target> target = test::builtinTarget("cortex-m7");
    auto features = [&](const std::string& name) {
        const lower::LoopNest n = dataNest(name);
        return analysis::instructionFeatures(n, analysis::statementExecutions(n, *target));
    };
    // B's pairs (two PKHBT each) once per entry of the i loop: 4 j.outer x 3 j.inner x 4 k.outer
    // copies, not once per SMLAD pair (2,304).
    const analysis::InsnFeatures hoisted = features("dsp_invariant_hoisted");
    EXPECT_EQ(hoisted[InsnFeature::DspPack], 4 * 3 * 4 * 2);
    EXPECT_EQ(hoisted[InsnFeature::Smlad], 2304);
    // Behind a guard inside the loop: packed again at every execution, two per SMLAD pair.
    const analysis::InsnFeatures guarded = features("dsp_invariant_guarded");
    EXPECT_GT(guarded[InsnFeature::Smlad], 0);
    EXPECT_EQ(guarded[InsnFeature::DspPack], guarded[InsnFeature::Smlad]);
}

TEST(InstructionModel, OperandsThatGuardedCopiesShareBeyondTheRegistersAreSpilled)
{
    // The search's conv2d_int8 point (tests/data/instructions): 64 copies (oh.inner x k.inner)
    // inside the ow.inner loop, each oh copy behind its padding guard. F's packed pairs (two
    // registers per k copy) are shared by the 8 oh copies and stay live across them: 16 registers
    // beside the loop's own 6 (its pointers and guard expression, the counter, two temporaries),
    // 8 beyond the 14. The group goes to the stack whole, each register reloaded for each oh
    // copy: 128 stack accesses per iteration, 2,304 iterations (measured: 74 reloads and 19
    // stores; counting only the 8 over, 64, left the total 18.3% low, the group 7.1%).
    // The two padding checks of oh that do not change in the loop (GuardValuesComputedBefore
    // TheLoopHoldRegisters) add a reload each per iteration.
    const analysis::InsnFeatures spilled = searchFound("search_conv2d_int8_dsp_2");
    EXPECT_EQ(spilled[InsnFeature::SpillReload], 16.0 * 8 * 2304 + 2.0 * 2304);
    EXPECT_EQ(spilled[InsnFeature::Spill], 0);
    // The 2x2 DSP block of dense_int8_dsp shares W's and x's pairs the same way, in one basic
    // block: GCC's scheduler interleaves the copies and nothing is spilled (M7 profile).
    const analysis::InsnFeatures block = featuresOf(example("dense_int8_dsp"));
    EXPECT_EQ(block[InsnFeature::SpillReload], 0);
    EXPECT_EQ(block[InsnFeature::Spill], 0);
}

TEST(InstructionModel, ValuesMoreThanTwoCopiesShareStayLiveAndGoToTheStackAsAGroup)
{
    // The search's conv2d_int8 pick (tests/data/instructions): 16 oh copies x 4 k copies in the
    // ow loop, no guard between them. F's packed pairs (two registers per k copy) are shared by
    // the 16 oh copies, which stay in order: 8 registers live across them, beside the loop's own.
    // Once over, the group goes to the stack whole: each pair reloaded at each of its 16 uses,
    // 128 reloads per iteration, 2,304 iterations (measured: 127 stack accesses per iteration).
    // (Plus a reload per iteration for each padding check computed before the loop, as above:
    // 2 here, 1 in the conv2d_s2_int8 pick.)
    const analysis::InsnFeatures conv = searchFound("search_conv2d_int8_dsp_5");
    EXPECT_EQ(conv[InsnFeature::SpillReload], 8.0 * 16 * 2304 + 2.0 * 2304);
    // conv2d_s2_int8 the same way with 16 (ow, oh) copies: 1,152 iterations of the oh.outer loop.
    const analysis::InsnFeatures s2 = searchFound("search_conv2d_s2_int8_tiled_1");
    EXPECT_EQ(s2[InsnFeature::SpillReload], 8.0 * 16 * 1152 + 1.0 * 1152);
    // Two copies keep shared values live too when each copy is large (more than 8 copies inside):
    // the conv2d_s2_int8 pick's 2 k copies of 8 oh x 3 r copies each. I's values do not depend on
    // k: 24 offsets of 2 unpacked halves, 48 registers, spilled whole, each stored once and
    // reloaded for the second k copy: 96 accesses per iteration, 1,504 iterations (measured: 183).
    const analysis::InsnFeatures large = searchFound("search_conv2d_s2_int8_tiled_2");
    EXPECT_EQ(large[InsnFeature::SpillReload], 48.0 * 2 * 1504);
    // Plain int16 words shared by 4 b copies: loads and nothing else, the copies interleave and
    // nothing is spilled (measured: no stack access in the loop).
    const analysis::InsnFeatures words = searchFound("search_dense_int16_dsp_1");
    EXPECT_EQ(words[InsnFeature::SpillReload], 0);
    EXPECT_EQ(words[InsnFeature::Spill], 0);
}

TEST(InstructionModel, SpilledFloatAccumulatorsAreReloadedAndStoredAtEachUpdateSite)
{
    // The search's matmul_f32 pick: an 8x4 block of float accumulators (i.inner x j.inner) and
    // 2 k copies between them in the k.outer loop, 4,096 iterations. Against s0-s31: 32
    // accumulators, 2 temporaries and A's 16 values (8 i x 2 k, live across the 4 j copies) are
    // 18 over. The accumulators are the cheapest to spill, and each spilled one is reloaded and
    // stored at both k copies: 2 spill events (a reload and a store each) per accumulator per
    // iteration (measured: 14 spilled, 57 stack accesses per iteration).
    const analysis::InsnFeatures f = searchFound("search_matmul_f32_1");
    EXPECT_EQ(f[InsnFeature::Spill], 18.0 * 2 * 4096);
    // The steps of a DSP loop written out inside copies of the accumulator are sites of their
    // own: GCC runs one step for every copy, then the next (the search's dense_int8 pick: 8
    // accumulators, o.inner x b, and 2 DSP words in the i.outer loop, 1,024 iterations; 3 over
    // the registers, each reloaded and stored at both words; measured: 5 accumulators on the
    // stack, 24.5 accesses per iteration).
    EXPECT_EQ(searchFound("search_dense_int8_dsp_2")[InsnFeature::Spill], 3.0 * 2 * 1024);
}

TEST(InstructionModel, TheLanesAccumulatorsOfADspLoopHoldRegisters)
{
    // depthwise_conv_int8_tflite_dsp: one SMLABB/SMLATT per lane, each of the 4 lanes of the 2
    // w.inner copies its own accumulator, 8 registers live through the 3x3 taps unrolled in the
    // w.outer loop (4,096 iterations), beside the loop's 5 (two pointers, the counter, two
    // temporaries) and F's 2 shared registers: 1 over the 14, and one more for the word the M7
    // holds ahead in the guarded taps (OnTheDualIssueM7AGuardedInt8BodyHoldsOneWordAhead). The
    // accumulators are the cheapest to spill, each spilled one reloaded and stored at each of
    // the 9 (r, s) sites. Left out of the registers before, nothing was spilled and the total
    // was predicted 8.2% low on the M7 (then 3.5%, now +5.3%; measured: 100 stack accesses per
    // iteration, so the count is still a floor).
    const analysis::InsnFeatures f = featuresOf(example("depthwise_conv_int8_tflite_dsp"));
    EXPECT_EQ(f[InsnFeature::Spill], 2.0 * 9 * 4096);
}

TEST(InstructionModel, AddressesOfInvariantLoadsLeftInTheLoopHoldRegisters)
{
    // depthwise_conv_int8_tflite_dsp loads F's word of each of its 9 taps under the taps' padding
    // guards, in every iteration of the w.outer loop (a guarded load is not taken out). The
    // address does not change in the loop, and GCC's tree-level invariant motion takes its
    // computation out whatever the registers: 9 more values live (24 against 14), the
    // addresses the cheapest to keep on the stack, each reloaded before its load (M7 profile:
    // `ldr r6, [sp, #120]; ldr r2, [r6]` at every tap): a stack reload for each of F's loads in
    // the loop, 9 per iteration over 4,096 iterations less the 1,520 the padding guards skip at
    // the edges; the registers still over are accumulators, as before. (With the two
    // checks of h + r - 1 computed before the loop, GuardValuesComputedBeforeTheLoopHoldRegisters,
    // two reloads more per iteration; and with I's words that the two w.inner copies' taps share,
    // w.inner + s the same, held across the copies between and spilled, coincidentOperand, four
    // more.)
    const analysis::InsnFeatures f = featuresOf(example("depthwise_conv_int8_tflite_dsp"));
    EXPECT_EQ(f[InsnFeature::SpillReload], 9.0 * 4096 - 1520 + 2.0 * 4096 + 4.0 * 4096);
    EXPECT_EQ(f[InsnFeature::Spill], 2.0 * 9 * 4096);
    // dense_int8_dsp's loads all move with its loop: no address is taken out.
    EXPECT_EQ(featuresOf(example("dense_int8_dsp"))[InsnFeature::SpillReload], 0);
}

TEST(InstructionModel, AStridedCacheWithARunTimeOriginDividesInEveryAccessOnTheM7)
{
    // random #100037: I cached at n (double-buffered) for a stride-2 convolution, its rows'
    // origin computed at run time, so every load of it divides: ls_floordiv(s + ow * 2 -
    // I_SRAM_o2 - 1, 2), in each of the 12 unrolled (r, c) copies of the ow loop. GCC tuned for
    // the M7 makes the signed division `cmp; it lt; addlt; add asr`, two instructions more than
    // the M4's `add lsr #31; add asr` (qemu profiles of both): one index_op event more per load,
    // 3,808 loads (the guards skip the padding), on the M7 only.
    auto o = sched::openSchedule(test::sourceDir() + "/tests/data/analysis/strided_origin_division.sched.yaml",
                                 [](const std::string& n, const std::string& d) { return hw::resolveTarget(n, d); });
    ASSERT_TRUE(o.ok()) << o.errorText();
    const analysis::InsnFeatures m7 = featuresOf(o->program);
    sched::ApplyResult m4 = sched::replay(o->program.kernel, test::builtinTarget("cortex-m4"), o->program.trace);
    ASSERT_TRUE(m4.ok()) << m4.error().str();
    const analysis::InsnFeatures f4 = featuresOf(m4.program());
    EXPECT_EQ(m7[InsnFeature::IndexOp] - f4[InsnFeature::IndexOp], 3808.0);
    // A cache with a run-time origin that keeps every row (step 1) divides nothing: the same on
    // both cores (conv2d_s2_int8_tiled: I_SRAM[...][... - I_SRAM_o1 * 256 - 264]).
    const sched::Program tiled = example("conv2d_s2_int8_tiled");
    sched::ApplyResult tiled4 = sched::replay(tiled.kernel, test::builtinTarget("cortex-m4"), tiled.trace);
    ASSERT_TRUE(tiled4.ok()) << tiled4.error().str();
    EXPECT_EQ(featuresOf(tiled)[InsnFeature::IndexOp], featuresOf(tiled4.program())[InsnFeature::IndexOp]);
}

TEST(InstructionModel, AGuardThatFailsOnlyInTheLastIterationIsAnExitOfTheLoop)
{
    // matmul_int8's i split by 5, the i.inner loop innermost, its whole body under the partial
    // tile's guard. With 24 rows the guard i.outer * 5 + i.inner <= 23 can fail only where
    // i.inner is 4, the loop's last iteration: GCC makes the check an exit of the loop, the C_acc
    // and A accesses run in every iteration it makes and their pointers advance by post-indexed
    // addressing, and the check keeps a counter of its own (arm-none-eabi-gcc 12 -O2: `cmp r3, lr;
    // add.w r3, r3, #1; beq` to the exit, `str.w r4, [r6], #4`; qemu: 64,702 instructions, 64,684
    // predicted). With 22 rows it can fail from the third iteration on: GCC branches past the body
    // to the latch, and each pointer is advanced by an add of its own (`add.w r2, r2, #4`).
    auto open = [](const std::string& name) {
        auto o = sched::openSchedule(test::sourceDir() + "/tests/data/analysis/" + name + ".sched.yaml",
                                     [](const std::string& n, const std::string& d) { return hw::resolveTarget(n, d); });
        EXPECT_TRUE(o.ok()) << o.errorText();
        return o.ok() ? featuresOf(o->program) : analysis::InsnFeatures{};
    };
    const analysis::InsnFeatures exit = open("exit_guard");
    const analysis::InsnFeatures skip = open("exit_guard_short");
    // The guarded loops: zeroing C_acc (60 entries of 5), the MACs (960 entries of 5: C_acc and
    // A), the write-back (60 entries of 5: C_acc and C), 5,400 iterations, 10,500 pointer steps.
    // C's int32 elements lie 12 apart: GCC stores them from a scaled counter in both cases
    // (`str r3, [r10, r2, lsl #2]; adds r2, r2, #12`), one loop_counter event per write-back
    // iteration in place of a pointer step; the other 10,200 advance pointers.
    EXPECT_EQ(skip[InsnFeature::WordStream], 10200.0);
    EXPECT_EQ(exit[InsnFeature::WordStream], 0.0);
    EXPECT_EQ(exit[InsnFeature::FoldedStream] - skip[InsnFeature::FoldedStream], 10200.0);
    EXPECT_EQ(skip[InsnFeature::LoopCounter], exit[InsnFeature::LoopCounter]);
    EXPECT_EQ(skip[InsnFeature::LoopCounter], 300.0);
    EXPECT_EQ(exit[InsnFeature::GuardStream] - skip[InsnFeature::GuardStream], 5400.0);
    // Checked as often either way.
    EXPECT_EQ(exit[InsnFeature::Guard], skip[InsnFeature::Guard]);
}

TEST(InstructionModel, GuardValuesComputedBeforeTheLoopHoldRegisters)
{
    // depthwise_conv_int8_mult_tflite_unrolled: the padding guards of its unrolled 3x3 taps do
    // not change in the c loop (2,048 iterations); their values are computed before it and
    // compared in every iteration, one register per copy that checks one (h + r - 1 for r = 0
    // and 2, w + s - 1 for s = 0 and 2): 4 beside the loop's 11 (6 pointers, 2 accumulators,
    // the counter and two temporaries), and the 3 bases of the second channel's bias, multiplier
    // and shift (PerChannelParametersAtASmallStrideTakeABaseRegisterPerCopy): 18, four over the 14,
    // each reloaded in every iteration (M7 profile: `ldr r3, [sp, #28]; cmp r3, #15` at the taps,
    // `ldr r7, [sp, #48]` before `ldr.w r8, [r7, r4, lsl #3]`). One over before the bases counted.
    const analysis::InsnFeatures f = featuresOf(example("depthwise_conv_int8_mult_tflite_unrolled"));
    EXPECT_EQ(f[InsnFeature::SpillReload], 4.0 * 2048);
}

TEST(InstructionModel, InterleavedCopiesKeepTheOperandTheyReuseLive)
{
    // A 4 x 2 block of dense_int8 (4 b copies, 2 o copies, 8 accumulators) in the i.outer loop:
    // written with b whole and unrolled inside o.inner (search_dense_int8_dsp_2) the copies stay
    // in order and W's packed pairs, reused by the b copies, count as shared values; written with
    // b split and b.outer unrolled outside o.inner (search_dense_int8_dsp_3) the copies of each
    // b.outer interleave, and the pairs one operand's copies reuse still take registers while the
    // other's are worked through (the smaller set: x's pairs, 2 registers per b.inner copy, or W's
    // per o.inner copy). Both are the same code (M7: 101,710 and 101,678 instructions) and now the
    // same prediction; the split one was 23.9% low.
    const analysis::InsnFeatures whole = searchFound("search_dense_int8_dsp_2");
    const analysis::InsnFeatures split = searchFound("search_dense_int8_dsp_3");
    EXPECT_GT(split[InsnFeature::Spill] + split[InsnFeature::SpillReload], 0);
    auto total = [](const analysis::InsnFeatures& f) {
        return f[InsnFeature::Spill] * 2 + f[InsnFeature::SpillReload];
    };
    EXPECT_EQ(total(split), total(whole));
}

TEST(InstructionModel, GuardedDspAccumulatorsAreCountedInRegistersWithAFlag)
{
    // The search's conv2d_int8 point from conv2d_int8_dsp (tests/data/instructions): oh (16) and
    // k.inner (4) unrolled inside the r loop, 64 accumulators in memory, each update behind its
    // oh copy's padding guard. GCC leaves them in memory (they may trap: the index reads ow):
    // qemu's profile of the M7 image stores 139,520 words, 4,096 of them the bias broadcast and
    // the others one per update, and makes 656k stack accesses for the DSP operands every copy
    // shares, reloaded at each use. The
    // model counts the elements in registers with a flag each (128 registers, spilled): that
    // count stands in for the operands' spills it does not foresee in this body (-5.2% on the
    // M7; in memory, as for plain accumulators, -27.3%). Left so until the shared operands are
    // counted as GCC spills them here.
    const analysis::InsnFeatures f = searchFound("search_conv2d_int8_dsp_4");
    const double updates = f[InsnFeature::Smlad] / 2;  // one DSP step: two SMLADs into one accumulator
    EXPECT_EQ(f[InsnFeature::Alu], updates);           // the flag set at each update
    EXPECT_LT(f[InsnFeature::Load], updates);          // not loaded at each update
    EXPECT_GT(f[InsnFeature::Spill], 0);               // 128 registers do not fit
}

TEST(InstructionModel, ADspLoopsWordLoadsAdvanceTheirPointersPostIndexed)
{
    // dense_int16 (random #100171): the i.inner DSP loop, 4 steps a run and kept, loads a word of
    // X and one of Wt per step. GCC advances both pointers by post-indexed loads and ends the
    // loop on a compare of one of them: `ldr.w r1, [r3], #4; ldr.w r5, [r2], #4; cmp; smlad;
    // bne`, 5 instructions per step, none for the pointers (measured on qemu's M7 and M4; the
    // model used to count one add per step: +23.7%, now +9.7%).
    const analysis::InsnFeatures f = dataFeatures("analysis", "dsp_words_dense_int16");
    EXPECT_EQ(f[InsnFeature::Smlad], 4096);
    EXPECT_EQ(f[InsnFeature::DspWord], 2 * 4096);
    EXPECT_EQ(f[InsnFeature::WordStream], 0);
    EXPECT_EQ(f[InsnFeature::FoldedStream], 2 * 4096 + 128);  // 128 in the loops outside it
    // The same in a few unrolled copies (random #100071: the 4-step loop in 3 o.inner copies,
    // each copy's X and Wt words post-indexed on qemu's M7; +21.1% -> +8.3%): 2 folded pointers
    // per step, 256 steps; the 12 word_stream events are the output loop's.
    const analysis::InsnFeatures copies = dataFeatures("analysis", "dsp_words_in_copies");
    EXPECT_EQ(copies[InsnFeature::Smlad], 256);
    EXPECT_EQ(copies[InsnFeature::FoldedStream], 2 * 256);
    EXPECT_EQ(copies[InsnFeature::WordStream], 12);
}

TEST(InstructionModel, ADspWordWithAnOriginComputedOutsideTheLoopOrInManyCopiesTakesARegisterOffset)
{
    // conv2d_s2_int8_tiled: the c loop's I word is read from a ping-pong band whose origin is
    // computed where the cache is allocated; GCC adds the step's offset to it in a register
    // (`add r1, sl, r6; ldr r1, [r1, fp]`): one word_stream per step, 70,688 (measured on qemu's
    // M7: one add per step). F's bytes, one pointer advanced per step, fold their increment.
    const analysis::InsnFeatures f = featuresOf(example("conv2d_s2_int8_tiled"));
    EXPECT_EQ(f[InsnFeature::WordStream], 70688);
    EXPECT_EQ(f[InsnFeature::DspWord], 70688);
    // The same where the DSP loop is one of many unrolled copies: dense_int8_dsp's search pick,
    // b (4) and o.inner (16) unrolled around a two-step loop, 64 copies whose X and Wt words GCC
    // reads at a shared counter (`ldr.w r3, [r8, r0]; ldr.w ip, [r8, r2]`): one word_stream per
    // step, 16,384 (the post-indexed count predicted it -11.2%, this one -4.5%).
    const analysis::InsnFeatures copies = searchFound("search_dense_int8_dsp_1");
    EXPECT_EQ(copies[InsnFeature::DspWord], 2 * 16384);
    EXPECT_EQ(copies[InsnFeature::WordStream], 16384);
}

TEST(InstructionModel, APingPongCopyStartsWhereItsHalfLies)
{
    // X[0, 5t .. 5t+4] copied into the half t & 1 of `int16_t X_SRAM[2][5]`: the source and the
    // destination start 10t and 10(t & 1) bytes past a word, both 2 bytes off in the odd tiles,
    // which newlib's memcpy copies with a halfword first and then by words. The count used to
    // take every half at offset 0, as if the odd tiles went by bytes (random #700015, the same
    // copy: predicted 10,552 instructions, measured 10,848; now 10,840).
    const analysis::InsnFeatures f = dataFeatures("analysis", "pingpong_odd_half");
    int64_t expected = 0;
    for (int t = 0; t < 26; ++t) {                      // i.outer: 25 tiles of 5 and one of 3
        const int64_t bytes = (t < 25 ? 5 : 3) * 2;
        const int mod = static_cast<int>((10 * t) % 4); // = 10 * (t & 1) % 4, the half's
        expected += analysis::memcpyInstructions(bytes, mod, mod);
    }
    EXPECT_EQ(f[InsnFeature::Memcpy], 8 * expected);    // per o.outer (8)
    EXPECT_NE(analysis::memcpyInstructions(10, 2, 2), analysis::memcpyInstructions(10, 2, 0));
}

TEST(InstructionModel, LoadsTakenOutOfTheLoopBeyondTheRegistersAreReloaded)
{
    // matmul_int8, i.inner (8) written out and k (64) unrolled inside the j loop: the 512 values
    // of A do not change with j and are taken out of it; beside the loop's 8 accumulators, its
    // two pointers, counter and two temporaries (13 registers) 511 of them are reloaded from the
    // stack in each of the 512 iterations (measured: a reload per MAC).
    const analysis::InsnFeatures matmul = searchFound("search_matmul_int8_dsp_2");
    EXPECT_EQ(matmul[InsnFeature::SpillReload], (512.0 + 13 - 14) * 512);
    EXPECT_EQ(matmul[InsnFeature::Spill], 0);
    // conv2d_int8 with ow (16) and s (3) unrolled inside the k loop: I[ow + s] takes 18 values,
    // not 48. The accumulators O[k][ow] the s copies share change with k: not live across it.
    const analysis::InsnFeatures conv = searchFound("search_conv2d_int8_dsp_3");
    EXPECT_GT(conv[InsnFeature::SpillReload], 0);
    EXPECT_EQ(conv[InsnFeature::Spill], 0);
    EXPECT_EQ(std::fmod(conv[InsnFeature::SpillReload], 18.0 + 5 - 14), 0);  // 9 reloads per iteration
}

TEST(InstructionModel, UnrolledCopiesShareTheLoadsOfTheSameElement)
{
    // matmul_int8_tiled: k loop, 2 x 2 unrolled register block: the lowered nest loads B[k, j]
    // once per (i, j) copy, the compiled code once per j (the i copies read the same element).
    const analysis::InsnFeatures f = featuresOf(example("matmul_int8_tiled"));
    const double macs = 64.0 * 64 * 64;
    EXPECT_EQ(f[InsnFeature::Load], macs);     // per k: A twice, B twice, for 4 MACs
    EXPECT_EQ(f[InsnFeature::Alu], macs / 2);  // the offset of each A element
    EXPECT_EQ(f[InsnFeature::Mla], macs);
}

TEST(InstructionModel, FollowsTheDspPathTheGeneratorTakes)
{
    const analysis::InsnFeatures dsp = featuresOf(example("matmul_int8_dsp"));
    const double macs = 64.0 * 64 * 64;
    EXPECT_EQ(dsp[InsnFeature::Smlad], macs / 2);  // two MACs per SMLAD
    EXPECT_EQ(dsp[InsnFeature::Mla], 0);
    // A contiguous along k: one word per 4 lanes, shared by the two j copies, unpacked twice.
    EXPECT_EQ(dsp[InsnFeature::DspWord], macs / 4 / 2);
    EXPECT_EQ(dsp[InsnFeature::DspUnpack], 2 * dsp[InsnFeature::DspWord]);
    // B strided along k: four byte loads and two PKHBT per 4 lanes, per j copy.
    EXPECT_EQ(dsp[InsnFeature::DspPack], macs / 4 / 2 * 2);
    // The same schedule on a core without the DSP extension is plain C.
    auto plain = std::make_shared<hw::Target>(*test::builtinTarget("cortex-m7"));
    plain->compute.dsp = false;
    const sched::Program p = example("matmul_int8_dsp");
    auto r = sched::replay(p.kernel, plain, p.trace);
    ASSERT_TRUE(r.ok());
    const analysis::InsnFeatures c = featuresOf(r.program());
    EXPECT_EQ(c[InsnFeature::Smlad], 0);
    EXPECT_EQ(c[InsnFeature::Mla], macs);
}

TEST(InstructionModel, CountsTheHookCallsRowsAndMemcpyOfEveryCopy)
{
    // matmul_int8_tiled fills A (16 x 64 bytes) and B (64 x 16 bytes) per (i.outer, j.outer):
    // 16 pairs of calls. A's 16 rows are whole rows of A, contiguous in DRAM and in SRAM: one
    // row of 1024 bytes; B's are 64 rows of 16 aligned bytes.
    const analysis::InsnFeatures f = featuresOf(example("matmul_int8_tiled"));
    EXPECT_EQ(f[InsnFeature::CopyCall], 32);
    EXPECT_EQ(f[InsnFeature::HookCall], 32);
    EXPECT_EQ(f[InsnFeature::HookRow], 16 * (1 + 64));
    EXPECT_EQ(f[InsnFeature::Memcpy], 16 * (analysis::memcpyInstructions(1024, 0, 0) + 64 * analysis::memcpyInstructions(16, 0, 0)));
    EXPECT_EQ(f[InsnFeature::WaitCall], 32);
}

TEST(InstructionModel, MemcpyFollowsNewlibsWordAndByteLoops)
{
    using analysis::memcpyInstructions;
    // Aligned: entry, the 64/16/4-byte loops' tests, no tail.
    EXPECT_EQ(memcpyInstructions(0, 0, 0), 14);
    EXPECT_EQ(memcpyInstructions(4, 0, 0), 18);
    EXPECT_EQ(memcpyInstructions(64, 0, 0), 14 + 34);
    EXPECT_EQ(memcpyInstructions(80, 0, 0), 14 + 34 + 10);
    // A tail of 1..3 bytes: the IT block, then a halfword.
    EXPECT_EQ(memcpyInstructions(1, 0, 0), 19);
    EXPECT_EQ(memcpyInstructions(3, 0, 0), 21);
    // Misaligned and short: one byte at a time.
    EXPECT_EQ(memcpyInstructions(7, 1, 0), 4 + 2 + 2 + 4 * 4 + 8);
    // Misaligned and long: the word loop after aligning the destination (or with one side aligned).
    EXPECT_GT(memcpyInstructions(64, 1, 1), memcpyInstructions(64, 0, 0));
    EXPECT_EQ(memcpyInstructions(64, 0, 2), memcpyInstructions(64, 0, 0) + 2 + 2);
    // Each further 64 bytes: one more turn of the 16-word loop (32 loads and stores, subs, bcs).
    for (int n = 0; n < 300; ++n)
        EXPECT_EQ(memcpyInstructions(n + 64, 0, 0), memcpyInstructions(n, 0, 0) + 34) << n;
}

TEST(InstructionModel, MemsetFollowsNewlibsBlockWordAndByteLoops)
{
    using analysis::memsetInstructions;
    // Aligned: entry and the tests of the 16-byte, word and byte loops (96 bytes: 72, the count
    // qemu gives for the harness's smoke kernel's calls, test_harness_files.cpp).
    EXPECT_EQ(memsetInstructions(96, 0), 72);
    EXPECT_EQ(memsetInstructions(0, 0), 3 + 3 + 2 + 2);
    EXPECT_EQ(memsetInstructions(4, 0), 3 + 3 + 2 + 5 + 3 + 4 + 3 + 1 + 2);
    // Each further 16 bytes: one more turn of the four-store loop (4 STR, add, cmp, bne).
    for (int n = 16; n < 300; ++n)
        EXPECT_EQ(memsetInstructions(n + 16, 0), memsetInstructions(n, 0) + 7) << n;
    // A start off a word: bytes one at a time up to it, then the same loops.
    EXPECT_EQ(memsetInstructions(96, 1), 3 + 3 + 3 + 3 * 3 + 2 * 2 + (memsetInstructions(93, 0) - 6));
    EXPECT_EQ(memsetInstructions(2, 1), 3 + 3 + 3 + 5 * 2 + 1);
}

TEST(InstructionModel, SaysWhichZeroingAndCopyingLoopsBecomeLibraryCalls)
{
    // The loops GCC distributes into memset and memcpy calls, and those in runs too short for a
    // call, as analyze --loops and the loop nest's badges name them; the loops of a nest share
    // the decision of its outermost one (one call for the 12 x 12 floats).
    auto decisions = [](const std::string& name) {
        auto o = sched::openSchedule(test::sourceDir() + "/tests/data/analysis/" + name + ".sched.yaml",
                                     [](const std::string& n, const std::string& d) { return hw::resolveTarget(n, d); });
        EXPECT_TRUE(o.ok()) << o.errorText();
        std::vector<std::string> out;
        if (!o.ok())
            return out;
        const lower::LoopNest nest = lower::lower(o->program);
        for (const analysis::LoopDecision& d : analysis::loopDecisions(nest, *o->program.target))
            out.push_back(d.name + " " + analysis::compiledName(d.compiled));
        return out;
    };
    using V = std::vector<std::string>;
    EXPECT_EQ(decisions("library_merged_runs"), (V{"i memset", "j memset", "k loop", "i loop", "j loop", "i memcpy", "j memcpy"}));
    const V shortRuns = decisions("library_short_runs");
    EXPECT_NE(std::find(shortRuns.begin(), shortRuns.end(), "j.inner zeroed in line"), shortRuns.end());
    EXPECT_NE(std::find(shortRuns.begin(), shortRuns.end(), "j.inner copied in line"), shortRuns.end());
}

namespace {

/// tests/data/analysis/<name>.sched.yaml on its target (a failure, and nothing, if it does not open).
std::optional<sched::Program> analysisFixture(const std::string& name)
{
    auto o = sched::openSchedule(test::sourceDir() + "/tests/data/analysis/" + name + ".sched.yaml",
                                 [](const std::string& n, const std::string& d) { return hw::resolveTarget(n, d); });
    if (!o.ok()) {
        ADD_FAILURE() << o.errorText();
        return std::nullopt;
    }
    return o->program;
}

/// How the model expects GCC to compile each loop named `loop` of the fixture, in the C's order:
/// "<iterations> <compiled>".
std::vector<std::string> loopsNamed(const std::string& name, const std::string& loop)
{
    const std::optional<sched::Program> p = analysisFixture(name);
    if (!p)
        return {};
    const lower::LoopNest nest = lower::lower(*p);
    std::vector<std::string> out;
    for (const analysis::LoopDecision& d : analysis::loopDecisions(nest, *p->target))
        if (d.name == loop)
            out.push_back(std::to_string(d.trips) + " " + analysis::compiledName(d.compiled));
    return out;
}

/// The first of loopsNamed ("none" if there is none).
std::string firstLoopNamed(const std::string& name, const std::string& loop)
{
    const std::vector<std::string> all = loopsNamed(name, loop);
    return all.empty() ? std::string("none") : all.front();
}

/// The instructions the model predicts for the fixture's exported C (kernel and copies; -1 if it does not open).
double predictedFor(const std::string& name)
{
    const std::optional<sched::Program> p = analysisFixture(name);
    if (!p)
        return -1;
    const lower::LoopNest nest = lower::lower(*p);
    return static_cast<double>(analysis::analyze(nest, *p->target).instructions.predicted);
}

} // namespace

TEST(InstructionModel, ShortBiasBroadcastsAreUnrolledByTheCompiler)
{
    // A loop that only broadcasts a bias element into an accumulator in memory: GCC -O2 unrolls
    // it completely up to 5 iterations, and up to 8 where every store's address is a constant
    // (-fopt-info-loop-optimized on calibrate's random schedules; the model kept all of them).
    // The first loop of that name in the C's order is the broadcast.
    EXPECT_EQ(firstLoopNamed("broadcast_bias_4", "b"), "4 unrolled by the compiler");          // Y_acc[o * 4 + b] = bias[o]
    EXPECT_EQ(firstLoopNamed("broadcast_bias_6_constant", "h"), "6 unrolled by the compiler"); // O_acc[h] = bias[k]
    EXPECT_EQ(firstLoopNamed("broadcast_bias_6_kept", "h"), "6 loop");                         // O_acc[c * 6 + h] = bias[c]
}

TEST(InstructionModel, TwoIterationLoopsAroundSmallKeptLoopsAreUnrolledByTheCompiler)
{
    // GCC's size estimate counts a loop inside once, with its counter and exit: a two-iteration
    // loop around small kept loops is unrolled like a small innermost one (cunroll's
    // `-fdump-tree-cunroll-details` on calibrate's random schedules; the model kept every loop
    // with a kept loop inside). random #342's k.outer around the 8 float MACs of k.inner:
    using V = std::vector<std::string>;
    EXPECT_EQ(loopsNamed("two_around_kept_matmul_f32", "k.outer"), V{"2 unrolled by the compiler"});
    // random #91: c.inner around the bias broadcast's w and h loops (GCC: size 21, 5 folded)
    // is unrolled; c.inner around the multiply-accumulate's loops inside the kept r loop (size
    // 67) and c.inner around the requantizing store's after it (size 54) are kept.
    EXPECT_EQ(loopsNamed("two_around_kept_depthwise", "c.inner"), (V{"2 unrolled by the compiler", "2 loop", "2 loop"}));
    // The copies of k.outer index A_SRAM and B at constant offsets: measured on qemu's Cortex-M7,
    // 26,047 instructions; predicted 30,858 (+18.5%) with k.outer kept, 27,402 (+5.2%) now.
    EXPECT_NEAR(predictedFor("two_around_kept_matmul_f32"), 26047.0, 0.1 * 26047.0);
}

TEST(InstructionModel, TwoStepDspLoopsWhoseStrideFoldsAwayAreUnrolledByTheCompiler)
{
    // Two DSP loops of two steps and the same body size (16): GCC unrolls the one whose strided F
    // operand multiplies its counter (`c_inner * 8`, folded away in the copies; cunroll's dump: size
    // 20, 5 folded; a register accumulator) and keeps the one of contiguous operands, whose size
    // comes from an accumulator in memory (size 19, 4 folded).
    using V = std::vector<std::string>;
    const V strided = loopsNamed("dsp_two_steps_strided", "c.inner");
    ASSERT_FALSE(strided.empty());
    EXPECT_EQ(strided, V(strided.size(), "2 unrolled by the compiler"));
    EXPECT_EQ(firstLoopNamed("dsp_two_steps_contiguous", "i.inner"), "2 loop");
    // random #117 measured on qemu's Cortex-M7: 12,021 instructions; predicted 21,040 (+75%)
    // with its eight copies of c.inner kept, 11,856 (-1.4%) unrolled.
    EXPECT_NEAR(predictedFor("dsp_two_steps_strided"), 12021.0, 0.1 * 12021.0);
}

TEST(InstructionModel, CopiesWhoseGuardsAreOneConditionTestItOnce)
{
    // random #300231 (matmul_f32, j split by 3 of 16, j.inner and i.inner written out inside the
    // kept k.inner loop): `j_outer * 3 + j_inner <= 15` holds always in the j.inner copy 0, and
    // in the copies 1 and 2 it is j_outer <= 4 both times. GCC tests it once per iteration of
    // k.inner in each i.inner copy and knows it in the other copy: `cmp r2, #5; beq`, 2,304 times
    // on qemu's Cortex-M7 (576 per i.inner copy). The model tested it in both copies (4,608).
    const std::optional<sched::Program> p = analysisFixture("guards_one_condition");
    ASSERT_TRUE(p);
    EXPECT_DOUBLE_EQ(featuresOf(*p)[InsnFeature::GuardFlag], 2304);
    // Measured 52,543 instructions; predicted 59,017 (+12.3%) before, 54,255 (+3.3%) after.
    // Since session 24 its accumulators count in memory, as GCC keeps them (C_acc's index reads
    // i_outer and j_outer: `vldr; vmul; vadd; vstr` at each update, the j.inner copy 0 too):
    // 57,942 (+10.3%), the model's k.inner iteration 23.2 instructions against about 21 in the
    // code (the loads and stores now as GCC's; the rest is loop and pointer overhead). Since
    // session 25 the exit guards of its loops beside float pointers have no induction variable
    // of their own (AnExitGuardBesideFloatPointersIsComparedOnAPointer): 55,062 (+4.8%).
    EXPECT_NEAR(predictedFor("guards_one_condition"), 52543.0, 0.1 * 52543.0);
}

TEST(InstructionModel, AnExitGuardBesideFloatPointersIsComparedOnAPointer)
{
    // random #700195 (matmul_f32, j split by 3 of 8, k by 5 of 24): the j.inner loops' bodies are
    // under j_outer * 3 + j_inner <= 7, which can fail only in their last iteration, and the
    // k.inner loop's under the k partial tile's guard: exits of the loops (exitGuards). Beside
    // integer pointers GCC keeps a counter for such an exit (AGuardThatFailsOnlyInTheLastIteration
    // IsAnExitOfTheLoop); beside float pointers only it compares a pointer at both exits, the
    // guard's against a bound the loop around advances (arm-none-eabi-gcc 12 -O2, M7: `cmp r1,
    // r4; beq` to the exit, `cmp r1, r0; bne` back, `vldmia r1!` and `vstmia r9!` in the body,
    // `adds r4, #32` once per k.inner iteration). No guard stream, and the guard's bound one
    // outer-stream step per entry of the loop instead of a value set up at it.
    const std::optional<sched::Program> p = analysisFixture("exit_guard_float");
    ASSERT_TRUE(p);
    const analysis::InsnFeatures f = featuresOf(*p);
    EXPECT_EQ(f[InsnFeature::GuardStream], 0.0);  // 4,944 before
    // Measured on qemu's Cortex-M7: 48,657 instructions; predicted 58,698 (+20.6%) with a guard
    // stream per iteration and the guard's value set up per entry, 52,266 (+7.4%) without.
    EXPECT_NEAR(predictedFor("exit_guard_float"), 48657.0, 0.08 * 48657.0);
}

TEST(InstructionModel, TwoIterationInnermostLoopsAreWeighedStatementByStatement)
{
    // GCC -O2 unrolls a two-iteration loop when 2/3 of the two copies' statements, less those
    // that fold away, are no more than the loop's (cunroll's size estimate). The model rebuilds
    // that estimate from the statements of the GIMPLE the C becomes; for these two loops it
    // matches `-fdump-tree-cunroll-details` (scripts/unroll_decisions.py --sizes) exactly.
    auto weighed = [](const std::string& name, const std::string& loop) {
        const std::optional<sched::Program> p = analysisFixture(name);
        if (!p)
            return std::string("none");
        const lower::LoopNest nest = lower::lower(*p);
        for (const analysis::LoopDecision& d : analysis::loopDecisions(nest, *p->target))
            if (d.name == loop && d.gccSize >= 0)
                return std::to_string(d.gccSize) + " " + std::to_string(d.gccFolded) + " " + analysis::compiledName(d.compiled);
        return std::string("none");
    };
    // random #397: i.inner around two b.inner copies of an int16 MAC into accumulators GCC keeps in
    // registers (invariant in i.inner), X through its pointer argument: size 18, 4 folded
    // (the counter, the down-counter and the exit test); 2/3 of 2 x 14 is 18: unrolled. The size
    // the model weighed before (16 with the accumulators' loads and stores, nothing folded)
    // kept it: 34,346 instructions predicted against 19,451 measured on qemu's Cortex-M7.
    EXPECT_EQ(weighed("two_innermost_unrolled", "i.inner"), "18 4 unrolled by the compiler");
    EXPECT_NEAR(predictedFor("two_innermost_unrolled"), 19451.0, 0.1 * 19451.0);
    // random #100102: i.inner around two j.inner copies whose C_acc element changes with i.inner
    // (a load, an add and a store each, and (j_outer * 2 + i_inner) * 2 for its index; A's
    // `+ 128` once for both): GCC's size 23, 5 folded, 2/3 of 2 x 18 is 24: kept. The model
    // unrolled it before: 20,860 predicted against 43,517 measured.
    EXPECT_EQ(weighed("two_innermost_kept", "i.inner"), "23 5 loop");
    EXPECT_NEAR(predictedFor("two_innermost_kept"), 43517.0, 0.1 * 43517.0);
}

TEST(InstructionModel, StridedIntegerAccessesAreAddressedFromACounter)
{
    // random #314: the innermost c loop (57,344 iterations) reads I at consecutive bytes and F's
    // int8 elements 8 bytes apart. GCC advances I's pointer by a pre-indexed load and reads F
    // through a counter with a scaled register offset, the counter also the loop's exit test:
    // `ldrsb r7, [r6, r3, lsl #3]; adds r3, r3, #1; ldrsb r2, [r0, #1]!; cmp r3, #16; add r2,
    // r2, #128; mla; bne`, 7 instructions where the model counted 6 (-13.0%).
    const analysis::InsnFeatures f = dataFeatures("analysis", "scaled_counter");
    const double iterations = 57344;
    EXPECT_EQ(f[InsnFeature::LoopCounter], iterations);
    EXPECT_EQ(f[InsnFeature::FoldedStream], 59264.0);  // I's pointer in the c loop, and 1,920 in the loops outside
    EXPECT_NEAR(predictedFor("scaled_counter"), 486817.0, 0.03 * 486817.0);
}

TEST(InstructionModel, AChannelsRequantizationValuesAreComputedOutsideTheLoopsWhereItDoesNotChange)
{
    // random #267: each output's requantization runs in the w loop around the c loop, its
    // channel k the same in every h and w iteration. GCC loads the multiplier and shift and
    // computes their shifts and masks in the k loop, 8 times, and per output runs `lsl; and;
    // smmlar; and; sub; add; asrs; add; mvn; qadd; ssat; strb` (measured 26,475 instructions on
    // qemu's M7): counted per output, the model predicted +21% once the scaled counter of its c
    // loop (F's elements 8 bytes apart) was counted.
    const analysis::InsnFeatures f = dataFeatures("analysis", "channel_out_of_loop");
    EXPECT_EQ(f[InsnFeature::Requantize], 384.0);
    EXPECT_EQ(f[InsnFeature::RequantizeChannel], 8.0);
    EXPECT_NEAR(predictedFor("channel_out_of_loop"), 26475.0, 0.08 * 26475.0);
    // The same requantization with the channel moving in its loop (depthwise_conv_int8_tflite_dsp:
    // 4 channels per block) stays per output.
    const analysis::InsnFeatures d = featuresOf(example("depthwise_conv_int8_tflite_dsp"));
    EXPECT_EQ(d[InsnFeature::RequantizeChannel], d[InsnFeature::Requantize]);
    // So does one around a kept loop whose registers leave no room for the channel's six values
    // (search_conv2d_int8_dsp_6: its oh loop around an s loop holding 13; measured per output).
    const analysis::InsnFeatures full = searchFound("search_conv2d_int8_dsp_6");
    EXPECT_EQ(full[InsnFeature::RequantizeChannel], full[InsnFeature::Requantize]);
    // Out of the loop, the two loads go with it and two instructions per output stay.
    EXPECT_EQ(f[InsnFeature::Alu], 2 * 384.0);
}

TEST(InstructionModel, GuardedAccumulatorsThatMayTrapStayInMemory)
{
    // An accumulator element the same in every iteration of the innermost kept loop, updated
    // under a guard there, at an index that reads the counters of kept loops: GCC's store motion
    // leaves a reference that may trap in the loop unless it is accessed in every iteration, so
    // the element is loaded and stored there, with no register across the loop and no flag.
    // random #700007: 12 elements (4 i.inner x 3 j.inner copies) in the k.inner loop under
    // `j_outer * 3 + j_inner <= 19`. GCC loads, multiplies and stores the 4 j_inner = 2 elements
    // at each update (`ldr; mla; str`); the guard of the 8 others it proves always true, and
    // keeps them in registers (5) and on the stack (3). The model reads the guard per statement,
    // not per copy, and counts all 12 in memory, no register and no spill: +11.1% (27,742
    // instructions on qemu's M7), where all 12 in registers with flags, 19 spilled, were +70.8%.
    const analysis::InsnFeatures apart = dataFeatures("analysis", "guarded_may_trap_apart");
    EXPECT_EQ(apart[InsnFeature::Mla], 5120.0);
    EXPECT_EQ(apart[InsnFeature::Store], 5120.0 + 2 * 160.0);  // one per update; the bias broadcast and the write-back 160 each
    EXPECT_EQ(apart[InsnFeature::Spill] + apart[InsnFeature::SpillReload], 0.0);
    EXPECT_NEAR(predictedFor("guarded_may_trap_apart"), 27742.0, 0.12 * 27742.0);
    // random #133: one element updated by the 3 r copies of 2 c.inner copies in the s loop, each
    // r copy under its padding guard. GCC loads it once per iteration of the s loop where any
    // copy runs (about 2,816 times) and stores it after two of the copies; the model counts one
    // load and one store per group of six updates, estimated as the updates over six (2,581:
    // low where the r guards fail). 162,854 instructions on the M7.
    const analysis::InsnFeatures adjacent = dataFeatures("analysis", "guarded_may_trap_adjacent");
    EXPECT_EQ(adjacent[InsnFeature::Mla], 15488.0);
    EXPECT_NEAR(adjacent[InsnFeature::Store] - 2 * 512.0, 15488.0 / 6, 1e-6);  // the bias broadcast and the write-back 512 each
    EXPECT_NEAR(predictedFor("guarded_may_trap_adjacent"), 162854.0, 0.03 * 162854.0);
    // An element of a static array at an index of constants (the copies' counters) does not
    // trap: random #459's float C_acc[i_inner * 4 + j_inner] under `i_outer * 3 + i_inner <= 15`
    // stays in a register with its flag (the flag's instruction at each update).
    const analysis::InsnFeatures constant = dataFeatures("analysis", "guarded_constant_index");
    EXPECT_EQ(constant[InsnFeature::Alu], constant[InsnFeature::FpuOp] / 2);
}

TEST(InstructionModel, ReportsWhereTheInstructionsGoWithTheTargetsCoefficients)
{
    sched::Program p = example("matmul_int8_tiled");
    lower::LoopNest nest = lower::lower(p);
    const analysis::CostReport r = analysis::analyze(nest, *p.target);
    const analysis::InstructionReport& in = r.instructions;
    ASSERT_TRUE(in.available);
    EXPECT_EQ(in.predicted, in.kernel + in.copies);
    const int64_t sum = std::accumulate(in.breakdown.begin(), in.breakdown.end(), int64_t{0}, [](int64_t a, const auto& b) { return a + b.second; });
    EXPECT_NEAR(static_cast<double>(sum), static_cast<double>(in.predicted), static_cast<double>(in.breakdown.size()));
    EXPECT_EQ(in.breakdown.back().first, "copies");
    // A coefficient of the target weighs its feature: loads at 2 instructions each.
    hw::Target t = *p.target;
    t.calibration.coefficients["load"] = 2;
    const analysis::InstructionReport twice = analysis::predictInstructions(in.features, t);
    auto category = [](const analysis::InstructionReport& x, const std::string& name) {
        for (const auto& [n, v] : x.breakdown)
            if (n == name)
                return v;
        return int64_t{-1};
    };
    EXPECT_EQ(category(twice, "loads"), 2 * static_cast<int64_t>(in.features[InsnFeature::Load]) + static_cast<int64_t>(in.features[InsnFeature::DspWord]));
    EXPECT_EQ(twice.copies, in.copies);
}

TEST(InstructionModel, AnAcceleratorHasNoInstructionPrediction)
{
    auto kernel = ir::loadKernelFile(test::kernelPath("matmul_int8"));
    ASSERT_TRUE(kernel.ok()) << kernel.errorText();
    const sched::Program p = sched::Program::initial(std::make_shared<const ir::Kernel>(*kernel), test::builtinTarget("gemmini-16x16"));
    lower::LoopNest nest = lower::lower(p);
    EXPECT_FALSE(analysis::analyze(nest, *p.target).instructions.available);
}

namespace {

/// `p`'s schedule replayed on another target.
sched::Program onTarget(const sched::Program& p, const std::string& target)
{
    auto t = hw::resolveTarget(target, "");
    EXPECT_TRUE(t.ok()) << t.errorText();
    sched::ApplyResult r = sched::replay(p.kernel, std::make_shared<const hw::Target>(std::move(*t)), p.trace);
    EXPECT_TRUE(r.ok());
    return std::move(r.program());
}

/// Registers the model counts in the innermost kept loop named `loop`.
double registersIn(const sched::Program& p, const std::string& loop)
{
    const lower::LoopNest nest = lower::lower(p);
    for (const analysis::LoopDecision& d : analysis::loopDecisions(nest, *p.target))
        if (d.name == loop && d.registers >= 0)
            return d.registers;
    ADD_FAILURE() << "no innermost kept loop " << loop;
    return -1;
}

} // namespace

TEST(InstructionModel, OnTheSingleIssueM4AnUnguardedInt8BodysLoadsComeFirst)
{
    // dense_int8_dsp's 2x2 block reads 8 int8 words per iteration of i.outer; the copies reuse 2 of
    // them. GCC -mcpu=cortex-m7 interleaves the loads with the unpacks (11 values live); for the
    // Cortex-M4 it issues them first, so kLoadsAhead (5) more words are live: 16 against the 14
    // registers, 2 accumulators spilled (measured: 12 stack accesses per iteration on the M4, 1 on
    // the M7).
    const sched::Program m7 = example("dense_int8_dsp");
    const sched::Program m4 = onTarget(m7, "cortex-m4");
    EXPECT_EQ(registersIn(m7, "i.outer"), 11);
    EXPECT_EQ(registersIn(m4, "i.outer"), 16);
    EXPECT_EQ(featuresOf(m7)[InsnFeature::Spill], 0);
    EXPECT_EQ(featuresOf(m4)[InsnFeature::Spill], 2.0 * 2 * 64 * 32);  // 2 accumulators, a load and a store per iteration
    // Not int16 words (dense_int16_dsp: GCC loads them in groups, no spill on the M4): the same
    // on both cores.
    const sched::Program i16 = example("dense_int16_dsp");
    const analysis::InsnFeatures a = featuresOf(i16), b = featuresOf(onTarget(i16, "cortex-m4"));
    for (int i = 0; i < analysis::kInsnFeatureCount; ++i)
        EXPECT_EQ(a.count[static_cast<size_t>(i)], b.count[static_cast<size_t>(i)]) << analysis::insnFeatureName(static_cast<InsnFeature>(i));
    // In a body that guards split into blocks (conv2d_int8_tflite_small's padded taps) at most
    // kLoadsAheadGuarded (2) words more, counted in the block with the most; the M7 holds one
    // (next test).
    const sched::Program taps = example("conv2d_int8_tflite_small");
    EXPECT_EQ(registersIn(onTarget(taps, "cortex-m4"), "k.outer"), registersIn(taps, "k.outer") + 1);
}

TEST(InstructionModel, OnTheDualIssueM7AGuardedInt8BodyHoldsOneWordAhead)
{
    // conv2d_s2_int8_tflite_small's k.outer body: 18 padded-tap blocks of 4 F words and one I
    // word, split by the guards of its unrolled r and s. GCC -mcpu=cortex-m7 loads a block's F
    // words before their first SXTB16 (qemu profile), which an unguarded body's it interleaves
    // (dense_int8_dsp, above: 11 values, none ahead). kLoadsAheadGuardedDualIssue (1) word more
    // than the values live across the iteration: 34 -> 35 against 14 registers. The 20 cheapest
    // (18 invariant I addresses and 2 guard values, one reload each per iteration) were on the
    // stack already; the 21st is an accumulator, a load and a store at each of its 18 update
    // sites per iteration (measured: 96,208 stack accesses; predicted 19,720 reloads before).
    const sched::Program m7 = example("conv2d_s2_int8_tflite_small");
    EXPECT_EQ(registersIn(m7, "k.outer"), 35);
    EXPECT_EQ(registersIn(onTarget(m7, "cortex-m4"), "k.outer"), 36);  // the M4's two
    const analysis::InsnFeatures f = featuresOf(m7);
    EXPECT_EQ(f[InsnFeature::SpillReload], 19720);
    EXPECT_EQ(f[InsnFeature::Spill], 1.0 * 18 * 1024);  // 1 accumulator, 18 sites, 1,024 iterations
}

TEST(InstructionModel, PerChannelParametersAtASmallStrideTakeABaseRegisterPerCopy)
{
    // depthwise_conv_int8_mult_tflite_unrolled requantizes channels 2c and 2c + 1 (m unrolled) in
    // its c loop: bias, multiplier and shift 8 bytes apart per c. GCC reads each copy as
    // [base + 4m, c, lsl #3], one base register per copy and array: three more than one pointer per
    // array (15 values live in c -> 18).
    EXPECT_EQ(registersIn(example("depthwise_conv_int8_mult_tflite_unrolled"), "c"), 18);
    // conv2d_int8_tflite_dsp's multipliers of k.outer * 4 + k.inner are 16 bytes apart per k.outer,
    // beyond a register offset's LSL #3: one pointer and immediate offsets (LDRD), no more bases.
    EXPECT_EQ(registersIn(example("conv2d_int8_tflite_dsp"), "k.outer"), 88);
}

/// A guard the compiler computes before its loop is tested once per execution in each copy of
/// the C whose condition can fail; in the others GCC knows its value and tests nothing (random
/// #100036 measured on qemu: one `cbz` of six copies per ow iteration). The copies GCC unrolls
/// itself keep the test wherever one of them needs it.
TEST(InstructionModel, AGuardFlagIsTestedOnlyInTheCopiesOfTheCWhereItCanFail)
{
    auto featuresOfSteps = [](const std::string& steps) {
        auto file = sched::parseScheduleFile("kernel: ../kernels/conv2d_s2_int8.kernel.yaml\ntarget: cortex-m7\n"
                                             "params: {C: 4, H: 8, K: 4, W: 8}\nsteps:\n" + steps, "inline.sched.yaml");
        EXPECT_TRUE(file.ok()) << file.errorText();
        auto o = sched::openScheduleFile(*file, test::sourceDir() + "/examples/schedules",
                                         [](const std::string& n, const std::string& d) { return hw::resolveTarget(n, d); });
        EXPECT_TRUE(o.ok()) << o.errorText();
        return o.ok() ? featuresOf(o->program) : analysis::InsnFeatures{};
    };
    const std::string tiled = "  - split: {loop: oh, factor: 2}\n  - split: {loop: k, factor: 3}\n  - split: {loop: c, factor: 2}\n"
                              "  - reorder: {loops: [c.outer, k.outer, oh.outer, c.inner, s, k.inner, n, ow, r, oh.inner]}\n";
    const std::string cache = "  - cache_read: {tensor: I, level: SRAM, at: root}\n";
    // r and oh.inner written out: `0 <= oh.outer * 4 + r + oh.inner * 2 - 1` can fail only in
    // the copy r = 0, oh.inner = 0, which runs 352 times inside ow (the 96 of the
    // initialisation and the write-back loops beside it test the partial k tile's flag).
    const analysis::InsnFeatures written = featuresOfSteps(tiled + "  - unroll: {loop: oh.inner}\n  - unroll: {loop: r}\n" + cache);
    EXPECT_DOUBLE_EQ(written[InsnFeature::GuardFlag], 352 + 96 + 96);
    // oh.inner left to the compiler to unroll (2 iterations): both of its copies keep the test
    // of the r = 0 copy.
    const analysis::InsnFeatures compilers = featuresOfSteps(tiled + "  - unroll: {loop: r}\n" + cache);
    EXPECT_DOUBLE_EQ(compilers[InsnFeature::GuardFlag], 2 * 352 + 96 + 96);
    // A guard of two conditions that fail in different copies: r split by 2, r.inner written out
    // inside the kept c loop, `r_outer * 2 + r_inner <= 2 && 0 <= oh * 2 + r_outer * 2 + r_inner - 1`.
    // The partial tile can fail only in the copy r.inner = 1 (r.outer = 1), the padding only in
    // r.inner = 0 (oh = 0, r.outer = 0): a test in each copy, 2 per iteration of c (1,408), as
    // measured on qemu's M7 (`cbz r7` and `cbnz r1`, 1,408 times each). The largest share over the
    // conditions counted one.
    const analysis::InsnFeatures twoConditions = featuresOfSteps(
        "  - split: {loop: r, factor: 2}\n  - reorder: {loops: [\"n\", oh, ow, k, s, r.outer, c, r.inner]}\n  - unroll: {loop: r.inner}\n");
    EXPECT_DOUBLE_EQ(twoConditions[InsnFeature::GuardFlag], 2 * 1408);
}
