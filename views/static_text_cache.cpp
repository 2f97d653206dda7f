// StaticTextCache: one QStaticText per string, prepared in the cache's font.
#include "static_text_cache.h"

#include <QTextOption>
#include <QTransform>

#include <algorithm>

namespace loopscope::ui {

const QStaticText& StaticTextCache::text(const QString& s, const QFont& font, int wrapWidth)
{
    if (!(font == m_font) || font.resolveMask() != m_font.resolveMask()) {
        m_texts.clear();
        m_font = font;
    }
    // A wrapped text is kept per width (a column resized lays it out again).
    const QString key = wrapWidth < 0 ? s : s + QChar(0x1f) + QString::number(wrapWidth);
    auto it = m_texts.find(key);
    if (it != m_texts.end())
        return *it;
    if (m_texts.size() >= m_capacity)
        m_texts.clear();
    QStaticText t(s);
    t.setTextFormat(Qt::PlainText);
    QTextOption option;
    option.setWrapMode(wrapWidth < 0 ? QTextOption::NoWrap : QTextOption::WordWrap);
    t.setTextOption(option);
    if (wrapWidth >= 0)
        t.setTextWidth(std::max(1, wrapWidth));
    t.prepare(QTransform(), m_font);
    return *m_texts.insert(key, std::move(t));
}

} // namespace loopscope::ui
