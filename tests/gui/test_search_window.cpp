// Schedule > Search... in the main window: it opens the search window on the document's
// schedule; a clicked point becomes the document's steps as one undoable edit.
#include "main_window.h"
#include "schedule_document.h"
#include "search_panel.h"

#include <QDialog>
#include <QElapsedTimer>
#include <QMessageBox>
#include <QSignalSpy>
#include <QTest>
#include <QUndoStack>

using namespace loopscope;
using namespace loopscope::ui;

class TestSearchWindow : public QObject {
    Q_OBJECT
private slots:
    void searchOpensAPointUndoably()
    {
        MainWindow w(MainWindow::Options{false, false});
        w.setSavePrompt([](const QString&) { return int(QMessageBox::Discard); });
        w.show();
        QVERIFY(w.document()->openSchedule(QStringLiteral(LOOPSCOPE_SOURCE_DIR "/examples/schedules/matmul_int8_naive.sched.yaml")));
        const std::vector<sched::Step> before = w.document()->steps();
        QAction* search = w.action(QStringLiteral("search"));
        QVERIFY(search);
        QCOMPARE(search->text(), QStringLiteral("&Search..."));
        search->trigger();
        auto* dialog = w.findChild<QDialog*>(QStringLiteral("searchWindow"));
        QVERIFY(dialog && dialog->isVisible());
        auto* panel = dialog->findChild<SearchPanel*>();
        QVERIFY(panel);
        panel->setBudget(128);
        QSignalSpy finished(panel, &SearchPanel::finished);
        QVERIFY(panel->start());
        QElapsedTimer t;
        t.start();
        while (panel->isRunning() && t.elapsed() < 120000)
            finished.wait(100);
        QVERIFY(!panel->isRunning());
        QVERIFY(panel->front().size() >= 2);
        const int undoBefore = w.document()->undoStack()->count();
        QCOMPARE(panel->keptSteps(), 0);   // the naive schedule has no steps
        QVERIFY(!panel->front()[0].trace.empty());
        panel->openPoint(0);
        QCOMPARE(w.document()->undoStack()->count(), undoBefore + 1);
        QVERIFY(w.document()->steps() == panel->front()[0].trace);
        // The opened point starts with the steps the search kept (none): "Keep first steps"
        // stays as it was, so that the next search goes on from the point (it jumped to all
        // of the point's steps).
        QCOMPARE(panel->keptSteps(), 0);
        QVERIFY(w.document()->undoStack()->undoText().startsWith("open search point"));
        w.action(QStringLiteral("undo"))->trigger();
        QVERIFY(w.document()->steps() == before);
        QCOMPARE(panel->keptSteps(), 0);
        // The same when the document rebuilds on a worker (a schedule that took 100 ms or more):
        // the new program reaches the panel after the request returned.
        w.document()->setAsyncThresholdMs(0);
        QSignalSpy changed(w.document(), &ScheduleDocument::changed);
        panel->openPoint(1);
        QVERIFY(w.document()->steps() == panel->front()[1].trace);
        QTRY_VERIFY(!changed.isEmpty() && w.document()->snapshot().program->trace == panel->front()[1].trace);
        QCOMPARE(panel->keptSteps(), 0);
        w.action(QStringLiteral("undo"))->trigger();
        QTRY_VERIFY(w.document()->snapshot().program->trace == before);
        // The same action raises the same window.
        search->trigger();
        QCOMPARE(w.findChildren<QDialog*>(QStringLiteral("searchWindow")).size(), 1);
    }
};

QTEST_MAIN(TestSearchWindow)
#include "test_search_window.moc"
