// Loop-nest view: tree of code-like rows, badges, context menus and the primitive actions.
#include "loop_nest_view.h"

#include "item_panel.h"
#include "live_label.h"
#include "static_text_cache.h"

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QContextMenuEvent>
#include <QDrag>
#include <QDropEvent>
#include <QFontDatabase>
#include <QHash>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLabel>
#include <QMenu>
#include <QMimeData>
#include <QPainter>
#include <QPainterPath>
#include <QSpinBox>
#include <QStyledItemDelegate>
#include <QToolBar>
#include <QToolButton>
#include <QTreeView>
#include <QVBoxLayout>
#include <QWidgetAction>

#include "sched/tensorize.h"

#include <algorithm>
#include <functional>
#include <cmath>

namespace loopscope::ui {

namespace {

/// What a row is found by after an edit: a loop's label, any other row's line.
QString keyOf(const NestRow& r)
{
    return r.kind == NestRow::Kind::Loop ? r.label : r.code;
}

/// Keys in the factor box: letters without Ctrl or Alt are not the box's (it takes digits), so
/// the shortcut they stand for fires (ShortcutOverride not accepted); Enter on a factor the box
/// takes gives the focus back to the loop nest, on one it cannot take ("0", which the box would
/// put back to its last value without a word) says why and leaves the text as typed.
class FactorKeys : public QObject {
public:
    FactorKeys(QSpinBox* box, QWidget* nest, std::function<void()> refuse) : QObject(box), m_box(box), m_nest(nest), m_refuse(std::move(refuse)) {}

protected:
    bool eventFilter(QObject* watched, QEvent* event) override
    {
        if (event->type() == QEvent::ShortcutOverride) {
            auto* k = static_cast<QKeyEvent*>(event);
            const bool letter = k->key() >= Qt::Key_A && k->key() <= Qt::Key_Z;
            if (letter && !(k->modifiers() & (Qt::ControlModifier | Qt::AltModifier | Qt::MetaModifier))) {
                event->ignore();
                return true;
            }
        } else if (event->type() == QEvent::KeyPress) {
            auto* k = static_cast<QKeyEvent*>(event);
            if (k->key() == Qt::Key_Return || k->key() == Qt::Key_Enter) {
                if (!m_box->hasAcceptableInput()) {
                    m_refuse();
                    return true;
                }
                if (m_nest)
                    m_nest->setFocus(Qt::ShortcutFocusReason);  // the box still takes the Enter
            }
        }
        return QObject::eventFilter(watched, event);
    }

private:
    QSpinBox* m_box;
    QWidget* m_nest;
    std::function<void()> m_refuse;
};


QString qs(const std::string& s) { return QString::fromStdString(s); }
std::string ss(const QString& s) { return s.toStdString(); }

/// Colours of the kind badges: loop kinds, cache roles, transfers, guards, sizes.
QColor badgeColor(const QString& b)
{
    if (b == QLatin1String("unrolled"))
        return QColor(0x2e, 0x7d, 0x32);
    if (b == QLatin1String("GCC unrolls"))
        return QColor(0x7c, 0xb3, 0x42);  // unrolled by the compiler, not by a step
    if (b == QLatin1String("vectorized"))
        return QColor(0x00, 0x83, 0x8f);
    if (b == QLatin1String("parallel"))
        return QColor(0x6a, 0x1b, 0x9a);
    if (b == QLatin1String("reduction"))
        return QColor(0x78, 0x78, 0x78);
    if (b.startsWith(QLatin1String("cache_")) || b == QLatin1String("intermediate"))
        return QColor(0x15, 0x65, 0xc0);
    if (b == QLatin1String("accumulator"))
        return QColor(0x5d, 0x40, 0x37);
    if (b.contains(QLatin1String("double")))
        return QColor(0xe6, 0x51, 0x00);
    if (b.contains(QLatin1String("->")))
        return QColor(0xb3, 0x4d, 0x00);
    if (b == QLatin1String("partial tile") || b == QLatin1String("padding") || b == QLatin1String("region"))
        return QColor(0x9e, 0x7b, 0x00);
    return QColor(0x90, 0x9a, 0xa0);  // sizes, input/output
}

/// Draws the code, then the badges as small rounded labels after it.
class NestDelegate : public QStyledItemDelegate {
public:
    using QStyledItemDelegate::QStyledItemDelegate;

    void paint(QPainter* p, const QStyleOptionViewItem& option, const QModelIndex& index) const override
    {
        QStyleOptionViewItem opt = option;
        initStyleOption(&opt, index);
        const QString code = drawItemBackground(p, opt, nullptr);

        p->save();
        QRect r = opt.rect.adjusted(4, 0, -2, 0);
        const bool selected = opt.state & QStyle::State_Selected;
        p->setFont(opt.font);
        const QVariant foreground = index.data(Qt::ForegroundRole);
        p->setPen(selected ? opt.palette.color(QPalette::HighlightedText)
                  : foreground.isValid() ? foreground.value<QBrush>().color()
                                         : opt.palette.color(QPalette::Text));
        // The texts come shaped from the caches: after an edit most rows read as before.
        StaticTextCache& codeTexts = opt.font.bold() ? m_boldTexts : m_texts;
        const QStaticText& codeText = codeTexts.text(code, opt.font);
        p->setClipRect(opt.rect);
        p->drawStaticText(QPointF(r.left(), r.top() + (r.height() - codeText.size().height()) / 2), codeText);
        int x = r.left() + static_cast<int>(std::ceil(codeText.size().width())) + 10;

        QFont small = opt.font;
        small.setBold(false);
        small.setPointSizeF(std::max(6.0, opt.font.pointSizeF() * 0.85));
        for (const QString& b : index.data(LoopNestModel::BadgesRole).toStringList()) {
            const QPixmap& badge = badgePixmap(b, small, selected, p->device() ? p->device()->devicePixelRatioF() : 1.0);
            const QSizeF size = badge.deviceIndependentSize();
            p->drawPixmap(QPointF(x, std::floor(r.center().y() - (size.height() - 1) / 2.0)), badge);
            x += static_cast<int>(size.width()) - 1 + 5;
        }
        p->restore();
    }

    QSize sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const override
    {
        // Every reset asks every row (the column fits its contents); most rows are the same
        // text as before the edit, so their widths come from the cache, not from shaping.
        const QString text = index.data(Qt::DisplayRole).toString();
        const QStringList badges = index.data(LoopNestModel::BadgesRole).toStringList();
        const QFont font = index.data(Qt::FontRole).value<QFont>();
        const QString key = (font.bold() ? QLatin1String("b|") : QLatin1String("n|")) + text + QLatin1Char('|') + badges.join(QLatin1Char('|'));
        if (m_widths.size() > 20000)
            m_widths.clear();
        auto it = m_widths.constFind(key);
        if (it == m_widths.constEnd()) {
            QStyleOptionViewItem opt = option;
            initStyleOption(&opt, index);
            const QFontMetrics fm(opt.font);
            int width = fm.horizontalAdvance(text) + 20;
            QFont small = opt.font;
            small.setPointSizeF(std::max(6.0, opt.font.pointSizeF() * 0.85));
            const QFontMetrics sm(small);
            for (const QString& b : badges)
                width += sm.horizontalAdvance(b) + 15;
            it = m_widths.insert(key, width);
            if (m_height == 0)
                m_height = fm.height() + 6;
        }
        return QSize(*it, m_height);
    }

private:
    /// A badge drawn once per text, font and selection (an antialiased rounded box and its
    /// text cost more than the row's code to draw, and the same few badges repeat on every row).
    const QPixmap& badgePixmap(const QString& b, const QFont& small, bool selected, qreal dpr) const
    {
        const QString key = b + QLatin1Char('|') + small.key() + (selected ? QLatin1String("|s|") : QLatin1String("|n|")) + QString::number(dpr);
        auto it = m_badges.constFind(key);
        if (it != m_badges.constEnd())
            return *it;
        if (m_badges.size() > 256)
            m_badges.clear();
        const QStaticText& text = m_badgeTexts.text(b, small);
        const int bh = QFontMetrics(small).height() + 2;
        const int bw = static_cast<int>(std::ceil(text.size().width())) + 10;
        QPixmap pixmap(QSize(bw + 1, bh + 1) * dpr);
        pixmap.setDevicePixelRatio(dpr);
        pixmap.fill(Qt::transparent);
        QPainter bp(&pixmap);
        bp.setFont(small);
        const QRectF box(0.5, 0.5, bw, bh);
        const QColor c = badgeColor(b);
        QPainterPath path;
        path.addRoundedRect(box, 4, 4);
        bp.setRenderHint(QPainter::Antialiasing);
        if (selected)  // stay readable on the selection colour
            bp.fillPath(path, QColor(255, 255, 255, 235));
        bp.fillPath(path, QColor(c.red(), c.green(), c.blue(), 40));
        bp.setPen(c);
        bp.drawPath(path);
        bp.setPen(c.darker(130));
        bp.drawStaticText(QPointF(box.center().x() - text.size().width() / 2, box.center().y() - text.size().height() / 2), text);
        bp.end();
        return *m_badges.insert(key, pixmap);
    }

    mutable QHash<QString, QPixmap> m_badges;
    mutable QHash<QString, int> m_widths;
    mutable int m_height = 0;
    mutable StaticTextCache m_texts;
    mutable StaticTextCache m_boldTexts;
    mutable StaticTextCache m_badgeTexts;
};

} // namespace

/// The tree: drops a loop onto another loop of its stage to reorder them.
class NestTree : public QTreeView {
public:
    explicit NestTree(LoopNestView* owner) : QTreeView(owner), m_owner(owner) {}

protected:
    void dragEnterEvent(QDragEnterEvent* e) override
    {
        if (e->source() == this)
            e->acceptProposedAction();
    }
    void dragMoveEvent(QDragMoveEvent* e) override
    {
        const QModelIndex target = indexAt(e->position().toPoint());
        const NestRow* to = m_owner->m_model->row(target);
        const NestRow* from = m_owner->m_model->row(currentIndex());
        if (e->source() == this && to && from && to->kind == NestRow::Kind::Loop && from->kind == NestRow::Kind::Loop
            && to->stage == from->stage)
            e->acceptProposedAction();
        else
            e->ignore();
    }
    void dropEvent(QDropEvent* e) override
    {
        const QModelIndex target = indexAt(e->position().toPoint());
        const QModelIndex source = currentIndex();
        e->acceptProposedAction();
        // The model never changes here: the drop becomes a reorder step for the document.
        m_owner->dropLoopOnto(source, target);
    }

private:
    LoopNestView* m_owner;
};

LoopNestView::LoopNestView(QWidget* parent) : QWidget(parent), m_model(new LoopNestModel(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);

    // Its step count changes with edits: a LiveLabel repaints it without a new layout.
    m_header = new LiveLabel(this);
    m_header->setContentsMargins(6, 4, 6, 0);
    m_header->setTextFormat(Qt::RichText);
    m_header->setWordWrap(true);
    layout->addWidget(m_header);

    m_toolbar = new QToolBar(this);
    m_toolbar->setToolButtonStyle(Qt::ToolButtonTextOnly);
    layout->addWidget(m_toolbar);
    m_memoryBar = new QToolBar(this);
    m_memoryBar->setToolButtonStyle(Qt::ToolButtonTextOnly);
    layout->addWidget(m_memoryBar);

    m_banner = new QLabel(this);
    m_banner->setWordWrap(true);
    m_banner->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_banner->setStyleSheet(QStringLiteral("QLabel { background: #ffe0e0; color: #8b0000; border: 1px solid #e0a0a0; padding: 4px; }"));
    m_banner->hide();
    layout->addWidget(m_banner);

    m_tree = new NestTree(this);
    m_tree->setModel(m_model);
    m_tree->setHeaderHidden(true);
    m_tree->setUniformRowHeights(true);
    m_tree->setItemDelegate(new NestDelegate(m_tree));
    m_tree->setContextMenuPolicy(Qt::CustomContextMenu);
    m_tree->setDragEnabled(true);
    m_tree->setAcceptDrops(true);
    m_tree->viewport()->setAcceptDrops(true);
    m_tree->setDropIndicatorShown(true);
    m_tree->setDragDropMode(QAbstractItemView::InternalMove);
    m_tree->setIndentation(18);
    m_tree->setAllColumnsShowFocus(true);
    // The column fills the view (selections span the row) and grows for long lines.
    m_tree->header()->setSectionResizeMode(QHeaderView::Stretch);
    m_tree->header()->setStretchLastSection(true);
    layout->addWidget(m_tree, 1);

    buildActions();

    connect(m_tree, &QWidget::customContextMenuRequested, this, [this](const QPoint& pos) {
        const QModelIndex index = m_tree->indexAt(pos);
        if (!index.isValid())
            return;
        m_tree->setCurrentIndex(index);
        QMenu* menu = contextMenuFor(index, this);
        menu->setAttribute(Qt::WA_DeleteOnClose);
        menu->popup(m_tree->viewport()->mapToGlobal(pos));
    });
    connect(m_tree->selectionModel(), &QItemSelectionModel::currentChanged, this, [this] { onCurrentChanged(); });
    connect(m_tree, &QTreeView::collapsed, this, [this](const QModelIndex& i) {
        if (!m_restoring)
            m_collapsed.insert(i.data(LoopNestModel::LabelRole).toString());
    });
    connect(m_tree, &QTreeView::expanded, this, [this](const QModelIndex& i) {
        if (!m_restoring)
            m_collapsed.remove(i.data(LoopNestModel::LabelRole).toString());
    });
    setSnapshot(Snapshot{});
}

void LoopNestView::buildActions()
{
    struct Def {
        ActionId id;
        const char* text;
        const char* key;
        const char* tip;
    };
    const Def defs[] = {
        {Split, "Split", "S", "split the loop by the factor: x becomes x.outer and x.inner"},
        {Tile, "Tile", "T", "tile this loop and the loop directly inside it by factor x factor"},
        {Fuse, "Fuse", "F", "fuse the loop with the loop directly inside it"},
        {Unroll, "Unroll", "U", "unroll the loop (its body is written out)"},
        {Vectorize, "Vectorize", "V", "vectorize the innermost loop"},
        {Parallel, "Parallel", "P", "mark the loop parallel"},
        {MoveOut, "Out", "Alt+Up", "reorder: swap with the loop directly outside it"},
        {MoveIn, "In", "Alt+Down", "reorder: swap with the loop directly inside it"},
        {CacheMenu, "Cache / place", "C", "cache_read / cache_write / compute_at / compute_inline of a tensor here"},
        {DoubleBuffer, "Double buffer", "D", "give a cache stage at this loop two buffers (overlap copy and compute)"},
        {Tensorize, "Tensorize", "G", "map the three innermost loops of this stage onto the accelerator's PE array (adds the scratchpad and accumulator caches it needs)"},
    };
    for (const Def& d : defs) {
        auto* a = new QAction(tr(d.text), this);
        a->setIconText(tr(d.text));
        a->setShortcut(QKeySequence(QString::fromLatin1(d.key)));
        a->setShortcutContext(Qt::WidgetWithChildrenShortcut);
        a->setToolTip(tr("%1 (%2)").arg(tr(d.tip), QKeySequence(QString::fromLatin1(d.key)).toString(QKeySequence::NativeText)));
        a->setStatusTip(a->toolTip());
        const ActionId id = d.id;
        connect(a, &QAction::triggered, this, [this, id] { trigger(id); });
        addAction(a);
        m_actions[id] = a;
    }
    m_toolbar->addAction(m_actions[Split]);
    m_toolbar->addAction(m_actions[Tile]);
    m_toolbar->addWidget(new QLabel(tr(" by "), m_toolbar));
    m_factor = new QSpinBox(m_toolbar);
    m_factor->setRange(1, 1 << 20);
    m_factor->setValue(16);
    m_factor->setToolTip(tr("Factor of split and tile"));
    m_toolbar->addWidget(m_factor);
    // The box takes digits only: the primitives' letter keys (S, T, U, ...) typed in it act as
    // they do in the nest (the box's line edit took them, so "type 4, press S" did nothing), and
    // Enter hands the keys back to the nest.
    // On the box itself, the focus widget (its line edit sees no ShortcutOverride of its own).
    m_factor->installEventFilter(new FactorKeys(m_factor, m_tree, [this] { showRejected(factorRefused("split and tile")); }));
    m_toolbar->addSeparator();
    for (ActionId id : {Fuse, Unroll, Vectorize, Parallel})
        m_toolbar->addAction(m_actions[id]);
    // The second row: reorder, then the memory primitives (one row would not fit a 1280-wide
    // window, and an action behind the toolbar's » is one a newcomer never finds).
    m_memoryBar->addAction(m_actions[MoveOut]);
    m_memoryBar->addAction(m_actions[MoveIn]);
    m_memoryBar->addSeparator();

    // Memory primitives: the menu lists every tensor and level that makes sense here.
    auto* cacheButton = new QToolButton(m_memoryBar);
    cacheButton->setDefaultAction(m_actions[CacheMenu]);
    cacheButton->setPopupMode(QToolButton::InstantPopup);
    cacheButton->setToolButtonStyle(Qt::ToolButtonTextOnly);
    auto* cacheMenu = new QMenu(cacheButton);
    cacheMenu->setToolTipsVisible(true);
    connect(cacheMenu, &QMenu::aboutToShow, this, [this, cacheMenu] {
        cacheMenu->clear();
        if (const NestRow* r = currentRow())
            addCacheActions(cacheMenu, *r);
        else
            cacheMenu->addAction(tr("Select a loop or a tensor row first"))->setEnabled(false);
    });
    cacheButton->setMenu(cacheMenu);
    m_memoryBar->addWidget(cacheButton);
    m_memoryBar->addAction(m_actions[DoubleBuffer]);
    // Tensorize: one entry per dataflow, each greyed with the reason when it cannot apply.
    auto* tensorizeButton = new QToolButton(m_memoryBar);
    tensorizeButton->setDefaultAction(m_actions[Tensorize]);
    tensorizeButton->setPopupMode(QToolButton::InstantPopup);
    tensorizeButton->setToolButtonStyle(Qt::ToolButtonTextOnly);
    auto* tensorizeMenu = new QMenu(tensorizeButton);
    tensorizeMenu->setToolTipsVisible(true);
    connect(tensorizeMenu, &QMenu::aboutToShow, this, [this, tensorizeMenu] {
        tensorizeMenu->clear();
        if (const NestRow* r = currentRow())
            addTensorizeActions(tensorizeMenu, *r);
        if (tensorizeMenu->isEmpty())
            tensorizeMenu->addAction(tr("Select a loop of a stage first"))->setEnabled(false);
    });
    tensorizeButton->setMenu(tensorizeMenu);
    m_tensorizeButton = m_memoryBar->addWidget(tensorizeButton);
    for (QToolBar* bar : {m_toolbar, m_memoryBar})
        bar->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Fixed);  // never widen the window
    connect(m_factor, &QSpinBox::valueChanged, this, [this] { updateActions(); });
}

QList<QAction*> LoopNestView::primitiveActions() const
{
    QList<QAction*> out;
    for (QAction* a : m_actions)
        out << a;
    return out;
}

const NestRow* LoopNestView::currentRow() const { return m_model->row(m_tree->currentIndex()); }

const NestRow* LoopNestView::loopFor(const NestRow* r) const
{
    if (!r)
        return nullptr;
    if (r->kind == NestRow::Kind::Loop)
        return r;
    return r->enclosingLoop >= 0 ? &m_model->rows()[r->enclosingLoop] : nullptr;
}

QString LoopNestView::neighbour(const NestRow& r, int delta) const
{
    if (!m_snapshot.program || r.stage < 0)
        return {};
    const auto& stage = m_snapshot.program->stages[r.stage];
    const int pos = stage.position(r.var);
    const int other = pos + delta;
    if (pos < 0 || other < 0 || other >= static_cast<int>(stage.order.size()))
        return {};
    return qs(stage.vars[stage.order[other]].name);
}

sched::Step LoopNestView::baseStep(sched::Primitive p, const QString& stage) const
{
    sched::Step s;
    s.primitive = p;
    // Name the stage only when loop names could be ambiguous (several stages).
    int live = 0;
    if (m_snapshot.program)
        for (const auto& st : m_snapshot.program->stages)
            live += st.inlined ? 0 : 1;
    if (live > 1)
        s.stage = ss(stage);
    return s;
}

void LoopNestView::trigger(ActionId id)
{
    const NestRow* row = currentRow();
    const NestRow* loop = loopFor(row);
    if (id == CacheMenu) {
        if (!row)
            return;
        QMenu* menu = contextMenuFor(m_tree->currentIndex(), this);
        menu->setAttribute(Qt::WA_DeleteOnClose);
        menu->popup(m_tree->viewport()->mapToGlobal(m_tree->visualRect(m_tree->currentIndex()).bottomLeft()));
        return;
    }
    if (id == Tensorize) {
        if (!row)
            return;
        auto* menu = new QMenu(this);
        menu->setToolTipsVisible(true);
        addTensorizeActions(menu, *row);
        if (menu->isEmpty())
            menu->addAction(tr("Select a loop of a stage first"))->setEnabled(false);
        menu->setAttribute(Qt::WA_DeleteOnClose);
        menu->popup(m_tree->viewport()->mapToGlobal(m_tree->visualRect(m_tree->currentIndex()).bottomLeft()));
        return;
    }
    if (id == DoubleBuffer) {
        if (!m_snapshot.program || !row)
            return;
        // The cache this row is about, or the only cache placed at this loop.
        const auto& p = *m_snapshot.program;
        std::vector<const sched::CacheStage*> here;
        for (const auto& c : p.caches) {
            const QString tensor = qs(p.kernel->tensors[c.tensor].name);
            const bool atLoop = loop && c.stage == loop->stage && c.var == loop->var;
            if ((row->kind == NestRow::Kind::Alloc || row->kind == NestRow::Kind::Copy) && row->tensor == tensor
                && qs(p.target->levels[c.level].name) == row->level)
                here = {&c};
            else if (row->kind == NestRow::Kind::Loop && atLoop)
                here.push_back(&c);
        }
        if (here.empty()) {
            showRejected(tr("double_buffer: select a cache (an alloc row of a cache_read or cache_write) or a loop that holds one."));
            return;
        }
        sched::Step s = baseStep(sched::Primitive::DoubleBuffer, qs(p.kernel->stages[here.front()->stage].name));
        s.tensor = p.kernel->tensors[here.front()->tensor].name;
        s.level = p.target->levels[here.front()->level].name;
        emit stepRequested(s);
        return;
    }
    QString why;
    const std::optional<sched::Step> s = loopStep(id, &why);
    if (!s) {
        showRejected(why);
        return;
    }
    if (id == MoveOut || id == MoveIn)
        m_currentKey = loop->label;
    emit stepRequested(*s);
}

QString LoopNestView::factorRefused(const char* primitive) const
{
    // The box shows what was typed while value() still holds the last valid factor: applying
    // that one was a step the user did not ask for.
    return tr("%1: the factor box holds '%2'; a factor is a whole number from %3 to %4 (not applied).")
        .arg(QString::fromLatin1(primitive), m_factor->text())
        .arg(m_factor->minimum())
        .arg(m_factor->maximum());
}

std::optional<sched::Step> LoopNestView::loopStep(ActionId id, QString* why) const
{
    const NestRow* loop = loopFor(currentRow());
    if (!loop) {
        *why = tr("Select a loop first (click a 'for' row).");
        return std::nullopt;
    }
    sched::Step s;
    switch (id) {
    case Split:
        if (!m_factor->hasAcceptableInput()) {
            *why = factorRefused("split");
            return std::nullopt;
        }
        s = baseStep(sched::Primitive::Split, loop->stageName);
        s.loops = {ss(loop->loopName)};
        s.factor = m_factor->value();
        break;
    case Tile: {
        const QString inner = neighbour(*loop, +1);
        if (inner.isEmpty()) {
            *why = tr("tile: %1 is the innermost loop of stage %2; tile takes a loop and the loop inside it.").arg(loop->label, loop->stageName);
            return std::nullopt;
        }
        if (!m_factor->hasAcceptableInput()) {
            *why = factorRefused("tile");
            return std::nullopt;
        }
        s = baseStep(sched::Primitive::Tile, loop->stageName);
        s.loops = {ss(loop->loopName), ss(inner)};
        s.factors = {m_factor->value(), m_factor->value()};
        break;
    }
    case Fuse: {
        const QString inner = neighbour(*loop, +1);
        if (inner.isEmpty()) {
            *why = tr("fuse: %1 is the innermost loop of stage %2; there is no loop inside it to fuse with.").arg(loop->label, loop->stageName);
            return std::nullopt;
        }
        s = baseStep(sched::Primitive::Fuse, loop->stageName);
        s.loops = {ss(loop->loopName), ss(inner)};
        break;
    }
    case Unroll:
    case Vectorize:
    case Parallel:
        s = baseStep(id == Unroll ? sched::Primitive::Unroll : id == Vectorize ? sched::Primitive::Vectorize : sched::Primitive::Parallel,
                     loop->stageName);
        s.loops = {ss(loop->loopName)};
        break;
    case MoveOut:
    case MoveIn: {
        const QString other = neighbour(*loop, id == MoveOut ? -1 : +1);
        if (other.isEmpty()) {
            *why = tr("%1 is already the %2 loop of stage %3.").arg(loop->label, id == MoveOut ? tr("outermost") : tr("innermost"), loop->stageName);
            return std::nullopt;
        }
        s = baseStep(sched::Primitive::Reorder, loop->stageName);
        // The named loops take the positions they occupied, in the order given.
        s.loops = id == MoveOut ? std::vector<std::string>{ss(loop->loopName), ss(other)}
                                : std::vector<std::string>{ss(other), ss(loop->loopName)};
        break;
    }
    default:
        return std::nullopt;
    }
    return s;
}

QString LoopNestView::refusal(const sched::Step& step) const
{
    if (!m_snapshot.program)
        return tr("no schedule is open");
    // apply is pure and takes microseconds: the menu can afford to try every entry.
    const sched::ApplyResult r = sched::apply(*m_snapshot.program, step);
    return r.ok() ? QString() : qs(r.error().message);
}

void LoopNestView::dropLoopOnto(const QModelIndex& dragged, const QModelIndex& onto)
{
    const int fromRow = dragged.isValid() ? dragged.data(LoopNestModel::RowIdRole).toInt() : -1;
    const int toRow = onto.isValid() ? onto.data(LoopNestModel::RowIdRole).toInt() : -1;
    const auto& rows = m_model->rows();
    if (fromRow < 0 || toRow < 0 || fromRow >= static_cast<int>(rows.size()) || toRow >= static_cast<int>(rows.size())
        || fromRow == toRow || !m_snapshot.program)
        return;
    const NestRow& from = rows[fromRow];
    const NestRow& to = rows[toRow];
    if (from.kind != NestRow::Kind::Loop || to.kind != NestRow::Kind::Loop || from.stage != to.stage) {
        showRejected(tr("Drop a loop onto another loop of the same stage to move it there."));
        return;
    }
    const auto& stage = m_snapshot.program->stages[from.stage];
    std::vector<std::string> order;
    for (int v : stage.order)
        order.push_back(stage.vars[v].name);
    auto it = std::find(order.begin(), order.end(), ss(from.loopName));
    const auto target = std::find(order.begin(), order.end(), ss(to.loopName)) - order.begin();
    if (it == order.end() || target >= static_cast<long>(order.size()))
        return;
    const std::string moved = *it;
    order.erase(it);
    order.insert(order.begin() + target, moved);
    sched::Step s = baseStep(sched::Primitive::Reorder, from.stageName);
    s.loops = order;
    m_currentKey = from.label;
    emit stepRequested(s);
}

void LoopNestView::addCacheActions(QMenu* menu, const NestRow& r)
{
    if (!m_snapshot.program)
        return;
    const auto& p = *m_snapshot.program;
    const auto& k = *p.kernel;
    const NestRow* loop = loopFor(&r);
    QStringList levels;
    for (size_t l = 1; l < p.target->levels.size(); ++l)
        levels << qs(p.target->levels[l].name);

    // Which stage and loop a cache or placement here means.
    const int stage = loop ? loop->stage : -1;
    const QString at = loop ? loop->loopName : QStringLiteral("root");
    const QString atShown = loop ? loop->label : tr("root");

    // Every entry is tried on the program: one that would be refused is greyed, saying why.
    auto addStepAction = [this](QMenu* m, const QString& text, const sched::Step& s, const QString& tip = QString()) {
        QAction* a = m->addAction(text);
        const QString why = refusal(s);
        a->setEnabled(why.isEmpty());
        a->setToolTip(why.isEmpty() ? (tip.isEmpty() ? qs(sched::describe(s)) : tip) : tr("Not possible here: %1").arg(why));
        connect(a, &QAction::triggered, this, [this, s] { emit stepRequested(s); });
        return a;
    };

    // Tensors in question: the row's tensor, or (on a loop) those its stage reads and writes.
    std::vector<int> stages;
    if (stage >= 0)
        stages = {stage};
    else if (!r.tensor.isEmpty()) {  // a home tensor row at the top: every stage that reads it
        const int t = k.findTensor(ss(r.tensor));
        for (size_t s = 0; s < k.stages.size(); ++s) {
            if (p.stages[s].inlined)
                continue;
            for (const auto& acc : sched::effectiveLoads(p, static_cast<int>(s)))
                if (acc.tensor == t) {
                    stages.push_back(static_cast<int>(s));
                    break;
                }
            if (k.stages[s].output.tensor == t)
                stages.push_back(static_cast<int>(s));
        }
    }

    QMenu* read = menu->addMenu(tr("cache_read at %1").arg(atShown));
    QMenu* write = menu->addMenu(tr("cache_write at %1").arg(atShown));
    QMenu* computeAt = menu->addMenu(tr("compute_at %1").arg(atShown));
    QMenu* inlineMenu = menu->addMenu(tr("compute_inline"));
    QMenu* db = menu->addMenu(tr("double_buffer"));

    for (int s : stages) {
        const QString stageName = qs(k.stages[s].name);
        std::vector<int> reads;
        for (const auto& acc : sched::effectiveLoads(p, s))
            if (std::find(reads.begin(), reads.end(), acc.tensor) == reads.end())
                reads.push_back(acc.tensor);
        for (int t : reads) {
            const QString tn = qs(k.tensors[t].name);
            if (!r.tensor.isEmpty() && r.kind != NestRow::Kind::Loop && tn != r.tensor)
                continue;
            for (const QString& level : levels) {
                sched::Step st = baseStep(sched::Primitive::CacheRead, stageName);
                st.tensor = ss(tn);
                st.level = ss(level);
                st.at = loop ? ss(at) : "root";
                addStepAction(read, tr("%1 into %2").arg(tn, level) + (stages.size() > 1 ? tr(" (for stage %1)").arg(stageName) : QString()), st);
            }
        }
        const int out = k.stages[s].output.tensor;
        const QString on = qs(k.tensors[out].name);
        if (r.tensor.isEmpty() || r.kind == NestRow::Kind::Loop || r.tensor == on)
            for (const QString& level : levels) {
                sched::Step st = baseStep(sched::Primitive::CacheWrite, stageName);
                st.tensor = ss(on);
                st.level = ss(level);
                st.at = loop ? ss(at) : "root";
                addStepAction(write, tr("%1 into %2").arg(on, level), st);
            }
        // Producers whose output this stage reads can be computed here.
        if (loop)
            for (int t : reads) {
                const int prod = k.producerOf(t);
                if (prod < 0 || prod >= s || p.stages[prod].inlined)
                    continue;
                for (const QString& level : levels) {
                    sched::Step st = baseStep(sched::Primitive::ComputeAt, stageName);
                    st.stage = ss(stageName);
                    st.producer = k.stages[prod].name;
                    st.at = ss(at);
                    st.level = ss(level);
                    addStepAction(computeAt, tr("stage %1 here, %2 in %3").arg(qs(k.stages[prod].name), qs(k.tensors[t].name), level), st);
                }
            }
    }
    // Cache stages that can move here, or be double-buffered.
    for (const auto& c : p.caches) {
        const QString tn = qs(k.tensors[c.tensor].name);
        const QString level = qs(p.target->levels[c.level].name);
        const QString cstage = qs(k.stages[c.stage].name);
        if (!r.tensor.isEmpty() && r.kind != NestRow::Kind::Loop && tn != r.tensor)
            continue;
        if ((loop && c.stage == loop->stage && c.var != loop->var) || (!loop && c.var >= 0)) {
            sched::Step st = baseStep(sched::Primitive::ComputeAt, cstage);
            st.tensor = ss(tn);
            st.level = ss(level);
            st.at = loop ? ss(at) : "root";
            addStepAction(computeAt, tr("move the %1 cache of %2 here").arg(level, tn), st);
        }
        if (!c.doubleBuffer && (!loop || (c.stage == loop->stage && c.var == loop->var) || r.kind != NestRow::Kind::Loop)) {
            sched::Step st = baseStep(sched::Primitive::DoubleBuffer, cstage);
            st.tensor = ss(tn);
            st.level = ss(level);
            addStepAction(db, tr("%1 in %2").arg(tn, level), st);
        }
    }
    for (size_t s = 0; s + 1 < k.stages.size(); ++s) {
        if (p.stages[s].inlined || !k.isIntermediate(k.stages[s].output.tensor))
            continue;
        const QString out = qs(k.tensors[k.stages[s].output.tensor].name);
        if (!r.tensor.isEmpty() && r.kind != NestRow::Kind::Loop && out != r.tensor)
            continue;
        sched::Step st = baseStep(sched::Primitive::ComputeInline, QString());
        st.stage.clear();
        st.producer = k.stages[s].name;
        addStepAction(inlineMenu, tr("stage %1 into its readers").arg(qs(k.stages[s].name)), st);
    }
    const std::pair<QMenu*, QString> empty[] = {
        {read, tr("No tensor is read here.")},
        {write, tr("No stage writes its output here.")},
        {computeAt, loop ? tr("No producer stage or cache stage can be placed at %1.").arg(atShown)
                         : tr("Producers are placed at a loop of their reader: right-click one of its loops.")},
        {inlineMenu, tr("No stage writes an intermediate tensor that its readers could recompute.")},
        {db, tr("No cache stage here to double-buffer (add a cache_read or cache_write first).")},
    };
    for (const auto& [m, why] : empty) {
        bool any = false;
        for (QAction* a : m->actions())
            any |= a->isEnabled();
        if (m->isEmpty() || !any) {
            m->menuAction()->setEnabled(false);
            m->menuAction()->setToolTip(m->isEmpty() ? why : tr("Nothing here can apply: hover an entry to see why."));
        }
    }
}

void LoopNestView::addTensorizeActions(QMenu* menu, const NestRow& r)
{
    if (!m_snapshot.program || !m_snapshot.program->target || !m_snapshot.program->target->compute.peArray)
        return;
    const auto& p = *m_snapshot.program;
    const NestRow* loop = loopFor(&r);
    int stage = loop ? loop->stage : -1;
    if (stage < 0 && r.kind == NestRow::Kind::Matmul && r.enclosingLoop >= 0)
        stage = m_model->rows()[r.enclosingLoop].stage;
    if (stage < 0 || stage >= static_cast<int>(p.stages.size()))
        return;
    const auto& pe = *p.target->compute.peArray;
    const QString stageName = qs(p.kernel->stages[stage].name);
    for (const std::string& name : pe.dataflows) {
        sched::Dataflow dataflow;
        if (!sched::parseDataflow(name, dataflow))
            continue;
        const sched::TensorizePlan plan = sched::planTensorize(p, stage, dataflow);
        QStringList what;
        for (const sched::Step& st : plan.steps)
            what << qs(sched::describe(st));
        const QString text = tr("Tensorize stage %1 onto the %2x%3 PE array, %4").arg(stageName).arg(pe.rows).arg(pe.cols).arg(qs(name));
        QAction* a = menu->addAction(plan.legal && plan.steps.size() > 1
                                         ? text + (plan.steps.size() == 2 ? tr(" (+1 cache step)") : tr(" (+%1 cache steps)").arg(plan.steps.size() - 1))
                                         : text);
        a->setEnabled(plan.legal);
        a->setToolTip(plan.legal ? tr("Adds: %1").arg(what.join(QStringLiteral("; ")))
                                 : tr("Not possible here: %1").arg(plan.error ? qs(plan.error->message) : tr("no plan")));
        const std::vector<sched::Step> steps = plan.steps;
        connect(a, &QAction::triggered, this, [this, steps, text] {
            if (steps.size() == 1)
                emit stepRequested(steps.front());
            else
                emit stepsRequested(steps, text);
        });
    }
}

QMenu* LoopNestView::contextMenuFor(const QModelIndex& index, QWidget* parent)
{
    auto* menu = new QMenu(parent ? parent : this);
    menu->setToolTipsVisible(true);
    const NestRow* found = m_model->row(index);
    if (!found)
        return menu;
    // A copy: selecting the row tells the window, whose handlers may refresh the model's rows.
    const NestRow row = *found;
    const NestRow* r = &row;
    if (m_tree->currentIndex() != index)
        m_tree->setCurrentIndex(index);
    if (r->kind == NestRow::Kind::Loop) {
        menu->addSection(tr("loop %1 (stage %2, %3 iterations)").arg(r->label, r->stageName).arg(r->extent));
        // The factor field, shared with the toolbar.
        auto* fieldAction = new QWidgetAction(menu);
        auto* field = new QWidget(menu);
        auto* fl = new QHBoxLayout(field);
        fl->setContentsMargins(24, 2, 8, 2);
        fl->addWidget(new QLabel(tr("factor"), field));
        auto* spin = new QSpinBox(field);
        spin->setRange(1, 1 << 20);
        spin->setValue(m_factor->value());
        spin->setObjectName(QStringLiteral("contextFactor"));
        fl->addWidget(spin, 1);
        fieldAction->setDefaultWidget(field);
        menu->addAction(fieldAction);
        connect(spin, &QSpinBox::valueChanged, menu, [this](int f) { m_factor->setValue(f); });
        // The loop primitives, each tried first: greyed with the reason when it cannot apply.
        std::vector<std::pair<QAction*, ActionId>> entries;
        for (ActionId id : {Split, Tile, Fuse, Unroll, Vectorize, Parallel, MoveOut, MoveIn}) {
            QAction* shared = m_actions[id];
            QAction* a = menu->addAction(shared->text());
            a->setShortcut(shared->shortcut());
            connect(a, &QAction::triggered, shared, &QAction::trigger);
            entries.push_back({a, id});
        }
        auto check = [this, entries] {
            for (const auto& [a, id] : entries) {
                QString why;
                const std::optional<sched::Step> s = loopStep(id, &why);
                if (s)
                    why = refusal(*s);
                a->setText(m_actions[id]->text());
                a->setEnabled(why.isEmpty());
                a->setToolTip(why.isEmpty() ? m_actions[id]->toolTip() : tr("Not possible here: %1").arg(why));
            }
        };
        check();
        connect(spin, &QSpinBox::valueChanged, menu, check);
        menu->addSection(tr("tensors at this loop"));
    } else if (!r->tensor.isEmpty() && r->kind != NestRow::Kind::Init) {
        const NestRow* loop = loopFor(r);
        menu->addSection(tr("tensor %1 at %2").arg(r->tensor, loop ? loop->label : tr("root")));
    } else {
        const NestRow* loop = loopFor(r);
        menu->addSection(loop ? tr("in loop %1").arg(loop->label) : tr("at the root"));
    }
    addCacheActions(menu, *r);
    if (m_snapshot.program && m_snapshot.program->target && m_snapshot.program->target->compute.peArray) {
        menu->addSection(tr("PE array"));
        const int before = static_cast<int>(menu->actions().size());
        addTensorizeActions(menu, *r);
        if (static_cast<int>(menu->actions().size()) == before)
            menu->addAction(tr("Tensorize: right-click a loop of the stage"))->setEnabled(false);
    }
    return menu;
}

void LoopNestView::updateActions()
{
    const NestRow* r = currentRow();
    const NestRow* loop = loopFor(r);
    const bool isLoop = r && r->kind == NestRow::Kind::Loop;
    const int f = m_factor->value();
    const QString inner = isLoop ? neighbour(*r, +1) : QString();
    const QString outer = isLoop ? neighbour(*r, -1) : QString();
    // Each action once, to its final state: every change of an action lays its toolbar
    // button out again.
    for (ActionId id : {Split, Unroll, Vectorize, Parallel})
        m_actions[id]->setEnabled(isLoop);
    for (ActionId id : {Tile, Fuse, MoveIn})
        m_actions[id]->setEnabled(isLoop && !inner.isEmpty());
    m_actions[MoveOut]->setEnabled(isLoop && !outer.isEmpty());
    const QString name = isLoop ? r->loopName : tr("the loop");
    // Menus show what will happen; the toolbar keeps its short labels (iconText).
    m_actions[Split]->setText(tr("Split %1 by %2").arg(name).arg(f));
    m_actions[Tile]->setText(inner.isEmpty() ? tr("Tile %1 with the loop inside it").arg(name)
                                             : tr("Tile %1, %2 by %3 x %3").arg(name, inner).arg(f));
    m_actions[Fuse]->setText(inner.isEmpty() ? tr("Fuse %1 with the loop inside it").arg(name)
                                             : tr("Fuse %1 with %2").arg(name, inner));
    m_actions[Unroll]->setText(tr("Unroll %1").arg(name));
    m_actions[Vectorize]->setText(tr("Vectorize %1").arg(name));
    m_actions[Parallel]->setText(tr("Parallel %1").arg(name));
    m_actions[MoveOut]->setText(outer.isEmpty() ? tr("Move %1 out").arg(name) : tr("Move %1 out (outside %2)").arg(name, outer));
    m_actions[MoveIn]->setText(inner.isEmpty() ? tr("Move %1 in").arg(name) : tr("Move %1 in (inside %2)").arg(name, inner));
    m_actions[CacheMenu]->setEnabled(r != nullptr && !m_snapshot.empty());
    m_actions[DoubleBuffer]->setEnabled(r != nullptr && (loop != nullptr || r->kind == NestRow::Kind::Alloc));
    // Tensorize belongs to targets with a PE array: elsewhere it is not shown at all.
    const bool array = m_snapshot.program && m_snapshot.program->target && m_snapshot.program->target->compute.peArray;
    m_actions[Tensorize]->setEnabled(array && r != nullptr && (loop != nullptr || r->kind == NestRow::Kind::Matmul));
    m_actions[Tensorize]->setVisible(array);
    if (m_tensorizeButton)
        m_tensorizeButton->setVisible(array);
}

void LoopNestView::onCurrentChanged()
{
    // While a new snapshot resets the model the current row is briefly none: setSnapshot
    // updates the actions once it is restored (their texts would flip and every toolbar
    // button be laid out again on each edit).
    if (m_restoring)
        return;
    updateActions();
    const NestRow* r = currentRow();
    if (!r) {
        emit loopSelected(QString(), QString(), {});
        return;
    }
    m_currentKey = keyOf(*r);
    m_currentBuffer = r->kind == NestRow::Kind::Alloc ? r->buffer : QString();
    m_currentOccurrence = 0;
    for (const NestRow& other : m_model->rows()) {
        if (&other == r)
            break;
        m_currentOccurrence += keyOf(other) == m_currentKey ? 1 : 0;
    }
    if (r->kind == NestRow::Kind::Loop)
        emit loopSelected(r->label, r->stageName, r->touched);
    else {
        emit loopSelected(QString(), QString(), {});
        if (!r->tensor.isEmpty())
            emit tensorSelected(r->tensor);
    }
}

void LoopNestView::setSnapshot(const Snapshot& snapshot)
{
    m_snapshot = snapshot;
    m_banner->hide();
    if (snapshot.empty()) {
        m_header->setText(tr("<b>No kernel open.</b> Choose an example in <i>File &gt; New from example</i>, or a kernel in the Kernel &amp; target panel."));
    } else {
        const auto& p = *snapshot.program;
        QString text = tr("<b>%1</b> on <b>%2</b> &mdash; %3 applied. Select a loop, then right-click it, use the toolbar or the keys shown in the Schedule menu.")
                           .arg(qs(p.kernel->name).toHtmlEscaped(), qs(p.target->name).toHtmlEscaped(),
                                p.trace.size() == 1 ? tr("1 step") : tr("%1 steps").arg(p.trace.size()));
        if (snapshot.failedStep)
            text += tr("<br><span style='color:#b00000'>Step %1 fails and is not applied (see the Schedule panel): %2</span>")
                        .arg(snapshot.failedStep->stepIndex + 1)
                        .arg(qs(snapshot.failedStep->message).toHtmlEscaped());
        m_header->setText(text);
    }
    m_restoring = true;
    // Rows replaced in place keep the scroll position; the expansion and the current row are
    // checked against the labels (a reorder keeps the tree's shape but moves the loops).
    restoreState(m_model->setSnapshot(snapshot));
    m_restoring = false;
    int widest = 0;
    for (size_t i = 0; i < m_model->rows().size(); ++i) {
        const QModelIndex idx = m_model->indexOfRow(static_cast<int>(i));
        const int depth = m_model->rows()[i].depth + 1;
        widest = std::max(widest, m_tree->itemDelegate()->sizeHint(QStyleOptionViewItem(), idx).width() + depth * m_tree->indentation());
    }
    // The column grows at once and shrinks only past a third: a new minimum relays the tree
    // out and repaints all of it, which a factor edit changing a row's width by a digit did.
    const int minimum = m_tree->header()->minimumSectionSize();
    if (widest > minimum || widest < minimum * 2 / 3)
        m_tree->header()->setMinimumSectionSize(widest);
    updateActions();
    onCurrentChanged();
}

void LoopNestView::restoreState(bool reset)
{
    const auto& rows = m_model->rows();
    if (reset) {
        m_tree->expandAll();
        for (size_t i = 0; i < rows.size(); ++i)
            if (rows[i].kind == NestRow::Kind::Loop && m_collapsed.contains(rows[i].label))
                m_tree->collapse(m_model->indexOfRow(static_cast<int>(i)));
    } else {
        // Only what differs: expanding or collapsing a row lays the tree out again.
        for (size_t i = 0; i < rows.size(); ++i) {
            if (rows[i].children.empty())
                continue;
            const QModelIndex idx = m_model->indexOfRow(static_cast<int>(i));
            const bool expand = !(rows[i].kind == NestRow::Kind::Loop && m_collapsed.contains(rows[i].label));
            if (m_tree->isExpanded(idx) != expand)
                m_tree->setExpanded(idx, expand);
        }
        const NestRow* current = currentRow();
        if (current && keyOf(*current) == m_currentKey)
            return;
    }
    // The same row (the same one of several with its key, or the last there is), or what it
    // became: i -> i.outer after a split, a.b.fused after a fuse; an alloc whose line changed,
    // by its buffer.
    int found = -1;
    int seen = 0;
    for (size_t i = 0; i < rows.size() && seen <= m_currentOccurrence; ++i)
        if (keyOf(rows[i]) == m_currentKey) {
            found = static_cast<int>(i);
            ++seen;
        }
    const bool sameKey = found >= 0;
    for (size_t i = 0; i < rows.size() && found < 0; ++i)
        if (rows[i].kind == NestRow::Kind::Loop
            && (rows[i].label.startsWith(m_currentKey + QLatin1Char('.')) || rows[i].label.contains(m_currentKey + QLatin1Char('.'))))
            found = static_cast<int>(i);
    if (!sameKey && found >= 0 && m_currentOccurrence > 0) {
        // A loop split or fused in a nest that appears more than once (a stage's init and update
        // nests): what it became in the same one of them, not in the first.
        const QString became = rows[static_cast<size_t>(found)].label;
        int occurrence = 0;
        for (size_t i = static_cast<size_t>(found) + 1; i < rows.size() && occurrence < m_currentOccurrence; ++i)
            if (rows[i].kind == NestRow::Kind::Loop && rows[i].label == became) {
                found = static_cast<int>(i);
                ++occurrence;
            }
    }
    for (size_t i = 0; i < rows.size() && found < 0 && !m_currentBuffer.isEmpty(); ++i)
        if (rows[i].kind == NestRow::Kind::Alloc && rows[i].buffer == m_currentBuffer)
            found = static_cast<int>(i);
    const bool restored = found >= 0;
    if (found < 0)  // start on the outermost loop: the toolbar is live and its highlights show
        for (size_t i = 0; i < rows.size() && found < 0; ++i)
            if (rows[i].kind == NestRow::Kind::Loop)
                found = static_cast<int>(i);
    if (found >= 0) {
        const QModelIndex idx = m_model->indexOfRow(found);
        m_tree->setCurrentIndex(idx);
        if (restored)
            m_tree->scrollTo(idx);
        else
            m_tree->scrollToTop();
    }
}

bool LoopNestView::selectLoop(const QString& loop, const QString& stage)
{
    const QModelIndex idx = m_model->findLoop(loop, stage);
    if (!idx.isValid())
        return false;
    m_tree->setCurrentIndex(idx);
    m_tree->scrollTo(idx);
    m_tree->setFocus();
    return true;
}

void LoopNestView::showRejected(const QString& message)
{
    if (message.isEmpty()) {
        m_banner->hide();
        return;
    }
    m_banner->setText(message);
    m_banner->show();
}

void LoopNestView::setHighlight(const QStringList& loops, const QStringList& tensors, bool error)
{
    m_model->setHighlight(loops, tensors, error);
}

} // namespace loopscope::ui
