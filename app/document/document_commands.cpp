// The undo commands of a ScheduleDocument.
#include "document_commands.h"

#include "schedule_document.h"
#include "step_text.h"

#include <QFileInfo>

namespace loopscope::ui {

namespace {
/// A step as the schedule panel shows it ("split D:h by 8": loops named with their stage when
/// the kernel has several).
QString describeStep(const ScheduleDocument* doc, const sched::Step& s)
{
    const auto& program = doc->snapshot().program;
    return stepText(s, program && program->kernel->stages.size() > 1);
}

/// Steps edited in the application no longer sit where the file had them.
sched::Step withoutLocation(sched::Step s)
{
    s.loc = SourceLoc{};
    return s;
}
} // namespace

AddStepCommand::AddStepCommand(ScheduleDocument* doc, int index, sched::Step step)
    : m_doc(doc), m_index(index), m_step(withoutLocation(std::move(step)))
{
    setText(describeStep(m_doc, m_step));
}

void AddStepCommand::redo()
{
    DocumentState s = m_doc->state();
    s.steps.insert(s.steps.begin() + m_index, m_step);
    m_doc->setState(s);
}

void AddStepCommand::undo()
{
    DocumentState s = m_doc->state();
    s.steps.erase(s.steps.begin() + m_index);
    m_doc->setState(s);
}

RemoveStepCommand::RemoveStepCommand(ScheduleDocument* doc, int index)
    : m_doc(doc), m_index(index), m_step(doc->steps()[index])
{
    setText(QObject::tr("delete step %1 (%2)").arg(index + 1).arg(describeStep(m_doc, m_step)));
}

void RemoveStepCommand::redo()
{
    DocumentState s = m_doc->state();
    s.steps.erase(s.steps.begin() + m_index);
    m_doc->setState(s);
}

void RemoveStepCommand::undo()
{
    DocumentState s = m_doc->state();
    s.steps.insert(s.steps.begin() + m_index, m_step);
    m_doc->setState(s);
}

namespace {
void moveElement(std::vector<sched::Step>& v, int from, int to)
{
    sched::Step s = v[from];
    v.erase(v.begin() + from);
    v.insert(v.begin() + to, std::move(s));
}
} // namespace

MoveStepCommand::MoveStepCommand(ScheduleDocument* doc, int from, int to)
    : m_doc(doc), m_from(from), m_to(to)
{
    setText(QObject::tr("move step %1 (%2) to position %3")
                .arg(from + 1)
                .arg(describeStep(doc, doc->steps()[from]))
                .arg(to + 1));
}

void MoveStepCommand::redo()
{
    DocumentState s = m_doc->state();
    moveElement(s.steps, m_from, m_to);
    m_doc->setState(s);
}

void MoveStepCommand::undo()
{
    DocumentState s = m_doc->state();
    moveElement(s.steps, m_to, m_from);
    m_doc->setState(s);
}

EditStepCommand::EditStepCommand(ScheduleDocument* doc, int index, sched::Step before,
                                 sched::Step after, int mergeSession)
    : m_doc(doc), m_index(index), m_before(std::move(before)),
      m_after(withoutLocation(std::move(after))), m_session(mergeSession)
{
    updateText();
}

void EditStepCommand::updateText()
{
    setText(QObject::tr("edit step %1: %2").arg(m_index + 1).arg(describeStep(m_doc, m_after)));
}

void EditStepCommand::redo()
{
    DocumentState s = m_doc->state();
    s.steps[m_index] = m_after;
    m_doc->setState(s);
}

void EditStepCommand::undo()
{
    DocumentState s = m_doc->state();
    s.steps[m_index] = m_before;
    m_doc->setState(s);
}

bool EditStepCommand::mergeWith(const QUndoCommand* other)
{
    const auto* o = dynamic_cast<const EditStepCommand*>(other);
    if (!o || o->m_session != m_session || o->m_index != m_index)
        return false;
    m_after = o->m_after;
    updateText();
    // Dragging back to where it started leaves nothing to undo.
    setObsolete(m_after == m_before);
    return true;
}

SetTargetCommand::SetTargetCommand(ScheduleDocument* doc, QString before, QString after)
    : m_doc(doc), m_before(std::move(before)), m_after(std::move(after))
{
    const QString shown = isBuiltinTarget(m_after) ? m_after : QFileInfo(m_after).fileName();
    setText(QObject::tr("target %1").arg(shown));
}

void SetTargetCommand::redo()
{
    DocumentState s = m_doc->state();
    s.target = m_after;
    m_doc->setState(s);
}

void SetTargetCommand::undo()
{
    DocumentState s = m_doc->state();
    s.target = m_before;
    m_doc->setState(s);
}

SetStateCommand::SetStateCommand(ScheduleDocument* doc, DocumentState before, DocumentState after, const QString& text)
    : m_doc(doc), m_before(std::move(before)), m_after(std::move(after))
{
    setText(text);
}

void SetStateCommand::redo() { m_doc->setState(m_after); }

void SetStateCommand::undo() { m_doc->setState(m_before); }

} // namespace loopscope::ui
