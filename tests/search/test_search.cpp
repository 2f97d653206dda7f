// The schedule search: every point it returns replays, verifies (interpreter == reference)
// and analyses without an error diagnostic, with the figures analyze gives; every candidate
// it draws applies and fits the occupancy bound, which never under-counts analyze; the front
// is a Pareto front; thread counts change nothing; pinned steps stay; nothing-fits, cancel,
// time limit and resume behave.
#include "support/test_paths.h"
#include "support/step_text.h"

#include "analysis/cost_report.h"
#include "ir/kernel.h"
#include "lower/loop_nest.h"
#include "search/candidate_text.h"
#include "search/evaluator.h"
#include "search/explain.h"
#include "search/occupancy_bound.h"
#include "search/search.h"
#include "sched/schedule_file.h"
#include "target_loader.h"
#include "verify/interpreter.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <map>
#include <set>

using namespace loopscope;

namespace {

/// Example kernels at sizes the interpreter runs in milliseconds.
const std::map<std::string, std::map<std::string, int64_t>>& smallKernels()
{
    static const std::map<std::string, std::map<std::string, int64_t>> k = {
        {"conv2d_int8", {{"H", 8}, {"W", 8}, {"C", 8}, {"K", 8}}},
        {"conv2d_int8_tflite", {{"H", 6}, {"W", 6}, {"C", 8}, {"K", 8}}},
        {"conv2d_s2_int8", {}},
        {"dense_int8", {}},
        {"dense_int16", {}},
        {"depthwise_conv_int8", {}},
        {"dwsep_conv", {{"H", 8}, {"W", 8}, {"C", 8}, {"K", 8}}},
        {"matmul_f32", {}},
        {"matmul_int8", {}},
        {"pointwise_conv_int8", {}},
        {"pointwise_conv_int8_tflite", {{"H", 4}, {"W", 8}, {"C", 16}, {"K", 8}}},
    };
    return k;
}

sched::Program program(const std::string& kernel, const std::map<std::string, int64_t>& params = {},
                       const std::string& target = "cortex-m7")
{
    auto k = ir::loadKernelFile(test::kernelPath(kernel), params);
    EXPECT_TRUE(k.ok()) << k.errorText();
    return sched::Program::initial(std::make_shared<const ir::Kernel>(std::move(*k)), test::builtinTarget(target));
}

/// Figures of a trace replayed from scratch: what the app and the CLI will show for it.
search::Figures replayed(const sched::Program& base, const std::vector<sched::Step>& trace, analysis::CostReport* report = nullptr)
{
    sched::ApplyResult r = sched::replay(base.kernel, base.target, trace);
    EXPECT_TRUE(r.ok()) << r.error().str();
    lower::LoopNest nest = lower::lower(r.program());
    analysis::CostReport rep = analysis::analyze(nest, *base.target);
    if (report)
        *report = rep;
    return search::figuresOf(rep);
}

search::SearchOptions budget(int64_t n, int threads = 1, uint64_t seed = 1)
{
    search::SearchOptions o;
    o.budget = n;
    o.threads = threads;
    o.seed = seed;
    o.batchSize = 64;
    return o;
}

} // namespace

namespace {

/// Every front point of a short search replays to the figures reported, verifies and has no
/// error diagnostic; nothing drawn was a defect of the space.
void checkFront(const sched::Program& base, const std::string& what)
{
    search::SearchResult r = search::runSearch(base, budget(384, 2));
    ASSERT_TRUE(r.feasible) << what << ": " << r.message;
    EXPECT_EQ(r.progress.rejected, 0) << what << ": " << (r.defects.empty() ? "" : r.defects.front());
    EXPECT_GT(r.progress.evaluated, 100) << what;
    ASSERT_FALSE(r.front.empty());
    for (const auto& p : r.front) {
        analysis::CostReport rep;
        search::Figures f = replayed(base, p.trace, &rep);
        EXPECT_EQ(f, p.figures) << what << " point " << p.index;
        for (const auto& d : rep.diagnostics)
            EXPECT_NE(d.severity, Severity::Error) << what << ": " << d.code << ": " << d.message;
        sched::ApplyResult pr = sched::replay(base.kernel, base.target, p.trace);
        verify::VerifyResult v = verify::verifyProgram(pr.program(), 3);
        EXPECT_TRUE(v.ok) << what << " point " << p.index << ": " << v.message;
    }
}

/// Drawn and mutated candidates apply, fit the occupancy bound, which never under-counts
/// analyze, and evaluate to analyze's figures. Returns how many were tensorized.
int checkCandidates(const sched::Program& base, const std::string& what, int count = 150)
{
    search::SearchSpace space(base);
    search::Evaluator ev(space);
    std::mt19937_64 rng(11);
    search::Candidate prev = space.identity();
    int tensorized = 0;
    for (int i = 0; i < count; ++i) {
        search::Candidate c = (i % 2) ? space.sample(rng) : space.mutate(prev, rng);
        prev = c;
        // Canonical forms are fixed points: equal schedules are equal candidates.
        search::Candidate again = c;
        space.canonicalize(again);
        EXPECT_EQ(again, c) << what << " candidate " << i;
        bool pruned = false;
        auto p = ev.build(c, nullptr, &pruned);
        if (pruned)
            continue;
        EXPECT_TRUE(p.ok()) << what << ": " << p.errorText();
        if (!p.ok())
            continue;
        search::OccupancyBound bound = search::boundOccupancy(*p);
        EXPECT_LT(bound.overCapacity(*base.target), 0);
        lower::LoopNest nest = lower::lower(*p);
        analysis::CostReport rep = analysis::analyze(nest, *base.target);
        for (size_t l = 0; l < rep.levels.size(); ++l)
            EXPECT_GE(bound.bytes[l], rep.levels[l].usedBytes) << what << ": " << rep.levels[l].name << " candidate " << i;
        for (const auto& d : rep.diagnostics)
            EXPECT_NE(d.severity, Severity::Error) << what << ": " << d.code << ": " << d.message << "\n" << lower::print(nest);
        // The evaluator is analyze: the same figures for the same program.
        EXPECT_EQ(ev.evaluate(c).figures, search::figuresOf(rep));
        tensorized += rep.array.has_value();
        // A tile of blocks (tiled_matmul_auto's structure): its middle loop is in the trace.
        for (const auto& cs : c.stages)
            for (int64_t t2 : cs.tile2)
                if (t2 > 0) {
                    bool middle = false;
                    for (const auto& st : p->trace)
                        for (const auto& l : st.loops)
                            middle = middle || l.find(".inner.outer") != std::string::npos;
                    EXPECT_TRUE(middle) << what << " candidate " << i;
                }
    }
    return tensorized;
}

} // namespace

class SearchOnKernel : public ::testing::TestWithParam<std::string> {};

TEST_P(SearchOnKernel, EveryPointReplaysVerifiesAndAnalysesAsReported)
{
    checkFront(program(GetParam(), smallKernels().at(GetParam())), GetParam());
}

TEST_P(SearchOnKernel, DrawnCandidatesApplyAndTheBoundNeverUndercounts)
{
    checkCandidates(program(GetParam(), smallKernels().at(GetParam())), GetParam());
}

/// The Gemmini kernels, small enough for the interpreter, on gemmini-16x16: the search
/// tensorizes (each way planTensorize allows, in both dataflows).
const std::map<std::string, std::map<std::string, int64_t>>& arrayKernels()
{
    static const std::map<std::string, std::map<std::string, int64_t>> k = {
        {"matmul_int8_sym", {{"M", 32}, {"N", 40}, {"K", 48}}},
        {"matmul_int8", {{"M", 24}, {"N", 32}, {"K", 32}}},
        {"conv2d_int8", {{"H", 6}, {"W", 6}, {"C", 16}, {"K", 24}}},
        {"pointwise_conv_int8", {{"H", 4}, {"W", 8}, {"C", 32}, {"K", 16}}},
    };
    return k;
}

class SearchOnArray : public ::testing::TestWithParam<std::string> {};

TEST_P(SearchOnArray, EveryPointReplaysVerifiesAndAnalysesAsReported)
{
    checkFront(program(GetParam(), arrayKernels().at(GetParam()), "gemmini-16x16"), GetParam());
}

TEST_P(SearchOnArray, DrawnCandidatesTensorizeApplyAndTheBoundNeverUndercounts)
{
    const int tensorized = checkCandidates(program(GetParam(), arrayKernels().at(GetParam()), "gemmini-16x16"), GetParam(), 300);
    EXPECT_GT(tensorized, 100) << GetParam();
}

INSTANTIATE_TEST_SUITE_P(Gemmini, SearchOnArray, ::testing::Values("matmul_int8_sym", "matmul_int8", "conv2d_int8", "pointwise_conv_int8"));

TEST(Search, TheBoundCountsAWidenedCacheAtTwoBytesAnElement)
{
    // conv2d_int8_tflite_dsp caches I and F widened to int16 (pinned steps when a search starts
    // from it): the occupancy bound, which prunes candidates before analysis, must count those
    // caches at two bytes an element, as the lowering allocates them (it counted one).
    auto o = sched::openSchedule(test::sourceDir() + "/examples/schedules/conv2d_int8_tflite_dsp.sched.yaml",
                                 [](const std::string& n, const std::string& d) { return hw::resolveTarget(n, d); });
    ASSERT_TRUE(o.ok()) << o.errorText();
    const search::OccupancyBound bound = search::boundOccupancy(o->program);
    const analysis::CostReport rep = analysis::analyze(lower::lower(o->program), *o->program.target);
    for (size_t l = 1; l < rep.levels.size(); ++l)
        EXPECT_GE(bound.bytes[l], rep.levels[l].usedBytes) << rep.levels[l].name;
    int widened = 0;
    for (const auto& b : bound.buffers)
        if (b.cache >= 0 && o->program.caches[static_cast<size_t>(b.cache)].dtype) {
            ++widened;
            EXPECT_EQ(b.elementBytes, 2);
        }
    EXPECT_EQ(widened, 2);
}

TEST(Search, TheBoundCountsAProducersWholeTilesOverTheRegionItComputes)
{
    // dwsep_conv's depthwise stage D computed at the pointwise stage's h.outer (28 rows of
    // 112): D's h split by 8 runs 4 whole tiles over those 28 rows, and I's cache inside them
    // spans 32 + 2 rows, as lowered. The bound clipped the span to the region (28 + 2 rows),
    // under-counted SRAM by 14 KiB, and a search for energy drew candidates that did not fit
    // (rejected as defects of the space: 4 of 30,000 for energy, 1 for cycles).
    const auto k = test::exampleKernel("dwsep_conv", {});
    ASSERT_TRUE(k);
    const std::string producerSteps = "  - split: {stage: D, loop: h, factor: 8}\n"
                                      "  - split: {stage: D, loop: w, factor: 28}\n"
                                      "  - split: {stage: D, loop: c, factor: 8}\n"
                                      "  - reorder: {stage: D, loops: [c.outer, h.outer, w.outer, w.inner, r, s, c.inner, h.inner]}\n"
                                      "  - split: {stage: O, loop: h, factor: 28}\n"
                                      "  - split: {stage: O, loop: w, factor: 8}\n"
                                      "  - reorder: {stage: O, loops: [h.outer, w.outer, k, h.inner, c, w.inner]}\n"
                                      "  - compute_at: {stage: O, producer: D, level: SRAM, at: h.outer}\n"
                                      "  - cache_read: {stage: D, tensor: I, level: SRAM, at: c.outer}\n";
    // And one whose rows (16 of 112, split by 7) leave a partial tile, with a double buffer.
    const std::string doubleBuffered = "  - split: {stage: D, loop: h, factor: 7}\n"
                                       "  - split: {stage: D, loop: w, factor: 56}\n"
                                       "  - reorder: {stage: D, loops: [w.outer, c, h.outer, w.inner, s, r, h.inner]}\n"
                                       "  - split: {stage: O, loop: h, factor: 16}\n"
                                       "  - split: {stage: O, loop: w, factor: 8}\n"
                                       "  - reorder: {stage: O, loops: [h.outer, w.outer, k, h.inner, c, w.inner]}\n"
                                       "  - compute_at: {stage: O, producer: D, level: SRAM, at: h.outer}\n"
                                       "  - cache_read: {stage: D, tensor: I, level: SRAM, at: w.outer}\n"
                                       "  - double_buffer: {stage: D, tensor: I, level: SRAM}\n";
    for (const std::string& text : {producerSteps, doubleBuffered}) {
        sched::ApplyResult r = test::replay(k, text);
        ASSERT_TRUE(r.ok()) << r.error().str();
        const search::OccupancyBound bound = search::boundOccupancy(r.program());
        const analysis::CostReport rep = analysis::analyze(lower::lower(r.program()), *r.program().target);
        for (size_t l = 1; l < rep.levels.size(); ++l)
            EXPECT_GE(bound.bytes[l], rep.levels[l].usedBytes) << rep.levels[l].name << "\n" << text;
        // Not far above it either: the bound still prunes what cannot fit.
        EXPECT_LE(bound.bytes[1], rep.levels[1].usedBytes * 11 / 10) << text;
    }
}

TEST(Search, DramAndInstructionObjectivesJoinTheFront)
{
    for (search::Objective o : {search::Objective::Dram, search::Objective::Instructions}) {
        search::SearchOptions opt = budget(512, 2);
        opt.objective = o;
        search::SearchResult r = search::runSearch(program("matmul_int8"), opt);
        ASSERT_TRUE(r.feasible) << r.message;
        const search::ExtraDimension extra = search::frontDimension(o);
        double least = 1e300;
        for (const auto& a : r.front) {
            least = std::min(least, search::objectiveValue(o, a.figures));
            for (const auto& b : r.front)
                EXPECT_FALSE(search::dominates(a.figures, b.figures, extra));
            // The instruction figure is analyze's prediction of the exported code.
            analysis::CostReport rep;
            replayed(program("matmul_int8"), a.trace, &rep);
            EXPECT_EQ(a.figures.instructions, rep.instructions.predicted);
            EXPECT_GT(a.figures.instructions, 0);
        }
        EXPECT_EQ(search::objectiveValue(o, r.front[r.best].figures), least) << search::objectiveName(o);
    }
    // No prediction on an accelerator: said, not searched.
    search::SearchOptions opt = budget(64);
    opt.objective = search::Objective::Instructions;
    search::SearchResult g = search::runSearch(program("matmul_int8_sym", {{"M", 32}, {"N", 32}, {"K", 32}}, "gemmini-16x16"), opt);
    EXPECT_FALSE(g.feasible);
    EXPECT_NE(g.message.find("needs a CPU target"), std::string::npos) << g.message;
}

TEST(Search, OnGemminiItBeatsTiledMatmulAutoAndTheHandSchedule)
{
    // matmul 128^3 on gemmini-16x16: the hand schedule (docs/cost-model.md, worked example 3)
    // and Gemmini's own tiling heuristic written as a schedule, against 3,000 candidates.
    auto open = [](const std::string& name) {
        auto o = sched::openSchedule(test::sourceDir() + "/examples/schedules/" + name + ".sched.yaml",
                                     [](const std::string& n, const std::string& d) { return hw::resolveTarget(n, d); });
        EXPECT_TRUE(o.ok()) << o.errorText();
        return o->program;
    };
    const sched::Program hand = open("gemmini_matmul_sym_hand");
    const sched::Program autoWs = open("gemmini_matmul_sym_auto_ws");
    const int64_t handCycles = replayed(hand, hand.trace).cycles;
    const int64_t autoCycles = replayed(autoWs, autoWs.trace).cycles;
    search::SearchResult r = search::runSearch(program("matmul_int8_sym", {}, "gemmini-16x16"), budget(3000, 2));
    ASSERT_TRUE(r.feasible) << r.message;
    EXPECT_EQ(r.progress.rejected, 0) << (r.defects.empty() ? "" : r.defects.front());
    const auto& best = r.front[r.best];
    EXPECT_LE(best.figures.cycles, handCycles);
    EXPECT_LE(best.figures.cycles, autoCycles * 9 / 10);
    EXPECT_TRUE(std::any_of(best.trace.begin(), best.trace.end(), [](const sched::Step& s) { return s.primitive == sched::Primitive::Tensorize; }));
}

INSTANTIATE_TEST_SUITE_P(Examples, SearchOnKernel,
                         ::testing::Values("conv2d_int8", "conv2d_int8_tflite", "conv2d_s2_int8", "dense_int8", "dense_int16",
                                           "depthwise_conv_int8", "dwsep_conv", "matmul_f32", "matmul_int8", "pointwise_conv_int8",
                                           "pointwise_conv_int8_tflite"));

namespace {

/// A candidate of a one-stage space, by loop and tensor names: tile factors (identity()'s for
/// the loops not named), the named loops first in each band, caches as tensor -> (outer loop
/// position, widened). It must be canonical already.
search::Candidate candidateOf(const search::SearchSpace& space, const std::map<std::string, int64_t>& tiles,
                              const std::vector<std::string>& outer, const std::vector<std::string>& inner, int unroll, bool vectorize,
                              const std::map<std::string, std::pair<int, bool>>& caches = {})
{
    const search::SpaceStage& sp = space.stages().at(0);
    search::Candidate c = space.identity();
    search::Candidate::Stage& cs = c.stages[0];
    auto loop = [&](const std::string& n) {
        for (size_t l = 0; l < sp.loops.size(); ++l)
            if (sp.loops[l].name == n)
                return static_cast<int>(l);
        ADD_FAILURE() << "no loop " << n;
        return 0;
    };
    for (const auto& [n, t] : tiles)
        cs.tile[static_cast<size_t>(loop(n))] = t;
    auto order = [&](const std::vector<std::string>& names, std::vector<int>& o) {
        std::vector<int> first;
        for (const auto& n : names)
            first.push_back(loop(n));
        for (int l : o)
            if (std::find(first.begin(), first.end(), l) == first.end())
                first.push_back(l);
        o = first;
    };
    order(outer, cs.outerOrder);
    order(inner, cs.innerOrder);
    for (size_t t = 0; t < sp.tensors.size(); ++t) {
        auto it = caches.find(sp.tensors[t].name);
        if (it != caches.end()) {
            cs.cacheAt[t] = it->second.first;
            cs.widen[t] = it->second.second;
        }
    }
    cs.unroll = unroll;
    cs.vectorize = vectorize;
    search::Candidate before = c;
    space.canonicalize(c);
    EXPECT_EQ(before, c) << "not canonical: " << search::candidateToText(before) << " -> " << search::candidateToText(c);
    return c;
}

/// The figures of a shipped schedule, and whether the candidate's evaluation gives them.
void expectShippedFigures(const std::string& schedule, const search::Candidate& c, const search::SearchSpace& space)
{
    auto o = sched::openSchedule(test::sourceDir() + "/examples/schedules/" + schedule + ".sched.yaml",
                                 [](const std::string& n, const std::string& d) { return hw::resolveTarget(n, d); });
    ASSERT_TRUE(o.ok()) << o.errorText();
    const sched::Program& shipped = o->program;
    search::Evaluation e = search::Evaluator(space).evaluate(c);
    ASSERT_EQ(e.status, search::Evaluation::Status::Ok) << e.reason;
    EXPECT_EQ(e.repairs, 0);
    EXPECT_EQ(e.figures, replayed(shipped, shipped.trace)) << schedule << " against " << search::candidateToText(c);
}

} // namespace

TEST(Search, TheSpaceHoldsTheShippedTfliteDspSchedules)
{
    // depthwise_conv_int8_tflite_dsp unrolls r and s, whole loops outside its inner tile loops
    // (outer-band loops), and pointwise_conv_int8_tflite_dsp widens I and F to int16: both are
    // points of the space, with the figures the shipped schedules have.
    {
        search::SearchSpace space(program("depthwise_conv_int8_tflite"));
        search::Candidate c = candidateOf(space, {{"n", 1}, {"h", 1}, {"w", 2}, {"c", 4}, {"r", 1}, {"s", 1}},
                                          {"n", "c", "h", "w", "r", "s"}, {"w", "c"}, 3, true);
        const auto steps = space.steps(c);
        int outerUnrolled = 0;
        for (const auto& st : steps)
            outerUnrolled += st.primitive == sched::Primitive::Unroll && (st.loops[0] == "r" || st.loops[0] == "s");
        EXPECT_EQ(outerUnrolled, 2);
        expectShippedFigures("depthwise_conv_int8_tflite_dsp", c, space);
        // No outer loop is unrolled around a cache: with F cached in the body of s, nothing
        // beyond the inner loops is unrolled.
        search::Candidate cached = c;
        const auto& tensors = space.stages()[0].tensors;
        const size_t f = static_cast<size_t>(std::find_if(tensors.begin(), tensors.end(), [](const auto& t) { return t.name == "F"; }) - tensors.begin());
        ASSERT_LT(f, tensors.size());
        cached.stages[0].cacheAt[f] = 6;  // the body of s: n, c.outer, h, w.outer, r, s
        space.canonicalize(cached);
        EXPECT_EQ(cached.stages[0].unroll, 1) << search::candidateToText(cached);
    }
    {
        search::SearchSpace space(program("pointwise_conv_int8_tflite"));
        search::Candidate c = candidateOf(space, {{"n", 1}, {"h", 1}, {"w", 4}, {"k", 2}, {"c", 4}}, {"n", "h", "w", "k", "c"}, {"w", "k", "c"}, 2,
                                          true, {{"I", {2, true}}, {"F", {0, true}}});
        expectShippedFigures("pointwise_conv_int8_tflite_dsp", c, space);
    }
}

TEST(Search, WidenedCachesAreInTheSpaceAndVerify)
{
    // The tflite_dsp schedules hold their int8 input and weights as int16 in SRAM (cache_read
    // with dtype int16). The space draws such caches for the int8 operands of a stage on the
    // DSP path, never for the int32 bias or the output, never double-buffered; they replay,
    // verify and analyse without an error, and their text form survives a round trip.
    const sched::Program base = program("conv2d_int8_tflite", smallKernels().at("conv2d_int8_tflite"));
    search::SearchSpace space(base);
    const auto& sp = space.stages().at(0);
    for (const auto& t : sp.tensors)
        EXPECT_EQ(t.widenable, t.name == "I" || t.name == "F") << t.name;
    search::Evaluator ev(space);
    std::mt19937_64 rng(5);
    int widened = 0, vectorized = 0;
    for (int i = 0; i < 400 && widened < 12; ++i) {
        search::Candidate c = space.sample(rng);
        bool any = false;
        for (size_t t = 0; t < sp.tensors.size(); ++t) {
            any = any || c.stages[0].widen[t];
            if (c.stages[0].widen[t]) {
                EXPECT_FALSE(c.stages[0].doubleBuffer[t]) << search::candidateToText(c);
            }
        }
        if (!any)
            continue;
        search::Candidate back;
        ASSERT_TRUE(search::candidateFromText(search::candidateToText(c), space, back)) << search::candidateToText(c);
        EXPECT_EQ(back, c);
        search::Evaluation e = ev.evaluate(c);
        if (e.status == search::Evaluation::Status::Pruned)
            continue;
        ASSERT_EQ(e.status, search::Evaluation::Status::Ok) << e.reason;
        bool inTrace = false;
        for (size_t t = 0; t < sp.tensors.size(); ++t) {
            if (e.candidate.stages[0].widen[t])
                inTrace = inTrace || std::any_of(e.steps.begin(), e.steps.end(), [&](const sched::Step& s) {
                              return s.primitive == sched::Primitive::CacheRead && s.tensor == sp.tensors[t].name && s.dtype == "int16";
                          });
        }
        if (!inTrace)
            continue;  // repaired away
        ++widened;
        vectorized += e.candidate.stages[0].vectorize;
        sched::ApplyResult r = sched::replay(base.kernel, base.target, e.steps);
        ASSERT_TRUE(r.ok()) << r.error().str();
        EXPECT_EQ(replayed(base, e.steps), e.figures);
        verify::VerifyResult v = verify::verifyProgram(r.program(), 3);
        EXPECT_TRUE(v.ok) << search::candidateToText(e.candidate) << ": " << v.message;
    }
    EXPECT_GE(widened, 12);
    EXPECT_GE(vectorized, 1);
    // Without the DSP extension (gemmini-16x16's host: dsp false) there is no widening.
    search::SearchSpace plain(program("conv2d_int8_tflite", smallKernels().at("conv2d_int8_tflite"), "gemmini-16x16"));
    for (const auto& t : plain.stages().at(0).tensors)
        EXPECT_FALSE(t.widenable) << t.name;
}

namespace {

/// The options of a --measure-top run: `n` candidates (seed 3), objective instructions, the
/// best points of `distinct` register blocks kept.
search::SearchOptions distinctBlocks(int64_t n, int distinct)
{
    search::SearchOptions o = budget(n, 1, 3);
    o.objective = search::Objective::Instructions;
    o.distinct = distinct;
    return o;
}

} // namespace

TEST(Search, DistinctKeepsTheBestPointOfEachOfTheBestRegisterBlocks)
{
    // What --measure-top measures: the best points for the objective of the best register
    // blocks (SearchSpace::blockKey; the N - 1 best and the best small body, next test), best
    // first, the overall best among them; the same whatever the thread count. Cache placements
    // of one block do not take two places.
    const sched::Program base = program("dense_int8");
    search::SearchOptions o = distinctBlocks(1536, 5);
    const search::SearchResult r = search::runSearch(base, o);
    ASSERT_TRUE(r.feasible);
    ASSERT_EQ(r.distinct.size(), 5u);
    search::SearchSpace space(base);
    std::set<uint64_t> keys;
    for (size_t i = 0; i < r.distinct.size(); ++i) {
        const search::SearchPoint& p = r.distinct[i];
        EXPECT_TRUE(keys.insert(space.blockKey(p.candidate)).second) << i;
        EXPECT_EQ(replayed(base, p.trace), p.figures) << i;
        if (i > 0) {
            EXPECT_LE(r.distinct[i - 1].figures.instructions, p.figures.instructions);
        }
    }
    EXPECT_EQ(r.distinct.front().figures.instructions, r.front[static_cast<size_t>(r.best)].figures.instructions);
    // Some of them are not on the front: a block whose best point another block's dominates.
    int offFront = 0;
    for (const auto& p : r.distinct)
        offFront += std::none_of(r.front.begin(), r.front.end(), [&](const search::SearchPoint& f) { return f.index == p.index; });
    EXPECT_GT(offFront, 0);
    o.threads = 2;
    const search::SearchResult r2 = search::runSearch(base, o);
    ASSERT_EQ(r2.distinct.size(), r.distinct.size());
    for (size_t i = 0; i < r.distinct.size(); ++i)
        EXPECT_EQ(r2.distinct[i].index, r.distinct[i].index);
    // The key ignores where tensors are cached and the order of unrolled copies.
    search::Candidate c = r.distinct.front().candidate, d = c;
    for (auto& at : d.stages[0].cacheAt)
        at = at < 0 ? 0 : -1;
    space.canonicalize(d);
    EXPECT_EQ(space.blockKey(c), space.blockKey(d));
}

TEST(Search, DistinctMeasuresTheBestSmallBodyBesideTheBestBlocks)
{
    // --measure-top N measures the N - 1 best register blocks and the best block of a small
    // unrolled body (at most 4 copies): on dense_int8 the best blocks are 2x4, 4x2 and 4x4
    // bodies the model predicts 15-35 % low, and the small one (a 2x2 block) is what measures
    // best (docs/search.md). Without it the fifth would be the fifth best block, another 2x4.
    const sched::Program base = program("dense_int8");
    const search::SearchResult a = search::runSearch(base, distinctBlocks(8192, 5));
    const search::SearchResult b = search::runSearch(base, distinctBlocks(8192, 60));
    ASSERT_EQ(a.distinct.size(), 5u);
    ASSERT_GT(b.distinct.size(), 5u);
    search::SearchSpace space(base);
    auto inA = [&](const search::SearchPoint& p) {
        return std::any_of(a.distinct.begin(), a.distinct.end(), [&](const search::SearchPoint& q) { return q.index == p.index; });
    };
    // The four best blocks (the first of the longer list) are all measured.
    for (size_t i = 0; i < 4; ++i)
        EXPECT_TRUE(inA(b.distinct[i])) << i;
    // And the best small body of the whole run, which is not among them here.
    const search::SearchPoint* small = nullptr;
    for (const auto& p : b.distinct)
        if (space.unrolledCopies(p.candidate) <= 4 && (!small || p.figures.instructions < small->figures.instructions))
            small = &p;
    ASSERT_NE(small, nullptr);
    EXPECT_TRUE(inA(*small));
    int large = 0;
    for (const auto& p : a.distinct)
        large += space.unrolledCopies(p.candidate) > 4 ? 1 : 0;
    EXPECT_EQ(large, 4) << "the four best blocks are larger bodies";
}

TEST(Search, FrontIsParetoAndBestIsTheObjectiveMinimum)
{
    sched::Program base = program("conv2d_int8", smallKernels().at("conv2d_int8"));
    for (search::Objective o : {search::Objective::Cycles, search::Objective::Energy, search::Objective::Sram, search::Objective::Edp}) {
        search::SearchOptions opt = budget(512);
        opt.objective = o;
        search::SearchResult r = search::runSearch(base, opt);
        ASSERT_TRUE(r.feasible);
        ASSERT_GE(r.front.size(), 3u);
        for (const auto& a : r.front)
            for (const auto& b : r.front)
                EXPECT_FALSE(search::dominates(a.figures, b.figures)) << a.index << " dominates " << b.index;
        for (const auto& p : r.front)
            EXPECT_LE(search::objectiveValue(o, r.front[r.best].figures), search::objectiveValue(o, p.figures));
        for (size_t i = 1; i < r.front.size(); ++i)
            EXPECT_LE(r.front[i - 1].figures.cycles, r.front[i].figures.cycles);
    }
}

TEST(Search, SameResultWhateverTheThreadCount)
{
    sched::Program base = program("dwsep_conv", smallKernels().at("dwsep_conv"));
    search::SearchResult one = search::runSearch(base, budget(400, 1, 5));
    search::SearchResult two = search::runSearch(base, budget(400, 2, 5));
    search::SearchResult four = search::runSearch(base, budget(400, 4, 5));
    ASSERT_EQ(one.front.size(), two.front.size());
    ASSERT_EQ(one.front.size(), four.front.size());
    for (size_t i = 0; i < one.front.size(); ++i) {
        EXPECT_EQ(one.front[i].trace, two.front[i].trace);
        EXPECT_EQ(one.front[i].trace, four.front[i].trace);
        EXPECT_EQ(one.front[i].figures, four.front[i].figures);
    }
    EXPECT_EQ(one.progress.evaluated, four.progress.evaluated);
    // Another seed explores other candidates.
    search::SearchResult other = search::runSearch(base, budget(400, 2, 6));
    bool differs = other.front.size() != one.front.size();
    for (size_t i = 0; !differs && i < one.front.size(); ++i)
        differs = !(other.front[i].trace == one.front[i].trace);
    EXPECT_TRUE(differs);
}

TEST(Search, PinnedStepsAreKept)
{
    sched::Program start = program("conv2d_int8", smallKernels().at("conv2d_int8"));
    std::vector<sched::Step> pinned(2);
    pinned[0].primitive = sched::Primitive::Split;
    pinned[0].loops = {"oh"};
    pinned[0].factor = 4;
    pinned[1].primitive = sched::Primitive::CacheRead;
    pinned[1].tensor = "F";
    pinned[1].level = "SRAM";
    pinned[1].at = "root";
    sched::ApplyResult base = sched::replay(start.kernel, start.target, pinned);
    ASSERT_TRUE(base.ok()) << base.error().str();
    search::SearchResult r = search::runSearch(base.program(), budget(256, 2));
    ASSERT_TRUE(r.feasible) << r.message;
    EXPECT_EQ(r.progress.rejected, 0) << (r.defects.empty() ? "" : r.defects.front());
    for (const auto& p : r.front) {
        ASSERT_GE(p.trace.size(), 2u);
        EXPECT_EQ(p.trace[0], base.program().trace[0]);
        EXPECT_EQ(p.trace[1], base.program().trace[1]);
        EXPECT_EQ(replayed(start, p.trace), p.figures);
    }
    // The search can split the pinned loops further.
    bool splitsPinned = false;
    for (const auto& p : r.front)
        for (const auto& s : p.trace)
            splitsPinned = splitsPinned || (s.primitive == sched::Primitive::Split && s.loops[0].rfind("oh.", 0) == 0);
    EXPECT_TRUE(splitsPinned);
}

// The tutorial's Gemmini blocks pinned (16 x 16 x 16, the block loops innermost): the search
// splits the pinned i.inner again, and the repair that moves the accumulator's cache inward to
// fit placed it at i.inner.outer, inside which C's tile is not one box (i.outer runs inside):
// 62 of these 8,000 candidates were rejected as defects of the space (`search
// docs/tutorial/gemmini_1_blocks.sched.yaml --pin 4 --budget 8000 --time 0 --seed 1 --threads 1`).
TEST(Search, TheAccumulatorMovedInwardToFitStaysOneBox)
{
    auto o = sched::openSchedule(test::sourceDir() + "/docs/tutorial/gemmini_1_blocks.sched.yaml",
                                 [](const std::string& n, const std::string& d) { return hw::resolveTarget(n, d); });
    ASSERT_TRUE(o.ok()) << o.errorText();
    search::SearchOptions options = budget(8000, 1, 1);
    options.batchSize = 256;   // the CLI's
    search::SearchResult r = search::runSearch(o->program, options);
    ASSERT_TRUE(r.feasible) << r.message;
    EXPECT_GT(r.progress.repaired, 0);
    EXPECT_EQ(r.progress.rejected, 0) << (r.defects.empty() ? "" : r.defects.front());
    for (const auto& p : r.front)
        ASSERT_EQ(std::vector<sched::Step>(p.trace.begin(), p.trace.begin() + 4), o->program.trace);
}

TEST(Search, NothingFitsNamesTheSmallestRequirement)
{
    // Home level too small for the tensors themselves.
    sched::Program p = program("matmul_int8");
    hw::Target tiny = *p.target;
    tiny.name = "tiny";
    tiny.levels[0].sizeBytes = 1024;
    sched::Program onTiny = sched::Program::initial(p.kernel, std::make_shared<const hw::Target>(tiny));
    search::SearchResult r = search::runSearch(onTiny, budget(64));
    EXPECT_FALSE(r.feasible);
    EXPECT_TRUE(r.front.empty());
    EXPECT_NE(r.message.find("no feasible schedule on tiny"), std::string::npos) << r.message;
    EXPECT_NE(r.message.find("DRAM must hold"), std::string::npos) << r.message;
    EXPECT_NE(r.message.find("but has 1 KiB"), std::string::npos) << r.message;
    // A pinned cache the on-chip level cannot hold: named with its size.
    hw::Target small = *p.target;
    small.name = "small-sram";
    small.levels[1].sizeBytes = 256;
    sched::Program onSmall = sched::Program::initial(p.kernel, std::make_shared<const hw::Target>(small));
    sched::Step cache;
    cache.primitive = sched::Primitive::CacheRead;
    cache.tensor = "B";
    cache.level = "SRAM";
    cache.at = "root";
    sched::ApplyResult pinned = sched::apply(onSmall, cache);
    ASSERT_TRUE(pinned.ok());
    r = search::runSearch(pinned.program(), budget(64));
    EXPECT_FALSE(r.feasible);
    EXPECT_NE(r.message.find("SRAM must hold"), std::string::npos) << r.message;
    EXPECT_NE(r.message.find("B "), std::string::npos) << r.message;
    EXPECT_NE(r.message.find("pinned"), std::string::npos) << r.message;
    // An on-chip level that holds little: every point still fits it.
    r = search::runSearch(onSmall, budget(256));
    ASSERT_TRUE(r.feasible);
    EXPECT_EQ(r.progress.rejected, 0);
    for (const auto& pt : r.front)
        EXPECT_LE(pt.figures.onChipBytes, 256);
}

namespace {
struct CancelAfterFirstBatch : search::SearchSink {
    std::atomic<bool>* flag = nullptr;
    int batches = 0;
    int points = 0;
    void progress(const search::SearchProgress&, const std::vector<search::SearchPoint>&) override
    {
        ++batches;
        flag->store(true);
    }
    void pointFound(const search::SearchPoint&) override { ++points; }
};
} // namespace

TEST(Search, CancelAndTimeLimitAreHonoured)
{
    sched::Program base = program("conv2d_int8");
    std::atomic<bool> cancel{false};
    CancelAfterFirstBatch sink;
    sink.flag = &cancel;
    search::SearchOptions opt = budget(1000000);
    search::SearchResult r = search::runSearch(base, opt, &sink, &cancel);
    EXPECT_TRUE(r.cancelled);
    EXPECT_EQ(sink.batches, 1);
    EXPECT_EQ(r.progress.drawn, 64);
    EXPECT_GT(sink.points, 0);
    EXPECT_TRUE(r.feasible);

    search::SearchOptions timed;
    timed.timeLimitSeconds = 0.3;
    timed.threads = 2;
    auto t0 = std::chrono::steady_clock::now();
    r = search::runSearch(base, timed);
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_TRUE(r.timedOut);
    EXPECT_FALSE(r.budgetReached);
    EXPECT_LT(s, 5.0);  // the candidates in flight finish, then it stops
    EXPECT_GT(r.progress.evaluated, 0);
}

TEST(Search, ResumedRunEqualsAnUninterruptedOne)
{
    sched::Program base = program("matmul_int8");
    search::SearchResult whole = search::runSearch(base, budget(512, 2, 9));
    // Stopped at a batch boundary (192 = 3 x 64) and inside a batch (200).
    for (int64_t stop : {192, 200}) {
        search::SearchResult first = search::runSearch(base, budget(stop, 2, 9));
        search::SearchResult rest = search::runSearch(base, budget(512, 2, 9), nullptr, nullptr, &first.state);
        ASSERT_EQ(whole.front.size(), rest.front.size()) << "stopped at " << stop;
        for (size_t i = 0; i < whole.front.size(); ++i) {
            EXPECT_EQ(whole.front[i].trace, rest.front[i].trace) << "stopped at " << stop;
            EXPECT_EQ(whole.front[i].index, rest.front[i].index) << "stopped at " << stop;
        }
        EXPECT_EQ(rest.progress.drawn, 512);
    }
}

TEST(Search, ExplanationListsEachChangeWithWhatItBuys)
{
    sched::Program base = program("matmul_int8");
    search::SearchResult r = search::runSearch(base, budget(256, 2));
    ASSERT_TRUE(r.feasible);
    const auto& best = r.front[r.best];
    search::PointExplanation e = search::explainPoint(base, best.trace);
    EXPECT_EQ(e.commonSteps, 0);
    ASSERT_EQ(e.changes.size(), best.trace.size());
    EXPECT_EQ(e.point, best.figures);
    EXPECT_EQ(e.current, replayed(base, {}));
    for (size_t i = 0; i < e.changes.size(); ++i) {
        EXPECT_TRUE(e.changes[i].added);
        EXPECT_TRUE(e.changes[i].analysed);
        if (i > 0) {
            EXPECT_EQ(e.changes[i].before, e.changes[i - 1].after);
        }
        EXPECT_NE(search::describeChange(e.changes[i]).find("cycles"), std::string::npos);
    }
    // Against a schedule with other steps: those are listed as dropped.
    sched::Step unroll;
    unroll.primitive = sched::Primitive::Unroll;
    unroll.loops = {"k"};
    sched::Program hand = sched::apply(base, unroll).program();
    e = search::explainPoint(hand, best.trace);
    ASSERT_FALSE(e.changes.empty());
    EXPECT_FALSE(e.changes[0].added);
    EXPECT_EQ(search::describeChange(e.changes[0]).rfind("- unroll", 0), 0u) << search::describeChange(e.changes[0]);
}

TEST(Search, EveryShippedScheduleIsTakenFurtherWithoutADefect)
{
    namespace fs = std::filesystem;
    int schedules = 0;
    for (const auto& e : fs::directory_iterator(test::sourceDir() + "/examples/schedules")) {
        auto o = sched::openSchedule(e.path().string(), [](const std::string& n, const std::string& d) { return hw::resolveTarget(n, d); });
        ASSERT_TRUE(o.ok()) << o.errorText();
        ++schedules;
        search::SearchResult r = search::runSearch(o->program, budget(128, 2));
        ASSERT_TRUE(r.feasible) << e.path() << ": " << r.message;
        EXPECT_EQ(r.progress.rejected, 0) << e.path() << ": " << (r.defects.empty() ? "" : r.defects.front());
        // The schedule itself is candidate 0: the best point is never slower.
        EXPECT_LE(r.front[r.best].figures.cycles, replayed(o->program, o->program.trace).cycles) << e.path();
        for (const auto& p : r.front) {
            ASSERT_GE(p.trace.size(), o->program.trace.size());
            EXPECT_TRUE(std::equal(o->program.trace.begin(), o->program.trace.end(), p.trace.begin())) << e.path();
        }
    }
    EXPECT_GE(schedules, 10);
}

// A hand schedule's steps after the pinned ones are where the search starts: read back into
// the space (SearchSpace::project) as candidate 0, the front holds the schedule or a point at
// least as good in every figure, and the mutations start from it. Of the shipped Cortex-M
// schedules, those the space can write start the search; the others say why (a split loop's
// inner part outside its outer part, a sliding window, a partial tile, an unroll the space's
// innermost-first order cannot write) and it starts from the pinned program, as before. One
// that unrolls more copies than the space's limit starts there too, as a point of the same
// space with the limit raised to its own, while the candidates drawn keep to the limit.
TEST(Search, TheSearchStartsFromTheHandScheduleWhenItsSpaceHoldsIt)
{
    namespace fs = std::filesystem;
    const std::set<std::string> outside = {"conv2d_int8_regblock", "conv2d_int8_tflite_slide", "conv2d_int8_tiled",
                                           "conv2d_s2_int8_tiled", "dense_int8_blocked", "matmul_int8_tiled"};
    // Unrolled beyond the space's default limit of 64 straight-line copies.
    const std::set<std::string> unrolledBeyond = {"conv2d_int8_dsp", "conv2d_int8_tflite_dsp", "conv2d_int8_tflite_small",
                                                  "conv2d_s2_int8_tflite_dsp", "conv2d_s2_int8_tflite_small"};
    int started = 0, beyond = 0;
    for (const auto& e : fs::directory_iterator(test::sourceDir() + "/examples/schedules")) {
        const std::string name = e.path().stem().stem().string();
        auto o = sched::openSchedule(e.path().string(), [](const std::string& n, const std::string& d) { return hw::resolveTarget(n, d); });
        ASSERT_TRUE(o.ok()) << o.errorText();
        if (o->program.target->kind == "accelerator" || o->program.trace.empty())
            continue;
        const sched::Program base = sched::Program::initial(o->program.kernel, o->program.target);
        search::SearchOptions opt = budget(1);
        opt.start = o->program.trace;
        search::SearchResult r = search::runSearch(base, opt);
        ASSERT_TRUE(r.feasible) << name << ": " << r.message;
        ASSERT_EQ(r.front.size(), 1u) << name;
        const search::Figures own = replayed(base, o->program.trace);
        if (outside.count(name)) {
            EXPECT_FALSE(r.startedFromSchedule) << name;
            EXPECT_NE(r.start.find("outside the search's space: "), std::string::npos) << name << ": " << r.start;
            EXPECT_TRUE(r.front[0].trace.empty()) << name;  // the kernel as it is
            continue;
        }
        ++started;
        EXPECT_TRUE(r.startedFromSchedule) << name << ": " << r.start;
        EXPECT_EQ(r.start.rfind("started from the schedule given", 0), 0u) << name << ": " << r.start;
        if (unrolledBeyond.count(name)) {
            ++beyond;
            EXPECT_NE(r.start.find("straight-line copies, beyond the space's limit of 64: the candidates drawn keep to it)"), std::string::npos)
                << name << ": " << r.start;
            EXPECT_TRUE(r.startUnrolledCopies == 144 || r.startUnrolledCopies == 72) << name << ": " << r.startUnrolledCopies;
        } else {
            EXPECT_EQ(r.startUnrolledCopies, 0) << name;
        }
        // Candidate 0 is the schedule: its figures, from a trace the space wrote, which replays.
        EXPECT_EQ(r.front[0].figures, own) << name;
        EXPECT_EQ(replayed(base, r.front[0].trace), own) << name;
    }
    EXPECT_EQ(beyond, static_cast<int>(unrolledBeyond.size()));
    EXPECT_GE(started, 19);

    // The search from conv2d_int8_tflite_dsp (144 copies) at the default limit: the schedule
    // is on the front or dominated by a point there, and every other point keeps to 64 copies.
    auto o = sched::openSchedule(test::sourceDir() + "/examples/schedules/conv2d_int8_tflite_dsp.sched.yaml",
                                 [](const std::string& n, const std::string& d) { return hw::resolveTarget(n, d); });
    ASSERT_TRUE(o.ok()) << o.errorText();
    const sched::Program base = sched::Program::initial(o->program.kernel, o->program.target);
    const search::Figures own = replayed(base, o->program.trace);
    {
        search::SearchOptions opt = budget(256);
        opt.objective = search::Objective::Instructions;
        opt.start = o->program.trace;
        const search::SearchResult r = search::runSearch(base, opt);
        ASSERT_TRUE(r.startedFromSchedule) << r.start;
        EXPECT_LE(r.front[r.best].figures.instructions, own.instructions);
        int others = 0;
        for (const auto& p : r.front) {
            if (p.index == 0) {
                EXPECT_EQ(p.figures, own);
                continue;
            }
            ++others;
            sched::ApplyResult a = sched::replay(base.kernel, base.target, p.trace);
            ASSERT_TRUE(a.ok()) << a.error().str();
            for (const auto& st : a.program().stages) {
                int64_t copies = 1;
                for (int v : st.order)
                    if (st.vars[static_cast<size_t>(v)].kind == sched::LoopKind::Unrolled)
                        copies *= st.vars[static_cast<size_t>(v)].extent;
                EXPECT_LE(copies, 64) << "front point " << p.index;
            }
        }
        EXPECT_GT(others, 0);
    }

    // With the unroll limit raised to its 144 copies the search draws bodies that large too:
    // never worse than the schedule, and better within 1,024 candidates (the space around it;
    // from the kernel alone the same budget ends far above it).
    search::SearchOptions opt = budget(1024);
    opt.objective = search::Objective::Instructions;
    opt.space.maxUnrollProduct = 144;
    opt.start = o->program.trace;
    const search::SearchResult from = search::runSearch(base, opt);
    opt.start.clear();
    const search::SearchResult kernelOnly = search::runSearch(base, opt);
    ASSERT_TRUE(from.startedFromSchedule) << from.start;
    EXPECT_TRUE(kernelOnly.start.empty());
    EXPECT_LT(from.front[from.best].figures.instructions, own.instructions);
    EXPECT_GT(kernelOnly.front[kernelOnly.best].figures.instructions, own.instructions);
}

TEST(Search, WhatTheSpaceCannotWriteIsNamed)
{
    const sched::Program base = program("matmul_f32", {{"M", 32}, {"N", 32}, {"K", 32}});
    using P = sched::Primitive;
    const std::vector<std::pair<std::vector<sched::Step>, std::string>> cases = {
        {{test::loopStep(P::Fuse, {"i", "j"})}, "i is fused or split twice"},
        {{test::loopStep(P::Split, {"i"}, 8), test::loopStep(P::Split, {"i.inner"}, 2)}, "i is fused or split twice"},
        {{test::loopStep(P::Split, {"i"}, 6)}, "split i by 6: not one of the space's tile factors (partial tiles are not searched)"},
        {{test::loopStep(P::Split, {"i"}, 8), test::loopStep(P::Reorder, {"i.inner", "i.outer"})}, "an inner part of a split loop runs outside an outer part"},
    };
    for (const auto& [steps, reason] : cases) {
        const std::string text = sched::describe(steps.back());
        sched::ApplyResult applied = sched::replay(base.kernel, base.target, steps);
        ASSERT_TRUE(applied.ok()) << text << ": " << applied.error().str();
        search::SearchSpace space(base);
        std::string why;
        EXPECT_FALSE(space.project(applied.program(), why).has_value()) << text;
        EXPECT_NE(why.find(reason), std::string::npos) << text << ": " << why;
        // The search says so and starts from the kernel.
        search::SearchOptions opt = budget(1);
        opt.start = steps;
        const search::SearchResult r = search::runSearch(base, opt);
        EXPECT_FALSE(r.startedFromSchedule);
        EXPECT_NE(r.start.find(reason), std::string::npos) << r.start;
    }
    // A step that does not apply to the pinned program: said, and the search goes on.
    search::SearchOptions opt = budget(1);
    opt.start = {test::loopStep(P::Split, {"nosuch"}, 2)};
    const search::SearchResult r = search::runSearch(base, opt);
    EXPECT_TRUE(r.feasible);
    EXPECT_NE(r.start.find("do not apply"), std::string::npos) << r.start;
}

// Issue 16, item 2: an exception while a pool thread evaluates a candidate must not end the
// process (std::terminate): the candidate is rejected with the reason, the run goes on, and the
// front is that of the candidates that did evaluate.
TEST(SearchErrors, AnExceptionInAWorkerRejectsTheCandidateAndTheRunGoesOn)
{
    const sched::Program base = program("matmul_f32", {{"M", 32}, {"N", 32}, {"K", 32}});
    std::atomic<int> thrown{0};
    search::SearchOptions opt = budget(200, 2, 3);
    opt.beforeEvaluate = [&](const search::Candidate&) {
        if (thrown.fetch_add(1) % 5 == 0)
            throw std::runtime_error("evaluation failed");
    };
    const search::SearchResult r = search::runSearch(base, opt);
    EXPECT_EQ(r.progress.drawn, 200);
    EXPECT_GT(r.progress.rejected, 0);
    ASSERT_FALSE(r.defects.empty());
    EXPECT_EQ(r.defects[0], "internal error: evaluation failed");
    EXPECT_TRUE(r.feasible);
    EXPECT_FALSE(r.front.empty());
}
