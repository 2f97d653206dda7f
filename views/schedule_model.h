// The trace as a table: one row per step (number, primitive, parameters, status), the first
// failing step marked with its message and the steps after it shown as not applied.
#pragma once

#include "snapshot.h"

#include <QAbstractTableModel>
#include <QSet>

#include <vector>

namespace loopscope::ui {

class ScheduleModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { NumberColumn, PrimitiveColumn, ParametersColumn, StatusColumn, ColumnCount };
    enum Role {
        StepRole = Qt::UserRole + 1,   ///< int: 0 applied, 1 failing, 2 not applied (after a failure)
        FactorRole,                    ///< qint64 split factor (or nparts) for the spin box, 0 if none
        EditableFactorRole,            ///< bool: the parameters are edited with a spin box
        HighlightRole,                 ///< bool: the step names the highlighted loop or tensor
    };
    enum class Status { Applied, Failing, NotApplied };

    explicit ScheduleModel(QObject* parent = nullptr);

    /// The whole trace and the snapshot it produced. Same number of steps: dataChanged only,
    /// so an open editor (a spin box being dragged) stays open.
    void setTrace(const std::vector<sched::Step>& steps, const Snapshot& snapshot);
    /// Emphasises steps that name this loop (or a loop it came from) or tensor.
    void setHighlight(const QString& loop, const QStringList& tensors);

    const std::vector<sched::Step>& steps() const { return m_steps; }
    Status status(int row) const;
    /// Starts a new edit session: edits within one session merge into one undo entry.
    int beginEditSession() { return ++m_session; }
    int editSession() const { return m_session; }

    int rowCount(const QModelIndex& parent = QModelIndex()) const override;
    int columnCount(const QModelIndex& parent = QModelIndex()) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;
    /// Never changes the model: turns the edit into a `stepEdited` intent.
    bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;

signals:
    /// The user edited a step's parameters (`session` from beginEditSession()).
    void stepEdited(int row, const loopscope::sched::Step& step, int session);
    /// Edited text that does not parse: nothing was requested.
    void editRejected(int row, const QString& message);

private:
    bool mentions(const sched::Step& s) const;
    std::vector<sched::Step> m_steps;
    std::optional<sched::ScheduleError> m_failed;
    QString m_hlLoop;
    QSet<QString> m_hlTensors;
    int m_session = 0;
    bool m_namedStages = false;   ///< the kernel has several stages: loops are named with theirs
};

} // namespace loopscope::ui
