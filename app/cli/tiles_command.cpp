// `loopscope-cli tiles SCHEDULE [--json]`: the tile model (analysis/tiles.h) as text or JSON:
// for every iteration of the outer loops, the region of the output it computes and the regions
// of each input resident in each memory level (and what a double buffer prefetches), so that
// the tile view's picture can be checked and scripted.
#include "commands.h"
#include "json_text.h"

#include "analysis/tiles.h"
#include "lower/loop_nest.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <climits>
#include <memory>
#include <ostream>

namespace loopscope::cli {

namespace {

/// Steps listed unless --max-steps says otherwise: every shipped schedule has fewer.
constexpr int64_t kDefaultMaxSteps = 10000;

using analysis::ResidentRegion;
using analysis::TileInput;
using analysis::TileModel;

std::string shapeText(const std::vector<int64_t>& shape)
{
    std::string s;
    for (size_t d = 0; d < shape.size(); ++d)
        s += (d ? " x " : "") + std::to_string(shape[d]);
    return s;
}

nlohmann::json boxJson(const std::string& tensor, const Box& b)
{
    nlohmann::json j;
    j["text"] = boxText(tensor, b);
    if (b.empty()) {
        j["empty"] = true;
        return j;
    }
    j["empty"] = false;
    for (const Interval& i : b.dims) {
        j["lo"].push_back(i.lo);
        j["hi"].push_back(i.hi);
    }
    j["elements"] = b.elements();
    j["stride"] = b.stride();
    return j;
}

/// What `tiles` prints of the accelerator's blocks at most per step (the JSON has them all).
constexpr size_t kBlocksPrinted = 16;

nlohmann::json blocksJson(const TileModel& m, int64_t position)
{
    nlohmann::json a = nlohmann::json::array();
    for (const analysis::ArrayBlock& b : m.arrayBlocks(position))
        a.push_back({{"region", boxJson(m.output().name, b.out)}, {"rows", b.rows}, {"cols", b.cols}, {"depth", b.depth},
                     {"pe_rows", b.peRows}, {"pe_cols", b.peCols}, {"instructions", b.instructions}});
    return a;
}

void printJson(const TileModel& m, int64_t maxSteps, std::ostream& out)
{
    const lower::LoopNest& n = *m.nest();
    nlohmann::json j;
    j["kernel"] = n.kernel->name;
    j["target"] = n.target->name;
    j["output"] = {{"tensor", m.output().name}, {"shape", m.output().shape}, {"dims", m.output().dimNames}};
    j["loops"] = nlohmann::json::array();
    for (const auto& l : m.outerLoops())
        j["loops"].push_back({{"name", l.name}, {"extent", l.extent}, {"reduction", l.reduction}});
    j["positions"] = m.positions();
    j["positions_capped"] = m.truncated();   // more than INT32_MAX: `positions` is that cap
    j["steps_listed"] = std::min(m.positions(), maxSteps);
    j["inputs"] = nlohmann::json::array();
    for (const TileInput& in : m.inputs())
        j["inputs"].push_back({{"tensor", in.name}, {"shape", in.shape}, {"dims", in.dimNames}, {"home", in.homeLevel}});
    if (m.arrayDim() > 0)
        j["array"] = {{"dim", m.arrayDim()}, {"dataflow", m.weightStationary() ? "weight_stationary" : "output_stationary"}};
    j["steps"] = nlohmann::json::array();
    for (int64_t p = 0; p < std::min(m.positions(), maxSteps); ++p) {
        nlohmann::json step;
        if (m.arrayDim() > 0)
            step["blocks"] = blocksJson(m, p);
        step["step"] = p;
        step["loops"] = m.loopValues(p);
        step["tile"] = boxJson(m.output().name, m.outputTile(p));
        step["resident"] = nlohmann::json::array();
        for (const TileInput& in : m.inputs())
            for (const ResidentRegion& r : m.residents(in, p)) {
                nlohmann::json rj = {{"tensor", in.name}, {"level", r.level}, {"buffer", r.buffer}, {"bytes", r.bytes},
                                     {"exact", r.exact}, {"region", boxJson(in.name, r.box)}};
                rj["prefetch"] = r.prefetches ? boxJson(in.name, r.next) : nlohmann::json();
                // A sliding cache: what this step fetched; the rest of the region was kept.
                rj["fetched"] = r.slides ? boxJson(in.name, r.fetched) : nlohmann::json();
                step["resident"].push_back(std::move(rj));
            }
        j["steps"].push_back(std::move(step));
    }
    out << jsonText(j) << "\n";
}

/// "  8 blocks on the 16x16 PE array (weight-stationary), 64 instructions:" and one line per block.
void printBlocks(const TileModel& m, int64_t p, std::ostream& out)
{
    const std::vector<analysis::ArrayBlock> blocks = m.arrayBlocks(p);
    int64_t instructions = 0;
    for (const auto& b : blocks)
        instructions += b.instructions;
    const int64_t dim = m.arrayDim();
    out << "  " << blocks.size() << (blocks.size() == 1 ? " block" : " blocks") << " on the " << dim << "x" << dim << " PE array ("
        << (m.weightStationary() ? "weight-stationary" : "output-stationary") << "), " << instructions
        << (instructions == 1 ? " instruction" : " instructions") << (blocks.empty() ? "" : ":") << "\n";
    for (size_t i = 0; i < blocks.size() && i < kBlocksPrinted; ++i) {
        const auto& b = blocks[i];
        out << "    " << boxText(m.output().name, b.out) << ": " << b.rows << "x" << b.cols << "x" << b.depth << ", PE rows " << b.peRows << " of " << dim
            << ", columns " << b.peCols << " of " << dim;
        if (b.peRows < dim || b.peCols < dim)
            out << " (" << dim * dim - b.peRows * b.peCols << " PEs idle)";
        out << ", " << b.instructions << (b.instructions == 1 ? " instruction" : " instructions") << "\n";
    }
    if (blocks.size() > kBlocksPrinted)
        out << "    ... and " << blocks.size() - kBlocksPrinted << " more (--json lists them all)\n";
}

void printText(const TileModel& m, int64_t maxSteps, std::ostream& out)
{
    const lower::LoopNest& n = *m.nest();
    std::string loops;
    for (const auto& l : m.outerLoops())
        loops += (loops.empty() ? "" : " x ") + l.name + " (" + std::to_string(l.extent) + ")";
    out << "tiles of " << n.kernel->name << " on " << n.target->name << ": output " << m.output().name << " ["
        << shapeText(m.output().shape) << "], " << (m.truncated() ? "more than " : "") << m.positions()
        << (m.positions() == 1 ? " step" : " steps")
        << (loops.empty() ? " (no loop runs outside the on-chip buffers)" : " over " + loops) << "\n";
    std::string reductions;
    for (const auto& l : m.outerLoops())
        if (l.reduction)
            reductions += (reductions.empty() ? "" : ", ") + l.name;
    if (!reductions.empty())
        out << reductions << ": reduction, so the same tile is accumulated over several steps\n";
    for (const TileInput& in : m.inputs())
        out << "input " << in.name << " [" << shapeText(in.shape) << "]: "
            << (in.homeLevel.empty() ? "never stored whole (computed in pieces where it is read)" : "all of it in " + in.homeLevel) << "\n";
    for (int64_t p = 0; p < std::min(m.positions(), maxSteps); ++p) {
        const std::vector<int64_t> values = m.loopValues(p);
        std::string at;
        for (size_t i = 0; i < values.size(); ++i)
            at += (i ? ", " : "") + m.outerLoops()[i].name + " = " + std::to_string(values[i]);
        out << "\nstep " << p + 1 << " of " << (m.truncated() ? "more than " : "") << m.positions() << (at.empty() ? "" : ": " + at) << "\n";
        const Box tile = m.outputTile(p);
        if (tile.empty())
            out << "  computes nothing (past the edge of " << m.output().name << ")\n";
        else
            out << "  computes " << boxText(m.output().name, tile) << " (" << tile.elements() << (tile.elements() == 1 ? " element" : " elements") << ")\n";
        if (m.arrayDim() > 0)
            printBlocks(m, p, out);
        for (const TileInput& in : m.inputs())
            for (const ResidentRegion& r : m.residents(in, p)) {
                out << "  " << r.level << " " << r.buffer << ": ";
                if (r.box.empty()) {
                    out << "nothing of " << in.name << " (past the edge)\n";
                    continue;
                }
                out << boxText(in.name, r.box) << " (" << humanBytes(r.bytes) << ")";
                if (r.box.stride() > 1)
                    out << ", stride " << r.box.stride();
                if (!r.exact)
                    out << ", refilled inside this step (the region covers every fill)";
                out << "\n";
                if (r.prefetches && !r.next.empty())
                    out << "    second buffer prefetches " << boxText(in.name, r.next) << "\n";
                if (r.slides)
                    out << "    sliding window: fetched " << (r.fetched.empty() ? "nothing" : boxText(in.name, r.fetched))
                        << (r.fetched == r.box ? " (the whole region)" : ", the rest kept from the step before") << "\n";
            }
    }
    if (m.positions() > maxSteps)
        out << "\n... and " << (m.truncated() ? "more than " : "") << m.positions() - maxSteps << " more steps (--max-steps "
            << maxSteps << " listed the first; give more to list more)\n";
}

} // namespace

int runTiles(const std::string& schedule, bool json, int64_t maxSteps, std::ostream& out, std::ostream& err)
{
    auto p = programFor(schedule, "");
    if (!p) {
        err << p.errorText() << "\n";
        return kExitBadInput;
    }
    const TileModel m = TileModel::build(std::make_shared<const lower::LoopNest>(lower::lower(*p)));
    if (!m.ok()) {
        err << schedule << ": " << m.message() << "\n";
        return kExitBadInput;
    }
    if (json)
        printJson(m, maxSteps, out);
    else
        printText(m, maxSteps, out);
    return kExitOk;
}

Subcommand addTilesCommand(CLI::App& app, std::ostream& out, std::ostream& err)
{
    auto file = std::make_shared<std::string>();
    auto json = std::make_shared<bool>(false);
    CLI::App* cmd = app.add_subcommand("tiles", "For every iteration of the outer loops: the output tile computed and the input regions resident "
                                                "in each memory level (what the app's Tiles view draws)");
    cmd->add_option("SCHEDULE", *file, "a *.sched.yaml (or *.kernel.yaml) file")->required();
    cmd->add_flag("--json", *json, "print JSON");
    // A schedule of billions of steps (a matmul of 65536^3 split by 1) printed them all, for
    // ever, and its JSON took all the memory: the first ones are listed, and the count said.
    auto maxSteps = std::make_shared<int64_t>(kDefaultMaxSteps);
    cmd->add_option("--max-steps", *maxSteps, "list at most this many steps (default " + std::to_string(kDefaultMaxSteps) + ")")
        ->check(CLI::Range(int64_t(1), int64_t(INT32_MAX)));
    return {cmd, [file, json, maxSteps, &out, &err] { return runTiles(*file, *json, *maxSteps, out, err); }};
}

} // namespace loopscope::cli
