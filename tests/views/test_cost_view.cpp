// CostView: every example draws; headline percentages of the bounds for known cases; the
// history grows by one point per new revision and resets; the painted charts carry the
// report's figures and repaint only when they change; the predicted instructions and where
// they go.
#include "charts/cost_view.h"
#include "charts/painted_chart.h"
#include "view_test_support.h"

#include <QTemporaryDir>
#include <QTest>

using namespace loopscope;
using namespace loopscope::viewtest;
using Figure = ui::CostView::Figure;

class TestCostView : public QObject {
    Q_OBJECT

private slots:
    void placeholderWhenEmpty()
    {
        ui::CostView v;
        v.setSnapshot({});
        QVERIFY(!render(v, QSize(500, 400)).isNull());
        QCOMPARE(v.historySize(), 0);
        QVERIFY(v.percentOfBound(Figure::Cycles) < 0);
    }

    void everyExampleDraws_data()
    {
        QTest::addColumn<QString>("path");
        for (const QString& p : exampleSchedules())
            QTest::newRow(qPrintable(baseName(p))) << p;
    }
    void everyExampleDraws()
    {
        QFETCH(QString, path);
        QString error;
        ui::Snapshot s = snapshotOf(path, 1, &error);
        QVERIFY2(!s.empty(), qPrintable(error));
        ui::CostView v;
        v.setSnapshot(s);
        QImage img = render(v, v.sizeHint());
        QVERIFY(colourCount(img) >= 8);
        // No estimate beats its bound, so no share is above 100%.
        for (Figure f : {Figure::Cycles, Figure::Latency, Figure::Energy, Figure::Macs, Figure::CompulsoryTraffic,
                         Figure::IoLowerBoundTraffic})
            QVERIFY2(v.percentOfBound(f) <= 100.0 + 1e-9, qPrintable(v.figureText(f)));
        const QString base = baseName(path);
        if (base == QLatin1String("matmul_f32_tiled") || base == QLatin1String("dwsep_conv_fused"))
            savePicture(img, QStringLiteral("cost_") + base);
    }

    void percentagesOfTheBoundsOfTheTiledMatmul()
    {
        // docs/cost-model.md, worked example 1: 1,664,609 cycles against a compute bound of
        // 262,144; DRAM traffic 147,456 B against 49,152 compulsory; I/O bound 0.
        ui::Snapshot s = snapshotOf(examplePath(QStringLiteral("matmul_f32_tiled")));
        QVERIFY(!s.empty());
        QCOMPARE(s.report->cycles.total, 1664609);
        ui::CostView v;
        v.setSnapshot(s);
        QVERIFY(qAbs(v.percentOfBound(Figure::Cycles) - 262144.0 / 1664609.0 * 100) < 1e-9);
        QVERIFY(qAbs(v.percentOfBound(Figure::Latency) - 262144.0 / 1664609.0 * 100) < 1e-6);
        QVERIFY(qAbs(v.percentOfBound(Figure::CompulsoryTraffic) - 100.0 / 3) < 1e-9);
        QVERIFY(v.percentOfBound(Figure::IoLowerBoundTraffic) < 0);   // the bound is 0 here
        // MACs: 262,144 MACs in 1,664,609 cycles at a peak of 1 MAC per cycle.
        QVERIFY(qAbs(v.percentOfBound(Figure::Macs) - 262144.0 / 1664609.0 * 100) < 1e-9);
        // Energy floor: MACs x pJ/MAC + compulsory bytes x DRAM pJ/B, below the estimate.
        QVERIFY(v.percentOfBound(Figure::Energy) > 0 && v.percentOfBound(Figure::Energy) < 100);

        QString cycles = v.figureText(Figure::Cycles);
        QVERIFY2(cycles.contains(QStringLiteral("1,664,609")), qPrintable(cycles));
        QVERIFY2(cycles.contains(QStringLiteral("262,144")), qPrintable(cycles));
        QVERIFY2(cycles.contains(QStringLiteral("15.7%")), qPrintable(cycles));
        QString traffic = v.figureText(Figure::CompulsoryTraffic);
        QVERIFY2(traffic.contains(QStringLiteral("144 KiB")) && traffic.contains(QStringLiteral("48 KiB compulsory")), qPrintable(traffic));
        QVERIFY2(traffic.contains(QStringLiteral("33.3%")), qPrintable(traffic));
        QVERIFY2(v.figureText(Figure::Latency).contains(QStringLiteral("4.162 ms")), qPrintable(v.figureText(Figure::Latency)));
    }

    void percentOfAPositiveIoLowerBound()
    {
        // On a 256-byte SRAM the I/O lower bound of a 16^3 matmul is positive.
        QTemporaryDir dir;
        QString target = sourceDir() + QStringLiteral("/tests/data/targets/tiny-sram.target.yaml");
        QString path = writeSchedule(dir.path(), QStringLiteral("tiny"), QStringLiteral("matmul_f32"), target,
                                     QStringLiteral("{M: 16, N: 16, K: 16}"), QString());
        QString error;
        ui::Snapshot s = snapshotOf(path, 1, &error);
        QVERIFY2(!s.empty(), qPrintable(error));
        QVERIFY(s.report->bounds.ioLowerBoundBytes && *s.report->bounds.ioLowerBoundBytes > 0);
        ui::CostView v;
        v.setSnapshot(s);
        const auto& dram = s.report->levels[0];
        double expected = double(*s.report->bounds.ioLowerBoundBytes) / double(dram.readBytes + dram.writeBytes) * 100;
        QVERIFY(qAbs(v.percentOfBound(Figure::IoLowerBoundTraffic) - expected) < 1e-9);
        QVERIFY(v.percentOfBound(Figure::IoLowerBoundTraffic) <= 100);
        QVERIFY(!render(v, v.sizeHint()).isNull());
    }

    void historyGrowsByOnePerNewRevision()
    {
        ui::Snapshot tiled = snapshotOf(examplePath(QStringLiteral("matmul_f32_tiled")), 1);
        ui::Snapshot naive = snapshotOf(examplePath(QStringLiteral("matmul_f32_naive")), 2);
        QVERIFY(!tiled.empty() && !naive.empty());
        ui::CostView v;
        QCOMPARE(v.historySize(), 0);
        v.setSnapshot(tiled);
        QCOMPARE(v.historySize(), 1);
        v.setSnapshot(tiled);   // the same revision again: no new point
        QCOMPARE(v.historySize(), 1);
        v.setSnapshot(naive);
        QCOMPARE(v.historySize(), 2);
        ui::Snapshot again = tiled;
        again.revision = 3;
        v.setSnapshot(again);
        QCOMPARE(v.historySize(), 3);
        std::vector<double> values = v.historyValues();
        QCOMPARE(values.size(), size_t(3));
        QCOMPARE(values[0], double(tiled.report->cycles.total));
        QCOMPARE(values[1], double(naive.report->cycles.total));
        QImage img = render(v, v.sizeHint());
        savePicture(img, QStringLiteral("cost_history"));
        // An empty snapshot (the document closed) adds nothing.
        v.setSnapshot({});
        QCOMPARE(v.historySize(), 3);

        v.clearHistory();
        QCOMPARE(v.historySize(), 0);
        QVERIFY(v.historyValues().empty());
        v.setSnapshot(again);   // first snapshot of the new document
        QCOMPARE(v.historySize(), 1);
        QVERIFY(!render(v, v.sizeHint()).isNull());
    }

    void chartCaptionsCarryTheFiguresOfEachEdit()
    {
        // The figures that change with every edit are under the charts, not in their titles
        // or category labels (a new label relays the whole chart out).
        ui::Snapshot s = snapshotOf(examplePath(QStringLiteral("matmul_f32_tiled")), 1);
        QVERIFY(!s.empty());
        ui::CostView v;
        QCOMPARE(v.chartCaption(2), QStringLiteral("no edits yet"));
        v.setSnapshot(s);
        // 147,456 B to and from DRAM; the SRAM figure is its reads and writes.
        QVERIFY2(v.chartCaption(0).contains(QStringLiteral("DRAM 144 KiB")), qPrintable(v.chartCaption(0)));
        QVERIFY2(v.chartCaption(0).contains(QStringLiteral("SRAM ")), qPrintable(v.chartCaption(0)));
        QVERIFY2(v.chartCaption(1).startsWith(QStringLiteral("compute ")) && v.chartCaption(1).contains(QStringLiteral("transfer "))
                     && v.chartCaption(1).contains(QStringLiteral("overlap 0.00")),
                 qPrintable(v.chartCaption(1)));
        QVERIFY2(v.chartCaption(2).startsWith(QStringLiteral("1 point, the last ")), qPrintable(v.chartCaption(2)));
        ui::Snapshot again = s;
        again.revision = 2;
        v.setSnapshot(again);
        QVERIFY2(v.chartCaption(2).startsWith(QStringLiteral("2 points, the last ")), qPrintable(v.chartCaption(2)));
        QVERIFY2(v.chartCaption(3).contains(QStringLiteral("fpu ")), qPrintable(v.chartCaption(3)));   // a float kernel
    }

    void chartsCarryTheReportsFigures()
    {
        ui::Snapshot s = snapshotOf(examplePath(QStringLiteral("matmul_f32_tiled")), 1);
        QVERIFY(!s.empty());
        const analysis::CostReport& r = *s.report;
        ui::CostView v;
        v.setSnapshot(s);
        v.resize(560, 1400);
        v.show();
        QCoreApplication::processEvents();
        // Traffic: a bar per level (outermost on top), a segment per tensor, in KiB here.
        const ui::StackedBarChart* traffic = v.barChart(0);
        QVERIFY(traffic);
        QCOMPARE(traffic->categories().size(), int(r.levels.size()));
        QCOMPARE(traffic->categories().front(), QString::fromStdString(r.levels[0].name));
        // SRAM moves more than a MiB: the axis is in MiB.
        QVERIFY2(traffic->title().endsWith(QStringLiteral("(MiB)")), qPrintable(traffic->title()));
        const double unit = 1024.0 * 1024.0;
        for (size_t l = 0; l < r.levels.size(); ++l) {
            double sum = 0;
            for (size_t t = 0; t < traffic->series().size(); ++t)
                sum += traffic->value(int(t), int(l));
            QVERIFY(qAbs(sum * unit - double(r.levels[l].readBytes + r.levels[l].writeBytes)) < 1e-3);
        }
        // The tooltip of a segment names its tensor and level, for every level.
        QStringList tips;
        for (int y = 0; y < traffic->height(); y += 2)
            for (int x = 0; x < traffic->width(); x += 2)
                if (const QString tip = traffic->toolTipAt(QPoint(x, y)); !tip.isEmpty() && !tips.contains(tip))
                    tips << tip;
        for (const auto& level : r.levels) {
            const QString in = QStringLiteral(" in %1: ").arg(QString::fromStdString(level.name));
            QVERIFY2(std::any_of(tips.begin(), tips.end(), [&](const QString& t) { return t.contains(in) && t.contains(QStringLiteral(" read, ")); }),
                     qPrintable(tips.join(QStringLiteral(" | "))));
        }
        QVERIFY(traffic->toolTipAt(QPoint(0, 0)).isEmpty());   // the title
        // Cycles: total = compute + the transfer not hidden; the bound on its own bar.
        const ui::StackedBarChart* cycles = v.barChart(1);
        QCOMPARE(cycles->categories(), QStringList({QStringLiteral("total"), QStringLiteral("transfer"), QStringLiteral("bound")}));
        QVERIFY(qAbs((cycles->value(0, 0) + cycles->value(1, 0)) * 1e6 - double(r.cycles.total)) < 1);   // in millions
        QVERIFY(qAbs(cycles->value(3, 2) * 1e6 - double(r.bounds.computeCycles)) < 1e-3);
        // The value axes cover their largest bar.
        for (const auto& level : r.levels)
            QVERIFY(traffic->scale().max() * unit >= double(level.readBytes + level.writeBytes));
        QVERIFY(cycles->scale().max() * 1e6 >= double(r.cycles.total));
    }

    void instructionsRowAndChartShowThePrediction()
    {
        ui::Snapshot s = snapshotOf(examplePath(QStringLiteral("conv2d_int8_dsp")), 1);
        QVERIFY(!s.empty());
        const analysis::InstructionReport& ins = s.report->instructions;
        QVERIFY(ins.available && ins.predicted > 0 && ins.copies > 0);
        ui::CostView v;
        v.setSnapshot(s);
        QVERIFY(v.figureShown(Figure::Instructions));
        const QString row = v.figureText(Figure::Instructions);
        QVERIFY2(row.contains(QLocale(QLocale::English).toString(qlonglong(ins.predicted))), qPrintable(row));
        QVERIFY2(row.contains(QStringLiteral(" per MAC")) && row.contains(QStringLiteral("in copies")), qPrintable(row));
        // The chart: the kernel's categories on the first bar, the copies on the second, in the
        // unit its title names (millions from 1,000,000 on, as conv2d_int8_dsp's kernel is since
        // session 18); the legend names every category that has instructions.
        const ui::StackedBarChart* chart = v.barChart(3);
        QVERIFY(chart);
        const double unit = std::max(ins.kernel, ins.copies) >= 1000000 ? 1e6 : 1e3;
        QVERIFY2(chart->title().contains(unit == 1e6 ? QStringLiteral("(M)") : QStringLiteral("(K)")), qPrintable(chart->title()));
        double kernel = 0, copies = 0;
        for (size_t i = 0; i < chart->series().size(); ++i) {
            kernel += chart->value(int(i), 0);
            copies += chart->value(int(i), 1);
        }
        QVERIFY2(qAbs(kernel * unit - double(ins.kernel)) < 1e-6 * double(ins.kernel), qPrintable(QString::number(kernel)));
        QVERIFY(qAbs(copies * unit - double(ins.copies)) < 1e-6 * double(ins.copies));
        QStringList named;
        for (const auto& series : chart->series())
            named << series.name;
        for (const auto& [category, count] : ins.breakdown)
            QCOMPARE(named.contains(QString::fromStdString(category)), count > 0);
        QVERIFY(named.contains(QStringLiteral("smlad")));   // the DSP path
        QVERIFY2(v.chartCaption(3).contains(QStringLiteral("smlad ")), qPrintable(v.chartCaption(3)));
        QVERIFY(v.caveatText().contains(QStringLiteral("the instructions the exported kernel executes (the Instructions row")));
        // The cycles' tooltip says where the compute estimate comes from.
        QVERIFY2(v.figureToolTip(Figure::Cycles).contains(QStringLiteral("cycles from the predicted instructions: issue")),
                 qPrintable(v.figureToolTip(Figure::Cycles)));
        savePicture(render(v, QSize(560, 1300)), QStringLiteral("cost_instructions_conv2d_int8_dsp"));

        // On a PE-array target the instruction model does not apply: no row.
        ui::Snapshot g = snapshotOf(examplePath(QStringLiteral("gemmini_matmul_sym_hand")), 2);
        QVERIFY(!g.empty());
        v.setSnapshot(g);
        QVERIFY(!v.figureShown(Figure::Instructions));
    }

    void aChartRepaintsOnlyWhenItsValuesChange()
    {
        ui::Snapshot s = snapshotOf(examplePath(QStringLiteral("matmul_f32_tiled")), 1);
        QVERIFY(!s.empty());
        ui::CostView v;
        v.resize(560, 1400);
        v.show();
        v.setSnapshot(s);
        for (int i = 0; i < 3; ++i)
            QCoreApplication::processEvents();
        const int traffic = v.barChart(0)->paintCount();
        const int cycles = v.barChart(1)->paintCount();
        QVERIFY(traffic > 0 && cycles > 0);
        // A new revision of the same schedule: the history changes, the bars do not.
        ui::Snapshot again = s;
        again.revision = 2;
        v.setSnapshot(again);
        for (int i = 0; i < 3; ++i)
            QCoreApplication::processEvents();
        QCOMPARE(v.barChart(0)->paintCount(), traffic);
        QCOMPARE(v.barChart(1)->paintCount(), cycles);
        QCOMPARE(v.historyChart()->estimate().size(), size_t(2));
        // Another schedule: they repaint.
        ui::Snapshot naive = snapshotOf(examplePath(QStringLiteral("matmul_f32_naive")), 3);
        v.setSnapshot(naive);
        for (int i = 0; i < 3; ++i)
            QCoreApplication::processEvents();
        QVERIFY(v.barChart(0)->paintCount() > traffic);
        QVERIFY(v.barChart(1)->paintCount() > cycles);
    }

    void valueScaleGrowsAtOnceAndShrinksBelowAThird()
    {
        ui::ValueScale scale;
        QVERIFY(scale.fit(10));
        QVERIFY(scale.max() >= 10.5);
        const double max = scale.max();
        QVERIFY(!scale.fit(5));            // still fits well: the labels stay
        QCOMPARE(scale.max(), max);
        QVERIFY(scale.fit(max + 1));       // passes the end: grows
        QVERIFY(scale.max() >= (max + 1) * 1.05);
        QVERIFY(scale.fit(1));             // below a third: shrinks
        QVERIFY(scale.max() < 2);
        const std::vector<double> ticks = scale.ticks();
        QCOMPARE(ticks.front(), 0.0);
        QVERIFY(qAbs(ticks.back() - scale.max()) < 1e-9);
        QCOMPARE(scale.label(0.5), QStringLiteral("0.5"));
    }

    void smallSizesDoNotCrash()
    {
        ui::CostView v;
        v.setSnapshot(snapshotOf(examplePath(QStringLiteral("dwsep_conv_fused"))));
        for (QSize size : {QSize(1, 1), QSize(200, 150), QSize(1600, 500)})
            QVERIFY(!render(v, size).isNull());
        // The size of a dock beside the memory view: the charts scroll, the headline stays.
        savePicture(render(v, QSize(480, 560)), QStringLiteral("cost_dwsep_conv_fused_dock"));
    }
};

QTEST_MAIN(TestCostView)
#include "test_cost_view.moc"
