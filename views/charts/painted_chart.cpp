// Charts drawn with QPainter: stacked horizontal bars and a history line, repainted per edit
// without any layout.
#include "charts/painted_chart.h"

#include "charts/chart_axes.h"

#include <QEvent>
#include <QHelpEvent>
#include <QPainter>
#include <QPainterPath>
#include <QToolTip>

#include <algorithm>
#include <cmath>

namespace loopscope::ui {

namespace {

constexpr int kMarker = 9;        // legend marker side
constexpr int kLegendGap = 12;    // between legend entries

/// Decimals a tick label needs to tell ticks `interval` apart.
int decimalsFor(double interval)
{
    return std::clamp(static_cast<int>(std::ceil(-std::log10(interval) - 1e-9)), 0, 6);
}

/// Legend entries flowed into lines of at most `width` pixels: the x offset of each entry
/// and its line.
struct LegendSlot {
    int x = 0;
    int line = 0;
};

std::vector<LegendSlot> flowLegend(const std::vector<PaintedChart::Series>& series, const QFontMetrics& fm, int width, int* lines)
{
    std::vector<LegendSlot> places;
    int x = 0;
    int line = 0;
    for (const auto& s : series) {
        const int w = kMarker + 4 + fm.horizontalAdvance(s.name);
        if (x > 0 && x + w > width) {
            x = 0;
            ++line;
        }
        places.push_back({x, line});
        x += w + kLegendGap;
    }
    *lines = series.empty() ? 0 : line + 1;
    return places;
}

} // namespace

// ValueScale --------------------------------------------------------------------------------

bool ValueScale::fit(double maxValue)
{
    const double want = std::max(1e-9, maxValue * 1.05);
    if (want <= m_max && want * 3 >= m_max)
        return false;
    const double interval = niceInterval(want, 5);
    const double max = std::ceil(want / interval - 1e-9) * interval;
    const bool changed = max != m_max || interval != m_interval;
    m_max = max;
    m_interval = interval;
    return changed;
}

std::vector<double> ValueScale::ticks() const
{
    std::vector<double> out;
    const int n = static_cast<int>(std::llround(m_max / m_interval));
    for (int i = 0; i <= n && i <= 100; ++i)
        out.push_back(i * m_interval);
    return out;
}

QString ValueScale::label(double value) const
{
    return QString::number(value, 'f', decimalsFor(m_interval));
}

// PaintedChart ------------------------------------------------------------------------------

PaintedChart::PaintedChart(QWidget* parent) : QWidget(parent)
{
    setAttribute(Qt::WA_OpaquePaintEvent);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
}

void PaintedChart::setTitle(const QString& title)
{
    if (title == m_title)
        return;
    m_title = title;
    update();
}

void PaintedChart::setSeries(const std::vector<Series>& series)
{
    if (series == m_series)
        return;
    m_series = series;
    update();
}

QSize PaintedChart::sizeHint() const
{
    return QSize(400, m_minHeight + 40);
}

QSize PaintedChart::minimumSizeHint() const
{
    return QSize(200, m_minHeight);
}

QFont PaintedChart::smallFont() const
{
    QFont small = font();
    small.setPointSizeF(std::max(6.5, font().pointSizeF() - 1));
    return small;
}

QRect PaintedChart::drawFrame(QPainter& painter)
{
    painter.fillRect(rect(), palette().color(QPalette::Base));
    QRect r = rect().adjusted(4, 2, -4, -2);
    QFont bold = font();
    bold.setBold(true);
    painter.setFont(bold);
    painter.setPen(palette().color(QPalette::Text));
    const int titleHeight = QFontMetrics(bold).height();
    painter.drawText(QRect(r.left(), r.top(), r.width(), titleHeight), Qt::AlignHCenter | Qt::AlignVCenter, m_title);
    r.setTop(r.top() + titleHeight + 4);

    const QFont small = smallFont();
    painter.setFont(small);
    const QFontMetrics fm(small);
    int lines = 0;
    const std::vector<LegendSlot> places = flowLegend(m_series, fm, r.width(), &lines);
    if (lines > 0) {
        const int lineHeight = fm.height() + 2;
        const int top = r.bottom() - lines * lineHeight + 1;
        // Each line centred: its width is where its last entry ends.
        std::vector<int> lineWidth(lines, 0);
        for (size_t i = 0; i < places.size(); ++i)
            lineWidth[places[i].line] = places[i].x + kMarker + 4 + fm.horizontalAdvance(m_series[i].name);
        for (size_t i = 0; i < places.size(); ++i) {
            const int x = r.left() + (r.width() - lineWidth[places[i].line]) / 2 + places[i].x;
            const int y = top + places[i].line * lineHeight;
            const QRect marker(x, y + (lineHeight - kMarker) / 2, kMarker, kMarker);
            painter.fillRect(marker, m_series[i].color);
            painter.setPen(m_series[i].color.darker(150));
            painter.drawRect(marker.adjusted(0, 0, -1, -1));
            painter.setPen(palette().color(QPalette::Text));
            painter.drawText(QRect(x + kMarker + 4, y, r.right() - x, lineHeight), Qt::AlignLeft | Qt::AlignVCenter, m_series[i].name);
        }
        r.setBottom(top - 4);
    }
    return r;
}

void PaintedChart::drawValueAxisBelow(QPainter& painter, const QRect& plot, const ValueScale& scale) const
{
    const QFontMetrics fm(painter.font());
    const QColor grid = palette().color(QPalette::Midlight);
    for (double t : scale.ticks()) {
        const int x = plot.left() + static_cast<int>(std::lround(t / scale.max() * plot.width()));
        painter.setPen(grid);
        painter.drawLine(x, plot.top(), x, plot.bottom());
        painter.setPen(palette().color(QPalette::Text));
        const QString text = scale.label(t);
        const int w = fm.horizontalAdvance(text);
        painter.drawText(QRect(x - w / 2 - 2, plot.bottom() + 3, w + 4, fm.height()), Qt::AlignCenter, text);
    }
    painter.setPen(palette().color(QPalette::Mid));
    painter.drawLine(plot.bottomLeft(), plot.bottomRight());
    painter.drawLine(plot.topLeft(), plot.bottomLeft());
}

// StackedBarChart ---------------------------------------------------------------------------

StackedBarChart::StackedBarChart(QWidget* parent) : PaintedChart(parent)
{
    m_minHeight = 150;
}

void StackedBarChart::setMinimumChartHeight(int height)
{
    m_minHeight = height;
    updateGeometry();
}

void StackedBarChart::setCategories(const QStringList& categories)
{
    if (categories == m_categories)
        return;
    m_categories = categories;
    update();
}

void StackedBarChart::setValues(const std::vector<std::vector<double>>& values)
{
    double maxBar = 0;
    for (int c = 0; c < m_categories.size(); ++c) {
        double sum = 0;
        for (const auto& s : values)
            if (c < static_cast<int>(s.size()))
                sum += std::max(0.0, s[c]);
        maxBar = std::max(maxBar, sum);
    }
    const bool rescaled = m_scale.fit(maxBar);
    if (!rescaled && values == m_values)
        return;
    m_values = values;
    update();
}

double StackedBarChart::value(int series, int category) const
{
    if (series < 0 || series >= static_cast<int>(m_values.size()) || category < 0 || category >= static_cast<int>(m_values[series].size()))
        return 0;
    return m_values[series][category];
}

QRect StackedBarChart::segmentRect(int series, int category) const
{
    const int n = static_cast<int>(m_categories.size());
    if (n == 0 || m_plot.isEmpty() || category < 0 || category >= n)
        return {};
    const double band = double(m_plot.height()) / n;
    const int top = m_plot.top() + static_cast<int>(std::lround(band * category + band * 0.2));
    const int height = std::max(1, static_cast<int>(std::lround(band * 0.6)));
    auto xOf = [&](double v) { return m_plot.left() + static_cast<int>(std::lround(v / m_scale.max() * m_plot.width())); };
    double start = 0;
    for (int s = 0; s < series; ++s)
        start += std::max(0.0, value(s, category));
    const double v = std::max(0.0, value(series, category));
    const int x0 = xOf(start);
    const int x1 = xOf(start + v);
    return QRect(x0, top, x1 - x0, height);
}

QString StackedBarChart::toolTipAt(const QPoint& pos) const
{
    for (int c = 0; c < m_categories.size(); ++c)
        for (int s = 0; s < static_cast<int>(m_values.size()); ++s)
            if (value(s, c) > 0 && segmentRect(s, c).adjusted(0, 0, 1, 0).contains(pos))
                return s < static_cast<int>(m_tips.size()) && c < m_tips[s].size() ? m_tips[s][c] : QString();
    return {};
}

bool StackedBarChart::event(QEvent* event)
{
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const QString tip = toolTipAt(help->pos());
        if (tip.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(help->globalPos(), tip, this);
        return true;
    }
    return PaintedChart::event(event);
}

void StackedBarChart::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::FontChange || event->type() == QEvent::PaletteChange || event->type() == QEvent::StyleChange)
        m_layerKey.clear();   // the layer's text is drawn again
    PaintedChart::changeEvent(event);
}

void StackedBarChart::paintLayer()
{
    const qreal dpr = devicePixelRatioF();
    m_layer = QPixmap(size() * dpr);
    m_layer.setDevicePixelRatio(dpr);
    QPainter painter(&m_layer);
    QRect r = drawFrame(painter);
    const QFontMetrics fm(painter.font());
    int labelWidth = 0;
    for (const QString& c : m_categories)
        labelWidth = std::max(labelWidth, fm.horizontalAdvance(c));
    // Room for the last tick's label to the right of the plot and the labels under it.
    const int right = fm.horizontalAdvance(m_scale.label(m_scale.max())) / 2 + 2;
    m_plot = QRect(r.left() + labelWidth + 6, r.top(), r.width() - labelWidth - 6 - right, r.height() - fm.height() - 4);
    if (m_plot.width() < 10 || m_plot.height() < 10) {
        m_plot = QRect();
        return;
    }
    drawValueAxisBelow(painter, m_plot, m_scale);
    const int n = static_cast<int>(m_categories.size());
    const double band = n ? double(m_plot.height()) / n : 0;
    painter.setPen(palette().color(QPalette::Text));
    for (int c = 0; c < n; ++c) {
        const int y = m_plot.top() + static_cast<int>(std::lround(band * c));
        painter.drawText(QRect(r.left(), y, labelWidth, static_cast<int>(std::lround(band))), Qt::AlignRight | Qt::AlignVCenter,
                         m_categories[c]);
    }
}

void StackedBarChart::paintEvent(QPaintEvent*)
{
    countPaint();
    // The text (title, legend, labels) is drawn once per change of what it shows into a
    // layer; a new value only fills rectangles over it.
    QString key = QStringLiteral("%1x%2|%3|%4|%5|%6").arg(width()).arg(height()).arg(title(), m_categories.join(QChar(1)))
                      .arg(m_scale.max()).arg(m_scale.interval());
    for (const Series& s : series())
        key += QChar(2) + s.name + s.color.name();
    if (key != m_layerKey || m_layer.isNull()) {
        paintLayer();
        m_layerKey = key;
    }
    QPainter painter(this);
    painter.drawPixmap(0, 0, m_layer);
    if (m_plot.isEmpty())
        return;
    for (int c = 0; c < static_cast<int>(m_categories.size()); ++c)
        for (int s = 0; s < static_cast<int>(m_values.size()); ++s) {
            const QRect seg = segmentRect(s, c);
            if (seg.width() <= 0 || value(s, c) <= 0)
                continue;
            const QColor colour = s < static_cast<int>(series().size()) ? series()[s].color : QColor(Qt::gray);
            painter.fillRect(seg, colour);
            painter.setPen(colour.darker(140));
            painter.drawRect(seg.adjusted(0, 0, -1, -1));
        }
}

// HistoryChart ------------------------------------------------------------------------------

HistoryChart::HistoryChart(QWidget* parent) : PaintedChart(parent)
{
    m_minHeight = 140;
}

int HistoryChart::room() const
{
    const int n = static_cast<int>(m_estimate.size());
    return std::max(10, (n + 9) / 10 * 10);
}

void HistoryChart::setPoints(const std::vector<double>& estimate, const std::vector<double>& bound)
{
    double maxValue = 0;
    for (double v : estimate)
        maxValue = std::max(maxValue, v);
    for (double v : bound)
        maxValue = std::max(maxValue, v);
    const bool rescaled = m_scale.fit(maxValue);
    if (!rescaled && estimate == m_estimate && bound == m_bound)
        return;
    m_estimate = estimate;
    m_bound = bound;
    update();
}

void HistoryChart::paintEvent(QPaintEvent*)
{
    countPaint();
    QPainter painter(this);
    QRect r = drawFrame(painter);
    const QFontMetrics fm(painter.font());
    const std::vector<double> ticks = m_scale.ticks();
    int labelWidth = 0;
    for (double t : ticks)
        labelWidth = std::max(labelWidth, fm.horizontalAdvance(m_scale.label(t)));
    const QRect plot(r.left() + labelWidth + 6, r.top() + fm.height() / 2, r.width() - labelWidth - 6 - 8,
                     r.height() - fm.height() - 4 - fm.height() / 2);
    if (plot.width() < 10 || plot.height() < 10)
        return;
    const int room = this->room();
    auto xOf = [&](double x) { return plot.left() + (x - 0.5) / room * plot.width(); };
    auto yOf = [&](double y) { return plot.bottom() - y / m_scale.max() * plot.height(); };

    // Value grid and labels on the left; edit numbers below.
    const QColor grid = palette().color(QPalette::Midlight);
    for (double t : ticks) {
        const int y = static_cast<int>(std::lround(yOf(t)));
        painter.setPen(grid);
        painter.drawLine(plot.left(), y, plot.right(), y);
        painter.setPen(palette().color(QPalette::Text));
        painter.drawText(QRect(r.left(), y - fm.height() / 2, labelWidth, fm.height()), Qt::AlignRight | Qt::AlignVCenter,
                         m_scale.label(t));
    }
    const int step = std::max(1, (room + 9) / 10);
    for (int x = 1; x <= room; x += step) {
        const int px = static_cast<int>(std::lround(xOf(x)));
        painter.setPen(palette().color(QPalette::Mid));
        painter.drawLine(px, plot.bottom(), px, plot.bottom() + 3);
        painter.setPen(palette().color(QPalette::Text));
        painter.drawText(QRect(px - 20, plot.bottom() + 3, 40, fm.height()), Qt::AlignCenter, QString::number(x));
    }
    painter.setPen(palette().color(QPalette::Mid));
    painter.drawLine(plot.bottomLeft(), plot.bottomRight());
    painter.drawLine(plot.topLeft(), plot.bottomLeft());

    painter.setRenderHint(QPainter::Antialiasing, true);
    auto drawLine = [&](const std::vector<double>& values, const QPen& pen) {
        if (values.empty())
            return;
        QPainterPath path;
        for (size_t i = 0; i < values.size(); ++i) {
            const QPointF p(xOf(double(i + 1)), yOf(values[i]));
            if (i == 0)
                path.moveTo(p);
            else
                path.lineTo(p);
        }
        painter.setPen(pen);
        painter.setBrush(Qt::NoBrush);
        painter.drawPath(path);
        painter.setBrush(pen.color());
        painter.setPen(Qt::NoPen);
        for (size_t i = 0; i < values.size(); ++i)
            painter.drawEllipse(QPointF(xOf(double(i + 1)), yOf(values[i])), 2.5, 2.5);
    };
    drawLine(m_bound, series().size() > 1 ? QPen(series()[1].color, 1.5, Qt::DashLine) : QPen(Qt::gray));
    drawLine(m_estimate, !series().empty() ? QPen(series()[0].color, 2) : QPen(Qt::blue));
}

} // namespace loopscope::ui
