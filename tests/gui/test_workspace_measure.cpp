// Schedule > Measure and the workspace: a count of the schedule stored as the document's variant
// is stored with that variant (the Variants dock and an open Compare window show it); a count
// of an edited schedule is not attached to the variant but goes with the next Save as variant;
// a count of an earlier schedule is never stored; a read-only workspace is left as it was. The
// measuring is replaced by a function that answers at once (and can be held back), and once
// done on qemu for real.
#include "codegen/measure.h"
#include "compare_view.h"
#include "store/variant_files.h"
#include "store/workspace.h"
#include "target_loader.h"
#include "workspace_app_support.h"

#include <QDockWidget>
#include <QFileInfo>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

#include <atomic>
#include <chrono>
#include <thread>

#include <pwd.h>
#include <unistd.h>

using namespace loopscope;
using namespace loopscope::ui;
using namespace loopscope::ui::wstest;

namespace {

/// Stands in for qemu: answers `count` instructions, after `hold` is released.
struct FakeQemu {
    std::atomic<long long> count{0};
    std::atomic<bool> hold{false};
    std::atomic<int> started{0};

    MainWindow::MeasureFunction function()
    {
        return [this](const lower::LoopNest&, const std::string& target) {
            ++started;
            while (hold)
                std::this_thread::sleep_for(std::chrono::milliseconds(2));
            codegen::Measurement m;
            codegen::detail::qemuCore(target, m);
            m.ok = true;
            m.kernelInstructions = count;
            m.copyInstructions = 17;
            m.compiler = "arm-none-eabi-gcc";
            m.compilerVersion = "12.2.1-test";
            return m;
        };
    }
};

/// Schedule > Measure, waiting for its result; the status bar's message after it.
QString measureAndWait(MainWindow* w, int timeoutMs = 30000)
{
    QSignalSpy finished(w, &MainWindow::measurementFinished);
    w->action("measure")->trigger();
    if (!QTest::qWaitFor([&] { return finished.count() > 0; }, timeoutMs))
        return QStringLiteral("<no result>");
    return w->statusBar()->currentMessage();
}

std::vector<store::Measurement> measurementsOf(WorkspaceController* ws, int64_t id)
{
    auto v = ws->workspace()->variant(id);
    return v ? v->measurements : std::vector<store::Measurement>();
}

/// The Compare window's row of a figure, column 1 (A) or 2 (B); "" when it has no such row.
QString compareCell(CompareView* c, const QString& figure, int column)
{
    QTableWidget* t = c->figuresTable();
    for (int r = 0; r < t->rowCount(); ++r)
        if (t->item(r, 0)->text() == figure)
            return t->item(r, column)->text();
    return QString();
}

QString number(long long n) { return QLocale(QLocale::English).toString(qlonglong(n)); }

} // namespace

class TestWorkspaceMeasure : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("LoopscopeTest"));
        QCoreApplication::setApplicationName(QStringLiteral("test_gui_workspace_measure"));
        QSettings().clear();
        QVERIFY(m_tmp.isValid());
    }

    void aCountOfTheSavedScheduleIsStoredWithItsVariant()
    {
        const QString proj = m_tmp.path() + "/measure";
        makeProject(proj);
        auto win = makeWindow(m_tmp.path() + "/recovery-measure");
        FakeQemu qemu;
        win->w->setMeasureFunction(qemu.function());
        QVERIFY(win->ws->createWorkspace(proj));
        // A variant measured as `workspace add --measure` does, to compare with.
        QVERIFY(win->w->openFile(proj + "/naive.sched.yaml"));
        const auto naive = win->ws->saveVariant("naive", QString());
        QVERIFY(naive);
        store::Measurement cli;
        cli.variantId = *naive;
        cli.machine = "qemu mps2-an500 (Cortex-M7)";
        cli.compiler = "arm-none-eabi-gcc";
        cli.compilerVersion = "12.2.1";
        cli.instructions = 40000000;
        QVERIFY(win->ws->workspace()->addMeasurement(cli).ok());
        // Another file opened: the document is no variant until it is saved as one.
        QVERIFY(win->w->openFile(proj + "/matmul_2_cached.sched.yaml"));
        QVERIFY(!win->ws->currentVariant());
        const auto cached = win->ws->saveVariant("cached", QString());
        QVERIFY(cached);
        auto* view = win->ws->variantsView();
        win->w->dock("variantsDock")->raise();
        QCOMPARE(cell(view, "cached", VariantsModel::Measured), QStringLiteral("-"));
        QVERIFY(win->ws->compare(*cached, *naive));
        CompareView* compare = win->ws->compareView();
        QCOMPARE(compareCell(compare, "measured instructions", 1), QString());  // one side has none yet

        // 1. The schedule saved as "cached": the count is stored with it, with the machine, the
        // compiler and its version and this project version; the dock and the Compare window
        // show it at once.
        qemu.count = 123456;
        QString status = measureAndWait(win->w.get());
        QVERIFY2(status.contains("Measured on qemu mps2-an500 (Cortex-M7): 123,456 instructions"), qPrintable(status));
        QVERIFY2(status.contains("Stored with the variant cached in measure.loopscope-workspace"), qPrintable(status));
        auto ms = measurementsOf(win->ws, *cached);
        QCOMPARE(ms.size(), size_t(1));
        QCOMPARE(ms[0].instructions, int64_t(123456));
        QCOMPARE(QString::fromStdString(ms[0].machine), QStringLiteral("qemu mps2-an500 (Cortex-M7)"));
        QCOMPARE(QString::fromStdString(ms[0].compiler), QStringLiteral("arm-none-eabi-gcc"));
        QCOMPARE(QString::fromStdString(ms[0].compilerVersion), QStringLiteral("12.2.1-test"));
        QCOMPARE(ms[0].projectVersion, store::projectVersion());
        QVERIFY(ms[0].measuredAt > 0);
        QCOMPARE(cell(view, "cached", VariantsModel::Measured), number(123456));
        // In view, although the dock is narrower than its columns.
        QModelIndex measuredCell;
        for (int r = 0; r < view->table()->model()->rowCount(); ++r)
            if (view->table()->model()->index(r, VariantsModel::Name).data().toString() == "cached")
                measuredCell = view->table()->model()->index(r, VariantsModel::Measured);
        QTRY_VERIFY(view->table()->viewport()->rect().contains(view->table()->visualRect(measuredCell)));
        QCOMPARE(compareCell(compare, "measured instructions", 1), number(123456));
        QCOMPARE(compareCell(compare, "measured instructions", 2), number(40000000));

        // 2. An edit: the count describes another schedule than the variant's. It is not
        // attached to "cached"; saving the schedule as a variant stores it with the new one.
        QVERIFY(!win->w->document()->applyStep(split("k", 8)));
        qemu.count = 98765;
        status = measureAndWait(win->w.get());
        QVERIFY2(status.contains("Not stored with the variant cached: the schedule differs from the variant as saved"), qPrintable(status));
        QCOMPARE(measurementsOf(win->ws, *cached).size(), size_t(1));
        QCOMPARE(cell(view, "cached", VariantsModel::Measured), number(123456));
        const auto k8 = win->ws->saveVariant("cached-k8", QString());
        QVERIFY(k8);
        QVERIFY2(win->w->statusBar()->currentMessage().contains("with its measured count (98,765 instructions)"), qPrintable(win->w->statusBar()->currentMessage()));
        ms = measurementsOf(win->ws, *k8);
        QCOMPARE(ms.size(), size_t(1));
        QCOMPARE(ms[0].instructions, int64_t(98765));
        QCOMPARE(QString::fromStdString(ms[0].compilerVersion), QStringLiteral("12.2.1-test"));
        QCOMPARE(cell(view, "cached-k8", VariantsModel::Measured), number(98765));

        // 3. A variant opened, edited and undone back to what was stored: its own schedule.
        QVERIFY(win->ws->openVariant(*cached));
        QVERIFY(!win->w->document()->applyStep(split("k", 4)));
        win->w->document()->undoStack()->undo();
        qemu.count = 123000;
        status = measureAndWait(win->w.get());
        QVERIFY2(status.contains("Stored with the variant cached"), qPrintable(status));
        ms = measurementsOf(win->ws, *cached);
        QCOMPARE(ms.size(), size_t(2));
        QCOMPARE(ms[0].instructions, int64_t(123000));  // newest first: the dock shows the newest
        QCOMPARE(cell(view, "cached", VariantsModel::Measured), number(123000));

        // 4. The schedule changes while the count is taken: the count describes an earlier
        // schedule and is stored nowhere, neither now nor by the next Save as variant.
        qemu.hold = true;
        const int before = qemu.started;
        QSignalSpy finished(win->w.get(), &MainWindow::measurementFinished);
        win->w->action("measure")->trigger();
        QVERIFY(QTest::qWaitFor([&] { return qemu.started > before; }, 10000));
        QVERIFY(!win->w->document()->applyStep(split("k", 2)));
        qemu.count = 555;
        qemu.hold = false;
        QVERIFY(QTest::qWaitFor([&] { return finished.count() > 0; }, 30000));
        QCOMPARE(finished.front().at(0).toBool(), false);
        QVERIFY2(win->w->statusBar()->currentMessage().startsWith("Measurement dropped"), qPrintable(win->w->statusBar()->currentMessage()));
        QCOMPARE(measurementsOf(win->ws, *cached).size(), size_t(2));
        const auto k2 = win->ws->saveVariant("cached-k2", QString());
        QVERIFY(k2);
        QVERIFY(measurementsOf(win->ws, *k2).empty());
        QCOMPARE(cell(view, "cached-k2", VariantsModel::Measured), QStringLiteral("-"));

        // 5. A schedule that is no variant (a file opened) in a folder with a workspace: not
        // stored, and the status bar says how to keep it.
        QVERIFY(win->w->openFile(proj + "/matmul_5_unrolled.sched.yaml"));
        status = measureAndWait(win->w.get());
        QVERIFY2(status.contains("Not stored in the workspace: the schedule is not a variant of measure.loopscope-workspace"), qPrintable(status));
        QCOMPARE(int(win->ws->workspace()->variants().size()), 4);
        QVERIFY(win->ws->workspace()->integrityProblems().empty());
    }

    void aReadOnlyWorkspaceIsLeftAsItWas()
    {
        // A workspace the user may not write, with a variant in it.
        const QString proj = m_tmp.path() + "/ro";
        makeProject(proj);
        const QString path = proj + "/ro.loopscope-workspace";
        int64_t id = 0;
        {
            auto ws = store::Workspace::create(path.toStdString());
            QVERIFY(ws.ok());
            auto v = store::variantFromScheduleFile((proj + "/matmul_2_cached.sched.yaml").toStdString(),
                                                    [](const std::string& t, const std::string& p) { return hw::parseTarget(t, p); },
                                                    [](const std::string& n) { return hw::builtinTargetText(n); });
            QVERIFY(v.ok());
            id = *(*ws)->addVariant(*v);
        }
        const QByteArray bytes = readAll(path);
        auto win = makeWindow(QString());  // no journal: nothing of the app's own is written
        FakeQemu qemu;
        qemu.count = 4242;
        win->w->setMeasureFunction(qemu.function());
        QString error;
        QVERIFY2(openUnwritable(win->ws, proj, path, &error), qPrintable(error));
        QVERIFY(win->ws->isReadOnly());
        QVERIFY2(win->ws->openVariant(id, &error), qPrintable(error));
        const QString status = measureAndWait(win->w.get());
        QVERIFY2(status.contains("Measured on qemu mps2-an500 (Cortex-M7): 4,242 instructions"), qPrintable(status));
        QVERIFY2(status.contains("Not stored in the workspace: ro.loopscope-workspace is read-only"), qPrintable(status));
        QCOMPARE(cell(win->ws->variantsView(), "matmul_2_cached", VariantsModel::Measured), QStringLiteral("-"));
        win.reset();
        QCOMPARE(readAll(path), bytes);
        QVERIFY(!QFileInfo::exists(path + "-wal"));
        auto ws = store::Workspace::open(path.toStdString(), {true, 2000});
        QVERIFY(ws.ok());
        QVERIFY((*ws)->variant(id)->measurements.empty());
    }

    void aCountOnQemuIsStoredWithTheCompilerThatBuiltIt()
    {
        // The real thing once: export, build with arm-none-eabi-gcc, count on qemu.
        const QString proj = m_tmp.path() + "/qemu";
        makeProject(proj);
        auto win = makeWindow(m_tmp.path() + "/recovery-qemu");
        QVERIFY(win->ws->createWorkspace(proj));
        QVERIFY(win->w->openFile(proj + "/matmul_5_unrolled.sched.yaml"));
        const auto id = win->ws->saveVariant("unrolled", QString());
        QVERIFY(id);
        win->w->dock("variantsDock")->raise();
        const QString status = measureAndWait(win->w.get(), 300000);
        QVERIFY2(status.contains("Stored with the variant unrolled"), qPrintable(status));
        const auto ms = measurementsOf(win->ws, *id);
        QCOMPARE(ms.size(), size_t(1));
        QVERIFY2(status.contains(QStringLiteral("%1 instructions in the kernel").arg(number(ms[0].instructions))), qPrintable(status));
        // 64 x 64 x 64 MACs, each a load, a multiply-add and more: a count outside one to
        // eight instructions per MAC is a broken count (it is 3.7).
        QVERIFY2(ms[0].instructions > 262144 && ms[0].instructions < 8 * 262144, qPrintable(number(ms[0].instructions)));
        QCOMPARE(QString::fromStdString(ms[0].compiler), QStringLiteral("arm-none-eabi-gcc"));
        QCOMPARE(ms[0].compilerVersion, codegen::armCompilerVersion());
        QVERIFY(ms[0].compilerVersion != "unknown");
        QCOMPARE(cell(win->ws->variantsView(), "unrolled", VariantsModel::Measured), number(ms[0].instructions));
    }

private:
    /// Opens the workspace at `path` as a user who may not write it. Root may write any file,
    /// so as root the process is user nobody while it opens the file (and root again after);
    /// otherwise the file and its folder are made read-only for the open.
    bool openUnwritable(WorkspaceController* ws, const QString& folder, const QString& path, QString* error)
    {
        if (geteuid() != 0) {
            const auto fileMode = QFile(path).permissions();
            const auto folderMode = QFile(folder).permissions();
            QFile(path).setPermissions(QFileDevice::ReadOwner | QFileDevice::ReadGroup | QFileDevice::ReadOther);
            QFile(folder).setPermissions(QFileDevice::ReadOwner | QFileDevice::ExeOwner | QFileDevice::ReadGroup | QFileDevice::ExeGroup);
            const bool ok = ws->openWorkspace(path, error);
            QFile(path).setPermissions(fileMode);
            QFile(folder).setPermissions(folderMode);
            return ok;
        }
        const passwd* nobody = getpwnam("nobody");
        if (!nobody) {
            *error = QStringLiteral("no user nobody");
            return false;
        }
        // nobody (in root's group still) must reach the file: the test's temporary folder is
        // root's alone.
        for (QString dir = folder; dir.startsWith(m_tmp.path()); dir = QFileInfo(dir).absolutePath())
            QFile(dir).setPermissions(QFile(dir).permissions() | QFileDevice::ReadGroup | QFileDevice::ExeGroup | QFileDevice::ReadOther
                                      | QFileDevice::ExeOther);
        if (setresuid(nobody->pw_uid, nobody->pw_uid, 0) != 0) {
            *error = QStringLiteral("cannot become nobody");
            return false;
        }
        const bool ok = ws->openWorkspace(path, error);
        if (setresuid(0, 0, 0) != 0)
            qFatal("cannot become root again");
        return ok;
    }
    QTemporaryDir m_tmp;
};

QTEST_MAIN(TestWorkspaceMeasure)
#include "test_workspace_measure.moc"
