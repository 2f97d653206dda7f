// What the GUI does without a person in front of it: render a screenshot of the main window,
// and measure how long edits take from the document change to the repainted window.
#pragma once

#include <QSize>
#include <QString>
#include <QStringList>

class QTextStream;

namespace loopscope::ui {

class MainWindow;

struct ScreenshotOptions {
    /// The first window on a 1600 x 1000 screen (MainWindow::defaultSize).
    QSize size{1440, 900};
    QString selectLoop;      ///< a loop to select first (its highlights show everywhere)
    QStringList raiseDocks;  ///< dock object names or titles to bring to the front ("Tiles")
    int tilePosition = -1;   ///< a position of the tile view's slider
    bool measure = false;    ///< measure on qemu first (Schedule > Measure) and show the count
};

/// Lays the window out at `options.size`, shows it (offscreen when there is no display),
/// renders it into `out` (PNG; nothing written when empty) and returns false with a message
/// when it cannot.
bool renderScreenshot(MainWindow& window, const QString& out, const ScreenshotOptions& options, QString* error);

/// For each schedule: opens it in a window of 1440 x 900 (the first window on a 1600 x 1000 screen), then times edits (split-factor
/// drags, undo and redo) from the edit to the end of the synchronous repaint of the whole
/// window. Prints a table; returns the worst median in milliseconds.
double runEditBenchmark(const QStringList& schedules, int rounds, QTextStream& out);

} // namespace loopscope::ui
