// Tile view: draws the tile model of the loop nest (analysis/tiles.h: the output tiles per
// iteration of the outer loops and the input regions resident meanwhile) as 2-D grids.
#include "tile_view.h"

#include "analysis/tiles.h"
#include "memory_view.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QPainter>
#include <QSlider>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <climits>
#include <cmath>
#include <set>
#include <tuple>

namespace loopscope::ui {

using analysis::ResidentRegion;
using analysis::TileInput;

namespace {

/// Distinct tile outlines drawn at most.
constexpr size_t kMaxOutlines = 4096;
constexpr int kPlayIntervalMs = 450;

QString qs(const std::string& s) { return QString::fromStdString(s); }

QString boxText(const QString& tensor, const Box& b) { return qs(loopscope::boxText(tensor.toStdString(), b)); }

/// "1,024 elements".
QString extentText(const Box& b)
{
    const int64_t n = b.elements();
    return n == 1 ? QStringLiteral("1 element") : QStringLiteral("%1 elements").arg(QLocale(QLocale::English).toString(qlonglong(n)));
}

QString bytesText(int64_t b)
{
    if (b < 1024)
        return QStringLiteral("%1 B").arg(b);
    auto number = [](double v) { return QString::number(v, 'f', v == std::floor(v) ? 0 : (v < 10 ? 2 : 1)); };
    double v = b / 1024.0;
    if (v < 1024)
        return QStringLiteral("%1 KiB").arg(number(v));
    return QStringLiteral("%1 MiB").arg(number(v / 1024.0));
}

/// Two dimensions to draw: the ones the tiles cut first, then the largest, then the last.
/// Returns (row, column); row is -1 for a 1-D picture, both -1 for a scalar.
std::pair<int, int> chooseDims(const std::vector<int64_t>& shape, const std::vector<bool>& cut)
{
    std::vector<int> dims;
    for (size_t d = 0; d < shape.size(); ++d)
        if (shape[d] > 1)
            dims.push_back(static_cast<int>(d));
    if (dims.empty())
        for (size_t d = 0; d < shape.size(); ++d)
            dims.push_back(static_cast<int>(d));
    std::sort(dims.begin(), dims.end(), [&](int a, int b) {
        bool ca = a < static_cast<int>(cut.size()) && cut[a], cb = b < static_cast<int>(cut.size()) && cut[b];
        return std::make_tuple(ca, shape[a], a) > std::make_tuple(cb, shape[b], b);
    });
    if (dims.empty())
        return {-1, -1};
    if (dims.size() == 1)
        return {-1, dims[0]};
    return {std::min(dims[0], dims[1]), std::max(dims[0], dims[1])};
}

/// Marks the dimensions a box does not cover whole.
void markCut(std::vector<bool>& cut, const Box& b, const std::vector<int64_t>& shape)
{
    for (size_t d = 0; d < cut.size() && d < b.dims.size(); ++d)
        if (!b.empty() && b.dims[d].size() < shape[d])
            cut[d] = true;
}

} // namespace

/// What the view draws for one snapshot: the core tile model, the tensor chosen as input and
/// the dimensions drawn.
struct TileModel {
    QString message;            ///< non-empty: nothing can be drawn, and why
    analysis::TileModel tiles;
    int rowDim = -1, colDim = -1;
    QStringList inputNames;
    const TileInput* input = nullptr;
    int inRowDim = -1, inColDim = -1;

    QString outName() const { return qs(tiles.output().name); }
};

namespace {

std::shared_ptr<TileModel> buildModel(const Snapshot& snap)
{
    auto m = std::make_shared<TileModel>();
    if (snap.empty()) {
        m->message = QObject::tr("No schedule is open.");
        return m;
    }
    if (!snap.nest) {
        m->message = snap.failedStep ? QObject::tr("No tiles: %1").arg(qs(snap.failedStep->str()))
                                     : QObject::tr("No loop nest to show tiles of.");
        return m;
    }
    m->tiles = analysis::TileModel::build(snap.nest);
    if (!m->tiles.ok()) {
        m->message = qs(m->tiles.message());
        return m;
    }
    const auto& out = m->tiles.output();
    std::vector<bool> cut(out.shape.size(), false);
    for (int64_t p = 0; p < std::min<int64_t>(m->tiles.positions(), 256); ++p)
        markCut(cut, m->tiles.outputTile(p), out.shape);
    std::tie(m->rowDim, m->colDim) = chooseDims(out.shape, cut);
    for (const TileInput& in : m->tiles.inputs())
        m->inputNames << qs(in.name);
    return m;
}

void buildInput(TileModel& m, const QString& name)
{
    m.input = m.message.isEmpty() ? m.tiles.input(name.toStdString()) : nullptr;
    m.inRowDim = m.inColDim = -1;
    if (!m.input)
        return;
    const TileInput& in = *m.input;
    std::vector<bool> cut(in.shape.size(), false);
    for (int64_t p : {int64_t(0), m.tiles.positions() / 2})
        for (const ResidentRegion& r : m.tiles.residents(in, p))
            markCut(cut, r.box, in.shape);
    std::tie(m.inRowDim, m.inColDim) = chooseDims(in.shape, cut);
}

// ---- drawing ----------------------------------------------------------------------------------

/// A tensor's grid on screen.
struct Grid {
    QRectF rect;
    qreal cw = 1, ch = 1;   ///< cell width and height (square unless a side would be too thin)
    int64_t rows = 1, cols = 1;
    int rowDim = -1, colDim = -1;

    QRectF project(const Box& b) const
    {
        int64_t r0 = 0, r1 = rows - 1, c0 = 0, c1 = cols - 1;
        if (rowDim >= 0 && static_cast<size_t>(rowDim) < b.dims.size()) {
            r0 = b.dims[rowDim].lo;
            r1 = b.dims[rowDim].hi;
        }
        if (colDim >= 0 && static_cast<size_t>(colDim) < b.dims.size()) {
            c0 = b.dims[colDim].lo;
            c1 = b.dims[colDim].hi;
        }
        return QRectF(rect.left() + c0 * cw, rect.top() + r0 * ch, (c1 - c0 + 1) * cw, (r1 - r0 + 1) * ch);
    }
};

/// Lines a caption takes when wrapped to `width`.
int captionLineCount(const QFontMetricsF& fm, const QString& caption, qreal width)
{
    const QRectF r = fm.boundingRect(QRectF(0, 0, std::max<qreal>(width, 20), 1e6), Qt::AlignLeft | Qt::TextWordWrap, caption);
    return std::max(1, static_cast<int>(std::ceil(r.height() / fm.lineSpacing() - 0.01)));
}

struct PanelText {
    QString title;
    QString rowName, colName;
    std::vector<std::pair<QColor, QString>> captions;   ///< swatch colour (invalid: none) and text

    /// Lines the captions take in a panel of this width.
    size_t lines(const QFontMetricsF& fm, qreal width) const
    {
        size_t n = 0;
        for (const auto& [colour, caption] : captions)
            n += captionLineCount(fm, caption, width - (colour.isValid() ? 16 : 0));
        return n;
    }
};

/// Lays out a panel: title, the grid (square cells, as large as fits), captions below.
/// Lines the bold title of a panel takes (it wraps rather than being cut).
int titleLineCount(const QFont& font, const QString& title, qreal width)
{
    QFont bold = font;
    bold.setBold(true);
    return captionLineCount(QFontMetricsF(bold), title, width);
}

Grid layoutPanel(const QRectF& area, const QFontMetricsF& fm, const std::vector<int64_t>& shape, int rowDim, int colDim,
                 const QString& rowName, size_t captionLines, int titleLines = 1)
{
    Grid g;
    g.rowDim = rowDim;
    g.colDim = colDim;
    g.rows = rowDim >= 0 ? std::max<int64_t>(1, shape[rowDim]) : 1;
    g.cols = colDim >= 0 ? std::max<int64_t>(1, shape[colDim]) : 1;
    const qreal line = fm.height() + 2;
    const qreal top = area.top() + titleLines * line + line + 2;      // title, column axis
    const qreal labels = std::max(fm.horizontalAdvance(QStringLiteral("0000")),
                                  rowName.isEmpty() ? 0.0 : fm.horizontalAdvance(rowName + QStringLiteral(" ↓")));
    const qreal left = area.left() + std::min(labels, area.width() / 3) + 6;
    const qreal bottom = area.bottom() - captionLines * line - 6;
    const qreal w = std::max<qreal>(10, area.right() - left - 4);
    const qreal h = std::max<qreal>(10, bottom - top);
    const qreal cell = std::min(w / g.cols, h / g.rows);
    g.cw = g.ch = cell;
    // A 4 x 256 tensor drawn with square cells is a hairline: give a thin side some body.
    const qreal minSide = 44;
    if (g.rows * g.ch < minSide)
        g.ch = std::min(h, minSide) / g.rows;
    if (g.cols * g.cw < minSide)
        g.cw = std::min(w, minSide) / g.cols;
    g.rect = QRectF(left, top, g.cw * g.cols, g.ch * g.rows);
    return g;
}

void drawPanelFrame(QPainter& p, const QRectF& area, const Grid& g, const PanelText& text, const QPalette& pal)
{
    QFont bold = p.font();
    bold.setBold(true);
    const QFont normal = p.font();
    const QFontMetricsF fm(normal);
    const qreal line = fm.height() + 2;
    p.setFont(bold);
    p.setPen(pal.color(QPalette::Text));
    const int titleLines = titleLineCount(normal, text.title, area.width());
    p.drawText(QRectF(area.left(), area.top(), area.width(), titleLines * line), Qt::AlignLeft | Qt::AlignVCenter | Qt::TextWordWrap,
               text.title);
    p.setFont(normal);
    const qreal axisTop = area.top() + (titleLines - 1) * line;   // the axis row sits under the title
    // Axes: names and extents.
    const QColor dim = pal.color(QPalette::PlaceholderText);
    p.setPen(dim);
    QRectF colAxis(g.rect.left(), axisTop + line, std::max<qreal>(g.rect.width(), 60), line);
    p.drawText(colAxis, Qt::AlignLeft | Qt::AlignVCenter, QStringLiteral("%1 →").arg(text.colName));
    if (g.rect.width() > fm.horizontalAdvance(QString::number(g.cols)) + fm.horizontalAdvance(text.colName) + 40)
        p.drawText(QRectF(g.rect.left(), axisTop + line, g.rect.width(), line), Qt::AlignRight | Qt::AlignVCenter,
                   QString::number(g.cols));
    QRectF rowAxis(area.left(), g.rect.top(), g.rect.left() - area.left() - 4, line);
    p.drawText(rowAxis, Qt::AlignRight | Qt::AlignVCenter, QStringLiteral("0"));
    if (!text.rowName.isEmpty()) {
        p.drawText(QRectF(area.left(), axisTop + line, g.rect.left() - area.left() - 4, line), Qt::AlignRight | Qt::AlignVCenter,
                   fm.elidedText(text.rowName + QStringLiteral(" ↓"), Qt::ElideLeft, g.rect.left() - area.left() - 4));
        if (g.rect.height() > 2 * line)
            p.drawText(QRectF(area.left(), g.rect.bottom() - line, g.rect.left() - area.left() - 4, line),
                       Qt::AlignRight | Qt::AlignVCenter, QString::number(g.rows));
    }
    // Captions under the grid.
    qreal y = g.rect.bottom() + 6;
    for (const auto& [colour, caption] : text.captions) {
        qreal x = area.left();
        if (colour.isValid()) {
            QRectF swatch(x, y + (line - 11) / 2, 11, 11);
            p.fillRect(swatch, colour);
            p.setPen(colour.darker(160));
            p.drawRect(swatch.adjusted(0, 0, -1, -1));
            x += 16;
        }
        p.setPen(pal.color(QPalette::Text));
        // Wrapped, never cut: a caption is what the picture means.
        const int lines = captionLineCount(fm, caption, area.right() - x);
        p.drawText(QRectF(x, y, area.right() - x, lines * line), Qt::AlignLeft | Qt::AlignVCenter | Qt::TextWordWrap, caption);
        y += lines * line;
    }
}

void drawCells(QPainter& p, const Grid& g, const QColor& fill)
{
    p.fillRect(g.rect, fill);
    p.setPen(QPen(QColor(0, 0, 0, 22), 1));
    if (g.ch >= 7)
        for (int64_t r = 1; r < g.rows; ++r)
            p.drawLine(QPointF(g.rect.left(), g.rect.top() + r * g.ch), QPointF(g.rect.right(), g.rect.top() + r * g.ch));
    if (g.cw >= 7)
        for (int64_t c = 1; c < g.cols; ++c)
            p.drawLine(QPointF(g.rect.left() + c * g.cw, g.rect.top()), QPointF(g.rect.left() + c * g.cw, g.rect.bottom()));
}

/// `c` mixed with white: `share` of white.
QColor pale(const QColor& c, double share)
{
    auto mix = [share](int v) { return int(v * (1 - share) + 255 * share); };
    return QColor(mix(c.red()), mix(c.green()), mix(c.blue()));
}

QColor levelColour(const QColor& tensor, int level)
{
    // Outer levels pale, inner levels strong.
    switch (level) {
    case 0: return pale(tensor, 0.72);
    case 1: return tensor;
    default: return tensor.darker(100 + 35 * (level - 1));
    }
}

/// A region too small to see (one element of a 112 x 112 grid) gets a ring around it, drawn
/// inside the grid so that it never covers the axis labels.
void markIfSmall(QPainter& p, const Grid& g, const QRectF& r, const QColor& colour)
{
    if (r.width() >= 8 || r.height() >= 8)
        return;
    p.save();
    p.setClipRect(g.rect.adjusted(-1, -1, 1, 1));
    p.setRenderHint(QPainter::Antialiasing, true);
    p.setBrush(Qt::NoBrush);
    p.setPen(QPen(Qt::white, 4));
    p.drawEllipse(r.center(), 9, 9);
    p.setPen(QPen(colour, 2));
    p.drawEllipse(r.center(), 9, 9);
    p.restore();
}

/// "8 blocks" / "1 block".
QString counted(int64_t n, const char* one, const char* many)
{
    return n == 1 ? QObject::tr("1 %1").arg(QLatin1String(one)) : QObject::tr("%1 %2").arg(QLocale(QLocale::English).toString(qlonglong(n)), QLatin1String(many));
}

/// What the outlined blocks and the PE array beside the output grid show.
QString blockCaption(const analysis::TileModel& t, const std::vector<analysis::ArrayBlock>& blocks, const analysis::ArrayBlock* least)
{
    const int64_t dim = t.arrayDim();
    int64_t instructions = 0, partial = 0;
    for (const auto& b : blocks) {
        instructions += b.instructions;
        partial += b.peRows < dim || b.peCols < dim;
    }
    if (!least)
        return QObject::tr("no accelerator instruction runs at this step");
    const QString text = QObject::tr("%1 outlined on the %2×%2 PE array (%3), %4")
                             .arg(counted(int64_t(blocks.size()), "block", "blocks"))
                             .arg(dim)
                             .arg(t.weightStationary() ? QObject::tr("weight-stationary") : QObject::tr("output-stationary"),
                                  counted(instructions, "instruction", "instructions"));
    if (partial == 0)
        return text;
    return text + QObject::tr("; hatched: %1 using %2 PE rows × %3 columns (right)")
                      .arg(partial == int64_t(blocks.size()) ? QObject::tr("all") : counted(partial, "block", "blocks"))
                      .arg(least->peRows)
                      .arg(least->peCols);
}

/// The block using the fewest PEs, or null.
const analysis::ArrayBlock* leastUsed(const std::vector<analysis::ArrayBlock>& blocks)
{
    const analysis::ArrayBlock* least = nullptr;
    for (const auto& b : blocks)
        if (!least || b.peRows * b.peCols < least->peRows * least->peCols)
            least = &b;
    return least;
}

/// Outlines the accelerator's blocks in the output grid; blocks that leave PEs idle are hatched.
void drawBlocks(QPainter& p, const Grid& g, const std::vector<analysis::ArrayBlock>& blocks, int64_t dim, const QColor& colour)
{
    p.save();
    p.setClipRect(g.rect.adjusted(-1, -1, 1, 1));
    for (const auto& b : blocks) {
        const QRectF r = g.project(b.out);
        if (b.peRows < dim || b.peCols < dim)
            p.fillRect(r, QBrush(colour.darker(260), Qt::BDiagPattern));
        if (r.width() >= 4 && r.height() >= 4) {
            p.setPen(QPen(colour.lightness() > 150 ? colour.darker(250) : QColor(Qt::white), 1, Qt::DashLine));
            p.setBrush(Qt::NoBrush);
            p.drawRect(r.adjusted(0.5, 0.5, -0.5, -0.5));
        }
    }
    p.restore();
}

/// The PE array, titled above it, with the PEs one block uses filled and the idle ones hatched.
void drawPeArray(QPainter& p, const QRectF& square, const analysis::ArrayBlock& b, int64_t dim, const QColor& colour, const QPalette& pal)
{
    const qreal cell = square.width() / dim;
    p.fillRect(square, QColor(236, 236, 236));
    p.fillRect(square, QBrush(QColor(0, 0, 0, 60), Qt::BDiagPattern));
    p.fillRect(QRectF(square.left(), square.top(), b.peCols * cell, b.peRows * cell), colour);
    if (cell >= 4) {
        p.setPen(QPen(QColor(0, 0, 0, 30), 1));
        for (int64_t i = 1; i < dim; ++i) {
            p.drawLine(QPointF(square.left() + i * cell, square.top()), QPointF(square.left() + i * cell, square.bottom()));
            p.drawLine(QPointF(square.left(), square.top() + i * cell), QPointF(square.right(), square.top() + i * cell));
        }
    }
    p.setPen(QPen(QColor(60, 60, 60), 1));
    p.setBrush(Qt::NoBrush);
    p.drawRect(square);
    const QFontMetricsF fm(p.font());
    p.setPen(pal.color(QPalette::PlaceholderText));
    p.drawText(QRectF(square.left(), square.top() - fm.height() - 4, square.width() + 40, fm.height() + 2), Qt::AlignLeft | Qt::AlignVCenter,
               QObject::tr("PE array"));
}

} // namespace

/// The drawing surface under the controls.
class TileCanvas : public QWidget {
public:
    explicit TileCanvas(TileView* view) : QWidget(view), m_view(view)
    {
        setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
    }

protected:
    void paintEvent(QPaintEvent*) override;

private:
    void drawOutput(QPainter& p, const QRectF& area, const TileModel& m, int64_t pos);
    void drawInput(QPainter& p, const QRectF& area, const TileModel& m, int64_t pos);
    TileView* m_view;
};

void TileCanvas::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    const TileModel* m = m_view->m_model.get();
    if (!m || !m->message.isEmpty()) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(rect().adjusted(12, 12, -12, -12), Qt::AlignCenter | Qt::TextWordWrap,
                   m ? m->message : QObject::tr("No schedule is open."));
        return;
    }
    const int64_t pos = m_view->m_position;
    QRectF area = QRectF(rect()).adjusted(8, 6, -8, -6);
    if (!m->input) {
        drawOutput(p, area, *m, pos);
        return;
    }
    const qreal gap = 18;
    if (area.width() >= area.height() * 1.3) {
        qreal w = (area.width() - gap) / 2;
        drawOutput(p, QRectF(area.left(), area.top(), w, area.height()), *m, pos);
        drawInput(p, QRectF(area.left() + w + gap, area.top(), w, area.height()), *m, pos);
    } else {
        qreal h = (area.height() - gap) / 2;
        drawOutput(p, QRectF(area.left(), area.top(), area.width(), h), *m, pos);
        drawInput(p, QRectF(area.left(), area.top() + h + gap, area.width(), h), *m, pos);
    }
}

void TileCanvas::drawOutput(QPainter& p, const QRectF& area, const TileModel& m, int64_t pos)
{
    const QFontMetricsF fm(font());
    const analysis::TileModel& t = m.tiles;
    const QString outName = m.outName();
    const QColor colour = MemoryView::tensorColor(t.nest()->kernel.get(), outName);
    const Box tile = t.outputTile(pos);
    const auto& outer = t.outerLoops();

    PanelText text;
    QStringList shape;
    for (int64_t s : t.output().shape)
        shape << QString::number(s);
    text.title = QObject::tr("Output %1 [%2] cut into tiles").arg(outName, shape.join(QStringLiteral(" × ")));
    text.rowName = m.rowDim >= 0 ? qs(t.output().dimNames[m.rowDim]) : QString();
    text.colName = m.colDim >= 0 ? qs(t.output().dimNames[m.colDim]) : QString();
    QStringList values;
    const std::vector<int64_t> dg = t.loopValues(pos);
    QStringList reductions;
    for (size_t i = 0; i < outer.size(); ++i) {
        values << QStringLiteral("%1 = %2").arg(qs(outer[i].name)).arg(dg[i]);
        if (outer[i].reduction)
            reductions << qs(outer[i].name);
    }
    text.captions.push_back({QColor(), outer.empty() ? QObject::tr("one tile: no loop runs outside the on-chip buffers")
                                                     : QObject::tr("step %1 of %2: %3").arg(pos + 1).arg(t.positions()).arg(values.join(QStringLiteral(", ")))});
    if (tile.empty())
        text.captions.push_back({QColor(), QObject::tr("nothing to compute: this step lies past the edge of %1 (partial tile)").arg(outName)});
    else
        text.captions.push_back({colour, QObject::tr("computing %1: %2").arg(boxText(outName, tile), extentText(tile))});
    if (!reductions.isEmpty())
        text.captions.push_back({QColor(), QObject::tr("%1: reduction, so the same tile is accumulated over several steps")
                                               .arg(reductions.join(QStringLiteral(", ")))});
    else if (t.allTilesKnown())
        text.captions.push_back({pale(colour, 0.6), QObject::tr("tiles already computed")});
    else
        text.captions.push_back({QColor(), QObject::tr("too many steps to shade the tiles already computed")});

    // A tensorized nest: the accelerator's blocks in the tile, and the PE array under the captions.
    const int64_t dim = t.arrayDim();
    const std::vector<analysis::ArrayBlock> blocks = dim > 0 ? t.arrayBlocks(pos) : std::vector<analysis::ArrayBlock>{};
    const analysis::ArrayBlock* least = leastUsed(blocks);   // drawn on the PE array
    if (dim > 0)
        text.captions.push_back({QColor(), blockCaption(t, blocks, least)});
    // The PE array sits right of the grid, in a strip of the panel's width.
    const qreal peStrip = dim > 0 ? std::min<qreal>(area.width() * 0.3, 120) : 0;

    const Grid g = layoutPanel(area.adjusted(0, 0, -peStrip, 0), fm, t.output().shape, m.rowDim, m.colDim, text.rowName,
                               text.lines(fm, area.width()) + 1, titleLineCount(font(), text.title, area.width()));
    drawCells(p, g, QColor(250, 250, 250));

    // Tiles done, tile outlines, the current tile.
    if (t.allTilesKnown()) {
        const QColor done = pale(colour, 0.6);
        for (int64_t q = 0; q < pos; ++q)
            p.fillRect(g.project(t.outputTile(q)), done);
        std::set<std::tuple<int, int, int, int>> outlines;
        for (int64_t q = 0; q < t.positions(); ++q) {
            const Box b = t.outputTile(q);
            QRect r = g.project(b).toRect();
            outlines.insert({r.x(), r.y(), r.width(), r.height()});
            if (outlines.size() > kMaxOutlines)
                break;
        }
        if (outlines.size() <= kMaxOutlines) {
            p.setPen(QPen(QColor(90, 90, 90), 1));
            p.setBrush(Qt::NoBrush);
            for (const auto& [x, y, w, h] : outlines)
                if (w >= 3 && h >= 3)
                    p.drawRect(QRectF(x, y, w, h));
        }
    }
    if (!tile.empty()) {
        QRectF r = g.project(tile);
        p.fillRect(r, colour);
        p.setRenderHint(QPainter::Antialiasing, true);
        p.setPen(QPen(colour.darker(220), 2.5));
        p.setBrush(Qt::NoBrush);
        p.drawRect(r.adjusted(1, 1, -1, -1));
        p.setRenderHint(QPainter::Antialiasing, false);
        markIfSmall(p, g, r, colour.darker(220));
    }
    if (!blocks.empty())
        drawBlocks(p, g, blocks, dim, colour);
    p.setPen(QPen(QColor(60, 60, 60), 1));
    p.drawRect(g.rect);
    drawPanelFrame(p, area, g, text, palette());
    if (least) {
        const qreal side = std::max<qreal>(16, std::min(peStrip - 16, g.rect.height()));
        drawPeArray(p, QRectF(g.rect.right() + 16, g.rect.top(), side, side), *least, dim, colour, palette());
    }
}

/// The title, axis names and captions of the input panel at a position.
static PanelText inputText(const TileModel& m, int64_t pos)
{
    const TileInput& in = *m.input;
    const QString name = qs(in.name);
    const QColor colour = MemoryView::tensorColor(m.tiles.nest()->kernel.get(), name);
    const std::vector<ResidentRegion> residents = m.tiles.residents(in, pos);

    PanelText text;
    QStringList shape;
    for (int64_t s : in.shape)
        shape << QString::number(s);
    text.title = QObject::tr("Input %1 [%2] resident now").arg(name, shape.join(QStringLiteral(" × ")));
    text.rowName = m.inRowDim >= 0 ? qs(in.dimNames[m.inRowDim]) : QString();
    text.colName = m.inColDim >= 0 ? qs(in.dimNames[m.inColDim]) : QString();
    const bool home = !in.homeLevel.empty();
    if (home)
        text.captions.push_back({levelColour(colour, 0), QObject::tr("%1: all of %2 (its home)").arg(qs(in.homeLevel), name)});
    else
        text.captions.push_back({QColor(), QObject::tr("%1 is never stored whole (computed in pieces where it is read)").arg(name)});
    for (const ResidentRegion& r : residents) {
        const QString level = qs(r.level), buffer = qs(r.buffer);
        if (r.box.empty()) {
            text.captions.push_back({QColor(), QObject::tr("%1: %2 holds nothing of %3 at this step (past the edge)").arg(level, buffer, name)});
        } else {
            QString what = QObject::tr("%1: %2 in %3 (%4)").arg(level, boxText(name, r.box), buffer, bytesText(r.bytes));
            if (r.box.stride() > 1)
                what += QObject::tr(", stride %1").arg(r.box.stride());
            if (!r.exact)
                what += QObject::tr(", refilled inside this step (outline: all it covers)");
            text.captions.push_back({levelColour(colour, r.levelIndex), what});
        }
        if (r.prefetches && !r.next.empty())
            text.captions.push_back({QColor(), QObject::tr("   %1 second buffer prefetches %2").arg(level, boxText(name, r.next))});
        if (r.slides && !r.box.empty()) {
            const QColor kept = pale(levelColour(colour, r.levelIndex), 0.5);
            if (r.fetched == r.box)
                text.captions.push_back({QColor(), QObject::tr("   sliding window: all of it fetched at this step")});
            else
                text.captions.push_back({kept, QObject::tr("   sliding window: fetched %1 (strong), the rest kept from the step before (light)")
                                                   .arg(r.fetched.empty() ? QObject::tr("nothing") : boxText(name, r.fetched))});
        }
    }
    if (residents.empty())
        text.captions.push_back({QColor(), QObject::tr("no on-chip buffer of %1 is live during this step").arg(name)});
    return text;
}

void TileCanvas::drawInput(QPainter& p, const QRectF& area, const TileModel& m, int64_t pos)
{
    const QFontMetricsF fm(font());
    const TileInput& in = *m.input;
    const QString name = qs(in.name);
    const QColor colour = MemoryView::tensorColor(m.tiles.nest()->kernel.get(), name);
    const std::vector<ResidentRegion> residents = m.tiles.residents(in, pos);
    const bool home = !in.homeLevel.empty();
    const PanelText text = inputText(m, pos);
    // As many caption lines at every step (the most of the first, middle and last), so that
    // the grid keeps its size while it plays.
    size_t lines = text.lines(fm, area.width());
    for (int64_t q : {int64_t(0), m.tiles.positions() / 2, m.tiles.positions() - 1})
        if (q >= 0 && q != pos)
            lines = std::max(lines, inputText(m, q).lines(fm, area.width()));
    const Grid g = layoutPanel(area, fm, in.shape, m.inRowDim, m.inColDim, text.rowName, lines, titleLineCount(font(), text.title, area.width()));
    if (home) {
        drawCells(p, g, levelColour(colour, 0));
    } else {
        drawCells(p, g, QColor(245, 245, 245));
        p.fillRect(g.rect, QBrush(QColor(0, 0, 0, 30), Qt::BDiagPattern));
    }
    QFont small = font();
    small.setPointSizeF(std::max(6.0, small.pointSizeF() * 0.85));
    const QFontMetricsF sfm(small);
    for (const ResidentRegion& r : residents) {
        if (r.box.empty())
            continue;
        const QString level = qs(r.level);
        QRectF rr = g.project(r.box);
        QColor fill = levelColour(colour, r.levelIndex);
        if (r.slides && r.exact && !(r.fetched == r.box)) {
            // A sliding window: the kept part light, the part fetched at this step strong.
            p.fillRect(rr, pale(fill, 0.5));
        } else if (r.exact) {
            p.fillRect(rr, fill);
        } else {
            QColor translucent = fill;
            translucent.setAlpha(110);
            p.fillRect(rr, translucent);
        }
        p.setRenderHint(QPainter::Antialiasing, true);
        p.setPen(QPen(fill.darker(200), 2, r.exact ? Qt::SolidLine : Qt::DashLine));
        p.setBrush(Qt::NoBrush);
        p.drawRect(rr.adjusted(1, 1, -1, -1));
        p.setRenderHint(QPainter::Antialiasing, false);
        if (r.slides && r.exact && !(r.fetched == r.box) && !r.fetched.empty()) {
            // Inside the outline, so that a one-row part stays visible.
            const QRectF fr = g.project(r.fetched).intersected(rr.adjusted(2, 2, -2, -2));
            p.fillRect(fr, fill);
            p.setPen(QPen(QColor(Qt::white), 1));
            p.drawLine(fr.topLeft(), fr.topRight());
        }
        markIfSmall(p, g, rr, fill.darker(200));
        if (rr.width() > sfm.horizontalAdvance(level) + 6 && rr.height() > sfm.height() + 2) {
            p.setFont(small);
            p.setPen(fill.lightness() > 140 ? QColor(20, 20, 20) : QColor(Qt::white));
            p.drawText(rr.adjusted(3, 1, -3, -1), Qt::AlignLeft | Qt::AlignTop, level);
            p.setFont(font());
        }
        if (r.prefetches && !r.next.empty()) {
            QRectF nr = g.project(r.next);
            p.setRenderHint(QPainter::Antialiasing, true);
            p.setPen(QPen(fill.darker(250), 1.5, Qt::DotLine));
            p.drawRect(nr.adjusted(3, 3, -3, -3));
            p.setRenderHint(QPainter::Antialiasing, false);
        }
    }
    p.setPen(QPen(QColor(60, 60, 60), 1));
    p.drawRect(g.rect);
    drawPanelFrame(p, area, g, text, palette());
}

// ---- the widget ---------------------------------------------------------------------------------

TileView::TileView(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->setSpacing(4);
    auto* controls = new QHBoxLayout;
    m_play = new QToolButton(this);
    m_play->setText(tr("▶ Play"));
    m_play->setToolTip(tr("Step through the tiles"));
    m_slider = new QSlider(Qt::Horizontal, this);
    m_positionLabel = new QLabel(this);
    m_positionLabel->setMinimumWidth(m_positionLabel->fontMetrics().horizontalAdvance(QStringLiteral("00000 / 00000")));
    m_inputBox = new QComboBox(this);
    m_inputBox->setToolTip(tr("Input tensor whose resident regions are shown"));
    m_inputBox->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    controls->addWidget(m_play);
    controls->addWidget(m_slider, 1);
    controls->addWidget(m_positionLabel);
    controls->addWidget(new QLabel(tr("input:"), this));
    controls->addWidget(m_inputBox);
    layout->addLayout(controls);
    m_canvas = new TileCanvas(this);
    layout->addWidget(m_canvas, 1);
    m_timer = new QTimer(this);
    m_timer->setInterval(kPlayIntervalMs);

    connect(m_slider, &QSlider::valueChanged, this, [this](int v) { setPosition(v); });
    connect(m_play, &QToolButton::clicked, this, [this] { setPlaying(!isPlaying()); });
    connect(m_inputBox, &QComboBox::currentTextChanged, this, [this](const QString& t) {
        if (!t.isEmpty())
            setInputTensor(t);
    });
    connect(m_timer, &QTimer::timeout, this, &TileView::advance);
    m_model = buildModel(m_snapshot);
    syncControls();
}

QSize TileView::sizeHint() const
{
    return QSize(760, 440);
}

QSize TileView::minimumSizeHint() const
{
    return QSize(320, 240);
}

void TileView::setSnapshot(const Snapshot& snapshot)
{
    m_snapshot = snapshot;
    const QStringList oldLoops = outerLoops();
    m_model = buildModel(snapshot);
    if (outerLoops() != oldLoops)
        m_position = 0;   // other tiles: start again
    m_position = std::clamp(m_position, 0, std::max(0, positionCount() - 1));
    if (!m_model->inputNames.contains(m_input))
        m_input = m_model->inputNames.isEmpty() ? QString() : m_model->inputNames.front();
    rebuildInput();
    if (positionCount() <= 1)
        setPlaying(false);
    syncControls();
    m_canvas->update();
}

void TileView::rebuildInput()
{
    if (m_model)
        buildInput(*m_model, m_input);
}

void TileView::syncControls()
{
    const int count = positionCount();
    const bool drawable = m_model && m_model->message.isEmpty();
    {
        QSignalBlocker block(m_slider);
        m_slider->setRange(0, std::max(0, count - 1));
        m_slider->setValue(m_position);
        m_slider->setPageStep(std::max(1, count / 16));
        m_slider->setEnabled(count > 1);
    }
    m_positionLabel->setText(drawable ? QStringLiteral("%1 / %2").arg(m_position + 1).arg(count) : QString());
    m_play->setEnabled(count > 1);
    m_play->setText(isPlaying() ? tr("❚❚ Pause") : tr("▶ Play"));
    {
        QSignalBlocker block(m_inputBox);
        QStringList names = m_model ? m_model->inputNames : QStringList();
        QStringList current;
        for (int i = 0; i < m_inputBox->count(); ++i)
            current << m_inputBox->itemText(i);
        if (current != names) {
            m_inputBox->clear();
            m_inputBox->addItems(names);
        }
        m_inputBox->setCurrentIndex(names.indexOf(m_input));
        m_inputBox->setEnabled(drawable && !names.isEmpty());
    }
}

int TileView::position() const
{
    return m_position;
}

void TileView::setPosition(int position)
{
    position = std::clamp(position, 0, std::max(0, positionCount() - 1));
    if (position == m_position)
        return;
    m_position = position;
    syncControls();
    m_canvas->update();
    emit positionChanged(m_position);
}

int TileView::positionCount() const
{
    if (!m_model || !m_model->message.isEmpty())
        return 0;
    return static_cast<int>(std::min<int64_t>(m_model->tiles.positions(), INT_MAX));
}

QString TileView::inputTensor() const
{
    return m_input;
}

void TileView::setInputTensor(const QString& tensor)
{
    if (tensor == m_input || !m_model || !m_model->inputNames.contains(tensor))
        return;
    m_input = tensor;
    rebuildInput();
    syncControls();
    m_canvas->update();
}

QStringList TileView::inputTensors() const
{
    return m_model ? m_model->inputNames : QStringList();
}

QString TileView::message() const
{
    return m_model ? m_model->message : QString();
}

QStringList TileView::outerLoops() const
{
    QStringList out;
    if (m_model)
        for (const auto& l : m_model->tiles.outerLoops())
            out << qs(l.name);
    return out;
}

QString TileView::tileText() const
{
    if (!m_model || !m_model->message.isEmpty())
        return QString();
    return boxText(m_model->outName(), m_model->tiles.outputTile(m_position));
}

QStringList TileView::residentText() const
{
    QStringList out;
    if (!m_model || !m_model->message.isEmpty())
        return out;
    if (!m_model->input)
        return out;
    for (const ResidentRegion& r : m_model->tiles.residents(*m_model->input, m_position))
        out << QStringLiteral("%1: %2").arg(qs(r.level), boxText(qs(m_model->input->name), r.box));
    return out;
}

QString TileView::arrayText() const
{
    if (!m_model || !m_model->message.isEmpty() || m_model->tiles.arrayDim() == 0)
        return QString();
    const std::vector<analysis::ArrayBlock> blocks = m_model->tiles.arrayBlocks(m_position);
    return blockCaption(m_model->tiles, blocks, leastUsed(blocks));
}

bool TileView::isPlaying() const
{
    return m_timer->isActive();
}

void TileView::setPlaying(bool playing)
{
    if (playing && positionCount() > 1) {
        if (m_position + 1 >= positionCount())
            setPosition(0);
        m_timer->start();
    } else {
        m_timer->stop();
    }
    syncControls();
}

void TileView::advance()
{
    if (m_position + 1 >= positionCount()) {
        setPlaying(false);
        return;
    }
    setPosition(m_position + 1);
}

} // namespace loopscope::ui
