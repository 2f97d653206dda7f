// LiveLabel: a new text repaints the label and asks for a new layout only when the label's
// size changes (the point of the class: the Cost panel's figures change with every edit).
#include "live_label.h"
#include "view_test_support.h"

#include <QTest>
#include <QVBoxLayout>

using namespace loopscope;
using namespace loopscope::viewtest;

namespace {
/// A label in a laid-out window, shown offscreen.
struct Shown {
    QWidget window;
    ui::LiveLabel* label = nullptr;
    explicit Shown(const QString& text, int width = 400)
    {
        auto* layout = new QVBoxLayout(&window);
        label = new ui::LiveLabel(text, &window);
        layout->addWidget(label);
        layout->addStretch(1);
        window.resize(width, 300);
        window.show();
        settle();
    }
    static void settle()
    {
        for (int i = 0; i < 3; ++i)
            QCoreApplication::processEvents();
    }
    QImage picture() { return label->grab().toImage(); }
};

/// Pixels of an image close to a colour.
int pixelsNear(const QImage& image, QColor c)
{
    const QImage img = image.convertToFormat(QImage::Format_RGB32);
    int n = 0;
    for (int y = 0; y < img.height(); ++y)
        for (int x = 0; x < img.width(); ++x) {
            const QColor p = img.pixelColor(x, y);
            if (qAbs(p.red() - c.red()) < 40 && qAbs(p.green() - c.green()) < 40 && qAbs(p.blue() - c.blue()) < 40)
                ++n;
        }
    return n;
}
} // namespace

class TestLiveLabel : public QObject {
    Q_OBJECT

private slots:
    void aTextOfTheSameSizeIsRepaintedWithoutANewLayout()
    {
        // Digits have one advance in the fonts we ship with, as in most UI fonts.
        Shown s(QStringLiteral("1,107,752"));
        const int updates = s.label->geometryUpdates();
        const QImage before = s.picture();
        s.label->setText(QStringLiteral("2,694,530"));
        Shown::settle();
        QCOMPARE(s.label->text(), QStringLiteral("2,694,530"));
        QCOMPARE(s.label->geometryUpdates(), updates);
        QVERIFY(s.picture() != before);                       // but it shows the new figure
        QCOMPARE(s.label->accessibleName(), QStringLiteral("2,694,530"));
    }

    void aLongerTextGetsTheRoomItNeeds()
    {
        Shown s(QStringLiteral("144 KiB"));
        const int updates = s.label->geometryUpdates();
        const int before = s.label->sizeHint().width();
        s.label->setText(QStringLiteral("144 KiB, of which 48 KiB compulsory"));
        Shown::settle();
        QCOMPARE(s.label->geometryUpdates(), updates + 1);
        QVERIFY(s.label->sizeHint().width() > before);
        QVERIFY(s.label->width() >= s.label->sizeHint().width());
    }

    void growOnlyKeepsItsWidthWhenTheTextGetsShorter()
    {
        Shown s(QStringLiteral("1,107,752"));
        s.label->setGrowOnly(true);
        s.label->setText(QStringLiteral("12,107,752"));
        const int wide = s.label->sizeHint().width();
        const int updates = s.label->geometryUpdates();
        s.label->setText(QStringLiteral("752"));
        QCOMPARE(s.label->sizeHint().width(), wide);
        QCOMPARE(s.label->geometryUpdates(), updates);

        Shown plain(QStringLiteral("12,107,752"));
        const int plainWide = plain.label->sizeHint().width();
        plain.label->setText(QStringLiteral("752"));
        QVERIFY(plain.label->sizeHint().width() < plainWide);
    }

    void aWrappedTextGrowsInHeightAtItsWidth()
    {
        Shown s(QStringLiteral("compute 795 K + transfer 313 K"), 160);
        s.label->setWordWrap(true);
        Shown::settle();
        const int oneLine = s.label->heightForWidth(s.label->width());
        const int updates = s.label->geometryUpdates();
        s.label->setText(QStringLiteral("compute 795 K + transfer 313 K, overlap 0.00; what these count: MACs at the peak rate"));
        Shown::settle();
        QVERIFY(s.label->heightForWidth(s.label->width()) > oneLine);
        QVERIFY(s.label->geometryUpdates() > updates);
        QCOMPARE(s.label->height(), s.label->heightForWidth(s.label->width()));
        QVERIFY(s.label->heightForWidth(2000) < s.label->heightForWidth(160));
    }

    void richTextIsLaidOutAsRichText()
    {
        Shown rich(QStringLiteral("<b>conv2d_int8.c</b> &mdash; 4068 lines"));
        rich.label->setTextFormat(Qt::RichText);
        Shown plain(QStringLiteral("<b>conv2d_int8.c</b> &mdash; 4068 lines"));
        Shown::settle();
        // The tags and the entity are not shown: the rich label is narrower than the plain one.
        QVERIFY(rich.label->sizeHint().width() < plain.label->sizeHint().width());
        QVERIFY(colourCount(rich.picture()) >= 2);
        const int updates = rich.label->geometryUpdates();
        rich.label->setText(QStringLiteral("<b>conv2d_int8.c</b> &mdash; 4072 lines"));
        QCOMPARE(rich.label->geometryUpdates(), updates);
    }

    void richTextBreaksLinesAndKeepsItsSmallPrint()
    {
        // <br> breaks the line; <small> is smaller; a background span is drawn in its colour.
        Shown one(QStringLiteral("<b>matmul.c</b> &mdash; 44 lines"));
        one.label->setTextFormat(Qt::RichText);
        Shown two(QStringLiteral("<b>matmul.c</b> &mdash; 44 lines<br><span style='background:#fff3b0'>&nbsp;Yellow&nbsp;</span>: steps"));
        two.label->setTextFormat(Qt::RichText);
        Shown small(QStringLiteral("<b>matmul.c</b> &mdash; 44 lines<br><small><span style='background:#fff3b0'>&nbsp;Yellow&nbsp;</span>: steps</small>"));
        small.label->setTextFormat(Qt::RichText);
        Shown::settle();
        const int h1 = one.label->sizeHint().height();
        const int h2 = two.label->sizeHint().height();
        QVERIFY2(h2 > h1 * 3 / 2, qPrintable(QStringLiteral("%1 vs %2").arg(h1).arg(h2)));
        QVERIFY(small.label->sizeHint().height() < h2);
        QVERIFY(small.label->sizeHint().height() > h1);
        QVERIFY(pixelsNear(two.picture(), QColor(0xff, 0xf3, 0xb0)) > 20);
    }

    void aWrappedLabelsWidthHintOnlyGrows()
    {
        Shown s(QStringLiteral("Moved: DRAM 144 KiB · SRAM 2.13 MiB"));
        s.label->setWordWrap(true);
        const int wide = s.label->sizeHint().width();
        s.label->setText(QStringLiteral("Moved: DRAM 1 KiB"));
        QCOMPARE(s.label->sizeHint().width(), wide);
        s.label->setText(QStringLiteral("Moved: DRAM 144 KiB · SRAM 2.13 MiB · registers 12 KiB"));
        QVERIFY(s.label->sizeHint().width() > wide);
    }

    void aGrowOnlyWrappedLabelKeepsItsHeightWhenTheTextShortens()
    {
        // The Cost panel's captions: a caption one line shorter on the next edit, and longer
        // again on the one after, must not lay the panel out on either.
        const QString two = QStringLiteral("loads 19% · mla 35% · address 1% · guards 1.4% · requantize 8.5% · smlad 28% · copies 6.6%");
        const QString one = QStringLiteral("loads 19% · mla 35%");
        Shown s(two, 220);
        s.label->setWordWrap(true);
        s.label->setGrowOnly(true);
        Shown::settle();
        s.window.resize(220, 300);   // shown unwrapped first, the window grew to the line
        Shown::settle();
        const int tall = s.label->heightForWidth(s.label->width());
        QVERIFY2(tall >= 2 * s.label->fontMetrics().height(), qPrintable(QStringLiteral("%1 px tall at %2 px").arg(tall).arg(s.label->width())));
        const int updates = s.label->geometryUpdates();
        s.label->setText(one);
        Shown::settle();
        QCOMPARE(s.label->heightForWidth(s.label->width()), tall);
        s.label->setText(two);
        Shown::settle();
        QCOMPARE(s.label->geometryUpdates(), updates);
        QCOMPARE(s.label->height(), tall);
        // Without grow-only the same label follows its text.
        Shown plain(two, 220);
        plain.label->setWordWrap(true);
        Shown::settle();
        plain.window.resize(220, 300);
        Shown::settle();
        plain.label->setText(one);
        Shown::settle();
        QVERIFY(plain.label->heightForWidth(plain.label->width()) < tall);
    }

    void aGrowOnlyNoteClearedAndShownAgainLaysNothingOut()
    {
        // The Schedule panel's stale-description note: set and cleared on alternate edits.
        Shown s(QStringLiteral("Written for other steps: edit or clear it."));
        s.label->setGrowOnly(true);
        Shown::settle();
        const QSize hint = s.label->sizeHint();
        const int updates = s.label->geometryUpdates();
        s.label->setText(QString());
        Shown::settle();
        QCOMPARE(s.label->sizeHint(), hint);
        s.label->setText(QStringLiteral("Written for other steps: edit or clear it."));
        Shown::settle();
        QCOMPARE(s.label->geometryUpdates(), updates);
        // Without grow-only, clearing gives the room back.
        Shown plain(QStringLiteral("Written for other steps: edit or clear it."));
        plain.label->setText(QString());
        QVERIFY(plain.label->sizeHint().width() < hint.width() / 2);
    }

    void goingBackToTheTextBeforeLaysNothingOut()
    {
        // A step failing and applying again, a factor dragged down and back: the caption
        // alternates between two texts, and the one shown before keeps its layouts.
        const QString a = QStringLiteral("<b>Step 15 (tensorize) fails</b>: the accumulator tile is 96 rows, the array takes 16 at a time; split j by 16 first.");
        const QString b = QStringLiteral("15 steps, all applied. Double-click a step to edit it; drag rows to move.");
        Shown s(a);
        s.label->setTextFormat(Qt::RichText);
        s.label->setWordWrap(true);
        Shown::settle();
        const QImage pictureOfA = s.picture();
        s.label->setText(b);
        Shown::settle();
        const QImage pictureOfB = s.picture();
        const int made = s.label->layoutsMade();
        for (int i = 0; i < 3; ++i) {
            s.label->setText(a);
            Shown::settle();
            QCOMPARE(s.picture(), pictureOfA);
            s.label->setText(b);
            Shown::settle();
            QCOMPARE(s.picture(), pictureOfB);
        }
        QCOMPARE(s.label->layoutsMade(), made);
        // A third text is laid out; so is the text before after a change of format.
        s.label->setText(QStringLiteral("14 steps, all applied."));
        Shown::settle();
        QVERIFY(s.label->layoutsMade() > made);
        const int third = s.label->layoutsMade();
        s.label->setTextFormat(Qt::PlainText);
        s.label->setText(b);
        Shown::settle();
        QVERIFY(s.label->layoutsMade() > third);
        QCOMPARE(s.label->text(), b);
    }

    void drawsInItsColour()
    {
        Shown s(QStringLiteral("23.7%"));
        QFont bold = s.label->font();
        bold.setBold(true);
        bold.setPointSize(20);
        s.label->setFont(bold);
        s.label->setColor(QColor(0xc6, 0x28, 0x28));
        Shown::settle();
        QVERIFY(pixelsNear(s.picture(), QColor(0xc6, 0x28, 0x28)) > 20);
        s.label->setColor(QColor(0x2e, 0x7d, 0x32));
        Shown::settle();
        QCOMPARE(pixelsNear(s.picture(), QColor(0xc6, 0x28, 0x28)), 0);
        QVERIFY(pixelsNear(s.picture(), QColor(0x2e, 0x7d, 0x32)) > 20);
    }
};

QTEST_MAIN(TestLiveLabel)
#include "test_live_label.moc"
