// A screenshot of the search window: Schedule > Search... on the window's schedule, a search
// of a fixed number of candidates (the same front on any machine), the best point selected so
// that its changes are listed, then the search window rendered into a PNG.
#pragma once

#include <QString>

#include <cstdint>

namespace loopscope::ui {

class MainWindow;

/// Renders the search window of `window` (already shown and laid out) after a search of
/// `candidates` candidates into `out`; false with a message when it cannot.
bool renderSearchScreenshot(MainWindow& window, int64_t candidates, const QString& out, QString* error);

} // namespace loopscope::ui
