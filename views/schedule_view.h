// Schedule view: the trace as a list of steps. Parameters are edited in place (a split factor
// with a spin box that updates every view while it turns, one undo entry per drag); steps are
// deleted or moved with buttons, keys or drag and drop; the first failing step is marked.
#pragma once

#include "schedule_model.h"
#include "snapshot.h"

#include <QWidget>

class QAction;
class QLabel;
class QLineEdit;
class QTableView;

namespace loopscope::ui {

class LiveLabel;

class ScheduleView : public QWidget {
    Q_OBJECT
public:
    explicit ScheduleView(QWidget* parent = nullptr);

    void setTrace(const std::vector<sched::Step>& steps, const Snapshot& snapshot);
    /// Shows the schedule's description; `stale`: it was written for other steps (say so).
    void setDescription(const QString& description, bool stale);
    QLineEdit* descriptionEdit() const { return m_descriptionEdit; }
    /// The note shown under a stale description ("" when the description applies).
    QString descriptionNote() const;
    /// The line above the steps: how many apply, the failing one, or why an edit was refused.
    QString headerText() const;
    void setHighlight(const QString& loop, const QStringList& tensors);
    /// Selects a step row (e.g. from a diagnostic) and scrolls to it.
    void selectStep(int row);

    ScheduleModel* model() const { return m_model; }
    QTableView* table() const { return m_table; }
    QAction* deleteAction() const { return m_delete; }
    QAction* moveUpAction() const { return m_up; }
    QAction* moveDownAction() const { return m_down; }
    int currentStep() const;
    /// What dropping a dragged step row onto another row does: a move intent (the
    /// selection follows the step).
    void dropStepOnto(int dragged, int onto);

signals:
    void stepEdited(int row, const loopscope::sched::Step& step, int session);
    /// The user finished editing the description.
    void descriptionEdited(const QString& description);
    void removeRequested(int row);
    void moveRequested(int from, int to);
    /// A step became current: the loops and tensors it names (to highlight elsewhere).
    void stepSelected(int row, const QStringList& loops, const QStringList& tensors);

private:
    void updateActions();
    void updateLegend();
    ScheduleModel* m_model;
    QTableView* m_table;
    LiveLabel* m_header;
    QLineEdit* m_descriptionEdit;
    LiveLabel* m_descriptionNote;
    QAction* m_delete;
    QAction* m_up;
    QAction* m_down;
    int m_follow = -1;
    QString m_baseHeader;
    QString m_hlText;  ///< row to select after a move comes back from the document
    friend class StepTable;
};

} // namespace loopscope::ui
