// Google Benchmark targets for the core (built, never run by ctest): the edit loop of the
// GUI (apply one step, lower, analyse) and raw analysis throughput. Figures and the command
// that produced them are in docs/performance.md.
#include "analysis/cost_report.h"
#include "analysis/instructions.h"
#include "codegen/c_codegen.h"
#include "lower/loop_nest.h"
#include "sched/schedule_file.h"
#include "target_loader.h"
#include "verify/interpreter.h"

#include <benchmark/benchmark.h>

#include <cstdlib>

using namespace loopscope;

namespace {

sched::OpenedSchedule openBench(const std::string& rel)
{
    auto o = sched::openSchedule(std::string(LOOPSCOPE_SOURCE_DIR) + "/" + rel,
                                 [](const std::string& n, const std::string& d) { return hw::resolveTarget(n, d); });
    if (!o) {
        std::fprintf(stderr, "%s\n", o.errorText().c_str());
        std::abort();
    }
    return *o;
}

int countLoops(const lower::LoopNest& n)
{
    int loops = 0;
    for (const auto& s : n.stmts)
        loops += s.kind == lower::Stmt::Kind::For ? 1 : 0;
    return loops;
}

/// One GUI edit: the document applies the last step to the program before it, lowers and
/// analyses the result.
void BM_ApplyLowerAnalyze(benchmark::State& state)
{
    auto o = openBench("tests/bench/conv2d_12loops.sched.yaml");
    std::vector<sched::Step> steps = o.program.trace;
    sched::Step last = steps.back();
    steps.pop_back();
    sched::Program before = sched::replay(o.kernel, o.target, steps).program();
    for (auto _ : state) {
        sched::ApplyResult r = sched::apply(before, last);
        lower::LoopNest nest = lower::lower(r.program());
        analysis::CostReport report = analysis::analyze(nest, *o.target);
        benchmark::DoNotOptimize(report.cycles.total);
    }
    lower::LoopNest nest = lower::lower(o.program);
    state.counters["stage_loops"] = static_cast<double>(o.program.stages[0].order.size());
    state.counters["caches"] = static_cast<double>(o.program.caches.size());
    state.counters["for_stmts"] = countLoops(nest);
}
BENCHMARK(BM_ApplyLowerAnalyze)->Unit(benchmark::kMicrosecond);

void BM_Lower(benchmark::State& state)
{
    auto o = openBench("tests/bench/conv2d_12loops.sched.yaml");
    for (auto _ : state) {
        lower::LoopNest nest = lower::lower(o.program);
        benchmark::DoNotOptimize(nest.stmts.data());
    }
}
BENCHMARK(BM_Lower)->Unit(benchmark::kMicrosecond);

/// The C of a lowered nest, as the Code panel shows it after every edit: the longest C the
/// app still generates in the edit's frame (1,847 lines; longer C goes to a worker).
void BM_GenerateC(benchmark::State& state)
{
    auto o = openBench("examples/schedules/conv2d_s2_int8_tflite_dsp.sched.yaml");
    const lower::LoopNest nest = lower::lower(o.program);
    size_t bytes = 0;
    for (auto _ : state) {
        std::string c = codegen::generateSource(nest);
        bytes = c.size();
        benchmark::DoNotOptimize(c.data());
    }
    state.counters["bytes"] = static_cast<double>(bytes);
}
BENCHMARK(BM_GenerateC)->Unit(benchmark::kMicrosecond);

/// Analysis alone on an already lowered nest: what a search evaluating candidates pays.
void BM_AnalyzeOnly(benchmark::State& state)
{
    auto o = openBench(state.range(0) == 0 ? "tests/bench/conv2d_12loops.sched.yaml" : "examples/schedules/matmul_f32_tiled.sched.yaml");
    lower::LoopNest nest = lower::lower(o.program);
    for (auto _ : state) {
        analysis::CostReport report = analysis::analyze(nest, *o.target);
        benchmark::DoNotOptimize(report.cycles.total);
    }
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_AnalyzeOnly)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

/// The instruction model's share of BM_AnalyzeOnly/0: counting the events of the generated code
/// from the statements' execution counts, and weighing them (issue 11).
void BM_InstructionFeatures(benchmark::State& state)
{
    auto o = openBench("tests/bench/conv2d_12loops.sched.yaml");
    lower::LoopNest nest = lower::lower(o.program);
    const std::vector<int64_t> executions = analysis::statementExecutions(nest, *o.target);
    for (auto _ : state) {
        analysis::InstructionReport r = analysis::predictInstructions(analysis::instructionFeatures(nest, executions), *o.target);
        benchmark::DoNotOptimize(r.predicted);
    }
}
BENCHMARK(BM_InstructionFeatures)->Unit(benchmark::kMicrosecond);

/// The loop nest view's extra work per edit on a Cortex-M target: the instruction model's
/// decisions for every loop (analysis::loopDecisions: the execution counts, the events per kept
/// loop and their weights), on conv2d_int8_dsp (its 64 unrolled copies: a large nest).
void BM_LoopDecisions(benchmark::State& state)
{
    auto o = openBench("examples/schedules/conv2d_int8_dsp.sched.yaml");
    lower::LoopNest nest = lower::lower(o.program);
    for (auto _ : state) {
        std::vector<analysis::LoopDecision> d = analysis::loopDecisions(nest, *o.target);
        benchmark::DoNotOptimize(d.data());
    }
}
BENCHMARK(BM_LoopDecisions)->Unit(benchmark::kMicrosecond);

/// The oracle, for scale: interpreting the same nest on data.
void BM_Interpret(benchmark::State& state)
{
    auto o = openBench("tests/bench/conv2d_12loops.sched.yaml");
    lower::LoopNest nest = lower::lower(o.program);
    verify::Dataset in = verify::makeInputs(*o.kernel, 1);
    for (auto _ : state) {
        verify::InterpretResult r = verify::interpret(nest, in);
        benchmark::DoNotOptimize(r.ok);
    }
}
BENCHMARK(BM_Interpret)->Unit(benchmark::kMillisecond);

} // namespace

/// Replaying a trace of N steps (reorders back and forth, the program stays the same size):
/// linear in N since no step copies the trace (issue 16); Complexity() fits the exponent.
void BM_Replay(benchmark::State& state)
{
    const sched::OpenedSchedule o = openBench("examples/schedules/matmul_f32_naive.sched.yaml");
    std::vector<sched::Step> steps;
    for (int64_t i = 0; i < state.range(0); ++i) {
        sched::Step s;
        s.primitive = sched::Primitive::Reorder;
        s.loops = i % 2 ? std::vector<std::string>{"i", "j", "k"} : std::vector<std::string>{"j", "i", "k"};
        steps.push_back(s);
    }
    for (auto _ : state) {
        sched::ApplyResult r = sched::replay(o.kernel, o.target, steps);
        benchmark::DoNotOptimize(r.program().trace.size());
    }
    state.SetComplexityN(state.range(0));
}
BENCHMARK(BM_Replay)->RangeMultiplier(4)->Range(256, 16384)->Complexity()->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
