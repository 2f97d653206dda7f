// Every model of the views under QAbstractItemModelTester while a document goes through
// opens, edits, failures, undo and redo; and what the rows say.
#include "diagnostics_model.h"
#include "kernel_model.h"
#include "loop_nest_model.h"
#include "lower/loop_nest.h"
#include "schedule_document.h"
#include "schedule_model.h"
#include "sched/step.h"

#include <QAbstractItemModelTester>
#include <QDir>
#include <QSignalSpy>
#include <QUndoStack>
#include <QtTest>

#include <memory>

using namespace loopscope;
using namespace loopscope::ui;

namespace {
QString example(const QString& name) { return QStringLiteral(LOOPSCOPE_SOURCE_DIR "/examples/schedules/") + name; }

sched::Step step(sched::Primitive p, std::vector<std::string> loops = {}, int64_t factor = 0)
{
    sched::Step s;
    s.primitive = p;
    s.loops = std::move(loops);
    s.factor = factor;
    return s;
}

/// All four models, fed from one document like the main window feeds its views.
struct Models {
    LoopNestModel nest;
    ScheduleModel schedule;
    DiagnosticsModel diagnostics;
    KernelModel kernel;
    std::vector<std::unique_ptr<QAbstractItemModelTester>> testers;

    explicit Models(ScheduleDocument& doc)
    {
        for (QAbstractItemModel* m : std::initializer_list<QAbstractItemModel*>{&nest, &schedule, &diagnostics, &kernel})
            testers.push_back(std::make_unique<QAbstractItemModelTester>(m, QAbstractItemModelTester::FailureReportingMode::QtTest));
        QObject::connect(&doc, &ScheduleDocument::changed, &nest, [this, &doc](const Snapshot& s) {
            nest.setSnapshot(s);
            schedule.setTrace(doc.steps(), s);
            diagnostics.setDiagnostics(s);
            kernel.setSnapshot(s);
        });
        QObject::connect(&doc, &ScheduleDocument::stepRejected, &nest, [this, &doc](const sched::ScheduleError& e) {
            diagnostics.setDiagnostics(doc.snapshot(), e, QStringLiteral("refused"));
        });
    }

    int loopRows() const
    {
        int n = 0;
        for (const auto& r : nest.rows())
            n += r.kind == NestRow::Kind::Loop ? 1 : 0;
        return n;
    }
};
} // namespace

class TestModels : public QObject {
    Q_OBJECT
private slots:
    void nestRowsReadLikeThePrinter()
    {
        ScheduleDocument doc;
        Models m(doc);
        QVERIFY(doc.openSchedule(example("matmul_f32_tiled.sched.yaml")));
        // One row per printed line, minus the title line.
        const std::string printed = lower::print(*doc.snapshot().nest);
        const int lines = static_cast<int>(std::count(printed.begin(), printed.end(), '\n'));
        QCOMPARE(static_cast<int>(m.nest.rows().size()), lines - 1);
        QCOMPARE(m.loopRows(), 5);
        const QModelIndex jOuter = m.nest.findLoop("j.outer");
        QVERIFY(jOuter.isValid());
        QCOMPARE(jOuter.data().toString(), QString("for j.outer in 0..4:"));
        QCOMPARE(jOuter.parent(), m.nest.findLoop("i.outer"));
        QCOMPARE(jOuter.data(LoopNestModel::StageRole).toString(), QString("C"));
        QStringList touched = jOuter.data(LoopNestModel::TouchedRole).toStringList();
        touched.sort();
        QCOMPARE(touched, QStringList({"A", "B", "C"}));
        // The cache allocations sit in j.outer's body with their level, kind and size.
        bool sawCache = false;
        for (int r = 0; r < m.nest.rowCount(jOuter); ++r) {
            const QModelIndex i = m.nest.index(r, 0, jOuter);
            if (i.data().toString().startsWith("alloc A_SRAM")) {
                sawCache = true;
                QCOMPARE(i.data(LoopNestModel::BadgesRole).toStringList(), QStringList({"cache_read", "4 KiB"}));
                QCOMPARE(i.data(LoopNestModel::TensorRole).toString(), QString("A"));
            }
        }
        QVERIFY(sawCache);
        const QModelIndex k = m.nest.findLoop("k");
        QVERIFY(k.data(LoopNestModel::BadgesRole).toStringList().contains("reduction"));
    }

    // What GCC -O2 is expected to make of each loop of the exported C (the instruction model's
    // decisions): a badge on the loops it unrolls or makes a memset, a tooltip line on every one.
    void loopsSayWhatTheCompilerMakesOfThem()
    {
        const QString data = QStringLiteral(LOOPSCOPE_SOURCE_DIR "/tests/data/analysis/");
        ScheduleDocument doc;
        Models m(doc);
        auto loopRows = [&](const QString& label) {
            std::vector<const NestRow*> out;
            for (const auto& r : m.nest.rows())
                if (r.kind == NestRow::Kind::Loop && r.label == label)
                    out.push_back(&r);
            return out;
        };
        // w.inner around a 2x2 block whose index arithmetic folds away: GCC unrolls it.
        QVERIFY(doc.openSchedule(data + QStringLiteral("two_trip_folded_index.sched.yaml")));
        bool unrolled = false;
        for (const NestRow* r : loopRows(QStringLiteral("w.inner")))
            unrolled = unrolled || (r->badges.contains(QStringLiteral("GCC unrolls")) && r->tooltip.contains(QStringLiteral("GCC -O2 unrolls")));
        QVERIFY(unrolled);
        // i.inner one statement too large: kept, its k.inner inside unrolled; the accumulators'
        // zeroing nest is a memset.
        QVERIFY(doc.openSchedule(data + QStringLiteral("two_trip_one_too_large.sched.yaml")));
        const NestRow* kept = nullptr;
        for (const NestRow* r : loopRows(QStringLiteral("i.inner")))
            for (int c : r->children)
                if (m.nest.rows()[c].kind == NestRow::Kind::Loop && m.nest.rows()[c].label == QLatin1String("k.inner"))
                    kept = r;
        QVERIFY(kept);
        QVERIFY(!kept->badges.contains(QStringLiteral("GCC unrolls")));
        QVERIFY2(kept->tooltip.contains(QStringLiteral("a loop, about")) && kept->tooltip.contains(QStringLiteral("values live across an iteration")),
                 qPrintable(kept->tooltip));
        bool kUnrolled = false, inLine = false;
        for (const NestRow* r : loopRows(QStringLiteral("k.inner")))
            kUnrolled = kUnrolled || r->badges.contains(QStringLiteral("GCC unrolls"));
        // Its accumulator is zeroed in runs of one element: stores in line, no memset.
        for (const auto& r : m.nest.rows())
            inLine = inLine || (r.kind == NestRow::Kind::Loop && r.badges.contains(QStringLiteral("in line")));
        QVERIFY(kUnrolled);
        QVERIFY(inLine);
        // A 12 x 12 float accumulator zeroed and copied out whole: a memset and a memcpy.
        QVERIFY(doc.openSchedule(data + QStringLiteral("library_merged_runs.sched.yaml")));
        bool memset = false, memcpy = false;
        for (const auto& r : m.nest.rows()) {
            memset = memset || (r.kind == NestRow::Kind::Loop && r.badges.contains(QStringLiteral("memset")));
            memcpy = memcpy || (r.kind == NestRow::Kind::Loop && r.badges.contains(QStringLiteral("memcpy")) && r.tooltip.contains(QStringLiteral("calls of memcpy")));
        }
        QVERIFY(memset);
        QVERIFY(memcpy);
        // On the accelerator there is no such model: no badge, no line.
        QVERIFY(doc.openSchedule(example("gemmini_matmul_int8_128.sched.yaml")));
        for (const auto& r : m.nest.rows()) {
            QVERIFY(!r.badges.contains(QStringLiteral("GCC unrolls")));
            QVERIFY(!r.tooltip.contains(QStringLiteral("In the exported C")));
        }
    }

    void badgesFollowTheEdits()
    {
        ScheduleDocument doc;
        Models m(doc);
        QVERIFY(doc.openSchedule(example("matmul_f32_tiled.sched.yaml")));
        QVERIFY(!doc.applyStep(step(sched::Primitive::Unroll, {"j.inner"})));
        QVERIFY(m.nest.findLoop("j.inner").data(LoopNestModel::BadgesRole).toStringList().contains("unrolled"));
        QVERIFY(!doc.applyStep(step(sched::Primitive::Parallel, {"i.outer"})));
        QVERIFY(m.nest.findLoop("i.outer").data(LoopNestModel::BadgesRole).toStringList().contains("parallel"));
        sched::Step db;
        db.primitive = sched::Primitive::DoubleBuffer;
        db.tensor = "A";
        db.level = "SRAM";
        QVERIFY(!doc.applyStep(db));
        bool doubled = false;
        for (const auto& r : m.nest.rows())
            if (r.kind == NestRow::Kind::Alloc && r.tensor == "A")
                doubled = r.badges.contains("double-buffered") && r.badges.contains("8 KiB");
        QVERIFY(doubled);
        doc.undoStack()->undo();
        doc.undoStack()->undo();
        doc.undoStack()->undo();
        QVERIFY(!m.nest.findLoop("j.inner").data(LoopNestModel::BadgesRole).toStringList().contains("unrolled"));
        doc.undoStack()->redo();
        QVERIFY(m.nest.findLoop("j.inner").data(LoopNestModel::BadgesRole).toStringList().contains("unrolled"));
    }

    // An edit that keeps the tree's shape (a factor, a double buffer) replaces the rows in
    // place and reports only those that differ; the rows are those a new model builds.
    void nestRowsChangeInPlaceWhenTheTreeKeepsItsShape()
    {
        ScheduleDocument doc;
        Models m(doc);
        QVERIFY(doc.openSchedule(example("matmul_f32_tiled.sched.yaml")));
        QSignalSpy resets(&m.nest, &QAbstractItemModel::modelReset);
        QSignalSpy changes(&m.nest, &QAbstractItemModel::dataChanged);
        auto checkAgainstANewModel = [&] {
            LoopNestModel fresh;
            fresh.setSnapshot(doc.snapshot());
            QVERIFY(fresh.rows() == m.nest.rows());
            QCOMPARE(fresh.rowCount(), m.nest.rowCount());
        };

        std::vector<NestRow> before = m.nest.rows();
        sched::Step split = doc.steps()[0];
        split.factor = 8;   // i by 8: extents, guards and buffer sizes change, not the tree
        QVERIFY(doc.editStep(0, split));
        QCOMPARE(resets.count(), 0);
        int differ = 0;
        for (size_t i = 0; i < before.size(); ++i)
            differ += before[i] == m.nest.rows()[i] ? 0 : 1;
        QVERIFY(differ > 0);
        QVERIFY(differ < static_cast<int>(before.size()));
        QCOMPARE(changes.count(), differ);
        for (const QList<QVariant>& c : changes) {   // one row each, a row that changed
            const QModelIndex from = c[0].value<QModelIndex>();
            QCOMPARE(from, c[1].value<QModelIndex>());
            const int id = from.data(LoopNestModel::RowIdRole).toInt();
            QVERIFY(!(before[id] == m.nest.rows()[id]));
        }
        QCOMPARE(m.nest.findLoop("i.outer").data(Qt::DisplayRole).toString(), QString("for i.outer in 0..8:"));
        checkAgainstANewModel();

        // A double buffer changes the badges and sizes of its buffer's rows only.
        changes.clear();
        sched::Step db;
        db.primitive = sched::Primitive::DoubleBuffer;
        db.tensor = "A";
        db.level = "SRAM";
        QVERIFY(!doc.applyStep(db));
        QCOMPARE(resets.count(), 0);
        QVERIFY(changes.count() >= 1);
        checkAgainstANewModel();

        // Removing a cache stage changes the tree: the model is reset.
        QVERIFY(doc.removeStep(static_cast<int>(doc.steps().size()) - 2));
        QCOMPARE(resets.count(), 1);
        checkAgainstANewModel();
        doc.undoStack()->undo();
        QCOMPARE(resets.count(), 2);
        checkAgainstANewModel();
    }

    // The schedule table: an edited step is one changed row; a step removed or added at the
    // end is a row removed or inserted (no reset: the current row and an open editor stay).
    // The diagnostics table changes only when its rows do.
    void scheduleAndDiagnosticsRowsChangeOnlyWhereTheyDiffer()
    {
        ScheduleDocument doc;
        Models m(doc);
        QVERIFY(doc.openSchedule(example("matmul_f32_tiled.sched.yaml")));
        QSignalSpy resets(&m.schedule, &QAbstractItemModel::modelReset);
        QSignalSpy changes(&m.schedule, &QAbstractItemModel::dataChanged);
        QSignalSpy removed(&m.schedule, &QAbstractItemModel::rowsRemoved);
        QSignalSpy inserted(&m.schedule, &QAbstractItemModel::rowsInserted);
        QSignalSpy diagnosticResets(&m.diagnostics, &QAbstractItemModel::modelReset);

        sched::Step split = doc.steps()[1];
        split.factor = 8;
        QVERIFY(doc.editStep(1, split));
        QCOMPARE(resets.count(), 0);
        QCOMPARE(changes.count(), 1);
        QCOMPARE(changes[0][0].value<QModelIndex>().row(), 1);
        QCOMPARE(changes[0][1].value<QModelIndex>().row(), 1);
        QCOMPARE(m.schedule.index(1, ScheduleModel::ParametersColumn).data().toString(), QString("split j by 8"));
        QCOMPARE(diagnosticResets.count(), 0);   // the same (no) diagnostics

        const int n = m.schedule.rowCount();
        QVERIFY(doc.removeStep(n - 1));
        QCOMPARE(resets.count(), 0);
        QCOMPARE(removed.count(), 1);
        QCOMPARE(removed[0][1].toInt(), n - 1);
        QCOMPARE(m.schedule.rowCount(), n - 1);
        doc.undoStack()->undo();
        QCOMPARE(inserted.count(), 1);
        QCOMPARE(m.schedule.rowCount(), n);
        QCOMPARE(resets.count(), 0);

        // Removing a step in the middle: the rows from there on show other steps.
        changes.clear();
        QVERIFY(doc.removeStep(2));   // the reorder
        QCOMPARE(m.schedule.rowCount(), n - 1);
        for (int r = 0; r < m.schedule.rowCount(); ++r)
            QCOMPARE(m.schedule.index(r, ScheduleModel::ParametersColumn).data().toString(),
                     QString::fromStdString(sched::describe(doc.steps()[r])));
        QCOMPARE(changes.count(), 1);   // rows 2..n-2 in one range
        QCOMPARE(changes[0][0].value<QModelIndex>().row(), 2);

        // A step that fails marks its row and the rows after it; the diagnostics change.
        changes.clear();
        const int diagnosticsBefore = diagnosticResets.count();
        sched::Step bad = doc.steps()[0];
        bad.loops = {"nowhere"};
        QVERIFY(doc.editStep(0, bad));
        QVERIFY(doc.snapshot().failedStep);
        QCOMPARE(m.schedule.status(0), ScheduleModel::Status::Failing);
        QCOMPARE(m.schedule.status(1), ScheduleModel::Status::NotApplied);
        QVERIFY(changes.count() >= 1);
        QCOMPARE(diagnosticResets.count(), diagnosticsBefore + 1);
        QCOMPARE(m.diagnostics.rows().front().code, QString("failing-step"));
    }

    void partialTilesShowTheirGuard()
    {
        ScheduleDocument doc;
        Models m(doc);
        QVERIFY(doc.openSchedule(example("matmul_f32_naive.sched.yaml")));
        QVERIFY(!doc.applyStep(step(sched::Primitive::Split, {"j"}, 5)));
        bool guard = false;
        for (const auto& r : m.nest.rows())
            guard |= r.kind == NestRow::Kind::Guard && r.badges.contains("partial tile");
        QVERIFY(guard);
    }

    void multiStageLoopsCarryTheirStage()
    {
        ScheduleDocument doc;
        Models m(doc);
        QVERIFY(doc.openSchedule(example("dwsep_conv_fused.sched.yaml")));
        const QModelIndex h = m.nest.findLoop("O:h.outer");
        QVERIFY(h.isValid());
        QCOMPARE(h.data(LoopNestModel::LoopRole).toString(), QString("h.outer"));
        QCOMPARE(h.data(LoopNestModel::StageRole).toString(), QString("O"));
        QVERIFY(m.nest.findLoop("h", "D").isValid());
        // The kernel tree names both stages and says where D is computed.
        bool placed = false;
        for (int r = 0; r < m.kernel.rowCount(); ++r) {
            const QModelIndex sec = m.kernel.index(r, 0);
            for (int c = 0; c < m.kernel.rowCount(sec); ++c) {
                const QModelIndex st = m.kernel.index(c, 0, sec);
                for (int a = 0; a < m.kernel.rowCount(st); ++a)
                    placed |= m.kernel.index(a, 1, st).data().toString() == "computed at h.outer";
            }
        }
        QVERIFY(placed);
        QVERIFY(m.kernel.findTensor("D").isValid());
        // The stages row counts the MACs of the whole iteration space and says so.
        bool said = false;
        for (int r = 0; r < m.kernel.rowCount(); ++r)
            said |= m.kernel.index(r, 1).data().toString().contains("MACs")
                    && m.kernel.index(r, 1).data(Qt::ToolTipRole).toString().contains("whole iteration space");
        QVERIFY(said);
    }

    void kernelTreeSaysBothMacCountsWherePaddingSkipsTaps()
    {
        // conv2d_int8 pads its input: 589,824 MACs in its loops, 541,696 executed (the Cost
        // panel's MACs). The stages row says both, the executed first, as the Cost panel
        // writes numbers.
        ScheduleDocument doc;
        Models m(doc);
        QVERIFY(doc.openSchedule(example("conv2d_int8_dsp.sched.yaml")));
        QString text;
        for (int r = 0; r < m.kernel.rowCount(); ++r)
            if (m.kernel.index(r, 0).data().toString() == "Stages")
                text = m.kernel.index(r, 1).data().toString();
        QCOMPARE(text, QString("1 stage, 541,696 MACs, 589,824 with the padding"));
        // Without padding the two are one.
        QVERIFY(doc.openSchedule(example("matmul_f32_tiled.sched.yaml")));
        for (int r = 0; r < m.kernel.rowCount(); ++r)
            if (m.kernel.index(r, 0).data().toString() == "Stages")
                text = m.kernel.index(r, 1).data().toString();
        QCOMPARE(text, QString("1 stage, 262,144 MACs"));
    }

    void scheduleModelMarksTheFailingStep()
    {
        ScheduleDocument doc;
        Models m(doc);
        QVERIFY(doc.openSchedule(example("matmul_f32_tiled.sched.yaml")));
        QCOMPARE(m.schedule.rowCount(), 5);
        // shown in short words, edited as the schedule file writes it
        QCOMPARE(m.schedule.index(0, ScheduleModel::ParametersColumn).data().toString(), QString("split i by 16"));
        QCOMPARE(m.schedule.index(0, ScheduleModel::ParametersColumn).data(Qt::EditRole).toString(), QString("{loop: i, factor: 16}"));
        QCOMPARE(m.schedule.index(0, ScheduleModel::ParametersColumn).data(ScheduleModel::FactorRole).toLongLong(), 16);
        QVERIFY(m.schedule.index(0, ScheduleModel::ParametersColumn).data(ScheduleModel::EditableFactorRole).toBool());
        QVERIFY(m.schedule.flags(m.schedule.index(0, ScheduleModel::ParametersColumn)) & Qt::ItemIsEditable);
        QVERIFY(!(m.schedule.flags(m.schedule.index(0, ScheduleModel::StatusColumn)) & Qt::ItemIsEditable));
        QVERIFY(doc.removeStep(0));
        QCOMPARE(m.schedule.rowCount(), 4);
        QCOMPARE(m.schedule.status(0), ScheduleModel::Status::Applied);
        QCOMPARE(m.schedule.status(1), ScheduleModel::Status::Failing);
        QCOMPARE(m.schedule.status(2), ScheduleModel::Status::NotApplied);
        const QString status = m.schedule.index(1, ScheduleModel::StatusColumn).data().toString();
        QCOMPARE(status, QString("\u2717 fails"));   // short; the message is in the tooltip and the header
        QVERIFY(m.schedule.index(1, ScheduleModel::StatusColumn).data(Qt::ToolTipRole).toString().contains("i.outer"));
        // and the nest marks the loops the failing step names, as an error
        QCOMPARE(m.diagnostics.rows().front().code, QString("failing-step"));
        QCOMPARE(m.diagnostics.rows().front().step, 1);
    }

    void scheduleModelEditsAreIntents()
    {
        ScheduleDocument doc;
        Models m(doc);
        QVERIFY(doc.openSchedule(example("matmul_f32_tiled.sched.yaml")));
        QObject::connect(&m.schedule, &ScheduleModel::stepEdited, &doc,
                         [&doc](int row, const sched::Step& s, int session) { doc.editStep(row, s, session); });
        QSignalSpy edited(&m.schedule, &ScheduleModel::stepEdited);
        QSignalSpy rejected(&m.schedule, &ScheduleModel::editRejected);
        const int session = m.schedule.beginEditSession();
        const QModelIndex p = m.schedule.index(0, ScheduleModel::ParametersColumn);
        QVERIFY(m.schedule.setData(p, 8, ScheduleModel::FactorRole));
        QVERIFY(m.schedule.setData(p, 4, ScheduleModel::FactorRole));
        QCOMPARE(edited.count(), 2);
        QCOMPARE(edited.at(0).at(2).toInt(), session);
        QCOMPARE(doc.steps()[0].factor, int64_t(4));
        QCOMPARE(doc.undoStack()->count(), 1);
        // text edits go through the schedule-file parser
        QVERIFY(m.schedule.setData(m.schedule.index(1, ScheduleModel::ParametersColumn), "{loop: j, factor: 8}"));
        QCOMPARE(doc.steps()[1].factor, int64_t(8));
        QVERIFY(!m.schedule.setData(m.schedule.index(1, ScheduleModel::ParametersColumn), "{loop: j, factor: }"));
        QCOMPARE(rejected.count(), 1);
        QCOMPARE(doc.steps()[1].factor, int64_t(8));
    }

    void aSlidingCacheIsSetByEditingTheStep()
    {
        // The app has no dialog field for slide: editing the cache_read step's parameters in the
        // Schedule panel sets it (the same parser as the schedule file), and every view follows.
        ScheduleDocument doc;
        Models m(doc);
        QVERIFY(doc.openSchedule(example("conv2d_int8_tflite_small.sched.yaml")));
        QObject::connect(&m.schedule, &ScheduleModel::stepEdited, &doc,
                         [&doc](int row, const sched::Step& s, int session) { doc.editStep(row, s, session); });
        const int row = static_cast<int>(doc.steps().size()) - 1;
        QCOMPARE(doc.steps()[row].primitive, sched::Primitive::CacheRead);
        auto dramBytesOfI = [&doc] {
            int64_t bytes = 0;
            for (const auto& t : doc.snapshot().report->tensors)
                if (t.name == "I" && t.level == doc.snapshot().report->levels[0].name)
                    bytes += t.readBytes;
            return bytes;
        };
        QCOMPARE(dramBytesOfI(), int64_t(11776));
        QVERIFY(m.schedule.setData(m.schedule.index(row, ScheduleModel::ParametersColumn), "{tensor: I, level: SRAM, at: oh, slide: oh}"));
        QCOMPARE(doc.steps()[row].slide, std::string("oh"));
        QCOMPARE(dramBytesOfI(), int64_t(4096));   // each output row after the first fetches one new input row
        QVERIFY2(m.schedule.index(row, ScheduleModel::ParametersColumn).data().toString().contains("slid"),
                 qPrintable(m.schedule.index(row, ScheduleModel::ParametersColumn).data().toString()));
        // A slide along another loop than the cache's: the step fails, saying why.
        m.schedule.setData(m.schedule.index(row, ScheduleModel::ParametersColumn), "{tensor: I, level: SRAM, at: oh, slide: ow}");
        QVERIFY(doc.snapshot().failedStep.has_value());
        QVERIFY2(QString::fromStdString(doc.snapshot().failedStep->message).contains("slide"),
                 doc.snapshot().failedStep->message.c_str());
        doc.undoStack()->undo();
        QCOMPARE(doc.steps()[row].slide, std::string("oh"));
        QCOMPARE(dramBytesOfI(), int64_t(4096));
    }

    void highlightsOnlyWhatIsNamed()
    {
        ScheduleDocument doc;
        Models m(doc);
        QVERIFY(doc.openSchedule(example("matmul_f32_tiled.sched.yaml")));
        m.schedule.setHighlight("i.outer", {});
        QVERIFY(m.schedule.index(0, 0).data(ScheduleModel::HighlightRole).toBool());   // split i
        QVERIFY(!m.schedule.index(1, 0).data(ScheduleModel::HighlightRole).toBool());  // split j
        QVERIFY(m.schedule.index(2, 0).data(ScheduleModel::HighlightRole).toBool());   // reorder
        m.schedule.setHighlight(QString(), {"B"});
        QVERIFY(!m.schedule.index(3, 0).data(ScheduleModel::HighlightRole).toBool());
        QVERIFY(m.schedule.index(4, 0).data(ScheduleModel::HighlightRole).toBool());
        m.nest.setHighlight({"k"}, {"B"});
        QCOMPARE(m.nest.findLoop("k").data(LoopNestModel::HighlightRole).toInt(), 1);
        QCOMPARE(m.nest.findLoop("i.outer").data(LoopNestModel::HighlightRole).toInt(), 0);
        m.kernel.setHighlightedTensors({"A"});
        QVERIFY(m.kernel.findTensor("A").data(KernelModel::HighlightRole).toBool());
        QVERIFY(!m.kernel.findTensor("B").data(KernelModel::HighlightRole).toBool());
    }

    void diagnosticsCarryTheirJumpTargets()
    {
        ScheduleDocument doc;
        Models m(doc);
        QVERIFY(doc.openSchedule(example("matmul_f32_tiled.sched.yaml")));
        const int analysis = static_cast<int>(doc.snapshot().report->diagnostics.size());
        QCOMPARE(m.diagnostics.rowCount(), analysis);
        QVERIFY(doc.applyStep(step(sched::Primitive::Vectorize, {"i.outer"})));
        QCOMPARE(m.diagnostics.rowCount(), analysis + 1);
        QCOMPARE(m.diagnostics.rows().front().code, QString("refused-step"));
        QCOMPARE(m.diagnostics.index(0, DiagnosticsModel::SeverityColumn).data().toString(), QString("error"));
        QVERIFY(m.diagnostics.rows().front().loops.contains("i.outer"));
    }

    void suggestionsAreFoundInMessages()
    {
        QCOMPARE(DiagnosticsModel::suggestionIn("A@SRAM reloads the same tile on every iteration of j.outer: its tile does "
                                                "not depend on that loop; compute_at {tensor: A, level: SRAM, at: i.outer} "
                                                "loads it once instead"),
                 QString("compute_at {tensor: A, level: SRAM, at: i.outer}"));
        QCOMPARE(DiagnosticsModel::suggestionIn("SRAM over capacity by 4 KiB"), QString());
        ScheduleDocument doc;
        Models m(doc);
        QVERIFY(doc.openSchedule(example("matmul_f32_tiled.sched.yaml")));
        bool found = false;
        for (int r = 0; r < m.diagnostics.rowCount(); ++r)
            found |= !m.diagnostics.index(r, 0).data(DiagnosticsModel::SuggestionRole).toString().isEmpty();
        QVERIFY(found);
    }

    void modelsSurviveEveryExampleAndAClose()
    {
        ScheduleDocument doc;
        Models m(doc);
        const QDir dir(QStringLiteral(LOOPSCOPE_SOURCE_DIR "/examples/schedules"));
        int opened = 0;
        for (const QString& f : dir.entryList({"*.sched.yaml"}, QDir::Files, QDir::Name)) {
            QString error;
            QVERIFY2(doc.openSchedule(dir.filePath(f), &error), qPrintable(f + ": " + error));
            QVERIFY(m.nest.rowCount() > 0);
            QCOMPARE(m.schedule.rowCount(), static_cast<int>(doc.steps().size()));
            // take the schedule apart step by step and rebuild it
            const int n = static_cast<int>(doc.steps().size());
            for (int i = 0; i < n; ++i)
                QVERIFY(doc.removeStep(0));
            QCOMPARE(m.schedule.rowCount(), 0);
            while (doc.undoStack()->canUndo())
                doc.undoStack()->undo();
            QCOMPARE(m.schedule.rowCount(), n);
            ++opened;
        }
        QVERIFY(opened >= 9);
        m.nest.setSnapshot(Snapshot{});
        m.kernel.setSnapshot(Snapshot{});
        m.diagnostics.setDiagnostics(Snapshot{});
        m.schedule.setTrace({}, Snapshot{});
        QCOMPARE(m.nest.rowCount(), 0);
        QCOMPARE(m.kernel.rowCount(), 0);
    }
};

QTEST_MAIN(TestModels)
#include "test_models.moc"
