// The application's style: the platform's own (Fusion here), with the title-bar icons kept
// once made instead of rebuilt on every dock relayout.
#pragma once

#include <QHash>
#include <QIcon>
#include <QProxyStyle>

namespace loopscope::ui {

/// A QProxyStyle over the default style that caches the title-bar icons. QCommonStyle asks
/// for them (SP_TitleBarCloseButton, SP_TitleBarNormalButton) only to size the buttons of
/// every dock's title whenever the main window is laid out, which happens when a dock title
/// changes (the Schedule dock's step count after an edit); Fusion builds each from its images
/// again, about 30,000 instructions a call. Every other icon goes to the base style.
class IconCacheStyle : public QProxyStyle {
public:
    IconCacheStyle() = default;
    QIcon standardIcon(StandardPixmap icon, const QStyleOption* option = nullptr, const QWidget* widget = nullptr) const override;
    void polish(QApplication* app) override;
    using QProxyStyle::polish;

private:
    mutable QHash<int, QIcon> m_titleBarIcons;
};

} // namespace loopscope::ui
