// Property test: random legal schedules of every example kernel (small sizes) give the same
// result as the unscheduled kernel in the interpreter.
#include "support/random_schedule.h"
#include "support/test_paths.h"

#include "verify/interpreter.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>

using namespace loopscope;

namespace {

struct Case {
    const char* kernel;  ///< file under examples/kernels (or tests/data/kernels)
    std::map<std::string, int64_t> params;
};

std::string traceText(const sched::Program& p)
{
    std::string out;
    for (const auto& s : p.trace)
        out += "  " + sched::describe(s) + (s.stage.empty() ? "" : " [stage " + s.stage + "]") + "\n";
    return out;
}

class RandomSchedules : public ::testing::TestWithParam<Case> {};

constexpr int kSchedulesPerKernel = 1000;

TEST_P(RandomSchedules, InterpreterMatchesReference)
{
    const Case& c = GetParam();
    auto kernel = ir::loadKernelFile(test::kernelPath(c.kernel), c.params);
    ASSERT_TRUE(kernel.ok()) << kernel.errorText();
    auto target = test::builtinTarget("cortex-m7");
    auto k = std::make_shared<const ir::Kernel>(*kernel);
    sched::Program initial = sched::Program::initial(k, target);
    int nonTrivial = 0;
    std::map<sched::Primitive, int> used;
    int producersAtLoops = 0;
    for (int i = 0; i < kSchedulesPerKernel; ++i) {
        test::Rng rng(0x1000 + i * 7919);
        int steps = 1 + static_cast<int>(rng.below(i % 4 == 0 ? 30 : 10));
        sched::Program p = test::randomSchedule(initial, rng, steps);
        nonTrivial += p.trace.empty() ? 0 : 1;
        for (const auto& s : p.trace)
            ++used[s.primitive];
        for (const auto& ss : p.stages)
            producersAtLoops += ss.computeAt.isRoot() ? 0 : 1;
        if (std::getenv("LOOPSCOPE_TRACE_PROPERTY"))
            std::fprintf(stderr, "#%d\n%s", i, traceText(p).c_str());
        verify::VerifyResult r = verify::verifyProgram(p, 17 + i);
        ASSERT_TRUE(r.ok) << c.kernel << " schedule #" << i << ": " << r.message << "\ntrace:\n" << traceText(p)
                          << lower::print(lower::lower(p));
    }
    // Most random schedules must actually change something, and every primitive that can
    // apply to this kernel must be exercised often.
    EXPECT_GT(nonTrivial, kSchedulesPerKernel * 9 / 10);
    for (auto prim : {sched::Primitive::Split, sched::Primitive::Tile, sched::Primitive::Reorder, sched::Primitive::Fuse,
                      sched::Primitive::Unroll, sched::Primitive::Vectorize, sched::Primitive::Parallel,
                      sched::Primitive::CacheRead, sched::Primitive::CacheWrite, sched::Primitive::ComputeAt,
                      sched::Primitive::DoubleBuffer})
        EXPECT_GE(used[prim], 20) << sched::primitiveName(prim);
    if (k->stages.size() > 1) {
        EXPECT_GE(producersAtLoops, 50);
    }
    if (c.kernel == std::string("scaled_matmul")) {
        EXPECT_GE(used[sched::Primitive::ComputeInline], 20);
    }
}

INSTANTIATE_TEST_SUITE_P(
    Examples, RandomSchedules,
    ::testing::Values(Case{"matmul_f32", {{"M", 5}, {"N", 6}, {"K", 7}}},
                      Case{"matmul_int8", {{"M", 6}, {"N", 5}, {"K", 9}}},
                      Case{"conv2d_int8", {{"H", 5}, {"W", 6}, {"C", 3}, {"K", 4}}},
                      Case{"conv2d_s2_int8", {{"H", 7}, {"W", 6}, {"C", 2}, {"K", 3}}},
                      Case{"depthwise_conv_int8", {{"H", 5}, {"W", 6}, {"C", 4}}},
                      Case{"depthwise_conv_int8_mult_tflite", {{"H", 4}, {"W", 5}, {"C", 3}, {"M", 2}}},
                      Case{"pointwise_conv_int8", {{"H", 4}, {"W", 5}, {"C", 6}, {"K", 3}}},
                      Case{"dwsep_conv", {{"H", 5}, {"W", 6}, {"C", 3}, {"K", 4}}},
                      Case{"dense_int8", {{"B", 2}, {"IN", 9}, {"OUT", 5}}},
                      Case{"scaled_matmul", {}}),
    [](const ::testing::TestParamInfo<Case>& info) { return std::string(info.param.kernel); });

} // namespace
