// `loopscope-cli search`: runs the schedule search on a kernel (or a schedule with pinned
// steps), prints the Pareto front as a table or JSON, writes the best schedule, and with
// --measure-top N measures the N best on qemu and ranks them by the measurement.
#include "search_command.h"
#include "common/yaml_documents.h"
#include "json_text.h"

#include "codegen/measure_batch.h"
#include "common/atomic_file.h"
#include "lower/loop_nest.h"
#include "sched/schedule_file.h"
#include "search/explain.h"
#include "search/search.h"
#include "search_workspace.h"
#include "store/workspace.h"
#include "target_loader.h"

#include <CLI/CLI.hpp>

#include "cli_checks.h"
#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <iomanip>
#include <map>
#include <memory>
#include <optional>
#include <ostream>

namespace loopscope::cli {

namespace {

bool endsWith(const std::string& s, const std::string& suffix)
{
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string bytesText(int64_t b)
{
    char buf[32];
    if (b >= 1024 * 1024)
        std::snprintf(buf, sizeof buf, "%.1f MiB", static_cast<double>(b) / (1024.0 * 1024.0));
    else if (b >= 1024)
        std::snprintf(buf, sizeof buf, "%.1f KiB", static_cast<double>(b) / 1024.0);
    else
        std::snprintf(buf, sizeof buf, "%lld B", static_cast<long long>(b));
    return buf;
}

struct Input {
    sched::Program program;         ///< the schedule as written (all its steps)
    sched::Program base;            ///< after the pinned steps
    std::vector<sched::Step> rest;  ///< the steps after the pinned ones: where the search starts (SearchOptions::start)
    std::string kernelPath;
    std::string targetSpec;
};

Result<Input> openInput(const SearchArgs& a)
{
    Input in;
    std::shared_ptr<const ir::Kernel> kernel;
    std::vector<sched::Step> steps;
    std::string targetSpec = a.target, baseDir;
    if (endsWith(a.file, ".kernel.yaml")) {
        auto k = ir::loadKernelFile(a.file);
        if (!k)
            return k.errors();
        kernel = std::make_shared<const ir::Kernel>(std::move(*k));
        in.kernelPath = a.file;
        if (targetSpec.empty())
            return Diagnostic{Severity::Error, {}, "search of a kernel needs --target (e.g. cortex-m7; see 'loopscope-cli targets')"};
        if (a.pin > 0)
            return Diagnostic{Severity::Error, {}, "--pin needs a schedule file: a kernel has no steps to keep"};
    } else {
        auto o = sched::openSchedule(a.file, [](const std::string& n, const std::string& d) { return hw::resolveTarget(n, d); });
        if (!o)
            return o.errors();
        kernel = o->kernel;
        steps = o->program.trace;
        in.kernelPath = sched::joinPath(sched::directoryOf(a.file), o->file.kernel);
        if (targetSpec.empty()) {
            targetSpec = o->file.target;
            baseDir = sched::directoryOf(a.file);
        }
    }
    auto t = hw::resolveTarget(targetSpec, baseDir);
    if (!t)
        return t.errors();
    // A built-in name stays a name (resolveTarget takes it before any file); a file is found
    // from the schedule's folder.
    const auto builtins = hw::builtinTargetNames();
    const bool builtin = std::find(builtins.begin(), builtins.end(), targetSpec) != builtins.end();
    in.targetSpec = baseDir.empty() || builtin ? targetSpec : sched::joinPath(baseDir, targetSpec);
    auto target = std::make_shared<const hw::Target>(std::move(*t));
    sched::ApplyResult all = sched::replay(kernel, target, steps);
    if (!all.ok())
        return all.error().diagnostic();
    in.program = all.program();
    int pin = a.pin < 0 ? static_cast<int>(steps.size()) : a.pin;
    if (pin > static_cast<int>(steps.size()))
        return Diagnostic{Severity::Error, {}, "--pin " + std::to_string(pin) + " exceeds the schedule's " + std::to_string(steps.size()) + " steps"};
    sched::ApplyResult base = sched::replay(kernel, target, std::vector<sched::Step>(steps.begin(), steps.begin() + pin));
    in.base = base.program();
    in.rest.assign(steps.begin() + pin, steps.end());
    return in;
}

nlohmann::ordered_json figuresJson(const search::Figures& f)
{
    nlohmann::ordered_json j = {{"cycles", f.cycles}, {"energy_uj", f.energyUj}, {"on_chip_bytes", f.onChipBytes}, {"dram_bytes", f.dramBytes}, {"latency_ms", f.latencyMs}};
    if (f.instructions > 0)   // predicted for the exported C (CPU targets; none for an accelerator)
        j["instructions"] = f.instructions;
    return j;
}

bool writeSchedule(const Input& in, const std::vector<sched::Step>& trace, const std::string& path, const std::string& description, bool force,
                   std::string& error)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    // A link in the way, even one to nothing, is a file there: replaced with --force, never
    // written through (the file it points to may be outside the folder the user chose).
    if (fs::exists(fs::symlink_status(path, ec)) && !force) {
        error = path + " exists; pass --force to replace it";
        return false;
    }
    sched::ScheduleFile f;
    f.path = path;
    fs::path dir = fs::absolute(fs::path(path)).parent_path();
    f.kernel = fs::relative(fs::absolute(in.kernelPath), dir, ec).generic_string();
    if (ec || f.kernel.empty())
        f.kernel = fs::absolute(in.kernelPath).generic_string();
    bool builtin = false;
    for (const auto& n : hw::builtinTargetNames())
        builtin = builtin || n == in.targetSpec;
    f.target = builtin ? in.targetSpec : fs::relative(fs::absolute(in.targetSpec), dir, ec).generic_string();
    f.description = description;
    f.steps = trace;
    return writeFileAtomically(path, sched::formatScheduleFile(f), error, LinkPolicy::ReplaceLink);
}

/// Writes each of `points` as DIR/point-N.sched.yaml (N: its candidate number in the run) with
/// the description `describe` gives it; nothing when a file is in the way, unless `force`.
bool writePoints(const Input& in, const std::vector<const search::SearchPoint*>& points, const std::string& dir, bool force,
                 const std::string& option, const std::function<std::string(const search::SearchPoint&)>& describe, std::ostream& err)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) {
        err << option << ": cannot create " << dir << ": " << ec.message() << "\n";
        return false;
    }
    auto pathOf = [&](const search::SearchPoint& p) { return (fs::path(dir) / ("point-" + std::to_string(p.index) + ".sched.yaml")).string(); };
    for (const search::SearchPoint* p : points)
        if (!force && fs::exists(fs::symlink_status(pathOf(*p), ec))) {
            err << pathOf(*p) << " exists; pass --force to replace it\n";
            return false;
        }
    for (const search::SearchPoint* p : points) {
        std::string error;
        if (!writeSchedule(in, p->trace, pathOf(*p), describe(*p), true, error)) {
            err << error << "\n";
            return false;
        }
    }
    return true;
}

/// A step as the JSON's traces give it: with its stage when the kernel has more than one (the
/// same loop name can be in several).
std::string stepText(const sched::Step& s, const ir::Kernel& kernel)
{
    return (kernel.stages.size() > 1 && !s.stage.empty() ? s.stage + ": " : "") + sched::describe(s);
}

} // namespace

namespace {

/// Set by Ctrl-C (SIGINT) or SIGTERM while a search runs: the search stops after the candidates
/// in flight, as at its time limit, so that its front is printed and written, and a run kept
/// in a workspace is marked stopped (resumable) instead of staying "running" for ever.
std::atomic<bool> g_interrupted{false};
std::atomic<int> g_signal{0};   ///< which one

extern "C" void onInterrupt(int sig)
{
    g_signal.store(sig);
    g_interrupted.store(true);
}

/// Installs onInterrupt for SIGINT and SIGTERM while alive (a second one stops the program at
/// once: SA_RESETHAND), the previous handlers after. A signal ignored when the program started
/// (SIGINT of a command started in the background by a shell) stays ignored.
class InterruptScope {
public:
    InterruptScope()
    {
        g_interrupted.store(false);
        g_signal.store(0);
        struct sigaction on {};
        on.sa_handler = onInterrupt;
        on.sa_flags = SA_RESETHAND;
        sigemptyset(&on.sa_mask);
        for (int i = 0; i < 2; ++i) {
            sigaction(kSignals[i], nullptr, &m_old[i]);
            if (m_old[i].sa_handler != SIG_IGN)
                sigaction(kSignals[i], &on, nullptr);
        }
    }
    ~InterruptScope()
    {
        for (int i = 0; i < 2; ++i)
            sigaction(kSignals[i], &m_old[i], nullptr);
    }
    InterruptScope(const InterruptScope&) = delete;
    InterruptScope& operator=(const InterruptScope&) = delete;

private:
    static constexpr int kSignals[2] = {SIGINT, SIGTERM};
    struct sigaction m_old[2] {};
};

/// "interrupted (Ctrl-C)" or "terminated (SIGTERM)".
std::string interruptText()
{
    return g_signal.load() == SIGTERM ? "terminated (SIGTERM)" : "interrupted (Ctrl-C)";
}

} // namespace

int runSearchCommand(const SearchArgs& a, std::ostream& out, std::ostream& err)
{
    search::SearchOptions opt;
    if (!a.measuredOut.empty() && a.measureTop <= 0) {
        err << "--measured-out needs --measure-top N\n";
        return kExitBadInput;
    }
    if (!search::parseObjective(a.objective, opt.objective)) {
        err << "unknown objective '" << a.objective << "' (cycles, energy, sram, edp, dram, instructions)\n";
        return kExitBadInput;
    }
    if (a.seconds <= 0 && a.budget <= 0) {
        err << "give a time limit (--time S > 0) or a budget (--budget N > 0)\n";
        return kExitBadInput;
    }
    if (a.resume <= 0 && a.file.empty()) {
        err << "search needs a kernel or schedule file (or --workspace W --resume RUN)\n";
        return kExitBadInput;
    }
    if (a.resume > 0 && a.workspace.empty()) {
        err << "--resume needs --workspace (the workspace that holds the run)\n";
        return kExitBadInput;
    }
    // A result that cannot be written is known before the search, not after it: --out's file,
    // and the folders --front-out and --measured-out fill (files in them are said after the run,
    // which names them).
    if (!a.out.empty()) {
        const std::string why = checkWritable(a.out, a.force);
        if (!why.empty()) {
            err << "--out: " << why << "\n";
            return kExitBadInput;
        }
    }
    for (const auto& [option, dir] : {std::pair{"--front-out", &a.frontOut}, std::pair{"--measured-out", &a.measuredOut}}) {
        if (dir->empty())
            continue;
        const std::string why = checkWritableFolder(*dir);
        if (!why.empty()) {
            err << option << ": " << why << "\n";
            return kExitBadInput;
        }
    }
    // The workspace the run streams into: opened, or created when missing. Its run keeps the
    // kernel's and target's paths in JSON, which holds UTF-8 only: a path with Latin-1 bytes
    // (the folder, or the current one) is refused before the workspace is made or touched.
    std::unique_ptr<store::Workspace> ws;
    if (!a.workspace.empty() && a.resume == 0) {
        std::error_code ec;
        const auto names = hw::builtinTargetNames();
        const bool builtin = std::find(names.begin(), names.end(), a.target) != names.end();
        for (const std::string& given : {a.file, builtin ? std::string() : a.target}) {
            const std::string path = given.empty() ? given : std::filesystem::absolute(given, ec).string();
            if (!isUtf8(path)) {
                err << printableText(path) << ": a search kept in a workspace needs paths that are UTF-8 text: "
                    << "rename the folder or file, or search without --workspace\n";
                return kExitBadInput;
            }
        }
    }
    if (!a.workspace.empty()) {
        std::error_code ec;
        auto opened = std::filesystem::exists(a.workspace, ec) ? store::Workspace::open(a.workspace)
                                                               : a.resume > 0 ? Result<std::unique_ptr<store::Workspace>>(Diagnostic{
                                                                                    Severity::Error, {a.workspace, 0, 0}, "no such workspace"})
                                                                              : store::Workspace::create(a.workspace);
        if (!opened) {
            err << opened.errorText() << "\n";
            return kExitBadInput;
        }
        ws = std::move(*opened);
    }
    Input input;
    SearchRunParameters params;
    std::optional<StoredRun> stored;
    int64_t runId = 0;
    if (a.resume > 0) {
        auto run = loadRun(*ws, a.resume);
        if (!run) {
            err << run.errorText() << "\n";
            return kExitBadInput;
        }
        stored = std::move(*run);
        params = stored->params;
        input.base = stored->base;
        input.program = stored->base;
        input.kernelPath = params.kernelPath;
        input.targetSpec = params.target;
        if (!search::parseObjective(params.objective, opt.objective)) {
            err << "search run " << a.resume << " has an unknown objective '" << params.objective << "'\n";
            return kExitBadInput;
        }
        opt.seed = params.seed;
        opt.batchSize = params.batchSize;
        opt.space.partialTiles = params.partialTiles;
        opt.space.maxUnrollProduct = params.maxUnrollProduct;
        opt.budget = a.budget > 0 ? a.budget : params.budget;
        runId = a.resume;
        for (int64_t id : stored->stale) {
            auto off = ws->setOnFront(runId, id, false);
            if (!off) {
                err << off.errorText() << "\n";
                return kExitBadInput;
            }
        }
        auto reopened = ws->finishSearchRun(runId, store::SearchStatus::Running, "");
        if (!reopened) {
            err << reopened.errorText() << "\n";
            return kExitBadInput;
        }
    } else {
        auto in = openInput(a);
        if (!in) {
            err << in.errorText() << "\n";
            return kExitBadInput;
        }
        input = std::move(*in);
        opt.budget = a.budget;
        opt.seed = a.seed;
        opt.space.partialTiles = a.partialTiles;
        opt.space.maxUnrollProduct = a.maxUnroll;
        opt.start = input.rest;
    }
    Input* in = &input;
    opt.timeLimitSeconds = a.seconds;
    opt.threads = a.threads;
    opt.distinct = a.measureTop;
    std::unique_ptr<WorkspaceSink> sink;
    if (ws) {
        if (!stored) {
            namespace fs = std::filesystem;
            params.kernelPath = fs::absolute(in->kernelPath).lexically_normal().string();
            bool builtin = false;
            for (const auto& n : hw::builtinTargetNames())
                builtin = builtin || n == in->targetSpec;
            params.target = builtin ? in->targetSpec : fs::absolute(in->targetSpec).lexically_normal().string();
            sched::ScheduleFile f;
            f.kernel = params.kernelPath;
            f.target = params.target;
            f.steps = in->base.trace;
            params.baseTrace = sched::formatScheduleFile(f);
            params.objective = a.objective;
            params.seed = opt.seed;
            params.batchSize = opt.batchSize;
            params.partialTiles = opt.space.partialTiles;
            params.maxUnrollProduct = opt.space.maxUnrollProduct;
            params.budget = opt.budget;
            auto id = beginRun(*ws, params);
            if (!id) {
                err << id.errorText() << "\n";
                return kExitBadInput;
            }
            runId = *id;
        }
        sink = std::make_unique<WorkspaceSink>(*ws, runId, params);
        if (stored)
            sink->adopt(stored->variants);
    }
    search::SearchResult r;
    {
        InterruptScope interrupt;
        r = search::runSearch(in->base, opt, sink.get(), &g_interrupted, stored ? &stored->state : nullptr);
    }
    const bool interrupted = r.cancelled && g_interrupted.load();
    // 128 + the signal, as a shell reports a program it stopped.
    const int interruptedExit = 128 + (g_signal.load() == SIGTERM ? SIGTERM : SIGINT);
    if (ws) {
        // Interrupted before anything feasible was found is stopped too, not failed: resumable.
        store::SearchStatus status = interrupted ? store::SearchStatus::Cancelled
                                     : !r.feasible ? store::SearchStatus::Failed
                                     : r.budgetReached ? store::SearchStatus::Finished
                                                       : store::SearchStatus::Cancelled;
        std::string message = interrupted ? interruptText() + " after " + std::to_string(r.progress.drawn) + " candidates"
                              : !r.feasible ? r.message
                              : r.budgetReached ? std::string()
                                                : "stopped by its time limit after " + std::to_string(r.progress.drawn) + " candidates";
        auto done = ws->finishSearchRun(runId, status, message);
        if (!sink->error().empty() || !done) {
            err << "workspace " << a.workspace << ": " << (sink->error().empty() ? done.errorText() : sink->error()) << "\n";
            return kExitBadInput;
        }
    }
    if (!r.feasible && interrupted) {
        err << interruptText() << " after " << r.progress.drawn << " candidates, none feasible yet"
            << (ws ? "; continue it with: loopscope-cli search --workspace " + a.workspace + " --resume " + std::to_string(runId) : std::string()) << "\n";
        return interruptedExit;
    }
    if (!r.feasible) {
        err << r.message << "\n";
        return kExitBadInput;
    }
    const search::SearchPoint& best = r.front[static_cast<size_t>(r.best)];
    search::Figures current = search::explainPoint(in->program, in->program.trace).current;

    // --measure-top N: the best points for the objective of N register blocks, the N - 1 best and
    // the best small unrolled body (on the front or not: SearchResult::distinct), measured on
    // qemu, ranked by the measurement.
    struct Measured {
        const search::SearchPoint* pt;
        int front;  ///< its row in the front, or -1
        codegen::Measurement m;
    };
    std::vector<Measured> measured;
    // The schedule given (a schedule file's steps, all of them) measured in the same batch: what
    // the search's points are to beat, by measurement.
    std::optional<codegen::Measurement> measuredCurrent;
    if (a.measureTop > 0 && interrupted)
        err << interruptText() << ": --measure-top " << a.measureTop << " skipped (it runs qemu for minutes)"
            << (a.measuredOut.empty() ? "" : ", nothing written to --measured-out") << "\n";
    if (a.measureTop > 0 && !interrupted) {
        std::vector<lower::LoopNest> nests;
        for (const auto& pt : r.distinct)
            nests.push_back(lower::lower(sched::replay(in->base.kernel, in->base.target, pt.trace).program()));
        const bool given = !in->program.trace.empty();
        if (given)
            nests.push_back(lower::lower(in->program));
        std::vector<const lower::LoopNest*> ptrs;
        for (const auto& n : nests)
            ptrs.push_back(&n);
        std::vector<codegen::Measurement> ms = codegen::measureBatchOnQemu(ptrs, in->base.target->name);
        if (given) {
            if (!ms.back().ok) {
                err << "--measure-top: the schedule given: " << ms.back().error << "\n";
                return kExitBadInput;
            }
            measuredCurrent = ms.back();
        }
        for (size_t i = 0; i < r.distinct.size(); ++i) {
            if (!ms[i].ok) {
                err << "--measure-top: " << ms[i].error << "\n";
                return kExitBadInput;
            }
            int row = -1;
            for (size_t f = 0; f < r.front.size(); ++f)
                if (r.front[f].index == r.distinct[i].index)
                    row = static_cast<int>(f);
            measured.push_back({&r.distinct[i], row, ms[i]});
        }
        std::stable_sort(measured.begin(), measured.end(),
                         [](const Measured& x, const Measured& y) { return x.m.kernelInstructions + x.m.copyInstructions < y.m.kernelInstructions + y.m.copyInstructions; });
    }

    std::ostringstream writeErrors;  // files not written (each failure says why): reported after the results
    // --measured-out DIR: every measured point as DIR/point-N.sched.yaml, its prediction and
    // measurement in the description (a set to re-predict after a model change). Nothing is
    // written if a file exists, unless --force.
    if (!a.measuredOut.empty()) {
        std::vector<const search::SearchPoint*> points;
        std::map<const search::SearchPoint*, const Measured*> of;
        for (const auto& m : measured) {
            points.push_back(m.pt);
            of[m.pt] = &m;
        }
        auto describe = [&](const search::SearchPoint& pt) {
            const Measured& m = *of.at(&pt);
            const long long insns = m.m.kernelInstructions + m.m.copyInstructions;
            return "found by loopscope-cli search (objective " + a.objective + ", seed " + std::to_string(a.seed) + "), candidate "
                + std::to_string(pt.index) + ": predicted " + std::to_string(pt.figures.instructions) + " instructions, measured "
                + std::to_string(insns) + " (kernel " + std::to_string(m.m.kernelInstructions) + ", copies "
                + std::to_string(m.m.copyInstructions) + ") on " + m.m.machine;
        };
        writePoints(*in, points, a.measuredOut, a.force, "--measured-out", describe, writeErrors);
    }

    // --front-out DIR: every point of the front as DIR/point-N.sched.yaml, its figures in the
    // description (what the JSON lists, as schedules to open, analyse or export).
    if (!a.frontOut.empty()) {
        std::vector<const search::SearchPoint*> points;
        for (const auto& p : r.front)
            points.push_back(&p);
        auto describe = [&](const search::SearchPoint& pt) {
            const search::Figures& f = pt.figures;
            std::string d = "found by loopscope-cli search (objective " + a.objective + ", seed " + std::to_string(a.seed) + "), candidate "
                + std::to_string(pt.index) + " of the front: " + std::to_string(f.cycles) + " cycles, " + std::to_string(f.onChipBytes)
                + " bytes on chip";
            if (f.instructions > 0)
                d += ", " + std::to_string(f.instructions) + " instructions predicted";
            return d;
        };
        writePoints(*in, points, a.frontOut, a.force, "--front-out", describe, writeErrors);
    }

    bool wroteOut = false;
    if (!a.out.empty()) {
        const search::SearchPoint& chosen = measured.empty() ? best : *measured.front().pt;
        std::string error = makeFolderFor(a.out);
        std::string desc = "found by loopscope-cli search (objective " + a.objective + ", seed " + std::to_string(a.seed) + ")";
        if (error.empty() && writeSchedule(*in, chosen.trace, a.out, desc, a.force, error))
            wroteOut = true;
        else
            writeErrors << "--out: " << error << "\n";
    }
    // A file that could not be written is reported after the results, which are printed all the
    // same (the search is not lost), and the exit status says it.
    auto finish = [&]() {
        if (writeErrors.str().empty())
            return interrupted ? interruptedExit : kExitOk;
        err << writeErrors.str();
        return kExitBadInput;
    };

    const auto& p = r.progress;
    if (a.json) {
        nlohmann::ordered_json j;
        j["kernel"] = in->base.kernel->name;
        j["target"] = in->base.target->name;
        j["objective"] = search::objectiveName(opt.objective);
        j["seed"] = opt.seed;
        if (ws)
            j["search_run"] = runId;
        j["pinned_steps"] = in->base.trace.size();
        if (!r.start.empty()) {
            j["start"] = r.start;
            j["started_from_schedule"] = r.startedFromSchedule;
            if (r.startUnrolledCopies > 0)
                j["start_unrolled_copies"] = r.startUnrolledCopies;
        }
        j["progress"] = {{"drawn", p.drawn}, {"evaluated", p.evaluated}, {"feasible", p.feasible}, {"repaired", p.repaired},
                         {"pruned", p.pruned}, {"duplicates", p.duplicates}, {"rejected", p.rejected}, {"seconds", p.seconds}, {"rate_per_second", p.rate},
                         {"best_found_seconds", p.bestSeconds}, {"best_found_drawn", p.bestDrawn},
                         {"timed_out", r.timedOut}, {"budget_reached", r.budgetReached}, {"interrupted", interrupted}};
        j["defects"] = r.defects;
        j["current"] = figuresJson(current);
        j["best"] = r.best;
        j["front"] = nlohmann::ordered_json::array();
        for (const auto& pt : r.front) {
            nlohmann::ordered_json steps = nlohmann::ordered_json::array();
            for (const auto& s : pt.trace)
                steps.push_back(stepText(s, *in->base.kernel));
            nlohmann::ordered_json e = figuresJson(pt.figures);
            e["index"] = pt.index;
            e["trace"] = steps;
            j["front"].push_back(e);
        }
        if (measuredCurrent) {
            const long long insns = measuredCurrent->kernelInstructions + measuredCurrent->copyInstructions;
            j["measured_current"] = {{"kernel_instructions", measuredCurrent->kernelInstructions},
                                     {"copy_instructions", measuredCurrent->copyInstructions},
                                     {"predicted_instructions", current.instructions},
                                     {"model_error", insns ? (static_cast<double>(current.instructions) - static_cast<double>(insns)) / static_cast<double>(insns) : 0.0}};
        }
        if (!measured.empty()) {
            j["measured"] = nlohmann::ordered_json::array();
            for (const auto& m : measured) {
                const auto& f = m.pt->figures;
                long long insns = m.m.kernelInstructions + m.m.copyInstructions;
                nlohmann::ordered_json steps = nlohmann::ordered_json::array();
                for (const auto& st : m.pt->trace)
                    steps.push_back(stepText(st, *in->base.kernel));
                j["measured"].push_back({{"point", m.front}, {"candidate", m.pt->index}, {"machine", m.m.machine},
                                         {"kernel_instructions", m.m.kernelInstructions}, {"copy_instructions", m.m.copyInstructions},
                                         {"model_cycles", f.cycles}, {"predicted_instructions", f.instructions},
                                         {"model_error", insns ? (static_cast<double>(f.instructions) - static_cast<double>(insns)) / static_cast<double>(insns) : 0.0},
                                         {"trace", steps}});
            }
        }
        out << jsonText(j) << "\n";
        return finish();
    }
    char line[256];
    out << "search " << in->base.kernel->name << " on " << in->base.target->name << ": objective " << search::objectiveName(opt.objective) << ", seed " << opt.seed;
    if (!in->base.trace.empty())
        out << ", " << in->base.trace.size() << " pinned steps";
    out << "\n";
    if (!r.start.empty())
        out << r.start
            << (r.startUnrolledCopies > 0 ? "; --max-unroll " + std::to_string(r.startUnrolledCopies) + " searches among bodies that large" : std::string())
            << "\n";
    // Every candidate drawn is one of: evaluated, pruned (could not be made to fit: never
    // lowered), a duplicate, rejected.
    std::snprintf(line, sizeof line,
                  "%lld candidates in %.2f s: %lld evaluated (%.0f/s), %lld repaired to fit, %lld pruned (cannot fit), %lld duplicates, %lld rejected%s\n",
                  static_cast<long long>(p.drawn), p.seconds, static_cast<long long>(p.evaluated), p.rate, static_cast<long long>(p.repaired),
                  static_cast<long long>(p.pruned), static_cast<long long>(p.duplicates), static_cast<long long>(p.rejected),
                  r.timedOut ? " (time limit)" : interrupted ? " (interrupted)" : "");
    out << line;
    if (p.best)
        out << "best for " << search::objectiveName(opt.objective) << " found after " << std::fixed << std::setprecision(2) << p.bestSeconds
            << std::defaultfloat << " s (" << p.bestDrawn << " candidates drawn)\n";
    for (const auto& d : r.defects)
        out << "  rejected (a defect of the search space, please report it): " << d << "\n";
    out << "\nPareto front over (cycles, on-chip bytes, energy" << (opt.objective == search::Objective::Dram || opt.objective == search::Objective::Instructions
                                                                       ? std::string(", ") + search::objectiveName(opt.objective) : std::string())
        << "): " << r.front.size() << " points\n";
    // The predicted instructions of the exported C, on a CPU target (an accelerator has none).
    const bool insnColumn = current.instructions > 0;
    auto insnText = [&](const search::Figures& f) {
        char b[32];
        std::snprintf(b, sizeof b, " %13lld", static_cast<long long>(f.instructions));
        return insnColumn ? std::string(b) : std::string();
    };
    std::snprintf(line, sizeof line, "%4s %14s%s %12s %12s %14s %6s\n", "#", "cycles", insnColumn ? "  instructions" : "", "on-chip", "energy uJ",
                  "DRAM bytes", "steps");
    out << line;
    for (size_t i = 0; i < r.front.size(); ++i) {
        const auto& f = r.front[i].figures;
        std::snprintf(line, sizeof line, "%3zu%s %14lld%s %12s %12.2f %14lld %6zu\n", i + 1, static_cast<int>(i) == r.best ? "*" : " ",
                      static_cast<long long>(f.cycles), insnText(f).c_str(), bytesText(f.onChipBytes).c_str(), f.energyUj,
                      static_cast<long long>(f.dramBytes), r.front[i].trace.size());
        out << line;
    }
    // What the `cur` row is: the schedule given, or the kernel as written (a kernel, or a schedule
    // without steps).
    const char* currentName = in->program.trace.empty() ? "(the kernel unscheduled)" : "(the schedule given)";
    std::snprintf(line, sizeof line, "%4s %14lld%s %12s %12.2f %14lld %6zu  %s\n", "cur", static_cast<long long>(current.cycles),
                  insnText(current).c_str(), bytesText(current.onChipBytes).c_str(), current.energyUj, static_cast<long long>(current.dramBytes),
                  in->program.trace.size(), currentName);
    out << line;
    if (!measured.empty()) {
        out << "\nMeasured on " << measured.front().m.machine << ": the best point of each of the " << measured.size()
            << " best register blocks, best first (#: its row in the front, - when it is not on it):\n";
        std::snprintf(line, sizeof line, "%4s %10s %14s %14s %14s %10s %14s\n", "#", "candidate", "instructions", "(copies)", "predicted", "model err",
                      "model cycles");
        out << line;
        for (const auto& m : measured) {
            const auto& f = m.pt->figures;
            long long insns = m.m.kernelInstructions + m.m.copyInstructions;
            std::snprintf(line, sizeof line, "%4s %10lld %14lld %14lld %14lld %+9.1f%% %14lld\n", m.front >= 0 ? std::to_string(m.front + 1).c_str() : "-",
                          static_cast<long long>(m.pt->index), insns, m.m.copyInstructions, static_cast<long long>(f.instructions),
                          insns ? 100.0 * (static_cast<double>(f.instructions) - insns) / insns : 0.0, static_cast<long long>(f.cycles));
            out << line;
        }
        if (measuredCurrent) {
            const long long insns = measuredCurrent->kernelInstructions + measuredCurrent->copyInstructions;
            std::snprintf(line, sizeof line, "%4s %10s %14lld %14lld %14lld %+9.1f%% %14lld  %s\n", "cur", "-", insns,
                          static_cast<long long>(measuredCurrent->copyInstructions), static_cast<long long>(current.instructions),
                          insns ? 100.0 * (static_cast<double>(current.instructions) - insns) / insns : 0.0, static_cast<long long>(current.cycles),
                          currentName);
            out << line;
            const long long bestInsns = measured.front().m.kernelInstructions + measured.front().m.copyInstructions;
            if (insns <= bestInsns)
                out << "None of the measured points runs fewer instructions than the schedule given (" << insns << " against " << bestInsns
                    << "): keep it, or search longer.\n";
        }
    }
    const search::SearchPoint& shown = measured.empty() ? best : *measured.front().pt;
    out << "\nBest for " << search::objectiveName(opt.objective) << (measured.empty() ? "" : " (by measurement)") << ", and what it changes:\n";
    search::PointExplanation ex = search::explainPoint(in->program, shown.trace);
    if (ex.commonSteps > 0)
        out << "  (keeps the first " << ex.commonSteps << " steps)\n";
    for (const auto& c : ex.changes)
        out << "  " << search::describeChange(c) << "\n";
    if (wroteOut)
        out << "\nwrote " << a.out << "\n";
    if (ws)
        out << "\nsearch run " << runId << " in " << a.workspace << ": " << r.front.size() << " points on the front"
            << (r.budgetReached ? "" : "; continue it with: loopscope-cli search --workspace " + a.workspace + " --resume " + std::to_string(runId)) << "\n";
    return finish();
}

Subcommand addSearchCommand(CLI::App& app, std::ostream& out, std::ostream& err)
{
    auto args = std::make_shared<SearchArgs>();
    SearchArgs& a = *args;
    auto* cmd = app.add_subcommand("search", "Search feasible schedules: the Pareto front over cycles, on-chip bytes and energy");
    cmd->add_option("FILE", a.file, "a *.kernel.yaml (needs --target) or a *.sched.yaml whose steps are kept (none with --resume)");
    cmd->add_option("--target", a.target, "target name or file (default: the schedule's)");
    cmd->add_option("--pin", a.pin, "keep only the first K steps of the schedule (default: all)")->check(cli::nonNegative());
    cmd->add_option("--objective", a.objective, "cycles, energy, sram, edp, dram (DRAM bytes) or instructions (predicted, CPU targets): which front point is best");
    cmd->add_option("--time", a.seconds, "time limit in seconds (default 10; 0: only the budget)")->check(cli::nonNegative());
    cmd->add_option("--budget", a.budget, "candidates at most (with a budget the result is the same for any --threads)")->check(cli::nonNegative());
    cmd->add_option("--threads", a.threads, "worker threads (default: every core)")->check(cli::nonNegative());
    cmd->add_option("--seed", a.seed, "seed of the search")->check(cli::nonNegative());
    cmd->add_option("--measure-top", a.measureTop, "measure the best points of N register blocks (the N - 1 best and the best small unrolled body) on qemu (cortex-m7/m4) and rank them by instructions")->check(cli::nonNegative());
    cmd->add_flag("--partial-tiles", a.partialTiles, "also split by factors that do not divide the extent");
    cmd->add_option("--max-unroll", a.maxUnroll, "most straight-line copies the unrolled loops of a stage may make in the candidates drawn (default 64; a schedule given that makes more still starts the search)")
        ->check(CLI::Range(int64_t(1), int64_t(4096)));
    cmd->add_flag("--json", a.json, "print JSON (the front with figures and traces)");
    cmd->add_option("--workspace", a.workspace, "stream the run into this workspace (created if missing): the run, its progress, its points as variants");
    cmd->add_option("--resume", a.resume, "continue search run N of --workspace (same space, seed and objective; --budget is the new total)");
    cmd->add_option("--out", a.out, "write the best schedule to FILE.sched.yaml");
    cmd->add_option("--measured-out", a.measuredOut,
                    "with --measure-top: write each measured point to DIR/point-N.sched.yaml, its prediction and measurement in the description");
    cmd->add_option("--front-out", a.frontOut, "write every point of the front to DIR/point-N.sched.yaml, its figures in the description");
    cmd->add_flag("--force", a.force, "replace --out (or --measured-out's or --front-out's files) if it exists");
    return {cmd, [args, &out, &err] { return runSearchCommand(*args, out, err); }};
}

} // namespace loopscope::cli
