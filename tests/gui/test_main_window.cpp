// The main window driven as a user drives it (offscreen): open examples, apply every
// primitive through its action or context menu, undo and redo, drag a split factor in the
// schedule view, delete and move steps, save and reopen, export, switch targets, refuse a
// step that fails, remember the layout and recent files, ask before losing changes, and
// render the screenshot.
#include "charts/cost_view.h"
#include "codegen/c_codegen.h"
#include "code_view.h"
#include "diagnostics_view.h"
#include "file_dialog.h"
#include "headless.h"
#include "icon_cache_style.h"
#include "kernel_view.h"
#include "loop_nest_view.h"
#include "main_window.h"
#include "memory_view.h"
#include "schedule_document.h"
#include "schedule_view.h"
#include "status_bar.h"
#include "tile_view.h"

#include <QAction>
#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QFileDialog>
#include <QHeaderView>
#include <QImage>
#include <QLabel>
#include <QMenu>
#include <QPushButton>
#include <QScreen>
#include <QScrollArea>
#include <QScrollBar>
#include <QMessageBox>
#include <QSemaphore>
#include <QSet>
#include <QSettings>
#include <QSpinBox>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTableView>
#include <QTemporaryDir>
#include <QTreeView>
#include <QUndoStack>
#include <QUndoView>
#include <QtTest>

#include <memory>

using namespace loopscope;
using namespace loopscope::ui;

namespace {
QString source(const QString& rel) { return QStringLiteral(LOOPSCOPE_SOURCE_DIR "/") + rel; }
QString example(const QString& name) { return source("examples/schedules/" + name); }

/// A window as tests want it: default layout, nothing written to the user's settings.
std::unique_ptr<MainWindow> makeWindow()
{
    auto w = std::make_unique<MainWindow>(MainWindow::Options{false, false});
    // No modal dialog may wait for a click that never comes.
    w->setSavePrompt([](const QString&) { return int(QMessageBox::Discard); });
    w->setPathPrompt([](MainWindow::Prompt, const QString&) { return QString(); });
    w->setReplacePrompt([](const QString&, const QStringList&) { return false; });
    // A description written for other steps is kept (test_newcomer checks the question).
    w->setDescriptionPrompt([](const QString&) { return MainWindow::DescriptionAnswer::Keep; });
    w->resize(1600, 1000);
    w->show();
    QCoreApplication::processEvents();
    return w;
}

/// The action `text` in the submenu whose title starts with `submenu` ("" = the menu itself).
QAction* findAction(QMenu* menu, const QString& submenu, const QString& text)
{
    for (QAction* a : menu->actions()) {
        if (a->menu()) {
            if (QAction* found = findAction(a->menu(), submenu, text))
                if (submenu.isEmpty() || a->menu()->title().startsWith(submenu))
                    return found;
            continue;
        }
        if (a->text() == text && (submenu.isEmpty() || menu->title().startsWith(submenu)))
            return a;
    }
    return nullptr;
}

/// Right-clicks a row and picks an entry of its context menu.
bool pick(MainWindow& w, const QModelIndex& row, const QString& submenu, const QString& text)
{
    std::unique_ptr<QMenu> menu(w.loopNestView()->contextMenuFor(row));
    QAction* a = findAction(menu.get(), submenu, text);
    if (!a) {
        qWarning() << "no" << submenu << "/" << text << "in the context menu of" << row.data().toString();
        return false;
    }
    a->trigger();
    return true;
}

bool selectLoop(MainWindow& w, const QString& loop)
{
    return w.loopNestView()->selectLoop(loop);
}

QModelIndex rowStartingWith(MainWindow& w, const QString& prefix)
{
    const auto& rows = w.loopNestView()->model()->rows();
    for (size_t i = 0; i < rows.size(); ++i)
        if (rows[i].code.startsWith(prefix))
            return w.loopNestView()->model()->indexOfRow(static_cast<int>(i));
    return {};
}

void trigger(MainWindow& w, LoopNestView::ActionId id) { w.loopNestView()->action(id)->trigger(); }

sched::Primitive lastPrimitive(MainWindow& w) { return w.document()->steps().back().primitive; }
} // namespace

class TestMainWindow : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("LoopscopeTest"));
        QCoreApplication::setApplicationName(QStringLiteral("test_gui_main_window"));
        QSettings().clear();
    }

    void slowEditsShowProgressAndKeepTheWindowResponsive()
    {
        auto w = makeWindow();
        QVERIFY(w->openFile(MainWindow::defaultExample()));
        w->document()->setAsyncThresholdMs(0);  // every rebuild counts as slow
        auto* bar = w->findChild<QProgressBar*>(QStringLiteral("rebuildProgress"));
        QVERIFY(bar);
        QVERIFY(bar->isHidden());
        QSignalSpy changed(w->document(), &ScheduleDocument::changed);
        sched::Step s;
        s.primitive = sched::Primitive::Unroll;
        s.loops = {"k"};
        QVERIFY(!w->document()->applyStep(s));
        QVERIFY(!bar->isHidden());                                   // progress while the worker runs
        QCOMPARE(w->scheduleView()->model()->rowCount(), 5);         // views still show the last state
        QVERIFY(changed.wait(10000));                                // the event loop kept running
        QVERIFY(bar->isHidden());
        QCOMPARE(w->scheduleView()->model()->rowCount(), 6);
    }

    // A message longer than the room left of the figures ends in "…" with a gap before them; it
    // was cut off mid-letter against them and read as one text ("...the s23,777,280 cycles").
    void aLongStatusMessageEndsBeforeTheFigures()
    {
        auto w = makeWindow();
        QVERIFY(w->openFile(MainWindow::defaultExample()));
        w->resize(1000, 700);
        QCoreApplication::processEvents();
        auto* bar = dynamic_cast<StatusBar*>(w->statusBar());
        QVERIFY(bar);
        const QString text = QStringLiteral("Opened x.sched.yaml; ") + QStringLiteral("kernel '/a/long/absolute/path' is an absolute path; ").repeated(6);
        bar->showMessage(text);
        QCoreApplication::processEvents();
        QCOMPARE(bar->currentMessage(), text);   // what tests and the headless runner read
        QCOMPARE(bar->toolTipAt(QPoint(20, bar->height() / 2)), text);   // the whole, over the elided text
        const QString shown = bar->shownMessage();
        QVERIFY2(shown.endsWith(QChar(0x2026)), qPrintable(shown));
        QVERIFY(bar->fontMetrics().horizontalAdvance(shown) <= bar->messageWidth());
        int figures = bar->width();
        for (QWidget* c : bar->findChildren<QWidget*>(QString(), Qt::FindDirectChildrenOnly))
            if (c->isVisible() && c->x() > 6)
                figures = std::min(figures, c->x());
        QVERIFY(figures < bar->width() - 100);   // the figures are there
        // Rendered: between the end of the message's room and the figures, only background.
        const QImage image = bar->grab().toImage();
        const qreal dpr = image.devicePixelRatio();
        QSet<QRgb> colours;
        for (int x = int((6 + bar->messageWidth() + 1) * dpr); x < int(figures * dpr) - 1; ++x)
            for (int y = image.height() / 4; y < image.height() * 3 / 4; ++y)
                colours.insert(image.pixel(x, y));
        QVERIFY(!colours.isEmpty());
        QCOMPARE(colours.size(), 1);
        QCOMPARE(bar->toolTipAt(QPoint(figures + 5, bar->height() / 2)), QString());   // not over the figures
        bar->showMessage(QStringLiteral("Saved"));
        QCOMPARE(bar->shownMessage(), QStringLiteral("Saved"));
        QCOMPARE(bar->toolTipAt(QPoint(20, bar->height() / 2)), QString());   // nothing hidden, no tooltip
    }

    // Gemmini's three levels with magnified strips are taller than the Memory dock's share at
    // 1440 x 900: the picture scrolls down to its legend instead of being cut off at the edge.
    void theMemoryPictureScrollsInsteadOfBeingCutOff()
    {
        auto w = makeWindow();
        QVERIFY(w->openFile(MainWindow::examplesDir() + QStringLiteral("/schedules/gemmini_matmul_sym_hand.sched.yaml")));
        w->resizeDocks({w->dock(QStringLiteral("memoryDock"))}, {220}, Qt::Vertical);
        QCoreApplication::processEvents();
        MemoryView* m = w->memoryView();
        const QRectF legend = m->legendRect();
        QVERIFY(!legend.isEmpty());
        QVERIFY2(m->height() >= legend.bottom(), qPrintable(QStringLiteral("%1 < %2").arg(m->height()).arg(legend.bottom())));
        QVERIFY(!m->bufferRect(QStringLiteral("accumulator"), QStringLiteral("C_accumulator")).isEmpty());
        auto* scroll = w->findChild<QScrollArea*>(QStringLiteral("memoryScroll"));
        QVERIFY(scroll);
        QVERIFY(scroll->viewport()->height() < legend.bottom());   // the dock is shorter than the picture
        QVERIFY(scroll->verticalScrollBar()->isVisible());
        QVERIFY(scroll->verticalScrollBar()->maximum() > 0);
        // A small picture fills the dock and does not scroll.
        QVERIFY(w->openFile(MainWindow::defaultExample()));
        w->resizeDocks({w->dock(QStringLiteral("memoryDock"))}, {400}, Qt::Vertical);
        QCoreApplication::processEvents();
        QVERIFY(m->legendRect().bottom() <= scroll->viewport()->height());
        QCOMPARE(scroll->verticalScrollBar()->maximum(), 0);
    }

    void opensTheDefaultExampleInEveryView()
    {
        auto w = makeWindow();
        QVERIFY(QFileInfo::exists(MainWindow::defaultExample()));
        QVERIFY(w->openFile(MainWindow::defaultExample()));
        QVERIFY(w->windowTitle().contains("matmul_f32_tiled.sched.yaml"));
        QVERIFY(w->loopNestView()->model()->findLoop("j.outer").isValid());
        QCOMPARE(w->scheduleView()->model()->rowCount(), 5);
        QVERIFY(w->codeView()->text().contains("void matmul_f32("));
        QVERIFY(w->kernelView()->model()->findTensor("A").isValid());
        QCOMPARE(w->kernelView()->targetBox()->currentText(), QString("cortex-m7"));
        QVERIFY(w->costView()->historySize() >= 1);
        // The Cost panel's MACs are those executed; its tooltip says how they differ from the
        // Kernel panel's count of the whole iteration space (a padded conv has fewer).
        QVERIFY(w->costView()->figureToolTip(CostView::Figure::Macs).contains("padding"));
        QVERIFY(w->memoryView()->levelText("SRAM").contains("512 KiB"));
        // every dock is there and the centre is the loop nest
        QCOMPARE(w->docks().size(), 9);  // with Variants
        QCOMPARE(w->centralWidget(), static_cast<QWidget*>(w->loopNestView()));
        // a hidden view catches up when it is shown
        w->dock("tileDock")->raise();
        QCoreApplication::processEvents();
        QVERIFY(w->tileView()->positionCount() > 1);
    }

    void viewsBehindATabTakeTheEditWhenTheyAreShown()
    {
        // Tiles sits behind the Code tab: Qt keeps such a dock "visible" and moves it out of
        // the window, so the window must not take the edit's snapshot there (it costs a
        // frame's worth of time per edit) but when the tab is brought to the front.
        auto w = makeWindow();
        QVERIFY(w->openFile(example("matmul_f32_tiled.sched.yaml")));
        QDockWidget* tiles = w->dock("tileDock");
        tiles->raise();
        QCoreApplication::processEvents();
        const int split16 = w->tileView()->positionCount();
        QVERIFY(split16 > 1);
        w->dock("codeDock")->raise();
        QCoreApplication::processEvents();
        QVERIFY(tiles->isVisible());
        QVERIFY(tiles->visibleRegion().isEmpty());           // behind the tab

        ScheduleDocument* doc = w->document();
        sched::Step s = doc->steps()[0];                      // split i by 16
        QCOMPARE(s.primitive, sched::Primitive::Split);
        s.factor = 8;
        QVERIFY(doc->editStep(0, s));
        QCoreApplication::processEvents();
        QCOMPARE(w->tileView()->positionCount(), split16);   // not taken behind the tab
        QVERIFY(w->codeView()->text().contains("i_outer < 8"));  // the view in front took it

        tiles->raise();
        QCoreApplication::processEvents();
        QVERIFY(!tiles->visibleRegion().isEmpty());
        QCOMPARE(w->tileView()->positionCount(), split16 * 2);   // twice the outer iterations of i
    }

    void diagnosticsBehindATabSizeTheirRowsWhenShown()
    {
        // The diagnostics follow every edit (their count is in the tab's title), but their
        // table measures its wrapped messages only while it is on screen.
        auto w = makeWindow();
        QVERIFY(w->openFile(example("conv2d_int8_dsp.sched.yaml")));
        QDockWidget* diagnostics = w->dock("diagnosticsDock");
        w->dock("codeDock")->raise();
        QCoreApplication::processEvents();
        QVERIFY(diagnostics->visibleRegion().isEmpty());   // behind the Code tab
        ScheduleDocument* doc = w->document();
        sched::Step s = doc->steps()[0];
        QCOMPARE(s.primitive, sched::Primitive::Split);
        s.factor = 2;
        QVERIFY(doc->editStep(0, s));
        QCoreApplication::processEvents();
        DiagnosticsView* view = w->diagnosticsView();
        QVERIFY(!view->tableLive());
        QVERIFY(view->model()->rowCount() > 0);
        QVERIFY(diagnostics->windowTitle().contains(view->summary()));   // the title follows all the same

        diagnostics->raise();
        for (int i = 0; i < 3; ++i)
            QCoreApplication::processEvents();
        QVERIFY(view->tableLive());
        QTableView* table = view->table();
        QCOMPARE(table->verticalHeader()->sectionResizeMode(0), QHeaderView::ResizeToContents);
        for (int r = 0; r < view->model()->rowCount(); ++r) {
            const int shown = table->rowHeight(r);
            table->resizeRowToContents(r);   // what fitting it now would give
            QCOMPARE(shown, table->rowHeight(r));
        }
        QVERIFY(table->rowHeight(0) > table->verticalHeader()->sectionSizeHint(0));   // a wrapped message: taller than a line
    }

    void theAppStyleDrawsItsBaseStylesIconsAndKeepsTheTitleBarOnes()
    {
        // The title-bar icons, asked for on every dock relayout, are made once and are the
        // base style's; every other icon comes from the base style as it is.
        IconCacheStyle style;
        QStyle* base = style.baseStyle();
        QVERIFY(base);
        for (QStyle::StandardPixmap icon : {QStyle::SP_TitleBarCloseButton, QStyle::SP_TitleBarNormalButton, QStyle::SP_DockWidgetCloseButton}) {
            const QIcon first = style.standardIcon(icon);
            QVERIFY(!first.isNull());
            QCOMPARE(style.standardIcon(icon).cacheKey(), first.cacheKey());   // kept
            QVERIFY(base->standardIcon(icon).cacheKey() != base->standardIcon(icon).cacheKey());   // the base makes it anew
            QCOMPARE(first.pixmap(16).toImage(), base->standardIcon(icon).pixmap(16).toImage());
        }
        const QIcon file = style.standardIcon(QStyle::SP_FileIcon);
        QCOMPARE(file.pixmap(16).toImage(), base->standardIcon(QStyle::SP_FileIcon).pixmap(16).toImage());
        // A new palette or theme polishes the style again: the icons are made again.
        const qint64 before = style.standardIcon(QStyle::SP_TitleBarCloseButton).cacheKey();
        style.polish(qApp);
        QVERIFY(style.standardIcon(QStyle::SP_TitleBarCloseButton).cacheKey() != before);
    }

    void historyEntriesShowTheirWholeText()
    {
        // The History list takes one size for all its entries (measuring every entry on every
        // edit was most of what the hidden list cost): each entry must still show its text.
        auto w = makeWindow();
        QVERIFY(w->openFile(example("matmul_f32_naive.sched.yaml")));
        ScheduleDocument* doc = w->document();
        auto step = [](sched::Primitive p, std::vector<std::string> loops, int64_t factor = 0) {
            sched::Step s;
            s.primitive = p;
            s.loops = std::move(loops);
            s.factor = factor;
            return s;
        };
        QVERIFY(!doc->applyStep(step(sched::Primitive::Split, {"i"}, 16)));
        QVERIFY(!doc->applyStep(step(sched::Primitive::Split, {"j"}, 16)));
        QVERIFY(!doc->applyStep(step(sched::Primitive::Reorder, {"i.outer", "j.outer", "i.inner", "k", "j.inner"})));
        w->dock("historyDock")->raise();
        for (int i = 0; i < 3; ++i)
            QCoreApplication::processEvents();
        QUndoView* history = w->historyView();
        QVERIFY(history->uniformItemSizes());
        QCOMPARE(history->model()->rowCount(), 4);   // <opened> and three steps
        const QFontMetrics fm(history->font());
        for (int r = 0; r < history->model()->rowCount(); ++r) {
            const QModelIndex idx = history->model()->index(r, 0);
            const QString text = idx.data().toString();
            QVERIFY2(history->visualRect(idx).width() >= fm.horizontalAdvance(text), qPrintable(text));
        }
    }

    void anEditThatKeepsTheSelectedLoopChangesNoAction()
    {
        // Every change of an action (text, enabled) lays its toolbar button out again, and
        // with it the window: an edit that keeps the selected loop and its neighbours must
        // change none (they used to flip while the loop nest was rebuilt).
        auto w = makeWindow();
        QVERIFY(w->openFile(example("matmul_f32_tiled.sched.yaml")));
        QVERIFY(selectLoop(*w, "j.outer"));
        QCoreApplication::processEvents();
        std::vector<std::unique_ptr<QSignalSpy>> spies;
        for (int id = 0; id < LoopNestView::ActionCount; ++id)
            spies.push_back(std::make_unique<QSignalSpy>(w->loopNestView()->action(LoopNestView::ActionId(id)), &QAction::changed));
        ScheduleDocument* doc = w->document();
        sched::Step s = doc->steps()[0];   // split i by 16
        s.factor = 8;
        QVERIFY(doc->editStep(0, s));
        QCoreApplication::processEvents();
        QCOMPARE(w->loopNestView()->currentRow()->label, QString("j.outer"));
        for (int id = 0; id < LoopNestView::ActionCount; ++id)
            QVERIFY2(spies[id]->isEmpty(), qPrintable(w->loopNestView()->action(LoopNestView::ActionId(id))->text()));
        // Selecting another loop does change them, to what they now do.
        QVERIFY(selectLoop(*w, "i.outer"));
        QVERIFY(!spies[LoopNestView::Split]->isEmpty());
        QVERIFY(w->loopNestView()->action(LoopNestView::Split)->text().startsWith("Split i.outer by "));
        QVERIFY(!w->loopNestView()->action(LoopNestView::MoveOut)->isEnabled());   // the outermost loop
        QVERIFY(w->loopNestView()->action(LoopNestView::MoveIn)->isEnabled());
    }

    void theNestKeepsExpansionSelectionAndScrollAcrossEditsInPlace()
    {
        // A factor edit replaces the rows in place: what the user collapsed, selected and
        // scrolled to stays. A reorder keeps the tree's shape too: the selection and the
        // collapsed state follow the loops, not the positions.
        auto w = makeWindow();
        QVERIFY(w->openFile(example("matmul_f32_tiled.sched.yaml")));
        QTreeView* tree = w->loopNestView()->tree();
        LoopNestModel* model = w->loopNestView()->model();
        QVERIFY(selectLoop(*w, "j.inner"));
        tree->collapse(model->findLoop("i.inner"));   // around the selected loop, which stays current
        QCoreApplication::processEvents();
        tree->verticalScrollBar()->setValue(tree->verticalScrollBar()->maximum());
        const int scrolled = tree->verticalScrollBar()->value();
        QSignalSpy resets(model, &QAbstractItemModel::modelReset);
        ScheduleDocument* doc = w->document();
        sched::Step s = doc->steps()[1];   // split j by 16
        s.factor = 8;
        QVERIFY(doc->editStep(1, s));
        QCoreApplication::processEvents();
        QCOMPARE(resets.count(), 0);
        QCOMPARE(w->loopNestView()->currentRow()->label, QString("j.inner"));
        QVERIFY(!tree->isExpanded(model->findLoop("i.inner")));
        QVERIFY(tree->isExpanded(model->findLoop("j.outer")));
        QCOMPARE(tree->verticalScrollBar()->value(), scrolled);
        QCOMPARE(model->findLoop("j.inner").data().toString(), QString("for j.inner in 0..8:"));

        // j.inner moves out, above i.inner: the same shape, the loops swapped.
        trigger(*w, LoopNestView::MoveOut);
        QCoreApplication::processEvents();
        QCOMPARE(doc->steps().back().primitive, sched::Primitive::Reorder);
        QCOMPARE(resets.count(), 0);
        QCOMPARE(w->loopNestView()->currentRow()->label, QString("j.inner"));
        QCOMPARE(model->findLoop("i.inner").parent(), model->findLoop("j.inner"));
        QVERIFY(!tree->isExpanded(model->findLoop("i.inner")));
        QVERIFY(tree->isExpanded(model->findLoop("j.inner")));
    }

    void everyLoopPrimitiveThroughItsAction()
    {
        auto w = makeWindow();
        QVERIFY(w->openFile(example("matmul_f32_naive.sched.yaml")));
        ScheduleDocument* doc = w->document();
        w->loopNestView()->factorBox()->setValue(16);

        QVERIFY(selectLoop(*w, "i"));
        trigger(*w, LoopNestView::Split);
        QCOMPARE(doc->steps().size(), size_t(1));
        QCOMPARE(lastPrimitive(*w), sched::Primitive::Split);
        QVERIFY(w->loopNestView()->model()->findLoop("i.inner").isValid());
        // the selection follows the loop it became
        QCOMPARE(w->loopNestView()->currentRow()->label, QString("i.outer"));

        QVERIFY(selectLoop(*w, "j"));
        trigger(*w, LoopNestView::Split);
        QVERIFY(selectLoop(*w, "j.outer"));
        trigger(*w, LoopNestView::MoveOut);  // Alt+Up: j.outer outside i.inner
        QCOMPARE(lastPrimitive(*w), sched::Primitive::Reorder);
        QCOMPARE(w->loopNestView()->model()->findLoop("i.inner").parent(), w->loopNestView()->model()->findLoop("j.outer"));
        trigger(*w, LoopNestView::MoveIn);  // Alt+Down: and back
        QCOMPARE(w->loopNestView()->model()->findLoop("j.outer").parent(), w->loopNestView()->model()->findLoop("i.inner"));
        w->action("undo")->trigger();
        QCOMPARE(w->loopNestView()->model()->findLoop("i.inner").parent(), w->loopNestView()->model()->findLoop("j.outer"));

        QVERIFY(selectLoop(*w, "j.inner"));
        trigger(*w, LoopNestView::Unroll);
        QVERIFY(w->loopNestView()->model()->findLoop("j.inner").data(LoopNestModel::BadgesRole).toStringList().contains("unrolled"));
        QVERIFY(selectLoop(*w, "i.outer"));
        trigger(*w, LoopNestView::Parallel);
        QVERIFY(w->loopNestView()->model()->findLoop("i.outer").data(LoopNestModel::BadgesRole).toStringList().contains("parallel"));
        const size_t before = doc->steps().size();
        QVERIFY(selectLoop(*w, "i.inner"));
        trigger(*w, LoopNestView::Fuse);  // i.inner with j.inner: refused (j.inner is unrolled)
        QCOMPARE(doc->steps().size(), before);
        w->action("undo")->trigger();  // the parallel
        w->action("undo")->trigger();  // and the unroll
        QVERIFY(selectLoop(*w, "i.inner"));
        trigger(*w, LoopNestView::Fuse);
        QCOMPARE(lastPrimitive(*w), sched::Primitive::Fuse);
        QVERIFY(w->loopNestView()->model()->findLoop("i.inner.j.inner.fused").isValid());
        w->action("undo")->trigger();

        // tile: the loop and the loop inside it, by factor x factor
        w->loopNestView()->factorBox()->setValue(4);
        QVERIFY(selectLoop(*w, "i.inner"));
        trigger(*w, LoopNestView::Tile);
        QCOMPARE(lastPrimitive(*w), sched::Primitive::Tile);
        QVERIFY(w->loopNestView()->model()->findLoop("i.inner.outer").isValid());
        QVERIFY(w->loopNestView()->model()->findLoop("j.inner.inner").isValid());

        // vectorize the innermost loop: move k out of the way first
        QVERIFY(selectLoop(*w, "k"));
        trigger(*w, LoopNestView::MoveOut);
        QVERIFY(selectLoop(*w, "j.inner.inner"));
        trigger(*w, LoopNestView::Vectorize);
        QCOMPARE(lastPrimitive(*w), sched::Primitive::Vectorize);
        QVERIFY(w->loopNestView()->model()->findLoop("j.inner.inner").data(LoopNestModel::BadgesRole).toStringList().contains("vectorized"));
        QVERIFY(!doc->snapshot().failedStep);
    }

    void keyboardShortcuts()
    {
        auto w = makeWindow();
        QVERIFY(w->openFile(MainWindow::defaultExample()));
        QApplication::setActiveWindow(w.get());
        QVERIFY(QTest::qWaitForWindowActive(w.get()));
        QTreeView* tree = w->loopNestView()->tree();
        tree->setFocus();
        QVERIFY(selectLoop(*w, "k"));
        QTest::keyClick(tree, Qt::Key_U);
        QCOMPARE(lastPrimitive(*w), sched::Primitive::Unroll);
        QVERIFY(selectLoop(*w, "j.inner"));
        QTest::keyClick(tree, Qt::Key_Up, Qt::AltModifier);
        QCOMPARE(lastPrimitive(*w), sched::Primitive::Reorder);
        QCOMPARE(w->loopNestView()->model()->findLoop("i.inner").parent(), w->loopNestView()->model()->findLoop("j.inner"));
        QTest::keyClick(tree, Qt::Key_Z, Qt::ControlModifier);
        QCOMPARE(w->loopNestView()->model()->findLoop("j.inner").parent(), w->loopNestView()->model()->findLoop("i.inner"));
        w->loopNestView()->factorBox()->setValue(4);
        QVERIFY(selectLoop(*w, "i.outer"));
        QTest::keyClick(tree, Qt::Key_S);
        QCOMPARE(lastPrimitive(*w), sched::Primitive::Split);
        QCOMPARE(w->document()->steps().back().factor, int64_t(4));

        // Typed into the factor box: "2" then S splits by 2 (the box's line edit took the S),
        // and the focus goes back to the nest on Enter.
        QSpinBox* box = w->loopNestView()->factorBox();
        const size_t before = w->document()->steps().size();
        QVERIFY(selectLoop(*w, "i.inner"));
        box->setFocus();
        QVERIFY(box->hasFocus());
        box->selectAll();
        QTest::keyClicks(box, "2");
        QVERIFY(box->hasFocus());
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_S);
        QCOMPARE(w->document()->steps().size(), before + 1);
        QCOMPARE(lastPrimitive(*w), sched::Primitive::Split);
        QCOMPARE(w->document()->steps().back().factor, int64_t(2));
        box->setFocus();
        QVERIFY(box->hasFocus());
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_Return);
        QTRY_VERIFY(tree->hasFocus());
        // A factor the box cannot hold ("0"): refused with a message, not applied with the
        // factor the box held before (a newcomer's split "by 0" was a split by 8).
        QVERIFY(selectLoop(*w, "j.inner"));
        box->setFocus();
        box->selectAll();
        QTest::keyClicks(box, "0");
        QCOMPARE(box->text(), QString("0"));
        const size_t steps = w->document()->steps().size();
        trigger(*w, LoopNestView::Split);
        QCOMPARE(w->document()->steps().size(), steps);
        auto said = [&](const QString& start) {
            for (QLabel* l : w->loopNestView()->findChildren<QLabel*>())
                if (l->isVisible() && l->text().startsWith(start))
                    return true;
            return false;
        };
        QVERIFY(said("split: the factor box holds '0'"));
        // Enter on it: said as well, the text and the focus stay (the box put 16 back silently).
        w->loopNestView()->showRejected(QString());
        box->setFocus();
        QVERIFY(box->hasFocus());
        QTest::keyClick(box, Qt::Key_Return);
        QVERIFY(said("split and tile: the factor box holds '0'"));
        QCOMPARE(box->text(), QString("0"));
        QVERIFY(box->hasFocus());
        QCOMPARE(w->document()->steps().size(), steps);
    }

    void aLoopSplitInItsSecondNestStaysSelectedThere()
    {
        // j.inner runs in three nests: the accumulator's zeroing, the update and the copy out.
        // Split where it updates, the selection goes to what it became there, not in the first.
        QTemporaryDir tmp;
        const QString file = tmp.filePath("three_nests.sched.yaml");
        {
            QFile f(file);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(QString("kernel: %1\ntarget: cortex-m7\nsteps:\n"
                            "  - tile: {loops: [i, j], factors: [2, 2]}\n"
                            "  - split: {loop: k, factor: 4}\n"
                            "  - reorder: {loops: [i.outer, j.outer, k.outer, i.inner, j.inner, k.inner]}\n"
                            "  - cache_write: {tensor: C, level: SRAM, at: j.outer}\n")
                        .arg(source("examples/kernels/matmul_int8.kernel.yaml"))
                        .toUtf8());
        }
        auto w = makeWindow();
        QVERIFY(w->openFile(file));
        LoopNestModel* model = w->loopNestView()->model();
        auto nth = [&](const QString& label, int n) {
            const auto& rows = model->rows();
            for (size_t i = 0; i < rows.size(); ++i)
                if (rows[i].kind == NestRow::Kind::Loop && rows[i].label == label && n-- == 0)
                    return static_cast<int>(i);
            return -1;
        };
        QVERIFY(nth("j.inner", 2) >= 0);
        const int update = nth("j.inner", 1);
        QCOMPARE(model->rows()[static_cast<size_t>(model->rows()[static_cast<size_t>(update)].parent)].label, QString("i.inner"));
        w->loopNestView()->tree()->setCurrentIndex(model->indexOfRow(update));
        // An edit elsewhere that changes the tree's shape: the same row stays selected (not the
        // next nest's j.inner).
        sched::Step cache;
        cache.primitive = sched::Primitive::CacheRead;
        cache.tensor = "B";
        cache.level = "SRAM";
        cache.at = "j.outer";
        QVERIFY(!w->document()->applyStep(cache));
        QVERIFY(w->loopNestView()->currentRow());
        QCOMPARE(w->loopNestView()->currentRow(), &model->rows()[static_cast<size_t>(nth("j.inner", 1))]);
        w->loopNestView()->factorBox()->setValue(2);
        const size_t steps = w->document()->steps().size();
        trigger(*w, LoopNestView::Split);
        QCOMPARE(w->document()->steps().size(), steps + 1);
        const NestRow* current = w->loopNestView()->currentRow();
        QVERIFY(current);
        QCOMPARE(current->label, QString("j.inner.outer"));
        QCOMPARE(&model->rows()[static_cast<size_t>(nth("j.inner.outer", 1))], current);
        // The update nest's is under k.outer (the zeroing's is not).
        int up = current->parent;
        while (up >= 0 && model->rows()[static_cast<size_t>(up)].label != "k.outer")
            up = model->rows()[static_cast<size_t>(up)].parent;
        QVERIFY(up >= 0);
    }

    void memoryPrimitivesThroughTheContextMenu()
    {
        auto w = makeWindow();
        QVERIFY(w->openFile(example("matmul_f32_naive.sched.yaml")));
        ScheduleDocument* doc = w->document();
        w->loopNestView()->factorBox()->setValue(16);
        QVERIFY(selectLoop(*w, "i"));
        trigger(*w, LoopNestView::Tile);  // i, j by 16 x 16
        LoopNestModel* model = w->loopNestView()->model();

        QVERIFY(pick(*w, model->findLoop("j.outer"), "cache_read at j.outer", "A into SRAM"));
        QCOMPARE(lastPrimitive(*w), sched::Primitive::CacheRead);
        QVERIFY(rowStartingWith(*w, "alloc A_SRAM").isValid());
        QVERIFY(pick(*w, model->findLoop("j.outer"), "cache_read at j.outer", "B into SRAM"));
        QVERIFY(pick(*w, model->findLoop("i.outer"), "cache_write at i.outer", "C into SRAM"));
        QCOMPARE(lastPrimitive(*w), sched::Primitive::CacheWrite);
        QVERIFY(rowStartingWith(*w, "alloc C_SRAM").isValid());

        // compute_at of a cache stage: move B's cache out to i.outer
        QVERIFY(pick(*w, model->findLoop("i.outer"), "compute_at i.outer", "move the SRAM cache of B here"));
        QCOMPARE(lastPrimitive(*w), sched::Primitive::ComputeAt);
        const QModelIndex bCache = rowStartingWith(*w, "alloc B_SRAM");
        QCOMPARE(bCache.parent(), model->findLoop("i.outer"));

        // double_buffer from the cache's own row
        w->loopNestView()->tree()->setCurrentIndex(rowStartingWith(*w, "alloc A_SRAM"));
        trigger(*w, LoopNestView::DoubleBuffer);
        QCOMPARE(lastPrimitive(*w), sched::Primitive::DoubleBuffer);
        QVERIFY(model->rows()[rowStartingWith(*w, "alloc A_SRAM").data(LoopNestModel::RowIdRole).toInt()].badges.contains("double-buffered"));
        // The alloc stays selected, though the edit changed its line (it went to i.outer).
        QVERIFY(w->loopNestView()->currentRow());
        QCOMPARE(w->loopNestView()->currentRow()->buffer, QString("A_SRAM"));
        QVERIFY(!doc->snapshot().failedStep);
        QCOMPARE(doc->steps().size(), size_t(6));
        QCOMPARE(w->historyView()->model()->rowCount(), 7);  // <opened> + 6 edits

        // undo everything, redo everything
        while (doc->undoStack()->canUndo())
            w->action("undo")->trigger();
        QVERIFY(doc->steps().empty());
        QVERIFY(!doc->isDirty());
        while (doc->undoStack()->canRedo())
            w->action("redo")->trigger();
        QCOMPARE(doc->steps().size(), size_t(6));
        QVERIFY(rowStartingWith(*w, "alloc C_SRAM").isValid());
    }

    void producerPlacementAndInlining()
    {
        auto w = makeWindow();
        QVERIFY(w->openFile(source("examples/kernels/dwsep_conv.kernel.yaml")));
        ScheduleDocument* doc = w->document();
        LoopNestModel* model = w->loopNestView()->model();
        // O's loop h: compute the depthwise stage D there, its output in SRAM
        const QModelIndex oh = model->findLoop("h", "O");
        QVERIFY(oh.isValid());
        QVERIFY(pick(*w, oh, "compute_at O:h", "stage D here, D in SRAM"));
        QCOMPARE(lastPrimitive(*w), sched::Primitive::ComputeAt);
        QCOMPARE(doc->steps().back().producer, std::string("D"));
        QVERIFY(rowStartingWith(*w, "alloc D_SRAM").isValid());

        // compute_inline of an elementwise producer
        QVERIFY(w->openFile(source("tests/data/kernels/scaled_matmul.kernel.yaml")));
        const QModelIndex anyLoop = model->findLoop("i", "C");
        QVERIFY(anyLoop.isValid());
        QVERIFY(pick(*w, anyLoop, "compute_inline", "stage T into its readers"));
        QCOMPARE(lastPrimitive(*w), sched::Primitive::ComputeInline);
        QVERIFY(!model->findLoop("i", "T").isValid());
    }

    void aFailingStepChangesNothingAndSaysWhy()
    {
        auto w = makeWindow();
        QVERIFY(w->openFile(MainWindow::defaultExample()));
        ScheduleDocument* doc = w->document();
        const int revision = doc->snapshot().revision;
        const QString code = w->codeView()->text();
        const int rows = static_cast<int>(w->loopNestView()->model()->rows().size());
        QVERIFY(selectLoop(*w, "i.outer"));
        trigger(*w, LoopNestView::Vectorize);  // not the innermost loop
        QCOMPARE(doc->snapshot().revision, revision);
        QCOMPARE(doc->steps().size(), size_t(5));
        QCOMPARE(doc->undoStack()->count(), 0);
        QVERIFY(!doc->isDirty());
        QCOMPARE(w->codeView()->text(), code);
        QCOMPARE(static_cast<int>(w->loopNestView()->model()->rows().size()), rows);
        // the message is shown where the user acted, and listed with the diagnostics
        const auto banners = w->loopNestView()->findChildren<QLabel*>();
        bool shown = false;
        for (QLabel* l : banners)
            shown |= l->isVisible() && l->text().startsWith("vectorize i.outer was not applied:");
        QVERIFY(shown);
        QCOMPARE(w->diagnosticsView()->model()->rows().front().code, QString("refused-step"));
        QVERIFY(w->dock("diagnosticsDock")->windowTitle().contains("error"));
        // and the next good edit clears it
        QVERIFY(selectLoop(*w, "k"));
        trigger(*w, LoopNestView::Unroll);
        QCOMPARE(doc->steps().size(), size_t(6));
        QVERIFY(w->diagnosticsView()->model()->rows().empty()
                || w->diagnosticsView()->model()->rows().front().code != QString("refused-step"));
    }

    void splitFactorDragInTheScheduleView()
    {
        auto w = makeWindow();
        QVERIFY(w->openFile(MainWindow::defaultExample()));
        ScheduleDocument* doc = w->document();
        QTableView* table = w->scheduleView()->table();
        const QModelIndex params = w->scheduleView()->model()->index(0, ScheduleModel::ParametersColumn);
        table->setCurrentIndex(params);
        table->edit(params);
        auto* spin = table->findChild<QSpinBox*>("factorSpinBox");
        QVERIFY(spin);
        QCOMPARE(spin->value(), 16);
        const QString code16 = w->codeView()->text();
        for (int f : {12, 8, 4}) {
            spin->setValue(f);
            // every view follows while the spin box turns
            QCOMPARE(doc->steps()[0].factor, int64_t(f));
            QCOMPARE(w->loopNestView()->model()->findLoop("i.inner").data().toString(), QString("for i.inner in 0..%1:").arg(f));
            QVERIFY(table->findChild<QSpinBox*>("factorSpinBox"));  // the editor stays open
        }
        QVERIFY(w->codeView()->text() != code16);
        QTest::keyClick(spin, Qt::Key_Return);  // commits and closes (queued), like a user's Enter
        QCoreApplication::processEvents();
        QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
        QVERIFY(!table->findChild<QSpinBox*>("factorSpinBox"));
        QCOMPARE(doc->undoStack()->count(), 1);  // one drag, one undo entry
        QCOMPARE(doc->undoStack()->undoText(), QString("edit step 1: split i by 4"));
        w->action("undo")->trigger();
        QCOMPARE(doc->steps()[0].factor, int64_t(16));
        QCOMPARE(w->codeView()->text(), code16);

        // a second drag is a second entry; a factor that does not divide leaves a guard
        table->edit(params);
        spin = table->findChild<QSpinBox*>("factorSpinBox");
        QVERIFY(spin);
        QCOMPARE(spin->value(), 16);
        spin->setValue(10);
        QTest::keyClick(spin, Qt::Key_Return);  // commits and closes (queued), like a user's Enter
        QCoreApplication::processEvents();
        QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
        QCOMPARE(doc->steps()[0].factor, int64_t(10));
        QCOMPARE(doc->undoStack()->index(), 1);
        QCOMPARE(doc->undoStack()->undoText(), QString("edit step 1: split i by 10"));
        QVERIFY(rowStartingWith(*w, "if ").isValid());

        // "0" and Enter: the step keeps its factor and the panel says why (it went back to 10
        // without a word).
        table->edit(params);
        spin = table->findChild<QSpinBox*>("factorSpinBox");
        QVERIFY(spin);
        spin->selectAll();
        QTest::keyClicks(spin, "0");
        QTest::keyClick(spin, Qt::Key_Return);
        QCoreApplication::processEvents();
        QCOMPARE(doc->steps()[0].factor, int64_t(10));
        QVERIFY2(w->scheduleView()->headerText().contains("Step 1 not changed: '0' is not a valid factor"), qPrintable(w->scheduleView()->headerText()));
    }

    void deleteAndMoveStepsInTheScheduleView()
    {
        auto w = makeWindow();
        QVERIFY(w->openFile(MainWindow::defaultExample()));
        ScheduleDocument* doc = w->document();
        ScheduleView* view = w->scheduleView();
        view->selectStep(3);
        view->moveDownAction()->trigger();
        QCOMPARE(doc->steps()[4].tensor, std::string("A"));
        QCOMPARE(view->currentStep(), 4);
        view->selectStep(0);
        view->deleteAction()->trigger();
        QCOMPARE(doc->steps().size(), size_t(4));
        // the reorder now names i.outer, which no longer exists: marked, with its message
        QCOMPARE(view->model()->status(1), ScheduleModel::Status::Failing);
        QVERIFY(w->dock("scheduleDock")->windowTitle().contains("fails"));
        QVERIFY(view->model()->index(1, ScheduleModel::StatusColumn).data(Qt::ToolTipRole).toString().contains("i.outer"));
        QVERIFY(w->loopNestView()->model()->rows().size() > 0);
        w->action("undo")->trigger();
        QCOMPARE(view->model()->status(1), ScheduleModel::Status::Applied);
        view->selectStep(1);
        view->moveUpAction()->trigger();
        QCOMPARE(doc->steps()[0].loops[0], std::string("j"));
    }

    void diagnosticsJumpToTheStep()
    {
        auto w = makeWindow();
        QVERIFY(w->openFile(MainWindow::defaultExample()));
        DiagnosticsView* d = w->diagnosticsView();
        int row = -1;
        for (size_t i = 0; i < d->model()->rows().size(); ++i)
            if (d->model()->rows()[i].step >= 0)
                row = static_cast<int>(i);
        QVERIFY2(row >= 0, "the tiled matmul has a diagnostic naming a step");
        const auto target = d->model()->rows()[row];
        d->activateRow(row);
        QCOMPARE(w->scheduleView()->currentStep(), target.step);
        if (!target.loops.isEmpty())
            QCOMPARE(w->loopNestView()->currentRow()->label, target.loops.front());
    }

    void diagnosticSuggestionsApplyInOneClick()
    {
        auto w = makeWindow();
        QVERIFY(w->openFile(MainWindow::defaultExample()));
        DiagnosticsView* d = w->diagnosticsView();
        QVERIFY(d->applyButton()->isEnabled());
        const int64_t before = w->document()->snapshot().report->levels[0].readBytes;
        QTest::mouseClick(d->applyButton(), Qt::LeftButton);
        QCOMPARE(lastPrimitive(*w), sched::Primitive::ComputeAt);
        QCOMPARE(w->document()->steps().back().at, std::string("i.outer"));
        QVERIFY(w->document()->snapshot().report->levels[0].readBytes < before);
        for (const auto& r : d->model()->rows())
            QVERIFY(r.code != "redundant-reload");
    }

    void dragAndDropReorders()
    {
        // (A synthetic QDropEvent reaches no widget without a drag in progress, so the drop
        // handlers the views' dropEvent calls are driven directly.)
        auto w = makeWindow();
        QVERIFY(w->openFile(MainWindow::defaultExample()));
        LoopNestModel* model = w->loopNestView()->model();
        // drop j.inner onto i.inner: j.inner takes its place
        w->loopNestView()->dropLoopOnto(model->findLoop("j.inner"), model->findLoop("i.inner"));
        QCOMPARE(lastPrimitive(*w), sched::Primitive::Reorder);
        QCOMPARE(w->document()->steps().back().loops,
                 (std::vector<std::string>{"i.outer", "j.outer", "j.inner", "i.inner", "k"}));
        QCOMPARE(model->findLoop("i.inner").parent(), model->findLoop("j.inner"));
        // onto a row that is not a loop: refused, nothing changes
        const size_t n = w->document()->steps().size();
        w->loopNestView()->dropLoopOnto(model->findLoop("k"), rowStartingWith(*w, "alloc A_SRAM"));
        QCOMPARE(w->document()->steps().size(), n);

        // drop a step row onto another row of the schedule: the step moves there
        w->scheduleView()->dropStepOnto(4, 3);
        QCOMPARE(w->document()->steps()[3].tensor, std::string("B"));
        QCOMPARE(w->scheduleView()->currentStep(), 3);
    }

    void longCIsGeneratedAfterTheFrameAndNeverShownStaleAsCurrent()
    {
        // Long C is generated on a worker after the edit (here every C, to test it on a small
        // example). Until it is ready the Code panel says the text is the previous one; then it
        // shows exactly what Export writes for the current schedule, also after two edits in a
        // row (the first one's C is never shown as the second one's).
        QTemporaryDir tmp;
        auto w = makeWindow();
        QVERIFY(w->openFile(example("matmul_f32_tiled.sched.yaml")));
        ScheduleDocument* doc = w->document();
        doc->setBackgroundCodeLines(0);
        // Each C is written once the test lets it (a generation that takes a while).
        auto go = std::make_shared<QSemaphore>();
        doc->setCodeGenerator([go](const lower::LoopNest& nest) {
            go->acquire();
            return codegen::generateSource(nest);
        });
        const QString before = w->codeView()->text();
        QVERIFY(w->codeView()->isCurrent());

        sched::Step s = doc->steps()[0];
        s.factor = 8;
        QVERIFY(doc->editStep(0, s));
        // codeReady is queued: before the event loop runs, the panel cannot be current.
        QVERIFY(!w->codeView()->isCurrent());
        QVERIFY(w->codeView()->area()->isStale());
        QCOMPARE(w->codeView()->text(), before);
        QVERIFY(w->codeView()->exportButton()->isEnabled());   // Export writes the current C
        for (int i = 0; i < 5; ++i)   // the window goes on without it
            QCoreApplication::processEvents();
        QVERIFY(!w->codeView()->isCurrent());
        go->release();
        QTRY_VERIFY(w->codeView()->isCurrent());
        QVERIFY(!w->codeView()->area()->isStale());
        QVERIFY(w->codeView()->text().contains("i_outer < 8"));
        QVERIFY2(w->exportTo(tmp.filePath("one"), nullptr), "export");
        QFile one(tmp.filePath("one/matmul_f32.c"));
        QVERIFY(one.open(QIODevice::ReadOnly));
        QCOMPARE(QString::fromUtf8(one.readAll()), w->codeView()->text() + "\n");

        s.factor = 4;
        QVERIFY(doc->editStep(0, s));
        s.factor = 2;
        QVERIFY(doc->editStep(0, s));
        QVERIFY(!w->codeView()->isCurrent());
        go->release(2);   // both edits' C; only the second one's is shown
        QTRY_VERIFY(w->codeView()->isCurrent());
        QVERIFY2(w->exportTo(tmp.filePath("two"), nullptr), "export");
        QFile two(tmp.filePath("two/matmul_f32.c"));
        QVERIFY(two.open(QIODevice::ReadOnly));
        QCOMPARE(QString::fromUtf8(two.readAll()), w->codeView()->text() + "\n");
        QVERIFY(w->codeView()->text().contains("i_outer < 32"));
        QCOMPARE(QString::fromStdString(doc->snapshot().code()), w->codeView()->text() + "\n");
    }

    void saveReopenAndExport()
    {
        QTemporaryDir tmp;
        auto w = makeWindow();
        QVERIFY(w->openFile(example("matmul_f32_naive.sched.yaml")));
        QVERIFY(selectLoop(*w, "i"));
        w->loopNestView()->factorBox()->setValue(8);
        trigger(*w, LoopNestView::Split);
        QVERIFY(w->isWindowModified());
        const QString path = tmp.filePath("mine.sched.yaml");
        w->setPathPrompt([&](MainWindow::Prompt p, const QString&) {
            return p == MainWindow::Prompt::ExportDirectory ? tmp.filePath("export") : path;
        });
        w->action("saveAs")->trigger();
        QVERIFY(QFileInfo::exists(path));
        QVERIFY(!w->isWindowModified());
        QVERIFY(w->windowTitle().contains("mine.sched.yaml"));

        w->action("export")->trigger();
        QFile c(tmp.filePath("export/matmul_f32.c"));
        QVERIFY(c.open(QIODevice::ReadOnly));
        QCOMPARE(QString::fromUtf8(c.readAll()), w->codeView()->text() + "\n");
        QVERIFY(QFileInfo::exists(tmp.filePath("export/matmul_f32.h")));

        auto again = makeWindow();
        again->setPathPrompt([&](MainWindow::Prompt, const QString&) { return path; });
        again->action("open")->trigger();
        QCOMPARE(again->document()->steps().size(), size_t(1));
        QCOMPARE(again->document()->steps()[0].factor, int64_t(8));
        QCOMPARE(again->codeView()->text(), w->codeView()->text());
    }

    // Save as keeps the selected loop's highlights: the tensors its body touches in the Kernel &
    // target panel, the steps that name it in the Schedule panel (they were cleared while the
    // loop stayed selected in the nest).
    void saveAsKeepsTheSelectionsHighlights()
    {
        QTemporaryDir tmp;
        auto w = makeWindow();
        QVERIFY(w->openFile(example("matmul_f32_naive.sched.yaml")));
        QVERIFY(selectLoop(*w, "i"));
        trigger(*w, LoopNestView::Split);
        QVERIFY(selectLoop(*w, "i.outer"));
        const KernelModel* kernel = w->kernelView()->model();
        const ScheduleModel* schedule = w->scheduleView()->model();
        auto highlighted = [&] {
            return kernel->findTensor("A").data(KernelModel::HighlightRole).toBool() && kernel->findTensor("C").data(KernelModel::HighlightRole).toBool()
                && schedule->index(0, 0).data(ScheduleModel::HighlightRole).toBool();
        };
        QVERIFY(highlighted());
        const int costs = w->costView()->historySize();
        QVERIFY(costs >= 2);   // the opened schedule and the split
        const QString path = tmp.filePath("mine.sched.yaml");
        w->setPathPrompt([&](MainWindow::Prompt, const QString&) { return path; });
        w->action("saveAs")->trigger();
        QVERIFY(QFileInfo::exists(path));
        QVERIFY(w->windowTitle().contains("mine.sched.yaml"));
        QVERIFY(w->loopNestView()->currentRow());
        QCOMPARE(w->loopNestView()->currentRow()->label, QString("i.outer"));
        QVERIFY(highlighted());
        // The history of costs continues across a save (it was cleared), and starts again with
        // another document.
        QVERIFY(w->costView()->historySize() >= costs);   // (the saved document's snapshot may add one)
        QVERIFY(w->openFile(example("matmul_f32_tiled.sched.yaml")));
        QVERIFY(w->costView()->historySize() < costs);
    }

    // Export never silently replaces a file it did not write: it asks, and "no" writes nothing.
    void exportAsksBeforeReplacingSomebodysFile()
    {
        QTemporaryDir tmp;
        auto w = makeWindow();
        QVERIFY(w->openFile(example("matmul_f32_tiled.sched.yaml")));
        const QString dir = tmp.filePath("project");
        QVERIFY(QDir().mkpath(dir));
        QFile mine(dir + "/matmul_f32.c");
        QVERIFY(mine.open(QIODevice::WriteOnly));
        mine.write("/* my own matmul, not Loopscope's */\n");
        mine.close();

        QStringList asked;
        w->setReplacePrompt([&](const QString&, const QStringList& files) {
            asked = files;
            return false;
        });
        QString error;
        QVERIFY(!w->exportTo(dir, &error));
        QCOMPARE(asked, QStringList{"matmul_f32.c"});
        QVERIFY(error.contains("matmul_f32.c"));
        QVERIFY(!QFileInfo::exists(dir + "/matmul_f32.h"));  // nothing written at all
        QVERIFY(mine.open(QIODevice::ReadOnly));
        QCOMPARE(mine.readAll(), QByteArray("/* my own matmul, not Loopscope's */\n"));
        mine.close();

        // "Yes" replaces it; exporting again afterwards needs no question (the files are ours).
        w->setReplacePrompt([&](const QString&, const QStringList&) { return true; });
        QVERIFY2(w->exportTo(dir, &error), qPrintable(error));
        QVERIFY(mine.open(QIODevice::ReadOnly));
        QCOMPARE(QString::fromUtf8(mine.readAll()), w->codeView()->text() + "\n");
        mine.close();
        bool askedAgain = false;
        w->setReplacePrompt([&](const QString&, const QStringList&) {
            askedAgain = true;
            return false;
        });
        QVERIFY2(w->exportTo(dir, &error), qPrintable(error));
        QVERIFY(!askedAgain);
        // The files by name, the folder once.
        QCOMPARE(w->statusBar()->currentMessage(), QString("Exported matmul_f32.h, matmul_f32.c to %1").arg(dir));

        // File > Export C with Test Harness: the same files plus main.c and the build files.
        w->setPathPrompt([&](MainWindow::Prompt, const QString&) { return tmp.filePath("with-harness"); });
        w->action("exportHarness")->trigger();
        for (const char* f : {"matmul_f32.c", "matmul_f32.h", "main.c", "Makefile", "README.md", "cortex-m/startup.c", ".loopscope-export"})
            QVERIFY2(QFileInfo::exists(tmp.filePath("with-harness/") + f), f);
        QVERIFY(w->statusBar()->currentMessage().startsWith("Exported 10 files to"));
    }

    // Schedule > Measure: the exported kernel's instruction count on qemu, beside the estimate,
    // for as long as the schedule it measured is the one shown.
    void measureShowsTheCountBesideTheEstimate()
    {
        auto w = makeWindow();
        QVERIFY(w->openFile(example("matmul_int8_dsp.sched.yaml")));
        QVERIFY(w->costView()->measurementText().isEmpty());
        w->action("measure")->trigger();
        QTRY_VERIFY_WITH_TIMEOUT(!w->costView()->measurementText().isEmpty(), 180000);
        const QString t = w->costView()->measurementText();
        QVERIFY2(t.startsWith("Measured on qemu mps2-an500 (Cortex-M7): "), qPrintable(t));
        QVERIFY2(t.contains(" (the model estimates "), qPrintable(t));
        // Beside it, the instruction model's prediction of the same two parts.
        const analysis::InstructionReport& predicted = w->document()->snapshot().report->instructions;
        QVERIFY2(t.contains(QStringLiteral("; predicted %L1 and %L2 (kernel ").arg(qlonglong(predicted.kernel)).arg(qlonglong(predicted.copies))),
                 qPrintable(t));
        // 64x64x64 MACs at about 1.9 instructions each: a count far off means a broken measurement.
        const QString count = t.section(QStringLiteral(": "), 1).section(QLatin1Char(' '), 0, 0).remove(QLatin1Char(',')).remove(QChar(0x202f));
        bool ok = false;
        const qlonglong insns = count.toLongLong(&ok);
        QVERIFY2(ok && insns > 262144 && insns < 262144 * 3, qPrintable(t));

        // An edit: the measurement no longer describes what is shown.
        QVERIFY(selectLoop(*w, "k.outer"));
        trigger(*w, LoopNestView::Unroll);
        QVERIFY(w->costView()->measurementText().isEmpty());
        w->document()->undoStack()->undo();

        // Not a Cortex-M target: refused, nothing run.
        QVERIFY(w->openFile(source("examples/kernels/matmul_f32.kernel.yaml")));
        QComboBox* box = w->kernelView()->targetBox();
        const int gemmini = box->findData("gemmini-16x16");
        QVERIFY(gemmini >= 0);
        box->setCurrentIndex(gemmini);
        emit box->activated(gemmini);
        QCOMPARE(w->document()->snapshot().program->target->name, std::string("gemmini-16x16"));
        w->action("measure")->trigger();
        QVERIFY2(w->statusBar()->currentMessage().contains("Cortex-M7 or Cortex-M4 only"), qPrintable(w->statusBar()->currentMessage()));
    }

    void targetsSwitchAndUndo()
    {
        auto w = makeWindow();
        QVERIFY(w->openFile(MainWindow::defaultExample()));
        QComboBox* box = w->kernelView()->targetBox();
        const int m4 = box->findData("cortex-m4");
        QVERIFY(m4 >= 0);
        box->setCurrentIndex(m4);
        emit box->activated(m4);
        QCOMPARE(w->document()->snapshot().program->target->name, std::string("cortex-m4"));
        w->action("undo")->trigger();
        QCOMPARE(w->document()->snapshot().program->target->name, std::string("cortex-m7"));
        QCOMPARE(box->currentText(), QString("cortex-m7"));
        // a target file
        w->setPathPrompt([](MainWindow::Prompt, const QString&) { return source("hwdesc/targets/cortex-m4.yaml"); });
        w->action("openTarget")->trigger();
        QVERIFY(w->document()->target().endsWith("cortex-m4.yaml"));
        QVERIFY(box->currentText().contains("cortex-m4.yaml"));
    }

    void unsavedChangesAreNeverLostSilently()
    {
        auto w = makeWindow();
        QVERIFY(w->openFile(MainWindow::defaultExample()));
        QVERIFY(selectLoop(*w, "k"));
        trigger(*w, LoopNestView::Unroll);
        int asked = 0;
        w->setSavePrompt([&](const QString&) {
            ++asked;
            return int(QMessageBox::Cancel);
        });
        QVERIFY(!w->close());
        QVERIFY(w->isVisible());
        QVERIFY(!w->openFile(example("matmul_f32_naive.sched.yaml")));
        QCOMPARE(w->document()->steps().size(), size_t(6));
        QCOMPARE(asked, 2);
        // choosing another kernel and cancelling leaves the box on the open one
        QComboBox* kernels = w->kernelView()->kernelBox();
        const int dwsep = kernels->findText("dwsep_conv");
        QVERIFY(dwsep >= 0);
        kernels->setCurrentIndex(dwsep);
        emit kernels->activated(dwsep);
        QCOMPARE(asked, 3);
        QCOMPARE(kernels->currentText(), QString("matmul_f32"));
        QCOMPARE(w->document()->snapshot().program->kernel->name, std::string("matmul_f32"));
        w->setSavePrompt([&](const QString&) { return int(QMessageBox::Discard); });
        QVERIFY(w->close());
    }

    void layoutAndRecentFilesAreRemembered()
    {
        {
            MainWindow w;  // remembers
            w.resize(1600, 1000);
            w.show();
            QVERIFY(w.openFile(MainWindow::defaultExample()));
            QVERIFY(w.recentFiles().contains(QFileInfo(MainWindow::defaultExample()).absoluteFilePath()));
            w.dock("historyDock")->hide();
            QVERIFY(w.close());
        }
        MainWindow again;
        again.show();
        QVERIFY(again.dock("historyDock")->isHidden());
        QVERIFY(!again.recentMenu()->actions().isEmpty());
        QCOMPARE(again.recentMenu()->actions().front()->text(), QString("matmul_f32_tiled.sched.yaml"));
        again.action("resetLayout")->trigger();
        QVERIFY(!again.dock("historyDock")->isHidden());
        QSettings().clear();
    }

    void whatTheTutorialSaysHolds()
    {
        auto w = makeWindow();
        // every schedule of the tutorial opens and applies whole
        for (const QString& f : QDir(source("docs/tutorial")).entryList({"matmul_?_*.sched.yaml"}, QDir::Files, QDir::Name)) {
            QVERIFY2(w->openFile(source("docs/tutorial/") + f), qPrintable(f));
            QVERIFY2(!w->document()->snapshot().failedStep, qPrintable(f));
        }
        // the last step's transfers are almost all hidden: what is left is the compute of the
        // exported code (the tutorial: 2.6x the compute bound, two FPU operations a MAC)
        const auto& r = *w->document()->snapshot().report;
        QVERIFY(r.cycles.overlapRatio > 0.9);
        QVERIFY(r.cycles.total < r.cycles.compute * 11 / 10);
        QVERIFY(r.cycles.total < r.bounds.computeCycles * 3);

        // exercise of step 3: B's cache moved to the root reaches the compulsory traffic
        QVERIFY(w->openFile(source("docs/tutorial/matmul_3_hoisted.sched.yaml")));
        QVERIFY(pick(*w, rowStartingWith(*w, "tensor B"), "compute_at root", "move the SRAM cache of B here"));
        const auto& hoisted = *w->document()->snapshot().report;
        QCOMPARE(hoisted.levels[0].readBytes + hoisted.levels[0].writeBytes, hoisted.bounds.compulsoryBytes);

        // the broken schedule: step 2 fails; splitting j from the nest repairs it
        QVERIFY(w->openFile(source("docs/tutorial/matmul_broken.sched.yaml")));
        QVERIFY(w->document()->snapshot().failedStep);
        QCOMPARE(w->document()->snapshot().failedStep->stepIndex, 1);
        w->loopNestView()->factorBox()->setValue(16);
        QVERIFY(selectLoop(*w, "j"));
        trigger(*w, LoopNestView::Split);
        QVERIFY(!w->document()->snapshot().failedStep);
        QCOMPARE(w->document()->steps()[1].loops[0], std::string("j"));
    }

    void screenshotIsTheRightSizeAndNotBlank()
    {
        QTemporaryDir tmp;
        auto w = std::make_unique<MainWindow>(MainWindow::Options{false, false});
        QVERIFY(w->openFile(MainWindow::defaultExample()));
        const QString out = tmp.filePath("shot.png");
        QString error;
        ScreenshotOptions options;
        options.selectLoop = "j.outer";
        QVERIFY2(renderScreenshot(*w, out, options, &error), qPrintable(error));
        QImage img(out);
        QCOMPARE(img.size(), ScreenshotOptions().size);
        // not blank: many colours, and the loop nest's text in the middle is drawn
        QSet<QRgb> colours;
        for (int y = 0; y < img.height(); y += 7)
            for (int x = 0; x < img.width(); x += 7)
                colours.insert(img.pixel(x, y));
        QVERIFY2(colours.size() > 50, qPrintable(QString::number(colours.size())));
        options.selectLoop = "no-such-loop";
        QVERIFY(!renderScreenshot(*w, out, options, &error));
        QVERIFY(error.contains("no-such-loop"));
    }

    // A window 1024 x 640 (a small laptop's screen) lays out: the Cost table scrolls sideways
    // in its narrow dock. Its minimum width made the window 1083 wide, cut off at the screen.
    void aWindow1024WideFitsAndTheCostTableScrolls()
    {
        QTemporaryDir tmp;
        auto w = std::make_unique<MainWindow>(MainWindow::Options{false, false});
        QVERIFY(w->openFile(source("docs/tutorial/matmul_6_written_back.sched.yaml")));
        ScreenshotOptions options;
        options.size = QSize(1024, 640);
        QString error;
        QVERIFY2(renderScreenshot(*w, tmp.filePath("small.png"), options, &error), qPrintable(error));
        QCOMPARE(QImage(tmp.filePath("small.png")).size(), QSize(1024, 640));
        auto* scroll = w->findChild<QScrollArea*>("costScroll");
        QVERIFY(scroll);
        QVERIFY(scroll->isVisible());
        QVERIFY(scroll->horizontalScrollBar()->maximum() > 0);   // the table is wider than the dock: it scrolls
    }

    void fileDialogsShowTheExamplesNamesWhole()
    {
        // Qt's own dialog (no platform dialog offscreen, nor under X without a desktop's theme)
        // opened at about 600 pixels and cut "conv2d_s2_int8_tflite_small.sched.yaml" to
        // "conv2d_s2_int8_t...small.sched.yaml", the sizes to "690...tes" (session 16's walk).
        QFileDialog d(nullptr, QStringLiteral("Open schedule"), source("examples/schedules"), QStringLiteral("Schedules (*.sched.yaml)"));
        auto* view = d.findChild<QTreeView*>(QStringLiteral("treeView"));
        QVERIFY(view);
        // The columns as Qt's dialog sets them up when the settings hold no state of its own
        // (under X at 900 pixels: Name 245 pixels wide, the names cut), whatever the settings of
        // earlier runs of this test left.
        view->header()->setSectionResizeMode(QHeaderView::Interactive);
        view->header()->resizeSection(0, 150);
        prepareFileDialog(d, FileDialogKind::OpenFile);
        QCOMPARE(d.fileMode(), QFileDialog::ExistingFile);
        // 900 pixels wide, or 90% of a smaller screen (offscreen: 800 x 600, so 720); the
        // columns are checked at 900, as on any screen of 1000 pixels or more.
        const QSize screen = QGuiApplication::primaryScreen()->availableSize();
        QCOMPARE(d.width(), std::min(900, qRound(screen.width() * 0.9)));
        d.resize(900, d.height());
        d.show();
        QAbstractItemModel* model = view->model();
        QTRY_VERIFY(model->rowCount(view->rootIndex()) > 20);
        QCoreApplication::processEvents();
        const QFontMetrics fm(view->font());
        int name = 0;
        for (int row = 0; row < model->rowCount(view->rootIndex()); ++row)
            name = std::max(name, fm.horizontalAdvance(model->index(row, 0, view->rootIndex()).data().toString()));
        QVERIFY2(view->columnWidth(0) >= name + view->iconSize().width(), qPrintable(QStringLiteral("%1 < %2").arg(view->columnWidth(0)).arg(name)));
        for (int column = 1; column < model->columnCount(view->rootIndex()); ++column) {
            const QString text = model->index(0, column, view->rootIndex()).data().toString();
            QVERIFY2(view->columnWidth(column) >= fm.horizontalAdvance(text), qPrintable(text));
        }
    }
};

QTEST_MAIN(TestMainWindow)
#include "test_main_window.moc"
