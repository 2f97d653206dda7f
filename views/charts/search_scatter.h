// Search scatter (Qt Charts): the points of a search's Pareto front, cycles against on-chip
// bytes, energy as colour (blue: least, red: most), the current schedule as a black square and
// the selected point ringed. Hovering a point or clicking it is reported by index.
#pragma once

#include "search/evaluator.h"

#include <QChartView>

#include <optional>
#include <vector>

QT_BEGIN_NAMESPACE
class QLogValueAxis;
class QScatterSeries;
class QValueAxis;
QT_END_NAMESPACE

namespace loopscope::ui {

class SearchScatter : public QChartView {
    Q_OBJECT
public:
    explicit SearchScatter(QWidget* parent = nullptr);
    /// Redraws the front (index i of `points` is point i in the signals).
    void setPoints(const std::vector<search::Figures>& points);
    /// The current schedule's figures (nullopt hides its mark).
    void setCurrent(const std::optional<search::Figures>& current);
    /// Rings point i (-1: none).
    void setSelected(int index);

    int pointCount() const;
    /// The colour point i is drawn in.
    QColor pointColor(int index) const;
    /// Where point i is drawn, in widget coordinates (for tests and tooltips).
    QPointF pointPosition(int index) const;
    /// The front point nearest to a position in widget coordinates, within `radius` pixels, or -1.
    int pointAt(const QPointF& position, double radius = 8) const;
    /// The colour of an energy between the smallest and largest of the front.
    static QColor energyColor(double energy, double lo, double hi);

signals:
    void pointHovered(int index, bool entered);
    void pointClicked(int index);

private:
    int indexOf(const QPointF& value) const;
    void fitAxes();

    QScatterSeries* m_front = nullptr;
    QScatterSeries* m_current = nullptr;
    QScatterSeries* m_selected = nullptr;
    QValueAxis* m_x = nullptr;
    QLogValueAxis* m_y = nullptr;
    std::vector<search::Figures> m_points;
    std::optional<search::Figures> m_currentFigures;
};

} // namespace loopscope::ui
