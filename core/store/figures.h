// The figures a workspace keeps of a schedule: from a cost report (key columns and the whole
// `analyze --json` document).
#pragma once

#include "analysis/cost_report.h"
#include "sched/program.h"
#include "store/records.h"

namespace loopscope::store {

/// Key figures and the JSON document of a report, stamped with this project version and now.
Figures figuresOf(const analysis::CostReport& report);
/// Lowers and analyses a program and returns its figures.
Figures analyzeFigures(const sched::Program& program);

} // namespace loopscope::store
