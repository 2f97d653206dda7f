// Shaped texts kept across repaints: the item views draw the same strings edit after edit.
#pragma once

#include <QFont>
#include <QHash>
#include <QStaticText>
#include <QString>

namespace loopscope::ui {

/// Plain one-line texts laid out once in one font (QStaticText) and drawn from then on
/// without shaping. Item delegates repaint every visible row after an edit; most rows read
/// as before, and shaping them again (HarfBuzz) was most of what a repaint cost.
class StaticTextCache {
public:
    explicit StaticTextCache(int capacity = 4096) : m_capacity(capacity) {}

    /// The text laid out in `font` (the cache starts again when the font changes); with a
    /// `wrapWidth` of 0 or more, wrapped at word boundaries to lines of that many pixels.
    const QStaticText& text(const QString& text, const QFont& font, int wrapWidth = -1);
    /// Width of the laid-out text in pixels.
    double width(const QString& s, const QFont& font) { return text(s, font).size().width(); }
    void clear() { m_texts.clear(); }

private:
    QFont m_font;
    QHash<QString, QStaticText> m_texts;
    int m_capacity;
};

} // namespace loopscope::ui
