// The background of an item view's cell (selection, alternate rows, hover) without the item
// layout the style computes for its icon, check box and text.
#pragma once

#include <QStyleOptionViewItem>

QT_BEGIN_NAMESPACE
class QPainter;
QT_END_NAMESPACE

namespace loopscope::ui {

/// What QStyle::CE_ItemViewItem draws for a cell without text, icon or check box: the panel
/// (PE_PanelItemViewItem) and, when the keyboard moved the focus there, the focus frame. The
/// delegates draw their own text from caches; CE_ItemViewItem also laid out the (empty)
/// text, icon and check rectangles of every cell, which cost more than the panel. Returns
/// false, drawing nothing, for a cell with an icon or a check box (the caller then draws it
/// with the style).
bool drawItemPanel(QPainter* painter, const QStyleOptionViewItem& option);

/// For a delegate that draws a cell's text itself: takes the text out of `option` (returned),
/// draws the cell's background (drawItemPanel, or CE_ItemViewItem without the text for a cell
/// with an icon or check box) and gives the rectangle the text goes in.
QString drawItemBackground(QPainter* painter, QStyleOptionViewItem& option, QRect* textRect);

/// The colour the style draws a cell's text in (its state's colour group, selected or not).
QColor itemTextColor(const QStyleOptionViewItem& option);

/// The horizontal margin the style leaves around a cell's text.
int itemTextMargin(const QStyleOptionViewItem& option);

} // namespace loopscope::ui
