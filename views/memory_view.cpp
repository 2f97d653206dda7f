// Memory view: bars of the memory levels at peak occupancy, drawn from a snapshot's report.
#include "memory_view.h"

#include "analysis/cost_report.h"

#include <QHelpEvent>
#include <QLocale>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QToolTip>

#include <algorithm>
#include <cmath>

namespace loopscope::ui {

namespace {

constexpr qreal kMargin = 12;
constexpr qreal kTitleHeight = 20;
constexpr qreal kBarHeight = 34;
constexpr qreal kRowGap = 14;
constexpr qreal kMinSegment = 3;      // a buffer stays visible however small it is
constexpr qreal kOverflowMinShare = 0.22;  // of the bar width, so the red part is readable
constexpr qreal kZoomGap = 16;
constexpr qreal kZoomHeight = 24;
constexpr double kZoomBelowShare = 0.35;  // a level less full than this gets a magnified strip

/// Small contents of a big level are unreadable to scale: they also get a magnified strip.
bool wantsZoom(const analysis::LevelReport& l)
{
    return l.usedBytes > 0 && l.capacityBytes > 0 && double(l.usedBytes) < kZoomBelowShare * double(l.capacityBytes);
}

/// Home tensors first, in the kernel's order; then the buffers as the report lists them
/// (outer placements first).
std::vector<int> drawOrder(const analysis::LevelReport& l, const lower::LoopNest* nest)
{
    std::vector<int> home, rest;
    for (size_t b = 0; b < l.buffers.size(); ++b)
        (l.buffers[b].home ? home : rest).push_back(static_cast<int>(b));
    auto rank = [&](int b) {
        if (nest)
            for (size_t i = 0; i < nest->buffers.size(); ++i)
                if (nest->buffers[i].name == l.buffers[b].name)
                    return static_cast<int>(i);
        return b;
    };
    std::stable_sort(home.begin(), home.end(), [&](int a, int b) { return rank(a) < rank(b); });
    home.insert(home.end(), rest.begin(), rest.end());
    return home;
}

QString formatBytes(int64_t b)
{
    auto unit = [](double v, const char* u) {
        int decimals = v == std::floor(v) ? 0 : (v < 10 ? 2 : 1);
        return QString::number(v, 'f', decimals) + QLatin1Char(' ') + QLatin1String(u);
    };
    int64_t a = b < 0 ? -b : b;
    if (a < 1024)
        return QString::number(b) + QStringLiteral(" B");
    if (a < 1024 * 1024)
        return unit(b / 1024.0, "KiB");
    if (a < int64_t(1024) * 1024 * 1024)
        return unit(b / 1048576.0, "MiB");
    return unit(b / 1073741824.0, "GiB");
}

QString shapeText(const std::vector<int64_t>& shape)
{
    QStringList parts;
    for (int64_t s : shape)
        parts << QString::number(s);
    return parts.isEmpty() ? QStringLiteral("scalar") : parts.join(QStringLiteral(" × "));
}

QString percentText(double share)
{
    double p = share * 100;
    return QString::number(p, 'f', p < 10 ? 1 : (p < 100 ? 1 : 0)) + QLatin1Char('%');
}

/// "O:h.outer" and "h.outer" name the same loop when the highlight has no stage prefix.
QString withoutStage(const QString& loop)
{
    int colon = loop.indexOf(QLatin1Char(':'));
    return colon < 0 ? loop : loop.mid(colon + 1);
}

} // namespace

MemoryView::MemoryView(QWidget* parent) : QWidget(parent)
{
    setMouseTracking(true);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
    relayout();
}

QColor MemoryView::tensorColor(const QString& tensor)
{
    // FNV-1a over the name into a fixed palette: stable across snapshots and runs, and the
    // example kernels' tensors (A B C, I F O bias mult shift, I DW PW D O, X Wt Y) all differ.
    static const char* const kPalette[] = {"#ff9da7", "#17becf", "#499894", "#b07aa1", "#a0cbe8",
                                           "#8cd17d", "#9c755f", "#edc948", "#4e79a7", "#d4a6c8",
                                           "#59a14f", "#f28e2b", "#bab0ac"};
    uint32_t h = 2166136261u;
    for (char c : tensor.toUtf8()) {
        h ^= static_cast<uint8_t>(c);
        h *= 16777619u;
    }
    return QColor(QLatin1String(kPalette[h % (sizeof(kPalette) / sizeof(kPalette[0]))]));
}

QColor MemoryView::tensorColor(const ir::Kernel* kernel, const QString& tensor)
{
    static const char* const kPalette[] = {"#4e79a7", "#f28e2b", "#59a14f", "#b07aa1", "#edc948", "#17becf",
                                           "#ff9da7", "#9c755f", "#499894", "#a0cbe8", "#8cd17d", "#d4a6c8", "#bab0ac"};
    const int t = kernel ? kernel->findTensor(tensor.toStdString()) : -1;
    if (t < 0)
        return tensorColor(tensor);
    return QColor(QLatin1String(kPalette[t % (sizeof(kPalette) / sizeof(kPalette[0]))]));
}

void MemoryView::setSnapshot(const Snapshot& snapshot)
{
    const bool sameKernel = snapshot.program && m_snapshot.program && snapshot.program->kernel == m_snapshot.program->kernel;
    m_snapshot = snapshot;
    if (!sameKernel) {   // the tensors' colours come from the kernel
        relayout();
        update();
        return;
    }
    relayoutAndUpdate();
}

void MemoryView::setHighlightedLoop(const QString& loop)
{
    if (loop == m_highlight)
        return;
    m_highlight = loop;
    relayoutAndUpdate();
}

void MemoryView::relayoutAndUpdate()
{
    const std::vector<LevelRow> rows = m_rows;
    const std::vector<Segment> segments = m_segments;
    const std::vector<QString> legend = m_legend;
    const QString placeholder = m_placeholder;
    const qreal legendY = m_legendY;
    relayout();
    if (rows != m_rows || segments != m_segments || legend != m_legend || placeholder != m_placeholder || legendY != m_legendY)
        update();
}

bool MemoryView::loopMatches(const QString& loop) const
{
    if (m_highlight.isEmpty() || loop.isEmpty() || loop == QLatin1String("root"))
        return false;
    if (loop == m_highlight)
        return true;
    // Only one side carries a stage prefix: compare the loop names.
    bool loopPrefixed = loop.contains(QLatin1Char(':'));
    bool highlightPrefixed = m_highlight.contains(QLatin1Char(':'));
    return loopPrefixed != highlightPrefixed && withoutStage(loop) == withoutStage(m_highlight);
}

int MemoryView::stepOfBuffer(const QString& name, int level) const
{
    if (!m_snapshot.program || !m_snapshot.nest)
        return -1;
    const sched::Program& p = *m_snapshot.program;
    const lower::LoopNest& n = *m_snapshot.nest;
    const std::string key = name.toStdString();
    for (const lower::Buffer& b : n.buffers) {
        if (b.name != key || b.level != level)
            continue;
        if (b.role == lower::Buffer::Role::Cache && b.cache >= 0) {
            std::vector<int> steps = analysis::cacheSteps(p);
            return b.cache < static_cast<int>(steps.size()) ? steps[b.cache] : -1;
        }
        if (b.role == lower::Buffer::Role::Intermediate && p.kernel && b.tensor >= 0) {
            // An intermediate gets its buffer from the compute_at of its producer.
            int producer = p.kernel->producerOf(b.tensor);
            if (producer < 0)
                return -1;
            const std::string& stage = p.kernel->stages[producer].name;
            int found = -1;
            for (size_t i = 0; i < p.trace.size(); ++i)
                if (p.trace[i].primitive == sched::Primitive::ComputeAt && p.trace[i].producer == stage)
                    found = static_cast<int>(i);
            return found;
        }
        return -1;
    }
    return -1;
}

QString MemoryView::describeBuffer(int level, int buffer, int step) const
{
    const analysis::LevelReport& lr = m_snapshot.report->levels[level];
    const analysis::BufferUse& u = lr.buffers[buffer];
    QString role;
    QString dtype;
    if (m_snapshot.nest) {
        for (const lower::Buffer& b : m_snapshot.nest->buffers)
            if (b.name == u.name && b.level == level) {
                dtype = QString::fromLatin1(ir::dtypeName(b.dtype));
                switch (b.role) {
                case lower::Buffer::Role::Home: role = QStringLiteral("tensor %1 in its home level"); break;
                case lower::Buffer::Role::Cache:
                    role = b.write ? QStringLiteral("cache_write buffer of %1") : QStringLiteral("cache_read buffer of %1");
                    break;
                case lower::Buffer::Role::Intermediate: role = QStringLiteral("intermediate %1, computed in place"); break;
                case lower::Buffer::Role::Accumulator: role = QStringLiteral("accumulator of %1"); break;
                }
                break;
            }
    }
    if (role.isEmpty())
        role = u.home ? QStringLiteral("tensor %1 in its home level") : QStringLiteral("buffer of %1");
    QStringList lines;
    lines << QStringLiteral("%1 — %2 (%3)").arg(QString::fromStdString(u.name), role.arg(QString::fromStdString(u.tensor)),
                                                QString::fromStdString(lr.name));
    lines << QStringLiteral("shape %1%2").arg(shapeText(u.shape), dtype.isEmpty() ? QString() : QStringLiteral(" ") + dtype);
    if (u.doubleBuffered)
        lines << QStringLiteral("%1, double-buffered: 2 × %2").arg(formatBytes(u.bytes), formatBytes(u.bytes / 2));
    else
        lines << formatBytes(u.bytes);
    if (u.home || u.loop == "root")
        lines << QStringLiteral("lives for the whole program (root)");
    else
        lines << QStringLiteral("lives in the body of loop %1").arg(QString::fromStdString(u.loop));
    if (step >= 0 && m_snapshot.program && step < static_cast<int>(m_snapshot.program->trace.size()))
        lines << QStringLiteral("placed by step %1: %2 (click to select it)")
                     .arg(step + 1)
                     .arg(QString::fromStdString(sched::describe(m_snapshot.program->trace[step])));
    return lines.join(QLatin1Char('\n'));
}

void MemoryView::relayout()
{
    m_rows.clear();
    m_segments.clear();
    m_legend.clear();
    m_placeholder.clear();
    if (m_snapshot.empty()) {
        m_placeholder = tr("No schedule is open.");
        setContentHeight(0);
        return;
    }
    if (!m_snapshot.report) {
        m_placeholder = m_snapshot.failedStep
            ? tr("No memory picture: %1").arg(QString::fromStdString(m_snapshot.failedStep->str()))
            : tr("No cost report for this schedule.");
        setContentHeight(0);
        return;
    }
    const analysis::CostReport& r = *m_snapshot.report;
    if (r.levels.empty()) {
        m_placeholder = tr("The target %1 lists no memory levels.").arg(QString::fromStdString(r.target));
        setContentHeight(0);
        return;
    }
    const qreal left = kMargin;
    const qreal fullWidth = std::max<qreal>(60, width() - 2 * kMargin);
    qreal y = kMargin;
    for (size_t l = 0; l < r.levels.size(); ++l) {
        const analysis::LevelReport& lr = r.levels[l];
        LevelRow row;
        row.name = QString::fromStdString(lr.name);
        const int64_t cap = std::max<int64_t>(0, lr.capacityBytes);
        const int64_t used = std::max<int64_t>(0, lr.usedBytes);
        row.over = used > cap;
        row.text = cap > 0 ? tr("%1  %2 of %3 (%4)").arg(row.name, formatBytes(used), formatBytes(cap),
                                                         percentText(double(used) / double(cap)))
                           : tr("%1  %2 (no capacity given)").arg(row.name, formatBytes(used));
        if (row.over)
            row.overflow = tr("+%1 over").arg(formatBytes(used - cap));
        row.titleRect = QRectF(left, y, fullWidth, kTitleHeight);
        if (layoutRows(static_cast<int>(l), row, left, fullWidth, y)) {
            m_rows.push_back(row);
            y += kRowGap;
            continue;
        }
        y += kTitleHeight;
        // Bar width = capacity; past it the overflow, scaled alike (but kept readable).
        qreal capWidth = fullWidth;
        if (row.over) {
            double share = cap > 0 ? double(cap) / double(used) : 0.0;
            capWidth = fullWidth * std::min(share, 1.0 - kOverflowMinShare);
        }
        const qreal scale = cap > 0 ? capWidth / double(cap) : 0;
        row.capacityX = left + capWidth;
        qreal drawnEnd = left + capWidth;
        qreal x = left;
        int64_t cumulative = 0;
        const qreal overflowScale = row.over ? (fullWidth - capWidth) / double(used - cap) : 0;
        auto xOf = [&](int64_t bytes) {
            if (bytes <= cap || !row.over)
                return left + bytes * scale;
            return left + capWidth + (bytes - cap) * overflowScale;
        };
        for (int b : drawOrder(lr, m_snapshot.nest.get())) {
            const analysis::BufferUse& u = lr.buffers[b];
            Segment s;
            s.level = static_cast<int>(l);
            s.buffer = b;
            s.name = QString::fromStdString(u.name);
            s.tensor = QString::fromStdString(u.tensor);
            s.doubleBuffered = u.doubleBuffered;
            s.step = stepOfBuffer(s.name, s.level);
            s.highlighted = loopMatches(QString::fromStdString(u.loop));
            cumulative += std::max<int64_t>(0, u.bytes);
            qreal end = std::max(xOf(cumulative), x + kMinSegment);
            s.rect = QRectF(x, y, end - x, kBarHeight);
            s.label = s.name + (u.doubleBuffered ? QStringLiteral(" ×2 ") : QStringLiteral(" ")) + formatBytes(u.bytes);
            s.toolTip = describeBuffer(s.level, s.buffer, s.step);
            x = end;
            drawnEnd = std::max(drawnEnd, end);
            if (std::find(m_legend.begin(), m_legend.end(), s.tensor) == m_legend.end())
                m_legend.push_back(s.tensor);
            m_segments.push_back(s);
        }
        row.bar = QRectF(left, y, std::max(capWidth, drawnEnd - left), kBarHeight);
        row.usedX = x;
        y += kBarHeight;
        if (wantsZoom(lr)) {
            // The used part again, magnified to the full width.
            row.zoom = QRectF(left, y + kZoomGap, fullWidth, kZoomHeight);
            const qreal zoomScale = fullWidth / double(used);
            qreal zx = left;
            int64_t sum = 0;
            for (size_t i = m_segments.size() - lr.buffers.size(); i < m_segments.size(); ++i) {
                Segment& s = m_segments[i];
                sum += std::max<int64_t>(0, lr.buffers[s.buffer].bytes);
                qreal end = std::max(left + sum * zoomScale, zx + kMinSegment);
                s.zoomRect = QRectF(zx, row.zoom.top(), end - zx, kZoomHeight);
                zx = end;
            }
            y += kZoomGap + kZoomHeight;
        }
        m_rows.push_back(row);
        y += kRowGap;
    }
    m_legendY = y;
    // The height everything needs at this width: the dock's scroll area scrolls past it. Only a
    // change (levels, magnified strips) lays the dock out again, not every edit.
    setContentHeight(int(std::ceil(legendRect().bottom() + kMargin)));
}

void MemoryView::setContentHeight(int height)
{
    if (height != m_contentHeight) {
        m_contentHeight = height;
        updateGeometry();
    }
}

bool MemoryView::layoutRows(int level, LevelRow& row, qreal left, qreal fullWidth, qreal& y)
{
    const analysis::CostReport& r = *m_snapshot.report;
    if (!r.array)
        return false;
    const analysis::RowLevel* rl = nullptr;
    for (const analysis::RowLevel& candidate : r.array->levels)
        if (candidate.name == r.levels[level].name)
            rl = &candidate;
    if (!rl || rl->rows <= 0)
        return false;
    const int64_t cap = rl->rows;
    const int64_t used = rl->peakRows;
    const QLocale en(QLocale::English);
    row.over = used > cap;
    row.text = tr("%1  %2 of %3 rows (%4) · %5 banks × %6 × %7 B")
                   .arg(row.name, en.toString(qlonglong(used)), en.toString(qlonglong(cap)), percentText(double(used) / double(cap)))
                   .arg(rl->banks)
                   .arg(en.toString(qlonglong(cap / std::max(1, rl->banks))))
                   .arg(rl->rowBytes);
    if (row.over)
        row.overflow = tr("+%1 rows over").arg(en.toString(qlonglong(used - cap)));
    y += kTitleHeight;
    qreal capWidth = fullWidth;
    if (row.over)
        capWidth = fullWidth * std::min(double(cap) / double(used), 1.0 - kOverflowMinShare);
    const qreal scale = capWidth / double(cap);
    const qreal overScale = row.over ? (fullWidth - capWidth) / double(used - cap) : 0;
    auto xOf = [&](int64_t rows) { return rows <= cap ? left + rows * scale : left + capWidth + (rows - cap) * overScale; };
    row.capacityX = left + capWidth;
    qreal drawnEnd = row.capacityX;
    const size_t first = m_segments.size();
    std::vector<std::pair<int64_t, int64_t>> spans;   // first row and rows taken, of each segment from `first`
    for (const analysis::RowBlock& b : r.array->rowBlocks) {
        if (b.level != rl->name)
            continue;
        Segment s;
        s.level = level;
        s.buffer = -1;
        s.rows = true;
        s.name = QString::fromStdString(b.buffer);
        s.tensor = QString::fromStdString(b.tensor);
        s.doubleBuffered = b.doubleBuffered;
        s.step = stepOfBuffer(s.name, level);
        s.highlighted = loopMatches(QString::fromStdString(b.loop));
        const int64_t rows = b.rows * (b.doubleBuffered ? 2 : 1);
        const qreal x0 = xOf(b.baseRow);
        s.rect = QRectF(x0, y, std::max(xOf(b.baseRow + rows) - x0, kMinSegment), kBarHeight);
        spans.emplace_back(b.baseRow, rows);
        // Singular and plural written out: "%n row(s)" reads "row(s)" without a translation loaded.
        s.label = s.name + (b.doubleBuffered ? QStringLiteral(" ×2 ") : QStringLiteral(" "))
            + (rows == 1 ? tr("1 row") : tr("%1 rows").arg(rows));
        QStringList tip;
        tip << tr("%1 — buffer of %2 (%3)").arg(s.name, s.tensor, row.name);
        tip << (b.doubleBuffered ? tr("rows %1-%2 and %3-%4 (double buffer: two halves of %5 rows)")
                                       .arg(b.baseRow).arg(b.baseRow + b.rows - 1).arg(b.baseRow + b.rows).arg(b.baseRow + 2 * b.rows - 1).arg(b.rows)
                                 : tr("rows %1-%2 (%3 rows)").arg(b.baseRow).arg(b.baseRow + b.rows - 1).arg(b.rows));
        tip << (b.bank == b.lastBank ? tr("bank %1").arg(b.bank) : tr("banks %1-%2").arg(b.bank).arg(b.lastBank));
        tip << (b.loop.empty() || b.loop == "root" ? tr("lives for the whole program (root)")
                                                   : tr("lives in the body of loop %1").arg(QString::fromStdString(b.loop)));
        if (s.step >= 0 && m_snapshot.program && s.step < static_cast<int>(m_snapshot.program->trace.size()))
            tip << tr("placed by step %1: %2 (click to select it)").arg(s.step + 1).arg(QString::fromStdString(sched::describe(m_snapshot.program->trace[s.step])));
        s.toolTip = tip.join(QLatin1Char('\n'));
        drawnEnd = std::max(drawnEnd, s.rect.right());
        if (std::find(m_legend.begin(), m_legend.end(), s.tensor) == m_legend.end())
            m_legend.push_back(s.tensor);
        m_segments.push_back(s);
    }
    const int64_t perBank = cap / std::max(1, rl->banks);
    for (int k = 1; k < rl->banks; ++k)
        row.bankX.push_back(xOf(perBank * k));
    row.bar = QRectF(left, y, drawnEnd - left, kBarHeight);
    row.usedX = xOf(used);
    y += kBarHeight;
    if (used > 0 && !row.over && double(used) < kZoomBelowShare * double(cap)) {
        // The rows in use, magnified (with the bank boundaries that fall among them).
        row.zoom = QRectF(left, y + kZoomGap, fullWidth, kZoomHeight);
        const qreal zs = fullWidth / double(used);
        for (size_t i = first; i < m_segments.size(); ++i) {
            Segment& s = m_segments[i];
            // From the rows, not from the bar's rectangle: a few rows of a large level are widened
            // to kMinSegment there, and that widening magnified ran past the strip's right edge
            // (16 + 16 rows of 16,384 on Gemmini), the labels centred off the picture.
            const auto [base, rows] = spans[i - first];
            const qreal width = std::max(rows * zs, kMinSegment);
            // Every block ends at or before the peak; a block widened to stay visible stays inside the strip.
            const qreal x0 = std::min(left + base * zs, row.zoom.right() - width);
            s.zoomRect = QRectF(x0, row.zoom.top(), width, kZoomHeight);
        }
        for (int k = 1; k < rl->banks; ++k)
            if (perBank * k < used)
                row.zoomBankX.push_back(left + perBank * k * zs);
        y += kZoomGap + kZoomHeight;
    }
    return true;
}

int MemoryView::bankLines(const QString& level) const
{
    const LevelRow* r = row(level);
    return r ? static_cast<int>(r->bankX.size()) : 0;
}

QSize MemoryView::sizeHint() const
{
    qreal h = 2 * kMargin + 24;
    if (m_snapshot.report)
        for (const analysis::LevelReport& l : m_snapshot.report->levels)
            h += kTitleHeight + kBarHeight + kRowGap + (wantsZoom(l) ? kZoomGap + kZoomHeight : 0);
    else
        h += 2 * (kTitleHeight + kBarHeight + kRowGap);
    return QSize(520, int(h));
}

QSize MemoryView::minimumSizeHint() const
{
    return QSize(240, std::max(int(2 * kMargin + kTitleHeight + kBarHeight + 24), m_contentHeight));
}

QRectF MemoryView::legendRect() const
{
    if (!m_placeholder.isEmpty() || m_rows.empty())
        return {};
    return QRectF(kMargin, m_legendY, std::max<qreal>(0, width() - 2 * kMargin), QFontMetricsF(font()).height() + 4);
}

void MemoryView::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    relayout();
}

void MemoryView::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing, false);
    p.fillRect(rect(), palette().base());
    if (!m_placeholder.isEmpty()) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(rect().adjusted(int(kMargin), int(kMargin), -int(kMargin), -int(kMargin)),
                   Qt::AlignCenter | Qt::TextWordWrap, m_placeholder);
        return;
    }
    const QColor text = palette().color(QPalette::Text);
    const QColor dimText = palette().color(QPalette::PlaceholderText);
    const QColor overRed(200, 30, 30);
    QFont bold = font();
    bold.setBold(true);
    QFont small = font();
    small.setPointSizeF(std::max(6.0, small.pointSizeF() * 0.85));
    const QFontMetricsF fm(font());

    auto drawSegment = [&](const Segment& s, const QRectF& r) {
        QColor c = tensorColor(m_snapshot.program ? m_snapshot.program->kernel.get() : nullptr, s.tensor);
        if (s.doubleBuffered) {
            QRectF a(r.left(), r.top(), r.width() / 2, r.height());
            QRectF b(r.left() + r.width() / 2, r.top(), r.width() / 2, r.height());
            for (const QRectF& half : {a, b}) {
                p.fillRect(half, c);
                p.fillRect(half, QBrush(c.darker(150), Qt::BDiagPattern));
            }
            p.setPen(QPen(Qt::white, 2));
            p.drawLine(QPointF(b.left(), b.top() + 1), QPointF(b.left(), b.bottom() - 1));
        } else {
            p.fillRect(r, c);
        }
        p.setPen(QPen(c.darker(170), 1));
        p.drawRect(r.adjusted(0, 0, -1, -1));
    };
    // A label centred in r if it fits; on hatching or in the red overflow it gets a backing.
    // Shaped once and drawn from the caches: most texts read as at the last repaint.
    auto drawCentred = [&](const QStaticText& t, const QRectF& r) {
        p.drawStaticText(QPointF(r.center().x() - t.size().width() / 2, r.center().y() - t.size().height() / 2), t);
    };
    auto drawLabel = [&](const Segment& s, const QRectF& r, bool inOverflow) {
        QRectF inner = r.adjusted(4, 0, -4, 0);
        const QStaticText* label = &m_texts.text(s.label, font());
        if (label->size().width() > inner.width())
            label = &m_texts.text(s.name, font());
        if (label->size().width() > inner.width())
            return;
        QColor c = tensorColor(m_snapshot.program ? m_snapshot.program->kernel.get() : nullptr, s.tensor);
        QColor ink = c.lightness() > 150 ? QColor(20, 20, 20) : QColor(Qt::white);
        if (s.doubleBuffered || inOverflow) {
            QRectF t(0, 0, label->size().width() + 8, fm.height() + 2);
            t.moveCenter(inner.center());
            QColor back = inOverflow ? QColor(255, 255, 255, 225) : c;
            p.fillRect(t, back);
            if (inOverflow)
                ink = QColor(120, 0, 0);
        }
        p.setPen(ink);
        drawCentred(*label, inner);
    };

    for (const LevelRow& row : m_rows) {
        // Title: level name and used/capacity; the overflow amount in red on the right.
        p.setFont(bold);
        p.setPen(text);
        // A narrow dock elides the title (levelText() and the tooltips keep it whole).
        const QStaticText& overflow = m_boldTexts.text(row.overflow, bold);
        const qreal room = row.titleRect.width() - (row.over ? overflow.size().width() + 8 : 0);
        const QStaticText* title = &m_boldTexts.text(row.text, bold);
        if (title->size().width() > room)
            title = &m_boldTexts.text(QFontMetricsF(bold).elidedText(row.text, Qt::ElideRight, room), bold);
        p.drawStaticText(QPointF(row.titleRect.left(), row.titleRect.center().y() - title->size().height() / 2), *title);
        if (row.over) {
            p.setPen(overRed);
            p.drawStaticText(QPointF(row.titleRect.right() - overflow.size().width(), row.titleRect.center().y() - overflow.size().height() / 2),
                             overflow);
        }
        p.setFont(font());
        // The capacity: an empty trough.
        QRectF trough(row.bar.left(), row.bar.top(), row.capacityX - row.bar.left(), row.bar.height());
        p.fillRect(trough, palette().color(QPalette::AlternateBase).darker(104));
        p.setPen(QPen(palette().color(QPalette::Mid), 1));
        p.drawRect(trough.adjusted(0, 0, -1, -1));
        if (!row.zoom.isEmpty()) {
            // The used part, magnified below the bar.
            QPolygonF funnel;
            funnel << QPointF(row.bar.left(), row.bar.bottom()) << QPointF(row.usedX, row.bar.bottom())
                   << QPointF(row.zoom.right(), row.zoom.top()) << QPointF(row.zoom.left(), row.zoom.top());
            p.setRenderHint(QPainter::Antialiasing, true);
            p.setPen(Qt::NoPen);
            p.setBrush(QColor(0, 0, 0, 18));
            p.drawPolygon(funnel);
            p.setBrush(Qt::NoBrush);
            p.setRenderHint(QPainter::Antialiasing, false);
            const double factor = (row.zoom.width()) / std::max<qreal>(1e-9, row.usedX - row.bar.left());
            p.setFont(small);
            p.setPen(dimText);
            const QStaticText& magnified
                = m_smallTexts.text(tr("used part, magnified ×%1").arg(factor >= 10 ? QString::number(qRound(factor)) : QString::number(factor, 'f', 1)), small);
            p.drawStaticText(QPointF(row.zoom.right() - magnified.size().width(), row.bar.bottom() + (kZoomGap - magnified.size().height()) / 2),
                             magnified);
            p.setFont(font());
        }
    }

    // Buffers, stacked (and again in the magnified strip).
    for (const Segment& s : m_segments) {
        drawSegment(s, s.rect);
        if (!s.zoomRect.isEmpty())
            drawSegment(s, s.zoomRect);
    }

    // Banks of a row-addressed level: dashed lines across the bar (and the magnified strip).
    p.setPen(QPen(palette().color(QPalette::Text), 1, Qt::DashLine));
    for (const LevelRow& row : m_rows) {
        for (qreal x : row.bankX)
            p.drawLine(QPointF(x, row.bar.top() - 3), QPointF(x, row.bar.bottom() + 3));
        for (qreal x : row.zoomBankX)
            p.drawLine(QPointF(x, row.zoom.top() - 3), QPointF(x, row.zoom.bottom() + 3));
    }

    // Overflow: everything past the capacity line in red (the amount is in the title).
    for (const LevelRow& row : m_rows) {
        if (!row.over)
            continue;
        QRectF over(row.capacityX, row.bar.top(), row.bar.right() - row.capacityX, row.bar.height());
        p.fillRect(over, QColor(220, 0, 0, 110));
        p.fillRect(over, QBrush(QColor(160, 0, 0, 160), Qt::DiagCrossPattern));
        p.setPen(QPen(overRed, 2));
        p.drawRect(over.adjusted(1, 1, -1, -1));
        p.setPen(QPen(overRed, 3));
        p.drawLine(QPointF(row.capacityX, row.bar.top() - 4), QPointF(row.capacityX, row.bar.bottom() + 4));
    }

    // Labels inside the segments that have room; highlights on top of everything.
    for (const Segment& s : m_segments) {
        const LevelRow& row = m_rows[s.level];
        if (row.over) {
            // In the larger of the parts before and past the capacity line.
            QRectF before = s.rect, after = s.rect;
            before.setRight(std::min(s.rect.right(), row.capacityX));
            after.setLeft(std::max(s.rect.left(), row.capacityX));
            bool past = after.width() > before.width();
            drawLabel(s, past ? after : before, past);
        } else {
            drawLabel(s, s.rect, false);
        }
        if (!s.zoomRect.isEmpty())
            drawLabel(s, s.zoomRect, false);
    }
    p.setRenderHint(QPainter::Antialiasing, true);
    p.setBrush(Qt::NoBrush);
    for (const Segment& s : m_segments) {
        if (!s.highlighted)
            continue;
        for (const QRectF& r : {s.rect, s.zoomRect}) {
            if (r.isEmpty())
                continue;
            p.setPen(QPen(QColor(255, 160, 0), 3));
            p.drawRect(r.adjusted(-1, -2, 1, 2));
            p.setPen(QPen(QColor(40, 40, 40), 1));
            p.drawRect(r.adjusted(-3, -4, 3, 4));
        }
    }
    p.setRenderHint(QPainter::Antialiasing, false);

    // Legend: the colour of each tensor drawn.
    qreal x = kMargin;
    const qreal y = m_legendY;
    p.setPen(text);
    const qreal lineY = y + (fm.height() + 4) / 2;
    auto drawLeft = [&](const QStaticText& t, qreal at) { p.drawStaticText(QPointF(at, lineY - t.size().height() / 2), t); };
    const QStaticText& heading = m_texts.text(tr("tensors:"), font());
    drawLeft(heading, x);
    x += heading.size().width() + 8;
    for (const QString& t : m_legend) {
        QRectF box(x, y + 3, 12, 12);
        const QColor tc = tensorColor(m_snapshot.program ? m_snapshot.program->kernel.get() : nullptr, t);
        p.fillRect(box, tc);
        p.setPen(QPen(tc.darker(170), 1));
        p.drawRect(box.adjusted(0, 0, -1, -1));
        x += 16;
        p.setPen(text);
        const QStaticText& name = m_texts.text(t, font());
        drawLeft(name, x);
        x += name.size().width() + 12;
    }
    const QStaticText& note = m_texts.text(tr("buffers live at the peak; hatched = double buffer"), font());
    if (x + note.size().width() + 8 < width() - kMargin) {
        p.setPen(dimText);
        drawLeft(note, width() - kMargin - note.size().width());
    }
}

const MemoryView::Segment* MemoryView::segmentAt(const QPointF& pos) const
{
    // Later segments are drawn on top; the minimum width can make neighbours touch.
    for (auto it = m_segments.rbegin(); it != m_segments.rend(); ++it)
        if (it->rect.contains(pos) || it->zoomRect.contains(pos))
            return &*it;
    return nullptr;
}

const MemoryView::LevelRow* MemoryView::row(const QString& level) const
{
    for (const LevelRow& r : m_rows)
        if (r.name == level)
            return &r;
    return nullptr;
}

QString MemoryView::overflowText(const QString& level) const
{
    const LevelRow* r = row(level);
    return r ? r->overflow : QString();
}

QString MemoryView::levelText(const QString& level) const
{
    const LevelRow* r = row(level);
    return r ? r->text : QString();
}

QString MemoryView::bufferAt(const QPointF& pos) const
{
    const Segment* s = segmentAt(pos);
    return s ? s->name : QString();
}

QString MemoryView::toolTipAt(const QPointF& pos) const
{
    if (const Segment* s = segmentAt(pos))
        return s->toolTip;
    for (const LevelRow& row : m_rows)  // a title, whole (a narrow dock elides it)
        if (row.titleRect.contains(pos))
            return row.text;
    return QString();
}

QString MemoryView::bufferLabel(const QString& level, const QString& buffer) const
{
    for (const Segment& s : m_segments)
        if (s.name == buffer && s.level < static_cast<int>(m_rows.size()) && m_rows[s.level].name == level)
            return s.label;
    return QString();
}

QRectF MemoryView::bufferRect(const QString& level, const QString& buffer) const
{
    for (const Segment& s : m_segments)
        if (s.name == buffer && s.level < static_cast<int>(m_rows.size()) && m_rows[s.level].name == level)
            return s.zoomRect.isEmpty() ? s.rect : s.zoomRect;
    return QRectF();
}

bool MemoryView::event(QEvent* event)
{
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        if (const Segment* s = segmentAt(help->pos())) {
            QRectF area = s->zoomRect.contains(help->pos()) ? s->zoomRect : s->rect;
            QToolTip::showText(help->globalPos(), s->toolTip, this, area.toAlignedRect());
        } else if (const QString title = toolTipAt(help->pos()); !title.isEmpty()) {
            QToolTip::showText(help->globalPos(), title, this);
        } else {
            QToolTip::hideText();
            event->ignore();
        }
        return true;
    }
    return QWidget::event(event);
}

void MemoryView::mousePressEvent(QMouseEvent* event)
{
    if (event->button() == Qt::LeftButton)
        if (const Segment* s = segmentAt(event->position())) {
            emit stepActivated(s->step);
            return;
        }
    QWidget::mousePressEvent(event);
}

void MemoryView::mouseMoveEvent(QMouseEvent* event)
{
    const Segment* s = segmentAt(event->position());
    setCursor(s && s->step >= 0 ? Qt::PointingHandCursor : Qt::ArrowCursor);
    QWidget::mouseMoveEvent(event);
}

} // namespace loopscope::ui
