// Variants scatter (Qt Charts): every variant of the workspace as a point, SRAM peak against
// cycles (log: variants of one kernel differ by factors), the two compared ones marked A and
// B; hovering shows a variant's name and figures, clicking one reports it.
#pragma once

#include <QChartView>

#include <optional>
#include <vector>

QT_BEGIN_NAMESPACE
class QLogValueAxis;
class QScatterSeries;
class QValueAxis;
QT_END_NAMESPACE

namespace loopscope::ui {

/// One variant in the scatter.
struct VariantPoint {
    int64_t id = 0;
    QString name;
    int64_t sramBytes = 0;   ///< peak of the first level inside the home level
    int64_t cycles = 0;
};

class VariantsScatter : public QChartView {
    Q_OBJECT
public:
    explicit VariantsScatter(QWidget* parent = nullptr);
    void setPoints(std::vector<VariantPoint> points);
    /// Marks the variants compared (-1: none).
    void setMarked(int64_t a, int64_t b);

    int pointCount() const { return static_cast<int>(m_points.size()); }
    /// Where a variant is drawn, in widget coordinates (nullopt when it is not in the chart).
    std::optional<QPointF> pointPosition(int64_t id) const;
    /// The axis titles and tick labels as drawn (for tests: none may be elided).
    QStringList axisTexts() const;
    /// The scale of the cycles axis: 1, 1e3 (k) or 1e6 (M).
    double cycleScale() const { return m_cycleScale; }

signals:
    void pointClicked(qint64 id);

private:
    int indexOf(const QPointF& value) const;
    QPointF valueOf(const VariantPoint& p) const;
    void fitAxes();

    QScatterSeries* m_all = nullptr;
    QScatterSeries* m_a = nullptr;
    QScatterSeries* m_b = nullptr;
    QValueAxis* m_x = nullptr;
    QLogValueAxis* m_y = nullptr;
    std::vector<VariantPoint> m_points;
    double m_cycleScale = 1;
};

} // namespace loopscope::ui
