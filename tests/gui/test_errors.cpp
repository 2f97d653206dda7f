// The app when something goes wrong inside it (issue 16, item 2): a kernel the export could
// not name is refused when opened and the open schedule stays; an exception in an action, in
// the measuring worker or in the background rebuild becomes a message, and the schedule with
// its unsaved edits is kept and can be saved; one that escapes an event handler reaches the
// application object (GuardedApplication), which reports it instead of ending the program.
#include "charts/cost_view.h"
#include "guarded_application.h"
#include "loop_nest_view.h"
#include "main_window.h"
#include "schedule_document.h"

#include "sched/schedule_file.h"

#include <QMessageBox>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTimer>
#include <QUndoStack>
#include <QtTest>

#include <memory>
#include <stdexcept>

using namespace loopscope;
using namespace loopscope::ui;

namespace {
QString source(const QString& rel) { return QStringLiteral(LOOPSCOPE_SOURCE_DIR "/") + rel; }
QString example(const QString& name) { return source("examples/schedules/" + name); }

std::unique_ptr<MainWindow> makeWindow(QStringList* internalErrors)
{
    auto w = std::make_unique<MainWindow>(MainWindow::Options{false, false});
    w->setSavePrompt([](const QString&) { return int(QMessageBox::Discard); });
    w->setPathPrompt([](MainWindow::Prompt, const QString&) { return QString(); });
    w->setReplacePrompt([](const QString&, const QStringList&) { return false; });
    w->setDescriptionPrompt([](const QString&) { return MainWindow::DescriptionAnswer::Keep; });
    w->setInternalErrorSink([internalErrors](const QString& text) { internalErrors->append(text); });
    w->resize(1400, 900);
    w->show();
    QCoreApplication::processEvents();
    return w;
}

/// Splits loop `loop` of the open schedule through the loop-nest view: an unsaved edit.
void split(MainWindow& w, const QString& loop, int factor)
{
    QVERIFY(w.loopNestView()->selectLoop(loop));
    w.loopNestView()->factorBox()->setValue(factor);
    w.loopNestView()->action(LoopNestView::Split)->trigger();
}

/// An object whose every event throws: a bug in some handler.
class Thrower : public QObject {
public:
    bool event(QEvent* e) override
    {
        if (e->type() == QEvent::User)
            throw std::runtime_error("a handler failed");
        return QObject::event(e);
    }
};

} // namespace

class TestErrors : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("LoopscopeTest"));
        QCoreApplication::setApplicationName(QStringLiteral("test_gui_errors"));
    }

    // Kernels named main, startup or a C keyword made Export with harness and Measure throw
    // from the harness writer and end the app. They are refused when opened, with the line,
    // and the schedule open before, with its unsaved edit, stays.
    void aKernelTheExportCannotNameIsRefusedAndTheOpenScheduleStays()
    {
        QStringList internal;
        auto w = makeWindow(&internal);
        QVERIFY(w->openFile(example("matmul_f32_naive.sched.yaml")));
        split(*w, "i", 8);
        QVERIFY(w->document()->isDirty());
        QTemporaryDir tmp;
        for (const char* name : {"main", "startup", "int", "static"}) {
            const QString path = tmp.filePath(QStringLiteral("%1.kernel.yaml").arg(name));
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(QStringLiteral("name: %1\nparams: {M: 4}\ntensors:\n  A: {shape: [M], dtype: float32}\n  B: {shape: [M], dtype: float32}\n"
                                   "stages:\n  - compute: \"B[i] = A[i] * 2\"\n")
                        .arg(name)
                        .toUtf8());
            f.close();
            QString error;
            QVERIFY(!w->openFile(path, &error));
            QVERIFY2(error.contains(path + QStringLiteral(":1:7: error: kernel name '%1' ").arg(name)), qPrintable(error));
            QCOMPARE(w->document()->steps().size(), size_t(1));
            QVERIFY(w->document()->isDirty());
        }
        QVERIFY(internal.isEmpty());
    }

    // The measuring worker: an exception there becomes the measurement's message.
    void anExceptionWhileMeasuringBecomesTheMessage()
    {
        QStringList internal;
        auto w = makeWindow(&internal);
        QVERIFY(w->openFile(example("matmul_int8_dsp.sched.yaml")));
        w->setMeasureFunction([](const lower::LoopNest&, const std::string&) -> codegen::Measurement {
            throw std::invalid_argument("harness: kernel name 'main' is used by the export harness");
        });
        QSignalSpy finished(w.get(), &MainWindow::measurementFinished);
        w->action("measure")->trigger();
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 30000);
        const QString text = finished.at(0).at(1).toString();
        QCOMPARE(text, QStringLiteral("Not measured: internal error: harness: kernel name 'main' is used by the export harness"));
        QCOMPARE(w->costView()->measurementText(), text);
        QVERIFY(internal.isEmpty());
    }

    // A menu action that throws (here its file prompt): a message naming the action; the
    // schedule and its edits stay, and saving them works.
    void anActionThatThrowsReportsItAndKeepsTheEdits()
    {
        QStringList internal;
        auto w = makeWindow(&internal);
        QVERIFY(w->openFile(example("matmul_f32_naive.sched.yaml")));
        split(*w, "j", 4);
        w->setPathPrompt([](MainWindow::Prompt, const QString&) -> QString { throw std::runtime_error("the file dialog failed"); });
        for (const char* action : {"export", "exportHarness", "saveAs", "open"}) {
            internal.clear();
            w->action(action)->trigger();
            QCOMPARE(internal.size(), 1);
            QVERIFY2(internal[0].contains("stopped: internal error: the file dialog failed."), qPrintable(internal[0]));
            QVERIFY2(internal[0].contains("The schedule and its unsaved changes are as they were"), qPrintable(internal[0]));
            QCOMPARE(w->document()->steps().size(), size_t(1));
            QVERIFY(w->document()->isDirty());
        }
        QVERIFY2(internal[0].startsWith("Open schedule stopped"), qPrintable(internal[0]));
        QTemporaryDir tmp;
        QString error;
        QVERIFY2(w->saveTo(tmp.filePath("kept.sched.yaml"), &error), qPrintable(error));
        auto saved = sched::loadScheduleFile(tmp.filePath("kept.sched.yaml").toStdString());
        QVERIFY(saved.ok());
        QCOMPARE(saved->steps.size(), size_t(1));
    }

    // The rebuild after an edit (on the GUI thread or the worker): an exception in lowering
    // shows the program without the step, marks the step with the reason, and keeps the steps.
    void anExceptionInTheRebuildMarksTheStepAndKeepsTheTrace()
    {
        for (const bool async : {false, true}) {
            QStringList internal;
            auto w = makeWindow(&internal);
            QVERIFY(w->openFile(example("matmul_f32_naive.sched.yaml")));
            ScheduleDocument* doc = w->document();
            doc->setAsyncThresholdMs(async ? 0 : 1e9);
            doc->setBuildHook([](const sched::Program& p) {
                if (p.trace.size() >= 2)
                    throw std::runtime_error("lowering failed");
            });
            split(*w, "i", 8);
            QTRY_VERIFY(!doc->isRebuilding());
            QVERIFY(!doc->snapshot().failedStep);
            split(*w, "j", 4);
            QTRY_VERIFY_WITH_TIMEOUT(!doc->isRebuilding() && doc->snapshot().failedStep.has_value(), 10000);
            const sched::ScheduleError& e = *doc->snapshot().failedStep;
            QCOMPARE(e.stepIndex, 1);
            QCOMPARE(QString::fromStdString(e.message),
                     QStringLiteral("internal error: lowering failed while lowering, analysing or generating the code of this step"));
            QCOMPARE(doc->steps().size(), size_t(2));
            QCOMPARE(doc->snapshot().program->trace.size(), size_t(1));
            QVERIFY(doc->snapshot().nest && doc->snapshot().report);
            QVERIFY(doc->isDirty());
            // Undo goes back to a schedule that builds.
            doc->undoStack()->undo();
            QTRY_VERIFY_WITH_TIMEOUT(!doc->isRebuilding() && !doc->snapshot().failedStep, 10000);
            QCOMPARE(doc->snapshot().program->trace.size(), size_t(1));
            QVERIFY(internal.isEmpty());
        }
    }

    // What escapes every guard reaches the application object, which reports it and goes on.
    void theApplicationReportsAnExceptionFromAnyHandler()
    {
        auto* app = dynamic_cast<GuardedApplication*>(QCoreApplication::instance());
        QVERIFY(app);
        QStringList reports;
        app->setReportSink([&](const QString& text) { reports << text; });
        Thrower thrower;
        QCoreApplication::postEvent(&thrower, new QEvent(QEvent::User));
        QTimer::singleShot(0, [] { throw std::out_of_range("a slot failed"); });
        QTRY_COMPARE(reports.size(), 2);
        QVERIFY2(reports[0].contains("The last action stopped: internal error: a handler failed."), qPrintable(reports[0]));
        QVERIFY2(reports[1].contains("internal error: a slot failed"), qPrintable(reports[1]));
        QVERIFY(reports[1].contains("The schedule and its unsaved changes are kept"));
        app->setReportSink({});
    }
};

int main(int argc, char** argv)
{
    GuardedApplication app(argc, argv);
    TestErrors test;
    return QTest::qExec(&test, argc, argv);
}

#include "test_errors.moc"
