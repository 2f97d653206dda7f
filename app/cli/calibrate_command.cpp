// `loopscope-cli calibrate TARGET`: measures the example schedules and random hand-style schedules
// on qemu, fits the instruction model's coefficients for the target (analysis/calibration.h) and
// can write them into the target file's `calibration:` section; with --check it only reports how
// well the target's current coefficients predict the measured instructions.
#include "commands.h"

#include "common/atomic_file.h"

#include "analysis/calibration.h"
#include "analysis/cost_report.h"
#include "codegen/c_codegen.h"
#include "codegen/measure.h"
#include "codegen/measure_batch.h"
#include "lower/loop_nest.h"
#include "sched/random_tiling.h"
#include "sched/schedule_file.h"
#include "target_loader.h"

#include <CLI/CLI.hpp>

#include "cli_checks.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

namespace loopscope::cli {

namespace {

namespace fs = std::filesystem;

struct Options {
    std::string target;
    int schedules = 150;
    uint64_t seed = 0;
    std::string examples;
    std::string write;
    bool check = false;
    int jobs = 2;
    std::string keep;
};

/// The examples folder: as given, else ./examples, else the source tree's.
std::string examplesDir(const std::string& given)
{
    if (!given.empty())
        return given;
    if (fs::is_directory("examples/kernels"))
        return "examples";
#ifdef LOOPSCOPE_SOURCE_DIR
    if (fs::is_directory(std::string(LOOPSCOPE_SOURCE_DIR) + "/examples/kernels"))
        return std::string(LOOPSCOPE_SOURCE_DIR) + "/examples";
#endif
    return "examples";
}

/// Writes a random schedule kept with --keep as a schedule file (analyze --measure reproduces it).
void keepSchedule(const std::string& path, const std::string& name, const sched::RandomTilingSource& source, const std::string& target,
                  const std::vector<sched::Step>& trace, std::ostream& err)
{
    sched::ScheduleFile f;
    f.path = path;
    std::error_code ec;
    f.kernel = fs::weakly_canonical(fs::absolute(source.kernelFile), ec).generic_string();
    if (ec || f.kernel.empty())
        f.kernel = fs::absolute(source.kernelFile).generic_string();
    f.target = fs::is_regular_file(target, ec) ? fs::absolute(target).generic_string() : target;
    f.description = name + " (loopscope-cli calibrate)";
    f.params = source.params;
    f.steps = trace;
    std::string error;
    if (!sched::saveScheduleFile(f, path, error))
        err << "calibrate: " << error << "\n";
}

/// The first line of a message.
std::string firstLine(const std::string& text) { return text.substr(0, text.find('\n')); }

/// The first line a tool prints for --version ("" when it does not run).
std::string toolVersion(const std::string& tool)
{
    std::string out;
    if (codegen::detail::runCaptured(tool + " --version 2>/dev/null", out) != 0)
        return "";
    return out.substr(0, out.find('\n'));
}

struct Case {
    std::string name;
    lower::LoopNest nest;
    analysis::InsnFeatures features;
    bool example = false;
};

/// Why a schedule is not worth measuring ("" when it is): it must fit the target and compute
/// something; a random one's C must also stay a reasonable size (a few random draws unroll into
/// megabytes), while every example is measured whatever its size (conv2d_int8_dsp's C is 357 KB).
std::string unusable(const lower::LoopNest& nest, const analysis::CostReport& r, bool example)
{
    if (r.hasErrors())
        return "its analysis has an error diagnostic";
    if (r.macs == 0)
        return "it computes no MACs";
    if (!example && codegen::generateSource(nest).size() >= 300000)
        return "its C is over 300,000 characters";
    return "";
}

std::string percent(double v)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f%%", 100 * v);
    return buf;
}

/// Replaces (or appends) the top-level `calibration:` block of a target file's text, with the
/// comment lines calibrate writes above it.
std::string withCalibration(const std::string& text, const std::string& block)
{
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
        lines.push_back(line);
    size_t at = lines.size(), end = lines.size();
    for (size_t i = 0; i < lines.size(); ++i)
        if (lines[i].rfind("calibration:", 0) == 0) {
            at = i;
            end = i + 1;
            while (end < lines.size() && (lines[end].empty() || lines[end][0] == ' '))
                ++end;
            while (at > 0 && (lines[at - 1].rfind("# Instruction model coefficients", 0) == 0 || lines[at - 1].rfind("#   loopscope-cli calibrate", 0) == 0))
                --at;
            break;
        }
    std::string out;
    for (size_t i = 0; i < at; ++i)
        out += lines[i] + "\n";
    if (at == lines.size() && !out.empty() && out.substr(out.size() - 2) != "\n\n")
        out += "\n";
    out += block;
    if (end < lines.size())
        out += "\n";
    for (size_t i = end; i < lines.size(); ++i)
        out += lines[i] + "\n";
    return out;
}

int runCalibrate(const Options& o, std::ostream& out, std::ostream& err)
{
    auto t = hw::resolveTarget(o.target, "");
    if (!t) {
        err << t.errorText() << "\n";
        return kExitBadInput;
    }
    auto target = std::make_shared<const hw::Target>(*t);
    codegen::Measurement probe;
    if (codegen::detail::qemuCore(target->name, probe).empty()) {
        err << "calibrate: " << probe.error << "\n";
        return kExitBadInput;
    }
    const std::string examples = examplesDir(o.examples);
    std::vector<Case> cases;
    std::vector<std::string> leftOut;  // examples not measured, with why
    auto add = [&](const std::string& name, const sched::Program& p, bool example) {
        lower::LoopNest nest = lower::lower(p);
        const analysis::CostReport r = analysis::analyze(nest, *target);
        if (const std::string why = unusable(nest, r, example); !why.empty()) {
            if (example)
                leftOut.push_back(name + ": " + why);
            return false;
        }
        cases.push_back({name, std::move(nest), r.instructions.features, example});
        return true;
    };
    std::vector<fs::path> files;
    int otherKind = 0;  // examples written for an accelerator target
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(examples + "/schedules", ec))
        if (e.path().string().ends_with(".sched.yaml"))
            files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
        auto opened = sched::openSchedule(f.string(), [](const std::string& n, const std::string& d) { return hw::resolveTarget(n, d); });
        if (!opened) {
            leftOut.push_back(f.filename().string() + ": " + firstLine(opened.errorText()));
            continue;
        }
        if (opened->program.target && opened->program.target->kind == "accelerator") {
            ++otherKind;  // written for an accelerator: not a Cortex-M schedule
            continue;
        }
        auto replayed = sched::replay(opened->program.kernel, target, opened->program.trace);
        if (replayed.ok())
            add(f.filename().string(), replayed.program(), true);
        else
            leftOut.push_back(f.filename().string() + ": on " + target->name + ", " + replayed.error().str());
    }
    for (const std::string& why : leftOut)
        err << "calibrate: left out example " << why << "\n";
    const size_t exampleCount = cases.size();
    int drawn = 0;
    std::error_code keepError;
    if (!o.keep.empty())
        fs::create_directories(o.keep, keepError);
    for (uint64_t n = o.seed; drawn < o.schedules && n < o.seed + static_cast<uint64_t>(o.schedules) * 4; ++n) {
        sched::RandomTilingSource source;
        std::optional<sched::Program> p = sched::randomTiling(n, examples + "/kernels", target, &source);
        if (p && add("random #" + std::to_string(n), *p, false)) {
            if (!o.keep.empty())
                keepSchedule(o.keep + "/lsk" + std::to_string(cases.size() - 1) + ".sched.yaml", "random #" + std::to_string(n), source, o.target, p->trace, err);
            ++drawn;
        }
    }
    if (cases.empty()) {
        err << "calibrate: no schedules to measure (examples in " << examples << "?)\n";
        return kExitBadInput;
    }
    out << "measuring " << exampleCount << " example and " << drawn << " random schedules on " << probe.machine
        << (otherKind > 0 ? " (" + std::to_string(otherKind) + " examples for an accelerator left out)" : std::string()) << "...\n" << std::flush;
    std::vector<const lower::LoopNest*> nests;
    for (const Case& c : cases)
        nests.push_back(&c.nest);
    codegen::BatchOptions batch;
    batch.jobs = o.jobs;
    if (!o.keep.empty()) {
        batch.keepDirectory = o.keep;
        batch.profile = true;
    }
    const std::vector<codegen::Measurement> measured = codegen::measureBatchOnQemu(nests, target->name, batch);
    std::vector<analysis::CalibrationSample> samples;
    for (size_t i = 0; i < cases.size(); ++i) {
        if (!measured[i].ok) {
            err << "calibrate: " << cases[i].name << ": " << measured[i].error.substr(0, 2000) << "\n";
            return kExitBadInput;
        }
        samples.push_back({cases[i].name, cases[i].features, measured[i].kernelInstructions, measured[i].copyInstructions});
    }
    if (!o.keep.empty()) {
        std::ofstream list(o.keep + "/schedules.txt", std::ios::trunc);
        for (size_t i = 0; i < cases.size(); ++i)
            list << "lsk" << i << " " << cases[i].name << " predicted " << analysis::predictInstructions(cases[i].features, *target).predicted << " measured "
                 << measured[i].kernelInstructions + measured[i].copyInstructions << "\n";
        out << "kept the build in " << o.keep << " (schedules.txt: which kernel is which; lskN.sched.yaml: the random schedules)\n";
    }
    auto report = [&](const char* what, const analysis::PredictionStats& s) {
        out << what << ": median error " << percent(s.median) << ", 95th percentile " << percent(s.p95) << ", worst " << percent(s.worst)
            << ", Spearman " << s.spearman << " (" << s.count << " schedules)\n";
    };
    if (o.check) {
        std::vector<double> predicted, actual;
        for (const auto& s : samples) {
            predicted.push_back(static_cast<double>(analysis::predictInstructions(s.features, *target).predicted));
            actual.push_back(static_cast<double>(s.kernel + s.copies));
        }
        report("prediction (kernel + copies)", analysis::predictionStats(predicted, actual));
        std::vector<double> ep(predicted.begin(), predicted.begin() + static_cast<std::ptrdiff_t>(exampleCount));
        std::vector<double> ea(actual.begin(), actual.begin() + static_cast<std::ptrdiff_t>(exampleCount));
        report("  examples", analysis::predictionStats(ep, ea));
        std::vector<double> rp(predicted.begin() + static_cast<std::ptrdiff_t>(exampleCount), predicted.end());
        std::vector<double> ra(actual.begin() + static_cast<std::ptrdiff_t>(exampleCount), actual.end());
        report("  random", analysis::predictionStats(rp, ra));
        for (size_t i = 0; i < samples.size(); ++i)
            if (actual[i] > 0 && std::fabs(predicted[i] - actual[i]) / actual[i] > 0.10)
                out << "  " << samples[i].name << ": predicted " << static_cast<long long>(predicted[i]) << ", measured " << static_cast<long long>(actual[i]) << " ("
                    << percent((predicted[i] - actual[i]) / actual[i]) << ")\n";
        return kExitOk;
    }
    const analysis::CalibrationFit fit = analysis::fitInstructionCoefficients(samples, *target);
    report("before", fit.before);
    report("after", fit.after);
    const std::string gcc = toolVersion("arm-none-eabi-gcc");
    const std::string qemu = toolVersion("qemu-system-arm");
    char date[16];
    const std::time_t now = std::time(nullptr);
    std::strftime(date, sizeof date, "%Y-%m-%d", std::gmtime(&now));
    std::ostringstream block;
    block << "calibration:\n"
          << "  compiler: \"" << gcc << ", -O2 -mcpu=" << (target->name == "cortex-m4" ? "cortex-m4" : "cortex-m7") << " (the export harness)\"\n"
          << "  emulator: \"" << qemu << ", " << probe.machine << "\"\n"
          << "  date: " << date << "\n"
          << "  schedules: " << samples.size() << "\n"
          << "  coefficients:\n";
    for (int i = 0; i < analysis::kInsnFeatureCount; ++i) {
        const auto f = static_cast<analysis::InsnFeature>(i);
        if (analysis::insnFeatureIsCopy(f))
            continue;
        char value[32];
        std::snprintf(value, sizeof value, "%.3f", fit.coefficients.at(analysis::insnFeatureName(f)));
        block << "    " << analysis::insnFeatureName(f) << ": " << value << "\n";
    }
    const std::string comment = "# Instruction model coefficients (docs/cost-model.md): fitted on qemu by\n#   loopscope-cli calibrate " + o.target
        + " --schedules " + std::to_string(o.schedules) + " --seed " + std::to_string(o.seed) + "\n";
    if (o.write.empty()) {
        out << "\n" << comment << block.str();
        return kExitOk;
    }
    std::string original, why;
    if (!readTextFile(o.write, original, why)) {
        err << "calibrate: " << why << "\n";
        return kExitBadInput;
    }
    const std::string updated = withCalibration(original, comment + block.str());
    // The file must still load (and describe the same target).
    auto check = hw::parseTarget(updated, o.write);
    if (!check) {
        err << "calibrate: the updated file would not load:\n" << check.errorText() << "\n";
        return kExitBadInput;
    }
    // Atomic, keeping the file's permissions, through a link to the file it points to.
    if (!writeFileAtomically(o.write, updated, why, LinkPolicy::FollowLink)) {
        err << "calibrate: " << why << "\n";
        return kExitBadInput;
    }
    out << "wrote the calibration section of " << o.write << "\n";
    return kExitOk;
}

} // namespace

Subcommand addCalibrateCommand(CLI::App& app, std::ostream& out, std::ostream& err)
{
    auto o = std::make_shared<Options>();
    CLI::App* cmd = app.add_subcommand("calibrate", "Measure example and random schedules on qemu and fit the instruction model's coefficients "
                                                    "for a Cortex-M target (cortex-m7, cortex-m4)");
    cmd->add_option("TARGET", o->target, "a built-in target name or a target file")->required();
    cmd->add_option("--schedules", o->schedules, "random schedules besides the examples (default 150)");
    cmd->add_option("--seed", o->seed, "number of the first random schedule (default 0)")->check(cli::nonNegative());
    cmd->add_option("--examples", o->examples, "the examples folder (kernels/, schedules/); default ./examples");
    cmd->add_option("--write", o->write, "target file to write the calibration section into (the target's own file, e.g. hwdesc/targets/cortex-m7.yaml)");
    cmd->add_flag("--check", o->check, "fit nothing: report how well the target's coefficients predict the measured instructions");
    cmd->add_option("--jobs", o->jobs, "parallel compiler processes (default 2)");
    cmd->add_option("--keep", o->keep, "build in this folder and keep the kernels' C, the images and a profile of how often each instruction ran "
                                       "(where a prediction goes wrong)");
    return {cmd, [o, &out, &err] { return runCalibrate(*o, out, err); }};
}

} // namespace loopscope::cli
