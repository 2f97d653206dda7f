// MemoryView: every example draws; overflow shown with its amount; hit-testing, tooltips and
// clicks name the right buffer and step; the loop highlight changes the picture.
#include "memory_view.h"
#include "view_test_support.h"

#include <QHelpEvent>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QToolTip>

using namespace loopscope;
using namespace loopscope::viewtest;

class TestMemoryView : public QObject {
    Q_OBJECT

private slots:
    void placeholderWhenEmpty()
    {
        ui::MemoryView v;
        v.setSnapshot({});
        QImage img = render(v, QSize(500, 200));
        QVERIFY(!img.isNull());
        QVERIFY(v.levelText(QStringLiteral("DRAM")).isEmpty());
        QVERIFY(v.bufferAt(QPointF(100, 50)).isEmpty());
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
        ui::MemoryView v;
        v.setSnapshot(s);
        QImage img = render(v, v.sizeHint());
        QVERIFY(colourCount(img) >= 4);
        for (const auto& l : s.report->levels) {
            QString text = v.levelText(QString::fromStdString(l.name));
            QVERIFY2(text.startsWith(QString::fromStdString(l.name)), qPrintable(text));
            QVERIFY2(text.contains(QLatin1Char('%')), qPrintable(text));
            // Every buffer live at the peak is drawn and can be found where it is drawn.
            for (const auto& b : l.buffers) {
                QRectF r = v.bufferRect(QString::fromStdString(l.name), QString::fromStdString(b.name));
                QVERIFY2(r.width() >= 2, qPrintable(QString::fromStdString(b.name)));
                QCOMPARE(v.bufferAt(r.center()), QString::fromStdString(b.name));
            }
            if (l.usedBytes <= l.capacityBytes)
                QVERIFY(v.overflowText(QString::fromStdString(l.name)).isEmpty());
        }
        const QString base = baseName(path);
        if (base == QLatin1String("matmul_f32_tiled") || base == QLatin1String("dwsep_conv_fused")
            || base == QLatin1String("conv2d_int8_tiled"))
            savePicture(img, QStringLiteral("memory_") + base);
    }

    void overCapacityShowsTheAmountInRed()
    {
        // 256 x 256 float32 A and B (256 KiB each) whole in the 192 KiB SRAM of a Cortex-M4.
        QTemporaryDir dir;
        QString path = writeSchedule(dir.path(), QStringLiteral("over"), QStringLiteral("matmul_f32"), QStringLiteral("cortex-m4"),
                                     QStringLiteral("{M: 256, N: 256, K: 256}"),
                                     QStringLiteral("  - cache_read: {tensor: A, level: SRAM, at: root}\n"
                                                    "  - cache_read: {tensor: B, level: SRAM, at: root}\n"));
        QString error;
        ui::Snapshot s = snapshotOf(path, 1, &error);
        QVERIFY2(!s.empty(), qPrintable(error));
        QVERIFY(s.report->hasErrors());
        ui::MemoryView v;
        v.setSnapshot(s);
        QImage img = render(v, QSize(640, v.sizeHint().height()));
        QCOMPARE(v.overflowText(QStringLiteral("SRAM")), QStringLiteral("+320 KiB over"));
        QVERIFY(v.overflowText(QStringLiteral("DRAM")).isEmpty());
        QVERIFY2(v.levelText(QStringLiteral("SRAM")).contains(QStringLiteral("512 KiB of 192 KiB")), qPrintable(v.levelText(QStringLiteral("SRAM"))));
        // Past the capacity line the bar is red: B_SRAM lies wholly in the overflow.
        QRectF b = v.bufferRect(QStringLiteral("SRAM"), QStringLiteral("B_SRAM"));
        QVERIFY(!b.isEmpty());
        QColor c = img.pixelColor(QPoint(int(b.left()) + 8, int(b.top()) + 5));
        QVERIFY2(c.red() > c.green() + 40 && c.red() > c.blue() + 40, qPrintable(c.name()));
        savePicture(img, QStringLiteral("memory_over_capacity"));
    }

    void tooltipHitTestAndClickNameTheBuffer()
    {
        ui::Snapshot s = snapshotOf(examplePath(QStringLiteral("matmul_f32_tiled")));
        QVERIFY(!s.empty());
        ui::MemoryView v;
        v.setSnapshot(s);
        render(v, QSize(600, 260));
        QRectF a = v.bufferRect(QStringLiteral("SRAM"), QStringLiteral("A_SRAM"));
        QRectF b = v.bufferRect(QStringLiteral("SRAM"), QStringLiteral("B_SRAM"));
        QVERIFY(!a.isEmpty() && !b.isEmpty());
        QVERIFY(a.right() <= b.left() + 0.5);   // stacked, A first
        QCOMPARE(v.bufferAt(a.center()), QStringLiteral("A_SRAM"));
        QCOMPARE(v.bufferAt(b.center()), QStringLiteral("B_SRAM"));
        QString tip = v.toolTipAt(a.center());
        QVERIFY2(tip.contains(QStringLiteral("A_SRAM")), qPrintable(tip));
        QVERIFY2(tip.contains(QStringLiteral("16 × 64")), qPrintable(tip));
        QVERIFY2(tip.contains(QStringLiteral("4 KiB")), qPrintable(tip));
        QVERIFY2(tip.contains(QStringLiteral("j.outer")), qPrintable(tip));
        QVERIFY2(tip.contains(QStringLiteral("step 4")), qPrintable(tip));
        QVERIFY(v.toolTipAt(QPointF(-10, -10)).isEmpty());

        // The real tooltip event shows the same text.
        QHelpEvent help(QEvent::ToolTip, a.center().toPoint(), v.mapToGlobal(a.center().toPoint()));
        QCoreApplication::sendEvent(&v, &help);
        QCOMPARE(QToolTip::text(), tip);
        QToolTip::hideText();

        QSignalSpy spy(&v, &ui::MemoryView::stepActivated);
        QTest::mouseClick(&v, Qt::LeftButton, {}, b.center().toPoint());
        QCOMPARE(spy.count(), 1);
        QCOMPARE(spy.at(0).at(0).toInt(), 4);   // 0-based: cache_read B is the fifth step
        QTest::mouseClick(&v, Qt::LeftButton, {}, a.center().toPoint());
        QCOMPARE(spy.count(), 2);
        QCOMPARE(spy.at(1).at(0).toInt(), 3);
        // A home tensor was placed by no step.
        QRectF home = v.bufferRect(QStringLiteral("DRAM"), QStringLiteral("A"));
        QVERIFY(!home.isEmpty());
        QTest::mouseClick(&v, Qt::LeftButton, {}, home.center().toPoint());
        QCOMPARE(spy.count(), 3);
        QCOMPARE(spy.at(2).at(0).toInt(), -1);
    }

    void intermediateAndDoubleBuffer()
    {
        ui::MemoryView v;
        ui::Snapshot fused = snapshotOf(examplePath(QStringLiteral("dwsep_conv_fused")));
        QVERIFY(!fused.empty());
        v.setSnapshot(fused);
        render(v, QSize(700, 260));
        QRectF d = v.bufferRect(QStringLiteral("SRAM"), QStringLiteral("D_SRAM"));
        QVERIFY(!d.isEmpty());
        QString tip = v.toolTipAt(d.center());
        QVERIFY2(tip.contains(QStringLiteral("intermediate")), qPrintable(tip));
        QVERIFY2(tip.contains(QStringLiteral("h.outer")), qPrintable(tip));
        QSignalSpy spy(&v, &ui::MemoryView::stepActivated);
        QTest::mouseClick(&v, Qt::LeftButton, {}, d.center().toPoint());
        QCOMPARE(spy.count(), 1);
        QCOMPARE(spy.at(0).at(0).toInt(), 1);   // compute_at D at h.outer

        ui::Snapshot conv = snapshotOf(examplePath(QStringLiteral("conv2d_int8_tiled")));
        QVERIFY(!conv.empty());
        v.setSnapshot(conv);
        render(v, QSize(700, 260));
        QRectF i = v.bufferRect(QStringLiteral("SRAM"), QStringLiteral("I_SRAM"));
        QString itip = v.toolTipAt(i.center());
        QVERIFY2(itip.contains(QStringLiteral("double-buffered")), qPrintable(itip));
        QVERIFY2(itip.contains(QStringLiteral("2 × ")), qPrintable(itip));
    }

    void highlightedLoopChangesThePicture()
    {
        ui::Snapshot s = snapshotOf(examplePath(QStringLiteral("matmul_f32_tiled")));
        ui::MemoryView v;
        v.setSnapshot(s);
        QImage plain = render(v, QSize(600, 260));
        v.setHighlightedLoop(QStringLiteral("j.outer"));
        QImage lit = render(v, QSize(600, 260));
        QVERIFY(plain != lit);
        savePicture(lit, QStringLiteral("memory_matmul_f32_tiled_highlight_j.outer"));
        v.setHighlightedLoop(QStringLiteral("i.inner"));   // nothing lives there
        QCOMPARE(render(v, QSize(600, 260)), plain);
        v.setHighlightedLoop(QString());
        QCOMPARE(render(v, QSize(600, 260)), plain);
        // A stage-qualified name and a plain one match the same loop.
        ui::Snapshot fused = snapshotOf(examplePath(QStringLiteral("dwsep_conv_fused")));
        v.setSnapshot(fused);
        v.setHighlightedLoop(QString());
        QImage fusedPlain = render(v, QSize(600, 260));
        v.setHighlightedLoop(QStringLiteral("h.outer"));
        QVERIFY(render(v, QSize(600, 260)) != fusedPlain);
    }

    // An edit that moves no buffer (a new revision of the same figures) repaints nothing; one
    // that changes a buffer's size repaints the picture.
    void onlyAChangedPictureIsRepainted()
    {
        struct PaintCount : QObject {
            int paints = 0;
            bool eventFilter(QObject*, QEvent* e) override
            {
                paints += e->type() == QEvent::Paint ? 1 : 0;
                return false;
            }
        } count;
        ui::Snapshot s = snapshotOf(examplePath(QStringLiteral("matmul_f32_tiled")));
        ui::MemoryView v;
        v.setSnapshot(s);
        const QImage before = render(v, QSize(600, 260));
        v.installEventFilter(&count);
        ui::Snapshot again = s;
        again.revision = 2;
        v.setSnapshot(again);
        for (int i = 0; i < 3; ++i)
            QCoreApplication::processEvents();
        QCOMPARE(count.paints, 0);

        auto report = std::make_shared<analysis::CostReport>(*s.report);
        bool grown = false;
        for (auto& level : report->levels)
            for (auto& b : level.buffers)
                if (!grown && b.bytes > 0) {
                    b.bytes *= 2;
                    level.usedBytes += b.bytes / 2;
                    grown = true;
                }
        QVERIFY(grown);
        ui::Snapshot bigger = s;
        bigger.report = report;
        bigger.revision = 3;
        v.setSnapshot(bigger);
        for (int i = 0; i < 3; ++i)
            QCoreApplication::processEvents();
        QVERIFY(count.paints > 0);
        QVERIFY(v.grab().toImage() != before);
    }

    void randomSchedulesDraw()
    {
        // Every buffer the report lists at a peak is drawn and found where it is drawn.
        ui::MemoryView v;
        const auto cases = randomCases();
        for (size_t i = 0; i < cases.size(); ++i) {
            QString error;
            const std::vector<ui::Snapshot> snapshots = randomSnapshots(cases[i], 15, 2000 + i, &error);
            QVERIFY2(!snapshots.empty(), qPrintable(error));
            for (const ui::Snapshot& s : snapshots) {
                v.setSnapshot(s);
                QVERIFY(colourCount(render(v, QSize(520, v.sizeHint().height()))) >= 3);
                for (const auto& l : s.report->levels) {
                    QCOMPARE(v.overflowText(QString::fromStdString(l.name)).isEmpty(), l.usedBytes <= l.capacityBytes);
                    for (const auto& b : l.buffers) {
                        QRectF r = v.bufferRect(QString::fromStdString(l.name), QString::fromStdString(b.name));
                        QVERIFY(!r.isEmpty());
                        QVERIFY(v.toolTipAt(r.center()).contains(QString::fromStdString(b.name)));
                    }
                }
            }
        }
    }

    void smallAndOddSizesDoNotCrash()
    {
        ui::Snapshot s = snapshotOf(examplePath(QStringLiteral("dwsep_conv_fused")));
        ui::MemoryView v;
        v.setSnapshot(s);
        for (QSize size : {QSize(1, 1), QSize(40, 30), QSize(120, 400), QSize(2000, 120)})
            QVERIFY(!render(v, size).isNull());
    }
};

QTEST_MAIN(TestMemoryView)
#include "test_memory_view.moc"
