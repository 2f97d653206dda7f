// IndexPool building expressions while its node vector grows, and the schedules that once made
// lowering read freed memory (issue 16, item 1). Run with MALLOC_PERTURB_ set (see
// tests/CMakeLists.txt) so that freed memory is overwritten and a stale reference shows even in
// a release build, not only under AddressSanitizer.
#include "support/test_paths.h"
#include "support/step_text.h"

#include "lower/loop_nest.h"
#include "sched/program.h"
#include "verify/interpreter.h"

#include <gtest/gtest.h>

using namespace loopscope;
using lower::IndexId;
using lower::IndexPool;

namespace {

/// Fills the pool with constants until its node vector is full, so that the next node
/// appended reallocates it.
void fillToCapacity(IndexPool& pool)
{
    // capacity() is not exposed: grow until a push would cross a power of two, the growth
    // pattern of every standard library this builds with; then one more node reallocates.
    size_t n = pool.size();
    size_t target = 1;
    while (target <= n)
        target *= 2;
    while (pool.size() < target)
        pool.constant(static_cast<int64_t>(pool.size()) + 1000);
}

} // namespace

TEST(IndexPool, AddConstThroughMinWhileTheNodesReallocate)
{
    for (int extra = 0; extra < 40; ++extra) {
        IndexPool pool;
        const IndexId i = pool.slot(0);
        const IndexId m = pool.min(pool.addConst(i, 3), pool.constant(9));
        for (int k = 0; k < extra; ++k)
            pool.constant(k);
        fillToCapacity(pool);
        // min(i + 3, 9) + 5 = min(i + 8, 14): two new nodes at least, the first reallocating.
        const IndexId r = pool.addConst(m, 5);
        for (int64_t v : {0, 1, 5, 6, 7, 20}) {
            const int64_t slots[] = {v};
            EXPECT_EQ(pool.eval(r, slots), std::min<int64_t>(v + 8, 14)) << "i = " << v << ", extra " << extra;
        }
        auto [lo, hi] = pool.bounds(r, {10});
        EXPECT_EQ(lo, 8);
        EXPECT_EQ(hi, 14);
    }
}

TEST(IndexPool, MaxAndMinNestedUnderAddConst)
{
    IndexPool pool;
    const IndexId i = pool.slot(0);
    const IndexId e = pool.max(pool.constant(0), pool.min(pool.addConst(i, -2), pool.constant(4)));
    fillToCapacity(pool);
    const IndexId r = pool.addConst(e, 1);
    for (int64_t v = 0; v < 10; ++v) {
        const int64_t slots[] = {v};
        EXPECT_EQ(pool.eval(r, slots), std::max<int64_t>(0, std::min<int64_t>(v - 2, 4)) + 1) << v;
    }
}

namespace {

/// examples/schedules/conv2d_int8_tiled.sched.yaml with another split factor.
sched::Program conv2dTiled(int64_t factor)
{
    auto k = ir::loadKernelFile(test::kernelPath("conv2d_int8"));
    EXPECT_TRUE(k.ok()) << k.errorText();
    sched::Program p = sched::Program::initial(std::make_shared<const ir::Kernel>(*k), test::builtinTarget("cortex-m7"));
    std::vector<sched::Step> steps;
    sched::Step s = test::loopStep(sched::Primitive::Split);
    s.loops = {"oh"};
    s.factor = factor;
    steps.push_back(s);
    s = test::loopStep(sched::Primitive::CacheRead);
    s.tensor = "F", s.level = "SRAM", s.at = "root";
    steps.push_back(s);
    s = test::loopStep(sched::Primitive::CacheRead);
    s.tensor = "I", s.level = "SRAM", s.at = "oh.outer";
    steps.push_back(s);
    s = test::loopStep(sched::Primitive::DoubleBuffer);
    s.tensor = "I", s.level = "SRAM";
    steps.push_back(s);
    s = test::loopStep(sched::Primitive::CacheWrite);
    s.tensor = "O", s.level = "SRAM", s.at = "oh.outer";
    steps.push_back(s);
    s = test::loopStep(sched::Primitive::Reorder);
    s.loops = {"k", "r", "s", "c"};
    steps.push_back(s);
    s = test::loopStep(sched::Primitive::Unroll);
    s.loops = {"s"};
    steps.push_back(s);
    auto r = sched::replay(p.kernel, p.target, steps);
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().str());
    return r.ok() ? r.program() : p;
}

} // namespace

// Every factor of oh (extent 16), dividing or not: the partial last tile of a cache stage at
// oh.outer clips its region with min(), which addConst then shifts.
class LowerPartialTileCache : public ::testing::TestWithParam<int64_t> {};

TEST_P(LowerPartialTileCache, VerifiesAgainstTheReference)
{
    const sched::Program p = conv2dTiled(GetParam());
    const lower::LoopNest nest = lower::lower(p);
    EXPECT_NE(lower::print(nest).find("oh.outer"), std::string::npos);
    const verify::VerifyResult v = verify::verifyProgram(p, 1);
    EXPECT_TRUE(v.ok) << v.message;
}

INSTANTIATE_TEST_SUITE_P(Factors, LowerPartialTileCache, ::testing::Range<int64_t>(1, 17));

// d4c2d9d: printing a nest used to build its relative indices in the nest's own pool (through a
// const_cast), growing the node vector a measuring worker reads on another thread. The printer
// works in a copy: the shared nest is left exactly as it was.
TEST(IndexPool, PrintingANestLeavesItsPoolAsItWas)
{
    for (int64_t factor : {4, 5}) {
        const lower::LoopNest nest = lower::lower(conv2dTiled(factor));
        const size_t before = nest.index.size();
        const std::string printed = lower::print(nest);
        EXPECT_NE(printed.find("I_SRAM"), std::string::npos) << printed;
        EXPECT_EQ(nest.index.size(), before) << "factor " << factor;
    }
}
