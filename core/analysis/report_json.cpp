// The JSON form of a CostReport (what `analyze --json` prints and the workspace keeps).
#include "analysis/report_json.h"

#include <cmath>

#include <nlohmann/json.hpp>

namespace loopscope::analysis {

const char* severityName(Severity s)
{
    return s == Severity::Error ? "error" : s == Severity::Warning ? "warning" : "hint";
}

std::string reportJson(const CostReport& r, int indent)
{
    nlohmann::ordered_json j;
    j["kernel"] = r.kernel;
    j["target"] = r.target;
    j["macs"] = r.macs;
    j["cycles"] = {{"total", r.cycles.total}, {"compute", r.cycles.compute}, {"transfer", r.cycles.transfer}, {"overlap_ratio", r.cycles.overlapRatio}};
    if (r.cycles.fromInstructions) {
        // Where the compute estimate comes from: the issue model over the predicted instructions.
        const IssueCycles& c = r.cycles.issue;
        nlohmann::ordered_json units;
        for (int u = 0; u < kIssueUnitCount; ++u)
            units[issueUnitName(static_cast<IssueUnit>(u))] = std::llround(c.unit[u]);
        j["cycles"]["issue_model"] = {{"issue", std::llround(c.issue)}, {"taken_branches", std::llround(c.taken)},
                                      {"loop_exits", std::llround(c.exits)}, {"load_use", std::llround(c.loadUse)}, {"units", units}};
    }
    j["latency_ms"] = r.latencyMs;
    j["energy_uj"] = r.energyUj;
    j["levels"] = nlohmann::ordered_json::array();
    for (const auto& l : r.levels) {
        nlohmann::ordered_json buffers = nlohmann::ordered_json::array();
        for (const auto& b : l.buffers)
            buffers.push_back({{"name", b.name}, {"tensor", b.tensor}, {"loop", b.loop}, {"shape", b.shape}, {"bytes", b.bytes}, {"double_buffered", b.doubleBuffered}});
        j["levels"].push_back({{"name", l.name}, {"capacity_bytes", l.capacityBytes}, {"used_bytes", l.usedBytes}, {"read_bytes", l.readBytes},
                               {"write_bytes", l.writeBytes}, {"buffers", buffers}});
    }
    j["tensors"] = nlohmann::ordered_json::array();
    for (const auto& t : r.tensors)
        j["tensors"].push_back({{"name", t.name}, {"level", t.level}, {"read_bytes", t.readBytes}, {"write_bytes", t.writeBytes}});
    // The predicted instructions of the exported code (null on an accelerator).
    if (r.instructions.available) {
        const InstructionReport& in = r.instructions;
        nlohmann::ordered_json breakdown = nlohmann::ordered_json::object();
        for (const auto& [name, count] : in.breakdown)
            breakdown[name] = count;
        // The events counted, by feature (the breakdown is these times their coefficients).
        nlohmann::ordered_json events = nlohmann::ordered_json::object();
        for (int i = 0; i < kInsnFeatureCount; ++i)
            if (in.features.count[i] != 0)
                events[insnFeatureName(static_cast<InsnFeature>(i))] = in.features.count[i];
        j["instructions"] = {{"predicted", in.predicted},
                             {"kernel", in.kernel},
                             {"copies", in.copies},
                             {"per_mac", r.macs ? static_cast<double>(in.predicted) / static_cast<double>(r.macs) : 0.0},
                             {"breakdown", breakdown},
                             {"events", events},
                             {"calibration", in.calibration.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(in.calibration)}};
    } else {
        j["instructions"] = nullptr;
    }
    j["bounds"] = {{"compute_cycles", r.bounds.computeCycles}, {"compulsory_bytes", r.bounds.compulsoryBytes}};
    if (r.bounds.ioLowerBoundBytes)
        j["bounds"]["io_lower_bound_bytes"] = *r.bounds.ioLowerBoundBytes;
    else
        j["bounds"]["io_lower_bound_bytes"] = nullptr;
    j["diagnostics"] = nlohmann::ordered_json::array();
    for (const auto& d : r.diagnostics) {
        nlohmann::ordered_json e = {{"severity", severityName(d.severity)}, {"code", d.code}, {"message", d.message}};
        e["step"] = d.step ? nlohmann::ordered_json(*d.step) : nlohmann::ordered_json(nullptr);
        j["diagnostics"].push_back(e);
    }
    if (r.array) {
        const ArrayReport& a = *r.array;
        const ArrayInstructions& i = a.instructions;
        j["array"] = {{"dim", a.dim}, {"dataflow", a.dataflow}, {"array_cycles", a.arrayCycles}, {"host_cycles", a.hostCycles}, {"prepare_cycles", a.prepareCycles},
                      {"pe_utilisation", a.peUtilisation}, {"peak_fraction", a.peakFraction}, {"array_macs", a.arrayMacs}, {"weight_loads", a.weightLoads},
                      {"instructions", {{"mvin", i.mvin}, {"mvout", i.mvout}, {"preload", i.preload}, {"compute", i.compute}, {"config", i.config},
                                        {"flush", i.flush}, {"fence", i.fence}, {"total", i.total()}}}};
        j["array"]["levels"] = nlohmann::ordered_json::array();
        for (const auto& l : a.levels)
            j["array"]["levels"].push_back({{"name", l.name}, {"peak_rows", l.peakRows}, {"rows", l.rows}, {"banks", l.banks}});
    }
    // Names come from files read as UTF-8 (common/yaml_documents.h); what is not is replaced, never thrown.
    return j.dump(indent, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

} // namespace loopscope::analysis
