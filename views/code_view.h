// Code view: the C the current schedule exports (<kernel>.c from core/codegen), syntax
// highlighted and updated live; the header of the selected loop is marked.
#pragma once

#include <QAbstractScrollArea>
#include <QRawFont>
#include <QWidget>

#include <string>
#include <string_view>
#include <vector>

class QLabel;
class QPushButton;

namespace loopscope::ui {

class LiveLabel;

/// C99 highlighting: splits a line into spans of keywords, types, numbers, strings, calls,
/// comments and preprocessor directives.
class CHighlighter {
public:
    enum class Kind { Plain, Keyword, Type, Number, String, Call, Comment, Preprocessor };
    struct Span {
        int start = 0;
        int length = 0;
        Kind kind = Kind::Plain;
    };
    /// Spans of one line; `inComment` says whether a /* */ comment is open before the line
    /// and is updated to whether one is open after it.
    static std::vector<Span> highlight(const QString& line, bool& inComment);
    static QColor color(Kind kind);
};

/// A read-only text area for generated code. It lays out nothing: the font is fixed-pitch,
/// so columns are positions, and only the visible lines are drawn (a whole new text of a
/// thousand lines costs no more than the screenful shown). The text is kept as the UTF-8 the
/// generator wrote, with the offsets of its lines; a line becomes a QString only when it is
/// drawn, selected or asked for. ASCII lines are drawn as glyph runs from a per-character
/// glyph table, one glyph per column, so nothing is shaped.
class CodeArea : public QAbstractScrollArea {
    Q_OBJECT
public:
    explicit CodeArea(QWidget* parent = nullptr);

    /// The text; a final newline ends the last line (it starts no empty one).
    void setText(std::string text);
    int lineCount() const { return static_cast<int>(m_lineStart.size()); }
    /// Line `i` (0-based) without its newline.
    QString line(int i) const;
    /// The lines joined by newlines (without the final newline).
    QString text() const;
    /// The 0-based lines that contain `needle`.
    std::vector<int> linesContaining(const std::string& needle) const;
    /// Draws the text greyed: it is not the current schedule's (its C is being generated).
    void setStale(bool stale);
    bool isStale() const { return m_stale; }
    /// Lines drawn with a marked background (0-based).
    void setMarkedLines(std::vector<int> lines);
    const std::vector<int>& markedLines() const { return m_marked; }
    void scrollToLine(int line, bool center = false);
    int firstVisibleLine() const;
    QString selectedText() const;
    void selectAll();

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    struct Pos {
        int line = 0;
        int column = 0;
        bool operator<(const Pos& o) const { return line < o.line || (line == o.line && column < o.column); }
        bool operator==(const Pos& o) const = default;
    };
    /// One font's glyphs for the printable ASCII characters (0 where the font has none).
    struct GlyphTable {
        QRawFont font;
        std::vector<quint32> glyphs;   ///< by character code, 0..127
    };
    void updateScrollBars();
    void updateMetrics();
    Pos posAt(const QPoint& p) const;
    int gutterWidth() const;
    std::string_view lineBytes(int i) const;
    /// Draws `text[from, to)` at column `from` of the line at baseline `y`.
    void drawSpan(QPainter& p, const QString& text, int from, int to, double x0, int y, bool italic);

    std::string m_text;
    std::vector<int> m_lineStart;        ///< byte offset of each line in m_text
    std::vector<char> m_commentBefore;   ///< per line: a /* */ comment is open before it
    std::vector<int> m_marked;
    int m_maxColumns = 0;
    double m_charWidth = 8;              ///< the advance of one column
    int m_lineHeight = 16;
    int m_ascent = 12;
    GlyphTable m_regular;
    GlyphTable m_italic;
    Pos m_anchor;
    Pos m_cursor;
    bool m_stale = false;
};

class CodeView : public QWidget {
    Q_OBJECT
public:
    explicit CodeView(QWidget* parent = nullptr);

    /// Shows new code; the scroll position is kept (a new kernel starts at its function).
    /// `fileName` is shown above it.
    void setCode(const std::string& code, const QString& fileName);
    /// The C of the current schedule is being generated (on a worker thread): the previous
    /// text stays, greyed, and the title says it is not the current one until setCode.
    void setPending(const QString& fileName);
    /// The text shown is the current schedule's C (false while it is pending).
    bool isCurrent() const { return !m_pending; }
    /// Marks the header of a loop (its printed label, e.g. "O:h.outer"; "" clears) and
    /// scrolls to it.
    void setHighlightedLoop(const QString& label);

    QString text() const;
    CodeArea* area() const { return m_area; }
    QPushButton* exportButton() const { return m_export; }
    /// C identifier of a loop label as the generator writes it ("O:h.outer" -> "O_h_outer").
    static QString loopIdentifier(const QString& label);

signals:
    void exportRequested();

private:
    void applyHighlight(bool scroll);
    /// The title once: the file and its lines, and whether the selected loop has no for.
    void updateTitle();
    CodeArea* m_area;
    LiveLabel* m_title;
    QPushButton* m_export;
    std::string m_code;
    QString m_fileName;
    QString m_titleText;
    QString m_loop;
    bool m_loopWithoutFor = false;
    bool m_pending = false;
};

} // namespace loopscope::ui
