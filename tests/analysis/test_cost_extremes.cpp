// The cost model on the extremes the files accept (issue 16, item 4): values past the ranges
// are refused at load with file:line:column; within them, figures that pass 2^63 saturate with
// a warning, groups too large to count exactly are named in an error, and no count is ever
// negative. (The fuzz build runs the same inputs under UndefinedBehaviorSanitizer:
// tests/fuzz/corpus/{schedule,target}/extreme-*.)
#include "support/test_paths.h"
#include "support/step_text.h"

#include "analysis/cost_report.h"
#include "ir/kernel.h"
#include "lower/loop_nest.h"
#include "sched/program.h"
#include "target_loader.h"

#include <gtest/gtest.h>

#include <chrono>
#include <limits>

using namespace loopscope;

namespace {

const int64_t kMax = std::numeric_limits<int64_t>::max();

std::string matmulText(int64_t m, int64_t n, int64_t k, const std::string& dtype = "int8")
{
    return "name: mm\nparams: {M: " + std::to_string(m) + ", N: " + std::to_string(n) + ", K: " + std::to_string(k)
        + "}\ntensors:\n  A: {shape: [M, K], dtype: " + dtype + "}\n  B: {shape: [K, N], dtype: " + dtype
        + "}\n  C: {shape: [M, N], dtype: " + (dtype == "int8" ? "int32" : dtype) + "}\nstages:\n  - compute: \"C[i, j] += A[i, k] * B[k, j]\"\n";
}

std::shared_ptr<const ir::Kernel> kernel(const std::string& text)
{
    auto k = ir::parseKernel(text, "k.kernel.yaml");
    EXPECT_TRUE(k.ok()) << k.errorText();
    return k.ok() ? std::make_shared<const ir::Kernel>(std::move(*k)) : nullptr;
}

/// cortex-m7 with some of its lines replaced.
std::string cortexM7(const std::vector<std::pair<std::string, std::string>>& edits)
{
    std::string text = hw::builtinTargetText("cortex-m7");
    for (const auto& [from, to] : edits) {
        const size_t at = text.find(from);
        EXPECT_NE(at, std::string::npos) << from;
        if (at != std::string::npos)
            text.replace(at, from.size(), to);
    }
    return text;
}

void expectNoNegativeFigure(const analysis::CostReport& r)
{
    EXPECT_GE(r.macs, 0);
    EXPECT_GE(r.cycles.total, 0);
    EXPECT_GE(r.cycles.compute, 0);
    EXPECT_GE(r.cycles.transfer, 0);
    EXPECT_GE(r.latencyMs, 0);
    EXPECT_GE(r.energyUj, 0);
    EXPECT_GE(r.bounds.computeCycles, 0);
    EXPECT_GE(r.bounds.compulsoryBytes, 0);
    for (const auto& l : r.levels) {
        EXPECT_GE(l.readBytes, 0) << l.name;
        EXPECT_GE(l.writeBytes, 0) << l.name;
    }
    for (const auto& t : r.tensors) {
        EXPECT_GE(t.readBytes, 0) << t.name;
        EXPECT_GE(t.writeBytes, 0) << t.name;
    }
}

const analysis::CostDiagnostic* diagnostic(const analysis::CostReport& r, const std::string& code)
{
    for (const auto& d : r.diagnostics)
        if (d.code == code)
            return &d;
    return nullptr;
}

} // namespace

TEST(CostExtremes, AStageOfMoreThan2To48PointsIsRefusedAtItsLine)
{
    auto k = ir::parseKernel(matmulText(1 << 20, 1 << 20, 1 << 20), "k.kernel.yaml");
    ASSERT_FALSE(k.ok());
    EXPECT_EQ(k.errorText(), "k.kernel.yaml:8:15: error: stage C iterates over 1048576 x 1048576 x 1048576 points, more than 2^48 "
                             "(281474976710656); give its kernel smaller sizes");
    EXPECT_TRUE(ir::parseKernel(matmulText(1 << 20, 1 << 20, 1 << 8), "k.kernel.yaml").ok()) << "exactly 2^48";
}

TEST(CostExtremes, TargetValuesOutsideTheirRangesAreRefusedAtLoad)
{
    struct Case {
        std::string from, to, error;
    };
    for (const Case& c : {Case{"bandwidth_bytes_per_cycle: 1 ", "bandwidth_bytes_per_cycle: 1e-300 ",
                               "memory[0].bandwidth_bytes_per_cycle: expected a number from 1e-06 to 1e+09, got '1e-300'"},
                          Case{"latency_cycles: 40 ", "latency_cycles: 9223372036854775807 ",
                               "memory[0].latency_cycles: expected an integer <= 1000000000, got '9223372036854775807'"},
                          Case{"loop_overhead_cycles: 2 ", "loop_overhead_cycles: 1e300 ",
                               "loop_overhead_cycles: expected a number <= 1e+09, got '1e300'"},
                          Case{"clock_mhz: 400 ", "clock_mhz: 1e-300 ", "clock_mhz: expected a number from 1e-06 to 1e+09, got '1e-300'"},
                          Case{"energy_pj_per_byte: 100 ", "energy_pj_per_byte: 1e300 ",
                               "memory[0].energy_pj_per_byte: expected a number <= 1e+09, got '1e300'"},
                          Case{"int8: 2 ", "int8: 1e12 ", "compute.macs_per_cycle.int8: expected a number from 1e-06 to 1e+09, got '1e12'"},
                          Case{"name: SRAM", "name: ALIGNED",
                               "memory[1].name: level name 'ALIGNED': its section macro LOOPSCOPE_ALIGNED is one of the exported code's own macros"}}) {
        auto t = hw::parseTarget(cortexM7({{c.from, c.to}}), "t.yaml");
        ASSERT_FALSE(t.ok()) << c.to;
        EXPECT_NE(t.errorText().find("t.yaml:"), std::string::npos) << t.errorText();
        EXPECT_NE(t.errorText().find(c.error), std::string::npos) << t.errorText();
        EXPECT_EQ(t.errors().size(), 1u) << t.errorText();
        EXPECT_GT(t.errors()[0].loc.line, 0);
    }
}

// 2^48 MACs on the slowest memories the ranges allow: cycles pass 2^63 and saturate, with a
// warning; nothing is negative.
TEST(CostExtremes, FiguresPast2To63SaturateWithAWarning)
{
    auto t = hw::parseTarget(cortexM7({{"bandwidth_bytes_per_cycle: 1 ", "bandwidth_bytes_per_cycle: 1e-6 "},
                                       {"latency_cycles: 40 ", "latency_cycles: 1000000000 "},
                                       {"loop_overhead_cycles: 2 ", "loop_overhead_cycles: 1e9 "},
                                       {"energy_pj_per_byte: 100 ", "energy_pj_per_byte: 1e9 "}}),
                             "slow.yaml");
    ASSERT_TRUE(t.ok()) << t.errorText();
    const auto target = std::make_shared<const hw::Target>(std::move(*t));
    const auto k = kernel(matmulText(1 << 20, 1 << 20, 1 << 8));
    ASSERT_TRUE(k);
    const lower::LoopNest nest = lower::lower(sched::Program::initial(k, target));
    const analysis::CostReport r = analysis::analyze(nest, *target);
    EXPECT_EQ(r.macs, int64_t(1) << 48);
    EXPECT_EQ(r.cycles.total, kMax);
    EXPECT_EQ(r.cycles.transfer, kMax);
    expectNoNegativeFigure(r);
    const analysis::CostDiagnostic* d = diagnostic(r, "saturated");
    ASSERT_TRUE(d);
    EXPECT_EQ(d->severity, Severity::Warning);
    EXPECT_NE(d->message.find("figures past 2^63 are shown as 9223372036854775807, the largest count: cycles"), std::string::npos) << d->message;
    // On the built-in target the same kernel fits in 64 bits: exact, no warning.
    const auto m7 = test::builtinTarget("cortex-m7");
    const analysis::CostReport exact = analysis::analyze(lower::lower(sched::Program::initial(k, m7)), *m7);
    expectNoNegativeFigure(exact);
    EXPECT_FALSE(diagnostic(exact, "saturated"));
    EXPECT_LT(exact.cycles.total, kMax);
}

// A partial tile of a loop over 2^36 elements: enumerating its guard took hours. Now the group
// is over the counting budget, left out, and named in an error, at once.
TEST(CostExtremes, AGroupOverTheCountingBudgetIsNamedNotEnumerated)
{
    const auto k = kernel("name: big1d\nparams: {N: 68719476736}\ntensors:\n  X: {shape: [N], dtype: int8}\n  Y: {shape: [N], dtype: int8}\n"
                          "stages:\n  - compute: \"Y[i] = X[i] * 2\"\n");
    ASSERT_TRUE(k);
    const auto target = test::builtinTarget("cortex-m7");
    sched::Step split;
    split.primitive = sched::Primitive::Split;
    split.loops = {"i"};
    split.factor = 3;
    auto p = sched::replay(k, target, {split});
    ASSERT_TRUE(p.ok()) << p.error().str();
    const auto t0 = std::chrono::steady_clock::now();
    const analysis::CostReport r = analysis::analyze(lower::lower(p.program()), *target);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_LT(seconds, 30) << "the budget is 2^24 points per group";
    expectNoNegativeFigure(r);
    const analysis::CostDiagnostic* d = diagnostic(r, "uncounted");
    ASSERT_TRUE(d);
    EXPECT_EQ(d->severity, Severity::Error);
    EXPECT_EQ(d->loops, (std::vector<std::string>{"i.outer", "i.inner"}));
    EXPECT_NE(d->message.find("the guards on loops i.outer, i.inner span 68719476738 points, more than the 16777216 the model counts exactly"),
              std::string::npos)
        << d->message;
    // A split that divides has no guard: counted exactly.
    split.factor = 4;
    auto q = sched::replay(k, target, {split});
    ASSERT_TRUE(q.ok());
    const analysis::CostReport exact = analysis::analyze(lower::lower(q.program()), *target);
    EXPECT_FALSE(diagnostic(exact, "uncounted"));
    EXPECT_EQ(exact.macs, 0) << "an elementwise stage has no MACs";
    EXPECT_EQ(exact.levels[0].readBytes, int64_t(1) << 36);
}

// The PE-array model at the largest stage the kernel file accepts: the same properties.
TEST(CostExtremes, ThePeArrayModelAtTheLimits)
{
    const auto k = kernel(matmulText(1 << 20, 1 << 20, 1 << 8));
    ASSERT_TRUE(k);
    const auto target = test::builtinTarget("gemmini-16x16");
    std::vector<sched::Step> steps;
    auto step = [&](sched::Primitive prim, std::vector<std::string> loops, int64_t factor = 0) {
        steps.push_back(test::loopStep(prim, std::move(loops), factor));
        return &steps.back();
    };
    step(sched::Primitive::Split, {"i"}, 16);
    step(sched::Primitive::Split, {"j"}, 16);
    step(sched::Primitive::Split, {"k"}, 16);
    step(sched::Primitive::Reorder, {"i.outer", "j.outer", "k.outer", "i.inner", "j.inner", "k.inner"});
    for (const auto& [tensor, level, at] : {std::tuple{"A", "scratchpad", "k.outer"}, {"B", "scratchpad", "k.outer"}, {"C", "accumulator", "j.outer"}}) {
        sched::Step s;
        s.primitive = std::string(tensor) == "C" ? sched::Primitive::CacheWrite : sched::Primitive::CacheRead;
        s.tensor = tensor;
        s.level = level;
        s.at = at;
        steps.push_back(s);
    }
    sched::Step* t = step(sched::Primitive::Tensorize, {"i.inner", "j.inner", "k.inner"});
    t->intrinsic = "gemmini_matmul";
    t->dataflow = "weight_stationary";
    auto p = sched::replay(k, target, steps);
    ASSERT_TRUE(p.ok()) << p.error().str();
    const auto t0 = std::chrono::steady_clock::now();
    const analysis::CostReport r = analysis::analyze(lower::lower(p.program()), *target);
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 30);
    expectNoNegativeFigure(r);
    ASSERT_TRUE(r.array);
    EXPECT_EQ(r.macs, int64_t(1) << 48);
}
