// Variants scatter: cycles against SRAM peak over a workspace's variants.
#include "charts/variants_scatter.h"

#include "charts/chart_axes.h"

#include <QChart>
#include <QGraphicsSimpleTextItem>
#include <QLocale>
#include <QLogValueAxis>
#include <QScatterSeries>
#include <QToolTip>
#include <QValueAxis>

#include <algorithm>
#include <cmath>

namespace loopscope::ui {

VariantsScatter::VariantsScatter(QWidget* parent) : QChartView(parent)
{
    setObjectName(QStringLiteral("variantsScatter"));
    auto* chart = new QChart;
    // The compare view gives the chart a third of a dock: small margins, a short title and
    // axis titles, few ticks, so that no label is cut to "...".
    chart->setMargins(QMargins(4, 4, 8, 4));
    chart->setTitle(tr("All variants"));
    QFont title = chart->titleFont();
    title.setPointSizeF(std::max(8.0, title.pointSizeF()));
    title.setBold(true);
    chart->setTitleFont(title);
    chart->legend()->setVisible(true);
    chart->legend()->setAlignment(Qt::AlignBottom);
    m_all = new QScatterSeries;
    m_all->setName(tr("variant"));
    m_all->setMarkerSize(9);
    m_all->setColor(QColor(120, 140, 170));
    m_all->setBorderColor(Qt::transparent);
    m_a = new QScatterSeries;
    m_a->setName(QStringLiteral("A"));
    m_a->setMarkerShape(QScatterSeries::MarkerShapeRectangle);
    m_a->setMarkerSize(13);
    m_a->setColor(QColor(200, 60, 40));
    m_b = new QScatterSeries;
    m_b->setName(QStringLiteral("B"));
    m_b->setMarkerShape(QScatterSeries::MarkerShapeRectangle);
    m_b->setMarkerSize(13);
    m_b->setColor(QColor(30, 130, 60));
    chart->addSeries(m_all);
    chart->addSeries(m_a);
    chart->addSeries(m_b);
    m_x = new QValueAxis;
    m_x->setTickType(QValueAxis::TicksDynamic);
    m_x->setTickAnchor(0);
    m_y = new QLogValueAxis;
    m_y->setLabelFormat(QStringLiteral("%.3g"));
    chart->addAxis(m_x, Qt::AlignBottom);
    chart->addAxis(m_y, Qt::AlignLeft);
    for (QScatterSeries* s : {m_all, m_a, m_b}) {
        s->attachAxis(m_x);
        s->attachAxis(m_y);
    }
    setChart(chart);
    setRenderHint(QPainter::Antialiasing);
    setMinimumSize(300, 240);
    connect(m_all, &QScatterSeries::hovered, this, [this](const QPointF& p, bool state) {
        const int i = indexOf(p);
        if (!state || i < 0) {
            QToolTip::hideText();
            return;
        }
        const VariantPoint& v = m_points[static_cast<std::size_t>(i)];
        const QLocale l(QLocale::English);
        QToolTip::showText(QCursor::pos(), tr("<b>%1</b><br>%2 cycles<br>SRAM peak %3").arg(v.name.toHtmlEscaped(), l.toString(qlonglong(v.cycles)),
                                                                                          l.formattedDataSize(v.sramBytes, 1, QLocale::DataSizeIecFormat)),
                           this);
    });
    connect(m_all, &QScatterSeries::clicked, this, [this](const QPointF& p) {
        const int i = indexOf(p);
        if (i >= 0)
            emit pointClicked(m_points[static_cast<std::size_t>(i)].id);
    });
    fitAxes();
}

QPointF VariantsScatter::valueOf(const VariantPoint& p) const
{
    return QPointF(static_cast<double>(p.sramBytes) / 1024.0, static_cast<double>(p.cycles) / m_cycleScale);
}

void VariantsScatter::setPoints(std::vector<VariantPoint> points)
{
    m_points = std::move(points);
    int64_t most = 0;
    for (const auto& p : m_points)
        most = std::max(most, p.cycles);
    m_cycleScale = most >= 10'000'000 ? 1e6 : most >= 10'000 ? 1e3 : 1;
    QList<QPointF> xy;
    for (const auto& p : m_points)
        xy.append(valueOf(p));
    m_all->replace(xy);
    m_a->clear();
    m_b->clear();
    fitAxes();
}

void VariantsScatter::setMarked(int64_t a, int64_t b)
{
    m_a->clear();
    m_b->clear();
    for (const auto& p : m_points) {
        if (p.id == a)
            m_a->append(valueOf(p));
        if (p.id == b)
            m_b->append(valueOf(p));
    }
}

std::optional<QPointF> VariantsScatter::pointPosition(int64_t id) const
{
    for (const auto& p : m_points)
        if (p.id == id) {
            const QPointF scene = chart()->mapToPosition(valueOf(p), m_all);
            return mapFromScene(chart()->mapToScene(scene));
        }
    return std::nullopt;
}

int VariantsScatter::indexOf(const QPointF& value) const
{
    for (int i = 0; i < m_all->count(); ++i)
        if (m_all->at(i) == value)
            return i;
    return -1;
}

QStringList VariantsScatter::axisTexts() const
{
    // The chart draws its axes with QGraphicsSimpleTextItem / QGraphicsTextItem children.
    QStringList out;
    for (QGraphicsItem* item : chart()->childItems()) {
        std::vector<QGraphicsItem*> stack{item};
        while (!stack.empty()) {
            QGraphicsItem* i = stack.back();
            stack.pop_back();
            if (auto* t = dynamic_cast<QGraphicsTextItem*>(i); t && t->isVisible())
                out << t->toPlainText();
            else if (auto* s = dynamic_cast<QGraphicsSimpleTextItem*>(i); s && s->isVisible())
                out << s->text();
            for (QGraphicsItem* c : i->childItems())
                stack.push_back(c);
        }
    }
    return out;
}

void VariantsScatter::fitAxes()
{
    double xmax = 1, ylo = 1e300, yhi = 0;
    for (const auto& p : m_points) {
        const QPointF v = valueOf(p);
        xmax = std::max(xmax, v.x());
        ylo = std::min(ylo, std::max(v.y(), 1e-3));
        yhi = std::max(yhi, std::max(v.y(), 1e-3));
    }
    if (ylo > yhi)
        ylo = yhi = 1;
    // SRAM from 0, about four ticks, so that the labels fit a narrow chart.
    const double xi = niceInterval(xmax, 4);
    m_x->setRange(-0.04 * xmax, xmax * 1.08);
    m_x->setTickInterval(xi);
    m_x->setLabelFormat(labelFormat(xi));
    m_x->setTitleText(tr("SRAM peak (KiB)"));
    fitLogAxis(m_y, ylo, yhi, 1.3);
    m_y->setTitleText(m_cycleScale == 1e6 ? tr("M cycles (log)") : m_cycleScale == 1e3 ? tr("k cycles (log)") : tr("cycles (log)"));
}

} // namespace loopscope::ui
