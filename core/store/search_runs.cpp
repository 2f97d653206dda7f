// Search runs: the schedule search streams its parameters, progress and Pareto points (as
// variants) into the workspace while it runs.
#include "store/workspace.h"
#include "store/workspace_impl.h"

namespace loopscope::store {

using detail::bindOptional;
using detail::optionalInt;

const char* searchStatusName(SearchStatus s)
{
    switch (s) {
    case SearchStatus::Running: return "running";
    case SearchStatus::Finished: return "finished";
    case SearchStatus::Cancelled: return "cancelled";
    case SearchStatus::Failed: return "failed";
    }
    return "running";
}

namespace {

SearchStatus parseStatus(const std::string& s)
{
    for (SearchStatus st : {SearchStatus::Running, SearchStatus::Finished, SearchStatus::Cancelled, SearchStatus::Failed})
        if (s == searchStatusName(st))
            return st;
    return SearchStatus::Failed;
}

std::vector<SearchRun> selectRuns(SQLite::Database& db, const std::optional<int64_t>& id)
{
    SQLite::Statement q(db, std::string("SELECT id, kernel_hash, target_hash, base_variant_id, parameters, status, evaluated, total, feasible, message, "
                                        "project_version, started_at, updated_at, finished_at FROM search_runs")
                                + (id ? " WHERE id = ?" : "") + " ORDER BY id");
    if (id)
        q.bind(1, *id);
    std::vector<SearchRun> out;
    while (q.executeStep()) {
        SearchRun r;
        r.id = q.getColumn(0).getInt64();
        r.kernelHash = q.getColumn(1).getString();
        r.targetHash = q.getColumn(2).getString();
        r.baseVariantId = optionalInt(q.getColumn(3));
        r.parametersJson = q.getColumn(4).getString();
        r.status = parseStatus(q.getColumn(5).getString());
        r.evaluated = q.getColumn(6).getInt64();
        r.total = q.getColumn(7).getInt64();
        r.feasible = q.getColumn(8).getInt64();
        r.message = q.getColumn(9).getString();
        r.projectVersion = q.getColumn(10).getString();
        r.startedAt = q.getColumn(11).getInt64();
        r.updatedAt = q.getColumn(12).getInt64();
        r.finishedAt = optionalInt(q.getColumn(13));
        out.push_back(std::move(r));
    }
    return out;
}

} // namespace

Result<int64_t> Workspace::beginSearchRun(const SearchRun& r)
{
    return m_d->writeReturning<int64_t>("cannot start a search run", [&] {
        const Millis now = nowMillis();
        SQLite::Statement q(*m_d->db, "INSERT INTO search_runs(kernel_hash, target_hash, base_variant_id, parameters, status, evaluated, total, feasible, "
                                      "message, project_version, started_at, updated_at) VALUES (?, ?, ?, ?, 'running', 0, ?, 0, '', ?, ?, ?)");
        q.bind(1, r.kernelHash);
        q.bind(2, r.targetHash);
        bindOptional(q, 3, r.baseVariantId);
        q.bind(4, r.parametersJson.empty() ? std::string("{}") : r.parametersJson);
        q.bind(5, r.total);
        q.bind(6, r.projectVersion.empty() ? projectVersion() : r.projectVersion);
        q.bind(7, r.startedAt ? r.startedAt : now);
        q.bind(8, now);
        q.exec();
        return m_d->db->getLastInsertRowid();
    });
}

Result<Done> Workspace::updateSearchProgress(int64_t runId, int64_t evaluated, int64_t total, int64_t feasible)
{
    return m_d->write("cannot record the progress of search run " + std::to_string(runId), [&] {
        SQLite::Statement q(*m_d->db, "UPDATE search_runs SET evaluated = ?, total = ?, feasible = ?, updated_at = ? WHERE id = ? AND status = 'running'");
        q.bind(1, evaluated);
        q.bind(2, total);
        q.bind(3, feasible);
        q.bind(4, nowMillis());
        q.bind(5, runId);
        if (q.exec() == 0)
            throw std::runtime_error("no running search run with id " + std::to_string(runId));
    });
}

Result<int64_t> Workspace::addSearchPoint(int64_t runId, const NewVariant& v, const std::string& objectivesJson)
{
    return m_d->writeReturning<int64_t>("cannot add a point to search run " + std::to_string(runId), [&] {
        if (selectRuns(*m_d->db, runId).empty())
            throw std::runtime_error("no search run with id " + std::to_string(runId));
        NewVariant tagged = v;
        if (std::find(tagged.tags.begin(), tagged.tags.end(), "search") == tagged.tags.end())
            tagged.tags.push_back("search");
        const int64_t id = detail::insertVariant(*m_d->db, tagged, runId);
        SQLite::Statement q(*m_d->db, "INSERT INTO search_points(run_id, variant_id, objectives, on_front, found_at) VALUES (?, ?, ?, 1, ?)");
        q.bind(1, runId);
        q.bind(2, id);
        q.bind(3, objectivesJson.empty() ? std::string("{}") : objectivesJson);
        q.bind(4, nowMillis());
        q.exec();
        return id;
    });
}

Result<Done> Workspace::setOnFront(int64_t runId, int64_t variantId, bool onFront)
{
    return m_d->write("cannot update search run " + std::to_string(runId), [&] {
        SQLite::Statement q(*m_d->db, "UPDATE search_points SET on_front = ? WHERE run_id = ? AND variant_id = ?");
        q.bind(1, onFront ? 1 : 0);
        q.bind(2, runId);
        q.bind(3, variantId);
        if (q.exec() == 0)
            throw std::runtime_error("variant " + std::to_string(variantId) + " is no point of search run " + std::to_string(runId));
    });
}

Result<Done> Workspace::finishSearchRun(int64_t runId, SearchStatus status, const std::string& message)
{
    return m_d->write("cannot finish search run " + std::to_string(runId), [&] {
        SQLite::Statement q(*m_d->db, "UPDATE search_runs SET status = ?, message = ?, updated_at = ?, finished_at = ? WHERE id = ?");
        const Millis now = nowMillis();
        q.bind(1, searchStatusName(status));
        q.bind(2, message);
        q.bind(3, now);
        if (status == SearchStatus::Running)
            q.bind(4);
        else
            q.bind(4, now);
        q.bind(5, runId);
        if (q.exec() == 0)
            throw std::runtime_error("no search run with id " + std::to_string(runId));
    });
}

std::vector<SearchRun> Workspace::searchRuns() const
{
    return m_d->read<std::vector<SearchRun>>([&] { return selectRuns(*m_d->db, std::nullopt); });
}

std::optional<SearchRun> Workspace::searchRun(int64_t runId) const
{
    auto runs = m_d->read<std::vector<SearchRun>>([&] { return selectRuns(*m_d->db, runId); });
    if (runs.empty())
        return std::nullopt;
    return runs.front();
}

std::vector<SearchPoint> Workspace::searchPoints(int64_t runId, bool frontOnly) const
{
    return m_d->read<std::vector<SearchPoint>>([&] {
        SQLite::Statement q(*m_d->db, std::string("SELECT run_id, variant_id, objectives, on_front, found_at FROM search_points WHERE run_id = ?")
                                          + (frontOnly ? " AND on_front = 1" : "") + " ORDER BY found_at, variant_id");
        q.bind(1, runId);
        std::vector<SearchPoint> out;
        while (q.executeStep())
            out.push_back({q.getColumn(0).getInt64(), q.getColumn(1).getInt64(), q.getColumn(2).getString(), q.getColumn(3).getInt() != 0,
                           q.getColumn(4).getInt64()});
        return out;
    });
}

} // namespace loopscope::store
