// The pipeline and properties the fuzz targets check (see fuzz_support.h).
#include "fuzz_support.h"

#include "analysis/report_json.h"
#include "codegen/c_codegen.h"
#include "lower/loop_nest.h"
#include "verify/budget.h"
#include "verify/interpreter.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <unistd.h>

namespace loopscope::fuzz {

std::string sourceDir() { return LOOPSCOPE_SOURCE_DIR; }

void finding(const std::string& what)
{
    std::fprintf(stderr, "FUZZ FINDING: %s\n", what.c_str());
    std::fflush(stderr);
    std::abort();
}

void checkDiagnostics(const std::vector<Diagnostic>& errors, const std::string& file)
{
    if (errors.empty())
        finding(file + ": refused without a diagnostic");
    for (const Diagnostic& d : errors)
        if (d.severity == Severity::Error && !d.loc.known())
            finding(file + ": an error without line and column: " + d.str());
}

void checkReport(const analysis::CostReport& r)
{
    auto count = [&](int64_t v, const std::string& what) {
        if (v < 0)
            finding("negative " + what + ": " + std::to_string(v));
    };
    auto amount = [&](double v, const std::string& what) {
        if (std::isnan(v) || v < 0)
            finding("negative or NaN " + what + ": " + std::to_string(v));
    };
    count(r.macs, "MACs");
    count(r.cycles.total, "cycles");
    count(r.cycles.compute, "compute cycles");
    count(r.cycles.transfer, "transfer cycles");
    amount(r.cycles.overlapRatio, "overlap ratio");
    amount(r.latencyMs, "latency");
    amount(r.energyUj, "energy");
    for (const auto& l : r.levels) {
        count(l.capacityBytes, l.name + " capacity");
        count(l.usedBytes, l.name + " used bytes");
        count(l.readBytes, l.name + " read bytes");
        count(l.writeBytes, l.name + " written bytes");
    }
    for (const auto& t : r.tensors) {
        count(t.readBytes, t.name + " read bytes");
        count(t.writeBytes, t.name + " written bytes");
    }
    for (const auto& t : r.transfers) {
        count(t.bytes, t.tensor + " transfer bytes");
        count(t.copies, t.tensor + " transfer copies");
    }
    count(r.bounds.computeCycles, "compute bound");
    count(r.bounds.compulsoryBytes, "compulsory bytes");
    if (r.bounds.ioLowerBoundBytes)
        count(*r.bounds.ioLowerBoundBytes, "I/O lower bound");
}

void runPipeline(const sched::Program& program, bool verify)
{
    const lower::LoopNest nest = lower::lower(program);
    (void)lower::print(nest);
    const analysis::CostReport report = analysis::analyze(nest, *program.target);
    checkReport(report);
    (void)analysis::reportJson(report);
    codegen::ExportOptions options;
    options.harness = true;
    // As the CLI: what cannot be exported (too large, a Gemmini nest the generator refuses, a
    // name the harness cannot take) is refused before any file is generated.
    if (codegen::exportError(nest, options).empty())
        (void)codegen::exportFiles(nest, options);
    if (!verify || verify::interpretedSteps(nest) > kFuzzVerifySteps || verify::interpretedValues(nest) > kFuzzVerifySteps)
        return;
    const verify::VerifyResult v = verify::verifyProgram(program, 1);
    if (!v.ok)
        finding("verify: " + v.message);
}

namespace {

/// The scratch folder, removed when the process exits normally.
struct Scratch {
    std::string dir;
    Scratch()
    {
        const char* tmp = std::getenv("TMPDIR");
        const std::string base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : tmp ? tmp : "/tmp";
        std::string templ = base + "/loopscope-fuzz-XXXXXX";
        if (!mkdtemp(templ.data()))
            finding("cannot create a scratch folder under " + base);
        dir = templ;
    }
    ~Scratch()
    {
        std::error_code ec;
        std::filesystem::remove_all(dir, ec);
    }
};

} // namespace

const std::string& scratchDir()
{
    static const Scratch scratch;
    return scratch.dir;
}

} // namespace loopscope::fuzz
