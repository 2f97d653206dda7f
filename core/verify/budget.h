// What verify and counts may interpret: the interpreter holds every tensor and buffer as values
// and runs every statement, so a kernel the parser accepts (tensors of up to 2^40 elements) can
// need terabytes or hours. Past a documented budget they refuse at once, saying how to check a
// smaller instance (docs/lowering.md, "Limits of the interpreter").
#pragma once

#include "lower/loop_nest.h"

#include <cstdint>
#include <string>

namespace loopscope::verify {

/// The most values verify holds at once: the kernel's tensors three times (inputs, the
/// reference's results, the interpreter's results) and every buffer of the nest: 2^26, about
/// 512 MiB at 8 bytes a value.
inline constexpr int64_t kMaxInterpretedValues = int64_t(1) << 26;
/// The most statement executions (loop iterations, copies, loads, multiply-accumulates) the
/// interpreter runs: 2^30, under a minute; the reference's multiply-accumulates are among them.
inline constexpr int64_t kMaxInterpretedSteps = int64_t(1) << 30;

/// Values the interpreter and the reference hold for `nest` (saturating at INT64_MAX).
int64_t interpretedValues(const lower::LoopNest& nest);
/// Statement executions of `nest`, counted as if every guard held (an upper bound; saturating).
int64_t interpretedSteps(const lower::LoopNest& nest);

/// Empty when interpreting `nest` stays within both budgets, else why not and how to verify a
/// smaller instance of the same schedule (smaller sizes in the schedule's params:).
std::string interpretationBudgetError(const lower::LoopNest& nest);

} // namespace loopscope::verify
