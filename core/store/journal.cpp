// The edit journal: the app appends every undo-stack change of the open document, each in its
// own transaction, so that a crash loses at most the change being written.
#include "store/workspace.h"
#include "store/workspace_impl.h"

#include <cerrno>
#include <csignal>

#include <unistd.h>

namespace loopscope::store {

using detail::bindOptional;
using detail::optionalInt;

namespace {

bool processAlive(int64_t pid)
{
    if (pid <= 0)
        return false;
    if (pid == getpid())
        return true;
    return kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM;
}

JournalEntry readEntry(SQLite::Statement& q)
{
    JournalEntry e;
    e.sessionId = q.getColumn(0).getInt64();
    e.seq = q.getColumn(1).getInt64();
    e.at = q.getColumn(2).getInt64();
    e.action = q.getColumn(3).getString();
    e.undoIndex = q.getColumn(4).getInt();
    e.clean = q.getColumn(5).getInt() != 0;
    e.state = q.getColumn(6).getString();
    return e;
}

constexpr const char* kEntryColumns = "session_id, seq, at, action, undo_index, clean, state FROM journal_entries";

} // namespace

Result<int64_t> Workspace::beginJournal(const JournalSession& s)
{
    return m_d->writeReturning<int64_t>("cannot start the edit journal", [&] {
        SQLite::Statement q(*m_d->db, "INSERT INTO journal_sessions(document, base, variant_id, pid, host, started_at) VALUES (?, ?, ?, ?, ?, ?)");
        q.bind(1, s.document);
        q.bind(2, s.base);
        bindOptional(q, 3, s.variantId);
        q.bind(4, static_cast<int64_t>(getpid()));
        q.bind(5, detail::hostName());
        q.bind(6, s.startedAt ? s.startedAt : nowMillis());
        q.exec();
        return m_d->db->getLastInsertRowid();
    });
}

Result<int64_t> Workspace::appendJournal(int64_t sessionId, const JournalEntry& e)
{
    return m_d->writeReturning<int64_t>("cannot append to the edit journal", [&] {
        SQLite::Statement next(*m_d->db, "SELECT coalesce(max(seq), 0) + 1 FROM journal_entries WHERE session_id = ?");
        next.bind(1, sessionId);
        next.executeStep();
        const int64_t seq = next.getColumn(0).getInt64();
        SQLite::Statement q(*m_d->db, "INSERT INTO journal_entries(session_id, seq, at, action, undo_index, clean, state) VALUES (?, ?, ?, ?, ?, ?, ?)");
        q.bind(1, sessionId);
        q.bind(2, seq);
        q.bind(3, e.at ? e.at : nowMillis());
        q.bind(4, e.action);
        q.bind(5, e.undoIndex);
        q.bind(6, e.clean ? 1 : 0);
        q.bind(7, e.state);
        q.exec();
        return seq;
    });
}

Result<Done> Workspace::closeJournal(int64_t sessionId)
{
    return m_d->write("cannot close the edit journal", [&] {
        SQLite::Statement q(*m_d->db, "DELETE FROM journal_sessions WHERE id = ?");
        q.bind(1, sessionId);
        q.exec();
    });
}

std::vector<JournalSession> Workspace::journalSessions() const
{
    return m_d->read<std::vector<JournalSession>>([&] {
        SQLite::Statement q(*m_d->db, "SELECT s.id, s.document, s.base, s.variant_id, s.pid, s.host, s.started_at, s.closed_at, "
                                      "(SELECT count(*) FROM journal_entries e WHERE e.session_id = s.id) FROM journal_sessions s ORDER BY s.id");
        std::vector<JournalSession> out;
        while (q.executeStep()) {
            JournalSession s;
            s.id = q.getColumn(0).getInt64();
            s.document = q.getColumn(1).getString();
            s.base = q.getColumn(2).getString();
            s.variantId = optionalInt(q.getColumn(3));
            s.pid = q.getColumn(4).getInt64();
            s.host = q.getColumn(5).getString();
            s.startedAt = q.getColumn(6).getInt64();
            s.closedAt = optionalInt(q.getColumn(7));
            s.entries = q.getColumn(8).getInt64();
            out.push_back(std::move(s));
        }
        return out;
    });
}

std::vector<JournalEntry> Workspace::journalEntries(int64_t sessionId) const
{
    return m_d->read<std::vector<JournalEntry>>([&] {
        SQLite::Statement q(*m_d->db, std::string("SELECT ") + kEntryColumns + " WHERE session_id = ? ORDER BY seq");
        q.bind(1, sessionId);
        std::vector<JournalEntry> out;
        while (q.executeStep())
            out.push_back(readEntry(q));
        return out;
    });
}

std::vector<Recoverable> Workspace::recoverable(bool otherHosts) const
{
    const std::string host = detail::hostName();
    std::vector<Recoverable> out;
    for (const JournalSession& s : journalSessions()) {
        if (s.closedAt || s.entries == 0)
            continue;
        if (s.host == host ? processAlive(s.pid) : !otherHosts)
            continue;
        auto last = m_d->read<std::optional<JournalEntry>>([&]() -> std::optional<JournalEntry> {
            SQLite::Statement q(*m_d->db, std::string("SELECT ") + kEntryColumns + " WHERE session_id = ? ORDER BY seq DESC LIMIT 1");
            q.bind(1, s.id);
            if (!q.executeStep())
                return std::nullopt;
            return readEntry(q);
        });
        if (last && !last->clean)
            out.push_back({s, *last});
    }
    return out;
}

} // namespace loopscope::store
