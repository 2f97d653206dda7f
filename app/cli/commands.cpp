// Implementation of the loopscope-cli subcommands.
#include "commands.h"
#include "printable_stream.h"
#include "json_text.h"
#include "search_command.h"

#include "analysis/cost_report.h"
#include "analysis/report_json.h"
#include "codegen/c_codegen.h"
#include "codegen/export_writer.h"
#include "codegen/gemmini_codegen.h"
#include "codegen/measure.h"
#include "instruction_output.h"
#include "ir/kernel.h"
#include "lower/loop_nest.h"
#include "sched/schedule_file.h"
#include "target_loader.h"
#include "verify/budget.h"
#include "verify/interpreter.h"
#include "workspace_command.h"

#include <CLI/CLI.hpp>

#include "cli_checks.h"
#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <unistd.h>
#include <fstream>
#include <memory>
#include <ostream>

namespace loopscope::cli {

namespace {

bool endsWith(const std::string& s, const std::string& suffix)
{
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

/// Opens a schedule; its warnings (an absolute kernel or target path) go to `warnings`.
Result<sched::OpenedSchedule> open(const std::string& path, std::ostream* warnings)
{
    auto o = sched::openSchedule(path, [](const std::string& nameOrPath, const std::string& dir) {
        return hw::resolveTarget(nameOrPath, dir);
    });
    if (o && warnings)
        for (const Diagnostic& w : o->warnings)
            *warnings << w.str() << "\n";
    return o;
}

/// A kernel file opened on its own: the unscheduled program.
Result<sched::Program> openKernel(const std::string& path, const std::string& targetName)
{
    auto kernel = ir::loadKernelFile(path);
    if (!kernel)
        return kernel.errors();
    auto target = hw::resolveTarget(targetName.empty() ? "cortex-m7" : targetName, "");
    if (!target)
        return target.errors();
    return sched::Program::initial(std::make_shared<const ir::Kernel>(std::move(*kernel)),
                                   std::make_shared<const hw::Target>(std::move(*target)));
}

} // namespace

int runLower(const std::string& file, const std::string& target, std::ostream& out, std::ostream& err)
{
    sched::Program program;
    if (endsWith(file, ".kernel.yaml")) {
        auto p = openKernel(file, target);
        if (!p) {
            err << p.errorText() << "\n";
            return kExitBadInput;
        }
        program = std::move(*p);
    } else {
        auto o = open(file, &err);
        if (!o) {
            err << o.errorText() << "\n";
            return kExitBadInput;
        }
        program = std::move(o->program);
        if (!target.empty()) {
            auto t = hw::resolveTarget(target, "");
            if (!t) {
                err << t.errorText() << "\n";
                return kExitBadInput;
            }
            auto r = sched::replay(program.kernel, std::make_shared<const hw::Target>(std::move(*t)), program.trace);
            if (!r.ok()) {
                err << r.error().str() << "\n";
                return kExitBadInput;
            }
            program = std::move(r.program());
        }
    }
    out << lower::print(lower::lower(program));
    return kExitOk;
}

int runVerify(const std::string& schedule, uint64_t seed, std::ostream& out, std::ostream& err)
{
    sched::Program program;
    if (endsWith(schedule, ".kernel.yaml")) {
        auto p = openKernel(schedule, "");
        if (!p) {
            err << p.errorText() << "\n";
            return kExitBadInput;
        }
        program = std::move(*p);
    } else {
        auto o = open(schedule, &err);
        if (!o) {
            err << o.errorText() << "\n";
            return kExitBadInput;
        }
        program = std::move(o->program);
    }
    if (std::string why = verify::interpretationBudgetError(lower::lower(program)); !why.empty()) {
        err << schedule << ": " << why << "\n";
        return kExitBadInput;
    }
    verify::VerifyResult r = verify::verifyProgram(program, seed);
    out << r.message << "\n";
    return r.ok ? kExitOk : kExitMismatch;
}

int runCounts(const std::string& schedule, bool json, uint64_t seed, std::ostream& out, std::ostream& err)
{
    auto o = open(schedule, &err);
    if (!o) {
        err << o.errorText() << "\n";
        return kExitBadInput;
    }
    const lower::LoopNest nest = lower::lower(o->program);
    if (std::string why = verify::interpretationBudgetError(nest); !why.empty()) {
        err << schedule << ": " << why << "\n";
        return kExitBadInput;
    }
    verify::InterpretResult r = verify::interpret(nest, verify::makeInputs(*o->kernel, seed));
    if (!r.ok) {
        err << "interpreter error: " << r.error << "\n";
        return kExitMismatch;
    }
    if (json) {
        nlohmann::ordered_json j;
        j["levels"] = nlohmann::ordered_json::array();
        for (const auto& l : r.traffic.levels)
            j["levels"].push_back({{"name", l.name}, {"read_bytes", l.readBytes}, {"write_bytes", l.writeBytes}});
        j["tensors"] = nlohmann::ordered_json::array();
        for (const auto& t : r.traffic.tensors)
            j["tensors"].push_back({{"name", t.tensor}, {"level", t.level}, {"read_bytes", t.readBytes}, {"write_bytes", t.writeBytes}});
        out << jsonText(j) << "\n";
        return kExitOk;
    }
    out << "level        read bytes   write bytes\n";
    for (const auto& l : r.traffic.levels) {
        char line[128];
        std::snprintf(line, sizeof line, "%-10s %12lld  %12lld\n", l.name.c_str(), static_cast<long long>(l.readBytes), static_cast<long long>(l.writeBytes));
        out << line;
    }
    out << "\ntensor     level        read bytes   write bytes\n";
    for (const auto& t : r.traffic.tensors) {
        char line[160];
        std::snprintf(line, sizeof line, "%-10s %-10s %12lld  %12lld\n", t.tensor.c_str(), t.level.c_str(), static_cast<long long>(t.readBytes), static_cast<long long>(t.writeBytes));
        out << line;
    }
    return kExitOk;
}

Result<sched::Program> programFor(const std::string& file, const std::string& target, std::ostream* warnings)
{
    if (endsWith(file, ".kernel.yaml"))
        return openKernel(file, target);
    auto o = open(file, warnings);
    if (!o)
        return o.errors();
    if (target.empty())
        return std::move(o->program);
    auto t = hw::resolveTarget(target, "");
    if (!t)
        return t.errors();
    auto r = sched::replay(o->program.kernel, std::make_shared<const hw::Target>(std::move(*t)), o->program.trace);
    if (!r.ok())
    {
        sched::ScheduleError e = r.error();
        SourceLoc loc = e.loc;
        e.loc = SourceLoc{};  // str() would repeat the position the diagnostic prints
        return Diagnostic{Severity::Error, loc, e.str() + " (on target " + target + ")"};
    }
    return std::move(r.program());
}

std::string humanBytes(int64_t b)
{
    const char* units[] = {"B", "KiB", "MiB", "GiB"};
    double v = static_cast<double>(b);
    int u = 0;
    while (u < 3 && v >= 1024) {
        v /= 1024;
        ++u;
    }
    char buf[32];
    if (v == static_cast<int64_t>(v))
        std::snprintf(buf, sizeof buf, "%lld %s", static_cast<long long>(v), units[u]);
    else
        std::snprintf(buf, sizeof buf, "%.1f %s", v, units[u]);
    return buf;
}

int runAnalyze(const std::string& schedule, const std::string& target, bool json, std::ostream& out, std::ostream& err, bool measure, bool loops)
{
    auto p = programFor(schedule, target, &err);
    if (!p) {
        err << p.errorText() << "\n";
        return kExitBadInput;
    }
    lower::LoopNest nest = lower::lower(*p);
    analysis::CostReport r = analysis::analyze(nest, *p->target);
    codegen::Measurement measured;
    if (measure) {
        measured = codegen::measureOnQemu(nest, p->target->name);
        if (!measured.ok) {
            err << measured.error << "\n";
            return kExitBadInput;
        }
    }
    if (json) {
        nlohmann::ordered_json j = nlohmann::ordered_json::parse(analysis::reportJson(r));
        if (measure) {
            j["measured"] = {{"machine", measured.machine}, {"kernel_instructions", measured.kernelInstructions},
                             {"copy_instructions", measured.copyInstructions},
                             {"library_instructions", measured.libraryInstructions},
                             {"instructions_per_mac", r.macs ? static_cast<double>(measured.kernelInstructions) / r.macs : 0.0},
                             {"instructions_per_mac_with_copies",
                              r.macs ? static_cast<double>(measured.kernelInstructions + measured.copyInstructions) / r.macs : 0.0},
                             {"estimated_compute_cycles", r.cycles.compute}};
            addPredictionError(r, measured, j["measured"]);
        }
        if (loops && r.instructions.available)
            j["loops"] = loopsJson(analysis::loopDecisions(nest, *p->target));
        out << jsonText(j) << "\n";
        return kExitOk;
    }
    char line[256];
    out << r.kernel << " on " << r.target << ": " << r.macs << " MACs\n\n";
    std::snprintf(line, sizeof line, "cycles   %14lld  (compute %lld, transfer %lld, %.0f%% of transfer hidden)\n", static_cast<long long>(r.cycles.total),
                  static_cast<long long>(r.cycles.compute), static_cast<long long>(r.cycles.transfer), r.cycles.overlapRatio * 100);
    out << line;
    if (r.cycles.fromInstructions) {
        const analysis::IssueCycles& c = r.cycles.issue;
        std::snprintf(line, sizeof line,
                      "         compute estimated from the predicted kernel instructions: issue %.0f + taken branches %.0f + loop exits %.0f + load-use %.0f\n",
                      c.issue, c.taken, c.exits, c.loadUse);
        out << line;
    }
    std::snprintf(line, sizeof line, "bound    %14lld  compute cycles at peak (estimate is %.1fx the bound)\n", static_cast<long long>(r.bounds.computeCycles),
                  r.bounds.computeCycles > 0 ? static_cast<double>(r.cycles.total) / r.bounds.computeCycles : 0.0);
    out << line;
    std::snprintf(line, sizeof line, "latency  %14.3f  ms\nenergy   %14.3f  uJ\n", r.latencyMs, r.energyUj);
    out << line << instructionsText(r);
    if (loops && r.instructions.available)
        out << loopsText(analysis::loopDecisions(nest, *p->target));
    out << "\n";
    out << "level        capacity        used   used%     read bytes    write bytes\n";
    for (const auto& l : r.levels) {
        std::snprintf(line, sizeof line, "%-10s %10s  %10s  %5.1f%%  %13lld  %13lld\n", l.name.c_str(), humanBytes(l.capacityBytes).c_str(), humanBytes(l.usedBytes).c_str(),
                      l.capacityBytes ? 100.0 * l.usedBytes / l.capacityBytes : 0.0, static_cast<long long>(l.readBytes), static_cast<long long>(l.writeBytes));
        out << line;
    }
    int64_t homeBytes = r.levels.empty() ? 0 : r.levels[0].readBytes + r.levels[0].writeBytes;
    std::snprintf(line, sizeof line, "\n%s traffic %lld bytes; compulsory %lld bytes (%.1fx)", r.levels.empty() ? "" : r.levels[0].name.c_str(),
                  static_cast<long long>(homeBytes), static_cast<long long>(r.bounds.compulsoryBytes),
                  r.bounds.compulsoryBytes ? static_cast<double>(homeBytes) / r.bounds.compulsoryBytes : 0.0);
    out << line;
    if (r.bounds.ioLowerBoundBytes)
        out << "; I/O lower bound " << *r.bounds.ioLowerBoundBytes << " bytes"
            << (*r.bounds.ioLowerBoundBytes <= 0 ? " (fits on chip: no bound beyond the compulsory traffic)" : "");
    out << "\n\ntensor     level        read bytes   write bytes\n";
    for (const auto& t : r.tensors) {
        std::snprintf(line, sizeof line, "%-10s %-10s %12lld  %12lld\n", t.name.c_str(), t.level.c_str(), static_cast<long long>(t.readBytes), static_cast<long long>(t.writeBytes));
        out << line;
    }
    if (r.array)
        out << "\n" << analysis::arrayReportText(*r.array);
    if (measure)
        out << measuredText(r, measured);
    if (!r.diagnostics.empty()) {
        out << "\n";
        for (const auto& d : r.diagnostics)
            out << analysis::severityName(d.severity) << " [" << d.code << "]" << (d.step ? " step " + std::to_string(*d.step + 1) : std::string()) << ": " << d.message << "\n";
    }
    return kExitOk;
}

int runExport(const std::string& schedule, const std::string& outDir, bool harness, uint64_t seed, std::ostream& out, std::ostream& err, bool force,
              bool gemminiAccScale)
{
    auto p = programFor(schedule, "", &err);
    if (!p) {
        err << p.errorText() << "\n";
        return kExitBadInput;
    }
    lower::LoopNest nest = lower::lower(*p);
    analysis::CostReport report = analysis::analyze(nest, *p->target);
    codegen::ExportOptions options;
    options.harness = harness;
    options.seed = seed;
    options.gemminiAccScale = gemminiAccScale;
    // What the exporter cannot write at all (C past its size limit, an accelerator nest it has no
    // instructions for) is refused first, with its own reason: --force does not change it.
    if (std::string why = codegen::exportError(nest, options); !why.empty()) {
        err << "error: " << why << "; nothing was written\n";
        return kExitBadInput;
    }
    // A schedule with errors (it does not fit the target) exports only when asked to.
    int errors = 0;
    for (const auto& d : report.diagnostics)
        if (d.severity == Severity::Error) {
            err << (force ? "warning" : "error") << " [" << d.code << "]" << (d.step ? " step " + std::to_string(*d.step + 1) : std::string())
                << ": " << d.message << "\n";
            ++errors;
        }
    if (errors > 0 && !force) {
        err << schedule << ": not exported: the schedule has " << errors << (errors == 1 ? " error" : " errors")
            << " (above), so the code would not run as the target is described; nothing was written. Use --force to export anyway\n";
        return kExitBadInput;
    }
    codegen::ExportWriteResult w = codegen::writeExport(outDir, codegen::exportFiles(nest, options), force);
    if (!w.ok) {
        err << (w.conflicts.empty() ? w.error : codegen::conflictMessage(outDir, w.conflicts, "Use --force to replace")) << "\n";
        return kExitBadInput;
    }
    for (const auto& path : w.written)
        out << path.string() << "\n";
    return kExitOk;
}

int runTargets(std::ostream& out, std::ostream& err)
{
    int rc = kExitOk;
    for (const auto& name : hw::builtinTargetNames()) {
        auto t = hw::loadBuiltinTarget(name);
        if (!t) {
            err << t.errorText() << "\n";
            rc = kExitBadInput;
            continue;
        }
        out << name << "  " << t->clockMhz << " MHz";
        for (const auto& l : t->levels)
            out << "  " << l.name << " " << humanBytes(l.sizeBytes);
        if (!t->description.empty())
            out << "  - " << t->description;
        out << "\n";
    }
    return rc;
}

namespace {

int runCommands(int argc, char** argv, std::ostream& out, std::ostream& err)
{
    CLI::App app{"loopscope-cli: lower, verify and measure hand-written schedules of tensor kernels"};
    app.require_subcommand(1);
    app.set_help_all_flag("--help-all", "Show help for every subcommand");

    std::string file, target;
    uint64_t seed = 1;
    bool json = false;

    auto* lowerCmd = app.add_subcommand("lower", "Print the lowered loop nest of a schedule (or of a kernel, unscheduled)");
    lowerCmd->add_option("FILE", file, "a *.sched.yaml or *.kernel.yaml file")->required();
    lowerCmd->add_option("--target", target, "target name or file (default: the schedule's, or cortex-m7 for a kernel)");

    auto* verifyCmd = app.add_subcommand("verify", "Run the schedule in the interpreter and compare with the unscheduled kernel");
    verifyCmd->add_option("SCHEDULE", file, "a *.sched.yaml (or *.kernel.yaml) file")->required();
    verifyCmd->add_option("--seed", seed, "seed of the pseudo-random inputs")->check(cli::nonNegative());

    auto* countsCmd = app.add_subcommand("counts", "Bytes read and written per memory level and tensor, counted by the interpreter");
    countsCmd->add_option("SCHEDULE", file, "a *.sched.yaml file")->required();
    countsCmd->add_flag("--json", json, "print JSON");
    countsCmd->add_option("--seed", seed, "seed of the pseudo-random inputs")->check(cli::nonNegative());

    auto* analyzeCmd = app.add_subcommand("analyze", "Occupancy, traffic, cycles, energy and bounds of a schedule (the analytical cost model)");
    analyzeCmd->add_option("SCHEDULE", file, "a *.sched.yaml (or *.kernel.yaml) file")->required();
    analyzeCmd->add_option("--target", target, "analyse on another target (name or file) with the same memory level names");
    analyzeCmd->add_flag("--json", json, "print JSON");
    bool measure = false;
    analyzeCmd->add_flag("--measure", measure, "also export the kernel, run it on qemu (cortex-m7/m4 targets) and count its instructions");
    bool loops = false;
    analyzeCmd->add_flag("--loops", loops,
                         "also list every loop with how the instruction model expects GCC -O2 to compile it (kept, unrolled, memset), "
                         "the instructions predicted inside it and the registers its values take (Cortex-M targets)");

    std::string outDir;
    bool harness = false;
    auto* exportCmd = app.add_subcommand("export", "Write the scheduled kernel as C99 (<kernel>.h, <kernel>.c) for a firmware project");
    exportCmd->add_option("SCHEDULE", file, "a *.sched.yaml (or *.kernel.yaml) file")->required();
    exportCmd->add_option("--out", outDir, "output directory (created if missing)")->required();
    exportCmd->add_flag("--harness", harness, "also main.c (self-check against a naive reference) and build files for the host and Cortex-M7/M4 on qemu");
    exportCmd->add_option("--seed", seed, "seed of the harness's input data")->check(cli::nonNegative());
    bool force = false;
    exportCmd->add_flag("--force", force, "export even if the schedule has errors (e.g. does not fit the target), and replace files in the way even if an earlier export did not write them, or they were edited since");
    bool accScale = false;
    exportCmd->add_flag("--gemmini-acc-scale", accScale,
                        "tensorized schedules: requantize with Gemmini's acc_scale on mvout (per-tensor, not TFLite-exact) instead of on the host");

    auto* targetsCmd = app.add_subcommand("targets", "List the built-in targets");
    // Subcommands in files of their own (tiles_command.cpp, ...), one line each.
    const std::vector<Subcommand> more = {addTilesCommand(app, out, err), addSearchCommand(app, out, err), addCalibrateCommand(app, out, err)};
    WorkspaceCommand workspaceCmd(app, out, err);

    if (argc > 1 && argv[1][0] != '-') {
        bool known = false;
        std::string names;
        for (const auto* sub : app.get_subcommands({})) {
            known = known || sub->get_name() == argv[1];
            names += (names.empty() ? "" : ", ") + sub->get_name();
        }
        if (!known) {
            err << "unknown subcommand '" << argv[1] << "' (known: " << names << ")\nrun 'loopscope-cli --help' for usage\n";
            return kExitBadInput;
        }
    }
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        out << app.help();
        return kExitOk;
    } catch (const CLI::CallForAllHelp& e) {
        out << app.help("", CLI::AppFormatMode::All);
        return kExitOk;
    } catch (const CLI::ParseError& e) {
        // Subcommand help (--help after a subcommand) arrives as CallForHelp too; other
        // parse errors are bad input.
        err << e.what() << "\n";
        if (auto* sub = app.get_subcommands().empty() ? nullptr : app.get_subcommands().front())
            err << "run 'loopscope-cli " << sub->get_name() << " --help' for usage\n";
        else
            err << "run 'loopscope-cli --help' for usage\n";
        return kExitBadInput;
    }
    return runGuarded(err, [&] {
        if (lowerCmd->parsed())
            return runLower(file, target, out, err);
        if (verifyCmd->parsed())
            return runVerify(file, seed, out, err);
        if (countsCmd->parsed())
            return runCounts(file, json, seed, out, err);
        if (analyzeCmd->parsed())
            return runAnalyze(file, target, json, out, err, measure, loops);
        if (exportCmd->parsed())
            return runExport(file, outDir, harness, seed, out, err, force, accScale);
        if (targetsCmd->parsed())
            return runTargets(out, err);
        for (const Subcommand& c : more)
            if (c.command->parsed())
                return c.run();
        if (workspaceCmd.parsed())
            return workspaceCmd.run();
        return kExitBadInput;
    });
}

} // namespace

int runGuarded(std::ostream& err, const std::function<int()>& command)
{
    // What was written before the exception is listed above it; export and save write each file
    // atomically, so no file is left half written.
    try {
        return command();
    } catch (const std::bad_alloc&) {
        err << "error: out of memory; the input is too large for this machine (see the limits in docs/schedules.md)\n";
    } catch (const std::exception& e) {
        err << "error: internal error: " << e.what() << " (a bug in loopscope-cli: please report it with the input)\n";
    } catch (...) {
        err << "error: internal error: an unknown exception (a bug in loopscope-cli: please report it with the input)\n";
    }
    return kExitBadInput;
}

int runCli(int argc, char** argv, std::ostream& out, std::ostream& err)
{
    PrintableStreambuf outText(out), errText(err);
    std::ostream printableOut(&outText), printableErr(&errText);
    // As std::cerr: each message at once, after what stdout holds so far (2>&1 keeps the order).
    printableErr.setf(std::ios::unitbuf);
    printableErr.tie(&printableOut);
    return runCommands(argc, argv, printableOut, printableErr);
}

} // namespace loopscope::cli
