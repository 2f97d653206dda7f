// Property test of tensorize: random tensorized schedules (matmuls and convolutions with partial
// blocks, both dataflows, double buffers, stride 2, zero padding and an input offset) lower to
// nests whose interpreted result equals the reference exactly.
#include "support/random_tensorize.h"
#include "support/test_paths.h"

#include "lower/loop_nest.h"
#include "verify/interpreter.h"

#include <gtest/gtest.h>

using namespace loopscope;

namespace {

std::string traceText(const sched::Program& p)
{
    std::string out;
    for (const auto& s : p.trace)
        out += "  " + sched::describe(s) + "\n";
    return out;
}

} // namespace

TEST(TensorizeProperty, RandomTensorizedSchedulesMatchTheReference)
{
    auto target = test::builtinTarget("gemmini-16x16");
    ASSERT_TRUE(target);
    int weightStationary = 0, outputStationary = 0, doubleBuffered = 0, partial = 0, reused = 0;
    constexpr int kSchedules = 160;
    for (int n = 0; n < kSchedules; ++n) {
        test::Rng rng(0x7E45 + 7919 * n);
        sched::Program p = test::randomTensorized(n, rng, target);
        ASSERT_TRUE(p.kernel) << "schedule #" << n;
        ASSERT_TRUE(p.stages[0].tensorize);
        (p.stages[0].tensorize->dataflow == sched::Dataflow::WeightStationary ? weightStationary : outputStationary)++;
        for (const auto& c : p.caches)
            doubleBuffered += c.doubleBuffer ? 1 : 0;
        lower::LoopNest nest = lower::lower(p);
        ASSERT_EQ(nest.matmuls.size(), 1u) << traceText(p);
        int64_t rows = 0;
        partial += nest.index.isConst(nest.matmuls[0].rows, &rows) && nest.index.isConst(nest.matmuls[0].cols) && nest.index.isConst(nest.matmuls[0].depth) ? 0 : 1;
        reused += nest.matmuls[0].reuseSlot >= 0 ? 1 : 0;
        for (uint64_t seed : {1u, 2u}) {
            verify::VerifyResult v = verify::verifyProgram(p, seed);
            ASSERT_TRUE(v.ok) << p.kernel->name << " schedule #" << n << " seed " << seed << ": " << v.message << "\ntrace:\n" << traceText(p) << lower::print(nest);
        }
    }
    // The generator covers what it claims to.
    EXPECT_GT(weightStationary, kSchedules / 4);
    EXPECT_GT(outputStationary, kSchedules / 4);
    EXPECT_GT(doubleBuffered, kSchedules / 8);
    EXPECT_GT(partial, kSchedules / 8);
    EXPECT_GT(reused, kSchedules / 8);
}
