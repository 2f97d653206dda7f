// The workspace's screenshot: the main window with its Variants dock in front and the Compare
// window of two variants over its left part, as a user sees them.
#pragma once

#include <QString>

namespace loopscope::ui {

class MainWindow;

/// Selects variants A and B (names or ids) of the window's workspace in the Variants dock,
/// opens the Compare window on them, and writes the main window (already laid out by
/// renderScreenshot) with the Compare window drawn over it into `out` (PNG).
bool renderCompareScreenshot(MainWindow& window, const QString& a, const QString& b, const QString& out, QString* error);

} // namespace loopscope::ui
