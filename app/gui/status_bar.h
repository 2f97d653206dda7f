// The main window's status bar: a message too long for the room left of the permanent figures
// ends in "…" (the whole of it in the tooltip), instead of being cut off mid-letter against
// the figures, where it read as one run of text ("...is an absolute path: the s23,777,280
// cycles"); hovering the elided text shows the whole. currentMessage() stays the whole message.
#pragma once

#include <QHelpEvent>
#include <QPaintEvent>
#include <QPainter>
#include <QStatusBar>
#include <QSizeGrip>
#include <QStyleOption>
#include <QToolTip>

#include <algorithm>

namespace loopscope::ui {

class StatusBar : public QStatusBar {
public:
    explicit StatusBar(QWidget* parent = nullptr) : QStatusBar(parent) {}

    /// Pixels the message may take: from the left margin to a gap before the leftmost widget
    /// shown beside it (while a message shows, QStatusBar hides all but the permanent ones: the
    /// figures, the rebuild bar, the size grip).
    int messageWidth() const
    {
        int right = width() - kMargin;
        for (QWidget* w : findChildren<QWidget*>(QString(), Qt::FindDirectChildrenOnly))
            if (w->isVisible() && w->x() > kMargin)
                right = std::min(right, w->x() - kGap);
        return std::max(0, right - kMargin);
    }
    /// The message as drawn: the whole of it, or elided to messageWidth().
    QString shownMessage() const
    {
        return fontMetrics().elidedText(currentMessage(), Qt::ElideRight, messageWidth());
    }
    /// The tooltip at a point: the whole message over its elided text, else none (the figures'
    /// own tooltips, or nothing).
    QString toolTipAt(const QPoint& pos) const
    {
        const QString message = currentMessage();
        const bool inMessage = pos.x() >= kMargin && pos.x() < kMargin + messageWidth();
        return inMessage && shownMessage() != message ? message : QString();
    }

protected:
    bool event(QEvent* event) override
    {
        if (event->type() == QEvent::ToolTip) {
            auto* help = static_cast<QHelpEvent*>(event);
            const QString text = toolTipAt(help->pos());
            if (text.isEmpty())
                QToolTip::hideText();
            else
                QToolTip::showText(help->globalPos(), text, this);
            return true;
        }
        return QStatusBar::event(event);
    }

    void paintEvent(QPaintEvent* event) override
    {
        const QString message = currentMessage();
        if (message.isEmpty() || fontMetrics().horizontalAdvance(message) <= messageWidth()) {
            QStatusBar::paintEvent(event);
            return;
        }
        QPainter p(this);
        QStyleOption opt;
        opt.initFrom(this);
        style()->drawPrimitive(QStyle::PE_PanelStatusBar, &opt, &p, this);
        // The frames QStatusBar draws around the widgets beside a message (none in Fusion).
        for (QWidget* w : findChildren<QWidget*>(QString(), Qt::FindDirectChildrenOnly)) {
            if (!w->isVisible() || qobject_cast<QSizeGrip*>(w))
                continue;
            QStyleOption frame;
            frame.rect = w->geometry().adjusted(-2, -1, 2, 1);
            frame.palette = palette();
            frame.state = QStyle::State_None;
            style()->drawPrimitive(QStyle::PE_FrameStatusBarItem, &frame, &p, w);
        }
        p.setPen(palette().windowText().color());
        p.drawText(QRect(kMargin, 0, messageWidth(), height()), Qt::AlignLeading | Qt::AlignVCenter | Qt::TextSingleLine,
                   shownMessage());
    }

private:
    static constexpr int kMargin = 6;   ///< QStatusBar's own left margin for the message
    static constexpr int kGap = 12;     ///< between the message and the figures
};

} // namespace loopscope::ui
