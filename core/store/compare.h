// Two variants side by side: the figures both have, with B/A ratios, for `workspace compare`
// and the app's Compare view.
#pragma once

#include "store/records.h"

#include <optional>
#include <string>
#include <vector>

namespace loopscope::store {

/// One figure of two variants.
struct FigureComparison {
    std::string name;               ///< "cycles", "SRAM peak bytes", ...
    double a = 0;
    double b = 0;
    std::optional<double> ratio;    ///< b / a (none when a is 0)
    bool integral = true;           ///< a count (printed without decimals)
};

/// The figures both variants have (none when one has no figures): cycles, compute and
/// transfer cycles, latency, energy, predicted instructions, per level the peak occupancy
/// and the traffic, and the newest measured instructions. Lower is better for every one.
std::vector<FigureComparison> compareFigures(const Variant& a, const Variant& b);

/// The newest measured instruction count of a variant, if any.
std::optional<int64_t> measuredInstructions(const Variant& v);

} // namespace loopscope::store
