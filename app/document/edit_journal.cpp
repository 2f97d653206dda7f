// The edit journal: classifying undo-stack changes and writing them on a worker thread.
#include "edit_journal.h"

#include "schedule_document.h"
#include "store/journal_replay.h"
#include "store/workspace.h"

#include <QFileInfo>
#include <QUndoStack>

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

namespace loopscope::ui {

/// Runs the journal's writes in order on a thread of its own, with its own connection.
class EditJournal::Writer {
public:
    Writer() : m_thread([this] { run(); }) {}
    ~Writer()
    {
        {
            std::lock_guard lock(m_mutex);
            m_stop = true;
        }
        m_wake.notify_all();
        m_thread.join();
    }
    /// Queues a job; it runs on the worker thread with the writer's state.
    void post(std::function<void(Writer&)> job)
    {
        {
            std::lock_guard lock(m_mutex);
            m_jobs.push_back(std::move(job));
            ++m_pending;
        }
        m_wake.notify_all();
    }
    void flush()
    {
        std::unique_lock lock(m_mutex);
        m_idle.wait(lock, [this] { return m_pending == 0; });
    }

    // Touched on the worker thread only.
    std::string path;
    std::unique_ptr<store::Workspace> ws;
    std::string openError;
    int64_t session = 0;                          ///< the session begun in `ws` (0: none yet)
    std::optional<store::JournalSession> next;    ///< the session the next entry begins
    sched::ScheduleFile nextBase;

private:
    void run()
    {
        for (;;) {
            std::function<void(Writer&)> job;
            {
                std::unique_lock lock(m_mutex);
                m_wake.wait(lock, [this] { return m_stop || !m_jobs.empty(); });
                if (m_jobs.empty())
                    return;
                job = std::move(m_jobs.front());
                m_jobs.pop_front();
            }
            job(*this);
            {
                std::lock_guard lock(m_mutex);
                --m_pending;
            }
            m_idle.notify_all();
        }
    }

    std::mutex m_mutex;
    std::condition_variable m_wake;
    std::condition_variable m_idle;
    std::deque<std::function<void(Writer&)>> m_jobs;
    int m_pending = 0;
    bool m_stop = false;
    std::thread m_thread;   // last: started once the members above exist
};

EditJournal::EditJournal(ScheduleDocument* doc, QObject* parent) : QObject(parent), m_doc(doc), m_writer(std::make_unique<Writer>())
{
    connect(doc, &ScheduleDocument::opening, this, [this] { m_suspended = true; });
    connect(doc, &ScheduleDocument::opened, this, [this] {
        m_suspended = false;
        endSession();
        startSession();
    });
    connect(doc->undoStack(), &QUndoStack::indexChanged, this, &EditJournal::onIndexChanged);
    // The document's undo stack clears itself as it is destroyed: that is no edit.
    connect(doc, &QObject::destroyed, this, [this] { m_doc = nullptr; });
    startSession();
}

EditJournal::~EditJournal()
{
    endSession();
    m_writer->flush();
}

std::vector<const QUndoCommand*> EditJournal::commands() const
{
    const QUndoStack* stack = m_doc->undoStack();
    std::vector<const QUndoCommand*> out(static_cast<std::size_t>(stack->count()));
    for (int i = 0; i < stack->count(); ++i)
        out[static_cast<std::size_t>(i)] = stack->command(i);
    return out;
}

void EditJournal::startSession()
{
    if (!m_doc)
        return;
    m_baseIndex = m_doc->undoStack()->index();
    m_commands = commands();
    m_lastIndex = m_baseIndex;
    // The session is begun in the file with its first entry: a document opened and closed
    // without an edit leaves nothing.
    store::JournalSession s;
    s.document = m_doc->filePath().toStdString();
    s.variantId = m_variant;
    m_writer->post([s, base = m_doc->isOpen() ? m_doc->stateFile() : sched::ScheduleFile{}](Writer& w) {
        w.next = s;
        w.nextBase = base;
    });
}

void EditJournal::endSession()
{
    m_writer->post([](Writer& w) {
        if (w.ws && w.session)
            (void)w.ws->closeJournal(w.session);
        w.session = 0;
        w.next.reset();
    });
}

void EditJournal::setVariant(std::optional<int64_t> id)
{
    m_variant = id;
    m_writer->post([id](Writer& w) {
        if (w.next)
            w.next->variantId = id;
    });
}

void EditJournal::setWorkspace(const QString& path)
{
    if (path == m_path)
        return;
    endSession();
    m_path = path;
    // The edits from here on are journaled from the document as it is now.
    startSession();
    m_writer->post([path = path.toStdString()](Writer& w) {
        w.ws.reset();
        w.session = 0;
        w.path = path;
        w.openError.clear();
    });
}

void EditJournal::flush() { m_writer->flush(); }

void EditJournal::onIndexChanged(int index)
{
    if (!m_doc)
        return;
    const auto now = commands();
    const bool sameCommands = now == m_commands;
    const int before = m_lastIndex;
    m_commands = now;
    m_lastIndex = index;
    if (m_suspended || m_path.isEmpty() || !m_doc->isOpen())
        return;
    // Undo and redo move over the same commands; anything else (a push, a merge, a command
    // merged into nothing) changed the stack at the index.
    const QUndoStack* stack = m_doc->undoStack();
    std::string action;
    if (sameCommands && index < before)
        action = std::string(store::kJournalUndo) + stack->text(index).toStdString();
    else if (sameCommands && index > before)
        action = std::string(store::kJournalRedo) + stack->text(index - 1).toStdString();
    else
        action = index > 0 ? stack->text(index - 1).toStdString() : std::string("back to the opened document");

    store::JournalEntry entry;
    entry.action = action;
    entry.undoIndex = index - m_baseIndex;
    entry.clean = stack->isClean();
    entry.at = store::nowMillis();
    // Formatting and writing happen on the writer's thread.
    m_writer->post([this, entry, state = m_doc->stateFile()](Writer& w) mutable {
        auto fail = [this](const std::string& message) {
            QMetaObject::invokeMethod(this, [this, message] { emit writeFailed(QString::fromStdString(message)); }, Qt::QueuedConnection);
        };
        if (!w.ws) {
            if (!w.openError.empty())
                return;  // said once per workspace
            auto ws = store::Workspace::open(w.path);
            if (!ws) {
                w.openError = ws.errorText();
                fail(w.openError);
                return;
            }
            w.ws = std::move(*ws);
        }
        if (!w.session && w.next) {
            w.next->base = sched::formatScheduleFile(w.nextBase);
            auto id = w.ws->beginJournal(*w.next);
            if (!id) {
                fail(id.errorText());
                return;
            }
            w.session = *id;
            w.next.reset();
        }
        if (!w.session)
            return;
        entry.state = sched::formatScheduleFile(state);
        auto seq = w.ws->appendJournal(w.session, entry);
        if (!seq) {
            fail(seq.errorText());
            return;
        }
        QMetaObject::invokeMethod(
            this,
            [this, seq = *seq, action = QString::fromStdString(entry.action)] {
                ++m_written;
                emit entryWritten(seq, action);
            },
            Qt::QueuedConnection);
    });
}

} // namespace loopscope::ui
