// Code view: the text is kept as the generator's UTF-8 with its line offsets; lines, the whole
// text, the marked loop headers and the selection read from it; what is drawn is the visible
// lines, highlighted, in columns (glyph runs for ASCII, shaped text otherwise).
#include "code_view.h"
#include "view_test_support.h"

#include <QScrollBar>
#include <QTest>

using namespace loopscope;
using namespace loopscope::viewtest;

namespace {
/// Pixels of a band of rows close to a colour.
int pixelsNear(const QImage& image, QColor c, int top, int bottom)
{
    const QImage img = image.convertToFormat(QImage::Format_RGB32);
    int n = 0;
    for (int y = std::max(0, top); y < std::min(img.height(), bottom); ++y)
        for (int x = 0; x < img.width(); ++x) {
            const QColor p = img.pixelColor(x, y);
            if (qAbs(p.red() - c.red()) < 50 && qAbs(p.green() - c.green()) < 50 && qAbs(p.blue() - c.blue()) < 50)
                ++n;
        }
    return n;
}

const char* const kCode =
    "#include <stdint.h>\n"
    "/* a comment\n"
    "   that ends here */ int32_t acc = 0;\n"
    "static int f(int x) { return x; }  // a line comment\n"
    "    for (int i_outer = 0; i_outer < 8; ++i_outer) {\n"
    "        acc += f(i_outer);  /* 4 \xc2\xb5s, not ASCII */\n"
    "    }\n"
    "    for (int i_outer = 0; i_outer < 4; ++i_outer) {\n"
    "    }\n";
} // namespace

class TestCodeView : public QObject {
    Q_OBJECT

private slots:
    void linesAndTextAreTheGeneratedText()
    {
        ui::CodeView view;
        view.setCode(kCode, QStringLiteral("k.c"));
        ui::CodeArea* area = view.area();
        QCOMPARE(area->lineCount(), 9);   // the final newline starts no empty line
        QCOMPARE(area->line(0), QStringLiteral("#include <stdint.h>"));
        QCOMPARE(area->line(2), QStringLiteral("   that ends here */ int32_t acc = 0;"));
        QCOMPARE(area->line(5), QStringLiteral("        acc += f(i_outer);  /* 4 µs, not ASCII */"));
        QCOMPARE(view.text() + QStringLiteral("\n"), QString::fromUtf8(kCode));
        QCOMPARE(area->line(9), QString());   // past the end

        // Empty lines and a text without a final newline.
        view.setCode("a\n\n\nb", QStringLiteral("k.c"));
        QCOMPARE(area->lineCount(), 4);
        QCOMPARE(area->line(1), QString());
        QCOMPARE(area->line(3), QStringLiteral("b"));
        QCOMPARE(view.text(), QStringLiteral("a\n\n\nb"));
        view.setCode(std::string(), QString());
        QCOMPARE(area->lineCount(), 0);
        QCOMPARE(view.text(), QString());
    }

    void aLoopsHeadersAreMarked()
    {
        ui::CodeView view;
        view.setCode(kCode, QStringLiteral("k.c"));
        view.setHighlightedLoop(QStringLiteral("i.outer"));
        QCOMPARE(view.area()->markedLines(), (std::vector<int>{4, 7}));
        QCOMPARE(view.area()->linesContaining("acc"), (std::vector<int>{2, 5}));   // once per line
        view.setHighlightedLoop(QString());
        QVERIFY(view.area()->markedLines().empty());
    }

    void selectAllCopiesTheText()
    {
        ui::CodeView view;
        view.setCode(kCode, QStringLiteral("k.c"));
        view.area()->selectAll();
        QCOMPARE(view.area()->selectedText(), view.text());
    }

    void drawsTheVisibleLinesHighlighted()
    {
        ui::CodeView view;
        view.setCode(kCode, QStringLiteral("k.c"));
        const QImage picture = render(view, QSize(700, 400));
        savePicture(picture, QStringLiteral("code_view"));
        ui::CodeArea* area = view.area();
        QCOMPARE(area->firstVisibleLine(), 0);
        const QImage text = area->viewport()->grab().toImage();
        const int lineHeight = area->fontMetrics().lineSpacing();
        auto band = [&](int line, ui::CHighlighter::Kind kind) {
            return pixelsNear(text, ui::CHighlighter::color(kind), line * lineHeight, (line + 1) * lineHeight);
        };
        using Kind = ui::CHighlighter::Kind;
        QVERIFY(band(0, Kind::Preprocessor) > 10);
        // The comment opened on line 1 is still open at the start of line 2, then a type.
        QVERIFY(band(2, Kind::Comment) > 10);
        QVERIFY(band(2, Kind::Type) > 10);
        QVERIFY(band(4, Kind::Keyword) > 10);
        QVERIFY(band(4, Kind::Number) > 5);
        // The line with a character outside ASCII is drawn too (as shaped text).
        QVERIFY(band(5, Kind::Comment) > 10);
        QVERIFY(band(5, Kind::Call) > 5);
    }

    void columnsAreCharacterPositions()
    {
        // The same character in the same column of two lines, once after spaces (one plain
        // span) and once after a call name (a span of its own): both at the same x, whatever
        // fraction of a pixel the font's advance has.
        ui::CodeView view;
        view.setCode(std::string(61, ' ') + "(\n" + std::string(61, 'f') + "(\n", QStringLiteral("k.c"));
        render(view, QSize(900, 200));
        const QImage text = view.area()->viewport()->grab().toImage().convertToFormat(QImage::Format_RGB32);
        const int lineHeight = view.area()->fontMetrics().lineSpacing();
        auto rightmostInk = [&](int line) {
            int right = -1;
            for (int y = line * lineHeight; y < (line + 1) * lineHeight && y < text.height(); ++y)
                for (int x = text.width() - 1; x > right; --x)
                    if (qGray(text.pixel(x, y)) < 160) {
                        right = x;
                        break;
                    }
            return right;
        };
        QVERIFY(rightmostInk(0) > 0);
        QVERIFY2(std::abs(rightmostInk(0) - rightmostInk(1)) <= 1, qPrintable(QStringLiteral("%1 vs %2").arg(rightmostInk(0)).arg(rightmostInk(1))));
    }
};

QTEST_MAIN(TestCodeView)
#include "test_code_view.moc"
