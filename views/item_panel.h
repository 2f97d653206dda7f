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

} // namespace loopscope::ui
