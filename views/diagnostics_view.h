// Diagnostics view: errors, warnings and hints from the analysis and from failed steps; a
// double-click (or Enter) jumps to the step, loop and tensors involved.
#pragma once

#include "diagnostics_model.h"

#include <QWidget>

class QLabel;
class QPushButton;
class QTableView;

namespace loopscope::ui {

class LiveLabel;

class DiagnosticsView : public QWidget {
    Q_OBJECT
public:
    explicit DiagnosticsView(QWidget* parent = nullptr);

    void setDiagnostics(const Snapshot& snapshot, const std::optional<sched::ScheduleError>& refused = std::nullopt,
                        const QString& refusedStep = QString());
    DiagnosticsModel* model() const { return m_model; }
    QTableView* table() const { return m_table; }
    /// Same as double-clicking a row.
    void activateRow(int row);
    /// "1 error, 2 warnings" (for a dock title).
    QString summary() const;
    QPushButton* applyButton() const { return m_apply; }
    /// Whether the table sizes its rows and columns to their contents on every change (true,
    /// the default) or keeps them while it is off screen (a dock behind another tab): each
    /// change of the rows measured every wrapped message again, seen or not. Going live sizes
    /// them at once.
    void setTableLive(bool live);
    bool tableLive() const { return m_live; }

signals:
    /// Jump to what a diagnostic names (step -1 if none).
    void activated(int step, const QStringList& loops, const QStringList& tensors);
    /// The user wants the step a diagnostic proposes ("compute_at {tensor: A, ...}"); `step`
    /// is the trace step the diagnostic is about (-1 if none).
    void suggestionRequested(const QString& suggestion, int step);

private:
    DiagnosticsModel* m_model;
    QTableView* m_table;
    LiveLabel* m_header;
    QPushButton* m_apply;
    bool m_live = true;
};

} // namespace loopscope::ui
