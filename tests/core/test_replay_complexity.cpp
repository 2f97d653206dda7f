// Replay is linear in the length of the trace (issue 16, item 3: each step used to copy the
// whole trace, so 16,000 steps took over 30 s). Timing is no test: this counts the bytes the
// program allocates while replaying, which a copy per step makes grow with the square of the
// number of steps. Its own executable: it replaces the global operator new.
#include "support/test_paths.h"

#include "sched/schedule_file.h"
#include "target_loader.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>

namespace {
std::atomic<uint64_t> g_bytes{0};
}

void* operator new(std::size_t n)
{
    g_bytes.fetch_add(n, std::memory_order_relaxed);
    if (void* p = std::malloc(n ? n : 1))
        return p;
    throw std::bad_alloc();
}
// GCC 12 takes the replaced operator new's malloc for a mismatch with free here
// (-Wmismatched-new-delete): both are this file's own pair, which matches.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

using namespace loopscope;

namespace {

/// A trace of `n` steps that keeps the program the same size: reorders back and forth.
std::vector<sched::Step> reorders(int n)
{
    std::vector<sched::Step> steps;
    for (int i = 0; i < n; ++i) {
        sched::Step s;
        s.primitive = sched::Primitive::Reorder;
        s.loops = i % 2 ? std::vector<std::string>{"i", "j", "k"} : std::vector<std::string>{"j", "i", "k"};
        s.loc = SourceLoc{"a/path/of/some/length/to/the/schedule.sched.yaml", 10 + i, 5};
        steps.push_back(s);
    }
    return steps;
}

uint64_t bytesToReplay(int n)
{
    auto k = ir::loadKernelFile(test::kernelPath("matmul_f32"));
    EXPECT_TRUE(k.ok());
    auto kernel = std::make_shared<const ir::Kernel>(std::move(*k));
    auto target = test::builtinTarget("cortex-m7");
    const std::vector<sched::Step> steps = reorders(n);
    const uint64_t before = g_bytes.load();
    sched::ApplyResult r = sched::replay(kernel, target, steps);
    const uint64_t used = g_bytes.load() - before;
    EXPECT_TRUE(r.ok());
    EXPECT_EQ(r.program().trace.size(), static_cast<size_t>(n));
    return used;
}

} // namespace

TEST(ReplayComplexity, BytesAllocatedGrowLinearlyWithTheSteps)
{
    const uint64_t b2k = bytesToReplay(2000);
    const uint64_t b4k = bytesToReplay(4000);
    const uint64_t b16k = bytesToReplay(16000);
    // Linear: twice the steps, twice the bytes (a little more for the vector's growth). A copy
    // of the trace per step gave 4x and 64x.
    EXPECT_LT(static_cast<double>(b4k) / b2k, 2.5) << b2k << " bytes for 2000 steps, " << b4k << " for 4000";
    EXPECT_LT(static_cast<double>(b16k) / b2k, 10.0) << b2k << " bytes for 2000 steps, " << b16k << " for 16000";
    // And in absolute terms: a few KiB per step, not the trace per step.
    EXPECT_LT(b16k / 16000, 8192u) << b16k;
}

TEST(ReplayComplexity, OpeningAScheduleOf16000StepsIsLinearToo)
{
    auto bytesToOpen = [](int n) {
        std::string text = "kernel: " + test::kernelPath("matmul_f32") + "\ntarget: cortex-m7\nsteps:\n";
        for (int i = 0; i < n; ++i)
            text += i % 2 ? "  - reorder: {loops: [i, j, k]}\n" : "  - reorder: {loops: [j, i, k]}\n";
        auto file = sched::parseScheduleFile(text, "s.sched.yaml");
        EXPECT_TRUE(file.ok());
        const uint64_t before = g_bytes.load();
        auto o = sched::openScheduleFile(*file, "", [](const std::string& n, const std::string& d) { return hw::resolveTarget(n, d); });
        EXPECT_TRUE(o.ok()) << o.errorText();
        return g_bytes.load() - before;
    };
    const uint64_t b2k = bytesToOpen(2000);
    const uint64_t b16k = bytesToOpen(16000);
    EXPECT_LT(static_cast<double>(b16k) / b2k, 10.0) << b2k << " bytes for 2000 steps, " << b16k << " for 16000";
}
