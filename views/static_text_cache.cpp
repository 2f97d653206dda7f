// StaticTextCache: one QStaticText per string, prepared in the cache's font.
#include "static_text_cache.h"

#include <QTextOption>
#include <QTransform>

namespace loopscope::ui {

const QStaticText& StaticTextCache::text(const QString& s, const QFont& font)
{
    if (!(font == m_font) || font.resolveMask() != m_font.resolveMask()) {
        m_texts.clear();
        m_font = font;
    }
    auto it = m_texts.find(s);
    if (it != m_texts.end())
        return *it;
    if (m_texts.size() >= m_capacity)
        m_texts.clear();
    QStaticText t(s);
    t.setTextFormat(Qt::PlainText);
    QTextOption option;
    option.setWrapMode(QTextOption::NoWrap);
    t.setTextOption(option);
    t.prepare(QTransform(), m_font);
    return *m_texts.insert(s, std::move(t));
}

} // namespace loopscope::ui
