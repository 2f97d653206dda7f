// Axis ticks shared by the charts: round intervals, the label format they need, and a log axis
// that always has labelled ticks.
#pragma once

#include <QString>

QT_BEGIN_NAMESPACE
class QLogValueAxis;
QT_END_NAMESPACE

namespace loopscope::ui {

/// A round tick interval (1, 2 or 5 times a power of ten) giving about `ticks` ticks over `range`.
double niceInterval(double range, int ticks);
/// A printf format showing an interval's significant digits ("%.0f" for 1, "%.1f" for 0.5).
QString labelFormat(double interval);
/// Fits a log axis to values from `lo` to `hi` (> 0) with a margin: powers of ten when they
/// span a decade, else a smaller base, so that the axis has labelled ticks (a log axis labels
/// only the powers of its base).
void fitLogAxis(QLogValueAxis* axis, double lo, double hi, double margin);

} // namespace loopscope::ui
