// Variants of a workspace: adding, reading, renaming, duplicating, deleting; their figures,
// tags and measurements.
#include "store/workspace.h"
#include "store/workspace_impl.h"

#include <algorithm>

namespace loopscope::store {

using detail::bindOptional;
using detail::optionalInt;

int64_t Figures::homeTrafficBytes() const { return levels.empty() ? 0 : levels.front().readBytes + levels.front().writeBytes; }
int64_t Figures::innerPeakBytes() const { return levels.size() < 2 ? 0 : levels[1].peakBytes; }
std::string Figures::innerLevelName() const { return levels.size() < 2 ? std::string() : levels[1].name; }

namespace {

constexpr const char* kVariantColumns =
    "id, name, notes, trace, kernel_hash, kernel_path, target_hash, target, parent_id, search_run_id, created_at, modified_at FROM variants";

void insertFigures(SQLite::Database& db, int64_t variantId, const Figures& f)
{
    const std::string version = f.projectVersion.empty() ? projectVersion() : f.projectVersion;
    SQLite::Statement del(db, "DELETE FROM figures WHERE variant_id = ? AND project_version = ?");
    del.bind(1, variantId);
    del.bind(2, version);
    del.exec();
    SQLite::Statement q(db,
                        "INSERT INTO figures(variant_id, project_version, analyzed_at, macs, cycles, compute_cycles, transfer_cycles, overlap_ratio, "
                        "latency_ms, energy_uj, bound_compute_cycles, compulsory_bytes, io_lower_bound_bytes, predicted_instructions, errors, "
                        "warnings, report_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    q.bind(1, variantId);
    q.bind(2, version);
    q.bind(3, f.analyzedAt ? f.analyzedAt : nowMillis());
    q.bind(4, f.macs);
    q.bind(5, f.cycles);
    q.bind(6, f.computeCycles);
    q.bind(7, f.transferCycles);
    q.bind(8, f.overlapRatio);
    q.bind(9, f.latencyMs);
    q.bind(10, f.energyUj);
    q.bind(11, f.boundComputeCycles);
    q.bind(12, f.compulsoryBytes);
    bindOptional(q, 13, f.ioLowerBoundBytes);
    bindOptional(q, 14, f.predictedInstructions);
    q.bind(15, f.errors);
    q.bind(16, f.warnings);
    q.bind(17, f.reportJson);
    q.exec();
    SQLite::Statement l(db, "INSERT INTO figure_levels(variant_id, project_version, level, name, capacity_bytes, peak_bytes, read_bytes, write_bytes) "
                            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
    for (std::size_t i = 0; i < f.levels.size(); ++i) {
        const LevelFigures& lv = f.levels[i];
        l.bind(1, variantId);
        l.bind(2, version);
        l.bind(3, static_cast<int64_t>(i));
        l.bind(4, lv.name);
        l.bind(5, lv.capacityBytes);
        l.bind(6, lv.peakBytes);
        l.bind(7, lv.readBytes);
        l.bind(8, lv.writeBytes);
        l.exec();
        l.reset();
    }
}

void insertTags(SQLite::Database& db, int64_t variantId, const std::vector<std::string>& tags)
{
    SQLite::Statement del(db, "DELETE FROM variant_tags WHERE variant_id = ?");
    del.bind(1, variantId);
    del.exec();
    SQLite::Statement q(db, "INSERT OR IGNORE INTO variant_tags(variant_id, tag) VALUES (?, ?)");
    for (const auto& t : tags) {
        if (t.empty())
            continue;
        q.bind(1, variantId);
        q.bind(2, t);
        q.exec();
        q.reset();
    }
}

void touch(SQLite::Database& db, int64_t id)
{
    SQLite::Statement q(db, "UPDATE variants SET modified_at = max(?, modified_at + 1) WHERE id = ?");
    q.bind(1, nowMillis());
    q.bind(2, id);
    if (q.exec() == 0)
        throw std::runtime_error("no variant with id " + std::to_string(id));
}

std::optional<Figures> readFigures(SQLite::Database& db, int64_t variantId)
{
    SQLite::Statement q(db,
                        "SELECT project_version, analyzed_at, macs, cycles, compute_cycles, transfer_cycles, overlap_ratio, latency_ms, energy_uj, "
                        "bound_compute_cycles, compulsory_bytes, io_lower_bound_bytes, predicted_instructions, errors, warnings, report_json "
                        "FROM figures WHERE variant_id = ? ORDER BY analyzed_at DESC, project_version DESC LIMIT 1");
    q.bind(1, variantId);
    if (!q.executeStep())
        return std::nullopt;
    Figures f;
    f.projectVersion = q.getColumn(0).getString();
    f.analyzedAt = q.getColumn(1).getInt64();
    f.macs = q.getColumn(2).getInt64();
    f.cycles = q.getColumn(3).getInt64();
    f.computeCycles = q.getColumn(4).getInt64();
    f.transferCycles = q.getColumn(5).getInt64();
    f.overlapRatio = q.getColumn(6).getDouble();
    f.latencyMs = q.getColumn(7).getDouble();
    f.energyUj = q.getColumn(8).getDouble();
    f.boundComputeCycles = q.getColumn(9).getInt64();
    f.compulsoryBytes = q.getColumn(10).getInt64();
    f.ioLowerBoundBytes = optionalInt(q.getColumn(11));
    f.predictedInstructions = optionalInt(q.getColumn(12));
    f.errors = q.getColumn(13).getInt();
    f.warnings = q.getColumn(14).getInt();
    f.reportJson = q.getColumn(15).getString();
    SQLite::Statement l(db, "SELECT name, capacity_bytes, peak_bytes, read_bytes, write_bytes FROM figure_levels "
                            "WHERE variant_id = ? AND project_version = ? ORDER BY level");
    l.bind(1, variantId);
    l.bind(2, f.projectVersion);
    while (l.executeStep())
        f.levels.push_back({l.getColumn(0).getString(), l.getColumn(1).getInt64(), l.getColumn(2).getInt64(), l.getColumn(3).getInt64(),
                            l.getColumn(4).getInt64()});
    return f;
}

Variant readVariantRow(SQLite::Database& db, SQLite::Statement& q)
{
    Variant v;
    v.id = q.getColumn(0).getInt64();
    v.name = q.getColumn(1).getString();
    v.notes = q.getColumn(2).getString();
    v.trace = q.getColumn(3).getString();
    v.kernelHash = q.getColumn(4).getString();
    v.kernelPath = q.getColumn(5).getString();
    v.targetHash = q.getColumn(6).getString();
    v.target = q.getColumn(7).getString();
    v.parentId = optionalInt(q.getColumn(8));
    v.searchRunId = optionalInt(q.getColumn(9));
    v.createdAt = q.getColumn(10).getInt64();
    v.modifiedAt = q.getColumn(11).getInt64();
    SQLite::Statement t(db, "SELECT tag FROM variant_tags WHERE variant_id = ? ORDER BY tag");
    t.bind(1, v.id);
    while (t.executeStep())
        v.tags.push_back(t.getColumn(0).getString());
    v.figures = readFigures(db, v.id);
    SQLite::Statement m(db, "SELECT id, machine, compiler, compiler_version, instructions, project_version, measured_at FROM measurements "
                            "WHERE variant_id = ? ORDER BY measured_at DESC, id DESC");
    m.bind(1, v.id);
    while (m.executeStep())
        v.measurements.push_back({m.getColumn(0).getInt64(), v.id, m.getColumn(1).getString(), m.getColumn(2).getString(), m.getColumn(3).getString(),
                                  m.getColumn(4).getInt64(), m.getColumn(5).getString(), m.getColumn(6).getInt64()});
    return v;
}

std::vector<Variant> selectVariants(SQLite::Database& db, const std::string& where, const std::function<void(SQLite::Statement&)>& bind)
{
    SQLite::Statement q(db, std::string("SELECT ") + kVariantColumns + (where.empty() ? "" : " WHERE " + where));
    if (bind)
        bind(q);
    std::vector<Variant> out;
    while (q.executeStep())
        out.push_back(readVariantRow(db, q));
    return out;
}

} // namespace

namespace detail {

int64_t insertVariant(SQLite::Database& db, const NewVariant& v, std::optional<int64_t> searchRunId)
{
    if (v.name.empty())
        throw std::runtime_error("a variant needs a name");
    SQLite::Statement exists(db, "SELECT 1 FROM variants WHERE name = ?");
    exists.bind(1, v.name);
    if (exists.executeStep())
        throw std::runtime_error("a variant named '" + v.name + "' exists already");
    const std::string kernelHash = storeFileIn(db, FileKind::Kernel, v.kernelPath, v.kernelText);
    // A built-in target is named by its name (no folder in it), a target file by its path.
    const std::string targetPath = v.target.find('/') == std::string::npos ? "builtin:" + v.target : v.target;
    const std::string targetHash = storeFileIn(db, FileKind::Target, targetPath, v.targetText);
    const Millis now = nowMillis();
    SQLite::Statement q(db, "INSERT INTO variants(name, notes, trace, kernel_hash, kernel_path, target_hash, target, parent_id, search_run_id, "
                            "created_at, modified_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    q.bind(1, v.name);
    q.bind(2, v.notes);
    q.bind(3, v.trace);
    q.bind(4, kernelHash);
    q.bind(5, v.kernelPath);
    q.bind(6, targetHash);
    q.bind(7, v.target);
    bindOptional(q, 8, v.parentId);
    bindOptional(q, 9, searchRunId);
    q.bind(10, now);
    q.bind(11, now);
    q.exec();
    const int64_t id = db.getLastInsertRowid();
    insertTags(db, id, v.tags);
    if (v.figures)
        insertFigures(db, id, *v.figures);
    return id;
}

} // namespace detail

Result<int64_t> Workspace::addVariant(const NewVariant& v)
{
    return m_d->writeReturning<int64_t>("cannot add variant '" + v.name + "'", [&] { return detail::insertVariant(*m_d->db, v, std::nullopt); });
}

std::vector<Variant> Workspace::variants(VariantOrder order) const
{
    auto all = m_d->read<std::vector<Variant>>([&] { return selectVariants(*m_d->db, "", nullptr); });
    auto cycles = [](const Variant& v) { return v.figures ? v.figures->cycles : INT64_MAX; };
    std::stable_sort(all.begin(), all.end(), [&](const Variant& a, const Variant& b) {
        switch (order) {
        case VariantOrder::Modified: return a.modifiedAt > b.modifiedAt;
        case VariantOrder::Created: return a.createdAt < b.createdAt || (a.createdAt == b.createdAt && a.id < b.id);
        case VariantOrder::Cycles: return cycles(a) < cycles(b);
        case VariantOrder::Name: break;
        }
        return a.name < b.name;
    });
    return all;
}

std::string Workspace::variantsStamp() const
{
    return m_d->read<std::string>([&] {
        SQLite::Statement q(*m_d->db, "SELECT (SELECT count(*) || '/' || coalesce(max(modified_at), 0) || '/' || coalesce(max(id), 0) FROM variants) || ':' || "
                                      "(SELECT count(*) || '/' || coalesce(max(analyzed_at), 0) FROM figures) || ':' || "
                                      "(SELECT count(*) || '/' || coalesce(max(id), 0) FROM measurements) || ':' || "
                                      "(SELECT count(*) FROM search_points WHERE on_front = 1)");
        q.executeStep();
        return q.getColumn(0).getString();
    });
}

std::optional<Variant> Workspace::variant(int64_t id) const
{
    auto v = m_d->read<std::vector<Variant>>([&] { return selectVariants(*m_d->db, "id = ?", [&](SQLite::Statement& q) { q.bind(1, id); }); });
    if (v.empty())
        return std::nullopt;
    return v.front();
}

std::optional<Variant> Workspace::variantByName(const std::string& name) const
{
    auto v = m_d->read<std::vector<Variant>>([&] { return selectVariants(*m_d->db, "name = ?", [&](SQLite::Statement& q) { q.bind(1, name); }); });
    if (v.empty())
        return std::nullopt;
    return v.front();
}

std::optional<Variant> Workspace::findVariant(const std::string& nameOrId) const
{
    if (auto v = variantByName(nameOrId))
        return v;
    if (nameOrId.empty() || nameOrId.size() > 18 || !std::all_of(nameOrId.begin(), nameOrId.end(), [](char c) { return c >= '0' && c <= '9'; }))
        return std::nullopt;
    return variant(std::stoll(nameOrId));
}

Result<Done> Workspace::renameVariant(int64_t id, const std::string& name)
{
    return m_d->write("cannot rename variant " + std::to_string(id) + " to '" + name + "'", [&] {
        if (name.empty())
            throw std::runtime_error("a variant needs a name");
        SQLite::Statement exists(*m_d->db, "SELECT 1 FROM variants WHERE name = ? AND id <> ?");
        exists.bind(1, name);
        exists.bind(2, id);
        if (exists.executeStep())
            throw std::runtime_error("a variant named '" + name + "' exists already");
        SQLite::Statement q(*m_d->db, "UPDATE variants SET name = ? WHERE id = ?");
        q.bind(1, name);
        q.bind(2, id);
        q.exec();
        touch(*m_d->db, id);
    });
}

Result<Done> Workspace::setNotes(int64_t id, const std::string& notes)
{
    return m_d->write("cannot change the notes of variant " + std::to_string(id), [&] {
        SQLite::Statement q(*m_d->db, "UPDATE variants SET notes = ? WHERE id = ?");
        q.bind(1, notes);
        q.bind(2, id);
        q.exec();
        touch(*m_d->db, id);
    });
}

Result<Done> Workspace::setTags(int64_t id, const std::vector<std::string>& tags)
{
    return m_d->write("cannot change the tags of variant " + std::to_string(id), [&] {
        touch(*m_d->db, id);
        insertTags(*m_d->db, id, tags);
    });
}

Result<Done> Workspace::updateTrace(int64_t id, const std::string& trace, const std::optional<Figures>& figures)
{
    return m_d->write("cannot update variant " + std::to_string(id), [&] {
        touch(*m_d->db, id);
        SQLite::Statement q(*m_d->db, "UPDATE variants SET trace = ? WHERE id = ?");
        q.bind(1, trace);
        q.bind(2, id);
        q.exec();
        // Figures of the old trace no longer describe it.
        SQLite::Statement del(*m_d->db, "DELETE FROM figures WHERE variant_id = ?");
        del.bind(1, id);
        del.exec();
        SQLite::Statement delm(*m_d->db, "DELETE FROM measurements WHERE variant_id = ?");
        delm.bind(1, id);
        delm.exec();
        if (figures)
            insertFigures(*m_d->db, id, *figures);
    });
}

Result<Done> Workspace::addFigures(int64_t id, const Figures& figures)
{
    return m_d->write("cannot store the figures of variant " + std::to_string(id), [&] {
        touch(*m_d->db, id);
        insertFigures(*m_d->db, id, figures);
    });
}

Result<int64_t> Workspace::duplicateVariant(int64_t id, const std::string& name)
{
    return m_d->writeReturning<int64_t>("cannot duplicate variant " + std::to_string(id), [&] {
        auto found = selectVariants(*m_d->db, "id = ?", [&](SQLite::Statement& q) { q.bind(1, id); });
        if (found.empty())
            throw std::runtime_error("no variant with id " + std::to_string(id));
        const Variant& v = found.front();
        auto kernel = file(v.kernelHash);
        auto target = file(v.targetHash);
        if (!kernel || !target)
            throw std::runtime_error("its kernel or target file is missing from the workspace");
        NewVariant n{name, v.notes, v.trace, v.kernelPath, kernel->text, v.target, target->text, v.id, v.tags, v.figures};
        return detail::insertVariant(*m_d->db, n, std::nullopt);
    });
}

Result<Done> Workspace::deleteVariant(int64_t id)
{
    return m_d->write("cannot delete variant " + std::to_string(id), [&] {
        SQLite::Statement q(*m_d->db, "DELETE FROM variants WHERE id = ?");
        q.bind(1, id);
        if (q.exec() == 0)
            throw std::runtime_error("no variant with id " + std::to_string(id));
    });
}

std::string Workspace::uniqueName(const std::string& base) const
{
    const std::string stem = base.empty() ? "variant" : base;
    return m_d->read<std::string>(
        [&] {
            SQLite::Statement q(*m_d->db, "SELECT 1 FROM variants WHERE name = ?");
            for (int i = 1;; ++i) {
                const std::string name = i == 1 ? stem : stem + "-" + std::to_string(i);
                q.bind(1, name);
                const bool taken = q.executeStep();
                q.reset();
                if (!taken)
                    return name;
            }
        },
        stem);
}

Result<int64_t> Workspace::addMeasurement(const Measurement& m)
{
    return m_d->writeReturning<int64_t>("cannot store the measurement of variant " + std::to_string(m.variantId), [&] {
        SQLite::Statement q(*m_d->db, "INSERT INTO measurements(variant_id, machine, compiler, compiler_version, instructions, project_version, "
                                      "measured_at) VALUES (?, ?, ?, ?, ?, ?, ?)");
        q.bind(1, m.variantId);
        q.bind(2, m.machine);
        q.bind(3, m.compiler);
        q.bind(4, m.compilerVersion);
        q.bind(5, m.instructions);
        q.bind(6, m.projectVersion.empty() ? projectVersion() : m.projectVersion);
        q.bind(7, m.measuredAt ? m.measuredAt : nowMillis());
        q.exec();
        return m_d->db->getLastInsertRowid();
    });
}

} // namespace loopscope::store
