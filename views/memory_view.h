// Memory view: one bar per memory level of the target, capacity to scale, stacked by buffer
// and coloured by tensor; double buffers visibly doubled; overflow in red with the amount.
#pragma once

#include "snapshot.h"

#include <QWidget>

namespace loopscope::ui {

class MemoryView : public QWidget {
    Q_OBJECT
public:
    explicit MemoryView(QWidget* parent = nullptr);
    /// Redraws from a snapshot (an empty snapshot shows a placeholder text).
    void setSnapshot(const Snapshot& snapshot);
    /// Emphasises the buffers placed at this loop ("" clears).
    void setHighlightedLoop(const QString& loop);

signals:
    /// The user clicked a buffer: the trace step that placed it (-1 if none).
    void stepActivated(int step);
};

} // namespace loopscope::ui
