// The cost report as the JSON document `loopscope-cli analyze --json` prints; the workspace
// stores the same document with every variant, so fields added later are kept as they are.
#pragma once

#include "analysis/cost_report.h"

#include <string>

namespace loopscope::analysis {

/// The report as JSON text (keys in a fixed order), indented by `indent` spaces (-1: one line).
std::string reportJson(const CostReport& report, int indent = 2);

/// "error", "warning" or "hint".
const char* severityName(Severity s);

} // namespace loopscope::analysis
