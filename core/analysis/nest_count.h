// Factors of the exact execution counts over a loop nest (lattice_count.h): a guard that holds
// or not at a point, a runtime count of elements. Shared by the traffic and instruction models.
#pragma once

#include "analysis/lattice_count.h"
#include "lower/loop_nest.h"

#include <array>
#include <span>
#include <vector>

namespace loopscope::analysis {

/// 1 where `cond` holds, 0 elsewhere.
Factor condFactor(const lower::IndexPool& index, const lower::Cond& cond);
/// max(0, e) at each point.
Factor countFactor(const lower::IndexPool& index, lower::IndexId e);
/// 1 where e > 0, 0 elsewhere.
Factor nonEmptyFactor(const lower::IndexPool& index, lower::IndexId e);
/// Appends the slots `e` depends on to `out`, sorted and without repetitions.
void addSlots(const lower::IndexPool& index, lower::IndexId e, std::vector<int>& out);
/// The same for every expression of `ids` (kNoIndex is skipped): the counters an index vector or
/// a condition's expression and bounds read.
void addSlots(const lower::IndexPool& index, std::span<const lower::IndexId> ids, std::vector<int>& out);
/// The expression and bounds of a condition, for addSlots.
inline std::array<lower::IndexId, 3> condExprs(const lower::Cond& c) { return {c.expr, c.lo, c.hi}; }

} // namespace loopscope::analysis
