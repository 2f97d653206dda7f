// The instruction prediction in analyze's table and JSON (see instruction_output.h).
#include "instruction_output.h"

#include <cmath>
#include <cstdio>

namespace loopscope::cli {

namespace {

double relativeError(int64_t predicted, long long measured)
{
    return measured != 0 ? (static_cast<double>(predicted) - static_cast<double>(measured)) / static_cast<double>(measured) : 0.0;
}

} // namespace

void addPredictionError(const analysis::CostReport& r, const codegen::Measurement& m, nlohmann::ordered_json& out)
{
    if (!r.instructions.available)
        return;
    out["predicted_kernel_error"] = relativeError(r.instructions.kernel, m.kernelInstructions);
    out["predicted_copies_error"] = relativeError(r.instructions.copies, m.copyInstructions);
    out["predicted_total_error"] = relativeError(r.instructions.predicted, m.kernelInstructions + m.copyInstructions);
}

std::string instructionsText(const analysis::CostReport& r)
{
    const analysis::InstructionReport& in = r.instructions;
    if (!in.available)
        return "";
    char line[256];
    std::string out;
    std::snprintf(line, sizeof line, "instructions %12lld  predicted for the exported C: kernel %lld + copies %lld (default DMA hooks), %.2f per MAC\n",
                  static_cast<long long>(in.predicted), static_cast<long long>(in.kernel), static_cast<long long>(in.copies),
                  r.macs ? static_cast<double>(in.predicted) / static_cast<double>(r.macs) : 0.0);
    out += line;
    std::string parts;
    for (const auto& [name, count] : in.breakdown) {
        if (count == 0)
            continue;
        std::snprintf(line, sizeof line, "%s%s %lld (%.0f%%)", parts.empty() ? "" : ", ", name.c_str(), static_cast<long long>(count),
                      in.predicted ? 100.0 * static_cast<double>(count) / static_cast<double>(in.predicted) : 0.0);
        parts += line;
    }
    out += "  where they go: " + parts + "\n";
    return out;
}

std::string measuredText(const analysis::CostReport& r, const codegen::Measurement& m)
{
    char line[512];
    const long long total = m.kernelInstructions + m.copyInstructions;
    if (!r.instructions.available) {
        std::snprintf(line, sizeof line, "\nmeasured on %s: %lld instructions in the kernel, %lld in the copies of the default DMA hooks\n", m.machine.c_str(),
                      m.kernelInstructions, m.copyInstructions);
        return line;
    }
    std::snprintf(line, sizeof line,
                  "\nmeasured on %s: %lld instructions (kernel %lld, copies %lld), %.2f per MAC;\n"
                  "predicted %lld (%+.1f%%): kernel %lld (%+.1f%%), copies %lld (%+.1f%%)\n",
                  m.machine.c_str(), total, m.kernelInstructions, m.copyInstructions, r.macs ? static_cast<double>(total) / static_cast<double>(r.macs) : 0.0,
                  static_cast<long long>(r.instructions.predicted), 100 * relativeError(r.instructions.predicted, total),
                  static_cast<long long>(r.instructions.kernel), 100 * relativeError(r.instructions.kernel, m.kernelInstructions),
                  static_cast<long long>(r.instructions.copies), 100 * relativeError(r.instructions.copies, m.copyInstructions));
    return line;
}

} // namespace loopscope::cli
