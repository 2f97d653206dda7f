// Charts drawn with QPainter for the figures that change on every edit (the Cost panel): a
// stacked horizontal bar chart and a line chart of the session's history. Qt Charts keeps a
// QGraphicsScene per chart and relays out its axis and legend items when a value changes,
// which cost about half of what an edit cost the window; these repaint and never relay out.
#pragma once

#include <QColor>
#include <QPixmap>
#include <QStringList>
#include <QWidget>

#include <vector>

namespace loopscope::ui {

/// A value axis from 0: grows as soon as a value passes its end and shrinks only when the
/// largest value falls below a third of it, so that its labels do not jump on every edit.
class ValueScale {
public:
    /// Fits the scale to a largest value; returns whether the range changed.
    bool fit(double maxValue);
    double max() const { return m_max; }
    double interval() const { return m_interval; }
    /// The tick values 0, interval, ... max.
    std::vector<double> ticks() const;
    /// A tick's label with the digits the interval needs.
    QString label(double value) const;

private:
    double m_max = 1;
    double m_interval = 0.2;
};

/// Base of the painted charts: a bold title, a legend under the plot, a value axis.
class PaintedChart : public QWidget {
    Q_OBJECT
public:
    struct Series {
        QString name;
        QColor color;
        bool operator==(const Series& o) const { return name == o.name && color == o.color; }
    };
    explicit PaintedChart(QWidget* parent = nullptr);

    /// Repaints when the title changes (the layout never changes).
    void setTitle(const QString& title);
    QString title() const { return m_title; }
    /// The legend's entries (one per series), in order.
    void setSeries(const std::vector<Series>& series);
    const std::vector<Series>& series() const { return m_series; }
    /// How many times the chart was painted (for tests of what an edit repaints).
    int paintCount() const { return m_paints; }

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    /// The rectangle left for the plot and its axis labels once the title and legend are drawn.
    QRect drawFrame(QPainter& painter);
    /// Vertical grid lines and labels of `scale` along the bottom of `plot`.
    void drawValueAxisBelow(QPainter& painter, const QRect& plot, const ValueScale& scale) const;
    QFont smallFont() const;
    void countPaint() { ++m_paints; }

    int m_minHeight = 150;

private:
    QString m_title;
    std::vector<Series> m_series;
    int m_paints = 0;
};

/// Horizontal stacked bars: one bar per category (listed top to bottom), one segment per series.
class StackedBarChart : public PaintedChart {
    Q_OBJECT
public:
    explicit StackedBarChart(QWidget* parent = nullptr);

    /// The bars' names, top to bottom.
    void setCategories(const QStringList& categories);
    QStringList categories() const { return m_categories; }
    /// values[series][category] (missing entries count as 0); repaints only on a change.
    void setValues(const std::vector<std::vector<double>>& values);
    double value(int series, int category) const;
    /// tips[series][category], shown when the pointer rests on that segment.
    void setToolTips(const std::vector<QStringList>& tips) { m_tips = tips; }
    /// The tooltip of the segment at a point of the widget ("" when none).
    QString toolTipAt(const QPoint& pos) const;
    /// The value axis (fitted on setValues).
    const ValueScale& scale() const { return m_scale; }
    /// The smallest height that shows every bar (the constructor's default is 150).
    void setMinimumChartHeight(int height);

protected:
    void paintEvent(QPaintEvent* event) override;
    bool event(QEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    /// The rectangle of one segment in the last painted frame.
    QRect segmentRect(int series, int category) const;
    /// Draws what changes only with the title, legend, categories, scale or size (the text)
    /// into m_layer, and sets m_plot.
    void paintLayer();

    QPixmap m_layer;       ///< title, legend, category and axis labels, grid
    QString m_layerKey;    ///< what m_layer was drawn for
    QStringList m_categories;
    std::vector<std::vector<double>> m_values;
    std::vector<QStringList> m_tips;
    ValueScale m_scale;
    QRect m_plot;         ///< the plot of the last paint
};

/// The history of a figure over the session's edits: an estimate and its bound per edit.
class HistoryChart : public PaintedChart {
    Q_OBJECT
public:
    explicit HistoryChart(QWidget* parent = nullptr);

    /// The points, oldest first (x = 1, 2, ...); repaints only on a change.
    void setPoints(const std::vector<double>& estimate, const std::vector<double>& bound);
    const std::vector<double>& estimate() const { return m_estimate; }
    /// The last x the axis shows: room for ten edits, growing ten at a time.
    int room() const;
    const ValueScale& scale() const { return m_scale; }

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    std::vector<double> m_estimate;
    std::vector<double> m_bound;
    ValueScale m_scale;
};

} // namespace loopscope::ui
