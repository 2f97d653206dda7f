// Which vectorized reductions the export writes on the Arm DSP path (SMLAD), and how: int8
// operands unpacked to int16 pairs (SXTAB16 with an offset, SXTB16 without, PKHBT when strided),
// int16 operands loaded as pairs; and which it leaves to the plain C loop.
#include "support/test_paths.h"

#include "codegen/c_codegen.h"
#include "ir/kernel.h"
#include "lower/loop_nest.h"
#include "sched/schedule_file.h"
#include "target_loader.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

using namespace loopscope;

namespace {

std::string exportExample(const std::string& schedule)
{
    auto o = sched::openSchedule(test::sourceDir() + "/examples/schedules/" + schedule + ".sched.yaml",
                                 [](const std::string& n, const std::string& d) { return hw::resolveTarget(n, d); });
    if (!o.ok()) {
        ADD_FAILURE() << o.errorText();
        return {};
    }
    return codegen::generateSource(lower::lower(o->program));
}

/// A kernel given as text, scheduled with `steps` (lines of a schedule file's steps list).
std::string exportInline(const std::string& kernelText, const std::string& target, const std::string& steps)
{
    auto k = ir::parseKernel(kernelText, "inline.kernel.yaml");
    if (!k) {
        ADD_FAILURE() << k.errorText();
        return {};
    }
    auto kp = std::make_shared<const ir::Kernel>(*k);
    auto file = sched::parseScheduleFile("kernel: k.kernel.yaml\ntarget: t\nsteps:\n" + steps, "inline.sched.yaml");
    if (!file) {
        ADD_FAILURE() << file.errorText();
        return {};
    }
    auto r = sched::replay(kp, test::builtinTarget(target), file->steps);
    if (!r.ok()) {
        ADD_FAILURE() << r.error().str();
        return {};
    }
    return codegen::generateSource(lower::lower(r.program()));
}

bool has(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

const char* kInt16Dot = R"(name: dot16
params: {N: 8, K: 16}
tensors:
  A: {shape: [N, K], dtype: int16}
  B: {shape: [K], dtype: int16}
  C: {shape: [N], dtype: int32}
stages:
  - compute: "C[n] += A[n, k] * B[k]"
)";

const char* kVectorizeK = "  - split: {loop: k, factor: 4}\n  - vectorize: {loop: k.inner}\n";

} // namespace

TEST(DspPath, Int8WithOffsetContiguousAndStrided)
{
    // A[i, k] + 128 contiguous along k: SXTAB16 with the offset; B[k, j] strided: PKHBT.
    const std::string c = exportExample("matmul_int8_dsp");
    EXPECT_TRUE(has(c, "vectorized int8 multiply-accumulate, 2 MACs per SMLAD")) << c;
    EXPECT_TRUE(has(c, "const int32_t lx02 = __sxtab16((int32_t)0x00800080, (int32_t)lxw);")) << c;
    EXPECT_TRUE(has(c, "const int32_t ly02 = ls_pkhbt(lyp[0], lyp[128]);")) << c;
    EXPECT_TRUE(has(c, "= __smlad(lx13, ly13, ")) << c;
}

TEST(DspPath, Int8WithoutOffsetIsSignExtendedWithoutAConstant)
{
    const std::string c = exportExample("conv2d_int8_dsp");
    EXPECT_TRUE(has(c, "const int32_t ly02 = __sxtb16((int32_t)lyw);")) << c;
    EXPECT_TRUE(has(c, "const int32_t ly13 = ls_sxtb16_ror8((int32_t)lyw);")) << c;
}

TEST(DspPath, Int16PairsAreLoadedAsWords)
{
    const std::string c = exportExample("dense_int16_dsp");
    EXPECT_TRUE(has(c, "vectorized int16 multiply-accumulate, 2 MACs per SMLAD")) << c;
    EXPECT_TRUE(has(c, "i_inner += 2) {")) << c;
    EXPECT_TRUE(has(c, "= __smlad((int32_t)lxw, (int32_t)lyw, ")) << c;
    EXPECT_FALSE(has(c, "sxtab16(0x") || has(c, "lx02")) << c;

    // A strided int16 operand (A[k, n] along k: stride N = 8) is packed with PKHBT.
    std::string transposed = kInt16Dot;
    transposed.replace(transposed.find("A: {shape: [N, K]"), 17, "A: {shape: [K, N]");
    transposed.replace(transposed.find("A[n, k] * B[k]"), 14, "A[k, n] * B[k]");
    const std::string strided = exportInline(transposed, "cortex-m7", kVectorizeK);
    EXPECT_TRUE(has(strided, "const int32_t lxw = ls_pkhbt(lxp[0], lxp[8]);")) << strided;
    EXPECT_TRUE(has(strided, "= __smlad((int32_t)lxw, (int32_t)lyw, ")) << strided;
    const std::string contiguous = exportInline(kInt16Dot, "cortex-m7", kVectorizeK);
    EXPECT_TRUE(has(contiguous, "= __smlad((int32_t)lxw, (int32_t)lyw, ")) << contiguous;
}

TEST(DspPath, LeftToPlainCWhereSmladWouldBeWrongOrUnavailable)
{
    // An int16 operand with an offset could leave the int16 range: plain C.
    std::string offset = kInt16Dot;
    offset.replace(offset.find("A[n, k] * B[k]"), 14, "(A[n, k] + 3) * B[k]");
    EXPECT_FALSE(has(exportInline(offset, "cortex-m7", kVectorizeK), "2 MACs per SMLAD"));
    // Mixed int8 x int16 lanes do not pair up: plain C.
    std::string mixed = kInt16Dot;
    mixed.replace(mixed.find("B: {shape: [K], dtype: int16}"), 29, "B: {shape: [K], dtype: int8}");
    EXPECT_FALSE(has(exportInline(mixed, "cortex-m7", kVectorizeK), "2 MACs per SMLAD"));
    // An extent that is not a multiple of the pair: plain C.
    EXPECT_FALSE(has(exportInline(kInt16Dot, "cortex-m7", "  - split: {loop: k, factor: 3}\n  - vectorize: {loop: k.inner}\n"), "2 MACs per SMLAD"));
    // A target without the DSP extension: plain C.
    EXPECT_FALSE(has(exportInline(kInt16Dot, "gemmini-16x16", kVectorizeK), "2 MACs per SMLAD"));
    // The same int16 reduction where it is allowed: SMLAD (so the cases above are not vacuous).
    EXPECT_TRUE(has(exportInline(kInt16Dot, "cortex-m7", kVectorizeK), "2 MACs per SMLAD"));
}
