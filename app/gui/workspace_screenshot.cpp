// The workspace's screenshot.
#include "workspace_screenshot.h"

#include "compare_view.h"
#include "main_window.h"
#include "store/workspace.h"
#include "variants_view.h"
#include "workspace_controller.h"

#include <QApplication>
#include <QDialog>
#include <QDockWidget>
#include <QPainter>
#include <QPixmap>

namespace loopscope::ui {

bool renderCompareScreenshot(MainWindow& window, const QString& a, const QString& b, const QString& out, QString* error)
{
    auto fail = [error](const QString& why) {
        if (error)
            *error = why;
        return false;
    };
    WorkspaceController* controller = window.workspace();
    store::Workspace* ws = controller->workspace();
    if (!ws)
        return fail(QStringLiteral("the schedule's folder has no workspace to compare variants of"));
    auto va = ws->findVariant(a.toStdString());
    auto vb = ws->findVariant(b.toStdString());
    if (!va || !vb)
        return fail(QStringLiteral("no variant named '%1' in %2").arg(!va ? a : b, controller->workspacePath()));
    QDockWidget* dock = controller->variantsDock();
    dock->show();
    dock->raise();
    controller->variantsView()->selectVariants({va->id, vb->id});
    QString why;
    if (!controller->compare(va->id, vb->id, &why))
        return fail(why);
    // Over the loop nest and the left docks, leaving the Variants dock (right) in view.
    QDialog* compare = controller->compareWindow();
    const QSize size(window.width() * 66 / 100, window.height() * 80 / 100);
    compare->resize(size);
    for (int i = 0; i < 5; ++i)
        QApplication::processEvents();
    const QPixmap base = window.grab();
    const QPixmap over = compare->grab();
    // A title bar and a shadow as a window manager draws them: the Compare window is a window.
    const int titleHeight = 26;
    const QPoint at(14, window.height() - size.height() - titleHeight - 34);
    QPixmap image = base;
    QPainter p(&image);
    p.fillRect(QRect(at + QPoint(6, 6), QSize(size.width(), size.height() + titleHeight)), QColor(0, 0, 0, 60));
    const QRect title(at, QSize(size.width(), titleHeight));
    p.fillRect(title, QColor(58, 64, 74));
    p.setPen(Qt::white);
    QFont font = p.font();
    font.setBold(true);
    p.setFont(font);
    p.drawText(title.adjusted(10, 0, -10, 0), Qt::AlignVCenter | Qt::AlignLeft, compare->windowTitle());
    p.drawPixmap(at + QPoint(0, titleHeight), over);
    p.setPen(QColor(58, 64, 74));
    p.drawRect(QRect(at, QSize(size.width() - 1, size.height() + titleHeight - 1)));
    p.end();
    if (!image.save(out, "PNG"))
        return fail(QStringLiteral("cannot write '%1'").arg(out));
    return true;
}

} // namespace loopscope::ui
