// The issue model (analysis/issue_model.h): cycles of instruction counts small enough to work
// out by hand on the Cortex-M7 and M4 figures, the stretches of kept loops, and what analyze
// reports with it on every example schedule.
#include "support/test_paths.h"

#include "analysis/cost_report.h"
#include "analysis/issue_model.h"
#include "lower/loop_nest.h"
#include "sched/schedule_file.h"
#include "target_loader.h"

#include <gtest/gtest.h>

#include <cmath>

#include <filesystem>
#include <fstream>
#include <iomanip>
#include <sstream>

using namespace loopscope;
using analysis::InsnFeature;

namespace {

hw::Target builtin(const std::string& name)
{
    auto t = hw::loadBuiltinTarget(name);
    EXPECT_TRUE(t.ok()) << t.errorText();
    return *t;
}

sched::Program example(const std::string& path, const std::string& target = "")
{
    auto o = sched::openSchedule(path, [&](const std::string& n, const std::string& d) {
        return hw::resolveTarget(target.empty() ? n : target, d);
    });
    EXPECT_TRUE(o.ok()) << o.errorText();
    return o->program;
}

/// A loop of 50 iterations entered once, loading two operands and doing one MLA per iteration,
/// in a function: 100 loads, 50 MLAs, 50 back edges, 1 loop entry.
analysis::InsnFeatures smallLoop()
{
    analysis::InsnFeatures f;
    f[InsnFeature::Function] = 1;
    f[InsnFeature::Load] = 100;
    f[InsnFeature::Mla] = 50;
    f[InsnFeature::LoopIteration] = 50;
    f[InsnFeature::LoopEntry] = 1;
    return f;
}

} // namespace

TEST(IssueModel, CyclesOfASmallLoopWorkedOutByHandOnTheM7)
{
    const hw::Target m7 = builtin("cortex-m7");
    const analysis::IssueCycles c = analysis::issueCycles(smallLoop(), analysis::insnCoefficients(m7), m7.issue);
    // Default coefficients: the function 20 instructions (19 ALU, the return), a load 1, an MLA 1,
    // a loop iteration 2 (an ALU instruction and the back edge), a loop entry 2 ALU.
    EXPECT_DOUBLE_EQ(c.unit[static_cast<int>(analysis::IssueUnit::Alu)], 19 + 50 + 2);
    EXPECT_DOUBLE_EQ(c.unit[static_cast<int>(analysis::IssueUnit::Memory)], 100);
    EXPECT_DOUBLE_EQ(c.unit[static_cast<int>(analysis::IssueUnit::Mac)], 50);
    EXPECT_DOUBLE_EQ(c.unit[static_cast<int>(analysis::IssueUnit::Branch)], 1 + 50);
    // Dual issue: 272 instructions in 136 cycles, more than the load/store unit's 100.
    EXPECT_DOUBLE_EQ(c.issue, 272.0 / 2);
    EXPECT_DOUBLE_EQ(c.taken, 0);               // predicted taken branches cost nothing
    EXPECT_DOUBLE_EQ(c.exits, 4);               // one loop left: its exit mispredicted
    EXPECT_DOUBLE_EQ(c.loadUse, 100 * 0.5);
    EXPECT_DOUBLE_EQ(c.cycles, 136 + 4 + 50);
}

TEST(IssueModel, CyclesOfASmallLoopWorkedOutByHandOnTheM4)
{
    const hw::Target m4 = builtin("cortex-m4");
    const analysis::IssueCycles c = analysis::issueCycles(smallLoop(), analysis::insnCoefficients(m4), m4.issue);
    // Single issue: every instruction in turn, a load 1.5 cycles (pairs of LDR: N + 1).
    EXPECT_DOUBLE_EQ(c.issue, 71 + 150 + 50 + 51);
    // 49 back edges and the return are taken branches, 1 + P cycles: P = 2 more each.
    EXPECT_DOUBLE_EQ(c.taken, (49 + 1) * 2);
    EXPECT_DOUBLE_EQ(c.exits, 0);
    EXPECT_DOUBLE_EQ(c.loadUse, 0);
    EXPECT_DOUBLE_EQ(c.cycles, 322 + 100);
}

TEST(IssueModel, CallsTakeTwoBranchesAndCopiesAreLeftToTheTransferModel)
{
    const hw::Target m4 = builtin("cortex-m4");
    analysis::InsnFeatures f;
    f[InsnFeature::CopyCall] = 3;
    f[InsnFeature::Memcpy] = 1000;  // the hook's memcpy: a transfer, not compute
    const analysis::IssueCycles c = analysis::issueCycles(f, analysis::insnCoefficients(m4), m4.issue);
    EXPECT_DOUBLE_EQ(c.issue, 3 * 10);          // ten instructions a call (default coefficient)
    EXPECT_DOUBLE_EQ(c.taken, 3 * 2 * 2);       // BL and the return
}

TEST(IssueModel, EachKeptLoopIsAStretchOfItsOwn)
{
    // An inner loop of 100 loads (load/store-bound on the M7: 100 cycles) inside an outer loop of
    // 100 ALU instructions (50 cycles dual-issued): apart 150 cycles, mixed in one stretch 100.
    const hw::Target m7 = builtin("cortex-m7");
    hw::IssueModel plain = m7.issue;
    plain.loadUseCycles = 0;
    plain.loopExitCycles = 0;
    analysis::InsnFeatures inner, outer;
    inner[InsnFeature::Load] = 100;
    outer = inner;
    outer[InsnFeature::Alu] = 100;
    analysis::InsnFeatures total = outer;
    const auto k = analysis::insnCoefficients(m7);
    EXPECT_DOUBLE_EQ(analysis::issueCycles(total, k, plain).cycles, 100);
    std::vector<analysis::LoopFeatures> loops = {{1, outer, -1}, {2, inner, 0}};
    EXPECT_DOUBLE_EQ(analysis::kernelIssueCycles(total, loops, k, plain).cycles, 100 + 50);
}

TEST(IssueModel, AnalyzeTakesTheComputeCyclesFromThePredictedInstructions)
{
    const std::string path = test::sourceDir() + "/examples/schedules/matmul_int8_naive.sched.yaml";
    for (const char* target : {"cortex-m7", "cortex-m4"}) {
        const sched::Program p = example(path, target);
        const lower::LoopNest nest = lower::lower(p);
        const analysis::CostReport r = analysis::analyze(nest, *p.target);
        ASSERT_TRUE(r.cycles.fromInstructions) << target;
        std::vector<analysis::LoopFeatures> loops;
        const analysis::InsnFeatures f = analysis::instructionFeatures(nest, analysis::statementExecutions(nest, *p.target), &loops);
        const analysis::IssueCycles c = analysis::kernelIssueCycles(f, loops, analysis::insnCoefficients(*p.target), p.target->issue);
        EXPECT_EQ(r.cycles.compute, static_cast<int64_t>(c.cycles)) << target;
        EXPECT_DOUBLE_EQ(r.cycles.issue.cycles, c.cycles) << target;
        // for i, j, k (64^3): the k loop is one stretch of 2 loads, an MLA, an add and the loop
        // control per MAC; i and j are kept loops too.
        EXPECT_EQ(loops.size(), 3u) << target;
        // No copies: the transfer cycles are the loads from DRAM, none hidden.
        EXPECT_EQ(r.cycles.total, r.cycles.compute + r.cycles.transfer) << target;
        EXPECT_EQ(r.cycles.overlapRatio, 0) << target;
    }
}

TEST(IssueModel, ALoopsRecordHoldsThePointersItAdvancesForTheLoopsInside)
{
    // matmul_int8_naive (for i, j, k; 64^3): the j loop advances B's pointer for the k loop
    // inside, once per iteration of j; the i loop advances A's (and C's). Those increments run in
    // the loop's own iterations, so its record (what analyze --loops shows, and the stretch the
    // issue model takes) holds them; until session 16 they were in the record of the loop around.
    const sched::Program p = example(test::sourceDir() + "/examples/schedules/matmul_int8_naive.sched.yaml");
    const lower::LoopNest nest = lower::lower(p);
    std::vector<analysis::LoopFeatures> loops;
    const analysis::InsnFeatures f = analysis::instructionFeatures(nest, analysis::statementExecutions(nest, *p.target), &loops);
    ASSERT_EQ(loops.size(), 3u);
    const double i = loops[0].features[InsnFeature::OuterStream];
    const double j = loops[1].features[InsnFeature::OuterStream];
    const double k = loops[2].features[InsnFeature::OuterStream];
    EXPECT_EQ(loops[1].parent, 0);
    EXPECT_EQ(loops[2].parent, 1);
    EXPECT_EQ(k, 0);  // innermost: its pointers are its own streams
    EXPECT_GT(j, 0);
    EXPECT_EQ(std::fmod(j, 64.0 * 64.0), 0) << j;  // whole pointers per iteration of j
    EXPECT_GT(i - j, 0);
    EXPECT_EQ(std::fmod(i - j, 64.0), 0) << i - j;  // and per iteration of i
    EXPECT_EQ(f[InsnFeature::OuterStream], i);
}

TEST(IssueModel, WithoutAnIssueSectionComputeStaysMacsAtTheRatePlusLoopOverhead)
{
    hw::Target m7 = builtin("cortex-m7");
    m7.issue.present = false;
    const sched::Program p = example(test::sourceDir() + "/examples/schedules/matmul_int8_naive.sched.yaml");
    const analysis::CostReport r = analysis::analyze(lower::lower(p), m7);
    EXPECT_FALSE(r.cycles.fromInstructions);
    // 64^3 scalar MLAs at one a cycle, and 2 cycles per iteration of i, j and k.
    const int64_t macs = 64 * 64 * 64;
    EXPECT_EQ(r.cycles.compute, macs + 2 * (macs + 64 * 64 + 64));
}

TEST(IssueModel, EveryExampleOnBothCoresIsAtLeastItsBoundsAndTheM7NeverSlowerThanTheM4)
{
    int checked = 0;
    for (const auto& e : std::filesystem::directory_iterator(test::sourceDir() + "/examples/schedules")) {
        const std::string path = e.path().string();
        const sched::Program own = example(path);
        if (!own.target || own.target->kind == "accelerator")
            continue;
        int64_t m7Cycles = 0, m4Cycles = 0;
        for (const char* target : {"cortex-m7", "cortex-m4"}) {
            const sched::Program p = example(path, target);
            const analysis::CostReport r = analysis::analyze(lower::lower(p), *p.target);
            if (r.hasErrors())
                continue;  // does not fit the M4's smaller SRAM
            SCOPED_TRACE(path + " on " + target);
            ASSERT_TRUE(r.cycles.fromInstructions);
            EXPECT_GE(r.cycles.compute, r.bounds.computeCycles);
            // Every unit takes at least a cycle per instruction: no more than `width` a cycle.
            EXPECT_GE(static_cast<double>(r.cycles.compute) + 1, static_cast<double>(r.instructions.kernel) / p.target->issue.width);
            EXPECT_GE(r.cycles.total, std::max(r.cycles.compute, r.cycles.transfer));
            (std::string(target) == "cortex-m7" ? m7Cycles : m4Cycles) = r.cycles.compute;
        }
        if (m7Cycles && m4Cycles) {
            EXPECT_LE(m7Cycles, m4Cycles) << path;
        }
        ++checked;
    }
    EXPECT_GE(checked, 25);
}

TEST(IssueModel, DoubleBufferingHidesUpToTheTilesShareOfTheIssueModelsCycles)
{
    // Test_diagnostics' transfer-bound case (M=4, N=1, K=8, A double-buffered per tile of two
    // rows) on a DRAM ten times slower: each tile's copy takes 64 B / 0.1 + 40 = 680 cycles.
    // The tile's compute is its share of the rate model's count scaled to the issue model's
    // cycles of the kernel: 56 x issue cycles / rate-model cycles.
    const std::string kernel = test::sourceDir() + "/examples/kernels/matmul_f32.kernel.yaml";
    const std::string text = "kernel: " + kernel + "\ntarget: cortex-m7\nparams: {M: 4, N: 1, K: 8}\nsteps:\n"
                             "  - split: {loop: i, factor: 2}\n"
                             "  - cache_read: {tensor: A, level: SRAM, at: i.outer}\n"
                             "  - double_buffer: {tensor: A, level: SRAM}\n"
                             "  - cache_read: {tensor: B, level: SRAM, at: root}\n"
                             "  - cache_write: {tensor: C, level: SRAM, at: root}\n";
    const std::string path = ::testing::TempDir() + "issue_transfer_bound.sched.yaml";
    {
        std::ofstream(path) << text;
    }
    hw::Target slow = builtin("cortex-m7");
    slow.levels[0].bandwidthBytesPerCycle = 0.1;
    hw::Target slowRate = slow;
    slowRate.issue.present = false;
    const sched::Program p = example(path);
    const lower::LoopNest nest = lower::lower(p);
    const analysis::CostReport issue = analysis::analyze(nest, slow);
    const analysis::CostReport rate = analysis::analyze(nest, slowRate);
    ASSERT_TRUE(issue.cycles.fromInstructions);
    ASSERT_FALSE(rate.cycles.fromInstructions);
    auto message = [](const analysis::CostReport& r) {
        for (const auto& d : r.diagnostics)
            if (d.code == "transfer-bound")
                return d.message;
        return std::string();
    };
    const double computePer = 56.0 * double(issue.cycles.compute) / double(rate.cycles.compute);
    std::ostringstream expected;
    expected << std::fixed << std::setprecision(0) << "double buffering A_SRAM cannot hide its transfer: 680 cycles per tile against "
             << computePer << " cycles of compute";
    EXPECT_EQ(message(rate).rfind("double buffering A_SRAM cannot hide its transfer: 680 cycles per tile against 56 cycles of compute", 0), 0u)
        << message(rate);
    EXPECT_EQ(message(issue).rfind(expected.str(), 0), 0u) << message(issue);
    // Two tiles: the second's copy hides behind the first's compute.
    EXPECT_NEAR(issue.cycles.overlapRatio * double(issue.cycles.transfer), computePer, 1.0);
    EXPECT_NEAR(rate.cycles.overlapRatio * double(rate.cycles.transfer), 56.0, 1e-6);
}
