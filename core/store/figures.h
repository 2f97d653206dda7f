// The figures a workspace keeps of a schedule: from a cost report (key columns and the whole
// `analyze --json` document), and what it keeps of a measurement on qemu.
#pragma once

#include "analysis/cost_report.h"
#include "codegen/measure.h"
#include "sched/program.h"
#include "store/records.h"

namespace loopscope::store {

/// Key figures and the JSON document of a report, stamped with this project version and now.
Figures figuresOf(const analysis::CostReport& report);
/// Lowers and analyses a program and returns its figures.
Figures analyzeFigures(const sched::Program& program);
/// What a variant keeps of a successful measurement: machine, compiler and its version, the
/// kernel's own instructions; stamped with this project version (the time when it is added).
Measurement measurementOf(const codegen::Measurement& m, int64_t variantId);

} // namespace loopscope::store
