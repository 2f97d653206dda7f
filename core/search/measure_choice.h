// Which points of a front to measure on the target (`search --measure-top N`): the best for
// the objective, one per loop structure before a second of the same structure.
#pragma once

#include "search/search.h"

#include <string>
#include <vector>

namespace loopscope::search {

/// A point's loop structure: its steps with the tile factors left out ("split i", "reorder ...",
/// "cache_read A into SRAM at j.outer"). Points that differ only in factors share it.
std::string structureKey(const std::vector<sched::Step>& trace);

/// Up to `n` indices into `front`, best first for `objective`: first the best point of each
/// structure in the order of their best points, then, if fewer structures than `n`, the next best
/// points of any structure. The instruction model's remaining errors belong to structures (a
/// register block GCC spills, a loop it keeps), so measuring several factor variants of one
/// structure tells little that measuring one does not.
std::vector<int> pointsToMeasure(const std::vector<SearchPoint>& front, Objective objective, int n);

} // namespace loopscope::search
