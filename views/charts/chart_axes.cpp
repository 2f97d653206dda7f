// Axis ticks shared by the charts.
#include "charts/chart_axes.h"

#include <QLogValueAxis>

#include <algorithm>
#include <cmath>

namespace loopscope::ui {

double niceInterval(double range, int ticks)
{
    if (range <= 0)
        return 1;
    const double raw = range / ticks;
    const double p = std::pow(10.0, std::floor(std::log10(raw)));
    for (double m : {1.0, 2.0, 5.0})
        if (m * p >= raw)
            return m * p;
    return 10 * p;
}

QString labelFormat(double interval)
{
    const int decimals = std::max(0, static_cast<int>(std::ceil(-std::log10(interval) - 1e-9)));
    return QStringLiteral("%.%1f").arg(decimals);
}

void fitLogAxis(QLogValueAxis* axis, double lo, double hi, double margin)
{
    lo /= margin;
    hi *= margin;
    // Labels sit at the powers of the base, and a range holds at least three whatever where it
    // starts: base 10 from three decades (from one decade it could show a single label,
    // "1e+06"), 4 from 64x, 2 from 8x, below that three steps across the range.
    const double r = hi / lo;
    const double base = r >= 1000 ? 10 : r >= 64 ? 4 : r >= 8 ? 2 : std::max(1.001, std::cbrt(r));
    axis->setBase(base);
    axis->setMinorTickCount(base == 10 ? 8 : 0);  // 2, 3, ... 9 times each power of ten
    axis->setRange(lo, hi);
}

} // namespace loopscope::ui
