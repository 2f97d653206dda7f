// Search scatter: a Qt Charts scatter of the front, coloured by energy.
#include "charts/search_scatter.h"

#include "charts/chart_axes.h"

#include <QChart>
#include <QLogValueAxis>
#include <QScatterSeries>
#include <QValueAxis>

#include <algorithm>
#include <cmath>

namespace loopscope::ui {

namespace {

double kib(int64_t bytes) { return static_cast<double>(bytes) / 1024.0; }

} // namespace

SearchScatter::SearchScatter(QWidget* parent) : QChartView(parent)
{
    auto* chart = new QChart;
    chart->setTitle(tr("Pareto front over cycles, on-chip memory and energy (colour: blue = least energy)"));
    chart->legend()->setVisible(true);
    chart->legend()->setAlignment(Qt::AlignBottom);
    m_front = new QScatterSeries;
    m_front->setName(tr("front"));
    m_front->setMarkerSize(11);
    m_front->setBorderColor(Qt::transparent);
    m_selected = new QScatterSeries;
    m_selected->setName(tr("selected"));
    m_selected->setMarkerSize(20);
    m_selected->setColor(Qt::transparent);
    m_selected->setBorderColor(QColor(20, 20, 20));
    m_selected->setPen(QPen(QColor(20, 20, 20), 2));
    m_current = new QScatterSeries;
    m_current->setName(tr("current schedule"));
    m_current->setMarkerShape(QScatterSeries::MarkerShapeRectangle);
    m_current->setMarkerSize(12);
    m_current->setColor(QColor(30, 30, 30));
    chart->addSeries(m_front);
    chart->addSeries(m_selected);
    chart->addSeries(m_current);
    m_x = new QValueAxis;
    m_x->setTitleText(tr("peak on-chip memory (KiB)"));
    m_x->setTickType(QValueAxis::TicksDynamic);
    m_x->setTickAnchor(0);
    m_y = new QLogValueAxis;
    m_y->setTitleText(tr("cycles (log)"));
    m_y->setLabelFormat(QStringLiteral("%.3g"));
    m_y->setBase(10);
    chart->addAxis(m_x, Qt::AlignBottom);
    chart->addAxis(m_y, Qt::AlignLeft);
    for (QScatterSeries* s : {m_front, m_selected, m_current}) {
        s->attachAxis(m_x);
        s->attachAxis(m_y);
    }
    setChart(chart);
    setRenderHint(QPainter::Antialiasing);
    // The ring of the selected point and the square of the current schedule are drawn over the
    // front and take the mouse where they cover a point: a click on the ringed point (the best
    // one, after a run) did nothing. A point of theirs that is a point of the front is that point.
    for (QScatterSeries* s : {m_front, m_selected, m_current}) {
        connect(s, &QScatterSeries::hovered, this, [this](const QPointF& p, bool state) {
            int i = indexOf(p);
            if (i >= 0)
                emit pointHovered(i, state);
        });
        connect(s, &QScatterSeries::clicked, this, [this](const QPointF& p) {
            int i = indexOf(p);
            if (i >= 0)
                emit pointClicked(i);
        });
    }
    fitAxes();
}

QColor SearchScatter::energyColor(double energy, double lo, double hi)
{
    double t = hi > lo ? std::clamp((energy - lo) / (hi - lo), 0.0, 1.0) : 0.0;
    // Blue (least energy) through purple to red (most).
    return QColor::fromRgbF(static_cast<float>(0.15 + 0.8 * t), static_cast<float>(0.25 * (1 - t) + 0.1), static_cast<float>(0.9 - 0.75 * t));
}

void SearchScatter::setPoints(const std::vector<search::Figures>& points)
{
    m_points = points;
    m_front->clear();
    double lo = 0, hi = 0;
    for (size_t i = 0; i < points.size(); ++i) {
        lo = i == 0 ? points[i].energyUj : std::min(lo, points[i].energyUj);
        hi = i == 0 ? points[i].energyUj : std::max(hi, points[i].energyUj);
    }
    QList<QPointF> xy;
    for (const auto& f : points)
        xy.append(QPointF(kib(f.onChipBytes), static_cast<double>(std::max<int64_t>(1, f.cycles))));
    m_front->replace(xy);
    for (int i = 0; i < static_cast<int>(points.size()); ++i)
        m_front->setPointConfiguration(i, QXYSeries::PointConfiguration::Color, energyColor(points[static_cast<size_t>(i)].energyUj, lo, hi));
    m_selected->clear();
    fitAxes();
}

void SearchScatter::setCurrent(const std::optional<search::Figures>& current)
{
    m_currentFigures = current;
    m_current->clear();
    if (current)
        m_current->append(kib(current->onChipBytes), static_cast<double>(std::max<int64_t>(1, current->cycles)));
    fitAxes();
}

void SearchScatter::setSelected(int index)
{
    m_selected->clear();
    if (index >= 0 && index < pointCount())
        m_selected->append(m_front->at(index));
}

int SearchScatter::pointCount() const { return static_cast<int>(m_points.size()); }

QColor SearchScatter::pointColor(int index) const
{
    auto conf = m_front->pointConfiguration(index);
    auto it = conf.find(QXYSeries::PointConfiguration::Color);
    return it == conf.end() ? m_front->color() : it->value<QColor>();
}

QPointF SearchScatter::pointPosition(int index) const
{
    QPointF scene = chart()->mapToPosition(m_front->at(index), m_front);
    return mapFromScene(chart()->mapToScene(scene));
}

int SearchScatter::pointAt(const QPointF& position, double radius) const
{
    int best = -1;
    double bestD = radius;
    for (int i = 0; i < pointCount(); ++i) {
        QPointF d = pointPosition(i) - position;
        double dist = std::hypot(d.x(), d.y());
        if (dist <= bestD) {
            bestD = dist;
            best = i;
        }
    }
    return best;
}

int SearchScatter::indexOf(const QPointF& value) const
{
    for (int i = 0; i < m_front->count(); ++i)
        if (m_front->at(i) == value)
            return i;
    return -1;
}

void SearchScatter::fitAxes()
{
    double xmax = 1, ylo = 1e18, yhi = 1;
    auto take = [&](const search::Figures& f) {
        xmax = std::max(xmax, kib(f.onChipBytes));
        ylo = std::min(ylo, static_cast<double>(std::max<int64_t>(1, f.cycles)));
        yhi = std::max(yhi, static_cast<double>(std::max<int64_t>(1, f.cycles)));
    };
    for (const auto& f : m_points)
        take(f);
    if (m_currentFigures)
        take(*m_currentFigures);
    if (ylo > yhi)
        ylo = 1;
    // Points at 0 bytes sit on the axis: a margin on the left, with no tick below 0.
    const double xi = niceInterval(xmax, 6);
    m_x->setRange(-0.04 * xmax, xmax * 1.08);
    m_x->setTickInterval(xi);
    m_x->setLabelFormat(labelFormat(xi));
    fitLogAxis(m_y, ylo, yhi, 1.15);
}

} // namespace loopscope::ui
