// The input offset folded into the bias by the C export (lower::OffsetFold, codegen/c_fold.h):
// which stages fold, what the kernel and <kernel>_prepare look like, and that the folded export
// gives the reference's outputs on the host (sanitizers), also for an offset subtracted.
#include "support/temp_dir.h"
#include "support/test_paths.h"

#include "analysis/cost_report.h"
#include "codegen/c_codegen.h"
#include "ir/kernel.h"
#include "lower/loop_nest.h"
#include "sched/schedule_file.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>

using namespace loopscope;
namespace fs = std::filesystem;

namespace {

/// A kernel (file text, or an example's name) scheduled by `steps` for `target`, lowered.
lower::LoopNest lowered(const std::string& kernelText, const std::string& steps, const std::string& target = "cortex-m7")
{
    auto kernel = ir::parseKernel(kernelText, "k.kernel.yaml");
    EXPECT_TRUE(kernel.ok()) << kernel.errorText();
    if (!kernel)
        return {};
    auto file = sched::parseScheduleFile("kernel: k.kernel.yaml\ntarget: " + target + "\nsteps:" + (steps.empty() ? " []\n" : "\n" + steps), "s.sched.yaml");
    EXPECT_TRUE(file.ok()) << file.errorText();
    auto r = sched::replay(std::make_shared<const ir::Kernel>(std::move(*kernel)), test::builtinTarget(target), file->steps);
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().str());
    if (!r.ok())
        return {};
    return lower::lower(r.program());
}

std::string exampleText(const std::string& name, const std::map<std::string, std::string>& params = {})
{
    std::string text = test::readText(test::kernelPath(name));
    for (const auto& [from, to] : params)
        text = std::regex_replace(text, std::regex(from), to);
    return text;
}

/// The kernel function's body in the generated source (after <kernel>_prepare).
std::string kernelBody(const lower::LoopNest& n)
{
    const std::string src = codegen::generateSource(n);
    const std::string sig = "void " + codegen::cIdentifier(n.kernel->name) + "(";
    const size_t at = src.find(sig);
    return at == std::string::npos ? std::string() : src.substr(at);
}

/// Exports with the harness's main.c, compiles with sanitizers, runs: "" or what went wrong.
std::string runOnHost(const lower::LoopNest& n, const std::string& name)
{
    const fs::path dir = test::processTempDir("loopscope-fold") / name;
    fs::remove_all(dir);
    fs::create_directories(dir);
    const std::string kid = codegen::cIdentifier(n.kernel->name);
    std::ofstream(dir / (kid + ".h")) << codegen::generateHeader(n);
    std::ofstream(dir / (kid + ".c")) << codegen::generateSource(n);
    std::ofstream(dir / "main.c") << codegen::generateHarnessMain(n, 3);
    test::RunResult cc = test::run("cc -std=c99 -Wall -Wextra -Werror -Wshadow -Wmissing-prototypes -Wstrict-prototypes -O1 -fsanitize=address,undefined "
                                   "-fno-sanitize-recover=all -o "
                                   + (dir / "k").string() + " " + (dir / (kid + ".c")).string() + " " + (dir / "main.c").string());
    if (cc.exitCode != 0)
        return "compile failed:\n" + cc.output;
    test::RunResult exe = test::run((dir / "k").string());
    if (exe.exitCode != 0 || exe.output.find("mismatches 0\n") == std::string::npos)
        return "run failed:\n" + exe.output;
    fs::remove_all(dir);
    return "";
}

TEST(OffsetFold, DenseFoldsItsInputOffsetIntoTheBias)
{
    const lower::LoopNest n = lowered(exampleText("dense_int8"), "  - split: {loop: o, factor: 4}\n");
    ASSERT_EQ(n.offsetFolds.size(), 1u);
    const lower::OffsetFold& f = n.offsetFolds[0];
    EXPECT_EQ(f.stage, 0);
    EXPECT_EQ(f.input, n.kernel->findTensor("X"));
    EXPECT_EQ(f.weights, n.kernel->findTensor("Wt"));
    EXPECT_EQ(f.bias, n.kernel->findTensor("bias"));
    EXPECT_EQ(f.offset, 128);
    // The kernel multiplies the raw input; <kernel>_prepare sums each output channel's weights.
    const std::string body = kernelBody(n);
    ASSERT_FALSE(body.empty());
    EXPECT_EQ(body.find("+ 128"), std::string::npos) << body;
    EXPECT_NE(body.find("Y_acc += r_x * r_wt;"), std::string::npos) << body;
    const std::string src = codegen::generateSource(n);
    EXPECT_NE(src.find("void dense_int8_prepare(const int8_t *LOOPSCOPE_RESTRICT Wt, const int32_t *LOOPSCOPE_RESTRICT bias, "
                       "int32_t *LOOPSCOPE_RESTRICT bias_folded)\n{\n"),
              std::string::npos)
        << src;
    EXPECT_NE(src.find("            sum += Wt[o * 256 + i];\n"), std::string::npos) << src;
    EXPECT_NE(src.find("        bias_folded[o] = bias[o] + (128) * sum;\n"), std::string::npos) << src;
    const std::string h = codegen::generateHeader(n);
    EXPECT_NE(h.find("bias: int32[64], input, indexed by output channel o (pass dense_int8_prepare's bias_folded)"), std::string::npos) << h;
    EXPECT_NE(h.find("void dense_int8_prepare("), std::string::npos) << h;
    EXPECT_EQ(runOnHost(n, "dense"), "");
}

TEST(OffsetFold, SmallerInstructionCountOnThePlainPath)
{
    // The same dense schedule with the offset in the kernel file and without: the model counts
    // one add per input element less when folded, the same as a kernel written without offset.
    const std::string steps = "  - split: {loop: o, factor: 2}\n  - unroll: {loop: o.inner}\n";
    const lower::LoopNest folded = lowered(exampleText("dense_int8"), steps);
    const lower::LoopNest raw = lowered(exampleText("dense_int8", {{"\\(X\\[b, i\\] \\+ 128\\)", "X[b, i]"}}), steps);
    ASSERT_EQ(folded.offsetFolds.size(), 1u);
    ASSERT_TRUE(raw.offsetFolds.empty());
    const analysis::CostReport a = analysis::analyze(folded, *folded.target);
    const analysis::CostReport b = analysis::analyze(raw, *raw.target);
    ASSERT_TRUE(a.instructions.available);
    EXPECT_EQ(a.instructions.kernel, b.instructions.kernel);
    EXPECT_GT(a.instructions.kernel, 0);
    lower::LoopNest unfolded = folded;
    unfolded.offsetFolds.clear();
    unfolded.foldedValues.clear();
    const analysis::CostReport c = analysis::analyze(unfolded, *unfolded.target);
    EXPECT_LT(a.instructions.kernel, c.instructions.kernel);
}

TEST(OffsetFold, ASubtractedOffsetFoldsNegativeAndStaysExact)
{
    const std::string kernel = "name: sub_fold\n"
                               "tensors:\n"
                               "  X: {shape: [3, 10], dtype: int8}\n"
                               "  W: {shape: [5, 10], dtype: int8}\n"
                               "  b: {shape: [5], dtype: int32}\n"
                               "  Y: {shape: [3, 5], dtype: int8}\n"
                               "stages:\n"
                               "  - compute: \"Y[r, o] += W[o, i] * (X[r, i] - 7)\"\n"
                               "    requantize: {bias: b, multiplier: 1518500250, shift: -9, channel: o}\n";
    const lower::LoopNest n = lowered(kernel, "  - vectorize: {loop: i}\n");
    ASSERT_EQ(n.offsetFolds.size(), 1u);
    EXPECT_EQ(n.offsetFolds[0].offset, -7);
    EXPECT_NE(codegen::generateSource(n).find("b_folded[o] = b[o] + (-7) * sum;"), std::string::npos);
    EXPECT_EQ(kernelBody(n).find("- 7"), std::string::npos) << kernelBody(n);
    EXPECT_EQ(runOnHost(n, "sub"), "");
}

TEST(OffsetFold, WhatDoesNotFold)
{
    // Padding: the skipped border terms would still be in the folded sum.
    EXPECT_TRUE(lowered(exampleText("conv2d_int8", {{"H: 16", "H: 4"}, {"W: 16", "W: 4"}}), "").offsetFolds.empty());
    // No bias to carry the sums.
    EXPECT_TRUE(lowered(exampleText("matmul_int8"), "").offsetFolds.empty());
    // A widening cache adds the offset in its fill.
    const lower::LoopNest widened = lowered(exampleText("pointwise_conv_int8_tflite"), "  - cache_read: {tensor: I, level: SRAM, at: root, dtype: int16}\n");
    EXPECT_TRUE(widened.offsetFolds.empty());
    EXPECT_NE(kernelBody(widened).find("I_SRAM"), std::string::npos);
    // Weights that depend on a spatial axis other than the channel's: no per-channel sum.
    const std::string perRow = "name: t\n"
                               "tensors:\n"
                               "  X: {shape: [3, 4], dtype: int8}\n"
                               "  W: {shape: [3, 4], dtype: int8}\n"
                               "  b: {shape: [2], dtype: int32}\n"
                               "  Y: {shape: [3, 2], dtype: int8}\n"
                               "stages:\n"
                               "  - compute: \"Y[r, o] += (X[r, i] + 1) * W[r, i]\"\n"
                               "    requantize: {bias: b, multiplier: 1518500250, shift: -9, channel: o}\n";
    EXPECT_TRUE(lowered(perRow, "").offsetFolds.empty());
    // Offsets on both operands: offset * sum(x) is not per channel.
    const std::string both = "name: both_offsets\n"
                             "tensors:\n"
                             "  X: {shape: [3, 4], dtype: int8}\n"
                             "  W: {shape: [2, 4], dtype: int8}\n"
                             "  b: {shape: [2], dtype: int32}\n"
                             "  Y: {shape: [3, 2], dtype: int8}\n"
                             "stages:\n"
                             "  - compute: \"Y[r, o] += (X[r, i] + 1) * (W[o, i] + 2)\"\n"
                             "    requantize: {bias: b, multiplier: 1518500250, shift: -9, channel: o}\n";
    const lower::LoopNest n = lowered(both, "");
    EXPECT_TRUE(n.offsetFolds.empty());
    EXPECT_EQ(codegen::generateSource(n).find("_prepare"), std::string::npos);
    EXPECT_EQ(runOnHost(n, "both"), "");
}

} // namespace
