// Tile view, for teaching: the output tensor (and a chosen input) as a 2-D grid cut into the
// schedule's tiles; a slider and a play button step through the outer loops, highlighting the
// tile being computed and the input regions resident in each memory level at that moment.
#pragma once

#include "snapshot.h"

#include <QWidget>

namespace loopscope::ui {

class TileView : public QWidget {
    Q_OBJECT
public:
    explicit TileView(QWidget* parent = nullptr);
    void setSnapshot(const Snapshot& snapshot);
    /// Current position of the slider (0-based iteration of the outer tile loops).
    int position() const;
    void setPosition(int position);
    int positionCount() const;
};

} // namespace loopscope::ui
