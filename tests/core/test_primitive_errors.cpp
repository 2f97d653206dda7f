// Every precondition of every schedule primitive, and every whole-program invariant, fails
// with a typed error naming what was asked and why, and a failed step changes nothing.
#include "support/step_text.h"
#include "support/test_paths.h"

#include "ir/kernel.h"
#include "sched/program.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

using namespace loopscope;
using sched::Primitive;
using sched::Program;
using sched::Step;

namespace {

// ---- steps, as a schedule file would write them ----------------------------------------

Step split(std::string loop, int64_t factor, std::string stage = {})
{
    Step s;
    s.primitive = Primitive::Split;
    s.loops = {std::move(loop)};
    s.factor = factor;
    s.stage = std::move(stage);
    return s;
}

Step splitParts(std::string loop, int64_t nparts)
{
    Step s = split(std::move(loop), 0);
    s.nparts = nparts;
    return s;
}

Step loopsStep(Primitive p, std::vector<std::string> loops, std::string stage = {})
{
    return test::loopStep(p, std::move(loops), 0, std::move(stage));
}

Step tile(std::string x, std::string y, std::vector<int64_t> factors, std::string stage = {})
{
    Step s = loopsStep(Primitive::Tile, {std::move(x), std::move(y)}, std::move(stage));
    s.factors = std::move(factors);
    return s;
}

Step reorder(std::vector<std::string> loops, std::string stage = {})
{
    return loopsStep(Primitive::Reorder, std::move(loops), std::move(stage));
}

Step fuse(std::string a, std::string b, std::string stage = {})
{
    return loopsStep(Primitive::Fuse, {std::move(a), std::move(b)}, std::move(stage));
}

Step unroll(std::string l) { return loopsStep(Primitive::Unroll, {std::move(l)}); }
Step vectorize(std::string l) { return loopsStep(Primitive::Vectorize, {std::move(l)}); }
Step parallel(std::string l) { return loopsStep(Primitive::Parallel, {std::move(l)}); }

using test::cacheStep;

Step cacheRead(std::string t, std::string level, std::string at = "root", std::string stage = {})
{
    return cacheStep(Primitive::CacheRead, std::move(t), std::move(level), std::move(at), std::move(stage));
}

Step cacheWrite(std::string t, std::string level, std::string at = "root", std::string stage = {})
{
    return cacheStep(Primitive::CacheWrite, std::move(t), std::move(level), std::move(at), std::move(stage));
}

/// compute_at, first form: move the cache stage tensor@level.
Step moveCache(std::string t, std::string level, std::string at, std::string stage = {})
{
    return cacheStep(Primitive::ComputeAt, std::move(t), std::move(level), std::move(at), std::move(stage));
}

/// compute_at, second form: place producer stage at a loop of `stage`.
Step computeAt(std::string producer, std::string at, std::string stage = {}, std::string level = {})
{
    Step s;
    s.primitive = Primitive::ComputeAt;
    s.producer = std::move(producer);
    s.at = std::move(at);
    s.stage = std::move(stage);
    s.level = std::move(level);
    return s;
}

Step computeInline(std::string producer)
{
    Step s;
    s.primitive = Primitive::ComputeInline;
    s.producer = std::move(producer);
    return s;
}

Step doubleBuffer(std::string t, std::string level = {}, std::string stage = {})
{
    Step s;
    s.primitive = Primitive::DoubleBuffer;
    s.tensor = std::move(t);
    s.level = std::move(level);
    s.stage = std::move(stage);
    return s;
}

// ---- kernels and programs ----------------------------------------------------------------

struct KernelSpec {
    const char* file;
    std::map<std::string, int64_t> params;
};

/// Short names for the kernels the cases use; small sizes, the extents appear in messages.
const std::map<std::string, KernelSpec>& kernelSpecs()
{
    static const std::map<std::string, KernelSpec> specs = {
        {"mm", {"matmul_f32", {{"M", 8}, {"N", 6}, {"K", 5}}}},           // C[i,j] += A[i,k]*B[k,j]
        {"mm_long_k", {"matmul_f32", {{"M", 2}, {"N", 2}, {"K", 300}}}},
        {"mm_wide_k", {"matmul_f32", {{"M", 2}, {"N", 2}, {"K", 65}}}},
        {"mm_i8", {"matmul_int8", {{"M", 8}, {"N", 6}, {"K", 5}}}},
        {"dw", {"dwsep_conv", {{"H", 4}, {"W", 5}, {"C", 3}, {"K", 2}}}},  // D(h,w,c,r,s) -> O(h,w,k,c)
        {"sm", {"scaled_matmul", {}}},                                     // T(i,k) -> C(i,j,k)
        {"fo", {"fanout_pipeline", {}}},                                   // T -> U -> C -> E
        {"sq", {"square_pipeline", {}}},                                   // T -> C = T * T
        {"ch", {"chain_pipeline", {}}},                                    // T -> U -> C
    };
    return specs;
}

std::shared_ptr<const ir::Kernel> kernel(const std::string& key)
{
    static std::map<std::string, std::shared_ptr<const ir::Kernel>> cache;
    auto it = cache.find(key);
    if (it != cache.end())
        return it->second;
    const KernelSpec& spec = kernelSpecs().at(key);
    auto k = ir::loadKernelFile(test::kernelPath(spec.file), spec.params);
    if (!k.ok()) {
        ADD_FAILURE() << k.errorText();
        return nullptr;
    }
    auto p = std::make_shared<const ir::Kernel>(*k);
    cache[key] = p;
    return p;
}

std::string joined(const std::vector<std::string>& v)
{
    std::string out;
    for (const auto& s : v)
        out += (out.empty() ? "" : ", ") + s;
    return out;
}

/// Everything a step could change, as text: a failed step must leave it identical.
std::string snapshot(const Program& p)
{
    std::ostringstream os;
    os << "trace " << p.trace.size() << "\n";
    for (const auto& s : p.trace)
        os << "  " << sched::describe(s) << " [" << s.stage << "]\n";
    for (size_t s = 0; s < p.stages.size(); ++s) {
        const auto& ss = p.stages[s];
        os << "stage " << s << (ss.inlined ? " inlined" : "") << " at " << ss.computeAt.stage << "/"
           << ss.computeAt.var << " store " << ss.storeLevel << " vars " << ss.vars.size() << ":";
        for (int v : ss.order)
            os << ' ' << ss.vars[v].name << '=' << ss.vars[v].extent << '/'
               << sched::loopKindName(ss.vars[v].kind);
        os << "\n";
    }
    for (const auto& c : p.caches)
        os << "cache " << c.tensor << '@' << c.level << (c.write ? " write" : " read") << " stage "
           << c.stage << " var " << c.var << (c.doubleBuffer ? " x2" : "") << "\n";
    return os.str();
}

Program programFor(std::shared_ptr<const ir::Kernel> k, const std::string& target,
                   const std::vector<Step>& setup)
{
    auto t = test::builtinTarget(target);
    sched::ApplyResult r = sched::replay(std::move(k), std::move(t), setup);
    EXPECT_TRUE(r.ok()) << "setup failed: " << r.error().str();
    return r.ok() ? r.program() : Program{};
}

struct Expected {
    std::string message;
    std::vector<std::string> loops = {};
    std::vector<std::string> tensors = {};
    std::string detail = {};  ///< a substring of the detail; empty: not checked
};

/// Applies `bad` to `p` and checks the error and that p is untouched.
void expectError(const Program& p, const Step& bad, const Expected& e)
{
    const std::string before = snapshot(p);
    const size_t traceSize = p.trace.size();
    sched::ApplyResult r = sched::apply(p, bad);
    ASSERT_FALSE(r.ok()) << "expected \"" << e.message << "\" but the step applied:\n"
                         << snapshot(r.program());
    const sched::ScheduleError& err = r.error();
    EXPECT_EQ(err.stepIndex, static_cast<int>(traceSize));
    EXPECT_EQ(err.primitive, bad.primitive) << sched::primitiveName(err.primitive);
    EXPECT_EQ(err.message, e.message);
    EXPECT_EQ(err.loops, e.loops) << "highlighted loops: " << joined(err.loops);
    EXPECT_EQ(err.tensors, e.tensors) << "highlighted tensors: " << joined(err.tensors);
    if (!e.detail.empty()) {
        EXPECT_NE(err.detail.find(e.detail), std::string::npos) << "detail: " << err.detail;
    }
    // A failed step changes nothing.
    EXPECT_EQ(snapshot(p), before);
    EXPECT_EQ(p.trace.size(), traceSize);
}

// ---- the table ---------------------------------------------------------------------------

struct ErrorCase {
    std::string name;
    std::string kernel;  ///< key of kernelSpecs()
    std::string target = "cortex-m7";
    std::vector<Step> setup = {};
    Step bad = {};
    std::string message = {};
    std::vector<std::string> loops = {};
    std::vector<std::string> tensors = {};
    std::string detail = {};
};

void PrintTo(const ErrorCase& c, std::ostream* os) { *os << c.name; }

std::vector<ErrorCase> errorCases()
{
    const std::string m7Levels = "(levels: DRAM, SRAM)";
    return {
        // Loop lookup, shared by every primitive that names loops.
        {.name = "loop_name_empty", .kernel = "mm", .bad = split("", 2),
         .message = "a loop name is required"},
        {.name = "loop_unknown", .kernel = "mm", .bad = split("x", 2),
         .message = "x is not a loop of stage C", .loops = {"x"}, .detail = "loops of stage C: i, j, k"},
        {.name = "loop_already_split", .kernel = "mm", .setup = {split("i", 4)}, .bad = split("i", 2),
         .message = "i is not a loop of stage C", .loops = {"i"}, .detail = "i was split into i.outer and i.inner"},
        {.name = "loop_fused_away", .kernel = "mm", .setup = {fuse("i", "j")}, .bad = split("j", 2),
         .message = "j is not a loop of stage C", .loops = {"j"}, .detail = "j was fused into i.j.fused"},
        {.name = "loop_of_other_stage", .kernel = "dw", .bad = split("r", 2, "O"),
         .message = "r is not a loop of stage O", .loops = {"r"}, .detail = "loops of stage O: h, w, k, c"},
        {.name = "loop_ambiguous", .kernel = "dw", .bad = split("h", 2),
         .message = "loop h exists in stages D, O; name the stage", .loops = {"h"}},
        {.name = "stage_unknown", .kernel = "dw", .bad = split("h", 2, "X"),
         .message = "no stage named 'X' (stages: D, O)"},
        {.name = "stage_inlined", .kernel = "sm", .setup = {computeInline("T")}, .bad = split("i", 2, "T"),
         .message = "stage T was inlined by compute_inline and has no loops"},

        // split
        {.name = "split_no_loop", .kernel = "mm", .bad = loopsStep(Primitive::Split, {}),
         .message = "split takes exactly one loop"},
        {.name = "split_two_loops", .kernel = "mm", .bad = [] { Step s = split("i", 2); s.loops.push_back("j"); return s; }(),
         .message = "split takes exactly one loop"},
        {.name = "split_no_factor", .kernel = "mm", .bad = split("i", 0),
         .message = "split of i needs a positive factor or nparts (factor 0)", .loops = {"i"}},
        {.name = "split_factor_and_nparts", .kernel = "mm", .bad = [] { Step s = split("i", 2); s.nparts = 2; return s; }(),
         .message = "split of i takes a factor or nparts, not both (factor 2, nparts 2)", .loops = {"i"}},
        {.name = "split_negative_factor", .kernel = "mm", .bad = split("i", -4),
         .message = "split of i needs a positive factor or nparts (factor -4)", .loops = {"i"}},
        {.name = "split_factor_and_negative_nparts", .kernel = "mm", .bad = [] { Step s = split("i", 4); s.nparts = -2; return s; }(),
         .message = "split of i takes a factor or nparts, not both (factor 4, nparts -2)", .loops = {"i"}},
        {.name = "split_negative_nparts", .kernel = "mm", .bad = splitParts("i", -2),
         .message = "split of i needs a positive factor or nparts (nparts -2)", .loops = {"i"}},
        {.name = "split_unrolled", .kernel = "mm", .setup = {unroll("j")}, .bad = split("j", 2),
         .message = "can't split j because it is unrolled; split before marking it", .loops = {"j"}},
        {.name = "split_vectorized", .kernel = "mm", .setup = {vectorize("k")}, .bad = split("k", 2),
         .message = "can't split k because it is vectorized; split before marking it", .loops = {"k"}},
        {.name = "split_parallel", .kernel = "mm", .setup = {parallel("i")}, .bad = split("i", 2),
         .message = "can't split i because it is parallel; split before marking it", .loops = {"i"}},
        {.name = "split_fused_loop", .kernel = "mm", .setup = {fuse("i", "j")}, .bad = split("i.j.fused", 4),
         .message = "can't split fused loop i.j.fused: its tiles would not be boxes of the tensors; split before fusing",
         .loops = {"i.j.fused"}},
        {.name = "split_too_many_parts", .kernel = "mm", .bad = splitParts("i", 9),
         .message = "can't split i into 9 parts: its extent is only 8", .loops = {"i"}},
        {.name = "split_factor_too_large", .kernel = "mm", .bad = split("i", 9),
         .message = "split factor 9 exceeds the extent 8 of i", .loops = {"i"}},
        {.name = "split_inner_factor_too_large", .kernel = "mm", .setup = {split("i", 4)}, .bad = split("i.inner", 5),
         .message = "split factor 5 exceeds the extent 4 of i.inner", .loops = {"i.inner"}},

        // tile
        {.name = "tile_one_loop", .kernel = "mm", .bad = [] { Step s = tile("i", "j", {2, 2}); s.loops.pop_back(); return s; }(),
         .message = "tile takes two loops and two factors"},
        {.name = "tile_one_factor", .kernel = "mm", .bad = tile("i", "j", {2}),
         .message = "tile takes two loops and two factors"},
        {.name = "tile_with_itself", .kernel = "mm", .bad = tile("i", "i", {2, 2}),
         .message = "can't tile i with itself", .loops = {"i"}},
        {.name = "tile_inner_first", .kernel = "mm", .bad = tile("j", "i", {2, 2}),
         .message = "can't tile: j must be outside i", .loops = {"j", "i"}},
        {.name = "tile_zero_factor", .kernel = "mm", .bad = tile("i", "j", {4, 0}),
         .message = "tile factors must be positive", .loops = {"i", "j"}},
        {.name = "tile_negative_factor", .kernel = "mm", .bad = tile("i", "j", {-1, 2}),
         .message = "tile factors must be positive", .loops = {"i", "j"}},
        {.name = "tile_x_factor_too_large", .kernel = "mm", .bad = tile("i", "j", {16, 2}),
         .message = "split factor 16 exceeds the extent 8 of i", .loops = {"i"}},
        // The split of i succeeds inside the primitive before j's fails: nothing may remain of it.
        {.name = "tile_y_factor_too_large", .kernel = "mm", .bad = tile("i", "j", {2, 7}),
         .message = "split factor 7 exceeds the extent 6 of j", .loops = {"j"}},
        {.name = "tile_y_unrolled", .kernel = "mm", .setup = {unroll("j")}, .bad = tile("i", "j", {2, 2}),
         .message = "can't split j because it is unrolled; split before marking it", .loops = {"j"}},
        {.name = "tile_across_stages", .kernel = "dw", .bad = tile("r", "k", {2, 2}),
         .message = "k is not a loop of stage D", .loops = {"k"}, .detail = "loops of stage D: h, w, c, r, s"},

        // reorder
        {.name = "reorder_one_loop", .kernel = "mm", .bad = reorder({"i"}),
         .message = "reorder needs at least two loops"},
        {.name = "reorder_twice", .kernel = "mm", .bad = reorder({"i", "j", "i"}),
         .message = "reorder names i twice", .loops = {"i"}},
        {.name = "reorder_unknown_loop", .kernel = "mm", .bad = reorder({"i", "x"}),
         .message = "x is not a loop of stage C", .loops = {"x"}},
        {.name = "reorder_split_away", .kernel = "mm", .setup = {split("k", 2)}, .bad = reorder({"k", "i"}),
         .message = "k is not a loop of stage C", .loops = {"k"}, .detail = "k was split into k.outer and k.inner"},
        {.name = "reorder_across_stages", .kernel = "dw", .bad = reorder({"r", "k"}),
         .message = "k is not a loop of stage D", .loops = {"k"}},
        {.name = "reorder_moves_vectorized", .kernel = "mm", .setup = {split("k", 4), vectorize("k.inner")},
         .bad = reorder({"k.inner", "k.outer"}),
         .message = "k.inner is vectorized and must stay the innermost loop of stage C", .loops = {"k.inner"}},
        {.name = "reorder_puts_reduction_outside_cache_write", .kernel = "mm", .setup = {cacheWrite("C", "SRAM", "j")},
         .bad = reorder({"k", "j"}),
         .message = "reduction loop k would be outside j, where cache_write C@SRAM sits", .loops = {"k", "j"},
         .tensors = {"C"}, .detail = "the written-back tile would not be final"},
        {.name = "reorder_moves_consumer_cache_outside_producer", .kernel = "dw",
         .setup = {computeAt("D", "w", "O", "DRAM"), cacheRead("D", "SRAM", "k", "O")}, .bad = reorder({"k", "w"}, "O"),
         .message = "cache_read D@SRAM sits outside w, where its producer D is computed", .loops = {"w"},
         .tensors = {"D"}},
        {.name = "reorder_makes_cache_write_strided", .kernel = "mm", .setup = {split("i", 4), cacheWrite("C", "SRAM", "j")},
         .bad = reorder({"i.inner", "j", "i.outer"}),
         .message = "cache_write C@SRAM at j: the tile of C computed in its body is not contiguous along i",
         .loops = {"j"}, .tensors = {"C"},
         .detail = "the outer part of a split of i runs inside j while the inner part runs outside"},

        // fuse
        {.name = "fuse_one_loop", .kernel = "mm", .bad = loopsStep(Primitive::Fuse, {"i"}),
         .message = "fuse takes exactly two loops"},
        {.name = "fuse_not_adjacent", .kernel = "mm", .bad = fuse("i", "k"),
         .message = "can't fuse i and k: k is not directly inside i", .loops = {"i", "k"}},
        {.name = "fuse_reversed", .kernel = "mm", .bad = fuse("j", "i"),
         .message = "can't fuse j and i: i is not directly inside j", .loops = {"j", "i"}},
        {.name = "fuse_with_itself", .kernel = "mm", .bad = fuse("i", "i"),
         .message = "can't fuse i and i: i is not directly inside i", .loops = {"i", "i"}},
        {.name = "fuse_spatial_with_reduction", .kernel = "mm", .bad = fuse("j", "k"),
         .message = "can't fuse j and k: one is a reduction loop and the other is not", .loops = {"j", "k"}},
        {.name = "fuse_parallel_outer", .kernel = "mm", .setup = {parallel("i")}, .bad = fuse("i", "j"),
         .message = "can't fuse i because it is parallel", .loops = {"i"}},
        {.name = "fuse_unrolled_inner", .kernel = "mm", .setup = {unroll("j")}, .bad = fuse("i", "j"),
         .message = "can't fuse j because it is unrolled", .loops = {"j"}},
        {.name = "fuse_over_cache_stage", .kernel = "mm", .setup = {cacheRead("A", "SRAM", "i")}, .bad = fuse("i", "j"),
         .message = "can't fuse i and j: A@SRAM sits between them, in the body of i", .loops = {"i"},
         .detail = "move it with compute_at first"},
        {.name = "fuse_over_producer", .kernel = "dw", .setup = {computeAt("D", "h", "O")}, .bad = fuse("h", "w", "O"),
         .message = "can't fuse h and w: stage D sits between them, in the body of h", .loops = {"h"}},
        {.name = "fuse_across_stages", .kernel = "dw", .bad = fuse("r", "k"),
         .message = "k is not a loop of stage D", .loops = {"k"}},

        // unroll / vectorize / parallel
        {.name = "unroll_no_loop", .kernel = "mm", .bad = loopsStep(Primitive::Unroll, {}),
         .message = "unroll takes exactly one loop"},
        {.name = "vectorize_two_loops", .kernel = "mm", .bad = loopsStep(Primitive::Vectorize, {"j", "k"}),
         .message = "vectorize takes exactly one loop"},
        {.name = "parallel_no_loop", .kernel = "mm", .bad = loopsStep(Primitive::Parallel, {}),
         .message = "parallel takes exactly one loop"},
        {.name = "unroll_unknown_loop", .kernel = "mm", .bad = unroll("x"),
         .message = "x is not a loop of stage C", .loops = {"x"}},
        {.name = "unroll_twice", .kernel = "mm", .setup = {unroll("j")}, .bad = unroll("j"),
         .message = "j is already unrolled", .loops = {"j"}},
        {.name = "unroll_parallel", .kernel = "mm", .setup = {parallel("i")}, .bad = unroll("i"),
         .message = "i is already parallel", .loops = {"i"}},
        {.name = "vectorize_unrolled", .kernel = "mm", .setup = {unroll("k")}, .bad = vectorize("k"),
         .message = "k is already unrolled", .loops = {"k"}},
        {.name = "parallel_vectorized", .kernel = "mm", .setup = {split("j", 2), reorder({"k", "j.inner"}), vectorize("j.inner")},
         .bad = parallel("j.inner"), .message = "j.inner is already vectorized", .loops = {"j.inner"}},
        {.name = "unroll_too_long", .kernel = "mm_long_k", .bad = unroll("k"),
         .message = "can't unroll k: extent 300 exceeds 256; split it first", .loops = {"k"}},
        {.name = "vectorize_not_innermost", .kernel = "mm", .bad = vectorize("j"),
         .message = "can't vectorize j: only the innermost loop (k) can be vectorized", .loops = {"j"}},
        {.name = "vectorize_not_innermost_after_split", .kernel = "mm", .setup = {split("k", 2)}, .bad = vectorize("k.outer"),
         .message = "can't vectorize k.outer: only the innermost loop (k.inner) can be vectorized", .loops = {"k.outer"}},
        {.name = "vectorize_too_wide", .kernel = "mm_wide_k", .bad = vectorize("k"),
         .message = "can't vectorize k: extent 65 exceeds 64 lanes; split it first", .loops = {"k"}},
        {.name = "parallel_reduction", .kernel = "mm", .bad = parallel("k"),
         .message = "can't parallelize reduction loop k: iterations would race on the accumulator", .loops = {"k"}},
        {.name = "parallel_reduction_part", .kernel = "mm", .setup = {split("k", 2)}, .bad = parallel("k.outer"),
         .message = "can't parallelize reduction loop k.outer: iterations would race on the accumulator",
         .loops = {"k.outer"}},

        // cache_read / cache_write
        {.name = "cache_read_no_tensor", .kernel = "mm", .bad = cacheRead("", "SRAM"),
         .message = "a tensor name is required"},
        {.name = "cache_read_unknown_tensor", .kernel = "mm", .bad = cacheRead("Z", "SRAM"),
         .message = "no tensor named 'Z'", .tensors = {"Z"}},
        {.name = "cache_read_no_level", .kernel = "mm", .bad = cacheRead("A", ""),
         .message = "a memory level is required"},
        {.name = "cache_read_unknown_level", .kernel = "mm", .bad = cacheRead("A", "L2", "j"),
         .message = "target cortex-m7 has no memory level 'L2' " + m7Levels},
        {.name = "cache_read_unknown_level_gemmini", .kernel = "mm_i8", .target = "gemmini-16x16",
         .bad = cacheRead("A", "SRAM", "j"),
         .message = "target gemmini-16x16 has no memory level 'SRAM' (levels: DRAM, scratchpad, accumulator)"},
        {.name = "cache_read_home_level", .kernel = "mm", .bad = cacheRead("A", "DRAM", "j"),
         .message = "can't cache A into DRAM: that is its home level; pick a level inside it", .tensors = {"A"}},
        {.name = "cache_write_home_level", .kernel = "mm", .bad = cacheWrite("C", "DRAM", "j"),
         .message = "can't cache C into DRAM: that is its home level; pick a level inside it", .tensors = {"C"}},
        {.name = "cache_read_unknown_loop", .kernel = "mm", .bad = cacheRead("A", "SRAM", "x"),
         .message = "x is not a loop of stage C", .loops = {"x"}},
        {.name = "cache_read_unknown_stage", .kernel = "mm", .bad = cacheRead("A", "SRAM", "root", "X"),
         .message = "no stage named 'X' (stages: C)"},
        {.name = "cache_read_output_of_stage", .kernel = "mm", .bad = cacheRead("C", "SRAM", "j"),
         .message = "stage C does not read C", .tensors = {"C"}},
        {.name = "cache_read_at_non_reader", .kernel = "dw", .bad = cacheRead("I", "SRAM", "k"),
         .message = "stage O does not read I", .tensors = {"I"}},
        {.name = "cache_read_root_no_reader", .kernel = "mm", .bad = cacheRead("C", "SRAM"),
         .message = "no stage reads C", .tensors = {"C"}},
        {.name = "cache_read_root_several_readers", .kernel = "fo", .bad = cacheRead("A", "SRAM"),
         .message = "A is read by several stages; name the stage", .tensors = {"A"}},
        {.name = "cache_read_root_of_non_reader_stage", .kernel = "fo", .bad = cacheRead("A", "SRAM", "root", "U"),
         .message = "stage U does not read A", .tensors = {"A"}},
        {.name = "cache_read_twice", .kernel = "mm", .setup = {cacheRead("A", "SRAM")}, .bad = cacheRead("A", "SRAM", "j"),
         .message = "A already has a cache stage in SRAM for stage C; use compute_at to move it", .tensors = {"A"}},
        {.name = "cache_read_inlined_tensor", .kernel = "sm", .setup = {computeInline("T")},
         .bad = cacheRead("T", "SRAM", "j", "C"),
         .message = "can't cache T: its stage was inlined, so it is never stored", .tensors = {"T"}},
        {.name = "cache_read_outside_producer", .kernel = "dw", .setup = {computeAt("D", "w", "O", "DRAM")},
         .bad = cacheRead("D", "SRAM", "h", "O"),
         .message = "cache_read D@SRAM sits outside w, where its producer D is computed", .loops = {"w"},
         .tensors = {"D"}},
        {.name = "cache_read_root_with_producer_at_loop", .kernel = "dw", .setup = {computeAt("D", "w", "O", "DRAM")},
         .bad = cacheRead("D", "SRAM", "root", "O"),
         .message = "cache_read D@SRAM sits outside w, where its producer D is computed", .loops = {"w"},
         .tensors = {"D"}},
        {.name = "cache_read_two_index_patterns", .kernel = "sq", .bad = cacheRead("T", "SRAM", "j", "C"),
         .message = "stage C reads T through index patterns that differ in more than a constant; a buffer of it would not be one box",
         .tensors = {"T"}},
        {.name = "cache_read_two_index_patterns_after_inline", .kernel = "sq", .setup = {computeInline("T")},
         .bad = cacheRead("A", "SRAM", "k"),
         .message = "stage C reads A through index patterns that differ in more than a constant; a buffer of it would not be one box",
         .tensors = {"A"}},
        {.name = "cache_read_input_of_inlined_stage_for_non_reader", .kernel = "fo", .setup = {computeInline("T")},
         .bad = cacheRead("A", "SRAM", "root", "E"), .message = "stage E does not read A", .tensors = {"A"}},
        {.name = "cache_read_intermediate_into_its_level", .kernel = "dw",
         .setup = {split("h", 2, "O"), computeAt("D", "h.outer", "O", "SRAM")}, .bad = cacheRead("D", "SRAM", "w", "O"),
         .message = "can't cache D into SRAM: D is computed at h.outer into SRAM; a cache must be in a level inside that one",
         .loops = {"h.outer"}, .tensors = {"D"}},
        {.name = "cache_read_intermediate_into_outer_level", .kernel = "dw", .target = "gemmini-16x16",
         .setup = {computeAt("D", "w", "O")}, .bad = cacheRead("D", "scratchpad", "k", "O"),
         .message = "can't cache D into scratchpad: D is computed at w into accumulator; a cache must be in a level inside that one",
         .loops = {"w"}, .tensors = {"D"}},
        {.name = "cache_write_no_writer", .kernel = "mm", .bad = cacheWrite("A", "SRAM"),
         .message = "no stage writes A", .tensors = {"A"}},
        {.name = "cache_write_input_at_loop", .kernel = "mm", .bad = cacheWrite("A", "SRAM", "j"),
         .message = "stage C does not write A; cache_write caches the output of the stage it is placed in",
         .tensors = {"A"}},
        {.name = "cache_write_at_consumer_loop", .kernel = "dw", .bad = cacheWrite("D", "SRAM", "k"),
         .message = "stage O does not write D; cache_write caches the output of the stage it is placed in",
         .tensors = {"D"}},
        {.name = "cache_write_twice", .kernel = "mm", .setup = {cacheWrite("C", "SRAM", "i")},
         .bad = cacheWrite("C", "SRAM", "j"),
         .message = "C already has a cache stage in SRAM for stage C; use compute_at to move it", .tensors = {"C"}},
        {.name = "cache_write_at_reduction_loop", .kernel = "mm", .bad = cacheWrite("C", "SRAM", "k"),
         .message = "cache_write C@SRAM can't sit at reduction loop k: the tile is not final there", .loops = {"k"},
         .tensors = {"C"}, .detail = "place it at a spatial loop outside every reduction loop"},
        {.name = "cache_write_inside_reduction_loop", .kernel = "mm", .setup = {reorder({"k", "i"})},
         .bad = cacheWrite("C", "SRAM", "i"),
         .message = "reduction loop k would be outside i, where cache_write C@SRAM sits", .loops = {"k", "i"},
         .tensors = {"C"}},
        {.name = "cache_write_strided_tile", .kernel = "mm", .setup = {split("i", 4), reorder({"i.inner", "j", "i.outer"})},
         .bad = cacheWrite("C", "SRAM", "j"),
         .message = "cache_write C@SRAM at j: the tile of C computed in its body is not contiguous along i",
         .loops = {"j"}, .tensors = {"C"}},

        {.name = "cache_write_of_producer_computed_at_consumer_loop", .kernel = "dw",
         .setup = {split("h", 2, "O"), computeAt("D", "h.outer", "O")}, .bad = cacheWrite("D", "SRAM", "h", "D"),
         .message = "can't cache_write D: stage D is computed at h.outer, where its output already has a buffer of its own",
         .tensors = {"D"}},
        {.name = "cache_write_at_root_of_producer_computed_at_consumer_loop", .kernel = "dw",
         .setup = {computeAt("D", "w", "O")}, .bad = cacheWrite("D", "SRAM", "root", "D"),
         .message = "can't cache_write D: stage D is computed at w, where its output already has a buffer of its own",
         .tensors = {"D"}},
        {.name = "cache_write_strided_behind_split_by_one", .kernel = "mm",
         .setup = {split("j", 1), split("j.outer", 3), reorder({"j.outer.inner", "j.outer.outer"})},
         .bad = cacheWrite("C", "SRAM", "j.outer.inner"),
         .message = "cache_write C@SRAM at j.outer.inner: the tile of C computed in its body is not contiguous along j",
         .loops = {"j.outer.inner"}, .tensors = {"C"}},
        {.name = "cache_write_strided_behind_nparts_of_extent", .kernel = "mm",
         .setup = {splitParts("i", 8), split("i.outer", 2), reorder({"i.inner", "i.outer.inner", "i.outer.outer"})},
         .bad = cacheWrite("C", "SRAM", "i.outer.inner"),
         .message = "cache_write C@SRAM at i.outer.inner: the tile of C computed in its body is not contiguous along i",
         .loops = {"i.outer.inner"}, .tensors = {"C"}},

        // compute_at, first form: move a cache stage
        {.name = "move_cache_no_tensor", .kernel = "mm", .bad = moveCache("", "SRAM", "j"),
         .message = "a tensor name is required"},
        {.name = "move_cache_unknown_level", .kernel = "mm", .setup = {cacheRead("A", "SRAM")},
         .bad = moveCache("A", "L2", "j"), .message = "target cortex-m7 has no memory level 'L2' " + m7Levels},
        {.name = "move_cache_missing", .kernel = "mm", .bad = moveCache("A", "SRAM", "j"),
         .message = "A has no cache stage in SRAM; add one with cache_read or cache_write", .tensors = {"A"}},
        {.name = "move_cache_of_other_stage", .kernel = "fo", .setup = {cacheRead("A", "SRAM", "root", "T")},
         .bad = moveCache("A", "SRAM", "k", "C"),
         .message = "A has no cache stage in SRAM for stage C (it has one for stage T); add one with cache_read or cache_write", .tensors = {"A"}},
        {.name = "move_cache_several_stages", .kernel = "fo",
         .setup = {cacheRead("A", "SRAM", "root", "T"), cacheRead("A", "SRAM", "root", "C")},
         .bad = moveCache("A", "SRAM", "k"),
         .message = "A has cache stages in SRAM for several stages; name the stage", .tensors = {"A"}},
        {.name = "move_cache_unknown_loop", .kernel = "mm", .setup = {cacheRead("A", "SRAM")},
         .bad = moveCache("A", "SRAM", "x"), .message = "x is not a loop of stage C", .loops = {"x"}},
        {.name = "move_cache_to_loop_of_other_stage", .kernel = "dw", .setup = {cacheRead("I", "SRAM")},
         .bad = moveCache("I", "SRAM", "k"), .message = "k is not a loop of stage D", .loops = {"k"}},
        {.name = "move_cache_write_to_reduction_loop", .kernel = "mm", .setup = {cacheWrite("C", "SRAM", "j")},
         .bad = moveCache("C", "SRAM", "k"),
         .message = "cache_write C@SRAM can't sit at reduction loop k: the tile is not final there", .loops = {"k"},
         .tensors = {"C"}},
        {.name = "move_cache_write_to_strided_tile", .kernel = "mm",
         .setup = {split("i", 4), reorder({"i.inner", "j", "i.outer"}), cacheWrite("C", "SRAM")},
         .bad = moveCache("C", "SRAM", "j"),
         .message = "cache_write C@SRAM at j: the tile of C computed in its body is not contiguous along i",
         .loops = {"j"}, .tensors = {"C"}},
        {.name = "move_cache_outside_producer", .kernel = "dw",
         .setup = {computeAt("D", "w", "O", "DRAM"), cacheRead("D", "SRAM", "w", "O")},
         .bad = moveCache("D", "SRAM", "h", "O"),
         .message = "cache_read D@SRAM sits outside w, where its producer D is computed", .loops = {"w"},
         .tensors = {"D"}},
        {.name = "move_cache_to_root_outside_producer", .kernel = "dw",
         .setup = {computeAt("D", "w", "O", "DRAM"), cacheRead("D", "SRAM", "c", "O")},
         .bad = moveCache("D", "SRAM", "root", "O"),
         .message = "cache_read D@SRAM sits outside w, where its producer D is computed", .loops = {"w"},
         .tensors = {"D"}},

        // compute_at, second form: place a producer stage
        {.name = "compute_at_unknown_producer", .kernel = "dw", .bad = computeAt("X", "w", "O"),
         .message = "no stage named 'X' (stages: D, O)"},
        {.name = "compute_at_inlined_producer", .kernel = "sm", .setup = {computeInline("T")},
         .bad = computeAt("T", "j", "C"), .message = "stage T was inlined by compute_inline and has no loops"},
        {.name = "compute_at_own_loop", .kernel = "dw", .bad = computeAt("D", "r"),
         .message = "can't compute D at its own loop r", .loops = {"r"}},
        {.name = "compute_at_earlier_stage", .kernel = "dw", .bad = computeAt("O", "r"),
         .message = "can't compute O at r: stage D runs before O", .loops = {"r"}},
        {.name = "compute_at_non_reader", .kernel = "fo", .bad = computeAt("T", "k"),
         .message = "can't compute T at k: stage C does not read T", .loops = {"k"}, .tensors = {"T"}},
        {.name = "compute_at_other_reader", .kernel = "fo", .bad = computeAt("U", "k"),
         .message = "can't compute U inside C: stage E also reads U", .tensors = {"U"}},
        {.name = "compute_at_two_index_patterns", .kernel = "sq", .bad = computeAt("T", "j", "C"),
         .message = "stage C reads T through index patterns that differ in more than a constant; a buffer of it would not be one box",
         .tensors = {"T"}},
        {.name = "compute_at_into_level_of_consumer_cache", .kernel = "dw", .setup = {cacheRead("D", "SRAM", "k", "O")},
         .bad = computeAt("D", "w", "O"),
         .message = "can't cache D into SRAM: D is computed at w into SRAM; a cache must be in a level inside that one",
         .loops = {"w"}, .tensors = {"D"}},
        {.name = "compute_at_cache_written_output", .kernel = "dw", .setup = {cacheWrite("D", "SRAM", "h", "D")},
         .bad = computeAt("D", "w", "O"),
         .message = "can't compute D at w: its output D has a cache_write stage", .tensors = {"D"}},
        {.name = "compute_at_ambiguous_loop", .kernel = "dw", .bad = computeAt("D", "h"),
         .message = "loop h exists in stages D, O; name the stage", .loops = {"h"}},
        {.name = "compute_at_unknown_loop", .kernel = "dw", .bad = computeAt("D", "x", "O"),
         .message = "x is not a loop of stage O", .loops = {"x"}},
        {.name = "compute_at_unknown_level", .kernel = "dw", .bad = computeAt("D", "w", "O", "L2"),
         .message = "target cortex-m7 has no memory level 'L2' " + m7Levels},
        {.name = "compute_at_inside_consumer_cache", .kernel = "dw", .setup = {cacheRead("D", "SRAM", "h", "O")},
         .bad = computeAt("D", "w", "O", "DRAM"),
         .message = "cache_read D@SRAM sits outside w, where its producer D is computed", .loops = {"w"},
         .tensors = {"D"}},

        // compute_inline
        {.name = "inline_unknown_stage", .kernel = "sm", .bad = computeInline("X"),
         .message = "no stage named 'X' (stages: T, C)"},
        {.name = "inline_twice", .kernel = "sm", .setup = {computeInline("T")}, .bad = computeInline("T"),
         .message = "stage T was inlined by compute_inline and has no loops"},
        {.name = "inline_reduction", .kernel = "dw", .bad = computeInline("D"),
         .message = "can't inline D: it is a reduction (+=); only elementwise stages can be inlined"},
        {.name = "inline_output", .kernel = "fo", .bad = computeInline("E"),
         .message = "can't inline E: its output E is not read by a later stage", .tensors = {"E"}},
        {.name = "inline_cached_output", .kernel = "sm", .setup = {cacheRead("T", "SRAM", "j")},
         .bad = computeInline("T"), .message = "can't inline T: it has cache stages", .tensors = {"T"}},
        {.name = "inline_stage_with_input_cache", .kernel = "sm", .setup = {cacheRead("A", "SRAM")},
         .bad = computeInline("T"), .message = "can't inline T: it has cache stages", .tensors = {"T"}},
        {.name = "inline_with_producer_inside", .kernel = "fo", .setup = {computeAt("T", "j", "U")},
         .bad = computeInline("U"), .message = "can't inline U: stage T is computed inside it"},

        // double_buffer
        {.name = "double_buffer_no_tensor", .kernel = "mm", .bad = doubleBuffer(""),
         .message = "a tensor name is required"},
        {.name = "double_buffer_unknown_tensor", .kernel = "mm", .bad = doubleBuffer("Z"),
         .message = "no tensor named 'Z'", .tensors = {"Z"}},
        {.name = "double_buffer_unknown_level", .kernel = "mm", .setup = {cacheRead("A", "SRAM", "j")},
         .bad = doubleBuffer("A", "L2"), .message = "target cortex-m7 has no memory level 'L2' " + m7Levels},
        {.name = "double_buffer_no_cache", .kernel = "mm", .bad = doubleBuffer("A"),
         .message = "A has no cache stage to double-buffer; add one with cache_read or cache_write", .tensors = {"A"}},
        {.name = "double_buffer_no_cache_in_level", .kernel = "mm_i8", .target = "gemmini-16x16",
         .setup = {cacheRead("A", "scratchpad", "j")}, .bad = doubleBuffer("A", "accumulator"),
         .message = "A has no cache stage in accumulator to double-buffer; add one with cache_read or cache_write",
         .tensors = {"A"}},
        {.name = "double_buffer_no_cache_of_stage", .kernel = "fo", .setup = {cacheRead("A", "SRAM", "j", "T")},
         .bad = doubleBuffer("A", "SRAM", "C"),
         .message = "A has no cache stage in SRAM for stage C (it has one for stage T) to double-buffer; add one with cache_read or cache_write",
         .tensors = {"A"}},
        {.name = "double_buffer_ambiguous_level", .kernel = "mm_i8", .target = "gemmini-16x16",
         .setup = {cacheRead("A", "scratchpad", "i"), cacheRead("A", "accumulator", "j")}, .bad = doubleBuffer("A"),
         .message = "A has several cache stages; name the level (and stage)", .tensors = {"A"}},
        {.name = "double_buffer_ambiguous_stage", .kernel = "fo",
         .setup = {cacheRead("A", "SRAM", "j", "T"), cacheRead("A", "SRAM", "k", "C")}, .bad = doubleBuffer("A", "SRAM"),
         .message = "A has several cache stages; name the level (and stage)", .tensors = {"A"}},
        {.name = "double_buffer_at_root", .kernel = "mm", .setup = {cacheRead("A", "SRAM")}, .bad = doubleBuffer("A"),
         .message = "can't double-buffer A@SRAM: it sits at root and is filled only once", .tensors = {"A"}},
        {.name = "double_buffer_twice", .kernel = "mm", .setup = {cacheRead("A", "SRAM", "j"), doubleBuffer("A")},
         .bad = doubleBuffer("A", "SRAM"), .message = "A@SRAM is already double-buffered", .tensors = {"A"}},
    };
}

class PrimitiveError : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(PrimitiveError, FailsWithTypedErrorAndChangesNothing)
{
    const ErrorCase& c = GetParam();
    auto k = kernel(c.kernel);
    ASSERT_TRUE(k);
    Program p = programFor(k, c.target, c.setup);
    ASSERT_EQ(p.trace.size(), c.setup.size());
    expectError(p, c.bad, {c.message, c.loops, c.tensors, c.detail});

    // Replaying the whole trace stops at the same step with the same error.
    std::vector<Step> all = c.setup;
    all.push_back(c.bad);
    sched::ApplyResult r = sched::replay(k, test::builtinTarget(c.target), all);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().stepIndex, static_cast<int>(c.setup.size()));
    EXPECT_EQ(r.error().message, c.message);
}

INSTANTIATE_TEST_SUITE_P(AllPreconditions, PrimitiveError, ::testing::ValuesIn(errorCases()),
                         [](const ::testing::TestParamInfo<ErrorCase>& info) { return info.param.name; });

// Every primitive has at least one failure case in the table.
TEST(PrimitiveErrorTable, CoversEveryPrimitive)
{
    std::map<Primitive, int> n;
    for (const auto& c : errorCases())
        ++n[c.bad.primitive];
    for (int p = 0; p <= static_cast<int>(Primitive::DoubleBuffer); ++p)
        EXPECT_GE(n[static_cast<Primitive>(p)], 3) << sched::primitiveName(static_cast<Primitive>(p));
}

// ---- preconditions that the kernel and target files cannot reach ------------------------
// The parser only accepts identifiers as axis names, and padding/requantize only on '+='
// stages; the built-in targets give every inner level buffer_count 2. Build such inputs in
// memory to check that the primitives still refuse them.

std::shared_ptr<const ir::Kernel> withAxisRenamed(const std::string& key, int axis, const std::string& name)
{
    ir::Kernel k = *kernel(key);
    k.stages[0].axes[axis].name = name;
    return std::make_shared<const ir::Kernel>(std::move(k));
}

TEST(PrimitiveErrorInMemory, SplitNameAlreadyTaken)
{
    auto k = withAxisRenamed("mm", 2, "i.outer");  // C[i, j] += ... over axis "i.outer"
    Program p = Program::initial(k, test::builtinTarget("cortex-m7"));
    expectError(p, split("i", 2),
                {"can't split i into i.outer and i.inner because i.outer already exists in stage C", {"i.outer"}, {}});
    k = withAxisRenamed("mm", 2, "j.inner");
    p = Program::initial(k, test::builtinTarget("cortex-m7"));
    expectError(p, split("j", 2),
                {"can't split j into j.outer and j.inner because j.inner already exists in stage C", {"j.inner"}, {}});
}

TEST(PrimitiveErrorInMemory, FuseNameAlreadyTaken)
{
    auto k = withAxisRenamed("mm", 2, "i.j.fused");
    Program p = Program::initial(k, test::builtinTarget("cortex-m7"));
    expectError(p, fuse("i", "j"),
                {"can't fuse i and j because i.j.fused already exists in stage C", {"i.j.fused"}, {}});
}

TEST(PrimitiveErrorInMemory, InlinePaddedOrRequantizedStage)
{
    for (bool pad : {true, false}) {
        ir::Kernel k = *kernel("sm");
        if (pad) {
            k.stages[0].padZero = true;
        } else {
            ir::Requantize rq;
            rq.multiplier.value = 1 << 30;
            k.stages[0].requant = rq;
        }
        Program p = Program::initial(std::make_shared<const ir::Kernel>(std::move(k)), test::builtinTarget("cortex-m7"));
        SCOPED_TRACE(pad ? "padding" : "requantize");
        expectError(p, computeInline("T"), {"can't inline T: it has a requantize epilogue or zero padding", {}, {}});
    }
}

TEST(PrimitiveErrorInMemory, DoubleBufferInSingleBufferLevel)
{
    auto base = test::builtinTarget("cortex-m7");
    ASSERT_TRUE(base);
    hw::Target t = *base;
    t.levels[t.findLevel("SRAM")].bufferCount = 1;
    auto target = std::make_shared<const hw::Target>(std::move(t));
    auto r = sched::replay(kernel("mm"), target, {cacheRead("A", "SRAM", "j")});
    ASSERT_TRUE(r.ok()) << r.error().str();
    expectError(r.program(), doubleBuffer("A"),
                {"can't double-buffer A in SRAM: the level's buffer_count is 1", {}, {"A"}});
}

// ---- preconditions that must hold whichever step comes first -----------------------------------

/// The error must come from `bad`, name `tensor`, and leave the program untouched.
void expectRefused(const Program& p, const Step& bad, const std::string& tensor)
{
    const std::string before = snapshot(p);
    sched::ApplyResult r = sched::apply(p, bad);
    EXPECT_EQ(snapshot(p), before);
    ASSERT_FALSE(r.ok()) << sched::describe(bad) << " was accepted, giving:\n"
                         << snapshot(r.program());
    EXPECT_EQ(r.error().primitive, bad.primitive);
    EXPECT_EQ(r.error().stepIndex, static_cast<int>(p.trace.size()));
    EXPECT_EQ(r.error().tensors, std::vector<std::string>{tensor}) << r.error().str();
    EXPECT_NE(r.error().message.find(tensor), std::string::npos) << r.error().str();
}

// BUG (reported): cache_read refuses a cache of a tensor that the stage reads through two
// index patterns ("stage C reads A through index patterns that differ in more than a
// constant"), but compute_inline can create the second pattern under an existing cache. In
// fanout_pipeline with U inlined, C reads T[i, k] and A[k, j]; cache A for C at j (one
// pattern), then inline T: C now also reads A[i, k]. The step is accepted, the buffer A_SRAM
// is a box for only one of the patterns, and the interpreter fails with "access A[1, 0] is
// outside buffer A_SRAM" (an out-of-bounds access in generated code).
TEST(MissingPrecondition, InlineThatGivesACachedTensorASecondIndexPattern)
{
    Program p = programFor(kernel("fo"), "cortex-m7", {computeInline("U"), cacheRead("A", "SRAM", "j", "C")});
    ASSERT_EQ(p.trace.size(), 2u);
    expectRefused(p, computeInline("T"), "A");
}

// BUG (reported, misleading message): when the step names a stage, compute_at (first form)
// and double_buffer look only at that stage's caches but say the tensor has no cache stage at
// all. dwsep_conv with PW cached for O: "compute_at PW@SRAM at k [stage X]" (no stage X) and
// "double_buffer PW [stage D]" both answer "PW has no cache stage in SRAM; add one with
// cache_read or cache_write", which sends the user to add a cache that exists. The message
// should name the stage that was asked for (and say when no such stage exists).
TEST(MisleadingMessage, NoCacheStageForTheNamedStage)
{
    Program p = programFor(kernel("dw"), "cortex-m7", {cacheRead("PW", "SRAM", "k")});
    struct Case {
        Step bad;
        std::string stage;
    };
    for (const Case& c : {Case{moveCache("PW", "SRAM", "k", "X"), "X"}, Case{moveCache("PW", "SRAM", "r", "D"), "D"},
                          Case{doubleBuffer("PW", "", "D"), "D"}, Case{doubleBuffer("PW", "SRAM", "X"), "X"}}) {
        SCOPED_TRACE(sched::describe(c.bad) + " [stage " + c.stage + "]");
        sched::ApplyResult r = sched::apply(p, c.bad);
        ASSERT_FALSE(r.ok());
        EXPECT_EQ(r.error().tensors, std::vector<std::string>{"PW"});
        EXPECT_NE(r.error().message.find("stage " + c.stage), std::string::npos)
            << "the message does not name stage " << c.stage << ": " << r.error().message;
    }
}

// A split by 1 must not hide a strided tile from the contiguity check: with j split by 1 and
// j.outer split again, j.outer.outer runs inside j.outer.inner, so the values of j in the body
// of j.outer.inner are strided (j.outer.inner + 3 * j.outer.outer). (Once accepted, and the
// interpreter read uninitialised buffer elements.)
TEST(ContiguityCheck, SplitByOneDoesNotHideAStridedTile)
{
    Program p = programFor(kernel("mm"), "cortex-m7",
                           {split("j", 1), split("j.outer", 3), reorder({"j.outer.inner", "j.outer.outer"})});
    ASSERT_EQ(p.trace.size(), 3u);
    expectError(p, cacheWrite("C", "SRAM", "j.outer.inner"),
                {"cache_write C@SRAM at j.outer.inner: the tile of C computed in its body is not contiguous along j",
                 {"j.outer.inner"}, {"C"}});
    const auto& ss = p.stages[0];
    EXPECT_FALSE(sched::axisContiguousInside(ss, 1, ss.findVar("j.outer.inner")));
    // The same shape without the split by 1 is refused.
    Program q = programFor(kernel("mm"), "cortex-m7", {split("j", 3), reorder({"j.inner", "j.outer"})});
    EXPECT_FALSE(sched::axisContiguousInside(q.stages[0], 1, q.stages[0].findVar("j.inner")));
}

// ---- messages with their source location ---------------------------------------------------

TEST(ScheduleErrorText, NamesFileLineColumnStepAndPrimitive)
{
    auto k = kernel("mm");
    auto t = test::builtinTarget("cortex-m7");
    Step bad = reorder({"i", "j.inner"});
    bad.loc = SourceLoc{"matmul.sched.yaml", 9, 5};
    auto r = sched::replay(k, t, {split("i", 4), split("j", 2), bad});
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().stepIndex, 2);
    EXPECT_EQ(r.error().loc.str(), "matmul.sched.yaml:9:5");
    EXPECT_EQ(r.error().str(), "matmul.sched.yaml:9:5: step 3 (reorder): i is not a loop of stage C");
}

TEST(ScheduleErrorText, WithoutLocationOrTrace)
{
    auto r = sched::apply(Program::initial(kernel("mm"), test::builtinTarget("cortex-m7")), reorder({"k", "x"}));
    ASSERT_FALSE(r.ok());
    EXPECT_FALSE(r.error().loc.known());
    EXPECT_EQ(r.error().str(), "step 1 (reorder): x is not a loop of stage C");

    sched::ScheduleError e;
    e.primitive = Primitive::CacheWrite;
    e.message = "stage C does not write A";
    EXPECT_EQ(e.str(), "cache_write: stage C does not write A");
    e.loc = SourceLoc{"s.sched.yaml", 3, 7};
    e.stepIndex = 0;
    EXPECT_EQ(e.str(), "s.sched.yaml:3:7: step 1 (cache_write): stage C does not write A");
}

TEST(ScheduleErrorText, ReplayStopsAtTheFirstFailingStep)
{
    auto k = kernel("mm");
    auto t = test::builtinTarget("cortex-m7");
    // Step 2 fails; step 3 would fail too, for another reason.
    auto r = sched::replay(k, t, {split("i", 4), parallel("k"), split("i", 4)});
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().stepIndex, 1);
    EXPECT_EQ(r.error().primitive, Primitive::Parallel);
    EXPECT_EQ(r.error().str(), "step 2 (parallel): can't parallelize reduction loop k: iterations would race on the accumulator");
}

} // namespace
