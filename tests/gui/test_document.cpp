// ScheduleDocument: opening, every edit as an undoable command, failing steps, merging of
// spin-box drags, the dirty flag, save/load round-trips, target switching and reloading.
#include "document_commands.h"
#include "lower/loop_nest.h"
#include "schedule_document.h"
#include "step_text.h"

#include <QDir>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QScopeGuard>
#include <QSemaphore>
#include <QThreadPool>
#include <QUndoStack>
#include <QtTest>

using namespace loopscope;
using loopscope::ui::ScheduleDocument;

namespace {
QString source(const QString& rel) { return QStringLiteral(LOOPSCOPE_SOURCE_DIR "/") + rel; }
QString tiledMatmul() { return source("examples/schedules/matmul_f32_tiled.sched.yaml"); }

std::string nestText(const ScheduleDocument& d) { return lower::print(*d.snapshot().nest); }

sched::Step step(sched::Primitive p, std::vector<std::string> loops = {}, int64_t factor = 0)
{
    sched::Step s;
    s.primitive = p;
    s.loops = std::move(loops);
    s.factor = factor;
    return s;
}

QByteArray readAll(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}
} // namespace

class TestDocument : public QObject {
    Q_OBJECT
private slots:
    void opensAScheduleAndBuildsEverything()
    {
        ScheduleDocument doc;
        QSignalSpy changed(&doc, &ScheduleDocument::changed);
        QString error;
        QVERIFY2(doc.openSchedule(tiledMatmul(), &error), qPrintable(error));
        QCOMPARE(changed.count(), 1);
        QCOMPARE(doc.steps().size(), size_t(5));
        QVERIFY(!doc.isDirty());
        const auto& s = doc.snapshot();
        QVERIFY(!s.empty());
        QCOMPARE(s.program->trace.size(), size_t(5));
        QVERIFY(!s.failedStep);
        QVERIFY(s.report && s.report->macs == 64 * 64 * 64);
        QVERIFY(QString::fromStdString(s.code()).contains("void matmul_f32("));
        QCOMPARE(doc.target(), QString("cortex-m7"));
        QVERIFY(doc.kernelPath().endsWith("examples/kernels/matmul_f32.kernel.yaml"));
    }

    void openErrorsNameTheFile()
    {
        ScheduleDocument doc;
        QString error;
        QVERIFY(!doc.openSchedule(source("examples/schedules/missing.sched.yaml"), &error));
        QVERIFY(error.contains("missing.sched.yaml"));
        QVERIFY(!doc.isOpen());
    }

    void applyUndoRedo()
    {
        ScheduleDocument doc;
        QVERIFY(doc.openSchedule(tiledMatmul()));
        const std::string before = nestText(doc);
        const int rev = doc.snapshot().revision;
        QSignalSpy changed(&doc, &ScheduleDocument::changed);
        QVERIFY(!doc.applyStep(step(sched::Primitive::Unroll, {"j.inner"})));
        QCOMPARE(changed.count(), 1);
        QCOMPARE(doc.steps().size(), size_t(6));
        QVERIFY(doc.snapshot().revision > rev);
        QVERIFY(doc.isDirty());
        QVERIFY(nestText(doc).find("// unrolled") != std::string::npos);
        QCOMPARE(doc.undoStack()->undoText(), QString("unroll j.inner"));
        doc.undoStack()->undo();
        QCOMPARE(changed.count(), 2);
        QCOMPARE(nestText(doc), before);
        QVERIFY(!doc.isDirty());
        doc.undoStack()->redo();
        QCOMPARE(doc.steps().size(), size_t(6));
        QVERIFY(doc.isDirty());
    }

    void failingNewStepChangesNothing()
    {
        ScheduleDocument doc;
        QVERIFY(doc.openSchedule(tiledMatmul()));
        const std::string before = nestText(doc);
        const int rev = doc.snapshot().revision;
        QSignalSpy changed(&doc, &ScheduleDocument::changed);
        QSignalSpy rejected(&doc, &ScheduleDocument::stepRejected);
        auto error = doc.applyStep(step(sched::Primitive::Split, {"nope"}, 4));
        QVERIFY(error);
        QVERIFY(QString::fromStdString(error->message).contains("nope"));
        QCOMPARE(error->stepIndex, 5);
        QCOMPARE(rejected.count(), 1);
        QCOMPARE(changed.count(), 0);
        QCOMPARE(doc.steps().size(), size_t(5));
        QCOMPARE(doc.undoStack()->count(), 0);
        QCOMPARE(doc.snapshot().revision, rev);
        QCOMPARE(nestText(doc), before);
        QVERIFY(!doc.isDirty());
        QVERIFY(doc.lastRejected());
        // vectorize of a loop that is not innermost: a precondition, not a name
        error = doc.applyStep(step(sched::Primitive::Vectorize, {"i.outer"}));
        QVERIFY(error);
        QCOMPARE(nestText(doc), before);
    }

    void removingAStepMarksTheFirstFailingOne()
    {
        ScheduleDocument doc;
        QVERIFY(doc.openSchedule(tiledMatmul()));
        QVERIFY(doc.removeStep(0));  // split i: the reorder of i.outer now fails
        QCOMPARE(doc.steps().size(), size_t(4));
        const auto& s = doc.snapshot();
        QVERIFY(s.failedStep);
        QCOMPARE(s.failedStep->stepIndex, 1);
        QCOMPARE(s.failedStep->primitive, sched::Primitive::Reorder);
        QVERIFY(QString::fromStdString(s.failedStep->message).contains("i.outer"));
        QCOMPARE(s.program->trace.size(), size_t(1));  // steps after the failing one are not applied
        doc.undoStack()->undo();
        QVERIFY(!doc.snapshot().failedStep);
        QCOMPARE(doc.snapshot().program->trace.size(), size_t(5));
    }

    void newStepGoesBeforeTheFailingStep()
    {
        ScheduleDocument doc;
        QVERIFY(doc.openSchedule(tiledMatmul()));
        QVERIFY(doc.removeStep(0));
        QVERIFY(doc.snapshot().failedStep);
        // Putting the split back in front of the failing reorder repairs the trace.
        QVERIFY(!doc.applyStep(step(sched::Primitive::Split, {"i"}, 16)));
        QCOMPARE(doc.steps().size(), size_t(5));
        QCOMPARE(doc.steps()[1].primitive, sched::Primitive::Split);
        QCOMPARE(doc.steps()[2].primitive, sched::Primitive::Reorder);
        QVERIFY(!doc.snapshot().failedStep);
    }

    void moveStep()
    {
        ScheduleDocument doc;
        QVERIFY(doc.openSchedule(tiledMatmul()));
        QVERIFY(doc.moveStep(3, 4));  // the two cache_reads swap: still valid
        QCOMPARE(doc.steps()[3].tensor, std::string("B"));
        QVERIFY(!doc.snapshot().failedStep);
        QVERIFY(doc.moveStep(2, 0));  // reorder before the splits: fails at once
        QVERIFY(doc.snapshot().failedStep);
        QCOMPARE(doc.snapshot().failedStep->stepIndex, 0);
        QVERIFY(!doc.moveStep(0, 0));
        QVERIFY(!doc.moveStep(0, 9));
        doc.undoStack()->undo();
        doc.undoStack()->undo();
        QCOMPARE(doc.steps()[3].tensor, std::string("A"));
        QVERIFY(!doc.isDirty());
    }

    void spinBoxDragIsOneUndoEntry()
    {
        ScheduleDocument doc;
        QVERIFY(doc.openSchedule(tiledMatmul()));
        const int session = doc.newMergeSession();
        for (int64_t f : {15, 14, 13, 12, 8}) {
            sched::Step s = doc.steps()[0];
            s.factor = f;
            QVERIFY(doc.editStep(0, s, session));
            QCOMPARE(doc.snapshot().program->stages[0].vars[doc.snapshot().program->stages[0].findVar("i.inner")].extent, f);
        }
        QCOMPARE(doc.undoStack()->count(), 1);
        QCOMPARE(doc.undoStack()->undoText(), QString("edit step 1: split i by 8"));
        // another drag is another entry
        const int next = doc.newMergeSession();
        sched::Step s = doc.steps()[0];
        s.factor = 4;
        QVERIFY(doc.editStep(0, s, next));
        QCOMPARE(doc.undoStack()->count(), 2);
        doc.undoStack()->undo();
        QCOMPARE(doc.steps()[0].factor, int64_t(8));
        doc.undoStack()->undo();
        QCOMPARE(doc.steps()[0].factor, int64_t(16));
        QVERIFY(!doc.isDirty());
        // edits without a session never merge
        s.factor = 2;
        QVERIFY(doc.editStep(0, s));
        s.factor = 4;
        QVERIFY(doc.editStep(0, s));
        QCOMPARE(doc.undoStack()->count(), 2);
    }

    void dragBackToTheStartLeavesNoEntry()
    {
        ScheduleDocument doc;
        QVERIFY(doc.openSchedule(tiledMatmul()));
        const int session = doc.newMergeSession();
        sched::Step s = doc.steps()[0];
        s.factor = 8;
        QVERIFY(doc.editStep(0, s, session));
        s.factor = 16;
        QVERIFY(doc.editStep(0, s, session));
        QCOMPARE(doc.undoStack()->count(), 0);
        QVERIFY(!doc.isDirty());
    }

    void editedStepThatFailsIsMarked()
    {
        ScheduleDocument doc;
        QVERIFY(doc.openSchedule(tiledMatmul()));
        sched::Step s = doc.steps()[0];
        s.factor = 65;  // larger than the extent
        QVERIFY(doc.editStep(0, s));
        QVERIFY(doc.snapshot().failedStep);
        QCOMPARE(doc.snapshot().failedStep->stepIndex, 0);
        QCOMPARE(doc.snapshot().program->trace.size(), size_t(0));
    }

    void saveAndReopenRoundTrips()
    {
        QTemporaryDir tmp;
        ScheduleDocument doc;
        QVERIFY(doc.openSchedule(tiledMatmul()));
        QVERIFY(!doc.applyStep(step(sched::Primitive::Unroll, {"j.inner"})));
        sched::Step db;
        db.primitive = sched::Primitive::DoubleBuffer;
        db.tensor = "A";
        db.level = "SRAM";
        QVERIFY(!doc.applyStep(db));
        // elsewhere in the tree: the kernel path is rewritten relative to the new place
        const QString path = tmp.filePath("sub/dir/mine.sched.yaml");
        QDir().mkpath(tmp.filePath("sub/dir"));
        QString error;
        QVERIFY2(doc.save(path, &error), qPrintable(error));
        QVERIFY(!doc.isDirty());
        QCOMPARE(doc.filePath(), path);
        const QByteArray first = readAll(path);
        QVERIFY(first.contains("description: \"The seed's tiled matmul"));
        QVERIFY(first.contains("double_buffer: {tensor: A, level: SRAM}"));

        ScheduleDocument again;
        QVERIFY2(again.openSchedule(path, &error), qPrintable(error));
        QCOMPARE(again.steps().size(), size_t(7));
        QCOMPARE(nestText(again), nestText(doc));
        QCOMPARE(again.kernelPath(), doc.kernelPath());
        QVERIFY(again.save(QString(), &error));
        QCOMPARE(readAll(path), first);
    }

    void scheduleWithAFailingStepStillOpens()
    {
        QTemporaryDir tmp;
        const QString path = tmp.filePath("bad.sched.yaml");
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QString("kernel: %1\ntarget: cortex-m7\nsteps:\n"
                        "  - split: {loop: i, factor: 8}\n"
                        "  - unroll: {loop: q}\n"
                        "  - split: {loop: j, factor: 8}\n")
                    .arg(source("examples/kernels/matmul_f32.kernel.yaml"))
                    .toUtf8());
        f.close();
        ScheduleDocument doc;
        QString error;
        QVERIFY2(doc.openSchedule(path, &error), qPrintable(error));
        QCOMPARE(doc.steps().size(), size_t(3));
        QVERIFY(doc.snapshot().failedStep);
        QCOMPARE(doc.snapshot().failedStep->stepIndex, 1);
        QCOMPARE(doc.snapshot().failedStep->loc.line, 5);  // where the file wrote it
        QCOMPARE(doc.snapshot().program->trace.size(), size_t(1));
        QVERIFY(doc.removeStep(1));
        QVERIFY(!doc.snapshot().failedStep);
        QCOMPARE(doc.snapshot().program->trace.size(), size_t(2));
    }

    void kernelAndTargetSwitch()
    {
        ScheduleDocument doc;
        QString error;
        QVERIFY2(doc.openKernel(source("examples/kernels/matmul_f32.kernel.yaml"), "cortex-m7", &error), qPrintable(error));
        QVERIFY(doc.steps().empty());
        QVERIFY(doc.filePath().isEmpty());
        QVERIFY(!doc.isDirty());
        QVERIFY(!doc.save(QString(), &error));  // no file name yet
        QVERIFY(doc.setTarget("cortex-m4", &error));
        QCOMPARE(doc.snapshot().program->target->name, std::string("cortex-m4"));
        QCOMPARE(doc.undoStack()->undoText(), QString("target cortex-m4"));
        QVERIFY(!doc.setTarget("no-such-target", &error));
        QVERIFY(error.contains("no-such-target"));
        QCOMPARE(doc.target(), QString("cortex-m4"));
        doc.undoStack()->undo();
        QCOMPARE(doc.snapshot().program->target->name, std::string("cortex-m7"));
    }

    void targetFileIsReloadedWhenItChanges()
    {
        QTemporaryDir tmp;
        const QString path = tmp.filePath("my-m7.yaml");
        QByteArray text = readAll(source("hwdesc/targets/cortex-m7.yaml"));
        QVERIFY(!text.isEmpty());
        auto write = [&](const QByteArray& bytes) {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
            f.write(bytes);
        };
        write(text);
        ScheduleDocument doc;
        QString error;
        QVERIFY2(doc.openKernel(source("examples/kernels/matmul_f32.kernel.yaml"), path, &error), qPrintable(error));
        QCOMPARE(doc.snapshot().report->levels[1].capacityBytes, int64_t(512 * 1024));
        QSignalSpy reloaded(&doc, &ScheduleDocument::targetReloaded);
        QSignalSpy changed(&doc, &ScheduleDocument::changed);
        write(QByteArray(text).replace("size: 512 KiB", "size: 64 KiB"));
        QVERIFY(reloaded.wait(5000));
        QCOMPARE(reloaded.first().at(1).toString(), QString());
        QCOMPARE(changed.count(), 1);
        QCOMPARE(doc.snapshot().report->levels[1].capacityBytes, int64_t(64 * 1024));
        QVERIFY(!doc.isDirty());  // a reload is not an edit
        // A broken file keeps the last good target and says why.
        write(QByteArray(text).replace("size: 512 KiB", "size: lots"));
        QVERIFY(reloaded.wait(5000));
        QVERIFY(reloaded.last().at(1).toString().contains("my-m7.yaml"));
        QCOMPARE(doc.snapshot().report->levels[1].capacityBytes, int64_t(64 * 1024));
    }

    void stepParametersRoundTrip()
    {
        sched::Step s = step(sched::Primitive::Split, {"i"}, 16);
        QCOMPARE(ui::stepParameters(s), QString("{loop: i, factor: 16}"));
        auto parsed = ui::parseStepParameters(sched::Primitive::Split, "{loop: i, factor: 8}");
        QVERIFY(parsed);
        QCOMPARE(parsed->factor, int64_t(8));
        QCOMPARE(parsed->loops, std::vector<std::string>{"i"});
        QString error;
        QVERIFY(!ui::parseStepParameters(sched::Primitive::Split, "{loop: i, factr: 8}", &error));
        QVERIFY(error.contains("factr"));
        sched::Step c;
        c.primitive = sched::Primitive::CacheRead;
        c.tensor = "A";
        c.level = "SRAM";
        c.at = "j.outer";
        auto back = ui::parseStepParameters(c.primitive, ui::stepParameters(c));
        QVERIFY(back && *back == c);
    }

    void exportWritesWhatTheCliWrites()
    {
        QTemporaryDir tmp;
        ScheduleDocument doc;
        QVERIFY(doc.openSchedule(tiledMatmul()));
        QStringList written;
        QString error;
        QVERIFY2(doc.exportTo(tmp.filePath("out"), &written, &error), qPrintable(error));
        QCOMPARE(written.size(), 2);
        QVERIFY(QFile::exists(tmp.filePath("out/matmul_f32.c")));
        QVERIFY(QFile::exists(tmp.filePath("out/matmul_f32.h")));
        QCOMPARE(readAll(tmp.filePath("out/matmul_f32.c")), QByteArray::fromStdString(doc.snapshot().code()));
    }

    // Edits whose rebuild is slow run on a worker thread: the old snapshot stays until the new
    // one is ready, edits made meanwhile are not lost, and only the latest state is shown.
    void slowRebuildsRunOnAWorkerThread()
    {
        ScheduleDocument doc;
        QVERIFY(doc.openSchedule(tiledMatmul()));
        doc.setAsyncThresholdMs(0);  // treat every rebuild as slow
        QSignalSpy changed(&doc, &ScheduleDocument::changed);
        QSignalSpy busy(&doc, &ScheduleDocument::rebuilding);
        const int before = doc.snapshot().revision;
        QVERIFY(!doc.applyStep(step(sched::Primitive::Unroll, {"k"})));
        QCOMPARE(busy.count(), 1);
        QCOMPARE(busy.at(0).at(0).toBool(), true);
        QVERIFY(doc.isRebuilding());
        QCOMPARE(doc.snapshot().revision, before);   // still the previous state
        QCOMPARE(changed.count(), 0);
        // A second edit while the worker runs.
        QVERIFY(!doc.applyStep(step(sched::Primitive::Parallel, {"i.outer"})));
        QVERIFY(changed.wait(10000));
        QCOMPARE(changed.count(), 1);                // the stale result was not shown
        QVERIFY(!doc.isRebuilding());
        QCOMPARE(busy.last().at(0).toBool(), false);
        QCOMPARE(doc.snapshot().program->trace.size(), size_t(7));
        QVERIFY(doc.snapshot().revision > before);
        // Undo goes through the same path.
        doc.undoStack()->undo();
        QVERIFY(changed.wait(10000));
        QCOMPARE(doc.snapshot().program->trace.size(), size_t(6));
    }

    // The worker can finish before its result is delivered (a fast build, a busy event loop):
    // the document is still rebuilding until that result is installed, and an edit made in
    // between waits for it and replaces it. (CI once saw the worker done at the first check.)
    void aWorkerDoneButNotYetDeliveredIsStillRebuilding()
    {
        ScheduleDocument doc;
        QVERIFY(doc.openSchedule(tiledMatmul()));
        doc.setAsyncThresholdMs(0);
        QSignalSpy changed(&doc, &ScheduleDocument::changed);
        QVERIFY(!doc.applyStep(step(sched::Primitive::Unroll, {"k"})));
        QThreadPool::globalInstance()->waitForDone();   // the worker is done; no event delivered
        QVERIFY(doc.isRebuilding());
        QCOMPARE(changed.count(), 0);
        QVERIFY(!doc.applyStep(step(sched::Primitive::Parallel, {"i.outer"})));
        QThreadPool::globalInstance()->waitForDone();
        QVERIFY(changed.wait(10000));
        QCOMPARE(changed.count(), 1);
        QVERIFY(!doc.isRebuilding());
        QCOMPARE(doc.snapshot().program->trace.size(), size_t(7));
    }

    // Opening another schedule while a worker builds an edit of the first: the first's result,
    // arriving later, is not shown over the one now open.
    void openingAnotherScheduleDropsTheWorkersResult()
    {
        ScheduleDocument doc;
        QVERIFY(doc.openSchedule(tiledMatmul()));
        doc.setAsyncThresholdMs(0);
        QSignalSpy busy(&doc, &ScheduleDocument::rebuilding);
        QVERIFY(!doc.applyStep(step(sched::Primitive::Unroll, {"k"})));
        QVERIFY(doc.isRebuilding());
        QVERIFY(doc.openSchedule(source("examples/schedules/matmul_int8_tiled.sched.yaml")));
        const auto opened = doc.snapshot().program;
        QSignalSpy changed(&doc, &ScheduleDocument::changed);
        QVERIFY(!doc.isRebuilding());   // said at the open, before `opened`
        QCOMPARE(busy.last().at(0).toBool(), false);
        QThreadPool::globalInstance()->waitForDone();   // the old worker is done...
        QCoreApplication::processEvents();              // ...and its result delivered: dropped
        QCOMPARE(changed.count(), 0);
        QCOMPARE(doc.snapshot().program, opened);
        QVERIFY(doc.kernelPath().endsWith("matmul_int8.kernel.yaml"));
        QVERIFY(!doc.isDirty());
    }

    // The same, with an edit of the newly opened schedule before the old worker is done: that
    // edit is built and shown (it was dropped with the old result, the views a step behind).
    void anEditAfterAnOpenIsBuiltWhileTheOldWorkerRuns()
    {
        ScheduleDocument doc;
        QVERIFY(doc.openSchedule(tiledMatmul()));
        doc.setAsyncThresholdMs(0);
        QSemaphore release;
        QSemaphore entered;
        doc.setBuildHook([&](const sched::Program&) {   // holds the first worker until released
            if (entered.available() == 0) {
                entered.release();
                release.acquire();
            }
        });
        // However the test ends, the held worker is let go before the semaphores go away.
        bool released = false;
        auto letGo = qScopeGuard([&] {
            if (!released)
                release.release();
            QThreadPool::globalInstance()->waitForDone();
        });
        QSignalSpy busy(&doc, &ScheduleDocument::rebuilding);
        QVERIFY(!doc.applyStep(step(sched::Primitive::Unroll, {"k"})));
        QVERIFY(entered.tryAcquire(1, 10000));
        entered.release();   // later builds pass the hook
        QVERIFY(doc.openSchedule(source("examples/schedules/matmul_int8_tiled.sched.yaml")));
        QVERIFY(!doc.isRebuilding());   // said at the open: the old worker's result will be dropped
        QCOMPARE(busy.last().at(0).toBool(), false);
        const size_t steps = doc.steps().size();
        QSignalSpy changed(&doc, &ScheduleDocument::changed);
        QVERIFY(!doc.applyStep(step(sched::Primitive::Parallel, {"i.outer"})));
        release.release();   // the old worker ends now, after the new edit started
        released = true;
        QVERIFY(changed.wait(10000));
        QTRY_VERIFY_WITH_TIMEOUT(!doc.isRebuilding(), 10000);
        QCOMPARE(changed.count(), 1);
        QCOMPARE(doc.snapshot().program->trace.size(), steps + 1);
        QVERIFY(doc.kernelPath().endsWith("matmul_int8.kernel.yaml"));
        QThreadPool::globalInstance()->waitForDone();
        QCoreApplication::processEvents();
        QCOMPARE(doc.snapshot().program->trace.size(), steps + 1);   // the old result never shows
    }
};

QTEST_GUILESS_MAIN(TestDocument)
#include "test_document.moc"
