// The undo commands of a ScheduleDocument: each swaps one small value of its state.
#pragma once

#include "schedule_document.h"
#include "sched/step.h"

#include <QString>
#include <QUndoCommand>

namespace loopscope::ui {

class ScheduleDocument;

/// Inserts a step at a position of the trace.
class AddStepCommand : public QUndoCommand {
public:
    AddStepCommand(ScheduleDocument* doc, int index, sched::Step step);
    void redo() override;
    void undo() override;

private:
    ScheduleDocument* m_doc;
    int m_index;
    sched::Step m_step;
};

/// Removes the step at a position.
class RemoveStepCommand : public QUndoCommand {
public:
    RemoveStepCommand(ScheduleDocument* doc, int index);
    void redo() override;
    void undo() override;

private:
    ScheduleDocument* m_doc;
    int m_index;
    sched::Step m_step;
};

/// Moves a step from one position to another.
class MoveStepCommand : public QUndoCommand {
public:
    MoveStepCommand(ScheduleDocument* doc, int from, int to);
    void redo() override;
    void undo() override;

private:
    ScheduleDocument* m_doc;
    int m_from;
    int m_to;
};

/// Replaces a step's parameters. Consecutive edits of one step within one merge session
/// (a spin-box drag) become a single undo entry.
class EditStepCommand : public QUndoCommand {
public:
    static constexpr int kId = 0x5e17;
    EditStepCommand(ScheduleDocument* doc, int index, sched::Step before, sched::Step after,
                    int mergeSession);
    void redo() override;
    void undo() override;
    int id() const override { return m_session != 0 ? kId : -1; }
    bool mergeWith(const QUndoCommand* other) override;

private:
    void updateText();
    ScheduleDocument* m_doc;
    int m_index;
    sched::Step m_before;
    sched::Step m_after;
    int m_session;
};

/// Runs the trace on another target.
class SetTargetCommand : public QUndoCommand {
public:
    SetTargetCommand(ScheduleDocument* doc, QString before, QString after);
    void redo() override;
    void undo() override;

private:
    ScheduleDocument* m_doc;
    QString m_before;
    QString m_after;
};

/// Swaps the whole state (an edit of the description, and whatever else is one value).
class SetStateCommand : public QUndoCommand {
public:
    SetStateCommand(ScheduleDocument* doc, DocumentState before, DocumentState after, const QString& text);
    void redo() override;
    void undo() override;

private:
    ScheduleDocument* m_doc;
    DocumentState m_before;
    DocumentState m_after;
};

} // namespace loopscope::ui
