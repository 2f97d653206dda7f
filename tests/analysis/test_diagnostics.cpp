// The cost model's teaching diagnostics: for every code the smallest schedule that triggers
// it (severity, message naming buffers/loops/tensors and sizes, the 0-based trace step to
// change) and a near-identical schedule that does not.
#include "support/test_paths.h"

#include "analysis/cost_report.h"
#include "codegen/code_size.h"
#include "common/text_file.h"
#include "ir/kernel.h"
#include "lower/loop_nest.h"
#include "sched/program.h"
#include "sched/schedule_file.h"
#include "target_loader.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <sstream>

using namespace loopscope;
namespace fs = std::filesystem;

namespace {

std::string dataDir() { return test::sourceDir() + "/tests/data/analysis/"; }

/// A built-in target; "NAME-rate" is NAME with its issue model off (compute: MACs at the rate
/// plus loop overhead, the figures a hand-worked case can follow); a file of tests/data/analysis.
std::shared_ptr<const hw::Target> targetNamed(const std::string& name)
{
    if (name.ends_with("-rate")) {
        hw::Target t = *test::builtinTarget(name.substr(0, name.size() - 5));
        t.issue.present = false;
        return std::make_shared<const hw::Target>(std::move(t));
    }
    if (!name.ends_with(".yaml"))
        return test::builtinTarget(name);
    auto t = hw::loadTargetFile(dataDir() + name);
    if (!t) {
        ADD_FAILURE() << t.errorText();
        return nullptr;
    }
    return std::make_shared<const hw::Target>(*t);
}

std::string kernelFile(const std::string& name)
{
    std::string mine = dataDir() + name + ".kernel.yaml";
    return fs::exists(mine) ? mine : test::kernelPath(name);
}

using Params = std::map<std::string, int64_t>;

/// A schedule written as the lines of a schedule file's `steps:` list.
struct Sched {
    std::string kernel;
    Params params;
    std::string target;
    std::string steps;
};

sched::Program program(const Sched& s)
{
    auto k = ir::loadKernelFile(kernelFile(s.kernel), s.params);
    if (!k) {
        ADD_FAILURE() << k.errorText();
        return {};
    }
    auto kp = std::make_shared<const ir::Kernel>(*k);
    auto tp = targetNamed(s.target);
    if (s.steps.empty())
        return sched::Program::initial(kp, tp);
    auto file = sched::parseScheduleFile("kernel: k.kernel.yaml\ntarget: t\nsteps:\n" + s.steps, "inline.sched.yaml");
    if (!file) {
        ADD_FAILURE() << file.errorText();
        return sched::Program::initial(kp, tp);
    }
    auto r = sched::replay(kp, tp, file->steps);
    if (!r.ok()) {
        ADD_FAILURE() << r.error().str();
        return sched::Program::initial(kp, tp);
    }
    return r.program();
}

analysis::CostReport analyse(const Sched& s)
{
    sched::Program p = program(s);
    return analysis::analyze(lower::lower(p), *p.target);
}

std::vector<analysis::CostDiagnostic> withCode(const analysis::CostReport& r, const std::string& code)
{
    std::vector<analysis::CostDiagnostic> out;
    for (const auto& d : r.diagnostics)
        if (d.code == code)
            out.push_back(d);
    return out;
}

std::string all(const analysis::CostReport& r)
{
    std::string out;
    for (const auto& d : r.diagnostics)
        out += "  [" + d.code + "] step " + (d.step ? std::to_string(*d.step) : "-") + ": " + d.message + "\n";
    return out.empty() ? "  (none)\n" : out;
}

const analysis::LevelReport& level(const analysis::CostReport& r, const std::string& name)
{
    for (const auto& l : r.levels)
        if (l.name == name)
            return l;
    ADD_FAILURE() << "no level " << name;
    static const analysis::LevelReport none;
    return none;
}

int64_t readsOf(const analysis::CostReport& r, const std::string& tensor, const std::string& lvl)
{
    for (const auto& t : r.tensors)
        if (t.name == tensor && t.level == lvl)
            return t.readBytes;
    return 0;
}

using Strings = std::vector<std::string>;

// ---- over-capacity ----------------------------------------------------------------------------

TEST(Diagnostics, OverCapacityWholeTensorInCortexM4Sram)
{
    // A 256x256 float32 = 256 KiB does not fit cortex-m4's 192 KiB SRAM; 192x256 just fits.
    analysis::CostReport r = analyse({"matmul_f32", {{"M", 256}, {"N", 1}, {"K", 256}}, "cortex-m4",
                                      "  - cache_read: {tensor: A, level: SRAM, at: root}\n"});
    auto d = withCode(r, "over-capacity");
    ASSERT_EQ(d.size(), 1u) << all(r);
    EXPECT_EQ(d[0].severity, Severity::Error);
    EXPECT_EQ(d[0].message, "SRAM holds 256 KiB at once but has 192 KiB: A_SRAM 256x256 = 256 KiB");
    EXPECT_EQ(d[0].step, 0);
    EXPECT_EQ(d[0].tensors, Strings{"A"});
    EXPECT_TRUE(r.hasErrors());
    EXPECT_EQ(level(r, "SRAM").usedBytes, 256 << 10);

    analysis::CostReport fits = analyse({"matmul_f32", {{"M", 192}, {"N", 1}, {"K", 256}}, "cortex-m4",
                                         "  - cache_read: {tensor: A, level: SRAM, at: root}\n"});
    EXPECT_TRUE(withCode(fits, "over-capacity").empty()) << all(fits);
    EXPECT_EQ(level(fits, "SRAM").usedBytes, level(fits, "SRAM").capacityBytes);  // exactly full is fine
    EXPECT_FALSE(fits.hasErrors());
}

TEST(Diagnostics, CodeTooLargeToExportIsAnError)
{
    // matmul_f32 64^3 with i, j and k unrolled: 802,882 statements of C, past the 65,536 the
    // exporter writes. The instructions predicted would be those of C that is never written
    // (export refuses it, the Code view shows none): an error, which also keeps such a
    // schedule out of the search's front.
    analysis::CostReport r = analyse({"matmul_f32", {{"M", 64}, {"N", 64}, {"K", 64}}, "cortex-m7",
                                      "  - unroll: {loop: i}\n  - unroll: {loop: j}\n  - unroll: {loop: k}\n"});
    auto d = withCode(r, "code-too-large");
    ASSERT_EQ(d.size(), 1u) << all(r);
    EXPECT_EQ(d[0].severity, Severity::Error);
    EXPECT_NE(d[0].message.find("would hold 802882 statements, more than the 65536 the exporter writes"), std::string::npos) << d[0].message;
    EXPECT_NE(d[0].message.find("loops i (64), j (64), k (64)"), std::string::npos) << d[0].message;
    EXPECT_TRUE(r.hasErrors());

    analysis::CostReport small = analyse({"matmul_f32", {{"M", 16}, {"N", 16}, {"K", 16}}, "cortex-m7",
                                          "  - unroll: {loop: j}\n  - unroll: {loop: k}\n"});
    EXPECT_TRUE(withCode(small, "code-too-large").empty()) << all(small);

    // The Code view says why in a comment wrapped to its width, and knows it shows no code.
    const std::string text = codegen::codeViewText(lower::lower(program({"matmul_f32", {{"M", 64}, {"N", 64}, {"K", 64}}, "cortex-m7",
                                                                         "  - unroll: {loop: i}\n  - unroll: {loop: j}\n  - unroll: {loop: k}\n"})));
    EXPECT_TRUE(codegen::codeViewShowsNoCode(text)) << text;
    EXPECT_NE(text.find("No code is shown: the C of this schedule would hold 802882"), std::string::npos) << text;
    std::istringstream lines(text);
    int count = 0;
    for (std::string line; std::getline(lines, line); ++count)
        EXPECT_LE(line.size(), 80u) << line;
    EXPECT_GE(count, 4);
    EXPECT_FALSE(codegen::codeViewShowsNoCode(codegen::codeViewText(lower::lower(program({"matmul_f32", {{"M", 16}, {"N", 16}, {"K", 16}}, "cortex-m7", ""})))));
}

TEST(Diagnostics, OverCapacityWhenDoubleBufferingATileThatJustFits)
{
    // A tiles of 25x1024 float32 = 100 KiB fit cortex-m4's 192 KiB once, not twice.
    const char* steps = "  - split: {loop: i, factor: 25}\n"
                        "  - cache_read: {tensor: A, level: SRAM, at: i.outer}\n";
    Params params = {{"M", 50}, {"N", 1}, {"K", 1024}};
    analysis::CostReport single = analyse({"matmul_f32", params, "cortex-m4", steps});
    EXPECT_TRUE(withCode(single, "over-capacity").empty()) << all(single);
    EXPECT_EQ(level(single, "SRAM").usedBytes, 100 << 10);

    analysis::CostReport dbl = analyse({"matmul_f32", params, "cortex-m4", std::string(steps) + "  - double_buffer: {tensor: A, level: SRAM}\n"});
    auto d = withCode(dbl, "over-capacity");
    ASSERT_EQ(d.size(), 1u) << all(dbl);
    EXPECT_EQ(d[0].severity, Severity::Error);
    EXPECT_EQ(d[0].message, "SRAM holds 200 KiB at once but has 192 KiB: A_SRAM 25x1024 x2 = 200 KiB");
    // The step of the cache stage (cache_read at index 1; the double_buffer is index 2).
    EXPECT_EQ(d[0].step, 1);
}

TEST(Diagnostics, OverCapacityListsEveryBufferLiveAtThePeak)
{
    // A_SRAM 25x1024 and B_SRAM 1024x25 floats, 100 KiB each, both at the root: 200 KiB.
    const char* both = "  - cache_read: {tensor: A, level: SRAM, at: root}\n"
                       "  - cache_read: {tensor: B, level: SRAM, at: root}\n";
    Params params = {{"M", 25}, {"N", 25}, {"K", 1024}};
    analysis::CostReport r = analyse({"matmul_f32", params, "cortex-m4", both});
    auto d = withCode(r, "over-capacity");
    ASSERT_EQ(d.size(), 1u) << all(r);
    EXPECT_EQ(d[0].message, "SRAM holds 200 KiB at once but has 192 KiB: A_SRAM 25x1024 = 100 KiB, B_SRAM 1024x25 = 100 KiB");
    EXPECT_EQ(d[0].tensors, (Strings{"A", "B"}));
    EXPECT_TRUE(d[0].step == 0 || d[0].step == 1) << "step of one of the two cache stages";

    // Near-identical: only A cached.
    analysis::CostReport one = analyse({"matmul_f32", params, "cortex-m4", "  - cache_read: {tensor: A, level: SRAM, at: root}\n"});
    EXPECT_TRUE(withCode(one, "over-capacity").empty()) << all(one);
    // And on cortex-m7 (512 KiB) both fit.
    analysis::CostReport m7 = analyse({"matmul_f32", params, "cortex-m7", both});
    EXPECT_TRUE(withCode(m7, "over-capacity").empty()) << all(m7);
}

TEST(Diagnostics, OverCapacityStepPointsAtABufferThatOverflows)
{
    // dwsep_conv on cortex-m4: stage D caches the whole 128x128x4 input (256 KiB) at its root,
    // stage O caches PW (32 B) at its root; the two nests are siblings. The error lists I_SRAM
    // only, so its step should be the cache_read of I (step 0), not the one of PW (step 1).
    analysis::CostReport r = analyse({"dwsep_conv", {{"H", 128}, {"W", 128}, {"C", 4}, {"K", 2}}, "cortex-m4",
                                      "  - cache_read: {stage: D, tensor: I, level: SRAM, at: root}\n"
                                      "  - cache_read: {stage: O, tensor: PW, level: SRAM, at: root}\n"});
    auto d = withCode(r, "over-capacity");
    ASSERT_EQ(d.size(), 1u) << all(r);
    EXPECT_EQ(d[0].message, "SRAM holds 256 KiB at once but has 192 KiB: I_SRAM 128x128x4 = 256 KiB");
    EXPECT_EQ(d[0].tensors, Strings{"I"});
    EXPECT_EQ(d[0].step, 0) << "the step points at the cache_read of PW, which is not in the overflowing set";
}

// ---- redundant-reload -------------------------------------------------------------------------

/// Applies the compute_at a redundant-reload message suggests (appends it to the steps).
std::string withSuggestion(const std::string& steps, const std::string& message)
{
    size_t b = message.find("compute_at {");
    size_t e = message.find('}', b);
    if (b == std::string::npos || e == std::string::npos) {
        ADD_FAILURE() << "no compute_at suggestion in: " << message;
        return steps;
    }
    // "compute_at {tensor: A, level: SRAM, at: i}" -> "  - compute_at: {tensor: ...}"
    return steps + "  - compute_at: " + message.substr(b + 11, e - (b + 11) + 1) + "\n";
}

TEST(Diagnostics, RedundantReloadOfATileThatDoesNotDependOnTheInnerLoop)
{
    // A[i, k] cached at j: the [1,4] row of A is copied again for every j.
    Sched s{"matmul_f32", {{"M", 4}, {"N", 4}, {"K", 4}}, "cortex-m7", "  - cache_read: {tensor: A, level: SRAM, at: j}\n"};
    analysis::CostReport r = analyse(s);
    auto d = withCode(r, "redundant-reload");
    ASSERT_EQ(d.size(), 1u) << all(r);
    EXPECT_EQ(d[0].severity, Severity::Warning);
    EXPECT_EQ(d[0].message, "A@SRAM reloads the same tile on every iteration of j: its tile does not depend on that loop; "
                            "compute_at {tensor: A, level: SRAM, at: i} loads it once instead");
    EXPECT_EQ(d[0].step, 0);
    EXPECT_EQ(d[0].loops, Strings{"j"});
    EXPECT_EQ(d[0].tensors, Strings{"A"});
    EXPECT_EQ(readsOf(r, "A", "DRAM"), 16 * 16);  // 16 copies of 4 floats

    // The suggestion applies, removes the warning and cuts the DRAM reads of A to 4 x 16 B.
    Sched fixed = s;
    fixed.steps = withSuggestion(s.steps, d[0].message);
    EXPECT_EQ(fixed.steps, s.steps + "  - compute_at: {tensor: A, level: SRAM, at: i}\n");
    analysis::CostReport f = analyse(fixed);
    EXPECT_TRUE(withCode(f, "redundant-reload").empty()) << all(f);
    EXPECT_EQ(readsOf(f, "A", "DRAM"), 64);

    // Near-identical: cached at i from the start.
    analysis::CostReport atI = analyse({"matmul_f32", {{"M", 4}, {"N", 4}, {"K", 4}}, "cortex-m7", "  - cache_read: {tensor: A, level: SRAM, at: i}\n"});
    EXPECT_TRUE(withCode(atI, "redundant-reload").empty()) << all(atI);
}

TEST(Diagnostics, RedundantReloadSuggestsRootWhenNoEnclosingLoopIndexesTheTile)
{
    // B[k, j] cached at i: the whole of B is copied for every i.
    Sched s{"matmul_f32", {{"M", 4}, {"N", 4}, {"K", 4}}, "cortex-m7", "  - cache_read: {tensor: B, level: SRAM, at: i}\n"};
    analysis::CostReport r = analyse(s);
    auto d = withCode(r, "redundant-reload");
    ASSERT_EQ(d.size(), 1u) << all(r);
    EXPECT_EQ(d[0].message, "B@SRAM reloads the same tile on every iteration of i: its tile does not depend on that loop; "
                            "compute_at {tensor: B, level: SRAM, at: root} loads it once instead");
    EXPECT_EQ(d[0].step, 0);
    EXPECT_EQ(readsOf(r, "B", "DRAM"), 4 * 64);
    Sched fixed = s;
    fixed.steps = withSuggestion(s.steps, d[0].message);
    analysis::CostReport f = analyse(fixed);
    EXPECT_TRUE(withCode(f, "redundant-reload").empty()) << all(f);
    EXPECT_EQ(readsOf(f, "B", "DRAM"), 64);
}

TEST(Diagnostics, RedundantReloadAcrossSeveralLoopsOfALaterStage)
{
    // dwsep_conv stage O in order c, h, w, k; PW[c, k] cached at w: one row of PW per (c, h, w),
    // though it only changes with c. The suggestion names the bare loop c; it applies although
    // stage D has a loop c too (the cache stage tells the stage).
    Sched s{"dwsep_conv", {{"H", 4}, {"W", 4}, {"C", 2}, {"K", 2}}, "cortex-m7",
            "  - reorder: {stage: O, loops: [c, h, w, k]}\n"
            "  - cache_read: {stage: O, tensor: PW, level: SRAM, at: w}\n"};
    analysis::CostReport r = analyse(s);
    auto d = withCode(r, "redundant-reload");
    ASSERT_EQ(d.size(), 1u) << all(r);
    EXPECT_EQ(d[0].message, "PW@SRAM reloads the same tile on every iteration of O:h, O:w: its tile does not depend on those loops; "
                            "compute_at {tensor: PW, level: SRAM, at: c} loads it once instead");
    EXPECT_EQ(d[0].step, 1);
    EXPECT_EQ(d[0].loops, (Strings{"O:h", "O:w"}));
    EXPECT_EQ(readsOf(r, "PW", "DRAM"), 2 * 16 * 8);  // 32 copies of a 2-float row
    Sched fixed = s;
    fixed.steps = withSuggestion(s.steps, d[0].message);
    analysis::CostReport f = analyse(fixed);
    EXPECT_TRUE(withCode(f, "redundant-reload").empty()) << all(f);
    EXPECT_EQ(readsOf(f, "PW", "DRAM"), 16);
}

// ---- vector-stride ----------------------------------------------------------------------------

TEST(Diagnostics, VectorStrideWhenTheVectorizedLoopWalksDownAColumn)
{
    // k innermost and vectorized: B[k, j] lanes are N = 4 elements apart; A[i, k] is fine.
    analysis::CostReport r = analyse({"matmul_f32", {{"M", 2}, {"N", 4}, {"K", 4}}, "cortex-m7", "  - vectorize: {loop: k}\n"});
    auto d = withCode(r, "vector-stride");
    ASSERT_EQ(d.size(), 1u) << all(r);
    EXPECT_EQ(d[0].severity, Severity::Warning);
    EXPECT_EQ(d[0].message, "vectorized loop k reads B with a stride of 4 elements; lanes need neighbouring elements "
                            "(reorder so that k indexes the last dimension, or cache B transposed)");
    EXPECT_EQ(d[0].step, 0);
    EXPECT_EQ(d[0].loops, Strings{"k"});
    EXPECT_EQ(d[0].tensors, Strings{"B"});
    EXPECT_TRUE(withCode(r, "idle-lanes").empty()) << all(r);

    // Near-identical: j innermost and vectorized reads B along its rows.
    analysis::CostReport ok = analyse({"matmul_f32", {{"M", 2}, {"N", 4}, {"K", 4}}, "cortex-m7",
                                       "  - reorder: {loops: [k, j]}\n  - vectorize: {loop: j}\n"});
    EXPECT_TRUE(ok.diagnostics.empty()) << all(ok);
}

TEST(Diagnostics, VectorStrideOfACachedTensorUsesTheBufferLayout)
{
    // B cached whole: B_SRAM has the layout of B, so the stride stays N = 8.
    analysis::CostReport r = analyse({"matmul_f32", {{"M", 2}, {"N", 8}, {"K", 4}}, "cortex-m7",
                                      "  - cache_read: {tensor: B, level: SRAM, at: root}\n  - vectorize: {loop: k}\n"});
    auto d = withCode(r, "vector-stride");
    ASSERT_EQ(d.size(), 1u) << all(r);
    EXPECT_NE(d[0].message.find("reads B with a stride of 8 elements"), std::string::npos) << d[0].message;
    EXPECT_EQ(d[0].step, 1);
}

TEST(Diagnostics, VectorStrideOfAStridedStore)
{
    // T[j, i] = A[i, j] * 2 with j vectorized: the loads of A are contiguous, but the lanes
    // store into T M = 4 elements apart. The lanes stride through T just as they would
    // through an input; the diagnostic only looks at loads.
    analysis::CostReport r = analyse({"transpose_scale", {}, "cortex-m7", "  - reorder: {loops: [i, j]}\n  - vectorize: {loop: j}\n"});
    auto d = withCode(r, "vector-stride");
    ASSERT_EQ(d.size(), 1u) << "no vector-stride warning for a vectorized store with a stride of 4 elements\n" << all(r);
    EXPECT_NE(d[0].message.find("T"), std::string::npos) << d[0].message;
    EXPECT_NE(d[0].message.find("stride of 4"), std::string::npos) << d[0].message;
    EXPECT_EQ(d[0].step, 1);
}

// ---- idle-lanes -------------------------------------------------------------------------------

TEST(Diagnostics, IdleLanesWhenTheVectorizedExtentIsNotAMultipleOfTheLanes)
{
    // j of extent 6 on 4 lanes: the second vector uses 2 lanes.
    analysis::CostReport r = analyse({"matmul_f32", {{"M", 2}, {"N", 6}, {"K", 2}}, "cortex-m7",
                                      "  - reorder: {loops: [k, j]}\n  - vectorize: {loop: j}\n"});
    auto d = withCode(r, "idle-lanes");
    ASSERT_GE(d.size(), 1u) << all(r);
    EXPECT_EQ(d[0].severity, Severity::Hint);
    EXPECT_EQ(d[0].message, "vectorized loop j has extent 6: the last vector uses 2 of 4 lanes; a split factor that is a multiple of 4 keeps them busy");
    EXPECT_EQ(d[0].step, 1);
    EXPECT_EQ(d[0].loops, Strings{"j"});

    // Near-identical: extent 8.
    analysis::CostReport ok = analyse({"matmul_f32", {{"M", 2}, {"N", 8}, {"K", 2}}, "cortex-m7",
                                       "  - reorder: {loops: [k, j]}\n  - vectorize: {loop: j}\n"});
    EXPECT_TRUE(ok.diagnostics.empty()) << all(ok);
}

TEST(Diagnostics, IdleLanesReportedOncePerVectorizedLoop)
{
    // The vectorized j appears three times in the nest (accumulator init, update, store), but
    // it is one loop of the schedule, vectorized by one step: one hint.
    analysis::CostReport r = analyse({"matmul_f32", {{"M", 2}, {"N", 6}, {"K", 2}}, "cortex-m7",
                                      "  - reorder: {loops: [k, j]}\n  - vectorize: {loop: j}\n"});
    EXPECT_EQ(withCode(r, "idle-lanes").size(), 1u) << all(r);
}

TEST(Diagnostics, IdleLanesStepOfTheRightStage)
{
    // dwsep_conv: stage D vectorizes its c (step 1), stage O its c (step 2); both extent 6.
    // The hint about D:c must point at step 1, the one about O:c at step 2.
    analysis::CostReport r = analyse({"dwsep_conv", {{"H", 2}, {"W", 2}, {"C", 6}, {"K", 2}}, "cortex-m7",
                                      "  - reorder: {stage: D, loops: [r, s, c]}\n"
                                      "  - vectorize: {stage: D, loop: c}\n"
                                      "  - vectorize: {stage: O, loop: c}\n"});
    bool sawD = false, sawO = false;
    for (const auto& d : withCode(r, "idle-lanes")) {
        if (d.loops == Strings{"D:c"}) {
            sawD = true;
            EXPECT_EQ(d.step, 1) << d.message;
        } else if (d.loops == Strings{"O:c"}) {
            sawO = true;
            EXPECT_EQ(d.step, 2) << d.message;
        }
    }
    EXPECT_TRUE(sawD && sawO) << all(r);
}

// ---- idle-pe-rows -----------------------------------------------------------------------------

TEST(Diagnostics, IdlePeRowsWhenTheUnrolledExtentIsBelowThePeRows)
{
    // gemmini-16x16: i unrolled over 8 rows feeds half of the 16 PE rows.
    const char* steps = "  - reorder: {loops: [k, i, j]}\n  - unroll: {loop: i}\n  - vectorize: {loop: j}\n";
    analysis::CostReport r = analyse({"matmul_int8", {{"M", 8}, {"N", 16}, {"K", 2}}, "gemmini-16x16", steps});
    auto d = withCode(r, "idle-pe-rows");
    ASSERT_GE(d.size(), 1u) << all(r);
    EXPECT_EQ(d[0].severity, Severity::Hint);
    EXPECT_EQ(d[0].message, "unrolled loop i feeds 8 of the 16 PE rows; the rest idle");
    EXPECT_EQ(d[0].step, 1);
    EXPECT_EQ(d[0].loops, Strings{"i"});
    EXPECT_TRUE(withCode(r, "idle-lanes").empty()) << all(r);  // j = 16 = the PE columns

    // Near-identical: 16 rows.
    analysis::CostReport ok = analyse({"matmul_int8", {{"M", 16}, {"N", 16}, {"K", 2}}, "gemmini-16x16", steps});
    EXPECT_TRUE(ok.diagnostics.empty()) << all(ok);
    // And no PE rows on an MCU.
    analysis::CostReport mcu = analyse({"matmul_int8", {{"M", 8}, {"N", 16}, {"K", 2}}, "cortex-m7", steps});
    EXPECT_TRUE(withCode(mcu, "idle-pe-rows").empty()) << all(mcu);
}

TEST(Diagnostics, IdlePeRowsReportedOncePerUnrolledLoop)
{
    analysis::CostReport r = analyse({"matmul_int8", {{"M", 8}, {"N", 16}, {"K", 2}}, "gemmini-16x16",
                                      "  - reorder: {loops: [k, i, j]}\n  - unroll: {loop: i}\n  - vectorize: {loop: j}\n"});
    EXPECT_EQ(withCode(r, "idle-pe-rows").size(), 1u) << all(r);
}

// ---- max-tile-size ----------------------------------------------------------------------------

TEST(Diagnostics, MaxTileSizeOnATargetWithSmallTiles)
{
    // small-tiles allows 4 elements per tile dimension; an A tile of 8 rows is too tall.
    analysis::CostReport r = analyse({"matmul_f32", {{"M", 8}, {"N", 4}, {"K", 4}}, "small-tiles.target.yaml",
                                      "  - split: {loop: i, factor: 8}\n  - cache_read: {tensor: A, level: SRAM, at: i.outer}\n"});
    auto d = withCode(r, "max-tile-size");
    ASSERT_EQ(d.size(), 1u) << all(r);
    EXPECT_EQ(d[0].severity, Severity::Error);
    EXPECT_EQ(d[0].message, "A_SRAM has a dimension of 8 elements; small-tiles allows at most 4 per tile dimension");
    EXPECT_EQ(d[0].step, 1);
    EXPECT_EQ(d[0].tensors, Strings{"A"});
    EXPECT_TRUE(r.hasErrors());

    // Near-identical: tiles of 4 rows.
    analysis::CostReport ok = analyse({"matmul_f32", {{"M", 8}, {"N", 4}, {"K", 4}}, "small-tiles.target.yaml",
                                       "  - split: {loop: i, factor: 4}\n  - cache_read: {tensor: A, level: SRAM, at: i.outer}\n"});
    EXPECT_TRUE(ok.diagnostics.empty()) << all(ok);
    // Without the constraint (cortex-m7) the 8-row tile is fine.
    analysis::CostReport m7 = analyse({"matmul_f32", {{"M", 8}, {"N", 4}, {"K", 4}}, "cortex-m7",
                                       "  - split: {loop: i, factor: 8}\n  - cache_read: {tensor: A, level: SRAM, at: i.outer}\n"});
    EXPECT_TRUE(withCode(m7, "max-tile-size").empty()) << all(m7);
}

TEST(Diagnostics, MaxTileSizeIgnoresTheFlattenedAccumulator)
{
    // k outermost on a 4x4 output: C_acc is a 1-D SRAM buffer of 16 elements, one per (j, i);
    // every tile dimension is 4. It is not a DMA tile and its one dimension is not a tile
    // dimension, yet it is reported as an error (without a step).
    analysis::CostReport r = analyse({"matmul_f32", {{"M", 4}, {"N", 4}, {"K", 4}}, "small-tiles.target.yaml", "  - reorder: {loops: [k, i]}\n"});
    EXPECT_TRUE(withCode(r, "max-tile-size").empty()) << all(r);
}

// ---- alignment --------------------------------------------------------------------------------

TEST(Diagnostics, AlignmentOfCacheRows)
{
    // A_SRAM rows of K = 3 floats = 12 B on cortex-m7 (32-byte alignment).
    analysis::CostReport r = analyse({"matmul_f32", {{"M", 4}, {"N", 4}, {"K", 3}}, "cortex-m7",
                                      "  - split: {loop: i, factor: 2}\n  - cache_read: {tensor: A, level: SRAM, at: i.outer}\n"});
    auto d = withCode(r, "alignment");
    ASSERT_EQ(d.size(), 1u) << all(r);
    EXPECT_EQ(d[0].severity, Severity::Hint);
    EXPECT_EQ(d[0].message, "A_SRAM rows are 12 bytes, not a multiple of the 32-byte alignment cortex-m7 asks for DMA buffers; "
                            "rows after the first start unaligned");
    EXPECT_EQ(d[0].step, 1);
    EXPECT_EQ(d[0].tensors, Strings{"A"});

    // Near-identical: K = 8, rows of 32 B.
    analysis::CostReport ok = analyse({"matmul_f32", {{"M", 4}, {"N", 4}, {"K", 8}}, "cortex-m7",
                                       "  - split: {loop: i, factor: 2}\n  - cache_read: {tensor: A, level: SRAM, at: i.outer}\n"});
    EXPECT_TRUE(ok.diagnostics.empty()) << all(ok);
}

TEST(Diagnostics, AlignmentOfACacheWriteAndNotOfAnAccumulator)
{
    // C_SRAM rows of N = 3 int32 = 12 B (cache_write, step 1); the SRAM accumulator C_acc is
    // not a DMA buffer and gets no hint.
    analysis::CostReport r = analyse({"matmul_int8", {{"M", 4}, {"N", 3}, {"K", 8}}, "cortex-m7",
                                      "  - reorder: {loops: [k, i]}\n  - cache_write: {tensor: C, level: SRAM, at: root}\n"});
    auto d = withCode(r, "alignment");
    ASSERT_EQ(d.size(), 1u) << all(r);
    EXPECT_EQ(d[0].message, "C_SRAM rows are 12 bytes, not a multiple of the 32-byte alignment cortex-m7 asks for DMA buffers; "
                            "rows after the first start unaligned");
    EXPECT_EQ(d[0].step, 1);
}

// ---- transfer-bound ---------------------------------------------------------------------------

TEST(Diagnostics, TransferBoundDoubleBuffering)
{
    // M=4, N=1, K=8: each double-buffered A tile is 2x8 floats = 64 B, 64 + 40 = 104 cycles
    // of copy, against 56 cycles of compute per tile in the rate model: (i.inner 4 + j 4 + k 32
    // iterations x 2 cycles + 32 MACs) / 2 tiles. (With the issue model: test_issue_model.cpp.)
    const std::string steps = "  - split: {loop: i, factor: 2}\n"
                              "  - cache_read: {tensor: A, level: SRAM, at: i.outer}\n"
                              "  - double_buffer: {tensor: A, level: SRAM}\n"
                              "  - cache_read: {tensor: B, level: SRAM, at: root}\n"
                              "  - cache_write: {tensor: C, level: SRAM, at: root}\n";
    analysis::CostReport r = analyse({"matmul_f32", {{"M", 4}, {"N", 1}, {"K", 8}}, "cortex-m7-rate", steps});
    auto d = withCode(r, "transfer-bound");
    ASSERT_EQ(d.size(), 1u) << all(r);
    EXPECT_EQ(d[0].severity, Severity::Warning);
    EXPECT_EQ(d[0].message, "double buffering A_SRAM cannot hide its transfer: 104 cycles per tile against 56 cycles of compute; "
                            "the loop is transfer-bound (larger tiles raise the compute per byte)");
    EXPECT_EQ(d[0].step, 1);
    EXPECT_EQ(d[0].tensors, Strings{"A"});

    // Near-identical: N = 4 gives (8 + 32 + 256 + 128) / 2 = 212 cycles per tile > 104.
    analysis::CostReport ok = analyse({"matmul_f32", {{"M", 4}, {"N", 4}, {"K", 8}}, "cortex-m7", steps});
    EXPECT_TRUE(withCode(ok, "transfer-bound").empty()) << all(ok);
    EXPECT_FALSE(ok.hasErrors()) << all(ok);
    // Without double buffering there is nothing to hide, so no warning either.
    std::string single = steps;
    single.erase(single.find("  - double_buffer"), std::string("  - double_buffer: {tensor: A, level: SRAM}\n").size());
    analysis::CostReport none = analyse({"matmul_f32", {{"M", 4}, {"N", 1}, {"K", 8}}, "cortex-m7", single});
    EXPECT_TRUE(withCode(none, "transfer-bound").empty()) << all(none);
}

// ---- idle-lanes on the DSP path ----------------------------------------------------------------

TEST(Diagnostics, IdleLanesOnTheDspPathSayTheWholeLoopIsScalar)
{
    // int8 k of extent 6 on cortex-m7: the DSP path needs a multiple of 4, so the generated code
    // runs all 6 iterations as scalar MACs (no partial vector).
    analysis::CostReport r = analyse({"matmul_int8", {{"M", 2}, {"N", 2}, {"K", 6}}, "cortex-m7", "  - vectorize: {loop: k}\n"});
    auto d = withCode(r, "idle-lanes");
    ASSERT_EQ(d.size(), 1u) << all(r);
    EXPECT_EQ(d[0].message,
              "vectorized loop k has extent 6, not a multiple of the 4 lanes of the DSP path: the generated code runs the whole loop as scalar "
              "multiply-accumulates; a split factor that is a multiple of 4 lets it use SMLAD");
    EXPECT_EQ(d[0].step, 0);
    EXPECT_EQ(d[0].loops, Strings{"k"});
    // Extent 8 takes the DSP path: nothing idle.
    analysis::CostReport ok = analyse({"matmul_int8", {{"M", 2}, {"N", 2}, {"K", 8}}, "cortex-m7", "  - vectorize: {loop: k}\n"});
    EXPECT_TRUE(withCode(ok, "idle-lanes").empty()) << all(ok);
}

// ---- dsp-path ---------------------------------------------------------------------------------

TEST(Diagnostics, DspPathHintSaysWhatVectorizingSavesByTheInstructionModel)
{
    // k innermost, int8, scalar: vectorizing it takes the DSP path.
    const Sched scalar{"matmul_int8", {{"M", 4}, {"N", 4}, {"K", 16}}, "cortex-m7", ""};
    const Sched vectorized{"matmul_int8", {{"M", 4}, {"N", 4}, {"K", 16}}, "cortex-m7", "  - vectorize: {loop: k}\n"};
    analysis::CostReport r = analyse(scalar);
    analysis::CostReport v = analyse(vectorized);
    ASSERT_TRUE(r.instructions.available && v.instructions.available);
    ASSERT_LT(v.instructions.predicted, r.instructions.predicted * 9 / 10);
    auto d = withCode(r, "dsp-path");
    ASSERT_EQ(d.size(), 1u) << all(r);
    EXPECT_EQ(d[0].severity, Severity::Hint);
    EXPECT_EQ(d[0].loops, Strings{"k"});
    // The figures are the instruction model's, as scheduled and with the vectorize step applied.
    const int64_t percent = (r.instructions.predicted - v.instructions.predicted) * 100 / r.instructions.predicted;
    EXPECT_EQ(d[0].message, "reduction loop k runs one scalar multiply-accumulate per iteration; vectorize {loop: k} lets the generated code use the Arm DSP "
                            "path (SMLAD: two per instruction): the instruction model predicts "
                                + groupDigits(r.instructions.predicted) + " instructions as scheduled and " + groupDigits(v.instructions.predicted)
                                + " with it (" + std::to_string(percent) + "% fewer)");
    EXPECT_EQ(groupDigits(3964406), "3,964,406");  // as the Cost panel writes counts (the hint wrote 3964406)
    EXPECT_EQ(groupDigits(-1000), "-1,000");
    EXPECT_EQ(groupDigits(999), "999");
    EXPECT_EQ(groupDigits(INT64_MIN), "-9,223,372,036,854,775,808");
    // Near-identical: vectorized already, a float kernel, or a target without the DSP extension.
    EXPECT_TRUE(withCode(v, "dsp-path").empty()) << all(v);
    EXPECT_TRUE(withCode(analyse({"matmul_f32", {{"M", 4}, {"N", 4}, {"K", 16}}, "cortex-m7", ""}), "dsp-path").empty());
    EXPECT_TRUE(withCode(analyse({"matmul_int8", {{"M", 4}, {"N", 4}, {"K", 16}}, "tiny-fast-memory.target.yaml", ""}), "dsp-path").empty());
}

/// The dsp-path hint's suggestion does not lead to a warning: with k vectorized the DSP path
/// packs B's strided lanes with PKHBT (counted), so vector-stride says so as a hint.
TEST(Diagnostics, ApplyingTheDspPathSuggestionLeavesAHintAboutStridedLanesNotAWarning)
{
    const Sched scalar{"matmul_int8", {{"M", 4}, {"N", 4}, {"K", 16}}, "cortex-m7", ""};
    analysis::CostReport r = analyse(scalar);
    auto d = withCode(r, "dsp-path");
    ASSERT_EQ(d.size(), 1u) << all(r);
    // "... vectorize {loop: k} lets ..." -> "  - vectorize: {loop: k}", as the app applies it.
    const size_t b = d[0].message.find("vectorize {"), e = d[0].message.find('}', b);
    ASSERT_NE(b, std::string::npos) << d[0].message;
    Sched applied = scalar;
    applied.steps = "  - vectorize: " + d[0].message.substr(b + 10, e - (b + 10) + 1) + "\n";
    EXPECT_EQ(applied.steps, "  - vectorize: {loop: k}\n");
    analysis::CostReport v = analyse(applied);
    for (const auto& diag : v.diagnostics)
        EXPECT_NE(diag.severity, Severity::Warning) << all(v);
    auto stride = withCode(v, "vector-stride");
    ASSERT_EQ(stride.size(), 1u) << all(v);
    EXPECT_EQ(stride[0].severity, Severity::Hint);
    EXPECT_EQ(stride[0].message, "vectorized loop k reads B with a stride of 4 elements: the DSP path packs its lanes from separate loads (PKHBT), "
                                 "as the instruction count includes; reorder so that k indexes the last dimension, or cache B transposed to load "
                                 "neighbouring lanes as one word");
    // Near-identical: a float kernel has no DSP path, its strided lanes are a warning.
    analysis::CostReport f = analyse({"matmul_f32", {{"M", 4}, {"N", 4}, {"K", 16}}, "cortex-m7", "  - vectorize: {loop: k}\n"});
    auto fs = withCode(f, "vector-stride");
    ASSERT_EQ(fs.size(), 1u) << all(f);
    EXPECT_EQ(fs[0].severity, Severity::Warning);
}

// ---- no-overlap -------------------------------------------------------------------------------

TEST(Diagnostics, DoubleBufferWhoseSourceIsFilledInTheSameLoopOverlapsNothing)
{
    // D is computed per band of 4 rows into DRAM inside O's h.outer loop, and cached into SRAM
    // at that same loop: the next band does not exist yet while the current one is used.
    const std::string inside = "  - split: {stage: O, loop: h, factor: 4}\n"
                               "  - compute_at: {stage: O, producer: D, level: DRAM, at: h.outer}\n"
                               "  - cache_read: {stage: O, tensor: D, level: SRAM, at: h.outer}\n"
                               "  - double_buffer: {stage: O, tensor: D}\n";
    analysis::CostReport r = analyse({"dwsep_conv", {{"H", 8}, {"W", 8}, {"C", 4}, {"K", 4}}, "cortex-m7", inside});
    auto d = withCode(r, "no-overlap");
    ASSERT_EQ(d.size(), 1u) << all(r);
    EXPECT_EQ(d[0].severity, Severity::Warning);
    EXPECT_EQ(d[0].message, "double buffering D_SRAM overlaps nothing: its source is filled inside the same loop iteration, so the next tile "
                            "cannot be fetched ahead (it still takes twice the memory); cache the source at an outer loop");
    EXPECT_EQ(d[0].step, 3);
    EXPECT_EQ(d[0].tensors, Strings{"D"});
    EXPECT_EQ(r.cycles.overlapRatio, 0.0) << "the model must not hide what the code does not overlap";
    EXPECT_DOUBLE_EQ(r.cycles.total, r.cycles.compute + r.cycles.transfer);

    // Near-identical: D computed at the root (the whole tensor, before O's loops) can be
    // prefetched band by band; the overlap is counted and nothing is reported.
    const std::string before = "  - split: {stage: O, loop: h, factor: 4}\n"
                               "  - cache_read: {stage: O, tensor: D, level: SRAM, at: h.outer}\n"
                               "  - double_buffer: {stage: O, tensor: D}\n";
    analysis::CostReport ok = analyse({"dwsep_conv", {{"H", 8}, {"W", 8}, {"C", 4}, {"K", 4}}, "cortex-m7", before});
    EXPECT_TRUE(withCode(ok, "no-overlap").empty()) << all(ok);
    EXPECT_GT(ok.cycles.overlapRatio, 0.0);

    // The loop nest says which copies are prefetched, as the code does them.
    const std::string insideNest = lower::print(lower::lower(program({"dwsep_conv", {{"H", 8}, {"W", 8}, {"C", 4}, {"K", 4}}, "cortex-m7", inside})));
    const std::string beforeNest = lower::print(lower::lower(program({"dwsep_conv", {{"H", 8}, {"W", 8}, {"C", 4}, {"K", 4}}, "cortex-m7", before})));
    EXPECT_EQ(insideNest.find("prefetched"), std::string::npos) << insideNest;
    EXPECT_NE(beforeNest.find("D_SRAM  // DRAM -> SRAM, prefetched (double buffer)"), std::string::npos) << beforeNest;
}

// ---- target-mismatch (API only) ---------------------------------------------------------------

TEST(Diagnostics, TargetMismatchWhenTheLevelsDoNotMatch)
{
    sched::Program p = program({"matmul_f32", {{"M", 4}, {"N", 4}, {"K", 4}}, "cortex-m7", ""});
    auto gemmini = test::builtinTarget("gemmini-16x16");
    ASSERT_TRUE(gemmini);
    analysis::CostReport r = analysis::analyze(lower::lower(p), *gemmini);
    ASSERT_EQ(r.diagnostics.size(), 1u) << all(r);
    EXPECT_EQ(r.diagnostics[0].code, "target-mismatch");
    EXPECT_EQ(r.diagnostics[0].severity, Severity::Error);
    EXPECT_EQ(r.diagnostics[0].message, "target gemmini-16x16 has 3 memory levels but the schedule was lowered for cortex-m7 with 2");
    EXPECT_FALSE(r.diagnostics[0].step.has_value());
    EXPECT_TRUE(r.levels.empty());
    EXPECT_TRUE(r.hasErrors());
}

// ---- every example: no surprises --------------------------------------------------------------

TEST(Diagnostics, CleanSchedulesHaveNone)
{
    // Register-blocked, fully cached, aligned 8x8x8 matmul: nothing to say.
    analysis::CostReport r = analyse({"matmul_f32", {{"M", 8}, {"N", 8}, {"K", 8}}, "cortex-m7",
                                      "  - cache_read: {tensor: A, level: SRAM, at: root}\n"
                                      "  - cache_read: {tensor: B, level: SRAM, at: root}\n"
                                      "  - cache_write: {tensor: C, level: SRAM, at: root}\n"});
    EXPECT_TRUE(r.diagnostics.empty()) << all(r);
}

} // namespace

namespace {

// ---- no-mac-rate ------------------------------------------------------------------------------

TEST(Diagnostics, NoMacRateForTheKernelsDtype)
{
    // gemmini-16x16 lists only an int8 rate: a float32 matmul is costed at 1 MAC per cycle,
    // and the user is told so.
    analysis::CostReport r = analyse({"matmul_f32", {{"M", 4}, {"N", 4}, {"K", 4}}, "gemmini-16x16", ""});
    auto d = withCode(r, "no-mac-rate");
    ASSERT_EQ(d.size(), 1u) << all(r);
    EXPECT_EQ(d[0].severity, Severity::Warning);
    EXPECT_EQ(d[0].message, "gemmini-16x16 lists no float32 MAC rate (compute.macs_per_cycle); stage C is costed at 1 MAC per cycle");
    EXPECT_FALSE(d[0].step.has_value());
    // The int8 matmul on the same target has its rate.
    analysis::CostReport ok = analyse({"matmul_int8", {{"M", 4}, {"N", 4}, {"K", 4}}, "gemmini-16x16", ""});
    EXPECT_TRUE(withCode(ok, "no-mac-rate").empty()) << all(ok);
}

} // namespace
