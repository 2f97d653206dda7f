// Cost view: headline cycles, time, energy and predicted instructions beside each bound with the
// share of the bound reached; traffic per level and tensor as a bar chart; compute versus
// transfer cycles and the overlap ratio; where the predicted instructions go; total cycles
// over the edits of this session. The charts are painted (charts/painted_chart.h).
#pragma once

#include "snapshot.h"

#include <QWidget>

#include <string>
#include <vector>

QT_BEGIN_NAMESPACE
class QLabel;
class QScrollArea;
QT_END_NAMESPACE

namespace loopscope::ui {

class HistoryChart;
class LiveLabel;
class StackedBarChart;

class CostView : public QWidget {
    Q_OBJECT
public:
    explicit CostView(QWidget* parent = nullptr);
    /// The narrowest the view gets; its table scrolls sideways below its own width.
    static constexpr int kMinimumWidth = 260;
    /// The width at which the table needs no sideways scrolling (the view's own margins in).
    int tableWidth() const;
    /// Redraws; a snapshot with a new revision adds a point to the history chart.
    void setSnapshot(const Snapshot& snapshot);
    /// Forgets the history (a new document was opened).
    void clearHistory();
    /// Number of points in the history chart.
    int historySize() const;
    /// What the exported kernel measured on an emulated core for the snapshot of `revision`
    /// ("" clears it); shown under the headlines while that snapshot is the one on screen.
    void setMeasurement(int revision, const QString& text);
    /// The measurement shown ("" when none is).
    QString measurementText() const;
    /// What the figures count and which assumptions separate them from a measurement (shown
    /// under the headlines).
    QString caveatText() const;
    /// "12.345 ms", "3.210 s" past 1000 ms.
    static QString latencyText(double ms);

    /// A headline figure and the bound it is compared with.
    /// PeUtilisation: on a tensorized nest of a PE-array target, the useful MACs over what the
    /// computes issued could do ("—" on such a target when no stage is tensorized; the row is
    /// hidden on other targets).
    /// Instructions: what the exported C is predicted to execute on a CPU target, kernel and
    /// cache-fill copies (the instruction model; the row is hidden on a PE-array target).
    enum class Figure { Cycles, Latency, Energy, Macs, Instructions, CompulsoryTraffic, IoLowerBoundTraffic, PeUtilisation };
    /// Share of the bound reached, in percent (bound / estimate x 100; 100 = at the bound);
    /// negative when there is no bound to compare with.
    double percentOfBound(Figure figure) const;
    /// Whether a figure's row is shown (PeUtilisation only on a PE-array target).
    bool figureShown(Figure figure) const;
    /// The headline row of a figure as shown: "cycles | 1,107,752 | 262,144 compute bound | 23.7%".
    QString figureText(Figure figure) const;
    /// The tooltip of a figure's row: what the figure and its bound are made of.
    QString figureToolTip(Figure figure) const;
    /// The line under a chart that carries its figures (they change with every edit, so they
    /// are not in the chart's title or axis labels, whose change relays the chart out):
    /// 0 traffic ("DRAM 144 KiB, SRAM 2.25 MiB"), 1 cycles, 2 history, 3 instructions.
    QString chartCaption(int chart) const;
    /// The charts: 0 traffic, 1 cycles, 3 instructions (2, the history, is historyChart()).
    const StackedBarChart* barChart(int chart) const;
    const HistoryChart* historyChart() const { return m_historyChart; }
    /// Total cycles of each point of the history chart, oldest first.
    std::vector<double> historyValues() const;

    QSize sizeHint() const override;

private:
    // The figures change with every edit: LiveLabels repaint them without laying the window
    // out again (a QLabel's new text relays out every dock).
    struct Headline {
        LiveLabel* name = nullptr;
        LiveLabel* value = nullptr;
        LiveLabel* bound = nullptr;
        LiveLabel* percent = nullptr;
        double share = -1;    ///< percent of the bound reached, -1 when none
    };
    struct HistoryPoint {
        int revision = 0;
        double cycles = 0;
        double bound = 0;
    };

    void updateHeadlines();
    void updateTrafficChart();
    void updateCyclesChart();
    void updateHistoryChart();
    void updateInstructionsChart();
    void setHeadline(Figure figure, const QString& value, const QString& bound, double share, const QString& note = {});

    Snapshot m_snapshot;
    LiveLabel* m_title = nullptr;
    QLabel* m_measured = nullptr;
    LiveLabel* m_caveat = nullptr;
    int m_measuredRevision = -1;
    QLabel* m_placeholder = nullptr;
    QScrollArea* m_contentScroll = nullptr;   ///< holds m_content: scrolls sideways in a narrow dock
    QWidget* m_content = nullptr;
    std::vector<Headline> m_headlines;  ///< indexed by Figure
    StackedBarChart* m_trafficChart = nullptr;
    std::vector<std::string> m_trafficTensors;   ///< one series each, in this order
    StackedBarChart* m_cyclesChart = nullptr;
    HistoryChart* m_historyChart = nullptr;
    StackedBarChart* m_instructionsChart = nullptr;
    QWidget* m_instructionsBlock = nullptr;      ///< the chart and its caption (CPU targets)
    LiveLabel* m_trafficCaption = nullptr;
    LiveLabel* m_cyclesCaption = nullptr;
    LiveLabel* m_historyCaption = nullptr;
    LiveLabel* m_instructionsCaption = nullptr;
    std::vector<HistoryPoint> m_history;
    bool m_hasRevision = false;
    int m_lastRevision = 0;
};

} // namespace loopscope::ui
