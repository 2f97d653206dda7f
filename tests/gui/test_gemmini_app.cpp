// The accelerator path in the desktop application: the loop nest shows the instruction and
// halo-fill rows of a tensorized nest, the code view shows the gemmini.h calls export writes,
// tensorize is offered (per dataflow, with the caches it needs) from the context menu and the
// toolbar as one undoable edit, and the Cost panel shows the PE utilisation beside the bound.
#include "charts/cost_view.h"
#include "loop_nest_model.h"
#include "loop_nest_view.h"
#include "lower/loop_nest.h"
#include "schedule_document.h"

#include <QAction>
#include <QDir>
#include <QFile>
#include <QMenu>
#include <QTemporaryDir>
#include <QTreeView>
#include <QUndoStack>
#include <QtTest>

#include <memory>

using namespace loopscope;
using namespace loopscope::ui;

namespace {
QString source(const QString& rel) { return QStringLiteral(LOOPSCOPE_SOURCE_DIR "/") + rel; }
QString handSchedule() { return source("examples/schedules/gemmini_matmul_sym_hand.sched.yaml"); }

sched::Step split(const std::string& loop, int64_t factor)
{
    sched::Step s;
    s.primitive = sched::Primitive::Split;
    s.loops = {loop};
    s.factor = factor;
    return s;
}

/// The matmul 128^3 on gemmini-16x16, split by DIM with the three block loops innermost.
void openBlocked(ScheduleDocument& doc)
{
    QString error;
    QVERIFY2(doc.openKernel(source("examples/kernels/matmul_int8_sym.kernel.yaml"), QStringLiteral("gemmini-16x16"), &error),
             qPrintable(error));
    for (const char* loop : {"i", "j", "k"})
        QVERIFY(!doc.applyStep(split(loop, 16)));
    sched::Step r;
    r.primitive = sched::Primitive::Reorder;
    r.loops = {"i.outer", "j.outer", "k.outer", "i.inner", "j.inner", "k.inner"};
    QVERIFY(!doc.applyStep(r));
}

QList<QAction*> tensorizeEntries(QMenu* menu)
{
    QList<QAction*> out;
    for (QAction* a : menu->actions())
        if (a->text().startsWith(QStringLiteral("Tensorize stage")))
            out << a;
    return out;
}
} // namespace

class TestGemminiApp : public QObject {
    Q_OBJECT
private slots:
    void nestShowsTheInstructionRowsInPrintOrder()
    {
        ScheduleDocument doc;
        QString error;
        QVERIFY2(doc.openSchedule(handSchedule(), &error), qPrintable(error));
        LoopNestModel model;
        model.setSnapshot(doc.snapshot());
        // Every row is paired with its printed line: the rows after the instruction (the
        // store loops) must still show their own lines.
        const QStringList lines = QString::fromStdString(lower::print(*doc.snapshot().nest)).split(QLatin1Char('\n'));
        const auto& rows = model.rows();
        QCOMPARE(static_cast<int>(rows.size()), lines.size() - 2);  // the title line, the final newline
        for (size_t i = 0; i < rows.size(); ++i)
            QCOMPARE(rows[i].code, lines[static_cast<int>(i) + 1].trimmed().split(QStringLiteral("  // ")).front());
        int matmuls = 0;
        for (const NestRow& r : rows)
            if (r.kind == NestRow::Kind::Matmul) {
                ++matmuls;
                QVERIFY(r.code.startsWith(QStringLiteral("matmul C_accumulator[")));
                QCOMPARE(r.tensor, QStringLiteral("C"));
                QVERIFY(r.touched.contains(QStringLiteral("A")) && r.touched.contains(QStringLiteral("B")));
                QVERIFY(r.badges.contains(QStringLiteral("weight_stationary")));
                // The local addresses: A resident from row 0, B double-buffered, C in the accumulator.
                QVERIFY2(r.tooltip.contains(QStringLiteral("A_scratchpad: scratchpad rows 0-1023")), qPrintable(r.tooltip));
                QVERIFY2(r.tooltip.contains(QStringLiteral("(double buffer)")), qPrintable(r.tooltip));
                QVERIFY2(r.tooltip.contains(QStringLiteral("C_accumulator: accumulator rows 0-127")), qPrintable(r.tooltip));
                QVERIFY(r.tooltip.contains(QStringLiteral("keep the weights")));
            }
        QCOMPARE(matmuls, 1);
        QCOMPARE(rows.back().kind, NestRow::Kind::Store);
        QVERIFY(rows.back().code.startsWith(QStringLiteral("C[")));

        // Conv2d: the padding halo rows.
        QVERIFY2(doc.openSchedule(source("examples/schedules/gemmini_conv2d_int8.sched.yaml"), &error), qPrintable(error));
        model.setSnapshot(doc.snapshot());
        int fills = 0;
        for (const NestRow& r : model.rows())
            if (r.kind == NestRow::Kind::Fill) {
                ++fills;
                QVERIFY(r.code.startsWith(QStringLiteral("fill I[")));
                QCOMPARE(r.level, QStringLiteral("scratchpad"));
                QVERIFY(r.tooltip.contains(QStringLiteral("-128")));
            }
        QCOMPARE(fills, 4);
    }

    void codeViewAndExportUseGemminiCalls()
    {
        ScheduleDocument doc;
        QString error;
        QVERIFY2(doc.openSchedule(handSchedule(), &error), qPrintable(error));
        const QString code = QString::fromStdString(doc.snapshot().code());
        QVERIFY(code.contains(QStringLiteral("#include \"gemmini.h\"")));
        for (const char* call : {"gemmini_flush", "gemmini_extended_config_ex", "gemmini_extended_mvin2", "gemmini_extended_preload",
                                 "gemmini_extended_compute_preloaded", "gemmini_extended_mvout", "gemmini_fence"})
            QVERIFY2(code.contains(QLatin1String(call)), call);
        QVERIFY(!code.contains(QStringLiteral("export it with the Gemmini generator")));  // the portable C's placeholder
        QTemporaryDir dir;
        QStringList written;
        QVERIFY2(doc.exportTo(dir.path(), &written, &error), qPrintable(error));
        QFile c(dir.filePath(QStringLiteral("matmul_int8_sym.c")));
        QVERIFY(c.open(QIODevice::ReadOnly));
        QCOMPARE(QString::fromUtf8(c.readAll()), code);
    }

    void tensorizeFromTheContextMenuIsOneEdit()
    {
        ScheduleDocument doc;
        openBlocked(doc);
        LoopNestView view;
        view.setSnapshot(doc.snapshot());
        QObject::connect(&view, &LoopNestView::stepsRequested, &doc,
                         [&doc](const std::vector<sched::Step>& steps, const QString& text) { doc.applySteps(steps, text); });
        QObject::connect(&view, &LoopNestView::stepRequested, &doc, [&doc](const sched::Step& s) { doc.applyStep(s); });
        QVERIFY(view.action(LoopNestView::Tensorize)->isVisible());
        QVERIFY(view.selectLoop(QStringLiteral("k.outer")));
        std::unique_ptr<QMenu> menu(view.contextMenuFor(view.tree()->currentIndex()));
        const QList<QAction*> entries = tensorizeEntries(menu.get());
        QCOMPARE(entries.size(), 2);  // weight_stationary, output_stationary
        QAction* ws = nullptr;
        for (QAction* a : entries) {
            QVERIFY2(a->isEnabled(), qPrintable(a->toolTip()));
            // The plan adds the scratchpad caches of A and B and the accumulator of C.
            QVERIFY2(a->toolTip().contains(QStringLiteral("cache_read A into scratchpad")), qPrintable(a->toolTip()));
            QVERIFY2(a->toolTip().contains(QStringLiteral("cache_write C into accumulator")), qPrintable(a->toolTip()));
            if (a->text().contains(QStringLiteral("weight_stationary")))
                ws = a;
        }
        QVERIFY(ws);
        const size_t before = doc.steps().size();
        const int undoBefore = doc.undoStack()->count();
        ws->trigger();
        QVERIFY(doc.steps().size() > before + 1);
        QCOMPARE(doc.steps().back().primitive, sched::Primitive::Tensorize);
        QCOMPARE(doc.steps().back().dataflow, std::string("weight_stationary"));
        QVERIFY(!doc.snapshot().failedStep);
        QVERIFY(doc.snapshot().report->array.has_value());
        QCOMPARE(doc.snapshot().report->array->peUtilisation, 1.0);
        QCOMPARE(doc.undoStack()->count(), undoBefore + 1);
        doc.undoStack()->undo();
        QCOMPARE(doc.steps().size(), before);
        QVERIFY(!doc.snapshot().report->array.has_value());
    }

    void tensorizeSaysWhyItCannotApply()
    {
        // Unsplit loops of 128 do not fit the 16x16 array: the entries are greyed with the reason.
        ScheduleDocument doc;
        QString error;
        QVERIFY(doc.openKernel(source("examples/kernels/matmul_int8_sym.kernel.yaml"), QStringLiteral("gemmini-16x16"), &error));
        LoopNestView view;
        view.setSnapshot(doc.snapshot());
        QVERIFY(view.selectLoop(QStringLiteral("i")));
        std::unique_ptr<QMenu> menu(view.contextMenuFor(view.tree()->currentIndex()));
        const QList<QAction*> entries = tensorizeEntries(menu.get());
        QCOMPARE(entries.size(), 2);
        for (QAction* a : entries) {
            QVERIFY(!a->isEnabled());
            QVERIFY2(a->toolTip().contains(QStringLiteral("has extent 128")), qPrintable(a->toolTip()));
        }
        // A target without a PE array offers no tensorize at all.
        QVERIFY(doc.setTarget(QStringLiteral("cortex-m7"), &error));
        view.setSnapshot(doc.snapshot());
        QVERIFY(!view.action(LoopNestView::Tensorize)->isVisible());
        QVERIFY(view.selectLoop(QStringLiteral("i")));
        std::unique_ptr<QMenu> plain(view.contextMenuFor(view.tree()->currentIndex()));
        QVERIFY(tensorizeEntries(plain.get()).isEmpty());
    }

    void costPanelShowsPeUtilisationBesideTheBound()
    {
        ScheduleDocument doc;
        QString error;
        QVERIFY2(doc.openSchedule(handSchedule(), &error), qPrintable(error));
        CostView view;
        view.setSnapshot(doc.snapshot());
        QVERIFY(view.figureShown(CostView::Figure::PeUtilisation));
        const QString row = view.figureText(CostView::Figure::PeUtilisation);
        QVERIFY2(row.contains(QStringLiteral("100.0%")) && row.contains(QStringLiteral("512 computes")), qPrintable(row));
        QCOMPARE(view.percentOfBound(CostView::Figure::PeUtilisation), 100.0);
        // The Cycles row: 8,192 compute bound of 10,156 cycles.
        QVERIFY2(view.figureText(CostView::Figure::Cycles).contains(QStringLiteral("8,192 compute bound")),
                 qPrintable(view.figureText(CostView::Figure::Cycles)));
        QVERIFY(view.caveatText().contains(QStringLiteral("PE array")));

        // Without the tensorize step the row stays on this target, saying the array is idle
        // (a step that fails during a drag must not move the panel).
        QCOMPARE(doc.steps().back().primitive, sched::Primitive::Tensorize);
        QVERIFY(doc.removeStep(static_cast<int>(doc.steps().size()) - 1));
        QVERIFY(!doc.snapshot().report->array);
        view.setSnapshot(doc.snapshot());
        QVERIFY(view.figureShown(CostView::Figure::PeUtilisation));
        QCOMPARE(view.percentOfBound(CostView::Figure::PeUtilisation), -1.0);
        QVERIFY2(view.figureText(CostView::Figure::PeUtilisation).contains(QStringLiteral("no stage on the array")),
                 qPrintable(view.figureText(CostView::Figure::PeUtilisation)));
        // The kernel unscheduled on the array's target runs on the host model, thousands of times
        // the bound: its share shows as below 0.01%, not as 0.00%.
        ScheduleDocument bare;
        QVERIFY2(bare.openKernel(source("examples/kernels/conv2d_int8.kernel.yaml"), QStringLiteral("gemmini-16x16"), &error), qPrintable(error));
        view.setSnapshot(bare.snapshot());
        QVERIFY(view.percentOfBound(CostView::Figure::Cycles) < 0.005);
        QVERIFY2(view.figureText(CostView::Figure::Cycles).endsWith(QStringLiteral("| <0.01%")), qPrintable(view.figureText(CostView::Figure::Cycles)));

        QVERIFY(doc.openSchedule(source("examples/schedules/matmul_f32_tiled.sched.yaml"), &error));
        view.setSnapshot(doc.snapshot());
        QVERIFY(!view.figureShown(CostView::Figure::PeUtilisation));
        QCOMPARE(view.percentOfBound(CostView::Figure::PeUtilisation), -1.0);
    }
};

QTEST_MAIN(TestGemminiApp)
#include "test_gemmini_app.moc"
