// The Variants dock's widget.
#include "variants_view.h"

#include <QAction>
#include <QDateTime>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QMenu>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QToolBar>
#include <QVBoxLayout>

#include <map>

namespace loopscope::ui {

namespace {
QString qs(const std::string& s) { return QString::fromStdString(s); }
} // namespace

VariantsView::VariantsView(QWidget* parent) : QWidget(parent), m_model(new VariantsModel(this)), m_proxy(new QSortFilterProxyModel(this))
{
    setObjectName(QStringLiteral("variantsView"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->setSpacing(4);

    m_workspaceLabel = new QLabel(this);
    m_workspaceLabel->setObjectName(QStringLiteral("workspaceLabel"));
    m_workspaceLabel->setWordWrap(true);
    m_workspaceLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_workspaceLabel);
    auto* buttons = new QHBoxLayout;
    m_createButton = new QPushButton(tr("Create workspace"), this);
    m_createButton->setObjectName(QStringLiteral("createWorkspace"));
    m_openButton = new QPushButton(tr("Open workspace..."), this);
    m_openButton->setObjectName(QStringLiteral("openWorkspace"));
    buttons->addWidget(m_createButton);
    buttons->addWidget(m_openButton);
    buttons->addStretch();
    layout->addLayout(buttons);
    connect(m_createButton, &QPushButton::clicked, this, &VariantsView::createWorkspaceRequested);
    connect(m_openButton, &QPushButton::clicked, this, &VariantsView::openWorkspaceRequested);

    // Two short rows, so that every action stays in view in a dock a third of a 1280-pixel
    // window wide: what to do with the schedule, then what to do with a variant.
    auto* bar = new QToolBar(this);
    bar->setObjectName(QStringLiteral("variantsToolBar"));
    auto* edits = new QToolBar(this);
    edits->setObjectName(QStringLiteral("variantEditsToolBar"));
    for (QToolBar* b : {bar, edits}) {
        b->setToolButtonStyle(Qt::ToolButtonTextOnly);
        b->setIconSize(QSize(16, 16));
    }
    auto add = [this, bar, edits](const QString& name, const QString& text, const QString& tip, auto slot) {
        QAction* a = new QAction(text, this);
        a->setObjectName(name);
        a->setToolTip(tip);
        connect(a, &QAction::triggered, this, slot);
        m_actions[name] = a;
        if (name == QLatin1String("duplicate") || name == QLatin1String("rename") || name == QLatin1String("delete"))
            edits->addAction(a);
        else if (name != QLatin1String("refresh"))  // F5 and the context menu
            bar->addAction(a);
        return a;
    };
    add(QStringLiteral("save"), tr("Save as variant..."), tr("Save the current schedule as a variant, with a name and notes"), [this] { emit saveRequested(); });
    add(QStringLiteral("open"), tr("Open"), tr("Open the selected variant (as it was saved, with its stored kernel and target)"), [this] {
        if (auto ids = selectedIds(); ids.size() == 1)
            emit openRequested(ids.front());
    });
    add(QStringLiteral("duplicate"), tr("Duplicate"), tr("Copy the selected variant under a new name (derived from it)"), [this] {
        if (auto ids = selectedIds(); ids.size() == 1)
            emit duplicateRequested(ids.front());
    });
    add(QStringLiteral("rename"), tr("Rename"), tr("Rename the selected variant (F2)"), [this] { renameSelected(); })->setShortcut(QKeySequence(Qt::Key_F2));
    add(QStringLiteral("delete"), tr("Delete"), tr("Delete the selected variant (asks first)"), [this] {
        if (auto ids = selectedIds(); ids.size() == 1)
            emit deleteRequested(ids.front());
    });
    add(QStringLiteral("compare"), tr("Compare"), tr("Compare the two selected variants (with one selected: it and the variant the schedule came from, else the next one)"), [this] {
        auto ids = selectedIds();
        if (ids.size() >= 2)
            emit compareRequested(ids[0], ids[1]);
        else if (ids.size() == 1)
            emit compareRequested(ids[0], -1);
    });
    add(QStringLiteral("refresh"), tr("Refresh"), tr("Read the workspace again (another program may have changed it)"), [this] { emit refreshRequested(); })
        ->setShortcut(QKeySequence::Refresh);
    for (const char* name : {"rename", "refresh"})
        m_actions[QString::fromLatin1(name)]->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    addAction(m_actions[QStringLiteral("rename")]);
    addAction(m_actions[QStringLiteral("refresh")]);
    layout->addWidget(bar);
    layout->addWidget(edits);

    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(VariantsModel::SortRole);
    m_table = new QTableView(this);
    m_table->setObjectName(QStringLiteral("variantsTable"));
    m_table->setModel(m_proxy);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(VariantsModel::Name, Qt::AscendingOrder);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_table->setEditTriggers(QAbstractItemView::EditKeyPressed);
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 6);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    m_table->setAlternatingRowColors(true);
    m_table->setWordWrap(false);
    m_table->setContextMenuPolicy(Qt::CustomContextMenu);
    layout->addWidget(m_table, 1);
    connect(m_table, &QTableView::doubleClicked, this, [this](const QModelIndex& index) {
        if (index.isValid())
            emit openRequested(m_proxy->data(index, VariantsModel::IdRole).toLongLong());
    });
    connect(m_table, &QWidget::customContextMenuRequested, this, [this](const QPoint& pos) {
        QMenu menu(this);
        for (const char* name : {"open", "duplicate", "rename", "delete", "compare"})
            menu.addAction(m_actions[QString::fromLatin1(name)]);
        menu.addSeparator();
        menu.addAction(m_actions[QStringLiteral("save")]);
        menu.addAction(m_actions[QStringLiteral("refresh")]);
        menu.exec(m_table->viewport()->mapToGlobal(pos));
    });
    connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] {
        updateActions();
        updateDetails();
    });
    // The rename is done by the workspace, which then sets the rows again: not inside the
    // editor's commit.
    connect(m_model, &VariantsModel::renameRequested, this, &VariantsView::renameRequested, Qt::QueuedConnection);

    m_details = new QLabel(this);
    m_details->setObjectName(QStringLiteral("variantDetails"));
    m_details->setWordWrap(true);
    m_details->setTextFormat(Qt::RichText);
    m_details->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_details->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    layout->addWidget(m_details);

    setWorkspace(QString(), false, tr("No workspace yet."));
}

QAction* VariantsView::action(const QString& name) const
{
    auto it = m_actions.find(name);
    return it == m_actions.end() ? nullptr : it->second;
}

void VariantsView::setWorkspace(const QString& path, bool readOnly, const QString& message)
{
    m_hasWorkspace = !path.isEmpty();
    m_readOnly = readOnly;
    m_workspaceLabel->setText(message);
    m_workspaceLabel->setToolTip(path);
    m_createButton->setVisible(!m_hasWorkspace);
    m_openButton->setVisible(!m_hasWorkspace);
    m_table->setVisible(m_hasWorkspace);
    if (!m_hasWorkspace)
        m_model->setRows({});
    updateActions();
    updateDetails();
}

void VariantsView::setRows(std::vector<VariantRow> rows)
{
    const auto selected = selectedIds();
    m_model->setRows(std::move(rows));
    for (int c = 0; c < VariantsModel::ColumnCount; ++c)
        m_table->resizeColumnToContents(c);
    // Long names are elided (the tooltip has them whole) so that the figures stay in view.
    for (int c : {int(VariantsModel::Name), int(VariantsModel::DerivedFrom)})
        m_table->setColumnWidth(c, std::min(m_table->columnWidth(c), 150));
    if (selected.size() == 1)
        selectVariant(selected.front());
    updateActions();
    updateDetails();
}

void VariantsView::setCurrent(std::optional<int64_t> id) { m_model->setCurrent(id); }

void VariantsView::setCanSave(bool canSave, const QString& why)
{
    m_canSave = canSave;
    m_cannotSave = why;
    updateActions();
}

void VariantsView::selectVariants(const std::vector<int64_t>& ids)
{
    QItemSelection selection;
    QModelIndex first;
    for (int64_t id : ids) {
        const int row = m_model->rowOf(id);
        if (row < 0)
            continue;
        const QModelIndex index = m_proxy->mapFromSource(m_model->index(row, 0));
        selection.select(index, index);
        if (!first.isValid())
            first = index;
    }
    m_table->selectionModel()->select(selection, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    if (first.isValid()) {
        m_table->selectionModel()->setCurrentIndex(first, QItemSelectionModel::NoUpdate);
        m_table->scrollTo(first);
    }
}

void VariantsView::revealCell(int64_t id, int column)
{
    const int row = m_model->rowOf(id);
    if (row >= 0)
        m_table->scrollTo(m_proxy->mapFromSource(m_model->index(row, column)));
}

std::vector<int64_t> VariantsView::selectedIds() const
{
    std::vector<std::pair<int, int64_t>> rows;
    for (const QModelIndex& index : m_table->selectionModel()->selectedRows())
        rows.push_back({index.row(), m_proxy->data(index, VariantsModel::IdRole).toLongLong()});
    std::sort(rows.begin(), rows.end());
    std::vector<int64_t> ids;
    for (const auto& [row, id] : rows)
        ids.push_back(id);
    return ids;
}

void VariantsView::renameSelected()
{
    const auto rows = m_table->selectionModel()->selectedRows(VariantsModel::Name);
    if (rows.size() != 1 || m_readOnly)
        return;
    m_table->setCurrentIndex(rows.front());
    m_table->edit(rows.front());
}

void VariantsView::updateActions()
{
    const std::size_t n = m_hasWorkspace ? selectedIds().size() : 0;
    const bool writable = m_hasWorkspace && !m_readOnly;
    action(QStringLiteral("save"))->setEnabled(m_canSave && !m_readOnly);
    action(QStringLiteral("save"))->setToolTip(m_readOnly ? tr("The workspace is read-only")
                                               : m_canSave ? tr("Save the current schedule as a variant, with a name and notes")
                                                           : m_cannotSave);
    action(QStringLiteral("open"))->setEnabled(n == 1);
    action(QStringLiteral("duplicate"))->setEnabled(n == 1 && writable);
    action(QStringLiteral("rename"))->setEnabled(n == 1 && writable);
    action(QStringLiteral("delete"))->setEnabled(n == 1 && writable);
    action(QStringLiteral("compare"))->setEnabled(n >= 1 && m_model->rowCount() >= 2);
    action(QStringLiteral("refresh"))->setEnabled(m_hasWorkspace);
    m_table->setEditTriggers(writable ? QAbstractItemView::EditKeyPressed : QAbstractItemView::NoEditTriggers);
}

void VariantsView::updateDetails()
{
    const auto ids = selectedIds();
    if (!m_hasWorkspace || ids.size() != 1) {
        m_details->setText(m_hasWorkspace && m_model->rowCount() > 0
                               ? tr("<span style='color:#666'>Double-click a variant to open it; select two to compare them.</span>")
                               : QString());
        return;
    }
    const int row = m_model->rowOf(ids.front());
    if (row < 0)
        return;
    const VariantRow& r = m_model->rows()[static_cast<std::size_t>(row)];
    const store::Variant& v = r.variant;
    QStringList lines;
    lines << tr("<b>%1</b>%2").arg(qs(v.name).toHtmlEscaped(),
                                   r.parentName.isEmpty() ? QString() : tr(", derived from %1").arg(r.parentName.toHtmlEscaped()));
    if (!v.notes.empty())
        lines << qs(v.notes).toHtmlEscaped().replace(QLatin1Char('\n'), QStringLiteral("<br>"));
    if (!v.tags.empty()) {
        QStringList tags;
        for (const auto& t : v.tags)
            tags << qs(t).toHtmlEscaped();
        lines << tr("tags: %1").arg(tags.join(QStringLiteral(", ")));
    }
    auto fileLine = [](const QString& what, const std::string& path, const QString& state) {
        const QString name = QString::fromStdString(path).section(QLatin1Char('/'), -1);
        if (state == QLatin1String("same"))
            return tr("%1 %2").arg(what, name.toHtmlEscaped());
        return tr("%1 %2: <span style='color:#b35900'><b>%3 on disk</b> since it was saved (the stored text is used)</span>")
            .arg(what, name.toHtmlEscaped(), state);
    };
    lines << fileLine(tr("kernel"), v.kernelPath, r.kernelOnDisk) + QStringLiteral(" &middot; ") + fileLine(tr("target"), v.target, r.targetOnDisk);
    lines << tr("created %1, modified %2")
                 .arg(QDateTime::fromMSecsSinceEpoch(v.createdAt).toString(QStringLiteral("yyyy-MM-dd HH:mm")),
                      QDateTime::fromMSecsSinceEpoch(v.modifiedAt).toString(QStringLiteral("yyyy-MM-dd HH:mm")));
    m_details->setText(lines.join(QStringLiteral("<br>")));
}

} // namespace loopscope::ui
