// Search runs in a workspace: streaming points and progress, reading a run back to resume it.
#include "search_workspace.h"
#include "json_text.h"

#include "common/yaml_documents.h"

#include "ir/kernel.h"
#include "search/candidate_text.h"
#include "store/variant_files.h"
#include "store/workspace.h"
#include "target_loader.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <set>

namespace loopscope::cli {

namespace {

store::TargetParser targetParser()
{
    return [](const std::string& text, const std::string& path) { return hw::parseTarget(text, path); };
}

store::BuiltinTargetText builtinText()
{
    return [](const std::string& name) { return hw::builtinTargetText(name); };
}

std::string traceText(const SearchRunParameters& p, const std::vector<sched::Step>& steps, const std::string& description)
{
    sched::ScheduleFile f;
    f.kernel = p.kernelPath;
    f.target = p.target;
    f.description = description;
    f.steps = steps;
    return sched::formatScheduleFile(f);
}

} // namespace

std::string parametersToJson(const SearchRunParameters& p)
{
    nlohmann::ordered_json j;
    j["kernel"] = p.kernelPath;
    j["target"] = p.target;
    j["base_trace"] = p.baseTrace;
    j["objective"] = p.objective;
    j["seed"] = p.seed;
    j["batch_size"] = p.batchSize;
    j["partial_tiles"] = p.partialTiles;
    j["budget"] = p.budget;
    j["max_unroll_product"] = p.maxUnrollProduct;
    return jsonText(j, -1);
}

Result<SearchRunParameters> parametersFromJson(const std::string& json)
{
    try {
        auto j = nlohmann::json::parse(json);
        SearchRunParameters p;
        p.kernelPath = j.at("kernel").get<std::string>();
        p.target = j.at("target").get<std::string>();
        p.baseTrace = j.at("base_trace").get<std::string>();
        p.objective = j.at("objective").get<std::string>();
        p.seed = j.at("seed").get<uint64_t>();
        p.batchSize = j.at("batch_size").get<int>();
        p.partialTiles = j.at("partial_tiles").get<bool>();
        p.budget = j.at("budget").get<int64_t>();
        p.maxUnrollProduct = j.value("max_unroll_product", p.maxUnrollProduct);
        if (p.maxUnrollProduct < 1)
            return Diagnostic{Severity::Error, {}, "the search run's parameters are not ours: max_unroll_product below 1"};
        return p;
    } catch (const std::exception& e) {
        return Diagnostic{Severity::Error, {}, std::string("the search run's parameters are not ours: ") + e.what()};
    }
}

WorkspaceSink::WorkspaceSink(store::Workspace& ws, int64_t runId, SearchRunParameters params)
    : m_ws(ws), m_run(runId), m_params(std::move(params))
{
}

void WorkspaceSink::pointFound(const search::SearchPoint& p)
{
    if (!m_error.empty())
        return;
    std::string text = traceText(m_params, p.trace, "point " + std::to_string(p.index) + " of search run " + std::to_string(m_run));
    auto v = store::variantFromTrace(text, m_params.kernelPath, m_params.target, targetParser(), builtinText());
    if (!v) {
        m_error = v.errorText();
        return;
    }
    v->name = m_ws.uniqueName("search-" + std::to_string(m_run) + "-" + std::to_string(p.index));
    nlohmann::ordered_json o;
    o["cycles"] = p.figures.cycles;
    o["on_chip_bytes"] = p.figures.onChipBytes;
    o["energy_uj"] = p.figures.energyUj;
    o["dram_bytes"] = p.figures.dramBytes;
    o["latency_ms"] = p.figures.latencyMs;
    o["instructions"] = p.figures.instructions;
    o["index"] = p.index;
    o["candidate"] = search::candidateToText(p.candidate);
    auto id = m_ws.addSearchPoint(m_run, *v, jsonText(o, -1));
    if (!id) {
        m_error = id.errorText();
        return;
    }
    m_variants[p.index] = *id;
    ++m_written;
}

void WorkspaceSink::progress(const search::SearchProgress& prog, const std::vector<search::SearchPoint>& front)
{
    if (!m_error.empty())
        return;
    std::set<int64_t> on;
    for (const auto& p : front)
        on.insert(p.index);
    for (auto it = m_variants.begin(); it != m_variants.end();) {
        if (on.count(it->first)) {
            ++it;
            continue;
        }
        auto r = m_ws.setOnFront(m_run, it->second, false);
        if (!r) {
            m_error = r.errorText();
            return;
        }
        it = m_variants.erase(it);
    }
    auto r = m_ws.updateSearchProgress(m_run, prog.drawn, m_params.budget, prog.feasible);
    if (!r)
        m_error = r.errorText();
}

Result<int64_t> beginRun(store::Workspace& ws, const SearchRunParameters& params)
{
    // The run's parameters are JSON, which holds UTF-8 text only: a path with Latin-1 bytes in it
    // would come back altered and the run could not be resumed. Refused before anything is written.
    for (const std::string* path : {&params.kernelPath, &params.target})
        if (!isUtf8(*path))
            return Diagnostic{Severity::Error, {printableText(*path), 0, 0},
                              "a search kept in a workspace needs paths that are UTF-8 text: rename the folder or file, or search without --workspace"};
    std::string kernelText, why;
    if (!readTextFile(params.kernelPath, kernelText, why))
        return Diagnostic{Severity::Error, {params.kernelPath, 0, 0}, why};
    auto kh = ws.storeFile(store::FileKind::Kernel, params.kernelPath, kernelText);
    if (!kh)
        return kh.errors();
    std::string targetText = hw::builtinTargetText(params.target);
    std::string targetPath = store::builtinPath(params.target);
    if (targetText.empty()) {
        targetPath = params.target;
        if (!readTextFile(params.target, targetText, why))
            return Diagnostic{Severity::Error, {params.target, 0, 0}, why};
    }
    auto th = ws.storeFile(store::FileKind::Target, targetPath, targetText);
    if (!th)
        return th.errors();
    store::SearchRun run;
    run.kernelHash = *kh;
    run.targetHash = *th;
    run.parametersJson = parametersToJson(params);
    return ws.beginSearchRun(run);
}

Result<StoredRun> loadRun(const store::Workspace& ws, int64_t runId)
{
    auto run = ws.searchRun(runId);
    if (!run)
        return Diagnostic{Severity::Error, {ws.path(), 0, 0}, "no search run " + std::to_string(runId) + " in this workspace"};
    auto params = parametersFromJson(run->parametersJson);
    if (!params)
        return params.errors();
    auto kf = ws.file(run->kernelHash);
    auto tf = ws.file(run->targetHash);
    if (!kf || !tf)
        return Diagnostic{Severity::Error, {ws.path(), 0, 0}, "search run " + std::to_string(runId) + " lacks its kernel or target text"};
    auto kernel = ir::parseKernel(kf->text, kf->path);
    if (!kernel)
        return kernel.errors();
    auto target = hw::parseTarget(tf->text, tf->path);
    if (!target)
        return target.errors();
    auto base = sched::parseScheduleFile(params->baseTrace, "search run " + std::to_string(runId));
    if (!base)
        return base.errors();
    auto k = std::make_shared<const ir::Kernel>(std::move(*kernel));
    auto t = std::make_shared<const hw::Target>(std::move(*target));
    sched::ApplyResult program = sched::replay(k, t, base->steps);
    if (!program.ok())
        return Diagnostic{Severity::Error, {}, program.error().str()};
    StoredRun out;
    out.params = *params;
    out.base = program.program();
    search::SearchSpace space(out.base, search::SpaceOptions{params->partialTiles, params->maxUnrollProduct});
    // Every point that entered the front, in the order found: the front after the candidates
    // drawn, and the front when the batch the run stopped in began, are rebuilt from them
    // exactly (a point that left the front was dominated by one that stays). Points found
    // after the last progress written (a run killed mid-batch) are found again.
    const int64_t drawn = run->evaluated;
    const int64_t batch = params->batchSize > 0 ? params->batchSize : 1;
    const int64_t batchStart = drawn / batch * batch;
    std::vector<std::pair<search::SearchPoint, int64_t>> found;  // point, variant id
    std::set<int64_t> marked;                                     // variants marked on the front
    for (const auto& sp : ws.searchPoints(runId, false)) {
        auto v = ws.variant(sp.variantId);
        if (!v)
            return Diagnostic{Severity::Error, {ws.path(), 0, 0}, "search run " + std::to_string(runId) + " lacks the variant of one of its points"};
        auto file = sched::parseScheduleFile(v->trace, v->name);
        if (!file)
            return file.errors();
        search::SearchPoint p;
        p.trace = file->steps;
        try {
            auto o = nlohmann::json::parse(sp.objectivesJson);
            p.index = o.at("index").get<int64_t>();
            p.figures.cycles = o.at("cycles").get<int64_t>();
            p.figures.onChipBytes = o.at("on_chip_bytes").get<int64_t>();
            p.figures.energyUj = o.at("energy_uj").get<double>();
            p.figures.dramBytes = o.at("dram_bytes").get<int64_t>();
            p.figures.latencyMs = o.at("latency_ms").get<double>();
            p.figures.instructions = o.value("instructions", int64_t(0));  // runs stored before it existed: 0
            if (!search::candidateFromText(o.at("candidate").get<std::string>(), space, p.candidate))
                return Diagnostic{Severity::Error, {}, "point " + v->name + " of search run " + std::to_string(runId) + " has a candidate this search cannot read"};
        } catch (const std::exception& e) {
            return Diagnostic{Severity::Error, {}, "point " + v->name + " of search run " + std::to_string(runId) + ": " + e.what()};
        }
        if (sp.onFront)
            marked.insert(sp.variantId);
        if (p.index >= drawn) {
            if (sp.onFront)
                out.stale.push_back(sp.variantId);
            continue;
        }
        found.emplace_back(std::move(p), sp.variantId);
    }
    std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.first.index < b.first.index; });
    search::Objective objective = search::Objective::Cycles;
    search::parseObjective(params->objective, objective);
    search::ParetoFront front(search::frontDimension(objective)), parents(search::frontDimension(objective));
    for (const auto& [p, id] : found) {
        front.insert(p);
        if (p.index < batchStart)
            parents.insert(p);
    }
    for (const auto& p : front.points())
        for (const auto& [q, id] : found)
            if (q.index == p.index)
                out.variants[p.index] = id;
    for (const auto& [p, id] : found)
        if (!out.variants.count(p.index) && marked.count(id))
            out.stale.push_back(id);
    out.state.front = front.points();
    if (drawn != batchStart)
        out.state.parents = parents.points();
    out.state.progress.drawn = drawn;
    out.state.progress.feasible = run->feasible;
    out.state.progress.batches = drawn / batch;
    out.state.batches = out.state.progress.batches;
    return out;
}

} // namespace loopscope::cli
