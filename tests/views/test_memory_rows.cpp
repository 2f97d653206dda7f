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
        // The rows in words, singular and plural written out ("row(s)" showed without a translation).
        QCOMPARE(view.bufferLabel(QStringLiteral("scratchpad"), QStringLiteral("A_scratchpad")), QStringLiteral("A_scratchpad 1024 rows"));
        QCOMPARE(view.bufferLabel(QStringLiteral("scratchpad"), QStringLiteral("B_scratchpad")), QStringLiteral("B_scratchpad ×2 256 rows"));
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

    // After Tensorize on Gemmini: A and B take 16 rows each of a 16,384-row scratchpad. Their
    // magnified strip spans the bar's width, as the strips of the byte-addressed levels do (the
    // few pixels each buffer is widened to in the bar, magnified 512 times, ran past the right
    // edge), and each buffer has room there for its label.
    void theMagnifiedRowsSpanTheBar()
    {
        QString error;
        const ui::Snapshot s = snapshotOf(sourceDir() + QStringLiteral("/docs/tutorial/gemmini_2_tensorized.sched.yaml"), 1, &error);
        QVERIFY2(!s.empty(), qPrintable(error));
        ui::MemoryView view;
        view.resize(900, 600);
        view.setSnapshot(s);
        const QString level = QStringLiteral("scratchpad");
        QVERIFY2(view.levelText(level).startsWith(QStringLiteral("scratchpad  32 of 16,384 rows")), qPrintable(view.levelText(level)));
        const QRectF a = view.bufferRect(level, QStringLiteral("A_scratchpad"));
        const QRectF b = view.bufferRect(level, QStringLiteral("B_scratchpad"));
        QVERIFY(!a.isEmpty() && !b.isEmpty());
        // The bar runs from the margin to the margin (12 px each side).
        const qreal left = 12, right = view.width() - 12;
        const QString where = QStringLiteral("A %1..%2, B %3..%4, bar %5..%6")
                                  .arg(a.left()).arg(a.right()).arg(b.left()).arg(b.right()).arg(left).arg(right);
        QVERIFY2(qAbs(std::min(a.left(), b.left()) - left) < 0.5, qPrintable(where));
        QVERIFY2(qAbs(std::max(a.right(), b.right()) - right) < 0.5, qPrintable(where));
        QVERIFY2(qAbs(a.width() - b.width()) < 0.5, qPrintable(where));
        const QFontMetricsF fm(view.font());
        for (const auto& [rect, name] : {std::pair{a, QStringLiteral("A_scratchpad")}, std::pair{b, QStringLiteral("B_scratchpad")}})
            QVERIFY2(rect.width() - 8 >= fm.horizontalAdvance(name), qPrintable(name + QStringLiteral(": ") + where));
        savePicture(render(view, QSize(900, 600)), QStringLiteral("memory_rows_gemmini_tensorized"));
    }
};

QTEST_MAIN(TestMemoryRows)
#include "test_memory_rows.moc"
