// What the fuzz targets share: the pipeline every command runs (lower, analyse, print, export,
// verify within a small budget), the properties it must keep (diagnostics with a position, no
// negative or NaN figure), and a finding that stops the process so libFuzzer keeps the input.
#pragma once

#include "analysis/cost_report.h"
#include "common/diagnostic.h"
#include "sched/program.h"

#include <string>
#include <vector>

namespace loopscope::fuzz {

/// Where the repository is (set by CMake): the schedule target reads the example kernels.
std::string sourceDir();

/// A property does not hold: prints `what` and aborts (libFuzzer saves the input as a crash).
[[noreturn]] void finding(const std::string& what);

/// Every error of a file must say where in it (line and column); `file` names it in findings.
void checkDiagnostics(const std::vector<Diagnostic>& errors, const std::string& file);

/// Figures are counts and amounts: never negative, never NaN (issue 16, item 4).
void checkReport(const analysis::CostReport& report);

/// The interpreter budget of the fuzz targets: much smaller than the CLI's, so that one input
/// runs in milliseconds. Nests within it are verified against the reference.
inline constexpr int64_t kFuzzVerifySteps = int64_t(1) << 17;

/// What the CLI does with a program: lower, print, analyse (and as JSON), write the C when it
/// can be exported (the Gemmini check first), and verify when within kFuzzVerifySteps (a
/// mismatch or an interpreter error is a finding).
void runPipeline(const sched::Program& program, bool verify = true);

/// A folder of this process's own for files the targets write (under /dev/shm when there is
/// one: saving syncs to disk, which tmpfs makes free).
const std::string& scratchDir();

} // namespace loopscope::fuzz
