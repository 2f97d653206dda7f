// The tensorize primitive: legal blocks of matmul and conv2d apply; every precondition fails with
// a typed error naming the loops and tensors (and, for a missing cache, the step that adds it);
// later steps that would break a tensorized block fail too; the schedule file round-trips it;
// planTensorize finds the caches a tensorize needs.
#include "support/test_paths.h"

#include "ir/kernel.h"
#include "sched/program.h"
#include "sched/schedule_file.h"
#include "sched/tensorize.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

using namespace loopscope;
using sched::Primitive;
using sched::Program;
using sched::Step;

namespace {

std::shared_ptr<const ir::Kernel> kernel(const std::string& name, const std::map<std::string, int64_t>& params = {})
{
    const std::string path = name.find('/') != std::string::npos ? test::sourceDir() + "/" + name + ".kernel.yaml" : test::kernelPath(name);
    auto k = ir::loadKernelFile(path, params);
    if (!k.ok()) {
        ADD_FAILURE() << k.errorText();
        return nullptr;
    }
    return std::make_shared<const ir::Kernel>(*k);
}

/// Steps written as in a schedule file, one "- primitive: {...}" per line.
std::vector<Step> steps(const std::string& yaml)
{
    auto f = sched::parseScheduleFile("kernel: k.kernel.yaml\ntarget: gemmini-16x16\nsteps:\n" + yaml, "test.sched.yaml");
    if (!f.ok()) {
        ADD_FAILURE() << f.errorText();
        return {};
    }
    return f->steps;
}

Step step(const std::string& line)
{
    auto s = steps("  - " + line + "\n");
    return s.empty() ? Step{} : s[0];
}

Program program(std::shared_ptr<const ir::Kernel> k, std::shared_ptr<const hw::Target> t, const std::string& yaml)
{
    sched::ApplyResult r = sched::replay(std::move(k), std::move(t), steps(yaml));
    EXPECT_TRUE(r.ok()) << "setup failed: " << r.error().str();
    return r.ok() ? r.program() : Program{};
}

std::shared_ptr<const hw::Target> gemmini() { return test::builtinTarget("gemmini-16x16"); }

// matmul_int8 32x32x32 in 16-blocks: A and B cached per k.outer, C in the accumulator per j.outer.
const char* kMatmulSetup = R"(  - split: {loop: i, factor: 16}
  - split: {loop: j, factor: 16}
  - split: {loop: k, factor: 16}
  - reorder: {loops: [i.outer, j.outer, k.outer, i.inner, j.inner, k.inner]}
  - cache_read: {tensor: A, level: scratchpad, at: k.outer}
  - cache_read: {tensor: B, level: scratchpad, at: k.outer}
  - cache_write: {tensor: C, level: accumulator, at: j.outer}
)";
const char* kMatmulTensorize = "tensorize: {loops: [i.inner, j.inner, k.inner], intrinsic: gemmini_matmul, dataflow: weight_stationary}";

// conv2d_int8 16x16x16, 3x3: a row of output pixels x 16 output channels x 16 input channels per block.
const char* kConvSetup = R"(  - reorder: {loops: [n, oh, r, s, ow, k, c]}
  - cache_read: {tensor: I, level: scratchpad, at: oh}
  - cache_read: {tensor: F, level: scratchpad, at: root}
  - cache_write: {tensor: O, level: accumulator, at: oh}
)";
const char* kConvTensorize = "tensorize: {loops: [ow, k, c], intrinsic: gemmini_matmul, dataflow: output_stationary}";

struct Expected {
    std::string message;
    std::vector<std::string> loops = {};
    std::vector<std::string> tensors = {};
    std::string detail = {};  ///< a substring of the detail; empty: not checked
};

void expectError(const Program& p, const Step& bad, const Expected& e)
{
    const size_t before = p.trace.size();
    sched::ApplyResult r = sched::apply(p, bad);
    ASSERT_FALSE(r.ok()) << "expected \"" << e.message << "\" but the step applied";
    EXPECT_EQ(r.error().message, e.message);
    EXPECT_EQ(r.error().primitive, bad.primitive);
    EXPECT_EQ(r.error().stepIndex, static_cast<int>(before));
    EXPECT_EQ(r.error().loops, e.loops);
    EXPECT_EQ(r.error().tensors, e.tensors);
    if (!e.detail.empty()) {
        EXPECT_NE(r.error().detail.find(e.detail), std::string::npos) << "detail: " << r.error().detail;
    }
    EXPECT_EQ(p.trace.size(), before);
    for (const auto& ss : p.stages)
        EXPECT_FALSE(ss.tensorize && ss.tensorize->step >= static_cast<int>(before));
}

/// A copy of the built-in Gemmini target changed by `edit`.
std::shared_ptr<const hw::Target> editedGemmini(const std::function<void(hw::Target&)>& edit)
{
    hw::Target t = *gemmini();
    edit(t);
    return std::make_shared<const hw::Target>(std::move(t));
}

} // namespace

TEST(Tensorize, MatmulBlocksApply)
{
    Program p = program(kernel("matmul_int8", {{"M", 32}, {"N", 32}, {"K", 32}}), gemmini(), std::string(kMatmulSetup) + "  - " + kMatmulTensorize + "\n");
    ASSERT_EQ(p.trace.size(), 8u);
    ASSERT_TRUE(p.stages[0].tensorize);
    const sched::TensorizeSpec& t = *p.stages[0].tensorize;
    EXPECT_EQ(p.stages[0].vars[t.i].name, "i.inner");
    EXPECT_EQ(p.stages[0].vars[t.j].name, "j.inner");
    EXPECT_EQ(p.stages[0].vars[t.k].name, "k.inner");
    EXPECT_EQ(t.dataflow, sched::Dataflow::WeightStationary);
    EXPECT_EQ(t.step, 7);
    sched::TensorizeOperands ops = sched::tensorizeOperands(p, 0);
    EXPECT_EQ(p.kernel->tensors[ops.a].name, "A");
    EXPECT_EQ(p.kernel->tensors[ops.b].name, "B");
    EXPECT_EQ(ops.offsetA, 128);
    EXPECT_EQ(sched::describe(p.trace.back()), "tensorize i.inner, j.inner, k.inner as gemmini_matmul (weight_stationary)");
}

TEST(Tensorize, PartialBlocksApply)
{
    // 40 x 24 x 20: the last block of each loop is partial (8, 8 and 4 of 16).
    Program p = program(kernel("matmul_int8", {{"M", 40}, {"N", 24}, {"K", 20}}), gemmini(), std::string(kMatmulSetup) + "  - " + kMatmulTensorize + "\n");
    EXPECT_TRUE(p.stages[0].tensorize);
    // Blocks smaller than the array without a split.
    Program q = program(kernel("matmul_int8", {{"M", 5}, {"N", 7}, {"K", 3}}), gemmini(), R"(  - cache_read: {tensor: A, level: scratchpad, at: root}
  - cache_read: {tensor: B, level: scratchpad, at: root}
  - cache_write: {tensor: C, level: accumulator, at: root}
  - tensorize: {loops: [i, j, k], intrinsic: gemmini_matmul, dataflow: output_stationary}
)");
    EXPECT_TRUE(q.stages[0].tensorize);
}

TEST(Tensorize, ConvolutionsApply)
{
    Program p = program(kernel("conv2d_int8"), gemmini(), std::string(kConvSetup) + "  - " + kConvTensorize + "\n");
    ASSERT_TRUE(p.stages[0].tensorize);
    sched::TensorizeOperands ops = sched::tensorizeOperands(p, 0);
    EXPECT_EQ(p.kernel->tensors[ops.a].name, "I");
    EXPECT_EQ(p.kernel->tensors[ops.b].name, "F");
    // Stride 2: A's rows are two input pixels apart.
    Program s2 = program(kernel("conv2d_s2_int8"), gemmini(), R"(  - reorder: {loops: [n, oh, r, s, ow, k, c]}
  - cache_read: {tensor: I, level: scratchpad, at: s}
  - cache_read: {tensor: F, level: scratchpad, at: s}
  - cache_write: {tensor: O, level: accumulator, at: oh}
  - tensorize: {loops: [ow, k, c], intrinsic: gemmini_matmul, dataflow: weight_stationary}
)");
    EXPECT_TRUE(s2.stages[0].tensorize);
}

TEST(Tensorize, ScheduleFileRoundTrips)
{
    auto f = sched::parseScheduleFile("kernel: k.kernel.yaml\ntarget: gemmini-16x16\nsteps:\n" + std::string(kMatmulSetup) + "  - " + kMatmulTensorize + "\n",
                                      "a.sched.yaml");
    ASSERT_TRUE(f.ok()) << f.errorText();
    const std::string text = sched::formatScheduleFile(*f);
    EXPECT_NE(text.find("  - tensorize: {loops: [i.inner, j.inner, k.inner], intrinsic: gemmini_matmul, dataflow: weight_stationary}\n"), std::string::npos)
        << text;
    auto g = sched::parseScheduleFile(text, "a.sched.yaml");
    ASSERT_TRUE(g.ok()) << g.errorText();
    EXPECT_EQ(sched::formatScheduleFile(*g), text);
    EXPECT_EQ(g->steps.back(), f->steps.back());
    // An unknown field names the allowed ones.
    auto bad = sched::parseScheduleFile("kernel: k.kernel.yaml\ntarget: gemmini-16x16\nsteps:\n  - tensorize: {loops: [i, j, k], dataflows: x}\n", "b.sched.yaml");
    ASSERT_FALSE(bad.ok());
    EXPECT_NE(bad.errorText().find("b.sched.yaml:4:35: error: tensorize: unknown parameter 'dataflows' (allowed: stage, loops, intrinsic, dataflow)"),
              std::string::npos)
        << bad.errorText();
}

// ---- every precondition -----------------------------------------------------------------

struct ErrorCase {
    std::string name;
    std::string kernel;
    std::map<std::string, int64_t> params;
    std::string setup;  ///< steps before the failing one
    std::string bad;    ///< the failing step
    Expected expected;
    std::function<void(hw::Target&)> target = {};  ///< an edit of the Gemmini target, or none
    std::string builtin = "gemmini-16x16";
};

std::vector<ErrorCase> errorCases()
{
    const std::map<std::string, int64_t> mm32 = {{"M", 32}, {"N", 32}, {"K", 32}};
    const std::map<std::string, int64_t> mm16 = {{"M", 16}, {"N", 16}, {"K", 16}};
    const std::string mmSetup = kMatmulSetup;
    const std::string mmSplits = R"(  - split: {loop: i, factor: 16}
  - split: {loop: j, factor: 16}
  - split: {loop: k, factor: 16}
  - reorder: {loops: [i.outer, j.outer, k.outer, i.inner, j.inner, k.inner]}
)";
    const std::string tz = "tensorize: {loops: [i.inner, j.inner, k.inner], intrinsic: gemmini_matmul, dataflow: weight_stationary}";
    const std::string tzOs = "tensorize: {loops: [i.inner, j.inner, k.inner], intrinsic: gemmini_matmul, dataflow: output_stationary}";
    const std::string tzPlain = "tensorize: {loops: [i, j, k], intrinsic: gemmini_matmul, dataflow: weight_stationary}";
    const std::string cachedPlain = R"(  - cache_read: {tensor: A, level: scratchpad, at: root}
  - cache_read: {tensor: B, level: scratchpad, at: root}
  - cache_write: {tensor: C, level: accumulator, at: root}
)";
    return {
        // intrinsic, dataflow, target
        {"no_intrinsic", "matmul_int8", mm32, mmSetup, "tensorize: {loops: [i.inner, j.inner, k.inner], dataflow: weight_stationary}",
         {"tensorize needs an intrinsic: intrinsic: gemmini_matmul"}},
        {"unknown_intrinsic", "matmul_int8", mm32, mmSetup, "tensorize: {loops: [i.inner, j.inner, k.inner], intrinsic: wmma, dataflow: weight_stationary}",
         {"unknown intrinsic 'wmma' (known: gemmini_matmul)"}},
        {"no_dataflow", "matmul_int8", mm32, mmSetup, "tensorize: {loops: [i.inner, j.inner, k.inner], intrinsic: gemmini_matmul}",
         {"tensorize needs a dataflow: weight_stationary or output_stationary"}},
        {"unknown_dataflow", "matmul_int8", mm32, mmSetup, "tensorize: {loops: [i.inner, j.inner, k.inner], intrinsic: gemmini_matmul, dataflow: row_stationary}",
         {"unknown dataflow 'row_stationary' (known: weight_stationary, output_stationary)"}},
        {"cpu_target", "matmul_int8", mm32, mmSplits, tz,
         {"target cortex-m7 has no PE array (compute.pe_array): gemmini_matmul runs on an accelerator's systolic array"}, {}, "cortex-m7"},
        {"dataflow_unsupported", "matmul_int8", mm32, mmSetup, tzOs,
         {"target gemmini-16x16's PE array does not support output_stationary (dataflows: weight_stationary)"},
         [](hw::Target& t) { t.compute.peArray->dataflows = {"weight_stationary"}; }},
        {"not_square", "matmul_int8", mm32, mmSetup, tz, {"target gemmini-16x16's PE array is 16x8; gemmini_matmul needs a square DIM x DIM array"},
         [](hw::Target& t) { t.compute.peArray->cols = 8; }},
        {"no_accumulator_level", "matmul_int8", mm32, mmSplits, tz,
         {"target gemmini-16x16 has no memory level 'accumulator' (levels: DRAM, scratchpad, acc): gemmini_matmul reads its operands from the scratchpad and "
          "accumulates in the accumulator"},
         [](hw::Target& t) { t.levels[2].name = "acc"; }},
        // the stage
        {"not_a_reduction", "tests/data/analysis/transpose_scale", {}, "", "tensorize: {loops: [i, j, j], intrinsic: gemmini_matmul, dataflow: weight_stationary}",
         {"stage T is not a reduction (+=): gemmini_matmul computes a matrix product", {}, {"T"}}},
        {"not_a_product", "gemmini_sum", mm16, cachedPlain, tzPlain,
         {"stage C computes C[i, j] += A[i, k] + B[k, j]: gemmini_matmul needs a product of two loads, each optionally plus a constant, e.g. (A[i, k] + 128) * B[k, j]",
          {}, {"C"}}},
        {"int16_operands", "dense_int16", {{"B", 4}, {"IN", 16}, {"OUT", 16}}, "", "tensorize: {loops: [b, o, i], intrinsic: gemmini_matmul, dataflow: weight_stationary}",
         {"the PE array multiplies int8 operands; X is int16", {}, {"X"}}},
        {"depthwise", "depthwise_conv_int8", {{"H", 8}, {"W", 8}, {"C", 16}}, "  - reorder: {loops: [n, h, r, w, c, s]}\n",
         "tensorize: {loops: [w, c, s], intrinsic: gemmini_matmul, dataflow: weight_stationary}",
         {"c indexes both operands, I and F: j must index only B and the output (the columns of the block); this is a depthwise pattern: each output channel reads "
          "its own input channel, so there is no reduction shared by a column of the output and a row of the input, and no matrix product to put on the PE array",
          {"c"}, {"I", "F"}}},
        {"offset_on_b", "gemmini_offset_b", mm16, cachedPlain, tzPlain,
         {"the offset 3 on B (the operand indexed by j) cannot be folded into the accumulator's initial value: it would add 3 x the sum of a row of A; only the "
          "operand indexed by i may carry an offset",
          {}, {"B"}}},
        {"a_transposed", "gemmini_a_transposed", mm16, cachedPlain, tzPlain,
         {"A's last dimension must be indexed by k alone with a step of 1: a scratchpad row holds 16 consecutive elements along it, the depth of the block",
          {"k"}, {"A"}}},
        {"b_transposed", "dense_int8", {{"B", 16}, {"IN", 16}, {"OUT", 16}}, "", "tensorize: {loops: [b, o, i], intrinsic: gemmini_matmul, dataflow: weight_stationary}",
         {"Wt's last dimension must be indexed by o alone with a step of 1: a scratchpad row holds 16 consecutive elements along it, the columns of the block",
          {"o"}, {"Wt"}}},
        {"output_transposed", "gemmini_c_transposed", mm16, cachedPlain + "  - reorder: {loops: [i, j]}\n", tzPlain,
         {"the output C must have j as its last dimension and i as the one before it: an accumulator row holds the columns of one output row, and the rows of a "
          "block follow each other",
          {"i", "j"}, {"C"}}},
        {"pad_value_not_int8", "gemmini_conv_offset200", {}, kConvSetup, kConvTensorize,
         {"I is zero-padded with offset 200: the scratchpad halo would hold -200 (so that the padded terms add nothing), which is not an int8", {}, {"I"}}},
        // the loops
        {"not_innermost", "matmul_int8", mm32, mmSetup, "tensorize: {loops: [j.outer, k.outer, i.inner], intrinsic: gemmini_matmul, dataflow: weight_stationary}",
         {"the loops must be the three innermost loops of stage C in the order [i, j, k]; they are [i.inner, j.inner, k.inner], not [j.outer, k.outer, i.inner]",
          {"j.outer", "k.outer", "i.inner"}, {}, "reorder {loops: [j.outer, k.outer, i.inner]}"}},
        {"wrong_order", "matmul_int8", mm32, mmSetup, "tensorize: {loops: [j.inner, i.inner, k.inner], intrinsic: gemmini_matmul, dataflow: weight_stationary}",
         {"the loops must be the three innermost loops of stage C in the order [i, j, k]; they are [i.inner, j.inner, k.inner], not [j.inner, i.inner, k.inner]",
          {"j.inner", "i.inner", "k.inner"}}},
        {"loop_twice", "matmul_int8", mm32, mmSetup, "tensorize: {loops: [i.inner, i.inner, k.inner], intrinsic: gemmini_matmul, dataflow: weight_stationary}",
         {"tensorize names a loop twice: i.inner, i.inner, k.inner", {"i.inner", "i.inner", "k.inner"}}},
        {"two_loops", "matmul_int8", mm32, mmSetup, "tensorize: {loops: [i.inner, j.inner], intrinsic: gemmini_matmul, dataflow: weight_stationary}",
         {"tensorize takes three loops [i, j, k]: the rows, columns and reduction of the block", {"i.inner", "j.inner"}}},
        {"unknown_loop", "matmul_int8", mm32, mmSetup, "tensorize: {loops: [i.inner, j.inner, x], intrinsic: gemmini_matmul, dataflow: weight_stationary}",
         {"x is not a loop of stage C", {"x"}}},
        {"unrolled_block_loop", "matmul_int8", mm32, mmSetup + "  - unroll: {loop: j.inner}\n", tz,
         {"can't tensorize j.inner: it is unrolled; the block's loops must be serial", {"j.inner"}}},
        {"parallel_outer_loop", "matmul_int8", mm32, mmSetup + "  - parallel: {loop: i.outer}\n", tz,
         {"loop i.outer of stage C is parallel: a tensorized stage issues every block to one accelerator, whose scratchpad parallel iterations would share",
          {"i.outer"}}},
        {"reduction_as_i", "matmul_int8", {{"M", 16}, {"N", 16}, {"K", 16}}, "  - reorder: {loops: [k, i, j]}\n",
         "tensorize: {loops: [k, i, j], intrinsic: gemmini_matmul, dataflow: weight_stationary}",
         {"tensorize maps [k, i, j] onto the array as [i, j, k]: i and j become the rows and columns of the output block and must be spatial, but k "
          "is a reduction loop",
          {"k", "i", "j"}}},
        {"spatial_as_k", "matmul_int8", {{"M", 16}, {"N", 16}, {"K", 16}}, "  - reorder: {loops: [k, i, j]}\n",
         "tensorize: {loops: [i, j, k], intrinsic: gemmini_matmul, dataflow: weight_stationary}",
         {"the loops must be the three innermost loops of stage C in the order [i, j, k]; they are [k, i, j], not [i, j, k]", {"i", "j", "k"}}},
        {"outer_part", "matmul_int8", mm32, "  - split: {loop: k, factor: 2}\n  - reorder: {loops: [k.inner, k.outer]}\n",
         "tensorize: {loops: [i, j, k.outer], intrinsic: gemmini_matmul, dataflow: weight_stationary}",
         {"the loops must be the three innermost loops of stage C in the order [i, j, k]; they are [j, k.inner, k.outer], not [i, j, k.outer]",
          {"i", "j", "k.outer"}}},
        {"steps_by_factor", "matmul_int8", {{"M", 16}, {"N", 16}, {"K", 32}}, "  - split: {loop: k, factor: 2}\n  - reorder: {loops: [k.inner, k.outer]}\n"
                                                                           "  - reorder: {loops: [k.inner, i, j]}\n",
         "tensorize: {loops: [i, j, k.outer], intrinsic: gemmini_matmul, dataflow: weight_stationary}",
         {"can't tensorize k.outer: it steps its axis by 2; a block's rows, columns and depth must be consecutive (use the inner part of the split)", {"k.outer"}}},
        {"fused", "matmul_int8", {{"M", 4}, {"N", 16}, {"K", 16}}, "  - split: {loop: i, factor: 2}\n  - fuse: {loops: [i.outer, i.inner]}\n",
         "tensorize: {loops: [i.outer.i.inner.fused, j, k], intrinsic: gemmini_matmul, dataflow: weight_stationary}",
         {"can't tensorize fused loop i.outer.i.inner.fused: its values do not step one axis", {"i.outer.i.inner.fused"}}},
        {"block_too_large", "matmul_int8", {{"M", 32}, {"N", 16}, {"K", 16}}, cachedPlain, tzPlain,
         {"i has extent 32: a block has at most 16 rows (the PE array is 16x16)", {"i"}, {}, "split {loop: i, factor: 16}"}},
        {"depth_too_large", "matmul_int8", {{"M", 16}, {"N", 16}, {"K", 20}}, cachedPlain, tzPlain,
         {"k has extent 20: a block reduces over at most 16 elements (the PE array is 16x16)", {"k"}}},
        // the caches
        {"a_not_cached", "matmul_int8", mm32, mmSplits, tz,
         {"A must be cached in the scratchpad (the array reads its operand A there)", {}, {"A"}, "add cache_read {tensor: A, level: scratchpad, at: k.outer}"}},
        {"b_not_cached", "matmul_int8", mm32, mmSplits + "  - cache_read: {tensor: A, level: scratchpad, at: root}\n", tz,
         {"B must be cached in the scratchpad (the array reads its operand B there)", {}, {"B"}, "add cache_read {tensor: B, level: scratchpad, at: k.outer}"}},
        {"c_not_in_accumulator", "matmul_int8", mm32,
         mmSplits + "  - cache_read: {tensor: A, level: scratchpad, at: root}\n  - cache_read: {tensor: B, level: scratchpad, at: root}\n", tz,
         {"the output C must be accumulated in the accumulator", {}, {"C"}, "add cache_write {tensor: C, level: accumulator, at: j.outer}"}},
        {"c_not_in_accumulator_unsplit_k", "matmul_int8", {{"M", 16}, {"N", 16}, {"K", 16}},
         "  - cache_read: {tensor: A, level: scratchpad, at: root}\n  - cache_read: {tensor: B, level: scratchpad, at: root}\n", tzPlain,
         {"the output C must be accumulated in the accumulator", {}, {"C"}, "add cache_write {tensor: C, level: accumulator, at: root}"}},
        {"a_in_accumulator", "matmul_int8", mm32,
         mmSplits + "  - cache_read: {tensor: A, level: accumulator, at: k.outer}\n  - cache_read: {tensor: B, level: scratchpad, at: k.outer}\n"
                    "  - cache_write: {tensor: C, level: accumulator, at: j.outer}\n",
         tz, {"A is cached in accumulator; the array reads its operand A from the scratchpad only", {}, {"A"}}},
        {"c_in_scratchpad", "matmul_int8", mm32,
         mmSplits + "  - cache_read: {tensor: A, level: scratchpad, at: k.outer}\n  - cache_read: {tensor: B, level: scratchpad, at: k.outer}\n"
                    "  - cache_write: {tensor: C, level: scratchpad, at: j.outer}\n",
         tz, {"C is cached in scratchpad; the array's results go to the accumulator", {}, {"C"}}},
        {"a_cache_inside_block", "matmul_int8", mm32,
         mmSplits + "  - cache_read: {tensor: A, level: scratchpad, at: i.inner}\n  - cache_read: {tensor: B, level: scratchpad, at: k.outer}\n"
                    "  - cache_write: {tensor: C, level: accumulator, at: j.outer}\n",
         tz, {"A@scratchpad sits at i.inner, inside the tensorized block; it must hold the whole block", {"i.inner"}, {"A"}, "compute_at {tensor: A"}},
        {"a_layout_transposed", "matmul_int8", mm32,
         mmSplits + "  - cache_read: {tensor: A, level: scratchpad, at: k.outer, layout: [1, 0]}\n  - cache_read: {tensor: B, level: scratchpad, at: k.outer}\n"
                    "  - cache_write: {tensor: C, level: accumulator, at: j.outer}\n",
         tz, {"A@scratchpad stores dimension 0 innermost: mvin moves rows along A's last dimension, which must stay innermost in the scratchpad", {}, {"A"}}},
        {"lanes_not_aligned", "matmul_int8", {{"M", 16}, {"N", 16}, {"K", 32}},
         "  - split: {loop: k, factor: 8}\n  - reorder: {loops: [k.outer, i, j, k.inner]}\n  - cache_read: {tensor: A, level: scratchpad, at: root}\n"
         "  - cache_read: {tensor: B, level: scratchpad, at: root}\n  - cache_write: {tensor: C, level: accumulator, at: root}\n",
         "tensorize: {loops: [i, j, k.inner], intrinsic: gemmini_matmul, dataflow: weight_stationary}",
         {"loop k.outer inside A@scratchpad moves A's last index by 8, not a multiple of 16: a block would not start at the first element of a 16-element row",
          {"k.outer"}, {"A"}, "split k by 16, or place the cache inside k.outer"}},
        {"bias_cached", "conv2d_int8", {}, std::string(kConvSetup) + "  - cache_read: {tensor: bias, level: scratchpad, at: root}\n", kConvTensorize,
         {"bias is cached, but a tensorized stage reads its requantization parameters from DRAM (the bias by mvin into the accumulator, multiplier and shift by "
          "the host)",
          {}, {"bias"}}},
        {"already_tensorized", "matmul_int8", mm32, mmSetup + "  - " + tz + "\n", tz,
         {"stage C is already tensorized (step 8)", {"i.inner", "j.inner", "k.inner"}}},
        // later steps that would break a tensorized stage
        {"reorder_after", "matmul_int8", mm32, mmSetup + "  - " + tz + "\n", "reorder: {loops: [j.inner, i.inner]}",
         {"stage C is tensorized (step 8): the loops must be the three innermost loops of stage C in the order [i, j, k]; they are [j.inner, i.inner, k.inner], "
          "not [i.inner, j.inner, k.inner]",
          {"i.inner", "j.inner", "k.inner"}}},
        {"split_after", "matmul_int8", mm32, mmSetup + "  - " + tz + "\n", "split: {loop: k.inner, factor: 4}",
         {"stage C is tensorized (step 8): its loop k.inner can't be split", {"k.inner"}}},
        {"unroll_after", "matmul_int8", mm32, mmSetup + "  - " + tz + "\n", "unroll: {loop: k.inner}",
         {"stage C is tensorized (step 8): can't tensorize k.inner: it is unrolled; the block's loops must be serial", {"k.inner"}}},
        {"cache_moved_into_block", "matmul_int8", mm32, mmSetup + "  - " + tz + "\n", "compute_at: {tensor: B, level: scratchpad, at: j.inner}",
         {"stage C is tensorized (step 8): B@scratchpad sits at j.inner, inside the tensorized block; it must hold the whole block", {"j.inner"}, {"B"}}},
    };
}

class TensorizeError : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(TensorizeError, FailsWithTypedErrorAndChangesNothing)
{
    const ErrorCase& c = GetParam();
    auto k = kernel(c.kernel, c.params);
    ASSERT_TRUE(k);
    auto t = c.target ? editedGemmini(c.target) : test::builtinTarget(c.builtin);
    Program p = program(k, t, c.setup);
    expectError(p, step(c.bad), c.expected);
}

INSTANTIATE_TEST_SUITE_P(EveryPrecondition, TensorizeError, ::testing::ValuesIn(errorCases()),
                         [](const ::testing::TestParamInfo<ErrorCase>& info) { return info.param.name; });

TEST(TensorizePlan, AddsTheCachesItNeeds)
{
    auto k = kernel("matmul_int8", {{"M", 32}, {"N", 32}, {"K", 32}});
    Program p = program(k, gemmini(), R"(  - split: {loop: i, factor: 16}
  - split: {loop: j, factor: 16}
  - split: {loop: k, factor: 16}
  - reorder: {loops: [i.outer, j.outer, k.outer, i.inner, j.inner, k.inner]}
)");
    sched::TensorizePlan plan = sched::planTensorize(p, 0, sched::Dataflow::OutputStationary);
    ASSERT_TRUE(plan.legal) << (plan.error ? plan.error->str() : "");
    std::vector<std::string> described;
    for (const auto& s : plan.steps)
        described.push_back(sched::describe(s));
    EXPECT_EQ(described, (std::vector<std::string>{"cache_read A into scratchpad at k.outer", "cache_read B into scratchpad at k.outer",
                                                   "cache_write C into accumulator at j.outer",
                                                   "tensorize i.inner, j.inner, k.inner as gemmini_matmul (output_stationary)"}));
    Program q = p;
    for (const auto& s : plan.steps) {
        auto r = sched::apply(q, s);
        ASSERT_TRUE(r.ok()) << r.error().str();
        q = r.program();
    }
    EXPECT_TRUE(q.stages[0].tensorize);
    // Already legal: just the tensorize.
    EXPECT_EQ(sched::planTensorize(q, 0, sched::Dataflow::OutputStationary).legal, false);  // already tensorized
    // Not fixable by caches: the error says why.
    sched::TensorizePlan big = sched::planTensorize(Program::initial(k, gemmini()), 0, sched::Dataflow::WeightStationary);
    EXPECT_FALSE(big.legal);
    ASSERT_TRUE(big.error);
    EXPECT_EQ(big.error->message, "i has extent 32: a block has at most 16 rows (the PE array is 16x16)");
}
