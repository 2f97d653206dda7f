// Diagnostics as a table: a refused step, the first failing step of the trace, and the
// errors, warnings and hints of the cost analysis, each with the step, loops and tensors
// it involves (for the jump to them).
#pragma once

#include "snapshot.h"

#include <QAbstractTableModel>
#include <QIcon>
#include <QStringList>

#include <optional>
#include <vector>

namespace loopscope::ui {

struct DiagnosticRow {
    Severity severity = Severity::Error;
    QString code;         ///< "over-capacity", "failing-step", "refused-step", ...
    QString message;
    QString detail;
    int step = -1;        ///< 0-based trace step, -1 if none
    QStringList loops;
    QStringList tensors;
    QString suggestion;   ///< a step the message proposes, as written: "compute_at {tensor: A, ...}"

    bool operator==(const DiagnosticRow&) const = default;
};

class DiagnosticsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { SeverityColumn, MessageColumn, StepColumn, WhereColumn, ColumnCount };
    enum Role { StepRole = Qt::UserRole + 1, LoopsRole, TensorsRole, SeverityRole, CodeRole, SuggestionRole };

    explicit DiagnosticsModel(QObject* parent = nullptr);

    /// `refused`: a step the user just asked for that did not apply (shown first).
    void setDiagnostics(const Snapshot& snapshot, const std::optional<sched::ScheduleError>& refused = std::nullopt,
                        const QString& refusedStep = QString());
    const std::vector<DiagnosticRow>& rows() const { return m_rows; }
    int count(Severity s) const;
    /// The step a message proposes ("... compute_at {tensor: A, level: SRAM, at: i.outer} ..."),
    /// as "primitive {parameters}", or "".
    static QString suggestionIn(const QString& message);

    int rowCount(const QModelIndex& parent = QModelIndex()) const override;
    int columnCount(const QModelIndex& parent = QModelIndex()) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    std::vector<DiagnosticRow> m_rows;
    mutable QIcon m_icons[3];   ///< per severity, made once (the style draws them anew for each)
};

} // namespace loopscope::ui
