// The issue model: how the instructions the instruction model predicts become cycles on a CPU
// target whose file states its pipeline (`issue:`, hw::IssueModel). An estimate — no board is
// here and the emulator counts no cycles — built from the units each instruction occupies, the
// issue width, and the stalls of taken branches, mispredicted loop exits and loads.
#pragma once

#include "analysis/instructions.h"
#include "hw/target.h"

#include <array>
#include <vector>

namespace loopscope::analysis {

/// The units of a core an instruction occupies.
enum class IssueUnit { Alu, Memory, Mac, Fpu, Branch, Count };

inline constexpr int kIssueUnitCount = static_cast<int>(IssueUnit::Count);

/// Cycles of a piece of code on a target, and what makes them.
struct IssueCycles {
    double cycles = 0;        ///< issue + taken + exits + loadUse
    double issue = 0;         ///< the larger of the instructions over the width and the busiest unit
    double taken = 0;         ///< taken-branch penalties (back edges, calls, returns)
    double exits = 0;         ///< mispredicted loop exits
    double loadUse = 0;       ///< load-use stalls
    /// Cycles each unit is busy (instructions times their cycles on it).
    std::array<double, kIssueUnitCount> unit{};

    IssueCycles& operator+=(const IssueCycles& o);
};

/// Name of a unit in reports ("alu", "memory", "mac", "fpu", "branch").
const char* issueUnitName(IssueUnit u);

/// Cycles of the kernel instructions among `features` (the copies' features are left out: their
/// cycles are the transfer model's) weighed with `coefficients` (insnCoefficients), as one
/// stretch of code: the units overlap only within it.
IssueCycles issueCycles(const InsnFeatures& features, const std::array<double, kInsnFeatureCount>& coefficients,
                        const hw::IssueModel& model);

/// Cycles of a whole kernel: each loop the compiled code keeps is a stretch of its own (its
/// events less those of the kept loops inside it), and so is the code outside every kept loop.
IssueCycles kernelIssueCycles(const InsnFeatures& total, const std::vector<LoopFeatures>& loops,
                              const std::array<double, kInsnFeatureCount>& coefficients, const hw::IssueModel& model);

} // namespace loopscope::analysis
