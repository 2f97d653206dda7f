// CostView: every example draws; headline percentages of the bounds for known cases; the
// history grows by one point per new revision and resets.
#include "charts/cost_view.h"
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
        // docs/cost-model.md, worked example 1: 1,107,752 cycles against a compute bound of
        // 262,144; DRAM traffic 147,456 B against 49,152 compulsory; I/O bound 0.
        ui::Snapshot s = snapshotOf(examplePath(QStringLiteral("matmul_f32_tiled")));
        QVERIFY(!s.empty());
        QCOMPARE(s.report->cycles.total, 1107752);
        ui::CostView v;
        v.setSnapshot(s);
        QVERIFY(qAbs(v.percentOfBound(Figure::Cycles) - 262144.0 / 1107752.0 * 100) < 1e-9);
        QVERIFY(qAbs(v.percentOfBound(Figure::Latency) - 262144.0 / 1107752.0 * 100) < 1e-6);
        QVERIFY(qAbs(v.percentOfBound(Figure::CompulsoryTraffic) - 100.0 / 3) < 1e-9);
        QVERIFY(v.percentOfBound(Figure::IoLowerBoundTraffic) < 0);   // the bound is 0 here
        // MACs: 262,144 MACs in 1,107,752 cycles at a peak of 1 MAC per cycle.
        QVERIFY(qAbs(v.percentOfBound(Figure::Macs) - 262144.0 / 1107752.0 * 100) < 1e-9);
        // Energy floor: MACs x pJ/MAC + compulsory bytes x DRAM pJ/B, below the estimate.
        QVERIFY(v.percentOfBound(Figure::Energy) > 0 && v.percentOfBound(Figure::Energy) < 100);

        QString cycles = v.figureText(Figure::Cycles);
        QVERIFY2(cycles.contains(QStringLiteral("1,107,752")), qPrintable(cycles));
        QVERIFY2(cycles.contains(QStringLiteral("262,144")), qPrintable(cycles));
        QVERIFY2(cycles.contains(QStringLiteral("23.7%")), qPrintable(cycles));
        QString traffic = v.figureText(Figure::CompulsoryTraffic);
        QVERIFY2(traffic.contains(QStringLiteral("144 KiB")) && traffic.contains(QStringLiteral("48 KiB compulsory")), qPrintable(traffic));
        QVERIFY2(traffic.contains(QStringLiteral("33.3%")), qPrintable(traffic));
        QVERIFY2(v.figureText(Figure::Latency).contains(QStringLiteral("2.769 ms")), qPrintable(v.figureText(Figure::Latency)));
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
        QVERIFY(v.chartCaption(3).isEmpty());
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
