// The workspace in the app, driven as a user drives it (offscreen): the Variants dock (save the
// schedule as a variant, open, duplicate, rename, delete, sort, derived-from, a kernel file
// changed on disk), the Compare window (figures and ratios, steps, the two nests marked, the
// chart of all variants with readable axes), the edit journal of every undo-stack change, and
// crash recovery: the app in a child process killed with SIGKILL while editing, restarted,
// the document restored with at most the last edit lost and its undo history.
#include "charts/variants_scatter.h"
#include "compare_view.h"
#include "edit_journal.h"
#include "main_window.h"
#include "schedule_document.h"
#include "store/journal_replay.h"
#include "store/variant_files.h"
#include "store/workspace.h"
#include "target_loader.h"
#include "variants_view.h"
#include "workspace_app_support.h"
#include "workspace_controller.h"

#include <QDialog>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QLabel>
#include <QListWidget>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QProcess>
#include <QSettings>
#include <QSignalSpy>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

#include <csignal>
#include <memory>
#include <random>
#include <thread>

using namespace loopscope;
using namespace loopscope::ui;
using namespace loopscope::ui::wstest;

class TestWorkspaceApp : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("LoopscopeTest"));
        QCoreApplication::setApplicationName(QStringLiteral("test_gui_workspace"));
        QSettings().clear();
        QVERIFY(m_tmp.isValid());
    }

    void variantsDockSavesOpensDuplicatesRenamesAndDeletes()
    {
        const QString proj = m_tmp.path() + "/dock";
        makeProject(proj);
        auto win = makeWindow(m_tmp.path() + "/recovery-dock");
        auto* view = win->ws->variantsView();
        QVERIFY(win->w->dock("variantsDock"));
        QVERIFY(win->w->openFile(proj + "/matmul_2_cached.sched.yaml"));
        // No workspace yet: the dock says so, and where one would go.
        QVERIFY(win->ws->workspacePath().isEmpty());
        QVERIFY(view->workspaceLabel()->text().contains("No workspace in"));
        QVERIFY(!view->table()->isVisibleTo(view));
        // Saving a variant offers to create the folder's workspace (answered no: nothing made).
        win->confirm = false;
        view->action("save")->trigger();
        QVERIFY(!QFileInfo::exists(proj + "/dock.loopscope-workspace"));
        win->confirm = true;
        win->nextName = "cached";
        win->nextNotes = "A and B in SRAM";
        view->action("save")->trigger();
        QVERIFY(QFileInfo::exists(proj + "/dock.loopscope-workspace"));
        QCOMPARE(win->ws->workspacePath(), QFileInfo(proj + "/dock.loopscope-workspace").absoluteFilePath());
        QCOMPARE(shownNames(view), QStringList({"cached"}));
        // The row's figures are the document's.
        const auto& report = *win->w->document()->snapshot().report;
        QCOMPARE(cell(view, "cached", VariantsModel::Cycles), QLocale(QLocale::English).toString(qlonglong(report.cycles.total)));
        QCOMPARE(cell(view, "cached", VariantsModel::SramPeak), QStringLiteral("8.0 KiB"));
        auto stored = win->ws->workspace()->variantByName("cached");
        QVERIFY(stored);
        QCOMPARE(QString::fromStdString(stored->notes), QStringLiteral("A and B in SRAM"));
        QCOMPARE(win->ws->currentVariant(), std::optional<int64_t>(stored->id));

        // An edit saved as another variant is derived from the first.
        QVERIFY(!win->w->document()->applyStep(split("k", 8)));
        win->nextName = "cached-k8";
        win->nextNotes.clear();
        view->action("save")->trigger();
        QCOMPARE(cell(view, "cached-k8", VariantsModel::DerivedFrom), QStringLiteral("cached"));
        QCOMPARE(win->ws->workspace()->variantByName("cached-k8")->parentId, std::optional<int64_t>(stored->id));
        // A name in use is refused: nothing is added.
        win->nextName = "cached";
        view->action("save")->trigger();
        QCOMPARE(shownNames(view).size(), 2);

        // Open: the variant's steps, untitled, named after it; the title says so.
        view->selectVariant(stored->id);
        view->action("open")->trigger();
        QCOMPARE(win->w->document()->steps().size(), size_t(5));
        QVERIFY(win->w->document()->filePath().isEmpty());
        QVERIFY(win->w->windowTitle().contains("cached (variant)"));
        QVERIFY(!win->w->document()->isDirty());

        // Duplicate (derived from the original), rename through the table, delete when confirmed.
        view->selectVariant(stored->id);
        view->action("duplicate")->trigger();
        QVERIFY(shownNames(view).contains("cached-copy"));
        QCOMPARE(cell(view, "cached-copy", VariantsModel::DerivedFrom), QStringLiteral("cached"));
        const int64_t copy = win->ws->workspace()->variantByName("cached-copy")->id;
        auto* proxy = view->table()->model();
        QModelIndex nameCell;
        for (int r = 0; r < proxy->rowCount(); ++r)
            if (proxy->index(r, 0).data().toString() == "cached-copy")
                nameCell = proxy->index(r, 0);
        QVERIFY(proxy->setData(nameCell, "cached-again"));
        QTRY_VERIFY(shownNames(view).contains("cached-again"));
        QCOMPARE(win->ws->workspace()->variant(copy)->name, std::string("cached-again"));
        QVERIFY(!win->ws->renameVariant(copy, "cached"));  // names are unique
        win->confirm = false;
        QVERIFY(!win->ws->deleteVariant(copy));
        QVERIFY(win->ws->workspace()->variant(copy));
        win->confirm = true;
        view->selectVariant(copy);
        view->action("delete")->trigger();
        QVERIFY(!win->ws->workspace()->variant(copy));
        QCOMPARE(shownNames(view).size(), 2);
        QVERIFY(win->ws->workspace()->integrityProblems().empty());

        // Another program adds a variant (as the CLI or a search does): it appears while the
        // dock is in view, without a refresh by hand.
        win->w->dock("variantsDock")->raise();
        QTRY_VERIFY(MainWindow::dockOnScreen(win->w->dock("variantsDock")));
        {
            auto other = store::Workspace::open(win->ws->workspacePath().toStdString());
            QVERIFY(other.ok());
            auto v = store::variantFromScheduleFile((proj + "/matmul_5_unrolled.sched.yaml").toStdString(),
                                                    [](const std::string& t, const std::string& p) { return hw::parseTarget(t, p); },
                                                    [](const std::string& n) { return hw::builtinTargetText(n); });
            QVERIFY(v.ok());
            QVERIFY((*other)->addVariant(*v).ok());
        }
        QTRY_VERIFY_WITH_TIMEOUT(shownNames(view).contains("matmul_5_unrolled"), 10000);
    }

    void variantsSortByTheirFiguresAndAChangedKernelFileIsShown()
    {
        const QString proj = m_tmp.path() + "/sorted";
        makeProject(proj);
        {
            auto ws = store::Workspace::create((proj + "/sorted.loopscope-workspace").toStdString());
            QVERIFY(ws.ok());
            std::optional<int64_t> parent;
            for (const char* name : {"naive", "matmul_2_cached", "matmul_5_unrolled", "matmul_6_written_back"}) {
                auto v = store::variantFromScheduleFile((proj + "/" + name + ".sched.yaml").toStdString(),
                                                        [](const std::string& t, const std::string& p) { return hw::parseTarget(t, p); },
                                                        [](const std::string& n) { return hw::builtinTargetText(n); });
                QVERIFY(v.ok());
                v->parentId = parent;
                parent = *(*ws)->addVariant(*v);
            }
        }
        auto win = makeWindow(m_tmp.path() + "/recovery-sorted");
        QVERIFY(win->w->openFile(proj + "/naive.sched.yaml"));
        auto* view = win->ws->variantsView();
        QCOMPARE(shownNames(view), QStringList({"matmul_2_cached", "matmul_5_unrolled", "matmul_6_written_back", "naive"}));
        view->table()->sortByColumn(VariantsModel::Cycles, Qt::AscendingOrder);
        // By the number of cycles, not their text ("280,224" < "1,107,752").
        QCOMPARE(shownNames(view), QStringList({"matmul_6_written_back", "matmul_5_unrolled", "matmul_2_cached", "naive"}));
        view->table()->sortByColumn(VariantsModel::SramPeak, Qt::DescendingOrder);
        QCOMPARE(shownNames(view).front(), QStringLiteral("matmul_6_written_back"));
        QCOMPARE(cell(view, "matmul_5_unrolled", VariantsModel::DerivedFrom), QStringLiteral("matmul_2_cached"));

        // The kernel changes on disk (a size): the dock marks every variant, and opening one
        // uses the kernel stored with it (its figures are those it was saved with).
        const qlonglong savedCycles = win->ws->workspace()->variantByName("matmul_5_unrolled")->figures->cycles;
        QByteArray kernel = readAll(proj + "/matmul_f32.kernel.yaml");
        QVERIFY(kernel.contains("M: 64"));
        kernel.replace("M: 64", "M: 32");
        QVERIFY(writeAll(proj + "/matmul_f32.kernel.yaml", kernel));
        win->ws->refresh();
        auto* model = view->model();
        const int row = model->rowOf(win->ws->workspace()->variantByName("matmul_5_unrolled")->id);
        QCOMPARE(model->rows()[size_t(row)].kernelOnDisk, QStringLiteral("changed"));
        QVERIFY(!model->index(row, VariantsModel::Name).data(Qt::DecorationRole).isNull());
        QVERIFY(model->index(row, VariantsModel::Name).data(Qt::ToolTipRole).toString().contains("changed since the variant was saved"));
        view->selectVariant(model->rows()[size_t(row)].variant.id);
        QVERIFY(view->detailsLabel()->text().contains("changed on disk"));
        QString error;
        QVERIFY2(win->ws->openVariant(model->rows()[size_t(row)].variant.id, &error), qPrintable(error));
        QCOMPARE(qlonglong(win->w->document()->snapshot().report->cycles.total), savedCycles);
        QVERIFY(win->w->statusBar()->currentMessage().contains("changed on disk"));
    }

    void aReadOnlyWorkspaceOffersOnlyWhatReads()
    {
        // (That a workspace this user may not write opens read-only and lists every variant is
        // Store.RefusesANewerSchemaAndOpensReadOnlyFilesForReading, run as user nobody.)
        VariantsView view;
        VariantRow kept;
        kept.variant.id = 7;
        kept.variant.name = "kept";
        VariantRow other;
        other.variant.id = 8;
        other.variant.name = "other";
        view.setWorkspace("/p/p.loopscope-workspace", true, "p.loopscope-workspace: read-only");
        view.setCanSave(true);
        view.setRows({kept, other});
        view.selectVariant(7);
        QVERIFY(view.action("open")->isEnabled());
        QVERIFY(view.action("compare")->isEnabled());
        for (const char* name : {"save", "duplicate", "rename", "delete"})
            QVERIFY2(!view.action(name)->isEnabled(), name);
        QCOMPARE(view.table()->editTriggers(), QAbstractItemView::NoEditTriggers);
        QCOMPARE(view.action("save")->toolTip(), QStringLiteral("The workspace is read-only"));
        view.setWorkspace("/p/p.loopscope-workspace", false, "p.loopscope-workspace");
        view.setRows({kept});
        view.selectVariant(7);
        for (const char* name : {"save", "duplicate", "rename", "delete", "open"})
            QVERIFY2(view.action(name)->isEnabled(), name);
    }

    void compareShowsFiguresStepsNestsAndEveryVariant()
    {
        const QString proj = m_tmp.path() + "/compare";
        makeProject(proj);
        auto win = makeWindow(m_tmp.path() + "/recovery-compare");
        QVERIFY(win->ws->createWorkspace(proj));
        std::vector<int64_t> ids;
        for (const char* name : {"naive", "matmul_2_cached", "matmul_5_unrolled"}) {
            QVERIFY(win->w->openFile(proj + "/" + name + ".sched.yaml"));
            win->nextName = name;
            QString error;
            auto id = win->ws->saveVariant(name, QString(), &error);
            QVERIFY2(id, qPrintable(error));
            ids.push_back(*id);
        }
        auto* view = win->ws->variantsView();
        view->selectVariants({ids[1], ids[2]});
        view->action("compare")->trigger();
        QDialog* window = win->ws->compareWindow();
        QVERIFY(window->isVisible());
        CompareView* c = win->ws->compareView();
        QCOMPARE(c->comparison().a, ids[1]);
        QCOMPARE(c->comparison().b, ids[2]);
        // Figures with B/A.
        QTableWidget* figures = c->figuresTable();
        QVERIFY(figures->rowCount() >= 8);
        QCOMPARE(figures->item(0, 0)->text(), QStringLiteral("cycles"));
        const auto a = *win->ws->workspace()->variant(ids[1])->figures;
        const auto b = *win->ws->workspace()->variant(ids[2])->figures;
        QCOMPARE(figures->item(0, 1)->text(), QLocale(QLocale::English).toString(qlonglong(a.cycles)));
        QCOMPARE(figures->item(0, 3)->text(), QStringLiteral("%1\u00d7").arg(double(b.cycles) / double(a.cycles), 0, 'f', 2));
        // Steps: the unrolled schedule adds compute_at, the double buffers and the unroll.
        QStringList steps;
        for (int i = 0; i < c->stepsList()->count(); ++i)
            steps << c->stepsList()->item(i)->text();
        QVERIFY2(steps.contains("+ unroll k"), qPrintable(steps.join("\n")));
        QVERIFY(steps.contains("= split i by 16"));
        // The nests: aligned line for line, the differing lines marked on both sides.
        QCOMPARE(c->nestA()->document()->blockCount(), c->nestB()->document()->blockCount());
        QVERIFY(c->markedLines(false) > 0);
        QVERIFY(c->markedLines(true) > 0);
        QVERIFY(c->nestB()->toPlainText().contains("// unrolled"));
        QVERIFY(!c->nestA()->toPlainText().contains("// unrolled"));
        // The chart: every variant with figures, A and B marked.
        QCOMPARE(c->scatter()->pointCount(), 3);
        // Swapping gives the inverse ratio; picking a point on the chart makes it B.
        QSignalSpy chosen(c, &CompareView::pairChosen);
        c->findChild<QPushButton*>("compareSwap")->click();
        QCOMPARE(c->comparison().a, ids[2]);
        c->scatter()->pointClicked(ids[0]);
        QCOMPARE(c->comparison().b, ids[0]);
        QCOMPARE(chosen.count(), 2);
    }

    void theChartsAxisLabelsAreReadableInTheScreenshotsWindow()
    {
        // The Compare window as the screenshot renders it (two thirds of 1440 x 900): no axis
        // title or tick label is cut to "...".
        const QString proj = m_tmp.path() + "/chart";
        makeProject(proj);
        auto win = makeWindow(m_tmp.path() + "/recovery-chart");
        QVERIFY(win->ws->createWorkspace(proj));
        std::vector<int64_t> ids;
        for (const char* name : {"naive", "matmul_1_tiled", "matmul_2_cached", "matmul_3_hoisted", "matmul_4_double_buffered", "matmul_5_unrolled",
                                 "matmul_6_written_back"}) {
            QVERIFY(win->w->openFile(proj + "/" + name + ".sched.yaml"));
            ids.push_back(*win->ws->saveVariant(name, QString()));
        }
        QVERIFY(win->ws->compare(ids[2], ids[5]));
        for (QSize size : {QSize(950, 720), QSize(1240, 720)}) {
            win->ws->compareWindow()->resize(size);
            for (int i = 0; i < 5; ++i)
                QCoreApplication::processEvents();
            (void)win->ws->compareWindow()->grab();
            const QStringList texts = win->ws->compareView()->scatter()->axisTexts();
            QVERIFY2(texts.contains("SRAM peak (KiB)"), qPrintable(texts.join(" | ")));
            QVERIFY2(texts.contains("M cycles (log)"), qPrintable(texts.join(" | ")));  // the naive variant: 24 M
            for (const QString& t : texts)
                QVERIFY2(!t.contains("...") && !t.contains(QChar(0x2026)), qPrintable(QStringLiteral("cut at %1x%2: ").arg(size.width()).arg(size.height()) + texts.join(" | ")));
            QVERIFY(texts.size() >= 6);  // titles and at least two ticks on each axis
        }
    }

    void everyUndoStackChangeIsJournaledAndANormalEndLeavesNothing()
    {
        const QString proj = m_tmp.path() + "/journal";
        makeProject(proj);
        QVERIFY(store::Workspace::create((proj + "/journal.loopscope-workspace").toStdString()).ok());
        auto win = makeWindow(m_tmp.path() + "/recovery-journal");
        QVERIFY(win->w->openFile(proj + "/matmul_1_tiled.sched.yaml"));
        EditJournal* journal = win->ws->journal();
        QCOMPARE(win->ws->journalPath(), win->ws->workspacePath());
        ScheduleDocument* doc = win->w->document();
        QVERIFY(!doc->applyStep(split("k", 8)));
        QVERIFY(!doc->applyStep(split("k.inner", 2)));
        doc->undoStack()->undo();
        doc->undoStack()->redo();
        const int session = doc->newMergeSession();
        sched::Step s = doc->steps()[0];
        s.factor = 8;
        QVERIFY(doc->editStep(0, s, session));
        s.factor = 4;
        QVERIFY(doc->editStep(0, s, session));  // merges into the previous command
        journal->flush();
        auto ws = store::Workspace::open(win->ws->workspacePath().toStdString(), {true, 2000});
        QVERIFY(ws.ok());
        auto sessions = (*ws)->journalSessions();
        QCOMPARE(sessions.size(), size_t(1));
        QCOMPARE(QString::fromStdString(sessions[0].document), QFileInfo(proj + "/matmul_1_tiled.sched.yaml").absoluteFilePath());
        const auto entries = (*ws)->journalEntries(sessions[0].id);
        QCOMPARE(entries.size(), size_t(6));
        QCOMPARE(entries[0].action, std::string("split k by 8"));
        QCOMPARE(entries[2].action, std::string("undo: split k.inner by 2"));
        QCOMPARE(entries[3].action, std::string("redo: split k.inner by 2"));
        QCOMPARE(entries[5].undoIndex, 3);
        QVERIFY(QString::fromStdString(entries[5].state).contains("split: {loop: i, factor: 4}"));
        // The journal replays to the stack the document has.
        const auto history = store::replayJournal(sessions[0].base, entries);
        QVERIFY(history.exact);
        QCOMPARE(history.index, doc->undoStack()->index());
        QCOMPARE(int(history.commands.size()), doc->undoStack()->count());
        QCOMPARE(QString::fromStdString(history.commands[2].action), doc->undoStack()->text(2));
        // Saving ends the session: the saved file is what a crash would leave.
        QVERIFY(win->w->saveTo(proj + "/matmul_1_tiled.sched.yaml"));
        journal->flush();
        QVERIFY((*ws)->journalSessions().empty());
        QVERIFY(!doc->applyStep(split("j.inner", 2)));
        journal->flush();
        QCOMPARE((*ws)->journalSessions().size(), size_t(1));
        // Closing the window (changes discarded) ends it too.
        QVERIFY(win->w->close());
        journal->flush();
        QVERIFY((*ws)->journalSessions().empty());
        QVERIFY((*ws)->integrityProblems().empty());
    }

    void aDocumentWithoutAWorkspaceIsJournaledInTheRecoveryFile()
    {
        const QString loose = m_tmp.path() + "/loose";
        makeProject(loose);
        const QString recovery = m_tmp.path() + "/recovery-loose";
        auto win = makeWindow(recovery);
        QVERIFY(win->w->openFile(loose + "/naive.sched.yaml"));
        QVERIFY(win->ws->workspacePath().isEmpty());
        QCOMPARE(win->ws->journalPath(), recovery + "/recovery.loopscope-workspace");
        QVERIFY(!win->w->document()->applyStep(split("i", 16)));
        win->ws->journal()->flush();
        auto ws = store::Workspace::open((recovery + "/recovery.loopscope-workspace").toStdString(), {true, 2000});
        QVERIFY(ws.ok());
        QCOMPARE((*ws)->journalSessions().size(), size_t(1));
        // Nothing was written into the schedule's folder.
        QStringList names = QDir(loose).entryList(QDir::Files);
        QVERIFY2(std::none_of(names.begin(), names.end(), [](const QString& n) { return n.contains("loopscope-workspace"); }), qPrintable(names.join(" ")));
        // A window that journals nothing (screenshots, most tests) writes no recovery file.
        MainWindow quiet(MainWindow::Options{false, false});
        QVERIFY(quiet.workspace()->journalPath().isEmpty());
    }

    void aJournalThatCannotBeWrittenSaysSoAndChangesNothing()
    {
        // The recovery file is garbage (a disk error, another program): the first edit says
        // that a crash would now lose the edits, once, and the file stays as it was.
        const QString loose = m_tmp.path() + "/badjournal";
        makeProject(loose);
        const QString recovery = m_tmp.path() + "/recovery-bad";
        QDir().mkpath(recovery);
        const QByteArray garbage(5000, 'x');
        QVERIFY(writeAll(recovery + "/recovery.loopscope-workspace", garbage));
        auto win = makeWindow(recovery);
        QVERIFY(win->w->openFile(loose + "/naive.sched.yaml"));
        QSignalSpy failed(win->ws->journal(), &EditJournal::writeFailed);
        QVERIFY(!win->w->document()->applyStep(split("i", 16)));
        QVERIFY(!win->w->document()->applyStep(split("j", 16)));
        win->ws->journal()->flush();
        QTRY_COMPARE(failed.count(), 1);
        QVERIFY(failed.front().front().toString().contains("not a Loopscope workspace"));
        QVERIFY2(win->w->statusBar()->currentMessage().contains("a crash now would lose the unsaved edits"), qPrintable(win->w->statusBar()->currentMessage()));
        QCOMPARE(readAll(recovery + "/recovery.loopscope-workspace"), garbage);
        QCOMPARE(QDir(recovery).entryList(QDir::Files), QStringList({"recovery.loopscope-workspace"}));
        QCOMPARE(win->w->document()->steps().size(), size_t(2));  // editing goes on
    }

    void killedWhileEditingTheNextStartRestoresTheUnsavedDocument()
    {
        // The app in a child process edits until it is killed with SIGKILL at a random moment;
        // the next start finds the session, says what it restores, and restores the document
        // with every journaled edit (at most the one in flight lost) and its undo history.
        const QString child = QCoreApplication::applicationDirPath() + "/gui_journal_child";
        QVERIFY(QFileInfo::exists(child));
        const QString proj = m_tmp.path() + "/crash-proj";
        const QString loose = m_tmp.path() + "/crash-loose";
        makeProject(proj);
        makeProject(loose);
        QVERIFY(store::Workspace::create((proj + "/crash-proj.loopscope-workspace").toStdString()).ok());
        const QString recovery = m_tmp.path() + "/recovery-crash";
        std::mt19937 rng(20261204);
        // LOOPSCOPE_CRASH_ROUNDS=200 for a longer hunt.
        const int kRounds = qEnvironmentVariableIntValue("LOOPSCOPE_CRASH_ROUNDS") > 0 ? qEnvironmentVariableIntValue("LOOPSCOPE_CRASH_ROUNDS") : 10;
        int restoredEdits = 0, restoredRounds = 0, inFlight = 0;
        for (int round = 0; round < kRounds; ++round) {
            // Half in a folder with a workspace, half journaled in the recovery file.
            const QString file = (round % 2 ? loose : proj) + (round % 4 < 2 ? "/naive.sched.yaml" : "/matmul_2_cached.sched.yaml");
            QProcess p;
            QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
            env.insert("QT_QPA_PLATFORM", "offscreen");
            env.insert("XDG_CONFIG_HOME", m_tmp.path() + "/child-config");
            p.setProcessEnvironment(env);
            p.start(child, {file, recovery, QString::number(round + 1)});
            QVERIFY2(p.waitForStarted(20000), qPrintable(p.errorString()));
            const qint64 childPid = p.processId();
            const int wanted = 3 + int(rng() % 30);
            struct Applied {
                int index = 0;
                int count = 0;
                QString steps;
            };
            std::map<int, Applied> applied;
            std::map<int, QString> states;   // printed before the journal hears of the edit
            int journaled = 0;
            QByteArray pending;
            auto readLines = [&] {
                pending += p.readAllStandardOutput();
                int nl;
                while ((nl = pending.indexOf('\n')) >= 0) {
                    const QString line = QString::fromUtf8(pending.left(nl));
                    pending.remove(0, nl + 1);
                    const QStringList f = line.split(' ');
                    if (f.value(0) == "state" && f.size() >= 3)
                        states[f[1].toInt()] = line.section(QLatin1Char(' '), 2);
                    else if (f.value(0) == "applied" && f.size() >= 5)
                        applied[f[1].toInt()] = {f[2].toInt(), f[3].toInt(), line.section(QLatin1Char(' '), 4)};
                    else if (f.value(0) == "journaled")
                        journaled = std::max(journaled, f[1].toInt());
                }
            };
            QElapsedTimer t;
            t.start();
            while (journaled < wanted && p.state() == QProcess::Running && t.elapsed() < 60000) {
                p.waitForReadyRead(200);
                readLines();
            }
            QVERIFY2(journaled >= wanted, qPrintable(QStringLiteral("round %1: the child stopped at %2 (%3)").arg(round).arg(journaled).arg(QString::fromUtf8(p.readAllStandardError()))));
            std::this_thread::sleep_for(std::chrono::microseconds(rng() % 3000));
            ::kill(pid_t(childPid), SIGKILL);
            QVERIFY(p.waitForFinished(20000));
            QCOMPARE(p.exitStatus(), QProcess::CrashExit);
            readLines();
            const int lastApplied = applied.empty() ? 0 : applied.rbegin()->first;
            QVERIFY2(lastApplied == journaled || lastApplied == journaled + 1, qPrintable(QStringLiteral("round %1: applied %2, journaled %3").arg(round).arg(lastApplied).arg(journaled)));

            // The next start: the schedule's folder is opened (its workspace is in use).
            auto win = makeWindow(recovery);
            QVERIFY(win->w->openFile(file));
            const auto found = win->ws->findRecoverable();
            // Undone back to the opened file: nothing unsaved, nothing offered. The child's
            // session then ends in a clean entry, its steps those of the file.
            const QString baseSteps = file.endsWith("naive.sched.yaml")
                ? QStringLiteral("-")
                : QStringLiteral("split i by 16|split j by 16|reorder i.outer, j.outer, i.inner, j.inner, k|cache_read A into SRAM at j.outer|cache_read B into SRAM at j.outer");
            if (found.empty()) {
                auto ws = store::Workspace::open((round % 2 ? recovery + "/recovery.loopscope-workspace" : proj + "/crash-proj.loopscope-workspace").toStdString(),
                                                 {true, 2000});
                QVERIFY(ws.ok());
                bool clean = false;
                for (const auto& s : (*ws)->journalSessions())
                    if (s.pid == childPid) {
                        const auto entries = (*ws)->journalEntries(s.id);
                        QVERIFY(!entries.empty());
                        clean = entries.back().clean && states[int(entries.back().seq)] == baseSteps;
                    }
                QVERIFY2(clean, qPrintable(QStringLiteral("round %1: nothing to restore after %2 edits").arg(round).arg(journaled)));
                continue;
            }
            QCOMPARE(found.size(), size_t(1));
            const auto& r = found.front();
            QCOMPARE(QString::fromStdString(r.what.session.document), QFileInfo(file).absoluteFilePath());
            // Restored: the state of the last journaled edit, or of the one after it if that
            // reached the file before the kill.
            const int expected = r.what.last.seq == journaled + 1 ? journaled + 1 : journaled;
            inFlight += expected != journaled;
            // The edit in flight may have reached the file before its "applied" line was
            // printed; its steps were printed before the journal heard of it.
            QVERIFY2(states.count(expected), qPrintable(QStringLiteral("round %1: no state line for edit %2").arg(round).arg(expected)));
            QVERIFY2(r.what.last.seq == journaled || r.what.last.seq == journaled + 1,
                     qPrintable(QStringLiteral("round %1: the journal's last entry is %2, %3 were reported").arg(round).arg(r.what.last.seq).arg(journaled)));
            const bool known = applied.count(expected) > 0;  // its index and stack size were printed
            const Applied want = known ? applied[expected] : Applied{r.changes, -1, states[expected]};
            QCOMPARE(want.steps, states[expected]);
            QVERIFY2(r.description.contains(QStringLiteral("%1 change").arg(want.index)), qPrintable(r.description));
            QVERIFY2(r.description.contains("the last "), qPrintable(r.description));
            QString error;
            QVERIFY2(win->ws->restore(r, &error), qPrintable(error));
            ScheduleDocument* doc = win->w->document();
            QCOMPARE(stepsText(*doc), want.steps);
            QCOMPARE(doc->undoStack()->index(), want.index);
            if (known)
                QCOMPARE(doc->undoStack()->count(), want.count);
            QCOMPARE(doc->filePath(), QFileInfo(file).absoluteFilePath());
            QCOMPARE(doc->isDirty(), want.index != 0);
            // Undoing everything gives the file as it was opened; redoing, the restored state.
            while (doc->undoStack()->canUndo())
                doc->undoStack()->undo();
            QCOMPARE(stepsText(*doc), baseSteps);
            doc->undoStack()->setIndex(want.index);
            QCOMPARE(stepsText(*doc), want.steps);
            restoredEdits += want.index;
            ++restoredRounds;
            // The workspace the journal was in is sound, and nothing else is left to restore.
            win->ws->journal()->flush();
            QVERIFY(win->ws->findRecoverable().empty());
            auto ws = store::Workspace::open(r.workspace.toStdString(), {true, 2000});
            QVERIFY(ws.ok());
            QVERIFY((*ws)->integrityProblems().empty());
            win->w->close();  // the restored changes are discarded: the session ends
        }
        qInfo("%d kills: %d documents restored (%d undo steps; %d with the edit that was in flight), the others undone to their file", kRounds,
              restoredRounds, restoredEdits, inFlight);
        QVERIFY(restoredRounds >= kRounds / 2);
    }

private:
    QTemporaryDir m_tmp;
};

QTEST_MAIN(TestWorkspaceApp)
#include "test_workspace_app.moc"
