// An item delegate for one-line text cells that draws them from shaped texts kept between
// repaints, as the style would draw them (margin, colour group, elision, alignment).
#pragma once

#include "static_text_cache.h"

#include <QHash>
#include <QStyledItemDelegate>

namespace loopscope::ui {

/// The tables repaint their rows after every edit and size columns to their contents, and most
/// cells read as before: QStyledItemDelegate laid every cell out and shaped its text again
/// (about 110,000 instructions a cell). Cells with an icon keep the style's icon and layout;
/// only their text is drawn from the cache. A cell's size is taken to depend on its text and
/// weight only (no wrapping; an icon, if any, follows from the text).
class LineTextDelegate : public QStyledItemDelegate {
public:
    using QStyledItemDelegate::QStyledItemDelegate;

    void paint(QPainter* p, const QStyleOptionViewItem& option, const QModelIndex& index) const override;
    QSize sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const override;

private:
    mutable StaticTextCache m_texts;
    mutable StaticTextCache m_boldTexts;
    mutable QHash<QString, QString> m_elided;   ///< text, width, weight -> elided text
    mutable QHash<QString, QSize> m_sizes;      ///< text, weight -> size
};

} // namespace loopscope::ui
