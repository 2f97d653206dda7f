// Schedule > Search...: the search panel in a window of its own, on the document's schedule.
#pragma once

class QAction;
class QMenu;
class QWidget;

namespace loopscope::ui {

class ScheduleDocument;

/// Adds the action to `menu`. It opens (once, then raises) a window with the search panel,
/// which follows the document's schedule; a point the user clicks replaces the document's
/// steps as one undoable edit.
QAction* addSearchAction(QMenu* menu, ScheduleDocument* doc, QWidget* window);

} // namespace loopscope::ui
