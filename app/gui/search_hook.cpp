// Schedule > Search...: wires the search panel to the document.
#include "search_hook.h"

#include "document_commands.h"
#include "schedule_document.h"
#include "search_panel.h"

#include <QAction>
#include <QDialog>
#include <QMenu>
#include <QPointer>
#include <QUndoStack>
#include <QVBoxLayout>

namespace loopscope::ui {

QAction* addSearchAction(QMenu* menu, ScheduleDocument* doc, QWidget* window)
{
    QAction* action = menu->addAction(QObject::tr("&Search..."));
    action->setObjectName(QStringLiteral("search"));
    action->setShortcut(QKeySequence(QObject::tr("Ctrl+Shift+F")));
    action->setToolTip(QObject::tr("Search feasible schedules from this one: the Pareto front of cycles, on-chip memory and energy"));
    auto dialog = std::make_shared<QPointer<QDialog>>();
    QObject::connect(action, &QAction::triggered, window, [doc, window, dialog] {
        if (!*dialog) {
            auto* d = new QDialog(window);
            d->setObjectName(QStringLiteral("searchWindow"));
            d->setWindowTitle(QObject::tr("Search schedules"));
            d->resize(1100, 650);
            auto* panel = new SearchPanel(d);
            auto* layout = new QVBoxLayout(d);
            layout->setContentsMargins(4, 4, 4, 4);
            layout->addWidget(panel);
            panel->setProgram(doc->snapshot().program);
            QObject::connect(doc, &ScheduleDocument::changed, panel, [panel](const Snapshot& s) { panel->setProgram(s.program); });
            QObject::connect(panel, &SearchPanel::openRequested, doc, [doc](const std::vector<sched::Step>& trace, const QString& what) {
                DocumentState after = doc->state();
                after.steps = trace;
                doc->undoStack()->push(new SetStateCommand(doc, doc->state(), after, QObject::tr("open search point (%1)").arg(what)));
            });
            *dialog = d;
        }
        (*dialog)->show();
        (*dialog)->raise();
        (*dialog)->activateWindow();
    });
    return action;
}

} // namespace loopscope::ui
