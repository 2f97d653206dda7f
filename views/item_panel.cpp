// The background of an item view's cell without the style's item layout.
#include "item_panel.h"

#include <QApplication>
#include <QPainter>
#include <QStyle>
#include <QWidget>

namespace loopscope::ui {

bool drawItemPanel(QPainter* painter, const QStyleOptionViewItem& option)
{
    if (option.features & (QStyleOptionViewItem::HasDecoration | QStyleOptionViewItem::HasCheckIndicator))
        return false;
    const QWidget* w = option.widget;
    QStyle* style = w ? w->style() : QApplication::style();
    style->drawPrimitive(QStyle::PE_PanelItemViewItem, &option, painter, w);
    if (option.state & QStyle::State_HasFocus) {
        QStyleOptionFocusRect focus;
        focus.QStyleOption::operator=(option);
        focus.rect = option.rect;
        focus.state |= QStyle::State_KeyboardFocusChange;
        focus.state |= QStyle::State_Item;
        const QPalette::ColorGroup group = (option.state & QStyle::State_Enabled) ? QPalette::Normal : QPalette::Disabled;
        focus.backgroundColor = option.palette.color(group, (option.state & QStyle::State_Selected) ? QPalette::Highlight : QPalette::Window);
        style->drawPrimitive(QStyle::PE_FrameFocusRect, &focus, painter, w);
    }
    return true;
}

QString drawItemBackground(QPainter* painter, QStyleOptionViewItem& option, QRect* textRect)
{
    const QWidget* w = option.widget;
    QStyle* style = w ? w->style() : QApplication::style();
    QString text = option.text;
    // A cell without icon or check box: its text fills it (what the style's item layout, the
    // dearer part of a repaint, would compute).
    if (textRect)
        *textRect = (option.features & (QStyleOptionViewItem::HasDecoration | QStyleOptionViewItem::HasCheckIndicator))
                        ? style->subElementRect(QStyle::SE_ItemViewItemText, &option, w)
                        : option.rect;
    option.text.clear();
    if (!drawItemPanel(painter, option))
        style->drawControl(QStyle::CE_ItemViewItem, &option, painter, w);
    return text;
}

QColor itemTextColor(const QStyleOptionViewItem& option)
{
    const QPalette::ColorGroup group = !(option.state & QStyle::State_Enabled) ? QPalette::Disabled
                                       : (option.state & QStyle::State_Active) ? QPalette::Normal
                                                                               : QPalette::Inactive;
    return option.palette.color(group, (option.state & QStyle::State_Selected) ? QPalette::HighlightedText : QPalette::Text);
}

int itemTextMargin(const QStyleOptionViewItem& option)
{
    const QWidget* w = option.widget;
    return (w ? w->style() : QApplication::style())->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, w) + 1;
}

} // namespace loopscope::ui
