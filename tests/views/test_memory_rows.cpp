// Memory view on a PE-array target: the scratchpad and the accumulator drawn by rows, each
// buffer at the rows lower::placeRows gives it (those the exported code addresses), the banks
// marked; byte-addressed levels stay as they are.
#include "memory_view.h"
#include "view_test_support.h"

#include <QtTest>

using namespace loopscope;
using namespace loopscope::viewtest;

class TestMemoryRows : public QObject {
    Q_OBJECT
private slots:
    void scratchpadAndAccumulatorByRowsAndBanks()
    {
        QString error;
        const ui::Snapshot s = snapshotOf(examplePath(QStringLiteral("gemmini_matmul_sym_hand")), 1, &error);
        QVERIFY2(!s.empty(), qPrintable(error));
        ui::MemoryView view;
        view.resize(900, 420);
        view.setSnapshot(s);
        // analyze: scratchpad rows 1280 of 16384 (4 banks x 4096 rows of 16 B); accumulator 256 of 1024 (2 x 512 of 64 B).
        QCOMPARE(view.levelText(QStringLiteral("scratchpad")),
                 QStringLiteral("scratchpad  1,280 of 16,384 rows (7.8%) · 4 banks × 4,096 × 16 B"));
        QCOMPARE(view.levelText(QStringLiteral("accumulator")),
                 QStringLiteral("accumulator  256 of 1,024 rows (25.0%) · 2 banks × 512 × 64 B"));
        QCOMPARE(view.bankLines(QStringLiteral("scratchpad")), 3);
        QCOMPARE(view.bankLines(QStringLiteral("accumulator")), 1);
        QCOMPARE(view.bankLines(QStringLiteral("DRAM")), 0);
        QVERIFY(view.levelText(QStringLiteral("DRAM")).contains(QStringLiteral("of 1 GiB")));
        // A at rows 0-1023, B's double buffer after it: drawn in that order, B twice as wide as one half.
        const QRectF a = view.bufferRect(QStringLiteral("scratchpad"), QStringLiteral("A_scratchpad"));
        const QRectF b = view.bufferRect(QStringLiteral("scratchpad"), QStringLiteral("B_scratchpad"));
        QVERIFY(!a.isEmpty() && !b.isEmpty());
        QVERIFY(a.left() < b.left());
        QVERIFY(qAbs(b.left() - a.right()) < 1.5);
        QVERIFY(qAbs(a.width() / b.width() - 1024.0 / 256.0) < 0.05);
        const QString tip = view.toolTipAt(b.center());
        QVERIFY2(tip.contains(QStringLiteral("rows 1024-1151 and 1152-1279")), qPrintable(tip));
        QVERIFY2(tip.contains(QStringLiteral("bank 0")), qPrintable(tip));
        // A dock too narrow for the title elides it; hovering the title shows it whole.
        view.resize(300, 420);
        const QRectF a2 = view.bufferRect(QStringLiteral("scratchpad"), QStringLiteral("A_scratchpad"));
        // (A is in the magnified strip: the title is 60 px above it, over the bar and its gap.)
        QCOMPARE(view.toolTipAt(QPointF(a2.left() + 4, a2.top() - 60)), view.levelText(QStringLiteral("scratchpad")));
        view.resize(900, 420);
        const QImage image = render(view, QSize(900, 420));
        QVERIFY(colourCount(image) > 4);
        savePicture(image, QStringLiteral("memory_rows_gemmini"));
    }
};

QTEST_MAIN(TestMemoryRows)
#include "test_memory_rows.moc"
