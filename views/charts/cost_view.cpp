// Cost view: headline figures against their bounds, traffic and cycle charts, and the history
// of total cycles over the session's edits.
#include "charts/cost_view.h"

#include "charts/painted_chart.h"
#include "live_label.h"
#include "memory_view.h"

#include <QGridLayout>
#include <QLabel>
#include <QLocale>
#include <QScrollArea>
#include <QScrollBar>
#include <QVBoxLayout>

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
    // Far from the bound (an unscheduled kernel on an accelerator: 116 M cycles against 2,116)
    // the share is not 0.00%: it is below what two decimals show.
    if (share > 0 && share < 0.005)
        return QStringLiteral("<0.01%");
    return QString::number(share, 'f', share < 10 ? 2 : 1) + QLatin1Char('%');
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
    caption->setGrowOnly(true);   // a caption one line shorter on the next edit moves nothing
    caption->setContentsMargins(4, 0, 4, 2);
    return caption;
}

/// A colour per category of the instruction breakdown (core/analysis/instructions.cpp names
/// them), stable across edits and kernels.
QColor instructionColor(const std::string& category)
{
    static const std::pair<const char*, QColor> colours[] = {
        {"mla", QColor(0x4e, 0x79, 0xa7)},      {"smlad", QColor(0x1f, 0x4e, 0x79)},   {"fpu", QColor(0x76, 0xb7, 0xb2)},
        {"loads", QColor(0xf2, 0x8e, 0x2b)},    {"stores", QColor(0xe1, 0x57, 0x59)},  {"alu", QColor(0xed, 0xc9, 0x48)},
        {"address", QColor(0xb0, 0x7a, 0xa1)},  {"loop", QColor(0x9c, 0x75, 0x5f)},    {"guards", QColor(0xff, 0x9d, 0xa7)},
        {"requantize", QColor(0x59, 0xa1, 0x4f)}, {"spills", QColor(0xd6, 0x27, 0x28)}, {"copy_calls", QColor(0xba, 0xb0, 0xac)},
        {"copies", QColor(0x7f, 0x7f, 0x7f)},   {"library", QColor(0x6a, 0x3d, 0x9a)},
    };
    for (const auto& [name, colour] : colours)
        if (category == name)
            return colour;
    return QColor(0x60, 0x60, 0x60);
}

const char* const kFigureNames[] = {"Cycles", "Latency", "Energy", "MACs", "Instructions", "DRAM traffic", "DRAM traffic", "PE utilisation"};
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

    // The figures' table needs about 490 px: in a narrower dock (a window 1024 wide) the view
    // scrolls sideways, where its minimum width made the window wider than the screen and the
    // dock was cut off at the right edge.
    m_contentScroll = new QScrollArea(this);
    m_contentScroll->setObjectName(QStringLiteral("costScroll"));
    m_contentScroll->setWidgetResizable(true);
    m_contentScroll->setFrameShape(QFrame::NoFrame);
    m_contentScroll->setMinimumWidth(kMinimumWidth);
    m_content = new QWidget(m_contentScroll);
    auto* layout = new QVBoxLayout(m_content);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(6);
    m_contentScroll->setWidget(m_content);
    outer->addWidget(m_contentScroll, 1);

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
    m_caveat->setGrowOnly(true);   // on a PE-array target it changes with the tensorize step: keep its height
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

    // The charts scroll rather than squash when the dock is short.
    auto* scroll = new QScrollArea(m_content);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    auto* charts = new QWidget(scroll);
    auto* chartsLayout = new QVBoxLayout(charts);
    chartsLayout->setContentsMargins(0, 0, 0, 0);
    chartsLayout->setSpacing(4);
    m_trafficChart = new StackedBarChart(charts);
    m_trafficChart->setMinimumChartHeight(170);
    m_cyclesChart = new StackedBarChart(charts);
    m_cyclesChart->setMinimumChartHeight(170);
    m_historyChart = new HistoryChart(charts);
    m_trafficCaption = makeCaption(charts, font());
    m_cyclesCaption = makeCaption(charts, font());
    m_historyCaption = makeCaption(charts, font());
    m_trafficCaption->setObjectName(QStringLiteral("trafficCaption"));
    m_cyclesCaption->setObjectName(QStringLiteral("cyclesCaption"));
    m_historyCaption->setObjectName(QStringLiteral("historyCaption"));
    // Where the predicted instructions go, on CPU targets (a block shown or hidden with them).
    m_instructionsBlock = new QWidget(charts);
    auto* instructionsLayout = new QVBoxLayout(m_instructionsBlock);
    instructionsLayout->setContentsMargins(0, 0, 0, 0);
    instructionsLayout->setSpacing(4);
    m_instructionsChart = new StackedBarChart(m_instructionsBlock);
    m_instructionsChart->setMinimumChartHeight(150);
    m_instructionsChart->setCategories({tr("kernel"), tr("copies")});
    m_instructionsCaption = makeCaption(m_instructionsBlock, font());
    m_instructionsCaption->setObjectName(QStringLiteral("instructionsCaption"));
    instructionsLayout->addWidget(m_instructionsChart, 1);
    instructionsLayout->addWidget(m_instructionsCaption);
    chartsLayout->addWidget(m_trafficChart, 1);
    chartsLayout->addWidget(m_trafficCaption);
    chartsLayout->addWidget(m_cyclesChart, 1);
    chartsLayout->addWidget(m_cyclesCaption);
    chartsLayout->addWidget(m_instructionsBlock, 1);
    chartsLayout->addWidget(m_historyChart, 1);
    chartsLayout->addWidget(m_historyCaption);
    scroll->setWidget(charts);
    layout->addWidget(scroll, 1);

    // Cycles: bars total, transfer, bound (top-down) stacked from four fixed series.
    m_cyclesChart->setSeries({{tr("compute"), QColor(0x4e, 0x79, 0xa7)},
                              {tr("transfer, exposed"), QColor(0xf2, 0x8e, 0x2b)},
                              {tr("transfer, hidden"), QColor(0xf2, 0x8e, 0x2b).lighter(150)},
                              {tr("compute bound"), QColor(150, 150, 150)}});
    m_cyclesChart->setCategories({tr("total"), tr("transfer"), tr("bound")});
    m_historyChart->setSeries({{tr("estimate"), QColor(0x4e, 0x79, 0xa7)}, {tr("compute bound"), QColor(120, 120, 120)}});

    m_contentScroll->hide();
    updateHistoryChart();
}

int CostView::tableWidth() const
{
    const QMargins m = layout()->contentsMargins();
    return m_content->minimumSizeHint().width() + m.left() + m.right() + m_contentScroll->verticalScrollBar()->sizeHint().width();
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
        m_contentScroll->hide();
        for (Headline& h : m_headlines)
            h.share = -1;
        return;
    }
    m_placeholder->hide();
    m_contentScroll->show();
    updateHeadlines();
    updateTrafficChart();
    updateCyclesChart();
    updateInstructionsChart();
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

QString CostView::figureToolTip(Figure figure) const { return m_headlines[static_cast<int>(figure)].value->toolTip(); }

QString CostView::caveatText() const { return m_caveat->text(); }

QString CostView::chartCaption(int chart) const
{
    const LiveLabel* captions[] = {m_trafficCaption, m_cyclesCaption, m_historyCaption, m_instructionsCaption};
    return chart >= 0 && chart < 4 ? captions[chart]->text() : QString();
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
    else if (target && r.cycles.fromInstructions)
        m_caveat->setText(tr("What these count: compute cycles = the instructions the exported kernel executes (the Instructions row, "
                             "the instruction model) through %1's issue model: %2 a cycle at most, the busiest unit, taken branches, "
                             "loop exits and load-use stalls; + copies (bytes over bandwidth, plus latency), less what double "
                             "buffering hides. An estimate: no board is here and the emulator counts instructions, not cycles "
                             "(docs/cost-model.md, Cycles from instructions); Schedule > Measure counts the instructions on qemu.")
                              .arg(QString::fromStdString(target->name))
                              .arg(target->issue.width));
    else if (target)
        m_caveat->setText(tr("What these count: cycles = MACs at %1's peak rate + %2 cycles per iteration of a loop not unrolled "
                             "+ copies (bytes over bandwidth, plus latency), less what double buffering hides. Address arithmetic, "
                             "loads, stores and loop control of the exported C are not counted in the cycles: the Instructions row "
                             "predicts what the exported C executes, kernel and cache-fill copies (the instruction model, "
                             "docs/cost-model.md), and Schedule > Measure counts it on an emulated core.")
                              .arg(QString::fromStdString(target->name))
                              .arg(target->loopOverheadCycles));
    m_title->setText(tr("%1 on %2").arg(QString::fromStdString(r.kernel), QString::fromStdString(r.target)));
    auto share = [](double bound, double estimate) { return estimate > 0 ? bound / estimate * 100.0 : -1.0; };

    const double total = double(r.cycles.total);
    const double bound = double(r.bounds.computeCycles);
    setHeadline(Figure::Cycles, grouped(r.cycles.total), tr("%1 compute bound").arg(grouped(r.bounds.computeCycles)),
                share(bound, total),
                tr("Compute bound: MACs over the peak MAC rate of the target. Estimate %1x the bound.%2")
                    .arg(bound > 0 ? QString::number(total / bound, 'f', 1) : QStringLiteral("—"),
                         r.cycles.fromInstructions
                             ? tr(" Compute %1 cycles from the predicted instructions: issue %2, taken branches %3, loop exits %4, "
                                  "load-use %5.")
                                   .arg(grouped(r.cycles.compute), grouped(int64_t(r.cycles.issue.issue)), grouped(int64_t(r.cycles.issue.taken)),
                                        grouped(int64_t(r.cycles.issue.exits)), grouped(int64_t(r.cycles.issue.loadUse)))
                             : QString()));

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
                    achieved / peak * 100.0,
                    tr("MACs executed (a tap that falls in the padding is skipped, so this can be fewer than the Kernel panel's count "
                       "of the whole iteration space); MACs per cycle achieved over the whole run against the peak rate."));
    } else {
        setHeadline(Figure::Macs, grouped(r.macs), tr("peak rate unknown"), -1,
                    tr("MACs executed (a tap that falls in the padding is skipped, so this can be fewer than the Kernel panel's count "
                       "of the whole iteration space)."));
    }

    // The instructions the exported C executes, as the instruction model predicts them (CPU
    // targets); the row belongs to the target, like the PE row below.
    Headline& in = m_headlines[int(Figure::Instructions)];
    const analysis::InstructionReport& ins = r.instructions;
    for (LiveLabel* l : {in.name, in.value, in.bound, in.percent})
        if (l->isHidden() == ins.available)
            l->setVisible(ins.available);
    if (ins.available) {
        const double perMac = r.macs > 0 ? double(ins.predicted) / double(r.macs) : 0;
        setHeadline(Figure::Instructions, grouped(ins.predicted),
                    tr("%1 per MAC, %2 in copies").arg(QString::number(perMac, 'f', 2), compact(double(ins.copies))), -1,
                    tr("Predicted instructions of the exported C on %1: kernel %2, cache-fill copies by the default DMA hooks %3 "
                       "(the instruction model, docs/cost-model.md; coefficients %4). Schedule > Measure counts them on qemu.")
                        .arg(QString::fromStdString(r.target), grouped(ins.kernel), grouped(ins.copies),
                             ins.calibration.empty() ? tr("not calibrated for this target")
                                                     : tr("fitted for %1").arg(QString::fromStdString(ins.calibration))));
    } else {
        in.share = -1;
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

// The charts are painted: a new value repaints its chart and lays nothing out.

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

    // The outermost level on top; the bytes per level are in the caption.
    QStringList categories;
    QStringList perLevel;
    for (const auto& lr : r.levels) {
        categories << QString::fromStdString(lr.name);
        perLevel << QStringLiteral("%1 %2").arg(QString::fromStdString(lr.name), shortBytes(double(lr.readBytes + lr.writeBytes)));
    }
    if (tensors != m_trafficTensors) {
        std::vector<PaintedChart::Series> series;
        const ir::Kernel* kernel = m_snapshot.program ? m_snapshot.program->kernel.get() : nullptr;
        for (const std::string& t : tensors)
            series.push_back({QString::fromStdString(t), MemoryView::tensorColor(kernel, QString::fromStdString(t))});
        m_trafficChart->setSeries(series);
        m_trafficTensors = tensors;
    }
    std::vector<std::vector<double>> values(tensors.size(), std::vector<double>(r.levels.size(), 0.0));
    std::vector<QStringList> tips(tensors.size());
    for (size_t i = 0; i < tensors.size(); ++i) {
        for (size_t l = 0; l < r.levels.size(); ++l) {
            int64_t rd = 0, wr = 0;
            for (const auto& tt : r.tensors)
                if (tt.name == tensors[i] && tt.level == r.levels[l].name) {
                    rd += tt.readBytes;
                    wr += tt.writeBytes;
                }
            values[i][l] = double(rd + wr) / unit.divisor;
            tips[i] << tr("%1 in %2: %3 read, %4 written")
                           .arg(QString::fromStdString(tensors[i]), QString::fromStdString(r.levels[l].name), bytesText(rd), bytesText(wr));
        }
    }
    m_trafficChart->setCategories(categories);
    m_trafficChart->setValues(values);
    m_trafficChart->setToolTips(tips);
    m_trafficChart->setTitle(tr("Bytes read + written per level and tensor (%1)").arg(unit.name));
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
    // Top-down: total (= compute + the transfer not hidden behind it), transfer, bound; the
    // series as set in the constructor: compute, transfer exposed, transfer hidden, bound.
    const double d = unit.divisor;
    m_cyclesChart->setValues({{compute / d, 0, 0}, {exposed / d, exposed / d, 0}, {0, hidden / d, 0}, {0, 0, bound / d}});
    m_cyclesChart->setToolTips({{tr("compute %1 cycles").arg(grouped(r.cycles.compute)), {}, {}},
                                {tr("transfer not hidden %1 cycles").arg(compact(exposed)), tr("transfer not hidden %1 cycles").arg(compact(exposed)), {}},
                                {{}, tr("transfer hidden behind compute %1 cycles").arg(compact(hidden)), {}},
                                {{}, {}, tr("compute bound %1 cycles").arg(grouped(r.bounds.computeCycles))}});
    m_cyclesChart->setTitle(unit.name);
    m_cyclesCaption->setText(tr("compute %1 + transfer %2, overlap %3")
                                 .arg(compact(compute), compact(transfer), QString::number(r.cycles.overlapRatio, 'f', 2)));
}

void CostView::updateInstructionsChart()
{
    const analysis::InstructionReport& ins = m_snapshot.report->instructions;
    if (m_instructionsBlock->isHidden() == ins.available)   // only a change: a show lays the panel out
        m_instructionsBlock->setVisible(ins.available);
    if (!ins.available)
        return;
    const Unit unit = countUnit(double(std::max<int64_t>(ins.kernel, ins.copies)), tr("Predicted instructions"));
    // One series per category of the breakdown; the copies' category fills the second bar.
    std::vector<PaintedChart::Series> series;
    std::vector<std::vector<double>> values;
    std::vector<QStringList> tips;
    QStringList shares;
    const double total = std::max<double>(1.0, double(ins.predicted));
    for (const auto& [category, count] : ins.breakdown) {
        if (count <= 0)
            continue;   // a kind this code does not have (fpu in an int8 kernel) stays out of the legend
        const bool copies = category == "copies";
        const QString name = QString::fromStdString(category);
        series.push_back({name, instructionColor(category)});
        values.push_back(copies ? std::vector<double>{0, count / unit.divisor} : std::vector<double>{count / unit.divisor, 0});
        const QString tip = tr("%1: %2 instructions, %3% of the predicted total").arg(name, grouped(count),
                                                                                       QString::number(count / total * 100.0, 'f', 1));
        tips.push_back(copies ? QStringList{QString(), tip} : QStringList{tip, QString()});
        shares << QStringLiteral("%1 %2%").arg(name, QString::number(count / total * 100.0, 'f', count / total < 0.1 ? 1 : 0));
    }
    m_instructionsChart->setSeries(series);
    m_instructionsChart->setValues(values);
    m_instructionsChart->setToolTips(tips);
    m_instructionsChart->setTitle(tr("%1 of the exported C, by kind").arg(unit.name));
    m_instructionsCaption->setText(shares.join(QStringLiteral(" · ")));
}

void CostView::updateHistoryChart()
{
    double maxValue = 1;
    for (const HistoryPoint& p : m_history)
        maxValue = std::max({maxValue, p.cycles, p.bound});
    const Unit unit = countUnit(maxValue, tr("cycles"));
    std::vector<double> estimate, bound;
    for (const HistoryPoint& p : m_history) {
        estimate.push_back(p.cycles / unit.divisor);
        bound.push_back(p.bound / unit.divisor);
    }
    m_historyChart->setPoints(estimate, bound);
    m_historyChart->setTitle(tr("Total %1 per edit of this session").arg(unit.name));
    const int n = static_cast<int>(m_history.size());
    m_historyCaption->setText(n ? tr("%1, the last %2").arg(n == 1 ? tr("1 point") : tr("%1 points").arg(n), compact(m_history.back().cycles))
                                : tr("no edits yet"));
}

const StackedBarChart* CostView::barChart(int chart) const
{
    switch (chart) {
    case 0: return m_trafficChart;
    case 1: return m_cyclesChart;
    case 3: return m_instructionsChart;
    default: return nullptr;
    }
}

} // namespace loopscope::ui
