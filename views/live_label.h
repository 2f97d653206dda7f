// A label for text that changes with every edit (figures, counts, captions): a new text is
// repainted, and the window is laid out again only when the label's size would change.
#pragma once

#include <QColor>
#include <QTextLayout>
#include <QWidget>

#include <map>
#include <memory>

namespace loopscope::ui {

/// Like a QLabel for plain or rich text, without its cost per change: QLabel::setText always
/// asks the layouts up to the main window to run again (every label's size hint and height
/// for width is then measured anew), which costs more than the edit that changed the text.
/// LiveLabel keeps the text laid out per width (QTextLayout), repaints itself, and calls
/// updateGeometry() only when the size hint or the height at the current width changes.
/// Rich text is read once per text into plain text and character formats, so that laying it
/// out at a width costs what plain text costs (a QTextDocument per width cost several times
/// more, on every edit that changed a header).
/// With `setGrowOnly(true)` its width hint only grows, so that a figure whose digits change
/// never relays the panel out; a word-wrapped label's width hint always only grows (its
/// height follows the width the layout gives it).
class LiveLabel : public QWidget {
    Q_OBJECT
public:
    explicit LiveLabel(QWidget* parent = nullptr);
    explicit LiveLabel(const QString& text, QWidget* parent = nullptr);

    void setText(const QString& text);
    QString text() const { return m_text; }
    /// Qt::PlainText (the default) or Qt::RichText (what QTextDocument draws: <b>, <br>,
    /// <small>, <span style='color:...'>, entities).
    void setTextFormat(Qt::TextFormat format);
    /// Wraps at word boundaries to the width it is given (its height follows the width).
    void setWordWrap(bool wrap);
    bool wordWrap() const { return m_wrap; }
    /// Qt::AlignLeft (default), Qt::AlignRight or Qt::AlignHCenter; vertically centred.
    void setAlignment(Qt::Alignment alignment);
    /// The text colour; invalid (the default) uses the palette's window text.
    void setColor(const QColor& color);
    QColor color() const { return m_color; }
    /// The width hint never shrinks, not even when the text is cleared (a note shown and
    /// cleared on alternate edits keeps its place); a word-wrapped label's height at a given
    /// width never shrinks either.
    void setGrowOnly(bool growOnly) { m_growOnly = growOnly; }
    /// How many times the label asked for a new layout (for tests of the cost per edit).
    int geometryUpdates() const { return m_geometryUpdates; }
    /// How many times a text was laid out (at some width): what a new text costs.
    int layoutsMade() const { return m_layoutsMade; }

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;
    bool hasHeightForWidth() const override { return m_wrap; }
    int heightForWidth(int width) const override;

protected:
    void paintEvent(QPaintEvent* event) override;
    void changeEvent(QEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    struct Layout {
        std::unique_ptr<QTextLayout> layout;
        QSizeF size;
    };
    /// The laid-out text at a width (-1: unwrapped), cached per width.
    const Layout& layoutAt(int width) const;
    /// The text as plain text and formats (rich text read once per text).
    void parse() const;
    int textWidth() const;
    QSize naturalSize() const;
    /// The width hint before growing: the one-line width, at most about 60 characters when wrapped.
    int hintWidth() const;
    /// A wrapped label's width hint: the one-line width up to the cap, grown.
    int wrappedWidthHint() const;
    static constexpr int kWrapChars = 60;   ///< a wrapped label's width hint: at most this many average characters
    void invalidateLayouts();
    /// Sets m_text for setText(): the text shown before keeps its layouts (see m_previous).
    void replaceText(const QString& text);

    QString m_text;
    Qt::TextFormat m_format = Qt::PlainText;
    Qt::Alignment m_alignment = Qt::AlignLeft;
    QColor m_color;
    bool m_wrap = false;
    bool m_growOnly = false;
    int m_grownWidth = 0;
    int m_geometryUpdates = 0;
    mutable int m_layoutsMade = 0;
    mutable std::map<int, Layout> m_layouts;   ///< by text width; -1 = one line
    mutable std::map<int, int> m_tallest;      ///< grow-only wrapped: the tallest height per widget width
    mutable bool m_parsed = false;
    mutable QString m_plain;                                 ///< the text shown
    mutable QList<QTextLayout::FormatRange> m_formats;       ///< bold, colour... of its parts
    /// The text shown before the current one, with what was laid out of it: edits go back and
    /// forth (a factor dragged down and up, undo and redo, a step failing and applying again),
    /// and a wrapped caption of a few hundred characters costs about 120,000 instructions to
    /// lay out. Dropped whenever the layouts would be wrong (format, font, width rules).
    struct Previous {
        QString text;
        std::map<int, Layout> layouts;
        bool parsed = false;
        QString plain;
        QList<QTextLayout::FormatRange> formats;
    };
    mutable Previous m_previous;
};

} // namespace loopscope::ui
