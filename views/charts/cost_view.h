// Cost view (Qt Charts): headline cycles, time and energy beside each bound with the share of
// the bound reached; traffic per level and tensor as a bar chart; compute versus transfer
// cycles and the overlap ratio; total cycles over the edits of this session.
#pragma once

#include "snapshot.h"

#include <QWidget>

namespace loopscope::ui {

class CostView : public QWidget {
    Q_OBJECT
public:
    explicit CostView(QWidget* parent = nullptr);
    /// Redraws; a snapshot with a new revision adds a point to the history chart.
    void setSnapshot(const Snapshot& snapshot);
    /// Forgets the history (a new document was opened).
    void clearHistory();
    /// Number of points in the history chart.
    int historySize() const;
};

} // namespace loopscope::ui
