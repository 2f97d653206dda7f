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

std::string loopsText(const std::vector<analysis::LoopDecision>& loops)
{
    if (loops.empty())
        return "";
    std::string out =
        "\nloops: how GCC -O2 is expected to compile each loop of the exported C; instructions predicted inside the\n"
        "loops it keeps (nested loops included); in the innermost ones the values live across an iteration against\n"
        "the registers (beyond them: spilled to the stack); body: the statements of its body, or for a two-iteration\n"
        "innermost loop GCC's size estimate O-E (O statements, E of them folding away in the copies; GCC unrolls it\n"
        "when 2/3 of 2 x (O - E) is at most O)\n"
        "loop                            entered  iterations  compiled as               body  instructions  registers\n";
    char line[320];
    for (const analysis::LoopDecision& d : loops) {
        const std::string name = std::string(static_cast<size_t>(2 * d.depth), ' ') + d.name;
        std::string compiled = analysis::compiledName(d.compiled);
        if (d.dsp)
            compiled += " (DSP)";
        char instructions[32] = "";
        if (d.instructions >= 0)
            std::snprintf(instructions, sizeof instructions, "%.0f", d.instructions);
        std::string registers;
        if (d.registers >= 0) {
            std::snprintf(line, sizeof line, "%.0f of %.0f", d.registers, analysis::kAllocatableRegisters);
            registers = line;
            if (d.registers > analysis::kAllocatableRegisters) {
                std::snprintf(line, sizeof line, " (%.0f spilled)", d.registers - analysis::kAllocatableRegisters);
                registers += line;
            }
            if (d.fpRegisters > 2) {
                std::snprintf(line, sizeof line, ", fp %.0f of %.0f", d.fpRegisters, analysis::kFpRegisters);
                registers += line;
            }
        }
        char body[32];
        if (d.gccSize >= 0)
            std::snprintf(body, sizeof body, "%d-%d", d.gccSize, d.gccFolded);
        else
            std::snprintf(body, sizeof body, "%d", d.bodySize);
        std::snprintf(line, sizeof line, "%-30s %9lld  %10lld  %-24s %5s  %12s  %s\n", name.c_str(), static_cast<long long>(d.entries),
                      static_cast<long long>(d.trips), compiled.c_str(), body, instructions, registers.c_str());
        out += line;
    }
    return out;
}

nlohmann::ordered_json loopsJson(const std::vector<analysis::LoopDecision>& loops)
{
    nlohmann::ordered_json a = nlohmann::ordered_json::array();
    for (const analysis::LoopDecision& d : loops) {
        nlohmann::ordered_json j = {{"name", d.name}, {"depth", d.depth}, {"entered", d.entries}, {"iterations", d.trips},
                                    {"compiled", analysis::compiledName(d.compiled)}, {"dsp", d.dsp}, {"body_size", d.bodySize}};
        if (d.gccSize >= 0) {
            j["gcc_size"] = d.gccSize;
            j["gcc_folded"] = d.gccFolded;
        }
        if (d.instructions >= 0) {
            j["instructions"] = d.instructions;
            j["spill_instructions"] = d.spills;
            nlohmann::ordered_json events = nlohmann::ordered_json::object();
            for (const auto& [name, count] : d.events)
                events[name] = count;
            j["events"] = std::move(events);
        }
        if (d.registers >= 0) {
            j["registers"] = d.registers;
            j["fp_registers"] = d.fpRegisters;
        }
        a.push_back(std::move(j));
    }
    return a;
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
    char library[96] = "";
    if (m.libraryInstructions > 0)
        std::snprintf(library, sizeof library, ", %lld of them in the C library's memset and memcpy", m.libraryInstructions);
    std::snprintf(line, sizeof line,
                  "\nmeasured on %s: %lld instructions (kernel %lld%s, copies %lld), %.2f per MAC;\n"
                  "predicted %lld (%+.1f%%): kernel %lld (%+.1f%%), copies %lld (%+.1f%%)\n",
                  m.machine.c_str(), total, m.kernelInstructions, library, m.copyInstructions, r.macs ? static_cast<double>(total) / static_cast<double>(r.macs) : 0.0,
                  static_cast<long long>(r.instructions.predicted), 100 * relativeError(r.instructions.predicted, total),
                  static_cast<long long>(r.instructions.kernel), 100 * relativeError(r.instructions.kernel, m.kernelInstructions),
                  static_cast<long long>(r.instructions.copies), 100 * relativeError(r.instructions.copies, m.copyInstructions));
    return line;
}

} // namespace loopscope::cli
