// A Pareto front over (cycles, peak on-chip bytes, energy), and optionally DRAM bytes or
// predicted instructions: no point in it is dominated by another. Insertion order decides between equal figures (the first stays), so a front built
// from the same points in the same order is the same.
#pragma once

#include "search/evaluator.h"

#include <cstdint>
#include <vector>

namespace loopscope::search {

/// A schedule the search found.
struct SearchPoint {
    int64_t index = -1;                 ///< position in the search's candidate sequence
    Candidate candidate;
    std::vector<sched::Step> trace;     ///< the whole schedule, pinned steps first
    Figures figures;
};

/// A figure the front minimises beside cycles, on-chip bytes and energy.
enum class ExtraDimension { None, Dram, Instructions };

/// a is at least as good as b in all three objectives (and `extra`) and better in one.
bool dominates(const Figures& a, const Figures& b, ExtraDimension extra = ExtraDimension::None);

class ParetoFront {
public:
    explicit ParetoFront(ExtraDimension extra = ExtraDimension::None) : m_extra(extra) {}
    ExtraDimension extra() const { return m_extra; }
    /// Adds `p` unless a point dominates it or has the same figures; removes the points it
    /// dominates. Returns whether it was added.
    bool insert(const SearchPoint& p);
    const std::vector<SearchPoint>& points() const { return m_points; }
    size_t size() const { return m_points.size(); }
    bool empty() const { return m_points.empty(); }
    /// The points sorted by cycles, then on-chip bytes, then energy.
    std::vector<SearchPoint> sorted() const;

private:
    ExtraDimension m_extra = ExtraDimension::None;
    std::vector<SearchPoint> m_points;
};

} // namespace loopscope::search
