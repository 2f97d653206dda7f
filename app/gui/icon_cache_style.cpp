// The application's style: title-bar icons cached (see the header).
#include "icon_cache_style.h"

namespace loopscope::ui {

namespace {

/// The icons Fusion draws from fixed images, whatever the option or widget.
bool isTitleBarIcon(QStyle::StandardPixmap icon)
{
    switch (icon) {
    case QStyle::SP_TitleBarCloseButton:
    case QStyle::SP_TitleBarNormalButton:
    case QStyle::SP_TitleBarMinButton:
    case QStyle::SP_TitleBarMaxButton:
    case QStyle::SP_DockWidgetCloseButton:
        return true;
    default:
        return false;
    }
}

} // namespace

QIcon IconCacheStyle::standardIcon(StandardPixmap icon, const QStyleOption* option, const QWidget* widget) const
{
    if (!isTitleBarIcon(icon))
        return QProxyStyle::standardIcon(icon, option, widget);
    auto it = m_titleBarIcons.constFind(icon);
    if (it == m_titleBarIcons.constEnd())
        it = m_titleBarIcons.insert(icon, QProxyStyle::standardIcon(icon, option, widget));
    return *it;
}

void IconCacheStyle::polish(QApplication* app)
{
    m_titleBarIcons.clear();   // a new palette or theme: make them again
    QProxyStyle::polish(app);
}

} // namespace loopscope::ui
