// Schedule view: table of steps, the spin-box delegate for split factors, delete/move.
#include "schedule_view.h"

#include "line_text_delegate.h"
#include "live_label.h"

#include <QAction>
#include <QApplication>
#include <QDropEvent>
#include <QHBoxLayout>
#include <QHash>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QPainter>
#include <QSpinBox>
#include <QStyledItemDelegate>
#include <QTableView>
#include <QToolBar>
#include <QVBoxLayout>

namespace loopscope::ui {

namespace {
QString qs(const std::string& s) { return QString::fromStdString(s); }

/// A spin box for split factors (each value is committed at once: the views follow the drag),
/// a line edit with the schedule-file text for the other primitives.
class StepDelegate : public LineTextDelegate {
public:
    using LineTextDelegate::LineTextDelegate;

    QWidget* createEditor(QWidget* parent, const QStyleOptionViewItem& option, const QModelIndex& index) const override
    {
        auto* model = qobject_cast<ScheduleModel*>(const_cast<QAbstractItemModel*>(index.model()));
        if (model)
            model->beginEditSession();  // one undo entry per opened editor
        if (!index.data(ScheduleModel::EditableFactorRole).toBool())
            return QStyledItemDelegate::createEditor(parent, option, index);
        auto* spin = new QSpinBox(parent);
        spin->setObjectName(QStringLiteral("factorSpinBox"));
        // Escape goes back to this value (the edits on the way merge into nothing).
        spin->setProperty("valueBeforeEditing", index.data(ScheduleModel::FactorRole));
        spin->setRange(1, 1 << 20);
        spin->setPrefix(index.data(Qt::EditRole).toString().contains(QLatin1String("nparts")) ? tr("nparts ") : tr("factor "));
        spin->setFrame(false);
        spin->setProperty("stepRow", index.row());
        auto* self = const_cast<StepDelegate*>(this);
        connect(spin, &QSpinBox::valueChanged, self, [self, spin] { emit self->commitData(spin); });
        return spin;
    }

    void destroyEditor(QWidget* editor, const QModelIndex& index) const override
    {
        // A closing spin box may still report a value; the view no longer knows it.
        editor->disconnect(this);
        QStyledItemDelegate::destroyEditor(editor, index);
    }

    void setEditorData(QWidget* editor, const QModelIndex& index) const override
    {
        if (auto* spin = qobject_cast<QSpinBox*>(editor)) {
            const qint64 v = index.data(ScheduleModel::FactorRole).toLongLong();
            if (spin->value() != v) {
                const QSignalBlocker block(spin);
                spin->setValue(static_cast<int>(v));
            }
            return;
        }
        QStyledItemDelegate::setEditorData(editor, index);
    }

    bool eventFilter(QObject* object, QEvent* event) override
    {
        // Every value of the spin box is committed as it turns; Escape takes it back.
        auto* spin = qobject_cast<QSpinBox*>(object);
        // Enter on text the box cannot take ("0"): it would go back to the step's factor without
        // a word; the panel says so instead (the step is not changed).
        const int key = event->type() == QEvent::KeyPress ? static_cast<QKeyEvent*>(event)->key() : 0;
        if (spin && (key == Qt::Key_Return || key == Qt::Key_Enter) && !spin->hasAcceptableInput()) {
            auto* view = qobject_cast<QAbstractItemView*>(parent());
            if (auto* model = view ? qobject_cast<ScheduleModel*>(view->model()) : nullptr)
                emit model->editRejected(spin->property("stepRow").toInt(),
                                         tr("'%1' is not a valid %2 (a whole number from %3 to %4)")
                                             .arg(spin->cleanText(), spin->prefix().trimmed())
                                             .arg(spin->minimum())
                                             .arg(spin->maximum()));
        }
        if (spin && event->type() == QEvent::KeyPress && static_cast<QKeyEvent*>(event)->key() == Qt::Key_Escape) {
            const QVariant before = spin->property("valueBeforeEditing");
            if (before.isValid() && spin->value() != before.toInt())
                spin->setValue(before.toInt());
        }
        return QStyledItemDelegate::eventFilter(object, event);
    }

    void setModelData(QWidget* editor, QAbstractItemModel* model, const QModelIndex& index) const override
    {
        if (auto* spin = qobject_cast<QSpinBox*>(editor)) {
            model->setData(index, spin->value(), ScheduleModel::FactorRole);
            return;
        }
        QStyledItemDelegate::setModelData(editor, model, index);
    }
};
} // namespace

/// Table that turns a row drop into a move intent (the model itself never moves rows).
class StepTable : public QTableView {
public:
    explicit StepTable(ScheduleView* owner) : QTableView(owner), m_owner(owner) {}

protected:
    void dragEnterEvent(QDragEnterEvent* e) override
    {
        if (e->source() == this)
            e->acceptProposedAction();
    }
    void dragMoveEvent(QDragMoveEvent* e) override
    {
        if (e->source() == this)
            e->acceptProposedAction();
    }
    void dropEvent(QDropEvent* e) override
    {
        const int from = currentIndex().row();
        QModelIndex at = indexAt(e->position().toPoint());
        const int to = at.isValid() ? at.row() : model()->rowCount() - 1;
        e->acceptProposedAction();
        m_owner->dropStepOnto(from, to);
    }

private:
    ScheduleView* m_owner;
};

ScheduleView::ScheduleView(QWidget* parent) : QWidget(parent), m_model(new ScheduleModel(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->setSpacing(2);
    // Its text changes with the step count: a LiveLabel repaints it without a new layout.
    m_header = new LiveLabel(this);
    m_header->setWordWrap(true);
    m_header->setTextFormat(Qt::RichText);
    m_header->setContentsMargins(4, 2, 4, 2);
    layout->addWidget(m_header);

    // The description is saved in the file; an example's text stops being true once its steps
    // change, so it is editable here and flagged when it was written for other steps.
    m_descriptionEdit = new QLineEdit(this);
    m_descriptionEdit->setObjectName(QStringLiteral("descriptionEdit"));
    m_descriptionEdit->setPlaceholderText(tr("Describe what this schedule does (saved in the file)"));
    m_descriptionEdit->setToolTip(tr("The schedule file's description; Enter records the edit (undoable)"));
    m_descriptionEdit->setClearButtonEnabled(true);
    layout->addWidget(m_descriptionEdit);
    // One line that is always there: a stale description is flagged without moving the table
    // (showing and hiding a note laid the panel out again, and repainted the whole table, on
    // every edit that changed whether the description still applies).
    m_descriptionNote = new LiveLabel(this);
    m_descriptionNote->setObjectName(QStringLiteral("descriptionNote"));
    m_descriptionNote->setContentsMargins(4, 0, 4, 2);
    m_descriptionNote->setColor(QColor(0x8a, 0x5a, 0x00));
    m_descriptionNote->setGrowOnly(true);
    m_descriptionNote->setToolTip(tr("This description was written for other steps than the ones below: edit it to say what "
                                     "your schedule does, or clear it."));
    layout->addWidget(m_descriptionNote);
    connect(m_descriptionEdit, &QLineEdit::editingFinished, this, [this] {
        if (m_descriptionEdit->isModified()) {
            m_descriptionEdit->setModified(false);
            emit descriptionEdited(m_descriptionEdit->text().trimmed());
        }
    });

    auto* bar = new QToolBar(this);
    bar->setToolButtonStyle(Qt::ToolButtonTextOnly);
    m_delete = bar->addAction(tr("Delete step"));
    m_delete->setShortcut(QKeySequence::Delete);
    m_up = bar->addAction(tr("Move up"));
    m_up->setShortcut(QKeySequence(tr("Ctrl+Up")));
    m_down = bar->addAction(tr("Move down"));
    m_down->setShortcut(QKeySequence(tr("Ctrl+Down")));
    for (QAction* a : {m_delete, m_up, m_down}) {
        a->setShortcutContext(Qt::WidgetWithChildrenShortcut);
        a->setToolTip(QStringLiteral("%1 (%2)").arg(a->text(), a->shortcut().toString(QKeySequence::NativeText)));
        addAction(a);
    }
    layout->addWidget(bar);

    m_table = new StepTable(this);
    m_table->setModel(m_model);
    m_table->setItemDelegate(new StepDelegate(m_table));
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed
                             | QAbstractItemView::SelectedClicked);
    m_table->verticalHeader()->hide();
    // Columns size to their content ("split D:h by 8"); the full text is in the tooltips.
    m_table->setColumnHidden(ScheduleModel::PrimitiveColumn, true);  // the step text starts with it
    // Number, status, then the step: the short columns first, the step takes the rest.
    QHeaderView* header = m_table->horizontalHeader();
    header->moveSection(header->visualIndex(ScheduleModel::StatusColumn), header->visualIndex(ScheduleModel::NumberColumn) + 1);
    header->setSectionResizeMode(ScheduleModel::NumberColumn, QHeaderView::ResizeToContents);
    header->setSectionResizeMode(ScheduleModel::StatusColumn, QHeaderView::ResizeToContents);
    header->setSectionResizeMode(ScheduleModel::ParametersColumn, QHeaderView::ResizeToContents);
    header->setStretchLastSection(true);
    m_table->setDragEnabled(true);
    m_table->setAcceptDrops(true);
    m_table->viewport()->setAcceptDrops(true);
    m_table->setDragDropMode(QAbstractItemView::InternalMove);
    m_table->setDropIndicatorShown(true);
    m_table->setWordWrap(false);
    layout->addWidget(m_table, 1);

    connect(m_model, &ScheduleModel::stepEdited, this, &ScheduleView::stepEdited);
    connect(m_model, &ScheduleModel::editRejected, this, [this](int row, const QString& message) {
        m_header->setText(tr("<span style='color:#b00000'>Step %1 not changed: %2</span>").arg(row + 1).arg(message.toHtmlEscaped()));
    });
    connect(m_delete, &QAction::triggered, this, [this] {
        if (currentStep() >= 0)
            emit removeRequested(currentStep());
    });
    connect(m_up, &QAction::triggered, this, [this] {
        const int row = currentStep();
        if (row > 0) {
            m_follow = row - 1;  // the selection moves with the step
            emit moveRequested(row, row - 1);
        }
    });
    connect(m_down, &QAction::triggered, this, [this] {
        const int row = currentStep();
        if (row >= 0 && row + 1 < m_model->rowCount()) {
            m_follow = row + 1;
            emit moveRequested(row, row + 1);
        }
    });
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex& current) {
        updateActions();
        if (!current.isValid() || current.row() >= static_cast<int>(m_model->steps().size()))
            return;
        const sched::Step& s = m_model->steps()[current.row()];
        QStringList loops, tensors;
        for (const auto& l : s.loops)
            loops << qs(l);
        if (!s.at.empty() && s.at != "root")
            loops << qs(s.at);
        if (!s.tensor.empty())
            tensors << qs(s.tensor);
        emit stepSelected(current.row(), loops, tensors);
    });
    setTrace({}, Snapshot{});
}

void ScheduleView::dropStepOnto(int dragged, int onto)
{
    if (dragged < 0 || onto < 0 || dragged == onto || dragged >= m_model->rowCount() || onto >= m_model->rowCount())
        return;
    m_follow = onto;
    emit moveRequested(dragged, onto);
}

int ScheduleView::currentStep() const
{
    const QModelIndex i = m_table->currentIndex();
    return i.isValid() ? i.row() : -1;
}

void ScheduleView::updateActions()
{
    const int row = currentStep();
    m_delete->setEnabled(row >= 0);
    m_up->setEnabled(row > 0);
    m_down->setEnabled(row >= 0 && row + 1 < m_model->rowCount());
}

void ScheduleView::setTrace(const std::vector<sched::Step>& steps, const Snapshot& snapshot)
{
    const int row = currentStep();
    m_model->setTrace(steps, snapshot);
    if (snapshot.empty())
        m_baseHeader = tr("No schedule yet.");
    else if (steps.empty())
        m_baseHeader = tr("No steps yet: the kernel runs unscheduled. Add steps from the loop nest (right-click a loop).");
    else if (snapshot.failedStep)
        m_baseHeader = tr("<span style='color:#b00000'><b>Step %1 (%2) fails</b>: %3</span>%4"
                          "<br><small>It and the steps after it are not applied. Edit, move or delete it.</small>")
                           .arg(snapshot.failedStep->stepIndex + 1)
                           .arg(QString::fromLatin1(sched::primitiveName(snapshot.failedStep->primitive)))
                           .arg(qs(snapshot.failedStep->message).toHtmlEscaped())
                           .arg(snapshot.failedStep->detail.empty() ? QString()
                                                                    : QStringLiteral("<br><small>%1</small>").arg(qs(snapshot.failedStep->detail).toHtmlEscaped()));
    else
        m_baseHeader = (steps.size() == 1 ? tr("1 step, all applied.") : tr("%1 steps, all applied.").arg(steps.size()))
                       + tr(" Double-click a step to edit it; drag rows to move.");
    updateLegend();   // sets the header once: a label's new text relays the dock out
    const int want = m_follow >= 0 ? m_follow : row;
    m_follow = -1;
    if (want >= 0 && want < m_model->rowCount() && currentStep() != want)
        m_table->setCurrentIndex(m_model->index(want, ScheduleModel::ParametersColumn));
    updateActions();
}

void ScheduleView::setDescription(const QString& description, bool stale)
{
    // Only a new description touches the line edit (each change repaints it).
    if ((!m_descriptionEdit->hasFocus() || !m_descriptionEdit->isModified()) && m_descriptionEdit->text() != description) {
        const QSignalBlocker block(m_descriptionEdit);
        m_descriptionEdit->setText(description);
        m_descriptionEdit->setToolTip(description.isEmpty() ? tr("The schedule file's description; Enter records the edit (undoable)")
                                                            : description);
        m_descriptionEdit->setModified(false);
        m_descriptionEdit->setCursorPosition(0);
    }
    m_descriptionNote->setText(stale ? tr("Describes the steps before your edits: edit or clear it.") : QString());
}

QString ScheduleView::descriptionNote() const { return m_descriptionNote->text(); }

QString ScheduleView::headerText() const { return m_header->text(); }

void ScheduleView::setHighlight(const QString& loop, const QStringList& tensors)
{
    m_model->setHighlight(loop, tensors);
    m_hlText = !loop.isEmpty() ? loop : tensors.join(QStringLiteral(", "));
    updateLegend();
}

void ScheduleView::updateLegend()
{
    bool any = false;
    for (int r = 0; r < m_model->rowCount() && !any; ++r)
        any = m_model->index(r, 0).data(ScheduleModel::HighlightRole).toBool();
    // Say what the yellow rows mean, so they do not read as warnings.
    const QString header = any ? m_baseHeader + tr("<br><span style='background:#fff3b0'>&nbsp;Yellow&nbsp;</span>: the steps that name %1.")
                                                    .arg(m_hlText.toHtmlEscaped())
                               : m_baseHeader;
    if (m_header->text() != header)
        m_header->setText(header);
}

void ScheduleView::selectStep(int row)
{
    if (row < 0 || row >= m_model->rowCount())
        return;
    const QModelIndex i = m_model->index(row, ScheduleModel::ParametersColumn);
    m_table->setCurrentIndex(i);
    m_table->scrollTo(i);
}

} // namespace loopscope::ui
