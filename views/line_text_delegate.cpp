// One-line text cells drawn from shaped-text caches (see the header).
#include "line_text_delegate.h"

#include "item_panel.h"

#include <QPainter>

namespace loopscope::ui {

void LineTextDelegate::paint(QPainter* p, const QStyleOptionViewItem& option, const QModelIndex& index) const
{
    QStyleOptionViewItem opt = option;
    initStyleOption(&opt, index);
    QRect textRect;
    const QString text = drawItemBackground(p, opt, &textRect);
    if (text.isEmpty())
        return;
    // As QCommonStyle draws an item's text: its margin, colour group, elision.
    const int margin = itemTextMargin(opt);
    const QRect r = textRect.adjusted(margin, 0, -margin, 0);
    StaticTextCache& cache = opt.font.bold() ? m_boldTexts : m_texts;
    const QStaticText* t = &cache.text(text, opt.font);
    if (t->size().width() > r.width()) {
        const QString key = text + QLatin1Char('\x1f') + QString::number(r.width()) + (opt.font.bold() ? u'b' : u'n');
        auto it = m_elided.constFind(key);
        if (it == m_elided.constEnd()) {
            if (m_elided.size() > 2000)
                m_elided.clear();
            it = m_elided.insert(key, QFontMetrics(opt.font).elidedText(text, opt.textElideMode, r.width()));
        }
        t = &cache.text(*it, opt.font);
    }
    p->save();
    p->setClipRect(r);
    p->setFont(opt.font);
    p->setPen(itemTextColor(opt));
    const double width = t->size().width();
    const double x = (opt.displayAlignment & Qt::AlignRight) ? r.right() + 1 - width
                     : (opt.displayAlignment & Qt::AlignHCenter) ? r.left() + (r.width() - width) / 2
                                                                  : r.left();
    p->drawStaticText(QPointF(x, r.top() + (r.height() - t->size().height()) / 2), *t);
    p->restore();
}

QSize LineTextDelegate::sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const
{
    const QVariant font = index.data(Qt::FontRole);
    const QString key = index.data(Qt::DisplayRole).toString() + (font.isValid() && font.value<QFont>().bold() ? u'b' : u'n');
    auto it = m_sizes.constFind(key);
    if (it == m_sizes.constEnd()) {
        if (m_sizes.size() > 2000)
            m_sizes.clear();
        it = m_sizes.insert(key, QStyledItemDelegate::sizeHint(option, index));
    }
    return *it;
}

} // namespace loopscope::ui
