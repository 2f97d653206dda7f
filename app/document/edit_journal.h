// The edit journal of the open document: every change of its undo stack is appended to a
// workspace as it happens, each in its own transaction, on a thread of its own (an edit never
// waits for the disk), so that after a crash or kill -9 the next start can restore the
// unsaved document with at most the last edit lost.
#pragma once

#include "sched/schedule_file.h"

#include <QObject>
#include <QString>

#include <memory>
#include <optional>
#include <vector>

class QUndoCommand;

namespace loopscope::ui {

class ScheduleDocument;

/// One session per document from its opening (or saving) until it is closed or saved: its
/// base (the document then) and one entry per undo-stack change (push, merge, undo, redo)
/// with the action and the whole document after it. A normal end removes the session.
class EditJournal : public QObject {
    Q_OBJECT
public:
    explicit EditJournal(ScheduleDocument* doc, QObject* parent = nullptr);
    /// Ends the session normally and waits for the writes.
    ~EditJournal() override;

    /// The workspace file the journal writes into ("": none, nothing is journaled). Changing
    /// it ends the session in the old one normally; the next change starts one in the new
    /// workspace whose base is the document as it is then.
    void setWorkspace(const QString& path);
    QString workspace() const { return m_path; }
    /// The variant the open document was opened from (kept with its session).
    void setVariant(std::optional<int64_t> id);
    /// Ends the session normally (its entries are removed): the document was saved, closed or
    /// its changes discarded.
    void endSession();
    /// Waits until every queued write is in the file.
    void flush();
    /// Entries committed in this process.
    qint64 written() const { return m_written; }

signals:
    /// An entry is in the file: its place in its session and its action.
    void entryWritten(qint64 seq, const QString& action);
    /// A write failed; the next change is tried again.
    void writeFailed(const QString& message);

private:
    class Writer;
    void startSession();
    void onIndexChanged(int index);
    std::vector<const QUndoCommand*> commands() const;

    ScheduleDocument* m_doc;
    std::unique_ptr<Writer> m_writer;
    QString m_path;
    std::optional<int64_t> m_variant;
    bool m_suspended = false;     ///< between opening and opened: the stack is being cleared
    int m_baseIndex = 0;          ///< the undo index then; entries keep indices relative to it
    std::vector<const QUndoCommand*> m_commands;   ///< the stack after the last change
    int m_lastIndex = 0;
    qint64 m_written = 0;
};

} // namespace loopscope::ui
