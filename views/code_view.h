// Code view: the C the current schedule exports (<kernel>.c from core/codegen), syntax
// highlighted and updated live; the header of the selected loop is marked.
#pragma once

#include <QAbstractScrollArea>
#include <QWidget>

#include <string>
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
/// thousand lines costs no more than the screenful shown).
class CodeArea : public QAbstractScrollArea {
    Q_OBJECT
public:
    explicit CodeArea(QWidget* parent = nullptr);

    void setLines(QStringList lines);
    const QStringList& lines() const { return m_lines; }
    QString text() const { return m_lines.join(QLatin1Char('\n')); }
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
    void updateScrollBars();
    void updateMetrics();
    Pos posAt(const QPoint& p) const;
    int gutterWidth() const;

    QStringList m_lines;
    std::vector<char> m_commentBefore;   ///< per line: a /* */ comment is open before it
    std::vector<int> m_marked;
    int m_maxColumns = 0;
    int m_charWidth = 8;
    int m_lineHeight = 16;
    int m_ascent = 12;
    Pos m_anchor;
    Pos m_cursor;
};

class CodeView : public QWidget {
    Q_OBJECT
public:
    explicit CodeView(QWidget* parent = nullptr);

    /// Shows new code; the scroll position is kept (a new kernel starts at its function).
    /// `fileName` is shown above it.
    void setCode(const std::string& code, const QString& fileName);
    /// Marks the header of a loop (its printed label, e.g. "O:h.outer"; "" clears) and
    /// scrolls to it.
    void setHighlightedLoop(const QString& label);

    QString text() const;
    CodeArea* area() const { return m_area; }
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
};

} // namespace loopscope::ui
