// Differences between two traces (which steps were added, removed or changed) and between two
// printed loop nests (which lines differ), for `workspace compare` and the app's compare view.
#pragma once

#include "sched/step.h"

#include <string>
#include <vector>

namespace loopscope::store {

enum class ChangeKind { Same, Added, Removed, Changed };
const char* changeKindName(ChangeKind k);

/// One step of the difference from trace A to trace B.
struct StepChange {
    ChangeKind kind = ChangeKind::Same;
    int indexA = -1;      ///< 0-based step in A (-1 for Added)
    int indexB = -1;      ///< 0-based step in B (-1 for Removed)
    std::string before;   ///< describe() of A's step ("" for Added)
    std::string after;    ///< describe() of B's step ("" for Removed)
};

/// The steps of A and B aligned by a longest common subsequence; a removed step followed by
/// an added step of the same primitive on the same loops or tensor is one Changed step.
std::vector<StepChange> diffSteps(const std::vector<sched::Step>& a, const std::vector<sched::Step>& b);

/// One line of a two-column line difference.
struct LineChange {
    ChangeKind kind = ChangeKind::Same;   ///< Same, Removed (only in A) or Added (only in B)
    int lineA = -1;       ///< 0-based line in A
    int lineB = -1;
    std::string text;
};

/// Lines of A and B aligned by a longest common subsequence.
std::vector<LineChange> diffLines(const std::vector<std::string>& a, const std::vector<std::string>& b);
/// Splits a text into lines (without the newlines).
std::vector<std::string> splitLines(const std::string& text);

} // namespace loopscope::store
