// Which vectorized reductions the export writes on the Arm DSP path (SMLAD), and how: int8
// operands unpacked to int16 pairs (SXTAB16 with an offset, SXTB16 without, PKHBT when strided),
// int16 operands loaded as pairs; and which it leaves to the plain C loop.
#include "support/test_paths.h"

#include "codegen/c_codegen.h"
#include "codegen/c_decisions.h"
#include "ir/kernel.h"
#include "lower/loop_nest.h"
#include "sched/schedule_file.h"
#include "target_loader.h"

#include <gtest/gtest.h>

#include <memory>
#include <optional>
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

namespace {

const char* kDepthwise = R"(name: dw
params: {H: 4, W: 5, C: 8}
tensors:
  I: {shape: [H, W, C], dtype: int8}
  F: {shape: [1, 3, 3, C], dtype: int8}
  O: {shape: [H, W, C], dtype: int32}
stages:
  - compute: "O[h, w, c] += (I[h + r - 1, w + s - 1, c] + 128) * F[0, r, s, c]"
    padding: zero
)";

} // namespace

TEST(DspPath, DepthwiseChannelLanesUseSmlabbAndSmlatt)
{
    // The channel axis is spatial: vectorized, each lane keeps its own accumulator (in
    // registers, so the lanes are written out with constant indices) and takes one SMLABB or
    // SMLATT per MAC on the unpacked halves.
    const std::string steps = "  - split: {loop: c, factor: 8}\n  - reorder: {loops: [h, w, c.outer, r, s, c.inner]}\n"
                              "  - vectorize: {loop: c.inner}\n";
    const std::string c = exportInline(kDepthwise, "cortex-m7", steps);
    EXPECT_TRUE(has(c, "4 lanes of int8, each its own accumulator: one SMLABB or SMLATT per MAC")) << c;
    EXPECT_TRUE(has(c, "const int32_t lx02 = __sxtab16((int32_t)0x00800080, (int32_t)lxw);")) << c;
    EXPECT_TRUE(has(c, "O_acc[c_inner + 2] = __smlatt(lx02, ly02, O_acc[c_inner + 2]);")) << c;
    EXPECT_TRUE(has(c, "const int c_inner = 4;")) << c;  // the second step, written out
    EXPECT_FALSE(has(c, "for (int c_inner = 0; c_inner < 8; ++c_inner)")) << c;
    // Without the DSP extension the lanes are plain C, still written out.
    const std::string plain = exportInline(kDepthwise, "gemmini-16x16", steps);
    EXPECT_FALSE(has(plain, "SMLABB")) << plain;
    EXPECT_TRUE(has(plain, "c.inner: vectorized, written out")) << plain;
}

TEST(DspPath, DecisionsSayWhichPathEachVectorizedLoopTakes)
{
    struct Decision {
        std::optional<codegen::DspLoop> loop;
        std::string refusal;
    };
    auto decisionsOf = [](const std::string& kernelText, const std::string& steps) {
        auto k = ir::parseKernel(kernelText, "inline.kernel.yaml");
        EXPECT_TRUE(k.ok()) << k.errorText();
        auto file = sched::parseScheduleFile("kernel: k.kernel.yaml\ntarget: t\nsteps:\n" + steps, "inline.sched.yaml");
        auto r = sched::replay(std::make_shared<const ir::Kernel>(*k), test::builtinTarget("cortex-m7"), file->steps);
        EXPECT_TRUE(r.ok());
        const lower::LoopNest nest = lower::lower(r.program());
        std::vector<Decision> out;
        for (const auto& st : nest.stmts)
            if (st.kind == lower::Stmt::Kind::For && st.loopKind == sched::LoopKind::Vectorized)
                out.push_back({codegen::dspLoop(nest, st), codegen::dspRefusal(nest, st)});
        return out;
    };
    // The update loop of the depthwise lanes takes the lanes path; the written-out init and
    // store loops do not, and say why.
    auto dw = decisionsOf(kDepthwise, "  - split: {loop: c, factor: 4}\n  - reorder: {loops: [h, w, c.outer, r, s, c.inner]}\n  - vectorize: {loop: c.inner}\n");
    int lanes = 0;
    for (const auto& d : dw) {
        if (d.loop) {
            ++lanes;
            EXPECT_EQ(d.loop->path, codegen::DspLoop::Path::Lanes);
            EXPECT_EQ(d.loop->lanes, 4);
            EXPECT_EQ(d.loop->x.offset, 128);
            EXPECT_EQ(d.loop->x.stride, 1);
            EXPECT_EQ(d.loop->y.stride, 1);
            EXPECT_EQ(d.refusal, "");
        } else {
            EXPECT_FALSE(d.refusal.empty());
        }
    }
    EXPECT_EQ(lanes, 1);
    // A reduction: SMLAD pairs; int16 with an offset: plain, with the reason.
    auto red = decisionsOf(kInt16Dot, kVectorizeK);
    ASSERT_EQ(red.size(), 1u);
    ASSERT_TRUE(red[0].loop);
    EXPECT_EQ(red[0].loop->path, codegen::DspLoop::Path::Smlad);
    EXPECT_EQ(red[0].loop->lanes, 2);
    std::string offset = kInt16Dot;
    offset.replace(offset.find("A[n, k] * B[k]"), 14, "(A[n, k] + 3) * B[k]");
    auto none = decisionsOf(offset, kVectorizeK);
    ASSERT_EQ(none.size(), 1u);
    EXPECT_FALSE(none[0].loop);
    EXPECT_NE(none[0].refusal.find("int16 operands with an offset"), std::string::npos) << none[0].refusal;
}

TEST(CopyShape, ContiguousRunsAreOneCall)
{
    auto copiesOf = [](const std::string& schedule) {
        auto o = sched::openSchedule(test::sourceDir() + "/examples/schedules/" + schedule + ".sched.yaml",
                                     [](const std::string& n, const std::string& d) { return hw::resolveTarget(n, d); });
        EXPECT_TRUE(o.ok()) << o.errorText();
        const lower::LoopNest nest = lower::lower(o->program);
        std::vector<std::pair<std::string, codegen::CopyShape>> out;
        for (const auto& st : nest.stmts)
            if (st.kind == lower::Stmt::Kind::Copy)
                out.push_back({nest.kernel->tensors[nest.buffers[st.src].tensor].name, codegen::copyShape(nest, st)});
        return out;
    };
    // dense_int8_blocked: X whole (4 x 256) and each 16-row block of Wt are one contiguous run:
    // one call each, no loops, no row dimension.
    for (const auto& [tensor, shape] : copiesOf("dense_int8_blocked")) {
        EXPECT_TRUE(shape.rowContiguous) << tensor;
        EXPECT_EQ(shape.runStart, 0u) << tensor;
        EXPECT_EQ(shape.runInnerElements, 256) << tensor;
        EXPECT_FALSE(shape.hasRowDim) << tensor;
        EXPECT_EQ(shape.outerDims, 0u) << tensor;
    }
    // conv2d_int8_tiled: the input band (rows x W x C of a [1, 16, 16, 16] tensor) is one run of
    // whole rows; the output tile written back likewise: no loops around the calls.
    for (const auto& [tensor, shape] : copiesOf("conv2d_int8_tiled")) {
        EXPECT_LE(shape.runStart, 1u) << tensor;
        EXPECT_EQ(shape.outerDims, 0u) << tensor;
    }
}
