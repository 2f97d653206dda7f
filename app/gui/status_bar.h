// The main window's status bar: a message too long for the room left of the permanent figures
// ends in "…" (the whole of it in the tooltip), instead of being cut off mid-letter against
// the figures, where it read as one run of text ("...is an absolute path: the s23,777,280
// cycles"). currentMessage() stays the whole message.
#pragma once

#include <QPaintEvent>
#include <QPainter>
#include <QStatusBar>
#include <QStyleOption>

#include <algorithm>

namespace loopscope::ui {

class StatusBar : public QStatusBar {
public:
    explicit StatusBar(QWidget* parent = nullptr) : QStatusBar(parent)
    {
        connect(this, &QStatusBar::messageChanged, this, [this](const QString& text) { setToolTip(text); });
    }

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

protected:
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
        p.setPen(palette().windowText().color());
        p.drawText(QRect(kMargin, 0, messageWidth(), height()), Qt::AlignLeading | Qt::AlignVCenter | Qt::TextSingleLine,
                   shownMessage());
    }

private:
    static constexpr int kMargin = 6;   ///< QStatusBar's own left margin for the message
    static constexpr int kGap = 12;     ///< between the message and the figures
};

} // namespace loopscope::ui
