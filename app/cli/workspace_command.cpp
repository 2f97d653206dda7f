// The `workspace` subcommands of loopscope-cli.
#include "workspace_command.h"
#include "json_text.h"

#include "common/atomic_file.h"

#include "commands.h"

#include "codegen/measure.h"
#include "lower/loop_nest.h"
#include "store/compare.h"
#include "store/figures.h"
#include "store/trace_diff.h"
#include "store/variant_files.h"
#include "store/workspace.h"
#include "target_loader.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <ostream>

namespace fs = std::filesystem;
using nlohmann::ordered_json;

namespace loopscope::cli {

struct WorkspaceCommand::Options {
    CLI::App* root = nullptr;
    CLI::App* init = nullptr;
    CLI::App* add = nullptr;
    CLI::App* list = nullptr;
    CLI::App* show = nullptr;
    CLI::App* compare = nullptr;
    CLI::App* exportCmd = nullptr;
    CLI::App* import = nullptr;
    CLI::App* check = nullptr;
    std::string workspace;
    bool json = false;
    std::string schedule;
    std::string name;
    std::string notes;
    std::vector<std::string> tags;
    std::string parent;
    bool measure = false;
    std::string sort = "name";
    std::string a;
    std::string b;
    std::string out;
    bool force = false;
    std::string folder;
    bool skipBad = false;
};

namespace {

store::TargetParser targetParser()
{
    return [](const std::string& text, const std::string& path) { return hw::parseTarget(text, path); };
}
store::BuiltinTargetText builtinText()
{
    return [](const std::string& name) { return hw::builtinTargetText(name); };
}

std::string bytesText(int64_t b)
{
    const char* units[] = {"B", "KiB", "MiB", "GiB"};
    double v = static_cast<double>(b);
    int u = 0;
    for (; u < 3 && v >= 1024; ++u)
        v /= 1024;
    char buf[32];
    std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.1f %s", v, units[u]);
    return buf;
}

std::string timeText(store::Millis ms)
{
    const std::time_t t = static_cast<std::time_t>(ms / 1000);
    std::tm tm{};
    localtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M", &tm);
    return buf;
}

std::string isoTime(store::Millis ms)
{
    const std::time_t t = static_cast<std::time_t>(ms / 1000);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

std::string parentName(const std::vector<store::Variant>& all, const std::optional<int64_t>& id)
{
    if (!id)
        return "";
    for (const auto& v : all)
        if (v.id == *id)
            return v.name;
    return "#" + std::to_string(*id);
}

ordered_json figuresJson(const store::Figures& f)
{
    ordered_json j;
    j["project_version"] = f.projectVersion;
    j["analyzed_at"] = isoTime(f.analyzedAt);
    j["macs"] = f.macs;
    j["cycles"] = f.cycles;
    j["compute_cycles"] = f.computeCycles;
    j["transfer_cycles"] = f.transferCycles;
    j["overlap_ratio"] = f.overlapRatio;
    j["latency_ms"] = f.latencyMs;
    j["energy_uj"] = f.energyUj;
    j["bound_compute_cycles"] = f.boundComputeCycles;
    j["compulsory_bytes"] = f.compulsoryBytes;
    j["io_lower_bound_bytes"] = f.ioLowerBoundBytes ? ordered_json(*f.ioLowerBoundBytes) : ordered_json(nullptr);
    j["predicted_instructions"] = f.predictedInstructions ? ordered_json(*f.predictedInstructions) : ordered_json(nullptr);
    j["errors"] = f.errors;
    j["warnings"] = f.warnings;
    j["levels"] = ordered_json::array();
    for (const auto& l : f.levels)
        j["levels"].push_back({{"name", l.name}, {"capacity_bytes", l.capacityBytes}, {"peak_bytes", l.peakBytes}, {"read_bytes", l.readBytes},
                               {"write_bytes", l.writeBytes}});
    return j;
}

ordered_json variantJson(const store::Workspace& ws, const store::Variant& v, const std::vector<store::Variant>& all, bool full)
{
    ordered_json j;
    j["id"] = v.id;
    j["name"] = v.name;
    j["notes"] = v.notes;
    j["tags"] = v.tags;
    j["parent"] = v.parentId ? ordered_json(parentName(all, v.parentId)) : ordered_json(nullptr);
    j["search_run"] = v.searchRunId ? ordered_json(*v.searchRunId) : ordered_json(nullptr);
    j["created"] = isoTime(v.createdAt);
    j["modified"] = isoTime(v.modifiedAt);
    j["kernel"] = v.kernelPath;
    j["target"] = v.target;
    if (full) {
        for (const auto& [key, hash] : {std::pair{"kernel_file", v.kernelHash}, std::pair{"target_file", v.targetHash}}) {
            auto f = ws.file(hash);
            j[key] = {{"sha256", hash}, {"on_disk", f ? store::diskStateName(store::diskState(*f, builtinText())) : "missing"}};
        }
    }
    j["figures"] = v.figures ? figuresJson(*v.figures) : ordered_json(nullptr);
    j["measurements"] = ordered_json::array();
    for (const auto& m : v.measurements)
        j["measurements"].push_back({{"machine", m.machine}, {"compiler", m.compiler}, {"compiler_version", m.compilerVersion},
                                     {"instructions", m.instructions}, {"project_version", m.projectVersion}, {"measured_at", isoTime(m.measuredAt)}});
    if (full) {
        j["trace"] = v.trace;
        if (v.figures && !v.figures->reportJson.empty()) {
            // A stored report that does not parse (a workspace edited by hand) is said, not
            // printed as nlohmann's "<discarded>", which is no JSON.
            ordered_json report = ordered_json::parse(v.figures->reportJson, nullptr, false);
            if (report.is_discarded())
                j["report_error"] = "the stored report is not JSON (the workspace was changed outside Loopscope)";
            j["report"] = report.is_discarded() ? ordered_json(nullptr) : std::move(report);
        }
    }
    return j;
}

std::string ratioText(double a, double b)
{
    if (a == 0)
        return b == 0 ? "1.00" : "-";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g", b / a);
    return buf;
}

} // namespace

WorkspaceCommand::WorkspaceCommand(CLI::App& app, std::ostream& out, std::ostream& err) : m_o(std::make_unique<Options>()), m_out(out), m_err(err)
{
    Options& o = *m_o;
    o.root = app.add_subcommand("workspace", "Variants of schedules kept in the project's sqlite workspace (init, add, list, show, compare, export, import, check)");
    o.root->require_subcommand(1);
    auto common = [&o](CLI::App* sub) {
        sub->add_option("--workspace", o.workspace, "the workspace file (default: the *.loopscope-workspace in the current folder)");
        sub->add_flag("--json", o.json, "print JSON");
        return sub;
    };
    o.init = common(o.root->add_subcommand("init", "Create a workspace (default: <folder>.loopscope-workspace in the current folder)"));
    o.add = common(o.root->add_subcommand("add", "Add a schedule as a variant (its kernel, target and analysis are stored with it)"));
    o.add->add_option("SCHEDULE", o.schedule, "a *.sched.yaml file")->required();
    o.add->add_option("--name", o.name, "the variant's name (default: the file name without .sched.yaml)");
    o.add->add_option("--notes", o.notes, "notes (default: the schedule's description)");
    o.add->add_option("--tag", o.tags, "a tag (repeatable)");
    o.add->add_option("--parent", o.parent, "the variant it was derived from (name or id)");
    o.add->add_flag("--measure", o.measure, "also count the exported kernel's instructions on qemu (cortex-m7/m4) and store them");
    o.list = common(o.root->add_subcommand("list", "List the variants with their key figures"));
    o.list->add_option("--sort", o.sort, "name, cycles, modified or created")->check(CLI::IsMember({"name", "cycles", "modified", "created"}));
    o.show = common(o.root->add_subcommand("show", "Show one variant: notes, files, figures, measurements and trace"));
    o.show->add_option("VARIANT", o.a, "name or id")->required();
    o.compare = common(o.root->add_subcommand("compare", "Two variants' figures side by side with ratios (B/A), and the step difference"));
    o.compare->add_option("A", o.a, "name or id")->required();
    o.compare->add_option("B", o.b, "name or id")->required();
    o.exportCmd = common(o.root->add_subcommand("export", "Write a variant back as a *.sched.yaml"));
    o.exportCmd->add_option("VARIANT", o.a, "name or id")->required();
    o.exportCmd->add_option("--out", o.out, "the schedule file to write")->required();
    o.exportCmd->add_flag("--force", o.force, "replace existing files");
    o.import = common(o.root->add_subcommand("import", "Add every *.sched.yaml of a folder as a variant"));
    o.import->add_option("FOLDER", o.folder, "a folder of schedules")->required();
    o.import->add_flag("--skip-bad", o.skipBad, "add the schedules that load even when others do not (default: add none then)");
    o.check = common(o.root->add_subcommand("check", "Check the workspace: integrity, schema, and that every variant rebuilds from its stored files"));
}

WorkspaceCommand::~WorkspaceCommand() = default;

bool WorkspaceCommand::parsed() const { return m_o->root->parsed(); }

int WorkspaceCommand::run()
{
    Options& o = *m_o;
    auto fail = [this](const std::string& message) {
        m_err << message << "\n";
        return kExitBadInput;
    };

    if (o.init->parsed()) {
        const std::string path = o.workspace.empty() ? store::defaultWorkspacePath(fs::current_path().string()) : o.workspace;
        auto ws = store::Workspace::create(path);
        if (!ws)
            return fail(ws.errorText());
        if (o.json)
            m_out << jsonText(ordered_json({{"workspace", (*ws)->path()}, {"schema_version", (*ws)->schemaVersion()}})) << "\n";
        else
            m_out << "created " << (*ws)->path() << "\n";
        return kExitOk;
    }

    std::string path = o.workspace;
    if (path.empty()) {
        auto found = store::findWorkspaceIn(fs::current_path().string());
        if (!found)
            return fail(found.errorText());
        if (!*found)
            return fail("no workspace in " + fs::current_path().string()
                        + " (create one with `loopscope-cli workspace init`, or name one with --workspace)");
        path = **found;
    }
    const bool writes = o.add->parsed() || o.import->parsed();
    auto opened = store::Workspace::open(path, {!writes, 5000});
    if (!opened)
        return fail(opened.errorText());
    store::Workspace& ws = **opened;
    if (ws.migratedFrom() && !o.json)
        m_err << "note: " << ws.path() << " was migrated from schema version " << *ws.migratedFrom() << " to " << ws.schemaVersion()
              << " (the old file is kept as " << ws.path() << ".schema-" << *ws.migratedFrom() << ".bak)\n";
    auto find = [&](const std::string& nameOrId) -> std::optional<store::Variant> {
        auto v = ws.findVariant(nameOrId);
        if (!v)
            m_err << ws.path() << ": no variant named '" << nameOrId << "'\n";
        return v;
    };

    if (o.add->parsed()) {
        auto nv = store::variantFromScheduleFile(o.schedule, targetParser(), builtinText());
        if (!nv)
            return fail(nv.errorText());
        if (!o.name.empty())
            nv->name = o.name;
        if (!o.notes.empty())
            nv->notes = o.notes;
        nv->tags = o.tags;
        if (!o.parent.empty()) {
            auto p = find(o.parent);
            if (!p)
                return kExitBadInput;
            nv->parentId = p->id;
        }
        codegen::Measurement m;
        if (o.measure) {
            auto opened = sched::openSchedule(o.schedule, [](const std::string& n, const std::string& d) { return hw::resolveTarget(n, d); });
            if (!opened)
                return fail(opened.errorText());
            m = codegen::measureOnQemu(lower::lower(opened->program), opened->program.target->name);
            if (!m.ok)
                return fail(o.schedule + ": " + m.error);
        }
        auto id = ws.addVariant(*nv);
        if (!id)
            return fail(id.errorText() + (ws.variantByName(nv->name) ? " (choose another with --name)" : ""));
        if (o.measure) {
            if (auto r = ws.addMeasurement(store::measurementOf(m, *id)); !r)
                return fail(r.errorText());
        }
        auto v = *ws.variant(*id);
        if (o.json) {
            m_out << jsonText(variantJson(ws, v, ws.variants(), false)) << "\n";
        } else {
            m_out << "added variant " << v.name << " (id " << v.id << ")";
            if (v.figures)
                m_out << ": " << v.figures->cycles << " cycles, " << v.figures->energyUj << " uJ";
            if (o.measure)
                m_out << ", " << m.kernelInstructions << " instructions measured on " << m.machine;
            m_out << "\n";
        }
        return kExitOk;
    }

    if (o.list->parsed()) {
        const store::VariantOrder order = o.sort == "cycles"     ? store::VariantOrder::Cycles
                                          : o.sort == "modified" ? store::VariantOrder::Modified
                                          : o.sort == "created"  ? store::VariantOrder::Created
                                                                 : store::VariantOrder::Name;
        const auto all = ws.variants(order);
        if (!ws.lastError().empty())
            return fail(ws.lastError());
        if (o.json) {
            ordered_json j = ordered_json::array();
            for (const auto& v : all)
                j.push_back(variantJson(ws, v, all, false));
            m_out << jsonText(j) << "\n";
            return kExitOk;
        }
        if (all.empty()) {
            m_out << "no variants yet in " << ws.path() << " (add one with `loopscope-cli workspace add SCHEDULE`)\n";
            return kExitOk;
        }
        std::size_t w = 4;
        for (const auto& v : all)
            w = std::max(w, v.name.size());
        char line[512];
        std::snprintf(line, sizeof line, "%-*s %14s %11s %11s %11s %13s %12s  %-16s  %s\n", static_cast<int>(w), "name", "cycles", "latency ms", "energy uJ",
                      "SRAM peak", "DRAM traffic", "measured", "modified", "derived from");
        m_out << line;
        for (const auto& v : all) {
            const auto& f = v.figures;
            auto ins = store::measuredInstructions(v);
            std::snprintf(line, sizeof line, "%-*s %14s %11s %11s %11s %13s %12s  %-16s  %s\n", static_cast<int>(w), v.name.c_str(),
                          f ? std::to_string(f->cycles).c_str() : "-", f ? (std::to_string(f->latencyMs).substr(0, 9)).c_str() : "-",
                          f ? std::to_string(f->energyUj).substr(0, 9).c_str() : "-", f ? bytesText(f->innerPeakBytes()).c_str() : "-",
                          f ? bytesText(f->homeTrafficBytes()).c_str() : "-", ins ? std::to_string(*ins).c_str() : "-", timeText(v.modifiedAt).c_str(),
                          parentName(all, v.parentId).c_str());
            m_out << line;
        }
        return kExitOk;
    }

    if (o.show->parsed()) {
        auto v = find(o.a);
        if (!v)
            return kExitBadInput;
        const auto all = ws.variants();
        if (o.json) {
            m_out << jsonText(variantJson(ws, *v, all, true)) << "\n";
            return kExitOk;
        }
        m_out << "variant   " << v->name << " (id " << v->id << ")\n";
        if (!v->notes.empty())
            m_out << "notes     " << v->notes << "\n";
        if (!v->tags.empty()) {
            m_out << "tags     ";
            for (const auto& t : v->tags)
                m_out << " " << t;
            m_out << "\n";
        }
        if (v->parentId)
            m_out << "derived   from " << parentName(all, v->parentId) << "\n";
        m_out << "created   " << timeText(v->createdAt) << "\nmodified  " << timeText(v->modifiedAt) << "\n";
        for (const auto& [label, p, hash] : {std::tuple{"kernel", v->kernelPath, v->kernelHash}, std::tuple{"target", v->target, v->targetHash}}) {
            auto f = ws.file(hash);
            const store::DiskState s = f ? store::diskState(*f, builtinText()) : store::DiskState::Missing;
            m_out << label << "    " << p
                  << (s == store::DiskState::Same      ? ""
                      : s == store::DiskState::Changed ? "  (changed on disk since the variant was saved; the stored text is used)"
                                                       : "  (missing on disk; the stored text is used)")
                  << "\n";
        }
        if (const auto& f = v->figures) {
            m_out << "\nfigures (Loopscope " << f->projectVersion << ", " << timeText(f->analyzedAt) << ")\n";
            m_out << "  cycles      " << f->cycles << " (compute " << f->computeCycles << ", transfer " << f->transferCycles << "); bound " << f->boundComputeCycles << "\n";
            m_out << "  latency     " << f->latencyMs << " ms\n  energy      " << f->energyUj << " uJ\n";
            if (f->predictedInstructions)
                m_out << "  predicted   " << *f->predictedInstructions << " instructions\n";
            for (const auto& l : f->levels)
                m_out << "  " << l.name << "  peak " << bytesText(l.peakBytes) << " of " << bytesText(l.capacityBytes) << ", read " << l.readBytes
                      << " B, written " << l.writeBytes << " B\n";
            if (f->errors)
                m_out << "  " << f->errors << " error diagnostic(s) (e.g. over capacity)\n";
        }
        for (const auto& m : v->measurements)
            m_out << "measured  " << m.instructions << " instructions on " << m.machine << " (" << m.compiler << " " << m.compilerVersion << ", Loopscope "
                  << m.projectVersion << ", " << timeText(m.measuredAt) << ")\n";
        m_out << "\n" << v->trace << (v->trace.ends_with("\n") ? "" : "\n");
        return kExitOk;
    }

    if (o.compare->parsed()) {
        auto a = find(o.a);
        auto b = find(o.b);
        if (!a || !b)
            return kExitBadInput;
        auto ta = sched::parseScheduleFile(a->trace, "variant '" + a->name + "'");
        auto tb = sched::parseScheduleFile(b->trace, "variant '" + b->name + "'");
        if (!ta || !tb)
            return fail(!ta ? ta.errorText() : tb.errorText());
        const std::vector<store::FigureComparison> rows = store::compareFigures(*a, *b);
        const auto steps = store::diffSteps(ta->steps, tb->steps);
        if (o.json) {
            ordered_json j;
            j["a"] = a->name;
            j["b"] = b->name;
            j["figures"] = ordered_json::array();
            for (const auto& r : rows)
                j["figures"].push_back({{"name", r.name}, {"a", r.a}, {"b", r.b}, {"ratio", r.ratio ? ordered_json(*r.ratio) : ordered_json(nullptr)}});
            j["steps"] = ordered_json::array();
            for (const auto& s : steps)
                j["steps"].push_back({{"change", store::changeKindName(s.kind)},
                                      {"a_step", s.indexA >= 0 ? ordered_json(s.indexA + 1) : ordered_json(nullptr)},
                                      {"b_step", s.indexB >= 0 ? ordered_json(s.indexB + 1) : ordered_json(nullptr)},
                                      {"a", s.before},
                                      {"b", s.after}});
            m_out << jsonText(j) << "\n";
            return kExitOk;
        }
        char line[512];
        const int w = static_cast<int>(std::max<std::size_t>({16, a->name.size(), b->name.size()}));
        std::snprintf(line, sizeof line, "%-24s %*s %*s %8s\n", "", w, a->name.c_str(), w, b->name.c_str(), "B/A");
        m_out << line;
        for (const auto& r : rows) {
            std::snprintf(line, sizeof line, r.integral ? "%-24s %*.0f %*.0f %8s\n" : "%-24s %*.4f %*.4f %8s\n", r.name.c_str(), w, r.a, w, r.b,
                          ratioText(r.a, r.b).c_str());
            m_out << line;
        }
        if (rows.empty())
            m_out << "(no figures: a trace does not replay)\n";
        m_out << "\nsteps (= same, ~ changed, - only in " << a->name << ", + only in " << b->name << ")\n";
        for (const auto& s : steps) {
            switch (s.kind) {
            case store::ChangeKind::Same: m_out << "  = " << s.after << "\n"; break;
            case store::ChangeKind::Changed: m_out << "  ~ " << s.before << "  ->  " << s.after << "\n"; break;
            case store::ChangeKind::Removed: m_out << "  - " << s.before << "\n"; break;
            case store::ChangeKind::Added: m_out << "  + " << s.after << "\n"; break;
            }
        }
        return kExitOk;
    }

    if (o.exportCmd->parsed()) {
        auto v = find(o.a);
        if (!v)
            return kExitBadInput;
        // A name that is no file ("", "out/"), a folder, or a place that cannot be written: said
        // before anything (files in the way are said below, all of them).
        if (const std::string why = checkWritable(o.out, true); !why.empty())
            return fail("--out: " + why);
        auto ex = store::exportVariant(ws, *v, o.out, builtinText());
        if (!ex)
            return fail(ex.errorText());
        std::vector<std::pair<std::string, std::string>> files = ex->extraFiles;
        files.insert(files.begin(), {fs::absolute(o.out).string(), ex->text});
        std::error_code ec;
        if (!o.force) {
            std::string inTheWay;
            for (const auto& [p, text] : files)
                if (fs::exists(fs::symlink_status(p, ec)))
                    inTheWay += (inTheWay.empty() ? "" : ", ") + p;
            if (!inTheWay.empty())
                return fail("not written: " + inTheWay + " exist(s); use --force to replace");
        }
        // The folder named is made when missing, as `export --out DIR` makes DIR.
        if (const std::string why = makeFolderFor(o.out); !why.empty())
            return fail(why);
        for (const auto& [p, text] : files) {
            std::string why;
            // Atomic; a link in the way (only with --force) is replaced, never written through.
            if (!writeFileAtomically(p, text, why, LinkPolicy::ReplaceLink))
                return fail(why);
        }
        for (const auto& n : ex->notes)
            m_err << "note: " << n << "\n";
        if (o.json) {
            ordered_json j = ordered_json::array();
            for (const auto& [p, text] : files)
                j.push_back(p);
            m_out << jsonText(ordered_json({{"written", j}})) << "\n";
        } else {
            for (const auto& [p, text] : files)
                m_out << p << "\n";
        }
        return kExitOk;
    }

    if (o.import->parsed()) {
        std::error_code ec;
        if (!fs::is_directory(o.folder, ec))
            return fail(o.folder + ": not a folder");
        std::vector<fs::path> schedules;
        for (const auto& e : fs::directory_iterator(o.folder, ec))
            if (e.is_regular_file(ec) && e.path().string().ends_with(".sched.yaml"))   // a link loop is not one
                schedules.push_back(e.path());
        std::sort(schedules.begin(), schedules.end());
        std::vector<store::NewVariant> loaded;
        std::vector<std::string> bad;
        for (const auto& p : schedules) {
            auto nv = store::variantFromScheduleFile(p.string(), targetParser(), builtinText());
            if (nv)
                loaded.push_back(std::move(*nv));
            else
                bad.push_back(nv.errorText());
        }
        if (!bad.empty() && !o.skipBad) {
            for (const auto& b : bad)
                m_err << b << "\n";
            return fail("nothing imported: " + std::to_string(bad.size()) + " of " + std::to_string(schedules.size())
                        + " schedules do not load (fix them, or pass --skip-bad to import the others)");
        }
        ordered_json j = ordered_json::array();
        int added = 0, skipped = 0;
        for (auto& nv : loaded) {
            if (auto existing = ws.variantByName(nv.name); existing && existing->trace == nv.trace) {
                ++skipped;
                j.push_back({{"name", nv.name}, {"result", "already there"}});
                if (!o.json)
                    m_out << "skipped " << nv.name << " (already in the workspace)\n";
                continue;
            }
            nv.name = ws.uniqueName(nv.name);
            auto id = ws.addVariant(nv);
            if (!id)
                return fail(id.errorText());
            ++added;
            j.push_back({{"name", nv.name}, {"result", "added"}, {"id", *id}});
            if (!o.json)
                m_out << "added " << nv.name << "\n";
        }
        for (const auto& b : bad)
            m_err << "skipped: " << b << "\n";
        if (o.json)
            m_out << jsonText(ordered_json({{"added", added}, {"unchanged", skipped}, {"bad", bad.size()}, {"variants", j}})) << "\n";
        else
            m_out << added << " added, " << skipped << " already there" << (bad.empty() ? "" : ", " + std::to_string(bad.size()) + " did not load") << "\n";
        return kExitOk;
    }

    if (o.check->parsed()) {
        std::vector<std::string> problems = ws.integrityProblems();
        auto summary = ws.readEverything();
        if (!summary)
            problems.push_back(summary.errorText());
        std::vector<std::string> notes;
        for (const auto& v : ws.variants()) {
            auto p = store::rebuildVariant(ws, v, targetParser());
            if (!p)
                problems.push_back("variant '" + v.name + "' does not rebuild from its stored files: " + p.errorText());
            else if (p->failedStep)
                notes.push_back("variant '" + v.name + "': " + p->failedStep->str());
            if (v.figures && !v.figures->reportJson.empty() && !ordered_json::accept(v.figures->reportJson))
                problems.push_back("variant '" + v.name + "': its stored report is not JSON");
            for (const auto& [what, hash] : {std::pair{"kernel", v.kernelHash}, std::pair{"target", v.targetHash}})
                if (auto f = ws.file(hash); f && store::diskState(*f, builtinText()) != store::DiskState::Same)
                    notes.push_back("variant '" + v.name + "': its " + what + " " + f->path + " is " + store::diskStateName(store::diskState(*f, builtinText()))
                                    + " on disk (the stored text is used)");
        }
        const auto recoverable = ws.recoverable(true);
        for (const auto& r : recoverable)
            notes.push_back("unsaved edits of " + (r.session.document.empty() ? std::string("an untitled document") : r.session.document) + " ("
                            + std::to_string(r.session.entries) + " journal entries, last " + timeText(r.last.at) + ") can be restored by the app");
        if (o.json) {
            ordered_json j;
            j["workspace"] = ws.path();
            j["ok"] = problems.empty();
            j["schema_version"] = ws.schemaVersion();
            if (summary)
                j["counts"] = {{"files", summary->files},           {"variants", summary->variants},
                               {"figures", summary->figures},       {"measurements", summary->measurements},
                               {"journal_sessions", summary->journalSessions}, {"journal_entries", summary->journalEntries},
                               {"search_runs", summary->searchRuns}, {"search_points", summary->searchPoints}};
            j["problems"] = problems;
            j["notes"] = notes;
            m_out << jsonText(j) << "\n";
        } else {
            m_out << ws.path() << ": schema version " << ws.schemaVersion();
            if (summary)
                m_out << ", " << summary->variants << " variants, " << summary->files << " stored files, " << summary->measurements << " measurements, "
                      << summary->searchRuns << " search runs, " << summary->journalEntries << " journal entries";
            m_out << "\n";
            for (const auto& n : notes)
                m_out << "note: " << n << "\n";
            for (const auto& p : problems)
                m_err << ws.path() << ": " << p << "\n";
            m_out << (problems.empty() ? "integrity check passed\n" : "integrity check FAILED\n");
        }
        return problems.empty() ? kExitOk : kExitBadInput;
    }
    return kExitBadInput;
}

} // namespace loopscope::cli
