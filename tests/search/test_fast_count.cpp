// The closed forms the search's evaluations take inside analyze (the memcpy counts of the
// instruction model summed over loops by remainders modulo 4, or factorised by region dimension)
// equal the general enumeration over every loop value, on every point a search returns and on
// random samples of everything it evaluates, for several kernels and targets, partial tiles
// included; and they are really taken (a broken closed form cannot hide behind the fallback).
#include "support/test_paths.h"

#include "analysis/cost_report.h"
#include "analysis/instructions.h"
#include "ir/kernel.h"
#include "lower/loop_nest.h"
#include "search/evaluator.h"
#include "search/search.h"

#include <gtest/gtest.h>

#include <random>

using namespace loopscope;

namespace {

sched::Program kernelProgram(const std::string& kernel, const std::string& target)
{
    auto k = ir::loadKernelFile(test::kernelPath(kernel));
    EXPECT_TRUE(k.ok()) << k.errorText();
    return sched::Program::initial(std::make_shared<const ir::Kernel>(std::move(*k)), test::builtinTarget(target));
}

struct Counted {
    search::Figures figures;
    analysis::InsnFeatures features;
    int64_t closedForm = 0;     ///< copies counted in closed form
    int64_t enumerated = 0;     ///< loop values the memcpy counts enumerated
    int copies = 0;             ///< copy statements of the nest
};

/// Lowers and analyses `p`, with the closed forms or (reference) enumerating every loop value.
Counted count(const sched::Program& p, bool reference)
{
    lower::LoopNest nest = lower::lower(p);
    const int64_t before = analysis::detail::closedFormCopies();
    const int64_t enumeratedBefore = analysis::detail::enumeratedPoints();
    analysis::CostReport r;
    if (reference) {
        analysis::detail::EnumerateCopiesScope scope;
        r = analysis::analyze(nest, *p.target);
    } else {
        r = analysis::analyze(nest, *p.target);
    }
    Counted c;
    c.figures = search::figuresOf(r);
    c.features = r.instructions.features;
    c.closedForm = analysis::detail::closedFormCopies() - before;
    c.enumerated = analysis::detail::enumeratedPoints() - enumeratedBefore;
    for (const auto& s : nest.stmts)
        c.copies += s.kind == lower::Stmt::Kind::Copy ? 1 : 0;
    EXPECT_FALSE(r.hasErrors());
    return c;
}

std::string text(const search::Figures& f)
{
    return std::to_string(f.cycles) + " cycles, " + std::to_string(f.energyUj) + " uJ, " + std::to_string(f.onChipBytes) + " B on chip, "
        + std::to_string(f.dramBytes) + " B DRAM, " + std::to_string(f.latencyMs) + " ms, " + std::to_string(f.instructions) + " instructions";
}

struct Case {
    const char* kernel;
    const char* target;
    bool cpu;   ///< the instruction model applies (the closed forms must be taken)
};

const Case kCases[] = {
    {"conv2d_int8", "cortex-m7", true},
    {"matmul_f32", "cortex-m7", true},
    {"dwsep_conv", "cortex-m7", true},
    {"conv2d_int8_tflite", "cortex-m7", true},   // int8 with the DSP path (vectorize) in the space
    {"dense_int16", "cortex-m4", true},
    {"matmul_int8", "gemmini-16x16", false},
};

class FastCount : public ::testing::TestWithParam<Case> {};

TEST_P(FastCount, EqualsEnumerationOnRandomSamples)
{
    const Case& cs = GetParam();
    sched::Program base = kernelProgram(cs.kernel, cs.target);
    int withCopies = 0, compared = 0;
    int64_t closedForm = 0, enumerated = 0, enumeratedByReference = 0;
    for (bool partial : {false, true}) {
        search::SpaceOptions so;
        so.partialTiles = partial;
        search::SearchSpace space(base, so);
        search::Evaluator ev(space);
        std::mt19937_64 rng(partial ? 11 : 7);
        for (int i = 0; i < 60; ++i) {
            search::Candidate c = i % 3 == 2 ? space.mutate(space.sample(rng), rng) : space.sample(rng);
            auto p = ev.build(c);
            if (!p)
                continue;   // pruned: never analysed
            const Counted fast = count(*p, false);
            const Counted ref = count(*p, true);
            ++compared;
            EXPECT_EQ(fast.figures, ref.figures) << cs.kernel << " sample " << i << (partial ? " (partial tiles)" : "") << ": "
                                                 << text(fast.figures) << " against " << text(ref.figures);
            for (int f = 0; f < analysis::kInsnFeatureCount; ++f)
                EXPECT_EQ(fast.features.count[f], ref.features.count[f])
                    << cs.kernel << " sample " << i << ": feature " << analysis::insnFeatureName(static_cast<analysis::InsnFeature>(f));
            EXPECT_EQ(ref.closedForm, 0) << "the reference must enumerate";
            // The evaluator's own figures are those too.
            search::Evaluation e = ev.evaluate(c);
            EXPECT_EQ(e.figures, ref.figures) << cs.kernel << " sample " << i;
            withCopies += fast.copies > 0 ? 1 : 0;
            closedForm += fast.closedForm;
            enumerated += fast.enumerated;
            enumeratedByReference += ref.enumerated;
        }
    }
    EXPECT_GE(compared, 50) << cs.kernel << ": too few samples fit to compare";
    if (cs.cpu) {
        // Most samples cache something, and the closed forms leave at most half of the loop
        // values the reference enumerates (those left set a copy's counts: partial tiles,
        // padding halos).
        EXPECT_GE(withCopies, compared / 4) << cs.kernel;
        EXPECT_GT(closedForm, 0) << cs.kernel;
        EXPECT_LE(enumerated * 2, enumeratedByReference)
            << cs.kernel << ": " << closedForm << " copies counted in closed form, " << enumerated << " loop values enumerated, against "
            << enumeratedByReference << " by the reference";
    }
}

TEST_P(FastCount, EqualsEnumerationOnEveryReturnedPoint)
{
    const Case& cs = GetParam();
    sched::Program base = kernelProgram(cs.kernel, cs.target);
    search::SearchOptions opt;
    opt.budget = 512;
    opt.threads = 2;
    opt.seed = 3;
    opt.objective = cs.cpu ? search::Objective::Instructions : search::Objective::Cycles;
    opt.space.partialTiles = true;
    search::SearchResult res = search::runSearch(base, opt);
    ASSERT_TRUE(res.feasible) << res.message;
    ASSERT_FALSE(res.front.empty());
    for (const auto& pt : res.front) {
        sched::ApplyResult r = sched::replay(base.kernel, base.target, pt.trace);
        ASSERT_TRUE(r.ok()) << r.error().str();
        const Counted ref = count(r.program(), true);
        EXPECT_EQ(pt.figures, ref.figures) << cs.kernel << " point " << pt.index << ": " << text(pt.figures) << " against " << text(ref.figures);
    }
}

INSTANTIATE_TEST_SUITE_P(Kernels, FastCount, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<Case>& info) { return std::string(info.param.kernel) + "_" + (info.param.cpu ? "cpu" : "gemmini"); });

} // namespace
