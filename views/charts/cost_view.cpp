// Cost view: headline figures against their bounds, traffic and cycle charts, and the history
// of total cycles over the session's edits.
#include "charts/cost_view.h"

#include "live_label.h"
#include "memory_view.h"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QGraphicsLayout>
#include <QCursor>
#include <QGridLayout>
#include <QHorizontalStackedBarSeries>
#include <QLabel>
#include <QLegend>
#include <QLineSeries>
#include <QLocale>
#include <QScrollArea>
#include <QToolTip>
#include <QVBoxLayout>
#include <QValueAxis>

#include <algorithm>
#include <cmath>

namespace loopscope::ui {

namespace {

QString grouped(int64_t v)
{
    return QLocale(QLocale::English).toString(static_cast<qlonglong>(v));
}

/// 950, 12.3 K, 1.11 M, 2.50 G.
QString compact(double v)
{
    double a = std::fabs(v);
    auto fmt = [](double x, const char* unit) {
        int decimals = std::fabs(x) < 10 ? 2 : (std::fabs(x) < 100 ? 1 : 0);
        return QString::number(x, 'f', decimals) + QLatin1Char(' ') + QLatin1String(unit);
    };
    if (a < 1e4)
        return QString::number(v, 'f', v == std::floor(v) ? 0 : 2);
    if (a < 1e6)
        return fmt(v / 1e3, "K");
    if (a < 1e9)
        return fmt(v / 1e6, "M");
    return fmt(v / 1e9, "G");
}

QString bytesText(int64_t b)
{
    if (b < 1024)
        return grouped(b) + QStringLiteral(" B");
    double v = b / 1024.0;
    const char* unit = "KiB";
    if (v >= 1024) {
        v /= 1024;
        unit = "MiB";
    }
    if (v >= 1024) {
        v /= 1024;
        unit = "GiB";
    }
    int decimals = v == std::floor(v) ? 0 : (v < 10 ? 2 : 1);
    return QStringLiteral("%1 B (%2 %3)").arg(grouped(b), QString::number(v, 'f', decimals), QLatin1String(unit));
}

QString shortBytes(double b)
{
    if (b < 1024)
        return QString::number(b, 'f', 0) + QStringLiteral(" B");
    const char* units[] = {"KiB", "MiB", "GiB"};
    int u = 0;
    double v = b / 1024;
    while (v >= 1024 && u < 2) {
        v /= 1024;
        ++u;
    }
    int decimals = v == std::floor(v) ? 0 : (v < 10 ? 2 : 1);
    return QString::number(v, 'f', decimals) + QLatin1Char(' ') + QLatin1String(units[u]);
}

/// A unit so that the largest value reads between 1 and 1024 (bytes) or 1000 (counts).
struct Unit {
    double divisor = 1;
    QString name;
};

Unit byteUnit(double maxValue)
{
    if (maxValue >= 1024.0 * 1024 * 1024)
        return {1024.0 * 1024 * 1024, QStringLiteral("GiB")};
    if (maxValue >= 1024.0 * 1024)
        return {1024.0 * 1024, QStringLiteral("MiB")};
    if (maxValue >= 1024.0)
        return {1024.0, QStringLiteral("KiB")};
    return {1, QStringLiteral("bytes")};
}

Unit countUnit(double maxValue, const QString& what)
{
    if (maxValue >= 1e9)
        return {1e9, what + QStringLiteral(" (G)")};
    if (maxValue >= 1e6)
        return {1e6, what + QStringLiteral(" (M)")};
    if (maxValue >= 1e4)
        return {1e3, what + QStringLiteral(" (K)")};
    return {1, what};
}

QString percentText(double share)
{
    if (share < 0)
        return QStringLiteral("—");
    return QString::number(share, 'f', share < 10 ? 2 : 1) + QLatin1Char('%');
}

QChart* makeChart(const QString& title, const QFont& base)
{
    auto* chart = new QChart;
    chart->setAnimationOptions(QChart::NoAnimation);
    chart->setTitle(title);
    // Compact: the charts share a dock with the headline figures.
    chart->setMargins(QMargins(2, 0, 2, 0));
    chart->layout()->setContentsMargins(0, 0, 0, 0);
    chart->setBackgroundRoundness(0);
    QFont titleFont = base;
    titleFont.setBold(true);
    chart->setTitleFont(titleFont);
    QFont small = base;
    small.setPointSizeF(std::max(6.5, base.pointSizeF() - 1));
    chart->legend()->setFont(small);
    chart->legend()->setAlignment(Qt::AlignBottom);
    chart->legend()->setMarkerShape(QLegend::MarkerShapeRectangle);
    return chart;
}

/// Axis labels in the charts' small font.
void styleAxis(QAbstractAxis* axis, const QFont& base)
{
    QFont small = base;
    small.setPointSizeF(std::max(6.5, base.pointSizeF() - 1));
    axis->setLabelsFont(small);
}

/// `antialiased`: the history's line needs it; the bar charts draw only rectangles and lines
/// parallel to the axes, which look the same without it, and the raster engine then fills
/// them directly instead of stroking each as a path (most of what a repaint of them cost).
QChartView* makeView(QChart* chart, int minHeight, bool antialiased)
{
    auto* view = new QChartView(chart);
    view->setRenderHint(QPainter::Antialiasing, antialiased);
    view->setMinimumHeight(minHeight);
    view->setFrameShape(QFrame::NoFrame);
    return view;
}

/// Fits 0..max (rounded to nice numbers) to the values, but keeps the range while they fit
/// it well: it grows as soon as a value passes the end and shrinks only when the largest
/// value falls below a third of it. A new range relays out every label of its chart, which
/// is most of what an edit would cost the panel; a range that moves rarely costs nothing.
void fitRange(QValueAxis* axis, double max)
{
    const double want = std::max(1e-9, max * 1.05);
    if (axis->min() == 0 && want <= axis->max() && want * 3 >= axis->max())
        return;
    QValueAxis probe;
    probe.setRange(0, want);
    probe.applyNiceNumbers();
    if (probe.min() != axis->min() || probe.max() != axis->max() || probe.tickCount() != axis->tickCount()) {
        axis->setRange(probe.min(), probe.max());
        axis->setTickCount(probe.tickCount());
    }
}

/// The line of figures under a chart.
LiveLabel* makeCaption(QWidget* parent, const QFont& base)
{
    auto* caption = new LiveLabel(parent);
    QFont small = base;
    small.setPointSizeF(std::max(6.5, base.pointSizeF() - 1));
    caption->setFont(small);
    caption->setAlignment(Qt::AlignHCenter);
    caption->setWordWrap(true);
    caption->setContentsMargins(4, 0, 4, 2);
    return caption;
}

void setTitleIfChanged(QChart* chart, const QString& title)
{
    if (chart->title() != title)
        chart->setTitle(title);
}

const char* const kFigureNames[] = {"Cycles", "Latency", "Energy", "MACs", "DRAM traffic", "DRAM traffic", "PE utilisation"};
constexpr int kFigureCount = static_cast<int>(sizeof(kFigureNames) / sizeof(kFigureNames[0]));

} // namespace

CostView::CostView(QWidget* parent) : QWidget(parent)
{
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(6, 6, 6, 6);
    m_placeholder = new QLabel(tr("No schedule is open."), this);
    m_placeholder->setAlignment(Qt::AlignCenter);
    m_placeholder->setWordWrap(true);
    outer->addWidget(m_placeholder);

    m_content = new QWidget(this);
    auto* layout = new QVBoxLayout(m_content);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(6);
    outer->addWidget(m_content, 1);

    // Wrapped labels that every layout of the window measures: LiveLabels keep their text
    // laid out per width (a QLabel lays rich and wrapped text out again each time it is asked).
    m_title = new LiveLabel(m_content);
    QFont titleFont = m_title->font();
    titleFont.setBold(true);
    m_title->setFont(titleFont);
    m_title->setWordWrap(true);
    layout->addWidget(m_title);

    auto* grid = new QGridLayout;
    grid->setHorizontalSpacing(14);
    grid->setVerticalSpacing(2);
    const QStringList heads = {tr("figure"), tr("estimate"), tr("bound"), tr("of bound reached")};
    for (int c = 0; c < heads.size(); ++c) {
        auto* h = new QLabel(heads[c], m_content);
        h->setStyleSheet(QStringLiteral("color: palette(mid);"));
        grid->addWidget(h, 0, c, c == 0 ? Qt::AlignLeft : Qt::AlignRight);
    }
    m_headlines.resize(kFigureCount);
    for (int r = 0; r < kFigureCount; ++r) {
        Headline& h = m_headlines[r];
        h.name = new LiveLabel(tr(kFigureNames[r]), m_content);
        h.value = new LiveLabel(m_content);
        QFont bold = h.value->font();
        bold.setBold(true);
        h.value->setFont(bold);
        h.bound = new LiveLabel(m_content);
        h.percent = new LiveLabel(m_content);
        h.percent->setFont(bold);
        for (LiveLabel* l : {h.value, h.bound, h.percent}) {
            l->setAlignment(Qt::AlignRight);
            l->setGrowOnly(true);   // a figure that gets a digit shorter moves nothing
        }
        h.name->setGrowOnly(true);
        grid->addWidget(h.name, r + 1, 0);
        grid->addWidget(h.value, r + 1, 1, Qt::AlignRight);
        grid->addWidget(h.bound, r + 1, 2, Qt::AlignRight);
        grid->addWidget(h.percent, r + 1, 3, Qt::AlignRight);
    }
    grid->setColumnStretch(2, 1);
    layout->addLayout(grid);
    // What the figures count, next to them: the model's cycles are not the exported code's
    // instructions (a measurement shows those), and a newcomer comparing the two must know why.
    m_caveat = new LiveLabel(m_content);
    m_caveat->setObjectName(QStringLiteral("costCaveat"));
    m_caveat->setWordWrap(true);
    QFont caveatFont = font();
    caveatFont.setPointSizeF(std::max(6.5, caveatFont.pointSizeF() - 1));
    m_caveat->setFont(caveatFont);
    m_caveat->setColor(palette().color(QPalette::Dark));
    layout->addWidget(m_caveat);

    m_measured = new QLabel(m_content);
    m_measured->setWordWrap(true);
    m_measured->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_measured->hide();
    layout->addWidget(m_measured);

    m_trafficChart = makeChart(tr("Traffic per level and tensor"), font());
    m_cyclesChart = makeChart(tr("Cycles"), font());
    m_historyChart = makeChart(tr("Total cycles over this session's edits"), font());
    // The charts scroll rather than squash when the dock is short.
    auto* scroll = new QScrollArea(m_content);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    auto* charts = new QWidget(scroll);
    auto* chartsLayout = new QVBoxLayout(charts);
    chartsLayout->setContentsMargins(0, 0, 0, 0);
    chartsLayout->setSpacing(4);
    // Heights below which Qt Charts elides the category labels of the bar charts.
    m_trafficCaption = makeCaption(charts, font());
    m_cyclesCaption = makeCaption(charts, font());
    m_historyCaption = makeCaption(charts, font());
    chartsLayout->addWidget(makeView(m_trafficChart, 180, false), 1);
    chartsLayout->addWidget(m_trafficCaption);
    chartsLayout->addWidget(makeView(m_cyclesChart, 190, false), 1);
    chartsLayout->addWidget(m_cyclesCaption);
    chartsLayout->addWidget(makeView(m_historyChart, 150, true), 1);
    chartsLayout->addWidget(m_historyCaption);
    scroll->setWidget(charts);
    layout->addWidget(scroll, 1);

    // Traffic: one stacked bar per level, a set per tensor (sets change with the kernel).
    m_trafficSeries = new QHorizontalStackedBarSeries;
    m_trafficSeries->setBarWidth(0.6);
    m_trafficChart->addSeries(m_trafficSeries);
    m_trafficLevels = new QBarCategoryAxis;
    m_trafficAxis = new QValueAxis;
    m_trafficAxis->setLabelFormat(QStringLiteral("%.4g"));
    styleAxis(m_trafficLevels, font());
    styleAxis(m_trafficAxis, font());
    m_trafficChart->addAxis(m_trafficLevels, Qt::AlignLeft);
    m_trafficChart->addAxis(m_trafficAxis, Qt::AlignBottom);
    m_trafficSeries->attachAxis(m_trafficLevels);
    m_trafficSeries->attachAxis(m_trafficAxis);

    // Cycles: bars bound, transfer, total (bottom-up) stacked from four fixed sets.
    m_cyclesSeries = new QHorizontalStackedBarSeries;
    m_cyclesSeries->setBarWidth(0.6);
    const std::pair<QString, QColor> parts[] = {
        {tr("compute"), QColor(0x4e, 0x79, 0xa7)},
        {tr("transfer, exposed"), QColor(0xf2, 0x8e, 0x2b)},
        {tr("transfer, hidden"), QColor(0xf2, 0x8e, 0x2b).lighter(150)},
        {tr("compute bound"), QColor(150, 150, 150)},
    };
    for (const auto& [name, colour] : parts) {
        auto* set = new QBarSet(name);
        set->setColor(colour);
        set->setBorderColor(colour.darker(140));
        set->append({0, 0, 0});
        m_cyclesSeries->append(set);
    }
    m_cyclesChart->addSeries(m_cyclesSeries);
    auto* cycleBars = new QBarCategoryAxis;
    cycleBars->append({tr("bound"), tr("transfer"), tr("total")});
    m_cyclesAxis = new QValueAxis;
    m_cyclesAxis->setLabelFormat(QStringLiteral("%.4g"));
    styleAxis(cycleBars, font());
    styleAxis(m_cyclesAxis, font());
    m_cyclesChart->addAxis(cycleBars, Qt::AlignLeft);
    m_cyclesChart->addAxis(m_cyclesAxis, Qt::AlignBottom);
    m_cyclesSeries->attachAxis(cycleBars);
    m_cyclesSeries->attachAxis(m_cyclesAxis);

    m_historySeries = new QLineSeries;
    m_historySeries->setName(tr("estimate"));
    m_historySeries->setPointsVisible(true);
    QPen pen(QColor(0x4e, 0x79, 0xa7), 2);
    m_historySeries->setPen(pen);
    m_historyBound = new QLineSeries;
    m_historyBound->setName(tr("compute bound"));
    QPen dashed(QColor(120, 120, 120), 1.5, Qt::DashLine);
    m_historyBound->setPen(dashed);
    m_historyBound->setPointsVisible(true);
    m_historyChart->addSeries(m_historySeries);
    m_historyChart->addSeries(m_historyBound);
    m_historyX = new QValueAxis;
    m_historyX->setLabelFormat(QStringLiteral("%d"));
    m_historyX->setTickType(QValueAxis::TicksDynamic);
    m_historyX->setTickAnchor(1);
    m_historyX->setTickInterval(1);
    m_historyY = new QValueAxis;
    m_historyY->setLabelFormat(QStringLiteral("%.4g"));
    styleAxis(m_historyX, font());
    styleAxis(m_historyY, font());
    m_historyChart->addAxis(m_historyX, Qt::AlignBottom);
    m_historyChart->addAxis(m_historyY, Qt::AlignLeft);
    for (QLineSeries* s : {m_historySeries, m_historyBound}) {
        s->attachAxis(m_historyX);
        s->attachAxis(m_historyY);
    }

    m_content->hide();
    updateHistoryChart();
}

QSize CostView::sizeHint() const
{
    return QSize(560, 860);
}

void CostView::setMeasurement(int revision, const QString& text)
{
    m_measuredRevision = revision;
    m_measured->setText(text);
    m_measured->setVisible(!text.isEmpty() && revision == m_snapshot.revision);
}

QString CostView::measurementText() const { return m_measuredRevision == m_snapshot.revision ? m_measured->text() : QString(); }

void CostView::setSnapshot(const Snapshot& snapshot)
{
    m_snapshot = snapshot;
    // A measurement belongs to the schedule it measured.
    m_measured->setVisible(!m_measured->text().isEmpty() && m_measuredRevision == snapshot.revision);
    if (snapshot.report && (!m_hasRevision || snapshot.revision != m_lastRevision)) {
        const analysis::CostReport& r = *snapshot.report;
        m_history.push_back({snapshot.revision, double(r.cycles.total), double(r.bounds.computeCycles)});
        m_hasRevision = true;
        m_lastRevision = snapshot.revision;
    }
    if (!snapshot.report) {
        m_placeholder->setText(snapshot.empty() ? tr("No schedule is open.")
                               : snapshot.failedStep ? tr("No cost estimate: %1").arg(QString::fromStdString(snapshot.failedStep->str()))
                                                     : tr("No cost report for this schedule."));
        m_placeholder->show();
        m_content->hide();
        for (Headline& h : m_headlines)
            h.share = -1;
        return;
    }
    m_placeholder->hide();
    m_content->show();
    updateHeadlines();
    updateTrafficChart();
    updateCyclesChart();
    updateHistoryChart();
}

void CostView::clearHistory()
{
    m_history.clear();
    m_hasRevision = false;
    updateHistoryChart();
}

int CostView::historySize() const
{
    return static_cast<int>(m_history.size());
}

std::vector<double> CostView::historyValues() const
{
    std::vector<double> out;
    for (const HistoryPoint& p : m_history)
        out.push_back(p.cycles);
    return out;
}

double CostView::percentOfBound(Figure figure) const
{
    return m_headlines[static_cast<int>(figure)].share;
}

bool CostView::figureShown(Figure figure) const
{
    return !m_headlines[static_cast<int>(figure)].name->isHidden();
}

QString CostView::figureText(Figure figure) const
{
    const Headline& h = m_headlines[static_cast<int>(figure)];
    return QStringLiteral("%1 | %2 | %3 | %4").arg(h.name->text(), h.value->text(), h.bound->text(), h.percent->text());
}

void CostView::setHeadline(Figure figure, const QString& value, const QString& bound, double share, const QString& note)
{
    Headline& h = m_headlines[static_cast<int>(figure)];
    h.value->setText(value);
    h.bound->setText(bound);
    h.share = share;
    h.percent->setText(percentText(share));
    // Green near the bound, amber half way, red far from it.
    h.percent->setColor(share < 0 ? palette().color(QPalette::Mid)
                        : share >= 70 ? QColor(0x2e, 0x7d, 0x32)
                        : share >= 25 ? QColor(0xb2, 0x6a, 0x00)
                                      : QColor(0xc6, 0x28, 0x28));
    for (LiveLabel* l : {h.name, h.value, h.bound, h.percent})
        l->setToolTip(note);
}

QString CostView::caveatText() const { return m_caveat->text(); }

QString CostView::chartCaption(int chart) const
{
    const LiveLabel* captions[] = {m_trafficCaption, m_cyclesCaption, m_historyCaption};
    return chart >= 0 && chart < 3 ? captions[chart]->text() : QString();
}

QString CostView::latencyText(double ms)
{
    if (ms >= 1000)
        return QStringLiteral("%1 s").arg(QString::number(ms / 1000.0, 'f', ms >= 100000 ? 1 : 3));
    return QStringLiteral("%1 ms").arg(QString::number(ms, 'f', 3));
}

void CostView::updateHeadlines()
{
    const analysis::CostReport& r = *m_snapshot.report;
    const hw::Target* target = m_snapshot.program && m_snapshot.program->target ? m_snapshot.program->target.get()
                               : m_snapshot.nest && m_snapshot.nest->target ? m_snapshot.nest->target.get()
                                                                             : nullptr;
    if (target && r.array)
        m_caveat->setText(tr("What these count: cycles = the PE array's computes and the preloads it cannot hide, the mvin/mvout rows over "
                             "the DMA bus (less what double buffering hides), and the host issuing the instructions and requantizing, "
                             "overlapped with the array (docs/cost-model.md, Gemmini; timings from the target file)."));
    else if (target)
        m_caveat->setText(tr("What these count: cycles = MACs at %1's peak rate + %2 cycles per iteration of a loop not unrolled "
                             "+ copies (bytes over bandwidth, plus latency), less what double buffering hides. Address arithmetic, "
                             "loads, stores and loop control of the exported C are not counted: the instructions it executes "
                             "(Schedule > Measure) are more.")
                              .arg(QString::fromStdString(target->name))
                              .arg(target->loopOverheadCycles));
    m_title->setText(tr("%1 on %2").arg(QString::fromStdString(r.kernel), QString::fromStdString(r.target)));
    auto share = [](double bound, double estimate) { return estimate > 0 ? bound / estimate * 100.0 : -1.0; };

    const double total = double(r.cycles.total);
    const double bound = double(r.bounds.computeCycles);
    setHeadline(Figure::Cycles, grouped(r.cycles.total), tr("%1 compute bound").arg(grouped(r.bounds.computeCycles)),
                share(bound, total),
                tr("Compute bound: MACs over the peak MAC rate of the target. Estimate %1x the bound.")
                    .arg(bound > 0 ? QString::number(total / bound, 'f', 1) : QStringLiteral("—")));

    if (target && target->clockMhz > 0) {
        double boundMs = bound / (target->clockMhz * 1000.0);
        setHeadline(Figure::Latency, latencyText(r.latencyMs), tr("%1 at peak").arg(latencyText(boundMs)), share(boundMs, r.latencyMs),
                    tr("Compute bound at %1 MHz.").arg(target->clockMhz));
    } else {
        setHeadline(Figure::Latency, latencyText(r.latencyMs), tr("no clock given"), -1);
    }

    if (target && !target->levels.empty()) {
        // Not a model bound but a floor derived from two: every MAC is paid for, and every
        // compulsory byte is moved in the home level at least once.
        double floorUj = (double(r.macs) * target->compute.energyPjPerMac
                          + double(r.bounds.compulsoryBytes) * target->levels[0].energyPjPerByte) * 1e-6;
        setHeadline(Figure::Energy, QStringLiteral("%1 µJ").arg(QString::number(r.energyUj, 'f', 2)),
                    tr("%1 µJ floor").arg(QString::number(floorUj, 'f', 2)), share(floorUj, r.energyUj),
                    tr("Floor: MACs × %1 pJ/MAC + compulsory bytes × %2 pJ/B in %3.")
                        .arg(target->compute.energyPjPerMac)
                        .arg(target->levels[0].energyPjPerByte)
                        .arg(QString::fromStdString(target->levels[0].name)));
    } else {
        setHeadline(Figure::Energy, QStringLiteral("%1 µJ").arg(QString::number(r.energyUj, 'f', 2)), tr("—"), -1);
    }

    // MACs: the rate achieved against the peak rate the compute bound assumes.
    if (bound > 0 && total > 0) {
        double achieved = double(r.macs) / total;
        double peak = double(r.macs) / bound;
        setHeadline(Figure::Macs, grouped(r.macs),
                    tr("%1 MACs/cycle of %2 peak").arg(QString::number(achieved, 'f', achieved < 10 ? 2 : 1),
                                                      QString::number(peak, 'f', peak == std::floor(peak) ? 0 : 2)),
                    achieved / peak * 100.0, tr("MACs per cycle achieved over the whole run against the peak rate."));
    } else {
        setHeadline(Figure::Macs, grouped(r.macs), tr("peak rate unknown"), -1);
    }

    // The PE array: how full each compute is, beside the share of the array's peak reached.
    // The row belongs to the target: on a PE-array target it stays when no stage is tensorized
    // (a factor dragged through a value the array cannot take fails the tensorize step), so
    // that the panel and its charts do not move, and lay the window out again, on such edits.
    Headline& pe = m_headlines[int(Figure::PeUtilisation)];
    const bool peRow = r.array || (target && target->compute.peArray);
    for (LiveLabel* l : {pe.name, pe.value, pe.bound, pe.percent})
        if (l->isHidden() == peRow)   // only a change: each show lays the window out again
            l->setVisible(peRow);
    if (r.array) {
        const analysis::ArrayReport& a = *r.array;
        const int64_t perCompute = int64_t(a.dim) * a.dim * a.dim;
        setHeadline(Figure::PeUtilisation, QStringLiteral("%1%").arg(QString::number(a.peUtilisation * 100.0, 'f', 1)),
                    tr("%1 computes × %2 MACs").arg(grouped(a.instructions.compute), grouped(perCompute)), a.peUtilisation * 100.0,
                    tr("%1x%1 PE array, %2: %3 useful MACs over %4 computes of %5 MACs each. The array reaches %6% of its "
                       "peak over the whole run (the Cycles row); %7 array cycles, %8 host cycles overlapped with them; %9 "
                       "instructions (mvin %10, mvout %11, preload %12, compute %13).")
                        .arg(a.dim)
                        .arg(QString::fromStdString(a.dataflow), grouped(a.usefulMacs), grouped(a.instructions.compute), grouped(perCompute))
                        .arg(QString::number(a.peakFraction * 100.0, 'f', 1))
                        .arg(grouped(a.arrayCycles), grouped(a.hostCycles), grouped(a.instructions.total()))
                        .arg(grouped(a.instructions.mvin), grouped(a.instructions.mvout), grouped(a.instructions.preload),
                             grouped(a.instructions.compute)));
    } else if (peRow) {
        setHeadline(Figure::PeUtilisation, QStringLiteral("—"), tr("no stage on the array"), -1,
                    tr("No stage of this schedule is tensorized (Tensorize, G): the host computes every MAC and the %1x%2 "
                       "PE array is idle.")
                        .arg(target->compute.peArray->rows)
                        .arg(target->compute.peArray->cols));
    } else {
        pe.share = -1;
    }

    int64_t home = 0;
    QString homeName = QStringLiteral("DRAM");
    if (!r.levels.empty()) {
        home = r.levels[0].readBytes + r.levels[0].writeBytes;
        homeName = QString::fromStdString(r.levels[0].name);
    }
    m_headlines[int(Figure::CompulsoryTraffic)].name->setText(tr("%1 traffic").arg(homeName));
    // The same traffic against its second bound: one row below, without repeating it.
    m_headlines[int(Figure::IoLowerBoundTraffic)].name->setText(QString());
    // Short units in the table, exact bytes in the tooltips.
    setHeadline(Figure::CompulsoryTraffic, shortBytes(double(home)), tr("%1 compulsory").arg(shortBytes(double(r.bounds.compulsoryBytes))),
                share(double(r.bounds.compulsoryBytes), double(home)),
                tr("%1 moved in %2; compulsory %3: every input element used read once, every output written once.")
                    .arg(bytesText(home), homeName, bytesText(r.bounds.compulsoryBytes)));
    if (!r.bounds.ioLowerBoundBytes) {
        setHeadline(Figure::IoLowerBoundTraffic, QString(), tr("no I/O lower bound (known for C += A·B only)"), -1,
                    tr("The I/O lower bound (Smith et al. 2017) is known for single-stage kernels shaped like a matrix multiply only."));
    } else if (*r.bounds.ioLowerBoundBytes <= 0) {
        setHeadline(Figure::IoLowerBoundTraffic, QString(), tr("I/O bound 0 B (fits on chip)"), -1,
                    tr("The fast memories hold enough of the problem that the I/O lower bound is zero."));
    } else {
        setHeadline(Figure::IoLowerBoundTraffic, QString(), tr("%1 I/O lower bound").arg(shortBytes(double(*r.bounds.ioLowerBoundBytes))),
                    share(double(*r.bounds.ioLowerBoundBytes), double(home)),
                    tr("I/O lower bound %1 (Smith et al. 2017: Q ≥ 2mnk/√S − 2S for a fast memory of S elements).")
                        .arg(bytesText(*r.bounds.ioLowerBoundBytes)));
    }
}

// The charts keep their series and axes and change values in place: recreating them costs
// Qt Charts a full scene relayout (15-20 ms an edit), changing values well under one.

void CostView::updateTrafficChart()
{
    const analysis::CostReport& r = *m_snapshot.report;
    // Tensors in order of first appearance; one stacked bar per level.
    std::vector<std::string> tensors;
    for (const auto& t : r.tensors)
        if (std::find(tensors.begin(), tensors.end(), t.name) == tensors.end())
            tensors.push_back(t.name);
    double maxLevel = 0;
    for (const auto& l : r.levels)
        maxLevel = std::max(maxLevel, double(l.readBytes + l.writeBytes));
    const Unit unit = byteUnit(maxLevel);

    // Horizontal bars list categories bottom-up: reverse so the outermost level is on top.
    // The categories are the level names alone: the bytes per level change with every edit
    // and go in the caption (new category labels relay out the whole chart).
    QStringList categories;
    QStringList perLevel;
    std::vector<int> levelOrder;
    for (int l = static_cast<int>(r.levels.size()) - 1; l >= 0; --l) {
        levelOrder.push_back(l);
        const auto& lr = r.levels[l];
        categories << QString::fromStdString(lr.name);
    }
    for (const auto& lr : r.levels)
        perLevel << QStringLiteral("%1 %2").arg(QString::fromStdString(lr.name), shortBytes(double(lr.readBytes + lr.writeBytes)));
    if (tensors != m_trafficTensors || static_cast<int>(levelOrder.size()) != m_trafficLevelCount) {
        m_trafficSeries->clear();
        m_trafficTips.assign(tensors.size(), QStringList());
        for (size_t i = 0; i < tensors.size(); ++i) {
            auto* set = new QBarSet(QString::fromStdString(tensors[i]));
            QColor c = MemoryView::tensorColor(m_snapshot.program ? m_snapshot.program->kernel.get() : nullptr, QString::fromStdString(tensors[i]));
            set->setColor(c);
            set->setBorderColor(c.darker(150));
            for (size_t l = 0; l < levelOrder.size(); ++l)
                set->append(0);
            connect(set, &QBarSet::hovered, this, [this, i](bool status, int index) {
                if (status && i < m_trafficTips.size() && index >= 0 && index < m_trafficTips[i].size())
                    QToolTip::showText(QCursor::pos(), m_trafficTips[i][index]);
                else
                    QToolTip::hideText();
            });
            m_trafficSeries->append(set);
        }
        m_trafficTensors = tensors;
        m_trafficLevelCount = static_cast<int>(levelOrder.size());
        m_trafficChart->legend()->setVisible(!tensors.empty());
    }
    const QList<QBarSet*> sets = m_trafficSeries->barSets();
    for (size_t i = 0; i < tensors.size() && i < static_cast<size_t>(sets.size()); ++i) {
        QStringList tips;
        for (size_t j = 0; j < levelOrder.size(); ++j) {
            const int l = levelOrder[j];
            int64_t rd = 0, wr = 0;
            for (const auto& tt : r.tensors)
                if (tt.name == tensors[i] && tt.level == r.levels[l].name) {
                    rd += tt.readBytes;
                    wr += tt.writeBytes;
                }
            const double v = double(rd + wr) / unit.divisor;
            if (sets[i]->at(static_cast<int>(j)) != v)
                sets[i]->replace(static_cast<int>(j), v);
            tips << tr("%1 in %2: %3 read, %4 written")
                        .arg(QString::fromStdString(tensors[i]), QString::fromStdString(r.levels[l].name), bytesText(rd), bytesText(wr));
        }
        m_trafficTips[i] = tips;
    }
    if (m_trafficLevels->categories() != categories)
        m_trafficLevels->setCategories(categories);
    fitRange(m_trafficAxis, maxLevel / unit.divisor);
    setTitleIfChanged(m_trafficChart, tr("Bytes read + written per level and tensor (%1)").arg(unit.name));
    m_trafficCaption->setText(tr("Moved: %1").arg(perLevel.join(QStringLiteral(" · "))));
}

void CostView::updateCyclesChart()
{
    const analysis::CostReport& r = *m_snapshot.report;
    const double compute = double(r.cycles.compute);
    const double transfer = double(r.cycles.transfer);
    const double hidden = std::clamp(r.cycles.overlapRatio, 0.0, 1.0) * transfer;
    const double exposed = transfer - hidden;
    const double bound = double(r.bounds.computeCycles);
    const double maxValue = std::max({compute + exposed, compute, transfer, bound, double(r.cycles.total), 1.0});
    const Unit unit = countUnit(maxValue, tr("Cycles"));
    // Bottom-up: bound, transfer, total (= compute + the transfer not hidden behind it); the
    // sets as created in the constructor: compute, transfer exposed, transfer hidden, bound.
    const double values[4][3] = {{0, 0, compute}, {0, exposed, exposed}, {0, hidden, 0}, {bound, 0, 0}};
    const QList<QBarSet*> sets = m_cyclesSeries->barSets();
    for (int i = 0; i < 4 && i < sets.size(); ++i)
        for (int j = 0; j < 3; ++j)
            if (sets[i]->at(j) != values[i][j] / unit.divisor)
                sets[i]->replace(j, values[i][j] / unit.divisor);
    fitRange(m_cyclesAxis, maxValue / unit.divisor);
    setTitleIfChanged(m_cyclesChart, unit.name);
    m_cyclesCaption->setText(tr("compute %1 + transfer %2, overlap %3")
                                 .arg(compact(compute), compact(transfer), QString::number(r.cycles.overlapRatio, 'f', 2)));
}

void CostView::updateHistoryChart()
{
    double maxValue = 1;
    for (const HistoryPoint& p : m_history)
        maxValue = std::max({maxValue, p.cycles, p.bound});
    const Unit unit = countUnit(maxValue, tr("cycles"));
    QList<QPointF> estimate, bound;
    for (size_t i = 0; i < m_history.size(); ++i) {
        estimate << QPointF(double(i + 1), m_history[i].cycles / unit.divisor);
        bound << QPointF(double(i + 1), m_history[i].bound / unit.divisor);
    }
    m_historySeries->replace(estimate);
    m_historyBound->replace(bound);
    const int n = static_cast<int>(m_history.size());
    // Half an edit of room on both sides so that the end points are not cut. The axis starts
    // with room for ten edits and grows ten at a time: a new range relays out every label of
    // the chart (about 2.5 M instructions), which an axis growing by one did on every edit.
    const int room = std::max(10, (n + 9) / 10 * 10);
    if (m_historyX->max() != room + 0.5) {
        m_historyX->setRange(0.5, room + 0.5);
        m_historyX->setTickInterval(std::max(1.0, std::ceil(room / 10.0)));
    }
    fitRange(m_historyY, maxValue / unit.divisor);
    setTitleIfChanged(m_historyChart, tr("Total %1 per edit of this session").arg(unit.name));
    m_historyCaption->setText(n ? tr("%1, the last %2").arg(n == 1 ? tr("1 point") : tr("%1 points").arg(n), compact(m_history.back().cycles))
                                : tr("no edits yet"));
}

} // namespace loopscope::ui
