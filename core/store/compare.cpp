// The figures of two variants side by side.
#include "store/compare.h"

namespace loopscope::store {

std::optional<int64_t> measuredInstructions(const Variant& v)
{
    if (v.measurements.empty())
        return std::nullopt;
    return v.measurements.front().instructions;
}

std::vector<FigureComparison> compareFigures(const Variant& a, const Variant& b)
{
    std::vector<FigureComparison> rows;
    auto add = [&rows](std::string name, double x, double y, bool integral) {
        rows.push_back({std::move(name), x, y, x != 0 ? std::optional<double>(y / x) : std::nullopt, integral});
    };
    if (a.figures && b.figures) {
        const Figures& fa = *a.figures;
        const Figures& fb = *b.figures;
        add("cycles", double(fa.cycles), double(fb.cycles), true);
        add("compute cycles", double(fa.computeCycles), double(fb.computeCycles), true);
        add("transfer cycles", double(fa.transferCycles), double(fb.transferCycles), true);
        add("latency ms", fa.latencyMs, fb.latencyMs, false);
        add("energy uJ", fa.energyUj, fb.energyUj, false);
        if (fa.predictedInstructions && fb.predictedInstructions)
            add("predicted instructions", double(*fa.predictedInstructions), double(*fb.predictedInstructions), true);
        for (const auto& la : fa.levels)
            for (const auto& lb : fb.levels)
                if (la.name == lb.name) {
                    add(la.name + " peak bytes", double(la.peakBytes), double(lb.peakBytes), true);
                    add(la.name + " traffic bytes", double(la.readBytes + la.writeBytes), double(lb.readBytes + lb.writeBytes), true);
                }
    }
    if (auto ma = measuredInstructions(a), mb = measuredInstructions(b); ma && mb)
        add("measured instructions", double(*ma), double(*mb), true);
    return rows;
}

} // namespace loopscope::store
