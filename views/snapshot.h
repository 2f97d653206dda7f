// An immutable picture of the document after an edit: what every view draws from.
#pragma once

#include "analysis/cost_report.h"
#include "lower/loop_nest.h"
#include "sched/program.h"

#include <memory>
#include <optional>
#include <string>

namespace loopscope::ui {

/// Everything the views show for one state of the document. Views never change it; the
/// document builds a new one after every edit (apply -> lower -> analyse -> generate C).
struct Snapshot {
    std::shared_ptr<const sched::Program> program;        ///< null when nothing is open
    std::shared_ptr<const lower::LoopNest> nest;
    std::shared_ptr<const analysis::CostReport> report;
    std::string code;                                     ///< the exported <kernel>.c text
    std::optional<sched::ScheduleError> failedStep;       ///< first failing step of the trace, if any
    int revision = 0;                                     ///< increases with every edit (for histories)

    bool empty() const { return !program; }
};

} // namespace loopscope::ui
