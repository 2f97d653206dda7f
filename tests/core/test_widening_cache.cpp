// cache_read with dtype: int16 — an int8 tensor widened into an int16 buffer that holds the
// stage's input offset already added: preconditions, the lowered nest, the interpreter against
// the reference, traffic, the cost model's transfers and the file round trip.
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
#include <string>
#include <vector>

using namespace loopscope;

namespace {

std::shared_ptr<const ir::Kernel> kernelText(const std::string& text)
{
    auto k = ir::parseKernel(text, "k.kernel.yaml");
    EXPECT_TRUE(k.ok()) << k.errorText();
    return k.ok() ? std::make_shared<const ir::Kernel>(*k) : nullptr;
}

using test::exampleKernel;
using test::replay;
using test::steps;

const lower::Buffer* bufferNamed(const lower::LoopNest& n, const std::string& name)
{
    for (const auto& b : n.buffers)
        if (b.name == name)
            return &b;
    return nullptr;
}

int64_t writtenBytes(const verify::Traffic& t, const std::string& tensor, const std::string& level)
{
    for (const auto& x : t.tensors)
        if (x.tensor == tensor && x.level == level)
            return x.writeBytes;
    return -1;
}

const std::map<std::string, int64_t> kSmallConv = {{"H", 5}, {"W", 6}, {"C", 8}, {"K", 4}};

TEST(WideningCache, HoldsTheInputOffsetAndTheStageDropsItsAddition)
{
    auto k = exampleKernel("conv2d_int8_tflite", kSmallConv);
    auto r = replay(k, "  - split: {loop: c, factor: 4}\n"
                       "  - vectorize: {loop: c.inner}\n"
                       "  - cache_read: {tensor: I, level: SRAM, at: root, dtype: int16}\n"
                       "  - cache_read: {tensor: F, level: SRAM, at: oh, dtype: int16}\n");
    ASSERT_TRUE(r.ok()) << r.error().str();
    const lower::LoopNest n = lower::lower(r.program());
    const lower::Buffer* in = bufferNamed(n, "I_SRAM");
    const lower::Buffer* w = bufferNamed(n, "F_SRAM");
    ASSERT_TRUE(in && w);
    EXPECT_EQ(in->dtype, ir::DType::Int16);
    EXPECT_EQ(in->valueOffset, 128);
    EXPECT_EQ(w->dtype, ir::DType::Int16);
    EXPECT_EQ(w->valueOffset, 0);  // the weights are read without an offset
    const std::string printed = lower::print(n);
    EXPECT_NE(printed.find("alloc I_SRAM: SRAM int16[1, 5, 6, 8]  // cache_read, widened from int8, holds I + 128"), std::string::npos) << printed;
    EXPECT_NE(printed.find("O_acc[0] += i * f"), std::string::npos) << printed;
    EXPECT_NE(printed.find("widened by the core"), std::string::npos) << printed;

    for (uint64_t seed : {1u, 5u, 99u}) {
        verify::VerifyResult v = verify::verifyProgram(r.program(), seed);
        ASSERT_TRUE(v.ok) << v.message << "\n" << printed;
        if (seed == 1) {
            // The int16 buffers are written two bytes per element.
            EXPECT_EQ(writtenBytes(v.traffic, "I", "SRAM"), 5 * 6 * 8 * 2);
            EXPECT_EQ(writtenBytes(v.traffic, "F", "SRAM"), 5 * 4 * 3 * 3 * 8 * 2);
            // The cost model's transfers count the same bytes as the interpreter's writes.
            const analysis::CostReport report = analysis::analyze(n, *r.program().target);
            int64_t modelled = 0;
            for (const auto& t : report.transfers)
                if (t.tensor == "I" && t.to == "SRAM")
                    modelled += t.bytes;
            EXPECT_EQ(modelled, 5 * 6 * 8 * 2);
        }
    }
}

TEST(WideningCache, PaddingPartialTilesAndInnerPlacementsStayExact)
{
    auto k = exampleKernel("conv2d_s2_int8_tflite", {{"H", 9}, {"W", 7}, {"C", 4}, {"K", 3}});
    for (const char* at : {"root", "oh.outer", "oh.inner", "ow", "r"}) {
        auto r = replay(k, std::string("  - split: {loop: oh, factor: 2}\n"
                                       "  - cache_read: {tensor: I, level: SRAM, at: ") + at + ", dtype: int16}\n"
                                       "  - cache_read: {tensor: F, level: SRAM, at: root, dtype: int16}\n");
        ASSERT_TRUE(r.ok()) << at << ": " << r.error().str();
        for (uint64_t seed : {1u, 3u}) {
            verify::VerifyResult v = verify::verifyProgram(r.program(), seed);
            EXPECT_TRUE(v.ok) << "at " << at << ", seed " << seed << ": " << v.message << "\n" << lower::print(lower::lower(r.program()));
        }
    }
}

TEST(WideningCache, DifferentOffsetsKeepPlainValues)
{
    // I is read with two offsets: the buffer holds plain int16 values and the stage keeps its
    // additions; the result is the same.
    auto k = kernelText("name: two\nparams: {N: 6}\ntensors:\n"
                        "  I: {shape: [N], dtype: int8}\n  W: {shape: [N], dtype: int8}\n  O: {shape: [1], dtype: int32}\n"
                        "stages:\n  - compute: \"O[z] += (I[i] + 128) * (I[i] - 3) * W[i]\"\n    axes: {z: 1}\n");
    ASSERT_TRUE(k);
    auto r = replay(k, "  - cache_read: {tensor: I, level: SRAM, at: root, dtype: int16}\n");
    ASSERT_TRUE(r.ok()) << r.error().str();
    EXPECT_EQ(sched::widenedOffset(r.program(), 0, 0), 0);
    const lower::LoopNest n = lower::lower(r.program());
    EXPECT_EQ(bufferNamed(n, "I_SRAM")->valueOffset, 0);
    EXPECT_NE(lower::print(n).find("(i + 128)"), std::string::npos) << lower::print(n);
    EXPECT_TRUE(verify::verifyProgram(r.program(), 1).ok);
}

TEST(WideningCache, PreconditionsNameTheTensorAndTheReason)
{
    auto conv = exampleKernel("conv2d_int8_tflite", kSmallConv);
    auto expectRefused = [&](const std::shared_ptr<const ir::Kernel>& k, const std::string& text, const std::string& fragment) {
        auto r = replay(k, text);
        ASSERT_FALSE(r.ok()) << text;
        EXPECT_NE(r.error().message.find(fragment), std::string::npos) << r.error().message;
    };
    expectRefused(conv, "  - cache_read: {tensor: bias, level: SRAM, at: root, dtype: int16}\n", "widens int8 to int16 only");
    expectRefused(conv, "  - cache_read: {tensor: I, level: SRAM, at: root, dtype: int32}\n", "widens int8 to int16 only");
    expectRefused(conv, "  - cache_read: {tensor: I, level: SRAM, at: root, dtype: int4}\n", "unknown dtype 'int4'");
    expectRefused(conv, "  - split: {loop: oh, factor: 2}\n  - cache_read: {tensor: I, level: SRAM, at: oh.outer, dtype: int16}\n"
                        "  - double_buffer: {tensor: I, level: SRAM}\n",
                  "widened to int16");
    auto matmul = exampleKernel("matmul_int8", {{"M", 4}, {"N", 4}, {"K", 4}});
    auto gemmini = sched::replay(matmul, test::builtinTarget("gemmini-16x16"),
                                 steps("  - cache_read: {tensor: A, level: scratchpad, at: root, dtype: int16}\n"));
    ASSERT_TRUE(gemmini.ok()) << gemmini.error().str();
    auto t = sched::apply(gemmini.program(), steps("  - tensorize: {loops: [i, j, k], intrinsic: gemmini_matmul, dataflow: weight_stationary}\n")[0]);
    ASSERT_FALSE(t.ok());
    EXPECT_NE(t.error().message.find("widened to int16"), std::string::npos) << t.error().message;
    // A widening cache is the tensor's only cache in the stage (with only two levels on the
    // Cortex-M targets, a second cache needs a target with three).
    auto three = test::builtinTarget("gemmini-16x16");
    ASSERT_TRUE(three && three->levels.size() >= 3);
    {
        auto r = sched::replay(matmul, three,
                               steps("  - cache_read: {tensor: A, level: " + three->levels[1].name + ", at: root, dtype: int16}\n"
                                     "  - cache_read: {tensor: A, level: " + three->levels[2].name + ", at: root}\n"));
        ASSERT_FALSE(r.ok());
        EXPECT_NE(r.error().message.find("only cache"), std::string::npos) << r.error().message;
    }
    // cache_write has no dtype: the file parser names the allowed parameters.
    auto f = sched::parseScheduleFile("kernel: k.kernel.yaml\ntarget: cortex-m7\nsteps:\n"
                                      "  - cache_write: {tensor: O, level: SRAM, at: root, dtype: int16}\n",
                                      "s.sched.yaml");
    ASSERT_FALSE(f.ok());
    EXPECT_NE(f.errorText().find("s.sched.yaml:4:"), std::string::npos) << f.errorText();
    EXPECT_NE(f.errorText().find("unknown parameter 'dtype'"), std::string::npos) << f.errorText();
}

TEST(WideningCache, TheDtypeRoundTripsThroughScheduleFiles)
{
    auto k = exampleKernel("conv2d_int8_tflite", kSmallConv);
    auto r = replay(k, "  - cache_read: {tensor: I, level: SRAM, at: oh, dtype: int16}\n");
    ASSERT_TRUE(r.ok()) << r.error().str();
    const test::RoundTrip again = test::roundTrip(r.program().trace);
    EXPECT_NE(again.text.find("dtype: int16"), std::string::npos) << again.text;
    ASSERT_EQ(again.steps.size(), 1u);
    EXPECT_EQ(again.steps[0], r.program().trace[0]);
    EXPECT_EQ(sched::describe(again.steps[0]), "cache_read I into SRAM at oh as int16");
}

} // namespace
