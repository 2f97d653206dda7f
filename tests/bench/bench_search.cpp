// Google Benchmark targets of the schedule search (built, never run by ctest): the rate at
// which candidates are evaluated, and its parts (apply + occupancy bound, lower, analyse).
// Figures and the command that produced them are in docs/performance.md.
#include "analysis/cost_report.h"
#include "analysis/instructions.h"
#include "ir/kernel.h"
#include "lower/loop_nest.h"
#include "search/evaluator.h"
#include "search/search.h"
#include "target_loader.h"

#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <optional>

using namespace loopscope;

namespace {

sched::Program kernelProgram(const std::string& kernel, const std::string& target)
{
    auto k = ir::loadKernelFile(std::string(LOOPSCOPE_SOURCE_DIR) + "/examples/kernels/" + kernel + ".kernel.yaml");
    auto t = hw::resolveTarget(target, "");
    if (!k || !t) {
        std::fprintf(stderr, "%s%s\n", k.errorText().c_str(), t.errorText().c_str());
        std::abort();
    }
    return sched::Program::initial(std::make_shared<const ir::Kernel>(std::move(*k)), std::make_shared<const hw::Target>(std::move(*t)));
}

/// 256 candidates of a kernel's space, drawn as the search draws its random samples.
std::vector<search::Candidate> samples(const search::SearchSpace& space)
{
    std::mt19937_64 rng(7);
    std::vector<search::Candidate> out;
    for (int i = 0; i < 256; ++i)
        out.push_back(space.sample(rng));
    return out;
}

const char* kKernels[] = {"conv2d_int8", "dwsep_conv", "matmul_int8", "matmul_f32"};

void BM_SearchEvaluate(benchmark::State& state)
{
    sched::Program base = kernelProgram(kKernels[state.range(0)], "cortex-m7");
    search::SearchSpace space(base);
    search::Evaluator ev(space);
    auto cs = samples(space);
    size_t i = 0;
    for (auto _ : state) {
        search::Evaluation e = ev.evaluate(cs[i++ % cs.size()]);
        benchmark::DoNotOptimize(e.figures.cycles);
    }
    state.SetItemsProcessed(state.iterations());
    state.SetLabel(kKernels[state.range(0)]);
}
BENCHMARK(BM_SearchEvaluate)->Arg(0)->Arg(1)->Arg(2)->Arg(3)->Unit(benchmark::kMicrosecond);

/// Every one of the 256 samples per iteration: the same candidates whatever the iteration
/// count, so that callgrind's instructions per evaluation (Ir / 256 / iterations) compare
/// exactly between builds. The second argument 1 evaluates them with the instruction model's
/// memcpy counts enumerating every loop value (analysis::detail::EnumerateCopiesScope), as
/// before their closed forms: both variants in one run.
void BM_SearchEvaluateSet(benchmark::State& state)
{
    sched::Program base = kernelProgram(kKernels[state.range(0)], "cortex-m7");
    search::SearchSpace space(base);
    search::Evaluator ev(space);
    auto cs = samples(space);
    std::optional<analysis::detail::EnumerateCopiesScope> enumerate;
    if (state.range(1))
        enumerate.emplace();
    for (auto _ : state)
        for (const auto& c : cs) {
            search::Evaluation e = ev.evaluate(c);
            benchmark::DoNotOptimize(e.figures.cycles);
        }
    state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(cs.size()));
    state.SetLabel(std::string(kKernels[state.range(0)]) + (state.range(1) ? " enumerating copies" : ""));
}
BENCHMARK(BM_SearchEvaluateSet)->ArgsProduct({{0, 1, 2, 3}, {0, 1}})->Unit(benchmark::kMillisecond);

/// The steps applied and the occupancy bound (what is paid before lowering).
void BM_SearchBuild(benchmark::State& state)
{
    sched::Program base = kernelProgram("conv2d_int8", "cortex-m7");
    search::SearchSpace space(base);
    search::Evaluator ev(space);
    auto cs = samples(space);
    size_t i = 0;
    for (auto _ : state) {
        search::Candidate c = cs[i++ % cs.size()];
        auto p = ev.build(c);
        benchmark::DoNotOptimize(p.ok());
    }
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_SearchBuild)->Unit(benchmark::kMicrosecond);

void BM_SearchLower(benchmark::State& state)
{
    sched::Program base = kernelProgram("conv2d_int8", "cortex-m7");
    search::SearchSpace space(base);
    search::Evaluator ev(space);
    std::vector<sched::Program> ps;
    for (auto c : samples(space))
        ps.push_back(*ev.build(c));
    size_t i = 0;
    for (auto _ : state) {
        lower::LoopNest n = lower::lower(ps[i++ % ps.size()]);
        benchmark::DoNotOptimize(n.stmts.data());
    }
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_SearchLower)->Unit(benchmark::kMicrosecond);

void BM_SearchAnalyze(benchmark::State& state)
{
    sched::Program base = kernelProgram("conv2d_int8", "cortex-m7");
    search::SearchSpace space(base);
    search::Evaluator ev(space);
    std::vector<lower::LoopNest> ns;
    for (auto c : samples(space))
        ns.push_back(lower::lower(*ev.build(c)));
    size_t i = 0;
    for (auto _ : state) {
        const lower::LoopNest& n = ns[i++ % ns.size()];
        analysis::CostReport r = analysis::analyze(n, *n.target);
        benchmark::DoNotOptimize(r.cycles.total);
    }
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_SearchAnalyze)->Unit(benchmark::kMicrosecond);

/// A whole search of 2048 candidates on conv2d_int8 with 1 and 2 threads.
void BM_SearchRun(benchmark::State& state)
{
    sched::Program base = kernelProgram("conv2d_int8", "cortex-m7");
    search::SearchOptions opt;
    opt.budget = 2048;
    opt.threads = static_cast<int>(state.range(0));
    int64_t evaluated = 0;
    for (auto _ : state) {
        search::SearchResult r = search::runSearch(base, opt);
        evaluated += r.progress.evaluated;
        benchmark::DoNotOptimize(r.front.size());
    }
    state.counters["evaluated_per_s"] = benchmark::Counter(static_cast<double>(evaluated), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_SearchRun)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

} // namespace
BENCHMARK_MAIN();
