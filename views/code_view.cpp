// Code view: a fixed-pitch text area that draws only the visible lines, its C highlighter,
// and the panel around it (file name, Export...).
#include "code_view.h"

#include "live_label.h"

#include "codegen/code_size.h"
#include "common/text_file.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QFontDatabase>
#include <QGlyphRun>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QPainter>
#include <QPushButton>
#include <QScrollBar>
#include <QSet>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <cstring>

namespace loopscope::ui {

namespace {
bool isIdentStart(QChar c) { return c.isLetter() || c == QLatin1Char('_'); }
bool isIdent(QChar c) { return c.isLetterOrNumber() || c == QLatin1Char('_'); }

const QSet<QString>& keywords()
{
    static const QSet<QString> k{"for", "if", "else", "while", "do", "return", "break", "continue", "switch", "case",
                                 "default", "static", "const", "inline", "extern", "sizeof", "typedef", "struct",
                                 "volatile", "restrict", "goto", "union", "enum"};
    return k;
}

const QSet<QString>& types()
{
    static const QSet<QString> t{"void", "char", "short", "int", "long", "float", "double", "unsigned", "signed",
                                 "size_t", "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t",
                                 "uint32_t", "uint64_t", "bool"};
    return t;
}

constexpr int kMargin = 6;
} // namespace

std::vector<CHighlighter::Span> CHighlighter::highlight(const QString& line, bool& inComment)
{
    std::vector<Span> spans;
    const int n = static_cast<int>(line.size());
    int i = 0;
    if (!inComment) {
        int first = 0;
        while (first < n && line[first].isSpace())
            ++first;
        if (first < n && line[first] == QLatin1Char('#')) {
            spans.push_back({first, n - first, Kind::Preprocessor});
            return spans;
        }
    }
    while (i < n) {
        if (inComment) {
            const int end = line.indexOf(QLatin1String("*/"), i);
            const int stop = end < 0 ? n : end + 2;
            spans.push_back({i, stop - i, Kind::Comment});
            inComment = end < 0;
            i = stop;
            continue;
        }
        const QChar c = line[i];
        const QChar next = i + 1 < n ? line[i + 1] : QChar();
        if (c == QLatin1Char('/') && next == QLatin1Char('*')) {
            const int end = line.indexOf(QLatin1String("*/"), i + 2);
            const int stop = end < 0 ? n : end + 2;
            spans.push_back({i, stop - i, Kind::Comment});
            inComment = end < 0;
            i = stop;
            continue;
        }
        if (c == QLatin1Char('/') && next == QLatin1Char('/')) {
            spans.push_back({i, n - i, Kind::Comment});
            break;
        }
        if (c == QLatin1Char('"')) {
            int j = i + 1;
            while (j < n && line[j] != QLatin1Char('"'))
                j += line[j] == QLatin1Char('\\') ? 2 : 1;
            j = std::min(j + 1, n);
            spans.push_back({i, j - i, Kind::String});
            i = j;
            continue;
        }
        if (isIdentStart(c)) {
            int j = i + 1;
            while (j < n && isIdent(line[j]))
                ++j;
            const QString word = line.mid(i, j - i);
            int k = j;
            while (k < n && line[k] == QLatin1Char(' '))
                ++k;
            if (keywords().contains(word))
                spans.push_back({i, j - i, Kind::Keyword});
            else if (types().contains(word))
                spans.push_back({i, j - i, Kind::Type});
            else if (k < n && line[k] == QLatin1Char('('))
                spans.push_back({i, j - i, Kind::Call});
            i = j;
            continue;
        }
        if (c.isDigit()) {
            int j = i + 1;
            while (j < n && (line[j].isLetterOrNumber() || line[j] == QLatin1Char('.')))
                ++j;
            spans.push_back({i, j - i, Kind::Number});
            i = j;
            continue;
        }
        ++i;
    }
    return spans;
}

QColor CHighlighter::color(Kind kind)
{
    switch (kind) {
    case Kind::Keyword: return QColor(0x00, 0x33, 0x99);
    case Kind::Type: return QColor(0x00, 0x7a, 0x7a);
    case Kind::Number: return QColor(0x98, 0x1a, 0x1a);
    case Kind::String: return QColor(0x2e, 0x7d, 0x32);
    case Kind::Call: return QColor(0x6a, 0x1b, 0x9a);
    case Kind::Comment: return QColor(0x70, 0x70, 0x70);
    case Kind::Preprocessor: return QColor(0x8d, 0x5a, 0x00);
    case Kind::Plain: break;
    }
    return QColor(0x20, 0x20, 0x20);
}

CodeArea::CodeArea(QWidget* parent) : QAbstractScrollArea(parent)
{
    setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    viewport()->setCursor(Qt::IBeamCursor);
    setFocusPolicy(Qt::StrongFocus);
    auto* copy = new QAction(tr("Copy"), this);
    copy->setShortcut(QKeySequence::Copy);
    copy->setShortcutContext(Qt::WidgetShortcut);
    connect(copy, &QAction::triggered, this, [this] {
        const QString s = selectedText();
        if (!s.isEmpty())
            QApplication::clipboard()->setText(s);
    });
    auto* all = new QAction(tr("Select all"), this);
    all->setShortcut(QKeySequence::SelectAll);
    all->setShortcutContext(Qt::WidgetShortcut);
    connect(all, &QAction::triggered, this, &CodeArea::selectAll);
    addAction(copy);
    addAction(all);
    setContextMenuPolicy(Qt::ActionsContextMenu);
    updateMetrics();
}

void CodeArea::updateMetrics()
{
    const QFontMetricsF fm(font());
    m_charWidth = std::max(1.0, fm.horizontalAdvance(QLatin1Char('M')));
    m_lineHeight = QFontMetrics(font()).lineSpacing();
    m_ascent = QFontMetrics(font()).ascent();
    // One glyph per ASCII character, in the plain and the comments' italic face.
    for (bool italic : {false, true}) {
        QFont f = font();
        f.setItalic(italic);
        GlyphTable& t = italic ? m_italic : m_regular;
        t.font = QRawFont::fromFont(f);
        t.glyphs.assign(128, 0);
        if (!t.font.isValid())
            continue;
        QString ascii;
        for (int c = 32; c < 127; ++c)
            ascii += QChar(c);
        const QList<quint32> glyphs = t.font.glyphIndexesForString(ascii);
        for (int c = 32; c < 127 && c - 32 < glyphs.size(); ++c)
            t.glyphs[c] = glyphs[c - 32];
    }
    updateScrollBars();
}

void CodeArea::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::FontChange)
        updateMetrics();
    QAbstractScrollArea::changeEvent(event);
}

void CodeArea::setText(std::string text)
{
    m_text = std::move(text);
    m_lineStart.clear();
    m_commentBefore.clear();
    m_maxColumns = 0;
    const char* data = m_text.data();
    const int size = static_cast<int>(m_text.size());
    bool inComment = false;
    int start = 0;
    while (start < size) {
        const char* nl = static_cast<const char*>(std::memchr(data + start, '\n', size - start));
        const int end = nl ? static_cast<int>(nl - data) : size;
        m_lineStart.push_back(start);
        m_commentBefore.push_back(inComment ? 1 : 0);
        if (end - start > m_maxColumns) {
            // Columns are characters: count the UTF-8 sequences of a line that might be widest.
            int columns = 0;
            for (int i = start; i < end; ++i)
                columns += (static_cast<unsigned char>(data[i]) & 0xC0) != 0x80 ? 1 : 0;
            m_maxColumns = std::max(m_maxColumns, columns);
        }
        // Only whether a block comment stays open matters here.
        const std::string_view l(data + start, end - start);
        size_t pos = 0;
        while (pos < l.size()) {
            if (inComment) {
                const size_t close = l.find("*/", pos);
                if (close == std::string_view::npos)
                    break;
                inComment = false;
                pos = close + 2;
            } else {
                const size_t slash = l.find('/', pos);
                if (slash == std::string_view::npos || slash + 1 >= l.size())
                    break;
                if (l[slash + 1] == '/')
                    break;
                if (l[slash + 1] == '*') {
                    inComment = true;
                    pos = slash + 2;
                } else {
                    pos = slash + 1;
                }
            }
        }
        start = end + 1;
    }
    const Pos last{lineCount() - 1, 0};
    if (last < m_anchor || last < m_cursor)
        m_anchor = m_cursor = Pos{};
    updateScrollBars();
    viewport()->update();
}

std::string_view CodeArea::lineBytes(int i) const
{
    if (i < 0 || i >= lineCount())
        return {};
    const int start = m_lineStart[i];
    int end = i + 1 < lineCount() ? m_lineStart[i + 1] - 1 : static_cast<int>(m_text.size());
    if (i + 1 == lineCount() && end > start && m_text[end - 1] == '\n')
        --end;
    return std::string_view(m_text.data() + start, end - start);
}

QString CodeArea::line(int i) const
{
    const std::string_view b = lineBytes(i);
    return QString::fromUtf8(b.data(), static_cast<qsizetype>(b.size()));
}

QString CodeArea::text() const
{
    std::string_view all(m_text);
    if (!all.empty() && all.back() == '\n')
        all.remove_suffix(1);
    return QString::fromUtf8(all.data(), static_cast<qsizetype>(all.size()));
}

std::vector<int> CodeArea::linesContaining(const std::string& needle) const
{
    std::vector<int> found;
    if (needle.empty())
        return found;
    for (size_t at = m_text.find(needle); at != std::string::npos; at = m_text.find(needle, at + 1)) {
        const int lineIndex = static_cast<int>(std::upper_bound(m_lineStart.begin(), m_lineStart.end(), static_cast<int>(at)) - m_lineStart.begin()) - 1;
        if (found.empty() || found.back() != lineIndex)
            found.push_back(lineIndex);
    }
    return found;
}

void CodeArea::setStale(bool stale)
{
    if (stale == m_stale)
        return;
    m_stale = stale;
    viewport()->update();
}

void CodeArea::setMarkedLines(std::vector<int> lines)
{
    if (lines == m_marked)
        return;
    m_marked = std::move(lines);
    viewport()->update();
}

int CodeArea::gutterWidth() const
{
    const int digits = static_cast<int>(QString::number(std::max(1, lineCount())).size());
    return static_cast<int>(std::ceil((digits + 1) * m_charWidth)) + kMargin;
}

void CodeArea::updateScrollBars()
{
    const int visible = std::max(1, viewport()->height() / std::max(1, m_lineHeight));
    verticalScrollBar()->setPageStep(visible);
    verticalScrollBar()->setSingleStep(1);
    verticalScrollBar()->setRange(0, std::max(0, lineCount() - visible + 1));
    const int width = gutterWidth() + kMargin + static_cast<int>(std::ceil(m_maxColumns * m_charWidth)) + kMargin;
    horizontalScrollBar()->setPageStep(viewport()->width());
    horizontalScrollBar()->setSingleStep(static_cast<int>(m_charWidth * 4));
    horizontalScrollBar()->setRange(0, std::max(0, width - viewport()->width()));
}

void CodeArea::resizeEvent(QResizeEvent* event)
{
    QAbstractScrollArea::resizeEvent(event);
    updateScrollBars();
}

int CodeArea::firstVisibleLine() const { return verticalScrollBar()->value(); }

void CodeArea::scrollToLine(int line, bool center)
{
    const int visible = verticalScrollBar()->pageStep();
    int target = line;
    if (center)
        target = line - visible / 2;
    else if (line >= firstVisibleLine() && line < firstVisibleLine() + visible - 1)
        return;
    verticalScrollBar()->setValue(std::max(0, target));
}

void CodeArea::drawSpan(QPainter& p, const QString& text, int from, int to, double x0, int y, bool italic)
{
    if (to <= from)
        return;
    // Generated C is ASCII: one glyph per column from the table, no shaping. Anything else
    // (a user's comment, a character the font lacks) is drawn as text.
    const GlyphTable& table = italic ? m_italic : m_regular;
    bool glyphs = table.font.isValid();
    for (int i = from; i < to && glyphs; ++i) {
        const ushort c = text[i].unicode();
        glyphs = c < 128 && (c == ' ' || table.glyphs[c] != 0);
    }
    if (!glyphs) {
        QFont f = font();
        f.setItalic(italic);
        p.setFont(f);
        p.drawText(QPointF(x0 + from * m_charWidth, y), text.mid(from, to - from));
        return;
    }
    QList<quint32> indexes;
    QList<QPointF> positions;
    indexes.reserve(to - from);
    positions.reserve(to - from);
    for (int i = from; i < to; ++i) {
        const ushort c = text[i].unicode();
        if (c == ' ')
            continue;
        indexes.append(table.glyphs[c]);
        positions.append(QPointF(x0 + i * m_charWidth, y));
    }
    if (indexes.isEmpty())
        return;
    QGlyphRun run;
    run.setRawFont(table.font);
    run.setGlyphIndexes(indexes);
    run.setPositions(positions);
    p.drawGlyphRun(QPointF(0, 0), run);
}

void CodeArea::paintEvent(QPaintEvent*)
{
    QPainter p(viewport());
    const QPalette pal = palette();
    p.fillRect(viewport()->rect(), pal.color(QPalette::Base));
    p.setFont(font());
    const int gutter = gutterWidth();
    const int first = firstVisibleLine();
    const int count = viewport()->height() / std::max(1, m_lineHeight) + 2;
    const double x0 = gutter + kMargin - horizontalScrollBar()->value();
    const Pos selFrom = std::min(m_anchor, m_cursor);
    const Pos selTo = std::max(m_anchor, m_cursor);
    const bool hasSelection = !(selFrom == selTo);
    const QColor highlightColor(0xff, 0xe0, 0x82);

    p.save();
    p.setClipRect(QRect(gutter, 0, viewport()->width() - gutter, viewport()->height()));
    for (int i = 0; i < count; ++i) {
        const int lineIndex = first + i;
        if (lineIndex >= lineCount())
            break;
        const int y = i * m_lineHeight;
        if (std::binary_search(m_marked.begin(), m_marked.end(), lineIndex))
            p.fillRect(QRect(gutter, y, viewport()->width() - gutter, m_lineHeight), highlightColor);
        const QString text = line(lineIndex);
        if (hasSelection && selFrom.line <= lineIndex && lineIndex <= selTo.line) {
            const int a = lineIndex == selFrom.line ? selFrom.column : 0;
            const int b = lineIndex == selTo.line ? selTo.column : static_cast<int>(text.size()) + 1;
            p.fillRect(QRectF(x0 + a * m_charWidth, y, (b - a) * m_charWidth, m_lineHeight), pal.color(QPalette::Highlight).lighter(160));
        }
        bool inComment = m_commentBefore[lineIndex] != 0;
        const auto spans = CHighlighter::highlight(text, inComment);
        int col = 0;
        auto draw = [&](int from, int to, CHighlighter::Kind kind) {
            if (to <= from)
                return;
            p.setPen(m_stale ? pal.color(QPalette::Disabled, QPalette::Text) : CHighlighter::color(kind));
            drawSpan(p, text, from, to, x0, y + m_ascent, kind == CHighlighter::Kind::Comment);
        };
        for (const auto& s : spans) {
            draw(col, s.start, CHighlighter::Kind::Plain);
            draw(s.start, s.start + s.length, s.kind);
            col = s.start + s.length;
        }
        draw(col, static_cast<int>(text.size()), CHighlighter::Kind::Plain);
    }
    p.restore();

    // Line numbers stay put when the code scrolls sideways.
    p.fillRect(QRect(0, 0, gutter, viewport()->height()), pal.color(QPalette::AlternateBase));
    p.setPen(QColor(0x9e, 0x9e, 0x9e));
    for (int i = 0; i < count; ++i) {
        const int lineIndex = first + i;
        if (lineIndex >= lineCount())
            break;
        const QString number = QString::number(lineIndex + 1);
        drawSpan(p, number, 0, static_cast<int>(number.size()), gutter - kMargin - number.size() * m_charWidth, i * m_lineHeight + m_ascent, false);
    }
}

CodeArea::Pos CodeArea::posAt(const QPoint& pt) const
{
    Pos pos;
    if (lineCount() == 0)
        return pos;
    pos.line = std::clamp(firstVisibleLine() + pt.y() / std::max(1, m_lineHeight), 0, lineCount() - 1);
    const double x = pt.x() - gutterWidth() - kMargin + horizontalScrollBar()->value();
    pos.column = std::clamp(static_cast<int>(std::floor(x / m_charWidth + 0.5)), 0, static_cast<int>(line(pos.line).size()));
    return pos;
}

void CodeArea::mousePressEvent(QMouseEvent* event)
{
    if (event->button() != Qt::LeftButton)
        return QAbstractScrollArea::mousePressEvent(event);
    m_cursor = posAt(event->position().toPoint());
    if (!(event->modifiers() & Qt::ShiftModifier))
        m_anchor = m_cursor;
    viewport()->update();
}

void CodeArea::mouseMoveEvent(QMouseEvent* event)
{
    if (!(event->buttons() & Qt::LeftButton))
        return;
    m_cursor = posAt(event->position().toPoint());
    if (event->position().y() > viewport()->height())
        verticalScrollBar()->setValue(verticalScrollBar()->value() + 1);
    else if (event->position().y() < 0)
        verticalScrollBar()->setValue(verticalScrollBar()->value() - 1);
    viewport()->update();
}

void CodeArea::keyPressEvent(QKeyEvent* event)
{
    if (event == QKeySequence::Copy || event == QKeySequence::SelectAll) {
        for (QAction* a : actions())
            if (a->shortcut().matches(QKeySequence(event->keyCombination())) == QKeySequence::ExactMatch)
                a->trigger();
        return;
    }
    QAbstractScrollArea::keyPressEvent(event);
}

QString CodeArea::selectedText() const
{
    const Pos from = std::min(m_anchor, m_cursor);
    const Pos to = std::max(m_anchor, m_cursor);
    if (from == to || lineCount() == 0)
        return QString();
    QStringList out;
    for (int l = from.line; l <= to.line && l < lineCount(); ++l) {
        const QString t = line(l);
        const int a = l == from.line ? from.column : 0;
        const int b = l == to.line ? to.column : static_cast<int>(t.size());
        out << t.mid(a, b - a);
    }
    return out.join(QLatin1Char('\n'));
}

void CodeArea::selectAll()
{
    if (lineCount() == 0)
        return;
    m_anchor = Pos{};
    m_cursor = Pos{lineCount() - 1, static_cast<int>(line(lineCount() - 1).size())};
    viewport()->update();
}

CodeView::CodeView(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->setSpacing(2);
    auto* top = new QHBoxLayout;
    // The line count changes with most edits: a LiveLabel repaints it without a new layout.
    m_title = new LiveLabel(this);
    m_title->setTextFormat(Qt::RichText);
    m_title->setWordWrap(true);
    m_title->setMinimumWidth(80);
    top->addWidget(m_title, 1);
    m_export = new QPushButton(tr("Export..."), this);
    m_export->setToolTip(tr("Write <kernel>.h and <kernel>.c, as loopscope-cli export does"));
    top->addWidget(m_export);
    layout->addLayout(top);
    m_area = new CodeArea(this);
    layout->addWidget(m_area, 1);
    connect(m_export, &QPushButton::clicked, this, &CodeView::exportRequested);
    setCode(std::string(), QString());
}

QString CodeView::loopIdentifier(const QString& label)
{
    QString id = label;
    for (QChar& c : id)
        if (!c.isLetterOrNumber() && c != QLatin1Char('_'))
            c = QLatin1Char('_');
    return id;
}

QString CodeView::text() const { return m_area->text(); }

void CodeView::setPending(const QString& fileName)
{
    m_pending = true;   // Export stays: it writes the current schedule's C from its nest
    m_area->setStale(true);
    // As short as the usual title, so that it takes the same lines and moves nothing.
    m_title->setText(tr("<b>%1</b> &mdash; generating (below: the previous edit's C)").arg(fileName.toHtmlEscaped()));
}

void CodeView::setCode(const std::string& code, const QString& fileName)
{
    m_pending = false;
    m_area->setStale(false);
    m_export->setEnabled(!code.empty());
    if (code.empty()) {
        m_title->setText(tr("No code: open a kernel first."));
        m_code.clear();
        m_area->setText(std::string());
        return;
    }
    const int lines = countLines(code);
    if (codegen::codeViewShowsNoCode(code))
        m_titleText = tr("<b>%1</b> &mdash; no C: Export writes nothing for this schedule (why below)").arg(fileName.toHtmlEscaped());
    else
        m_titleText = (lines == 1 ? tr("<b>%1</b> &mdash; %2 line of C99 (what Export writes)") : tr("<b>%1</b> &mdash; %2 lines of C99 (what Export writes)"))
                      .arg(fileName.toHtmlEscaped())
                      .arg(lines);
    if (code == m_code) {
        updateTitle();
        return;
    }
    const bool fresh = m_code.empty() || fileName != m_fileName;
    m_code = code;
    m_fileName = fileName;
    m_area->setText(code);
    if (fresh) {
        // Start at the kernel function, past the portable boilerplate.
        for (int i = 0; i < m_area->lineCount(); ++i) {
            const QString l = m_area->line(i);
            if (l.startsWith(QLatin1String("void ")) && l.contains(QLatin1Char('('))) {
                m_area->verticalScrollBar()->setValue(i);
                break;
            }
        }
    }
    applyHighlight(false);
}

void CodeView::setHighlightedLoop(const QString& label)
{
    if (label == m_loop)
        return;
    m_loop = label;
    applyHighlight(true);
}

void CodeView::applyHighlight(bool scroll)
{
    std::vector<int> marked;
    if (!m_loop.isEmpty())
        marked = m_area->linesContaining(QStringLiteral("for (int %1 = ").arg(loopIdentifier(m_loop)).toStdString());
    m_area->setMarkedLines(marked);
    if (scroll && !marked.empty())
        m_area->scrollToLine(marked.front(), true);
    // An unrolled loop (or one of a single iteration) has no for statement of its own.
    m_loopWithoutFor = !m_loop.isEmpty() && marked.empty();
    updateTitle();
}

void CodeView::updateTitle()
{
    if (m_code.empty())
        return;
    m_title->setText(m_loopWithoutFor ? m_titleText + tr("<br><small>%1 has no <tt>for</tt> of its own in the C: it is unrolled or runs once.</small>")
                                                          .arg(m_loop.toHtmlEscaped())
                                      : m_titleText);
}

} // namespace loopscope::ui
