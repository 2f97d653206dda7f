// What a search point changes in a schedule and what each change buys: the steps it drops
// from the current trace, and the steps it adds, each with the figures before and after it.
#pragma once

#include "search/evaluator.h"

#include <string>
#include <vector>

namespace loopscope::search {

struct StepChange {
    sched::Step step;
    bool added = true;          ///< false: a step of the current schedule the point does not keep
    Figures before;             ///< added steps: the figures with the steps before it
    Figures after;              ///< added steps: the figures once it is applied
    bool analysed = false;      ///< before/after are known (an added step that applied)
};

struct PointExplanation {
    int commonSteps = 0;        ///< leading steps both traces share
    std::vector<StepChange> changes;  ///< removed steps first, then added ones in order
    Figures current;            ///< figures of the current schedule
    Figures point;              ///< figures of the point
};

/// Compares `current` (a schedule) with `trace` (a search point's steps, on the same kernel
/// and target). Each added step is applied to the program of the steps before it, which is
/// lowered and analysed: one analysis per step.
PointExplanation explainPoint(const sched::Program& current, const std::vector<sched::Step>& trace);

/// "split oh by 4: cycles -12.5 %, on-chip +2.3 KiB, energy -8.0 %".
std::string describeChange(const StepChange& c);

} // namespace loopscope::search
