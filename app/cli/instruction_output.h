// How `loopscope-cli analyze` shows the predicted instructions of the exported code (and, with
// --measure, the emulator's count beside them): its table lines and the fields --measure adds to
// the JSON (the prediction itself is in core's analysis/report_json).
#pragma once

#include "analysis/cost_report.h"
#include "analysis/instructions.h"
#include "codegen/measure.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace loopscope::cli {

/// The fields `analyze --measure` adds to "measured" about the prediction: the relative error of
/// the predicted kernel, copies and total against the measured ones.
void addPredictionError(const analysis::CostReport& report, const codegen::Measurement& measured, nlohmann::ordered_json& out);

/// The table's lines: the prediction and where the instructions go ("" for an accelerator).
std::string instructionsText(const analysis::CostReport& report);

/// analyze --loops: every loop of the nest with how the instruction model expects GCC -O2 to
/// compile it, the instructions predicted inside the loops the code keeps and, in the innermost
/// ones, the values the model counts live against the registers ("" for an accelerator).
std::string loopsText(const std::vector<analysis::LoopDecision>& loops);
/// The same as a JSON array.
nlohmann::ordered_json loopsJson(const std::vector<analysis::LoopDecision>& loops);

/// The table's line comparing the prediction with a measurement.
std::string measuredText(const analysis::CostReport& report, const codegen::Measurement& measured);

} // namespace loopscope::cli
