// A Pareto front over (cycles, peak on-chip bytes, energy): no point in it is dominated by
// another. Insertion order decides between equal figures (the first stays), so a front built
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

/// a is at least as good as b in all three objectives and better in one.
bool dominates(const Figures& a, const Figures& b);

class ParetoFront {
public:
    /// Adds `p` unless a point dominates it or has the same figures; removes the points it
    /// dominates. Returns whether it was added.
    bool insert(const SearchPoint& p);
    const std::vector<SearchPoint>& points() const { return m_points; }
    size_t size() const { return m_points.size(); }
    bool empty() const { return m_points.empty(); }
    /// The points sorted by cycles, then on-chip bytes, then energy.
    std::vector<SearchPoint> sorted() const;

private:
    std::vector<SearchPoint> m_points;
};

} // namespace loopscope::search
