// LiveLabel: text laid out once per text and width (QTextLayout), a new layout of the window
// only when the label's size changes.
#include "live_label.h"

#include <QEvent>
#include <QPainter>
#include <QTextBlock>
#include <QTextDocument>

#include <algorithm>
#include <cmath>

namespace loopscope::ui {

namespace {
/// Widths a wrapped label is asked about while a dock is resized: keep a few.
constexpr size_t kMaxLayouts = 6;
} // namespace

LiveLabel::LiveLabel(QWidget* parent) : QWidget(parent)
{
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Preferred);
}

LiveLabel::LiveLabel(const QString& text, QWidget* parent) : LiveLabel(parent)
{
    m_text = text;
    setAccessibleName(text);
}

void LiveLabel::parse() const
{
    if (m_parsed)
        return;
    m_parsed = true;
    m_formats.clear();
    if (m_format != Qt::RichText) {
        m_plain = m_text;
        return;
    }
    // The document only reads the markup; it is never laid out. Paragraphs become line breaks.
    QTextDocument doc;
    doc.setDefaultFont(font());
    doc.setHtml(m_text);
    m_plain.clear();
    for (QTextBlock b = doc.begin(); b.isValid(); b = b.next()) {
        if (b != doc.begin())
            m_plain += QChar::LineSeparator;
        for (auto it = b.begin(); !it.atEnd(); ++it) {
            const QTextFragment f = it.fragment();
            QTextCharFormat format = f.charFormat();
            // <small> and the like are relative sizes the document resolves: make them points.
            // (Qt scales HTML font sizes 1 to 7 by these factors; <small> is 2.)
            if (format.hasProperty(QTextFormat::FontSizeAdjustment)) {
                static const double kScale[] = {0.7, 0.8, 1.0, 1.2, 1.5, 2.0, 2.4};
                const int size = std::clamp(3 + format.intProperty(QTextFormat::FontSizeAdjustment), 1, 7);
                format.clearProperty(QTextFormat::FontSizeAdjustment);
                format.setFontPointSize(font().pointSizeF() * kScale[size - 1]);
            }
            m_formats.append({static_cast<int>(m_plain.size()), f.length(), format});
            m_plain += f.text();
        }
    }
}

const LiveLabel::Layout& LiveLabel::layoutAt(int width) const
{
    auto it = m_layouts.find(width);
    if (it != m_layouts.end())
        return it->second;
    if (m_layouts.size() >= kMaxLayouts)
        m_layouts.clear();
    parse();
    ++m_layoutsMade;
    Layout l;
    l.layout = std::make_unique<QTextLayout>(m_plain, font());
    QTextOption option;
    option.setAlignment(width < 0 ? Qt::AlignLeft : m_alignment & Qt::AlignHorizontal_Mask);
    option.setWrapMode(width < 0 ? QTextOption::NoWrap : QTextOption::WordWrap);
    l.layout->setTextOption(option);
    l.layout->setFormats(m_formats);
    l.layout->setCacheEnabled(true);
    const double lineWidth = width < 0 ? 1e6 : std::max(1, width);
    double y = 0;
    double widest = 0;
    l.layout->beginLayout();
    for (QTextLine line = l.layout->createLine(); line.isValid(); line = l.layout->createLine()) {
        line.setLineWidth(lineWidth);
        line.setPosition(QPointF(0, y));
        y += line.height();
        widest = std::max(widest, line.naturalTextWidth());
    }
    l.layout->endLayout();
    l.size = QSizeF(width < 0 ? widest : std::max(1, width), y);
    return m_layouts.emplace(width, std::move(l)).first->second;
}

void LiveLabel::replaceText(const QString& text)
{
    if (!m_previous.text.isNull() && text == m_previous.text) {
        std::swap(m_previous.layouts, m_layouts);
        std::swap(m_previous.parsed, m_parsed);
        std::swap(m_previous.plain, m_plain);
        std::swap(m_previous.formats, m_formats);
        m_previous.text = m_text;
    } else {
        m_previous.text = m_text;
        m_previous.layouts = std::move(m_layouts);
        m_previous.parsed = m_parsed;
        m_previous.plain = m_plain;
        m_previous.formats = m_formats;
        m_layouts.clear();
        m_parsed = false;
    }
    m_text = text;
    if (m_text.isEmpty() && !m_growOnly)
        m_tallest.clear();
}

void LiveLabel::invalidateLayouts()
{
    m_previous = Previous();
    m_layouts.clear();
    m_parsed = false;
    if (m_text.isEmpty() && !m_growOnly)
        m_tallest.clear();
}

QSize LiveLabel::naturalSize() const
{
    if (m_text.isEmpty())
        return QSize(0, fontMetrics().height());
    const QSizeF s = layoutAt(-1).size;
    return QSize(static_cast<int>(std::ceil(s.width())), std::max(fontMetrics().height(), static_cast<int>(std::ceil(s.height()))));
}

int LiveLabel::textWidth() const
{
    return std::max(1, contentsRect().width());
}

int LiveLabel::hintWidth() const
{
    const int w = naturalSize().width();
    return m_wrap ? std::min(w, fontMetrics().averageCharWidth() * kWrapChars) : w;   // wrapped: a short paragraph, then taller
}

QSize LiveLabel::sizeHint() const
{
    const QMargins m = contentsMargins();
    int w = m_wrap ? wrappedWidthHint() : hintWidth();
    if (m_growOnly)
        w = std::max(w, m_grownWidth);
    const int h = m_wrap ? heightForWidth(w + m.left() + m.right()) - m.top() - m.bottom() : naturalSize().height();
    return QSize(w + m.left() + m.right(), h + m.top() + m.bottom());
}

QSize LiveLabel::minimumSizeHint() const
{
    if (!m_wrap)
        return sizeHint();
    const QMargins m = contentsMargins();
    const int w = std::min(naturalSize().width(), fontMetrics().averageCharWidth() * 12);
    return QSize(w + m.left() + m.right(), fontMetrics().height() + m.top() + m.bottom());
}

int LiveLabel::heightForWidth(int width) const
{
    const QMargins m = contentsMargins();
    if (!m_wrap || m_text.isEmpty())
        return naturalSize().height() + m.top() + m.bottom();
    const int inner = std::max(1, width - m.left() - m.right());
    const QSizeF s = layoutAt(inner).size;
    const int h = std::max(fontMetrics().height(), static_cast<int>(std::ceil(s.height()))) + m.top() + m.bottom();
    if (!m_growOnly)
        return h;
    // A caption that wraps onto one line more, then one line less, would lay the panel out
    // on both edits: at a given width its height only grows.
    if (m_tallest.size() > 64)
        m_tallest.clear();
    int& tallest = m_tallest[width];
    tallest = std::max(tallest, h);
    return tallest;
}

int LiveLabel::wrappedWidthHint() const
{
    // hintWidth() is at most the cap: a grown width at the cap needs no one-line layout.
    const int cap = fontMetrics().averageCharWidth() * kWrapChars;
    return m_grownWidth >= cap ? m_grownWidth : std::max(hintWidth(), m_grownWidth);
}

void LiveLabel::setText(const QString& text)
{
    if (text == m_text)
        return;
    setAccessibleName(text);   // what a screen reader reads, as for a QLabel
    // The width hint grows with every text shown (the one it was constructed with too).
    auto grow = [this] {
        if (m_text.isEmpty()) {
            if (!m_growOnly)
                m_grownWidth = 0;
        } else {
            m_grownWidth = m_wrap ? wrappedWidthHint() : std::max(m_grownWidth, hintWidth());
        }
    };
    grow();
    if (!isVisible()) {
        // Nothing to compare with on screen: the next layout measures it anyway.
        replaceText(text);
        grow();
        ++m_geometryUpdates;
        updateGeometry();
        return;
    }
    bool changed = false;
    if (m_wrap) {
        // A wrapped label is laid out by its height at the width it has: compare that and the
        // width hint only (one layout of the new text, at its width, which the paint reuses;
        // its height at the hint width is measured when a layout asks).
        const int widthBefore = wrappedWidthHint();
        const int heightBefore = heightForWidth(width());
        replaceText(text);
        grow();
        changed = wrappedWidthHint() != widthBefore || heightForWidth(width()) != heightBefore;
    } else {
        const QSize hintBefore = sizeHint();
        replaceText(text);
        grow();
        changed = sizeHint() != hintBefore;
    }
    if (changed) {
        ++m_geometryUpdates;
        updateGeometry();
    }
    update();
}

void LiveLabel::setTextFormat(Qt::TextFormat format)
{
    if (format == m_format)
        return;
    m_format = format;
    invalidateLayouts();
    ++m_geometryUpdates;
    updateGeometry();
    update();
}

void LiveLabel::setWordWrap(bool wrap)
{
    if (wrap == m_wrap)
        return;
    m_wrap = wrap;
    QSizePolicy policy = sizePolicy();
    policy.setHeightForWidth(wrap);
    setSizePolicy(policy);
    invalidateLayouts();
    updateGeometry();
    update();
}

void LiveLabel::setAlignment(Qt::Alignment alignment)
{
    if (alignment == m_alignment)
        return;
    m_alignment = alignment;
    invalidateLayouts();
    update();
}

void LiveLabel::setColor(const QColor& color)
{
    if (color == m_color)
        return;
    m_color = color;
    update();
}

void LiveLabel::paintEvent(QPaintEvent*)
{
    if (m_text.isEmpty())
        return;
    QPainter p(this);
    p.setFont(font());
    p.setPen(m_color.isValid() ? m_color : palette().color(foregroundRole()));
    const QRect r = contentsRect();
    const Layout& l = layoutAt(m_wrap ? textWidth() : -1);
    double x = r.left();
    if (!m_wrap) {
        if (m_alignment & Qt::AlignRight)
            x = r.right() + 1 - l.size.width();
        else if (m_alignment & Qt::AlignHCenter)
            x = r.left() + (r.width() - l.size.width()) / 2;
    }
    const double y = r.top() + std::max(0.0, (r.height() - l.size.height()) / 2);
    p.setClipRect(r);
    l.layout->draw(&p, QPointF(x, y));
}

void LiveLabel::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::FontChange || event->type() == QEvent::StyleChange) {
        m_tallest.clear();
        invalidateLayouts();
        updateGeometry();
    }
    QWidget::changeEvent(event);
}

void LiveLabel::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    update();
}

} // namespace loopscope::ui
