// Figures of a cost report as the workspace stores them.
#include "store/figures.h"

#include "analysis/report_json.h"
#include "lower/loop_nest.h"
#include "store/workspace.h"

#include <nlohmann/json.hpp>

namespace loopscope::store {

namespace {

/// The instruction prediction of a report document, when the project's cost report has one:
/// "instructions" as a number, or an object with "total" (or "kernel").
std::optional<int64_t> predictedInstructions(const nlohmann::json& j)
{
    auto it = j.find("instructions");
    if (it == j.end())
        return std::nullopt;
    if (it->is_number_integer())
        return it->get<int64_t>();
    if (it->is_object())
        for (const char* key : {"total", "kernel"}) {
            auto k = it->find(key);
            if (k != it->end() && k->is_number_integer())
                return k->get<int64_t>();
        }
    return std::nullopt;
}

} // namespace

Figures figuresOf(const analysis::CostReport& r)
{
    Figures f;
    f.projectVersion = projectVersion();
    f.analyzedAt = nowMillis();
    f.macs = r.macs;
    f.cycles = r.cycles.total;
    f.computeCycles = r.cycles.compute;
    f.transferCycles = r.cycles.transfer;
    f.overlapRatio = r.cycles.overlapRatio;
    f.latencyMs = r.latencyMs;
    f.energyUj = r.energyUj;
    f.boundComputeCycles = r.bounds.computeCycles;
    f.compulsoryBytes = r.bounds.compulsoryBytes;
    f.ioLowerBoundBytes = r.bounds.ioLowerBoundBytes;
    for (const auto& d : r.diagnostics) {
        f.errors += d.severity == Severity::Error;
        f.warnings += d.severity == Severity::Warning;
    }
    for (const auto& l : r.levels)
        f.levels.push_back({l.name, l.capacityBytes, l.usedBytes, l.readBytes, l.writeBytes});
    f.reportJson = analysis::reportJson(r, -1);
    f.predictedInstructions = predictedInstructions(nlohmann::json::parse(f.reportJson));
    return f;
}

Figures analyzeFigures(const sched::Program& program)
{
    const lower::LoopNest nest = lower::lower(program);
    return figuresOf(analysis::analyze(nest, *program.target));
}

Measurement measurementOf(const codegen::Measurement& m, int64_t variantId)
{
    Measurement out;
    out.variantId = variantId;
    out.machine = m.machine;
    out.compiler = m.compiler.empty() ? "arm-none-eabi-gcc" : m.compiler;
    out.compilerVersion = m.compilerVersion.empty() ? "unknown" : m.compilerVersion;
    out.instructions = m.kernelInstructions;
    out.projectVersion = projectVersion();
    return out;
}

} // namespace loopscope::store
