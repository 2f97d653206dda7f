// Memory view: one bar per memory level of the target, capacity to scale, stacked by buffer
// and coloured by tensor; double buffers visibly doubled; overflow in red with the amount.
#pragma once

#include "snapshot.h"
#include "static_text_cache.h"

#include <QWidget>

#include <vector>

namespace loopscope::ui {

class MemoryView : public QWidget {
    Q_OBJECT
public:
    explicit MemoryView(QWidget* parent = nullptr);
    /// Redraws from a snapshot (an empty snapshot shows a placeholder text).
    void setSnapshot(const Snapshot& snapshot);
    /// Emphasises the buffers placed at this loop ("" clears).
    void setHighlightedLoop(const QString& loop);

    /// The colour of a tensor, the same in every view and for every snapshot.
    static QColor tensorColor(const QString& tensor);
    /// The colour of a tensor of a kernel: distinct for every tensor of the kernel (by its
    /// position among them), the name's colour for a tensor it does not have.
    static QColor tensorColor(const ir::Kernel* kernel, const QString& tensor);

    // Queries on what is drawn at the current size (for tests and accessibility).
    /// "+320 KiB over" when the level holds more than its capacity, else "".
    QString overflowText(const QString& level) const;
    /// The used/capacity label of a level ("SRAM  8 KiB of 512 KiB (1.6%)"), "" if unknown.
    QString levelText(const QString& level) const;
    /// Name of the buffer drawn at a point ("" when none).
    QString bufferAt(const QPointF& pos) const;
    /// The tooltip shown at a point ("" when none).
    QString toolTipAt(const QPointF& pos) const;
    /// Bank boundaries drawn in a level's bar (row-addressed levels), left to right.
    int bankLines(const QString& level) const;
    /// The label of a buffer of a level ("A_scratchpad 16 rows"), drawn inside it where it
    /// fits; "" when the buffer is not drawn.
    QString bufferLabel(const QString& level, const QString& buffer) const;
    /// Where a buffer of a level is drawn: in the magnified strip when its level has one
    /// (small contents of a large level), else in the bar; empty when it is not drawn.
    QRectF bufferRect(const QString& level, const QString& buffer) const;

    /// Where the legend ("tensors: ...") is drawn; empty when there is none.
    QRectF legendRect() const;

    QSize sizeHint() const override;
    /// As tall as everything drawn at the current width, down to the legend: in its dock's
    /// scroll area a tall picture (three levels with magnified strips, on Gemmini) scrolls
    /// instead of being cut off at the dock's edge.
    QSize minimumSizeHint() const override;

signals:
    /// The user clicked a buffer: the trace step that placed it (-1 if none).
    void stepActivated(int step);

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    bool event(QEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;

private:
    struct Segment {
        int level = 0;
        int buffer = 0;             ///< index into LevelReport::buffers
        QRectF rect;
        QRectF zoomRect;            ///< in the magnified strip under the bar, when there is one
        QString tensor;
        QString name;
        QString label;              ///< drawn inside when it fits
        QString toolTip;
        int step = -1;
        bool doubleBuffered = false;
        bool highlighted = false;
        bool rows = false;          ///< placed by rows (a row-addressed level of a PE array)
        bool operator==(const Segment&) const = default;
    };
    struct LevelRow {
        QString name;
        QString text;               ///< used/capacity label
        QString overflow;           ///< "+40 KiB over" or ""
        QRectF titleRect;
        QRectF bar;                 ///< the whole drawn extent (capacity plus overflow)
        qreal capacityX = 0;        ///< x of the capacity line
        bool over = false;
        QRectF zoom;                ///< the used part magnified (empty: not needed)
        qreal usedX = 0;            ///< x where the used part ends in the bar
        std::vector<qreal> bankX;   ///< row-addressed level: x of each boundary between banks
        std::vector<qreal> zoomBankX;  ///< the same in the magnified strip
        bool operator==(const LevelRow&) const = default;
    };

    void relayout();
    /// Lays the picture out again and repaints it if anything drawn changed (most edits move
    /// some buffers; an edit that changes no size or placement repaints nothing).
    void relayoutAndUpdate();
    /// A row-addressed level (Gemmini's scratchpad and accumulator, with an array report): the
    /// buffers at the rows they occupy, the banks marked; false when `level` is not one.
    bool layoutRows(int level, LevelRow& row, qreal left, qreal fullWidth, qreal& y);
    int stepOfBuffer(const QString& name, int level) const;
    QString describeBuffer(int level, int buffer, int step) const;
    bool loopMatches(const QString& loop) const;
    const Segment* segmentAt(const QPointF& pos) const;
    const LevelRow* row(const QString& level) const;

    Snapshot m_snapshot;
    QString m_highlight;
    QString m_placeholder;
    std::vector<LevelRow> m_rows;
    std::vector<Segment> m_segments;
    std::vector<QString> m_legend;  ///< tensors shown, in order of first appearance
    qreal m_legendY = 0;
    int m_contentHeight = 0;   ///< down to the legend's bottom and a margin (0: a placeholder)
    /// Sets m_contentHeight; a change (levels, magnified strips) lays the dock out again.
    void setContentHeight(int height);
    /// Shaped texts of the labels, titles and legend, which most repaints draw again unchanged.
    StaticTextCache m_texts;
    StaticTextCache m_boldTexts;
    StaticTextCache m_smallTexts;
};

} // namespace loopscope::ui
