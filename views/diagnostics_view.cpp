// Diagnostics view.
#include "diagnostics_view.h"

#include <QHeaderView>
#include <QKeyEvent>
#include <QLabel>
#include <QTableView>
#include <QVBoxLayout>

namespace loopscope::ui {

DiagnosticsView::DiagnosticsView(QWidget* parent) : QWidget(parent), m_model(new DiagnosticsModel(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->setSpacing(2);
    m_header = new QLabel(this);
    m_header->setContentsMargins(4, 2, 4, 2);
    m_header->setWordWrap(true);
    layout->addWidget(m_header);
    m_table = new QTableView(this);
    m_table->setModel(m_model);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->verticalHeader()->hide();
    // Messages are sentences with a suggestion at the end: wrap them, rows grow to fit.
    m_table->setWordWrap(true);
    m_table->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setSectionResizeMode(DiagnosticsModel::SeverityColumn, QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setSectionResizeMode(DiagnosticsModel::MessageColumn, QHeaderView::Stretch);
    m_table->horizontalHeader()->setSectionResizeMode(DiagnosticsModel::StepColumn, QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setSectionResizeMode(DiagnosticsModel::WhereColumn, QHeaderView::Interactive);
    m_table->horizontalHeader()->setMinimumSectionSize(30);
    layout->addWidget(m_table, 1);
    connect(m_table, &QTableView::activated, this, [this](const QModelIndex& i) { activateRow(i.row()); });
    setDiagnostics(Snapshot{});
}

void DiagnosticsView::setDiagnostics(const Snapshot& snapshot, const std::optional<sched::ScheduleError>& refused,
                                     const QString& refusedStep)
{
    m_model->setDiagnostics(snapshot, refused, refusedStep);
    if (snapshot.empty())
        m_header->setText(tr("Nothing open."));
    else if (m_model->rowCount() == 0)
        m_header->setText(tr("No problems: the schedule fits the target and the analysis has no advice."));
    else
        m_header->setText(summary() + tr(". Double-click a row to jump to its step and loop."));
}

QString DiagnosticsView::summary() const
{
    QStringList parts;
    const int e = m_model->count(Severity::Error), w = m_model->count(Severity::Warning), h = m_model->count(Severity::Hint);
    if (e)
        parts << tr("%n error(s)", nullptr, e);
    if (w)
        parts << tr("%n warning(s)", nullptr, w);
    if (h)
        parts << tr("%n hint(s)", nullptr, h);
    return parts.isEmpty() ? tr("no problems") : parts.join(QStringLiteral(", "));
}

void DiagnosticsView::activateRow(int row)
{
    if (row < 0 || row >= m_model->rowCount())
        return;
    const DiagnosticRow& r = m_model->rows()[row];
    emit activated(r.step, r.loops, r.tensors);
}

} // namespace loopscope::ui
