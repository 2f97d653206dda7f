// Diagnostics view.
#include "diagnostics_view.h"

#include "item_panel.h"
#include "line_text_delegate.h"
#include "live_label.h"
#include "static_text_cache.h"

#include <QApplication>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QPushButton>
#include <QKeyEvent>
#include <QLabel>
#include <QPainter>
#include <QStyledItemDelegate>
#include <QTableView>
#include <QVBoxLayout>

namespace loopscope::ui {

namespace {
/// The message column: wrapped sentences drawn from shaped texts kept per width, and their
/// heights remembered (the default delegate laid every message out again at every repaint
/// and every row measure, which made a raised Diagnostics tab the dearest part of an edit).
class MessageDelegate : public QStyledItemDelegate {
public:
    using QStyledItemDelegate::QStyledItemDelegate;

    void paint(QPainter* p, const QStyleOptionViewItem& option, const QModelIndex& index) const override
    {
        QStyleOptionViewItem opt = option;
        initStyleOption(&opt, index);
        QRect textRect;
        const QString text = drawItemBackground(p, opt, &textRect);
        const QStaticText& t = m_texts.text(text, opt.font, textWidth(opt));
        const int margin = itemTextMargin(opt);
        const QRect r = textRect.adjusted(margin, 0, -margin, 0);
        p->save();
        p->setClipRect(opt.rect);
        p->setFont(opt.font);
        p->setPen(itemTextColor(opt));
        p->drawStaticText(QPointF(r.left(), r.top() + std::max(0.0, (r.height() - t.size().height()) / 2)), t);
        p->restore();
    }

    QSize sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const override
    {
        QStyleOptionViewItem opt = option;
        initStyleOption(&opt, index);
        const QStaticText& t = m_texts.text(opt.text, opt.font, textWidth(opt));
        const int margin = itemTextMargin(opt);
        const QSize text = t.size().toSize();
        return QSize(text.width() + 2 * margin, std::max(text.height(), QFontMetrics(opt.font).height()) + 2);
    }

private:
    /// The width the text wraps to: the cell's, less the margins (a row measured before the
    /// column has a width wraps nowhere).
    static int textWidth(const QStyleOptionViewItem& opt)
    {
        return opt.rect.width() > 0 ? std::max(1, opt.rect.width() - 2 * itemTextMargin(opt)) : -1;
    }

    mutable StaticTextCache m_texts;
};
} // namespace

DiagnosticsView::DiagnosticsView(QWidget* parent) : QWidget(parent), m_model(new DiagnosticsModel(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->setSpacing(2);
    auto* top = new QHBoxLayout;
    m_header = new LiveLabel(this);
    m_header->setContentsMargins(4, 2, 4, 2);
    m_header->setWordWrap(true);
    top->addWidget(m_header, 1);
    m_apply = new QPushButton(tr("Apply suggestion"), this);
    m_apply->setToolTip(tr("Add the step the selected diagnostic proposes"));
    m_apply->setEnabled(false);
    top->addWidget(m_apply);
    layout->addLayout(top);
    m_table = new QTableView(this);
    m_table->setModel(m_model);
    m_table->setItemDelegate(new LineTextDelegate(m_table));   // severity, step, loops and tensors
    m_table->setItemDelegateForColumn(DiagnosticsModel::MessageColumn, new MessageDelegate(m_table));
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->verticalHeader()->hide();
    // Messages are sentences with a suggestion at the end: wrap them, rows grow to fit.
    m_table->setWordWrap(true);
    m_live = false;
    setTableLive(true);
    m_table->horizontalHeader()->setSectionResizeMode(DiagnosticsModel::MessageColumn, QHeaderView::Stretch);
    m_table->horizontalHeader()->setSectionResizeMode(DiagnosticsModel::WhereColumn, QHeaderView::Interactive);
    m_table->horizontalHeader()->setMinimumSectionSize(30);
    m_table->setColumnWidth(DiagnosticsModel::WhereColumn, 130);
    layout->addWidget(m_table, 1);
    connect(m_table, &QTableView::activated, this, [this](const QModelIndex& i) { activateRow(i.row()); });
    auto current = [this] { return m_table->currentIndex().isValid() ? m_table->currentIndex().row() : -1; };
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this, current] {
        const int row = current();
        m_apply->setEnabled(row >= 0 && row < m_model->rowCount() && !m_model->rows()[row].suggestion.isEmpty());
    });
    connect(m_apply, &QPushButton::clicked, this, [this, current] {
        const int row = current();
        if (row >= 0 && row < m_model->rowCount() && !m_model->rows()[row].suggestion.isEmpty())
            emit suggestionRequested(m_model->rows()[row].suggestion, m_model->rows()[row].step);
    });
    setDiagnostics(Snapshot{});
}

void DiagnosticsView::setDiagnostics(const Snapshot& snapshot, const std::optional<sched::ScheduleError>& refused,
                                     const QString& refusedStep)
{
    m_model->setDiagnostics(snapshot, refused, refusedStep);
    // Offer the first suggestion at once: it is usually why one looks here.
    int suggested = -1;
    for (size_t i = 0; i < m_model->rows().size() && suggested < 0; ++i)
        if (!m_model->rows()[i].suggestion.isEmpty())
            suggested = static_cast<int>(i);
    if (suggested >= 0)
        m_table->setCurrentIndex(m_model->index(suggested, DiagnosticsModel::MessageColumn));
    m_apply->setEnabled(suggested >= 0);
    if (snapshot.empty())
        m_header->setText(tr("Nothing open."));
    else if (m_model->rowCount() == 0)
        m_header->setText(tr("No problems: the schedule fits the target and the analysis has no advice."));
    else
        m_header->setText(summary() + tr(". Double-click a row to jump to its step and loop."));
}

void DiagnosticsView::setTableLive(bool live)
{
    if (live == m_live)
        return;
    m_live = live;
    const QHeaderView::ResizeMode mode = live ? QHeaderView::ResizeToContents : QHeaderView::Interactive;
    m_table->verticalHeader()->setSectionResizeMode(mode);
    m_table->horizontalHeader()->setSectionResizeMode(DiagnosticsModel::SeverityColumn, mode);
    m_table->horizontalHeader()->setSectionResizeMode(DiagnosticsModel::StepColumn, mode);
}

QString DiagnosticsView::summary() const
{
    QStringList parts;
    const int e = m_model->count(Severity::Error), w = m_model->count(Severity::Warning), h = m_model->count(Severity::Hint);
    if (e)
        parts << (e == 1 ? tr("1 error") : tr("%1 errors").arg(e));
    if (w)
        parts << (w == 1 ? tr("1 warning") : tr("%1 warnings").arg(w));
    if (h)
        parts << (h == 1 ? tr("1 hint") : tr("%1 hints").arg(h));
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
