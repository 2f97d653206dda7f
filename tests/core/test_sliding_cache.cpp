// cache_read with slide: a sliding-window cache that keeps the overlap of consecutive tiles and
// fetches only the new part: preconditions, the lowered nest, the interpreter against the
// reference, the cost model's traffic against the interpreter's byte for byte (on hand-written and
// random schedules), and the file round trip.
#include "support/random_schedule.h"
#include "support/step_text.h"
#include "support/test_paths.h"

#include "analysis/cost_report.h"
#include "ir/kernel.h"
#include "lower/loop_nest.h"
#include "sched/program.h"
#include "sched/schedule_file.h"
#include "verify/interpreter.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

using namespace loopscope;

namespace {

using test::exampleKernel;
using test::replay;
using test::steps;

int64_t readBytes(const verify::Traffic& t, const std::string& tensor, const std::string& level)
{
    for (const auto& e : t.tensors)
        if (e.tensor == tensor && e.level == level)
            return e.readBytes;
    return 0;
}

/// The model's traffic against the interpreter's, every level and tensor ("" when equal), and the
/// interpreter's result against the reference.
std::string check(const sched::Program& p, uint64_t seed)
{
    verify::VerifyResult v = verify::verifyProgram(p, seed);
    if (!v.ok)
        return "verify: " + v.message;
    lower::LoopNest nest = lower::lower(p);
    analysis::CostReport r = analysis::analyze(nest, *p.target);
    std::ostringstream err;
    for (size_t l = 0; l < r.levels.size(); ++l)
        if (r.levels[l].readBytes != v.traffic.levels[l].readBytes || r.levels[l].writeBytes != v.traffic.levels[l].writeBytes)
            err << "level " << r.levels[l].name << ": model " << r.levels[l].readBytes << "/" << r.levels[l].writeBytes << " interpreter "
                << v.traffic.levels[l].readBytes << "/" << v.traffic.levels[l].writeBytes << "\n";
    if (r.tensors.size() != v.traffic.tensors.size())
        err << "tensor entries differ\n";
    else
        for (size_t i = 0; i < r.tensors.size(); ++i)
            if (r.tensors[i].readBytes != v.traffic.tensors[i].readBytes || r.tensors[i].writeBytes != v.traffic.tensors[i].writeBytes)
                err << r.tensors[i].name << "@" << r.tensors[i].level << ": model " << r.tensors[i].readBytes << "/" << r.tensors[i].writeBytes
                    << " interpreter " << v.traffic.tensors[i].readBytes << "/" << v.traffic.tensors[i].writeBytes << "\n";
    // What the DMA hooks move (report.transfers) is what the interpreter counts written into the caches.
    for (const auto& t : r.transfers)
        if (t.from == p.target->levels[0].name && p.kernel->producerOf(p.kernel->findTensor(t.tensor)) < 0) {
            int64_t written = 0;
            for (const auto& e : v.traffic.tensors)
                if (e.tensor == t.tensor && e.level == t.to)
                    written = e.writeBytes;
            if (written != t.bytes)
                err << "transfer " << t.tensor << " " << t.from << "->" << t.to << ": model " << t.bytes << " interpreter writes " << written << "\n";
        }
    return err.str();
}

const std::map<std::string, int64_t> kSmallConv = {{"H", 7}, {"W", 5}, {"C", 4}, {"K", 3}};

TEST(SlidingCache, KeepsTheOverlapAndFetchesEachInputRowOnce)
{
    auto k = exampleKernel("conv2d_int8_tflite", kSmallConv);
    auto plain = replay(k, "  - cache_read: {tensor: I, level: SRAM, at: oh}\n");
    auto slide = replay(k, "  - cache_read: {tensor: I, level: SRAM, at: oh, slide: oh}\n");
    ASSERT_TRUE(plain.ok()) << plain.error().str();
    ASSERT_TRUE(slide.ok()) << slide.error().str();
    const lower::LoopNest n = lower::lower(slide.program());
    const std::string text = lower::print(n);
    // The buffer lives outside oh, three rows rolling in four places (a power of two: the row index
    // is an AND); the whole tile on the first iteration, then one new row.
    EXPECT_NE(text.find("alloc I_SRAM: SRAM int8[1, 4, 5, 4]  // cache_read, sliding along oh: rows of dimension 1 kept modulo 4\n  for oh in 0..7:"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("if 0 <= oh <= 0:  // sliding window\n      copy I[n, 0 : +2, 0 : +5, 0 : +4]"), std::string::npos) << text;
    EXPECT_NE(text.find("new part only (the rest is kept)"), std::string::npos) << text;
    for (uint64_t seed : {1u, 2u, 3u})
        EXPECT_EQ(check(slide.program(), seed), "") << text;
    // Each input row crosses from DRAM once (7 rows of 5 x 4); without slide the band of three is
    // refetched for every output row: 2 + 3 * 5 + 2 rows.
    verify::VerifyResult a = verify::verifyProgram(plain.program(), 1);
    verify::VerifyResult b = verify::verifyProgram(slide.program(), 1);
    EXPECT_EQ(readBytes(b.traffic, "I", "DRAM"), 7 * 5 * 4);
    EXPECT_EQ(readBytes(a.traffic, "I", "DRAM"), (2 + 3 * 5 + 2) * 5 * 4);
    // The compute reads the same bytes from SRAM either way.
    EXPECT_EQ(readBytes(a.traffic, "I", "SRAM"), readBytes(b.traffic, "I", "SRAM"));
    analysis::CostReport r = analysis::analyze(n, *slide.program().target);
    int64_t transfer = 0;
    for (const auto& t : r.transfers)
        if (t.tensor == "I")
            transfer += t.bytes;
    EXPECT_EQ(transfer, 7 * 5 * 4);
    for (const auto& d : r.diagnostics)
        EXPECT_NE(d.code, "redundant-reload") << d.message;
}

TEST(SlidingCache, SplitsStridesPaddingAndPartialTilesStayExact)
{
    struct Case {
        const char* kernel;
        std::map<std::string, int64_t> params;
        const char* steps;
    };
    const std::vector<Case> cases = {
        // A band of 3 output rows (5 input rows), moving by 3: 2 rows kept; 7 = 3 + 3 + 1 (partial).
        {"conv2d_int8_tflite", kSmallConv,
         "  - split: {loop: oh, factor: 3}\n  - cache_read: {tensor: I, level: SRAM, at: oh.outer, slide: oh.outer}\n"},
        // Split after the cache: it moves to oh.inner with its slide.
        {"conv2d_int8_tflite", kSmallConv, "  - cache_read: {tensor: I, level: SRAM, at: oh, slide: oh}\n  - split: {loop: oh, factor: 3}\n"},
        // Along the columns, inside the rows.
        {"conv2d_int8_tflite", kSmallConv, "  - cache_read: {tensor: I, level: SRAM, at: ow, slide: ow}\n"},
        // Stride 2: a window of 3 rows moving by 2 keeps 1.
        {"conv2d_s2_int8", {{"H", 9}, {"W", 7}, {"C", 2}, {"K", 3}}, "  - cache_read: {tensor: I, level: SRAM, at: oh, slide: oh}\n"},
        {"conv2d_s2_int8", {{"H", 9}, {"W", 7}, {"C", 2}, {"K", 3}},
         "  - split: {loop: ow, factor: 2}\n  - reorder: {loops: [oh, ow.outer, k, r, s, ow.inner, c]}\n"
         "  - cache_read: {tensor: I, level: SRAM, at: ow.outer, slide: ow.outer}\n"},
        // Widened and transposed sliding caches; a second, inner cache reading from the sliding one.
        {"conv2d_int8_tflite", kSmallConv, "  - cache_read: {tensor: I, level: SRAM, at: oh, slide: oh, dtype: int16}\n"},
        {"conv2d_int8_tflite", kSmallConv, "  - cache_read: {tensor: I, level: SRAM, at: oh, slide: oh, layout: [0, 1, 3, 2]}\n"},
        // Depthwise: rows of every channel.
        {"depthwise_conv_int8", {{"H", 6}, {"W", 5}, {"C", 4}}, "  - cache_read: {tensor: I, level: SRAM, at: h, slide: h}\n"},
    };
    for (const Case& c : cases) {
        auto k = exampleKernel(c.kernel, c.params);
        auto r = replay(k, c.steps);
        ASSERT_TRUE(r.ok()) << c.steps << r.error().str();
        bool slides = false;
        for (const auto& cs : r.program().caches)
            slides = slides || cs.slideVar >= 0;
        EXPECT_TRUE(slides) << c.steps;
        for (uint64_t seed : {1u, 5u})
            EXPECT_EQ(check(r.program(), seed), "") << c.kernel << "\n" << c.steps << lower::print(lower::lower(r.program()));
    }
}

TEST(SlidingCache, IllegalUsesNameTheStepTheLoopAndTheTensorAndChangeNothing)
{
    auto conv = exampleKernel("conv2d_int8_tflite", kSmallConv);
    auto refused = [&](const std::shared_ptr<const ir::Kernel>& k, const std::string& text, const std::string& fragment, int step,
                       const std::string& loop) {
        auto r = replay(k, text);
        ASSERT_FALSE(r.ok()) << text;
        EXPECT_NE(r.error().message.find(fragment), std::string::npos) << r.error().message;
        EXPECT_EQ(r.error().stepIndex, step) << r.error().str();
        EXPECT_EQ(r.error().loops, std::vector<std::string>{loop}) << r.error().str();
        EXPECT_FALSE(r.error().tensors.empty()) << r.error().str();
        // apply() on the program before the step leaves it unchanged.
        std::vector<sched::Step> all = steps(text);
        std::vector<sched::Step> before(all.begin(), all.begin() + step);
        auto ok = sched::replay(k, test::builtinTarget("cortex-m7"), before);
        ASSERT_TRUE(ok.ok());
        const sched::Program copy = ok.program();
        EXPECT_FALSE(sched::apply(ok.program(), all[step]).ok());
        EXPECT_EQ(ok.program().caches.size(), copy.caches.size());
        EXPECT_EQ(ok.program().trace.size(), copy.trace.size());
    };
    refused(conv, "  - cache_read: {tensor: I, level: SRAM, at: oh, slide: ow}\n", "sits at the loop it slides along", 0, "ow");
    refused(conv, "  - cache_read: {tensor: I, level: SRAM, at: root, slide: oh}\n", "sits at the loop it slides along", 0, "oh");
    {
        auto r = replay(conv, "  - cache_read: {tensor: I, level: SRAM, at: oh, slide: nope}\n");
        ASSERT_FALSE(r.ok());
        EXPECT_NE(r.error().message.find("nope is not a loop of stage"), std::string::npos) << r.error().message;
    }
    {
        // A file can't say it (slide is no cache_write parameter); a program can.
        auto r = replay(conv, "  - split: {loop: oh, factor: 1}\n");
        ASSERT_TRUE(r.ok());
        sched::Step w;
        w.primitive = sched::Primitive::CacheWrite;
        w.tensor = "O";
        w.level = "SRAM";
        w.at = "oh.inner";
        w.slide = "oh.inner";
        auto refusedWrite = sched::apply(r.program(), w);
        ASSERT_FALSE(refusedWrite.ok());
        EXPECT_NE(refusedWrite.error().message.find("cache_write can't slide"), std::string::npos) << refusedWrite.error().message;
        EXPECT_EQ(refusedWrite.error().loops, std::vector<std::string>{"oh.inner"});
    }
    refused(conv, "  - cache_read: {tensor: I, level: SRAM, at: k, slide: k}\n", "is the same in every iteration of k", 0, "k");
    refused(conv, "  - cache_read: {tensor: F, level: SRAM, at: k, slide: k}\n", "do not overlap", 0, "k");
    refused(conv, "  - cache_read: {tensor: bias, level: SRAM, at: k, slide: k}\n", "requantize parameter", 0, "k");
    refused(conv, "  - cache_read: {tensor: I, level: SRAM, at: oh, slide: oh}\n  - double_buffer: {tensor: I, level: SRAM}\n",
            "and double-buffer it", 1, "oh");
    refused(conv, "  - cache_read: {tensor: I, level: SRAM, at: oh, slide: oh}\n  - parallel: {loop: oh}\n", "parallel loop", 1, "oh");
    refused(conv, "  - cache_read: {tensor: I, level: SRAM, at: oh, slide: oh}\n  - compute_at: {tensor: I, level: SRAM, at: ow}\n",
            "slides along oh but sits at ow", 1, "oh");
    refused(conv, "  - fuse: {loops: [oh, ow]}\n  - cache_read: {tensor: I, level: SRAM, at: oh.ow.fused, slide: oh.ow.fused}\n", "fused loop", 1,
            "oh.ow.fused");
    // A window that moves by more than it is wide: one output row per iteration of a stride-2 layer
    // whose reduction rows are outside.
    auto s2 = exampleKernel("conv2d_s2_int8", {{"H", 9}, {"W", 7}, {"C", 2}, {"K", 3}});
    refused(s2, "  - reorder: {loops: [n, r, oh, ow, s, c, k]}\n  - cache_read: {tensor: I, level: SRAM, at: oh, slide: oh}\n",
            "do not overlap", 1, "oh");
    // A strided window: oh inside the cache's loop r takes every second input row.
    refused(s2, "  - reorder: {loops: [n, r, oh, ow, s, c, k]}\n  - cache_read: {tensor: I, level: SRAM, at: r, slide: r}\n",
            "strided window", 1, "r");
}

TEST(SlidingCache, RandomSchedulesWithSlidesMatchTheReferenceAndTheModel)
{
    struct Case {
        const char* kernel;
        std::map<std::string, int64_t> params;
    };
    const std::vector<Case> cases = {
        {"conv2d_int8", {{"H", 5}, {"W", 6}, {"C", 3}, {"K", 4}}},
        {"conv2d_s2_int8", {{"H", 7}, {"W", 6}, {"C", 2}, {"K", 3}}},
        {"conv2d_int8_tflite", {{"H", 6}, {"W", 5}, {"C", 4}, {"K", 2}}},
        {"depthwise_conv_int8", {{"H", 5}, {"W", 6}, {"C", 4}}},
        {"dwsep_conv", {{"H", 5}, {"W", 6}, {"C", 3}, {"K", 4}}},
    };
    int sliding = 0;
    for (const Case& c : cases) {
        auto k = exampleKernel(c.kernel, c.params);
        sched::Program initial = sched::Program::initial(k, test::builtinTarget("cortex-m7"));
        for (int i = 0; i < 2000; ++i) {
            test::Rng rng(0x51DE + i * 7919);
            sched::Program p = test::withSlides(test::randomSchedule(initial, rng, 1 + static_cast<int>(rng.below(12))));
            bool slides = false;
            for (const auto& cs : p.caches)
                slides = slides || cs.slideVar >= 0;
            if (!slides)
                continue;
            ++sliding;
            std::string trace;
            for (const auto& s : p.trace)
                trace += "  " + sched::describe(s) + "\n";
            ASSERT_EQ(check(p, 11 + i), "") << c.kernel << " #" << i << "\n" << trace << lower::print(lower::lower(p));
        }
    }
    EXPECT_GE(sliding, 250);
}

TEST(SlidingCache, TheSlideRoundTripsThroughScheduleFiles)
{
    auto k = exampleKernel("conv2d_int8_tflite", kSmallConv);
    auto r = replay(k, "  - cache_read: {tensor: I, level: SRAM, at: oh, slide: oh}\n");
    ASSERT_TRUE(r.ok()) << r.error().str();
    const test::RoundTrip again = test::roundTrip(r.program().trace);
    EXPECT_NE(again.text.find("cache_read: {tensor: I, level: SRAM, at: oh, slide: oh}"), std::string::npos) << again.text;
    ASSERT_EQ(again.steps.size(), 1u);
    EXPECT_EQ(again.steps[0], r.program().trace[0]);
    EXPECT_EQ(sched::describe(again.steps[0]), "cache_read I into SRAM at oh, sliding along oh");
    // slide is a cache_read parameter only: the parser names the allowed ones.
    auto f = sched::parseScheduleFile("kernel: k.kernel.yaml\ntarget: cortex-m7\nsteps:\n"
                                      "  - double_buffer: {tensor: I, level: SRAM, slide: oh}\n",
                                      "s.sched.yaml");
    ASSERT_FALSE(f.ok());
    EXPECT_NE(f.errorText().find("s.sched.yaml:4:"), std::string::npos) << f.errorText();
    EXPECT_NE(f.errorText().find("unknown parameter 'slide'"), std::string::npos) << f.errorText();
}

} // namespace
