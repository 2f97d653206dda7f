// The cost model against the oracle: on every example schedule and on random schedules the
// analytical traffic equals the interpreter's byte for byte, and no estimate beats a bound.
#include "support/random_schedule.h"
#include "support/random_tensorize.h"
#include "support/test_paths.h"

#include "analysis/cost_report.h"
#include "sched/schedule_file.h"
#include "target_loader.h"
#include "verify/interpreter.h"

#include <gtest/gtest.h>

#include <filesystem>

using namespace loopscope;

namespace {

std::string traceText(const sched::Program& p)
{
    std::string out;
    for (const auto& s : p.trace)
        out += "  " + sched::describe(s) + (s.stage.empty() ? "" : " [stage " + s.stage + "]") + "\n";
    return out;
}

/// Compares the report with the interpreter's counts and the bounds; returns "" when fine.
std::string check(const sched::Program& p, uint64_t seed)
{
    lower::LoopNest nest = lower::lower(p);
    analysis::CostReport r = analysis::analyze(nest, *p.target);
    verify::InterpretResult run = verify::interpret(nest, verify::makeInputs(*p.kernel, seed));
    if (!run.ok)
        return "interpreter: " + run.error;
    std::ostringstream err;
    if (r.levels.size() != run.traffic.levels.size())
        return "level count differs";
    for (size_t l = 0; l < r.levels.size(); ++l)
        if (r.levels[l].name != run.traffic.levels[l].name || r.levels[l].readBytes != run.traffic.levels[l].readBytes
            || r.levels[l].writeBytes != run.traffic.levels[l].writeBytes)
            err << "level " << run.traffic.levels[l].name << ": model " << r.levels[l].readBytes << "/" << r.levels[l].writeBytes
                << " interpreter " << run.traffic.levels[l].readBytes << "/" << run.traffic.levels[l].writeBytes << "\n";
    if (r.tensors.size() != run.traffic.tensors.size())
        err << "tensor entries: model " << r.tensors.size() << " interpreter " << run.traffic.tensors.size() << "\n";
    else
        for (size_t i = 0; i < r.tensors.size(); ++i) {
            const auto& a = r.tensors[i];
            const auto& b = run.traffic.tensors[i];
            if (a.name != b.tensor || a.level != b.level || a.readBytes != b.readBytes || a.writeBytes != b.writeBytes)
                err << a.name << "@" << a.level << ": model " << a.readBytes << "/" << a.writeBytes << " interpreter " << b.tensor << "@"
                    << b.level << " " << b.readBytes << "/" << b.writeBytes << "\n";
        }
    // Bounds.
    if (r.cycles.total < r.bounds.computeCycles)
        err << "cycles " << r.cycles.total << " beat the compute bound " << r.bounds.computeCycles << "\n";
    int64_t home = r.levels[0].readBytes + r.levels[0].writeBytes;
    if (home < r.bounds.compulsoryBytes)
        err << "home traffic " << home << " beats the compulsory traffic " << r.bounds.compulsoryBytes << "\n";
    // The I/O bound holds for schedules whose buffers fit in the fast memory.
    if (r.bounds.ioLowerBoundBytes && !r.hasErrors() && home < *r.bounds.ioLowerBoundBytes)
        err << "home traffic " << home << " beats the I/O lower bound " << *r.bounds.ioLowerBoundBytes << "\n";
    if (r.cycles.total < r.cycles.compute || r.cycles.total < r.cycles.transfer)
        err << "total " << r.cycles.total << " below compute or transfer\n";
    if (r.cycles.overlapRatio < 0 || r.cycles.overlapRatio > 1)
        err << "overlap ratio " << r.cycles.overlapRatio << "\n";
    return err.str();
}

TEST(AnalysisMatchesInterpreter, EveryExampleSchedule)
{
    int seen = 0;
    for (const auto& e : std::filesystem::directory_iterator(test::sourceDir() + "/examples/schedules")) {
        if (e.path().extension() != ".yaml")
            continue;
        auto o = sched::openSchedule(e.path().string(), [](const std::string& n, const std::string& d) { return hw::resolveTarget(n, d); });
        ASSERT_TRUE(o.ok()) << o.errorText();
        std::string problem = check(o->program, 1);
        EXPECT_EQ(problem, "") << e.path();
        ++seen;
    }
    EXPECT_GE(seen, 8);
}

// Tensorized schedules: the array model's reads and writes of every Matmul, fill, accumulator
// tile and initial row equal the interpreter's, and the array figures are consistent.
TEST(AnalysisMatchesInterpreter, RandomTensorizedSchedules)
{
    auto target = test::builtinTarget("gemmini-16x16");
    for (int n = 0; n < 160; ++n) {
        test::Rng rng(0xA11A + 104729 * n);
        sched::Program p = test::randomTensorized(n, rng, target);
        ASSERT_TRUE(p.kernel);
        std::string problem = check(p, 3);
        ASSERT_EQ(problem, "") << p.kernel->name << " tensorized schedule #" << n << "\n" << traceText(p);
        analysis::CostReport r = analysis::analyze(lower::lower(p), *target);
        ASSERT_TRUE(r.array) << traceText(p);
        const analysis::ArrayReport& a = *r.array;
        EXPECT_GE(a.arrayMacs, a.usefulMacs) << traceText(p);
        EXPECT_EQ(a.usefulMacs, r.macs);
        EXPECT_GT(a.peUtilisation, 0);
        EXPECT_LE(a.peUtilisation, 1.0);
        EXPECT_LE(a.peakFraction, 1.0);
        EXPECT_GE(a.arrayCycles, a.instructions.compute * target->compute.peArray->computeCycles);
        EXPECT_EQ(a.instructions.compute, a.instructions.preload);
        EXPECT_GE(r.cycles.compute, a.arrayCycles);
    }
}

struct Case {
    const char* kernel;
    std::map<std::string, int64_t> params;
    const char* target;
};

class RandomSchedulesModel : public ::testing::TestWithParam<Case> {};

constexpr int kSchedules = 1000;

TEST_P(RandomSchedulesModel, TrafficEqualsInterpreterAndBoundsHold)
{
    const Case& c = GetParam();
    auto kernel = ir::loadKernelFile(test::kernelPath(c.kernel), c.params);
    ASSERT_TRUE(kernel.ok()) << kernel.errorText();
    std::shared_ptr<const hw::Target> target;
    if (std::string(c.target).find(".yaml") != std::string::npos) {
        auto t = hw::loadTargetFile(test::sourceDir() + "/tests/data/targets/" + c.target);
        ASSERT_TRUE(t.ok()) << t.errorText();
        target = std::make_shared<const hw::Target>(*t);
    } else {
        target = test::builtinTarget(c.target);
    }
    sched::Program initial = sched::Program::initial(std::make_shared<const ir::Kernel>(*kernel), target);
    int feasibleWithBound = 0;
    for (int i = 0; i < kSchedules; ++i) {
        test::Rng rng(0x5EED + i * 104729);
        sched::Program p = test::randomSchedule(initial, rng, 1 + static_cast<int>(rng.below(i % 4 == 0 ? 30 : 10)));
        std::string problem = check(p, 5 + i);
        analysis::CostReport r = analysis::analyze(lower::lower(p), *p.target);
        if (r.bounds.ioLowerBoundBytes && *r.bounds.ioLowerBoundBytes > 0 && !r.hasErrors())
            ++feasibleWithBound;
        ASSERT_EQ(problem, "") << c.kernel << " schedule #" << i << "\ntrace:\n" << traceText(p) << lower::print(lower::lower(p));
    }
    if (std::string(c.target) == "tiny-sram.target.yaml") {
        // The I/O bound must have been put to the test.
        EXPECT_GT(feasibleWithBound, kSchedules / 2);
    }
}

INSTANTIATE_TEST_SUITE_P(
    Examples, RandomSchedulesModel,
    ::testing::Values(Case{"matmul_f32", {{"M", 5}, {"N", 6}, {"K", 7}}, "cortex-m7"},
                      Case{"matmul_int8", {{"M", 6}, {"N", 5}, {"K", 9}}, "gemmini-16x16"},
                      Case{"conv2d_int8", {{"H", 5}, {"W", 6}, {"C", 3}, {"K", 4}}, "cortex-m7"},
                      Case{"conv2d_s2_int8", {{"H", 7}, {"W", 6}, {"C", 2}, {"K", 3}}, "cortex-m4"},
                      Case{"depthwise_conv_int8", {{"H", 5}, {"W", 6}, {"C", 4}}, "cortex-m7"},
                      Case{"depthwise_conv_int8_mult_tflite", {{"H", 4}, {"W", 5}, {"C", 3}, {"M", 2}}, "cortex-m4"},
                      Case{"pointwise_conv_int8", {{"H", 4}, {"W", 5}, {"C", 6}, {"K", 3}}, "gemmini-16x16"},
                      Case{"dwsep_conv", {{"H", 5}, {"W", 6}, {"C", 3}, {"K", 4}}, "cortex-m7"},
                      Case{"dense_int8", {{"B", 2}, {"IN", 9}, {"OUT", 5}}, "cortex-m7"},
                      Case{"dense_int16", {{"B", 2}, {"IN", 8}, {"OUT", 5}}, "cortex-m4"},
                      Case{"scaled_matmul", {}, "cortex-m4"},
                      Case{"matmul_f32", {{"M", 16}, {"N", 16}, {"K", 16}}, "tiny-sram.target.yaml"},
                      Case{"pointwise_conv_int8", {{"H", 8}, {"W", 8}, {"C", 16}, {"K", 16}}, "tiny-sram.target.yaml"}),
    [](const ::testing::TestParamInfo<Case>& info) {
        std::string t = info.param.target;
        return std::string(info.param.kernel) + (t.find(".yaml") != std::string::npos ? "_tiny_sram" : "");
    });

} // namespace
