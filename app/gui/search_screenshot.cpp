// The search window's screenshot.
#include "search_screenshot.h"

#include "main_window.h"
#include "search_panel.h"

#include <QAction>
#include <QApplication>
#include <QDialog>
#include <QElapsedTimer>
#include <QPixmap>

namespace loopscope::ui {

bool renderSearchScreenshot(MainWindow& window, int64_t candidates, const QString& out, QString* error)
{
    auto fail = [error](const QString& why) {
        if (error)
            *error = why;
        return false;
    };
    QAction* action = window.action(QStringLiteral("search"));
    if (!action)
        return fail(QStringLiteral("the window has no Schedule > Search... action"));
    action->trigger();
    auto* dialog = window.findChild<QDialog*>(QStringLiteral("searchWindow"));
    auto* panel = dialog ? dialog->findChild<SearchPanel*>() : nullptr;
    if (!panel)
        return fail(QStringLiteral("the search window did not open"));
    panel->setBudget(candidates);
    if (!panel->start())
        return fail(QStringLiteral("the search did not start: %1").arg(panel->statusText()));
    QElapsedTimer waited;
    waited.start();
    while (panel->isRunning() && waited.elapsed() < 600000)
        QApplication::processEvents(QEventLoop::AllEvents, 50);
    if (panel->isRunning()) {
        panel->cancel();
        return fail(QStringLiteral("the search of %1 candidates did not finish in 10 minutes").arg(candidates));
    }
    if (panel->front().empty())
        return fail(panel->statusText());
    if (panel->bestIndex() >= 0)
        panel->selectPoint(panel->bestIndex());
    for (int i = 0; i < 5; ++i)
        QApplication::processEvents();
    if (!dialog->grab().save(out, "PNG"))
        return fail(QStringLiteral("cannot write '%1'").arg(out));
    return true;
}

} // namespace loopscope::ui
