// What a newcomer meets in the window (issue 10), driven as they drive it, offscreen: an
// example is never overwritten, opening starts a clean history, a measurement of an earlier
// schedule is never reported as current, a schedule with errors exports only when confirmed,
// single-core parallel gets a hint, the context menu offers only what can apply (or says why
// not), the empty state is honest, the schedule panel speaks in short words, and Escape in
// the factor spin box undoes the edit.
#include "charts/cost_view.h"
#include "code_view.h"
#include "diagnostics_model.h"
#include "loop_nest_model.h"
#include "memory_view.h"
#include "schedule_model.h"
#include "diagnostics_view.h"
#include "kernel_view.h"
#include "loop_nest_view.h"
#include "main_window.h"
#include "schedule_document.h"
#include "schedule_view.h"

#include <QAction>
#include <QComboBox>
#include <QDockWidget>
#include <QFile>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QSettings>
#include <QSpinBox>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTableView>
#include <QTemporaryDir>
#include <QToolBar>
#include <QToolButton>
#include <QWidgetAction>
#include <QUndoStack>
#include <QUndoView>
#include <QtTest>

#include <functional>
#include <memory>

using namespace loopscope;
using namespace loopscope::ui;

namespace {
QString source(const QString& rel) { return QStringLiteral(LOOPSCOPE_SOURCE_DIR "/") + rel; }
QString example(const QString& name) { return source("examples/schedules/" + name); }

QByteArray readAll(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

std::unique_ptr<MainWindow> makeWindow()
{
    auto w = std::make_unique<MainWindow>(MainWindow::Options{false, false});
    w->setSavePrompt([](const QString&) { return int(QMessageBox::Discard); });
    w->setPathPrompt([](MainWindow::Prompt, const QString&) { return QString(); });
    w->setReplacePrompt([](const QString&, const QStringList&) { return false; });
    w->setErrorsPrompt([](const QStringList&) { return false; });
    w->setDescriptionPrompt([](const QString&) { return MainWindow::DescriptionAnswer::Cancel; });
    w->resize(1600, 1000);
    w->show();
    QCoreApplication::processEvents();
    return w;
}

/// The action `text` anywhere under `menu`.
QAction* findAction(QMenu* menu, const QString& text)
{
    for (QAction* a : menu->actions()) {
        if (a->menu()) {
            if (QAction* found = findAction(a->menu(), text))
                return found;
        } else if (a->text() == text) {
            return a;
        }
    }
    return nullptr;
}

QMenu* menuNamed(MainWindow& w, const QString& title)
{
    for (QAction* a : w.menuBar()->actions())
        if (a->menu() && a->menu()->title().remove(QLatin1Char('&')) == title)
            return a->menu();
    return nullptr;
}

void trigger(MainWindow& w, LoopNestView::ActionId id) { w.loopNestView()->action(id)->trigger(); }
} // namespace

class TestNewcomer : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("LoopscopeTest"));
        QCoreApplication::setApplicationName(QStringLiteral("test_gui_newcomer"));
        QSettings().clear();
    }

    // 1. File > New from example is an untitled copy: Ctrl+S asks for a path outside the
    //    examples, and the example file stays as shipped.
    void newFromExampleNeverOverwritesTheExample()
    {
        const QString shipped = example("matmul_f32_naive.sched.yaml");
        const QByteArray before = readAll(shipped);
        QVERIFY(!before.isEmpty());
        auto w = makeWindow();
        QMenu* file = menuNamed(*w, "File");
        QVERIFY(file);
        QAction* fromExample = findAction(file, "matmul_f32_naive");
        QVERIFY(fromExample);
        fromExample->trigger();
        QVERIFY2(w->windowTitle().startsWith("matmul_f32_naive (unsaved)"), qPrintable(w->windowTitle()));
        QVERIFY(w->document()->filePath().isEmpty());
        QCOMPARE(w->document()->description(), QString::fromUtf8(sched::loadScheduleFile(shipped.toStdString())->description.c_str()));

        QVERIFY(w->loopNestView()->selectLoop("i"));
        w->loopNestView()->factorBox()->setValue(8);
        trigger(*w, LoopNestView::Split);
        QVERIFY(w->isWindowModified());
        // the example's description no longer matches: the schedule panel says so
        QVERIFY(w->document()->descriptionIsStale());
        QVERIFY(!w->scheduleView()->descriptionNote().isEmpty());

        // A save cancelled in the file dialog after "Remove it" changes nothing: the description
        // stays and no edit joins the history (it removed the description, undoably).
        {
            const QString description = w->document()->description();
            const int edits = w->document()->undoStack()->count();
            w->setPathPrompt([](MainWindow::Prompt, const QString&) { return QString(); });
            w->setDescriptionPrompt([](const QString&) { return MainWindow::DescriptionAnswer::Remove; });
            w->action("save")->trigger();
            w->action("saveAs")->trigger();
            QCOMPARE(w->document()->description(), description);
            QCOMPARE(w->document()->undoStack()->count(), edits);
            QVERIFY(w->document()->descriptionIsStale());
            QVERIFY(w->isWindowModified());
        }

        QTemporaryDir tmp;
        QStringList suggestions;
        w->setPathPrompt([&](MainWindow::Prompt p, const QString& suggestion) {
            suggestions << suggestion;
            return p == MainWindow::Prompt::SaveSchedule ? tmp.filePath("mine.sched.yaml") : QString();
        });
        QString askedAbout;
        w->setDescriptionPrompt([&](const QString& d) {
            askedAbout = d;
            return MainWindow::DescriptionAnswer::Remove;
        });
        QTest::keySequence(w.get(), QKeySequence::Save);  // Ctrl+S, as the user pressed it
        if (suggestions.isEmpty())                         // (offscreen may not deliver shortcuts)
            w->action("save")->trigger();
        QCOMPARE(suggestions.size(), 1);
        QVERIFY2(!suggestions.front().startsWith(MainWindow::examplesDir()), qPrintable(suggestions.front()));
        QVERIFY2(suggestions.front().startsWith(QDir::homePath()), qPrintable(suggestions.front()));
        QVERIFY(suggestions.front().endsWith("/matmul_f32_naive.sched.yaml"));
        QVERIFY(!askedAbout.isEmpty());  // asked about the stale description first
        QCOMPARE(readAll(shipped), before);
        const QByteArray saved = readAll(tmp.filePath("mine.sched.yaml"));
        QVERIFY(saved.contains("split: {loop: i, factor: 8}"));
        QVERIFY2(!saved.contains("description"), saved.constData());
        QVERIFY(w->windowTitle().startsWith("mine.sched.yaml"));
        QVERIFY(!w->isWindowModified());

        // the next untitled document is offered the folder the user saved in
        QVERIFY(w->newFromExample(example("matmul_f32_tiled.sched.yaml")));
        QVERIFY(w->loopNestView()->selectLoop("k"));
        trigger(*w, LoopNestView::Unroll);
        suggestions.clear();
        w->setDescriptionPrompt([&](const QString&) { return MainWindow::DescriptionAnswer::Keep; });
        w->action("save")->trigger();
        QCOMPARE(suggestions.size(), 1);
        QCOMPARE(suggestions.front(), QDir(tmp.path()).absolutePath() + "/matmul_f32_tiled.sched.yaml");
    }

    // 1. A file opened directly keeps its description only when the user says so; the schedule
    //    panel edits it (undoably), and an edited description is saved without asking.
    void theDescriptionIsEditedInTheSchedulePanel()
    {
        QTemporaryDir tmp;
        const QString path = tmp.filePath("tiled.sched.yaml");
        QVERIFY(QFile::copy(example("matmul_f32_tiled.sched.yaml"), path));
        // the copy's kernel path is relative to the examples: point it at the source tree
        QByteArray text = readAll(path);
        text.replace("kernel: ../kernels/", QByteArray("kernel: ") + source("examples/kernels/").toUtf8());
        QFile out(path);
        QVERIFY(out.open(QIODevice::WriteOnly | QIODevice::Truncate));
        out.write(text);
        out.close();

        auto w = makeWindow();
        QVERIFY(w->openFile(path));
        QLineEdit* edit = w->scheduleView()->descriptionEdit();
        QVERIFY(edit->text().startsWith("The seed's tiled matmul"));
        QVERIFY(w->scheduleView()->descriptionNote().isEmpty());
        QVERIFY(w->loopNestView()->selectLoop("k"));
        trigger(*w, LoopNestView::Unroll);
        QVERIFY(!w->scheduleView()->descriptionNote().isEmpty());
        // Cancel in the question: nothing is written
        int asked = 0;
        w->setDescriptionPrompt([&](const QString&) {
            ++asked;
            return MainWindow::DescriptionAnswer::Cancel;
        });
        w->action("save")->trigger();
        QCOMPARE(asked, 1);
        QCOMPARE(readAll(path), text);
        QVERIFY(w->isWindowModified());

        // the user types a new description: undoable, no longer stale, saved without a question
        edit->setFocus();
        edit->selectAll();
        QTest::keyClicks(edit, "Tiled, k unrolled");
        QTest::keyClick(edit, Qt::Key_Return);
        QCOMPARE(w->document()->description(), QString("Tiled, k unrolled"));
        QVERIFY(w->scheduleView()->descriptionNote().isEmpty());
        QCOMPARE(w->document()->undoStack()->undoText(), QString("describe the schedule"));
        w->action("save")->trigger();
        QCOMPARE(asked, 1);
        QVERIFY(readAll(path).contains("description: Tiled, k unrolled") || readAll(path).contains("description: \"Tiled, k unrolled\""));
        w->action("undo")->trigger();
        QVERIFY(edit->text().startsWith("The seed's tiled matmul"));
    }

    // 2. Opening a file again (or any file) starts a clean history: Undo cannot reach into the
    //    document that was open before.
    void reopeningStartsACleanUndoStack()
    {
        auto w = makeWindow();
        const QString path = example("matmul_f32_tiled.sched.yaml");
        QVERIFY(w->openFile(path));
        QVERIFY(w->loopNestView()->selectLoop("k"));
        trigger(*w, LoopNestView::Unroll);
        QVERIFY(w->loopNestView()->selectLoop("i.outer"));
        trigger(*w, LoopNestView::Parallel);
        QCOMPARE(w->historyView()->model()->rowCount(), 3);
        // File > Open recent / Open of the same file, discarding the changes
        QVERIFY(w->openFile(path));
        QCOMPARE(w->document()->undoStack()->count(), 0);
        QCOMPARE(w->historyView()->model()->rowCount(), 1);  // <opened>
        QVERIFY(!w->action("undo")->isEnabled());
        const size_t steps = w->document()->steps().size();
        w->action("undo")->trigger();
        QCOMPARE(w->document()->steps().size(), steps);
        QVERIFY(!w->isWindowModified());
        // a kernel from the Kernel box, too
        QVERIFY(w->loopNestView()->selectLoop("k"));
        trigger(*w, LoopNestView::Unroll);
        QComboBox* kernels = w->kernelView()->kernelBox();
        const int mm = kernels->findText("matmul_f32");
        kernels->setCurrentIndex(mm);
        emit kernels->activated(mm);
        QVERIFY(w->document()->steps().empty());
        QCOMPARE(w->document()->undoStack()->count(), 0);
        QCOMPARE(w->historyView()->model()->rowCount(), 1);
    }

    // 3. A measurement that finishes after an edit describes an earlier schedule: it is dropped,
    //    and the status bar says so instead of reporting it as current.
    void aMeasurementOfAnEarlierScheduleIsDropped()
    {
        auto w = makeWindow();
        QVERIFY(w->openFile(example("matmul_int8_dsp.sched.yaml")));
        QSignalSpy finished(w.get(), &MainWindow::measurementFinished);
        w->action("measure")->trigger();
        QVERIFY(w->statusBar()->currentMessage().startsWith("Measuring"));
        QVERIFY(w->loopNestView()->selectLoop("k.outer"));
        trigger(*w, LoopNestView::Unroll);   // while qemu runs
        QVERIFY(finished.wait(180000));
        QCOMPARE(finished.front().at(0).toBool(), false);
        const QString status = w->statusBar()->currentMessage();
        QVERIFY2(status.startsWith("Measurement dropped: the schedule changed while it ran"), qPrintable(status));
        QVERIFY(!status.contains("Measured on"));
        QVERIFY(w->costView()->measurementText().isEmpty());
    }

    // 4. Export of a schedule with error diagnostics asks first, naming the errors; "no" writes
    //    nothing.
    void exportOfAScheduleWithErrorsAsksFirst()
    {
        auto w = makeWindow();
        QVERIFY(w->openFile(example("matmul_f32_tiled.sched.yaml")));
        w->setPathPrompt([](MainWindow::Prompt, const QString&) { return source("tests/data/analysis/tiny-fast-memory.target.yaml"); });
        w->action("openTarget")->trigger();
        QVERIFY(w->document()->snapshot().report->hasErrors());
        QTemporaryDir tmp;
        QStringList named;
        w->setErrorsPrompt([&](const QStringList& errors) {
            named = errors;
            return false;
        });
        w->setPathPrompt([&](MainWindow::Prompt, const QString&) { return tmp.filePath("out"); });
        w->action("export")->trigger();
        QCOMPARE(named.size(), 1);
        QVERIFY2(named.front().startsWith("SRAM holds"), qPrintable(named.front()));
        QVERIFY(named.front().contains("but has 48 B"));
        QVERIFY(!QFileInfo::exists(tmp.filePath("out/matmul_f32.c")));
        QVERIFY(w->statusBar()->currentMessage().startsWith("Export cancelled: the schedule has errors"));
        // "yes": exported, and the status bar still says it has errors
        w->setErrorsPrompt([](const QStringList&) { return true; });
        w->action("export")->trigger();
        QVERIFY(QFileInfo::exists(tmp.filePath("out/matmul_f32.c")));
        QVERIFY(w->statusBar()->currentMessage().contains("although the schedule has errors"));
        // a schedule without errors exports without the question
        named.clear();
        w->setErrorsPrompt([&](const QStringList& errors) {
            named = errors;
            return false;
        });
        w->action("undo")->trigger();  // back on cortex-m7
        QVERIFY(!w->document()->snapshot().report->hasErrors());
        w->action("export")->trigger();
        QVERIFY(named.isEmpty());
    }

    // 4b. C past the exporter's size limit is an error diagnostic, but the app does not ask
    //     whether to export it anyway: it cannot be, and Export says why.
    void exportOfCodeTooLargeIsRefusedWithoutTheQuestion()
    {
        auto w = makeWindow();
        QTemporaryDir tmp;
        const QString file = tmp.filePath("unrolled.sched.yaml");
        {
            QFile f(file);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(("kernel: " + source("examples/kernels/matmul_f32.kernel.yaml").toStdString()
                     + "\ntarget: cortex-m7\nsteps:\n  - unroll: {loop: i}\n  - unroll: {loop: j}\n  - unroll: {loop: k}\n")
                        .c_str());
        }
        QVERIFY(w->openFile(file));
        QVERIFY(w->document()->snapshot().report->hasErrors());
        bool asked = false;
        w->setErrorsPrompt([&](const QStringList&) {
            asked = true;
            return true;
        });
        QString error;
        QVERIFY(!w->exportTo(tmp.filePath("out"), &error));  // the reason returned, not shown in a message box
        QVERIFY(!asked);
        QVERIFY(!QFileInfo::exists(tmp.filePath("out/matmul_f32.c")));
        QVERIFY2(error.contains("cannot export: the C of this schedule would hold 802882 statements"), qPrintable(error));
    }

    // 5. The Cost panel says, next to its figures, what they count and what a measurement adds.
    void theCostPanelSaysWhatItsFiguresCount()
    {
        auto w = makeWindow();
        QVERIFY(w->openFile(source("docs/tutorial/matmul_6_written_back.sched.yaml")));
        const QString caveat = w->costView()->caveatText();
        QVERIFY2(caveat.contains("compute cycles = the instructions the exported kernel executes"), qPrintable(caveat));
        QVERIFY(caveat.contains("through cortex-m7's issue model: 2 a cycle at most"));
        QVERIFY(caveat.contains("An estimate: no board is here"));
        QVERIFY(caveat.contains("Schedule > Measure"));
        auto* label = w->costView()->findChild<QWidget*>("costCaveat");
        QVERIFY(label && label->isVisible());   // on the panel, not in a tooltip
    }

    // 6. parallel on a single-core target: accepted, with a hint that it runs serially.
    void parallelOnOneCoreSaysItRunsSerially()
    {
        auto w = makeWindow();
        QVERIFY(w->openFile(example("matmul_f32_tiled.sched.yaml")));
        QVERIFY(w->loopNestView()->selectLoop("i.outer"));
        trigger(*w, LoopNestView::Parallel);
        QCOMPARE(w->document()->steps().back().primitive, sched::Primitive::Parallel);
        const DiagnosticRow* hint = nullptr;
        for (const auto& r : w->diagnosticsView()->model()->rows())
            if (r.code == "single-core-parallel")
                hint = &r;
        QVERIFY(hint);
        QVERIFY2(hint->message.contains("parallel loop i.outer runs serially: cortex-m7 has one core"), qPrintable(hint->message));
        QVERIFY(hint->message.contains("compute: {cores: N}"));
        QCOMPARE(hint->step, int(w->document()->steps().size()) - 1);   // it names the step
        QVERIFY(w->dock("diagnosticsDock")->windowTitle().contains("1 hint") || w->dock("diagnosticsDock")->windowTitle().contains("hints"));
    }

    // 7. Every entry of the context menu is offered only where it applies, or greyed with why:
    //    an enabled entry applies when chosen, a greyed one says why in its tooltip.
    void contextMenuEntriesApplyOrSayWhyNot()
    {
        auto w = makeWindow();
        QVERIFY(w->openFile(source("examples/schedules/dwsep_conv_fused.sched.yaml")));
        ScheduleDocument* doc = w->document();
        LoopNestModel* model = w->loopNestView()->model();
        // compute_inline of the depthwise stage (a reduction) can never apply
        {
            std::unique_ptr<QMenu> menu(w->loopNestView()->contextMenuFor(model->findLoop("h.outer", "O")));
            QAction* inl = findAction(menu.get(), "stage D into its readers");
            QVERIFY(inl);
            QVERIFY(!inl->isEnabled());
            QVERIFY2(inl->toolTip().startsWith("Not possible here: "), qPrintable(inl->toolTip()));
            QVERIFY(inl->toolTip().contains("reduction") || inl->toolTip().contains("reduces"));
        }
        int enabled = 0, greyed = 0;
        auto leavesOf = [](QMenu* menu) {
            std::vector<QAction*> leaves;
            std::function<void(QMenu*)> collect = [&](QMenu* m) {
                for (QAction* a : m->actions()) {
                    if (a->menu())
                        collect(a->menu());
                    else if (!a->isSeparator() && !a->text().isEmpty() && !qobject_cast<QWidgetAction*>(a))
                        leaves.push_back(a);
                }
            };
            collect(menu);
            return leaves;
        };
        for (const QString& loop : {QStringLiteral("h.outer"), QStringLiteral("k"), QStringLiteral("c")}) {
            const QModelIndex row = model->findLoop(loop, "O");
            QVERIFY2(row.isValid(), qPrintable(loop));
            const size_t count = leavesOf(std::unique_ptr<QMenu>(w->loopNestView()->contextMenuFor(row)).get()).size();
            QVERIFY(count > 10);
            for (size_t i = 0; i < count; ++i) {
                // A fresh right-click each time: the state is the one before the last entry was tried.
                std::unique_ptr<QMenu> menu(w->loopNestView()->contextMenuFor(model->findLoop(loop, "O")));
                QAction* a = leavesOf(menu.get())[i];
                const QString what = loop + ": " + a->text();
                if (!a->isEnabled()) {
                    ++greyed;
                    QVERIFY2(a->toolTip().startsWith("Not possible here: "), qPrintable(what + ": " + a->toolTip()));
                    continue;
                }
                ++enabled;
                const size_t before = doc->steps().size();
                a->trigger();
                if (doc->lastRejected())
                    QFAIL(qPrintable(what + " was offered but refused: " + QString::fromStdString(doc->lastRejected()->message)));
                QVERIFY2(doc->steps().size() == before + 1, qPrintable(what));
                doc->undoStack()->undo();
                QCOMPARE(doc->steps().size(), before);
            }
        }
        QVERIFY(enabled >= 3);
        QVERIFY(greyed >= 3);
    }

    // 8. After a file fails to open, the boxes show what is open (nothing), and a choice does
    //    what it shows: the target picked is the one the kernel opens on.
    void theEmptyStateIsHonest()
    {
        auto w = makeWindow();
        QString error;
        QVERIFY(!w->openFile(source("tests/data/malformed/schedules/unknown-primitive.yaml"), &error));
        QVERIFY(!w->document()->isOpen());
        QComboBox* kernels = w->kernelView()->kernelBox();
        QComboBox* targets = w->kernelView()->targetBox();
        QCOMPARE(kernels->currentIndex(), -1);
        QCOMPARE(kernels->placeholderText(), QString("(choose a kernel)"));
        QCOMPARE(targets->currentText(), QString("cortex-m7"));   // what a kernel opens on
        const int m4 = targets->findData("cortex-m4");
        targets->setCurrentIndex(m4);
        emit targets->activated(m4);
        QCOMPARE(targets->currentText(), QString("cortex-m4"));
        const int first = 0;   // the first kernel of the box: choosing it opens it
        kernels->setCurrentIndex(first);
        emit kernels->activated(first);
        QVERIFY(w->document()->isOpen());
        QCOMPARE(QFileInfo(w->document()->kernelPath()).fileName(), QFileInfo(kernels->itemData(first).toString()).fileName());
        QCOMPARE(w->document()->snapshot().program->target->name, std::string("cortex-m4"));
        QCOMPARE(targets->currentText(), QString("cortex-m4"));
    }

    // 9. The first window takes most of the screen; at 1280 x 800 every toolbar action is on
    //    the toolbar (none only behind the extension arrow).
    void theFirstWindowIsRoomy()
    {
        QCOMPARE(MainWindow::defaultSize(QSize(1600, 1000)), QSize(1440, 900));
        QCOMPARE(MainWindow::defaultSize(QSize(1366, 768)), QSize(1280, 768));
        auto w = makeWindow();
        QVERIFY(w->openFile(example("matmul_f32_tiled.sched.yaml")));
        w->resize(1280, 800);
        w->applyDefaultSizes();
        for (int i = 0; i < 5; ++i)
            QCoreApplication::processEvents();
        for (QToolBar* bar : w->findChildren<QToolBar*>()) {
            if (!bar->isVisible())
                continue;
            QStringList hidden;
            for (QAction* a : bar->actions())
                if (QWidget* b = bar->widgetForAction(a); b && !b->isVisible() && a->isVisible())
                    hidden << a->text();
            QVERIFY2(hidden.isEmpty(), qPrintable(QString("%1 in %2 hides %3 behind »")
                                                      .arg(bar->objectName(), bar->parentWidget()->metaObject()->className(), hidden.join(", "))));
        }
    }

    // 10. The schedule panel and History speak in describe's short words, stages named.
    void stepsReadInShortWords()
    {
        auto w = makeWindow();
        QVERIFY(w->openFile(source("examples/schedules/dwsep_conv_fused.sched.yaml")));
        ScheduleModel* m = w->scheduleView()->model();
        QStringList shown;
        for (int r = 0; r < m->rowCount(); ++r)
            shown << m->index(r, ScheduleModel::ParametersColumn).data().toString();
        QVERIFY2(shown.contains("split O:h by 4"), qPrintable(shown.join(" | ")));
        for (const QString& t : shown)
            QVERIFY2(!t.startsWith("{"), qPrintable(t));
        // the editor still edits the schedule-file text; the tooltip carries both
        QVERIFY(m->index(0, ScheduleModel::ParametersColumn).data(Qt::EditRole).toString().startsWith("{"));
        QVERIFY(m->index(0, ScheduleModel::ParametersColumn).data(Qt::ToolTipRole).toString().contains("{"));
        // the column is as wide as its longest text
        QTableView* table = w->scheduleView()->table();
        int widest = 0;
        for (const QString& t : shown)
            widest = std::max(widest, table->fontMetrics().horizontalAdvance(t));
        QVERIFY2(table->horizontalHeader()->sectionSize(ScheduleModel::ParametersColumn) >= widest,
                 qPrintable(QString("%1 < %2").arg(table->horizontalHeader()->sectionSize(ScheduleModel::ParametersColumn)).arg(widest)));
        // History: the same words
        QVERIFY(w->loopNestView()->selectLoop("k", "O"));
        trigger(*w, LoopNestView::Unroll);
        QCOMPARE(w->historyView()->model()->index(1, 0).data().toString(), QString("unroll O:k"));
        QCOMPARE(w->dock("scheduleDock")->windowTitle(), QString("Schedule (%1 steps)").arg(w->document()->steps().size()));
    }

    // 11. Escape in the factor spin box goes back to the value before editing, recording nothing.
    void escapeInTheFactorSpinBoxReverts()
    {
        auto w = makeWindow();
        QVERIFY(w->openFile(example("matmul_f32_tiled.sched.yaml")));
        ScheduleDocument* doc = w->document();
        QTableView* table = w->scheduleView()->table();
        const QModelIndex params = w->scheduleView()->model()->index(0, ScheduleModel::ParametersColumn);
        const QString code = w->codeView()->text();
        table->setCurrentIndex(params);
        table->edit(params);
        auto* spin = table->findChild<QSpinBox*>("factorSpinBox");
        QVERIFY(spin);
        spin->setValue(8);
        QCOMPARE(doc->steps()[0].factor, int64_t(8));   // the views follow while it turns
        QTest::keyClick(spin, Qt::Key_Escape);
        QCoreApplication::processEvents();
        QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
        QCOMPARE(doc->steps()[0].factor, int64_t(16));
        QCOMPARE(doc->undoStack()->count(), 0);
        QVERIFY(!w->isWindowModified());
        QCOMPARE(w->codeView()->text(), code);
        QVERIFY(!table->findChild<QSpinBox*>("factorSpinBox"));
    }

    // 12. Small things: the View menu shows "Kernel & target", plurals are words, latency in
    //     seconds past 1000 ms, Save As has Ctrl+Shift+S, Open Recent tells same names apart,
    //     and the tensors of a kernel have distinct colours.
    void smallThings()
    {
        auto w = makeWindow();
        QMenu* view = menuNamed(*w, "View");
        QVERIFY(view);
        QStringList texts;
        for (QAction* a : view->actions())
            texts << a->text();
        QVERIFY2(texts.contains("Kernel && target"), qPrintable(texts.join(" | ")));   // shown as "Kernel & target"
        QCOMPARE(w->action("saveAs")->shortcut(), QKeySequence("Ctrl+Shift+S"));
        QCOMPARE(CostView::latencyText(12.3456), QString("12.346 ms"));
        QCOMPARE(CostView::latencyText(2720.6), QString("2.721 s"));
        QVERIFY(w->openFile(source("tests/data/kernels/scaled_matmul.kernel.yaml")));
        QSet<QRgb> colours;
        for (const char* t : {"A", "T", "B", "C"})
            colours.insert(MemoryView::tensorColor(w->document()->snapshot().program->kernel.get(), t).rgb());
        QCOMPARE(colours.size(), 4);
        QVERIFY(w->openFile(example("matmul_f32_tiled.sched.yaml")));
        const QString summary = w->dock("diagnosticsDock")->windowTitle();
        QVERIFY2(!summary.contains("(s)"), qPrintable(summary));
    }
};

QTEST_MAIN(TestNewcomer)
#include "test_newcomer.moc"
