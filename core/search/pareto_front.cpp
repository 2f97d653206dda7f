// Pareto front maintenance.
#include "search/pareto_front.h"

#include <algorithm>
#include <tuple>

namespace loopscope::search {

namespace {

int64_t extraValue(const Figures& f, ExtraDimension d)
{
    return d == ExtraDimension::Dram ? f.dramBytes : d == ExtraDimension::Instructions ? f.instructions : 0;
}

} // namespace

bool dominates(const Figures& a, const Figures& b, ExtraDimension extra)
{
    const int64_t ea = extraValue(a, extra), eb = extraValue(b, extra);
    bool noWorse = a.cycles <= b.cycles && a.onChipBytes <= b.onChipBytes && a.energyUj <= b.energyUj && ea <= eb;
    bool better = a.cycles < b.cycles || a.onChipBytes < b.onChipBytes || a.energyUj < b.energyUj || ea < eb;
    return noWorse && better;
}

bool ParetoFront::insert(const SearchPoint& p)
{
    for (const auto& q : m_points)
        if (dominates(q.figures, p.figures, m_extra)
            || (q.figures.cycles == p.figures.cycles && q.figures.onChipBytes == p.figures.onChipBytes
                && q.figures.energyUj == p.figures.energyUj && extraValue(q.figures, m_extra) == extraValue(p.figures, m_extra)))
            return false;
    std::erase_if(m_points, [&](const SearchPoint& q) { return dominates(p.figures, q.figures, m_extra); });
    m_points.push_back(p);
    return true;
}

std::vector<SearchPoint> ParetoFront::sorted() const
{
    std::vector<SearchPoint> out = m_points;
    std::sort(out.begin(), out.end(), [](const SearchPoint& a, const SearchPoint& b) {
        return std::tie(a.figures.cycles, a.figures.onChipBytes, a.figures.energyUj, a.index)
               < std::tie(b.figures.cycles, b.figures.onChipBytes, b.figures.energyUj, b.index);
    });
    return out;
}

} // namespace loopscope::search
