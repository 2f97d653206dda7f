// A step's parameters as schedule-file text, for showing and editing them in place.
#pragma once

#include "sched/step.h"

#include <QString>

#include <optional>

namespace loopscope::ui {

/// A step in short words, as `describe` writes it: "split i by 16", "cache_read A into SRAM at
/// j.outer"; with `namedStages` (a kernel of several stages) loops carry their stage:
/// "split D:h by 8".
QString stepText(const sched::Step& step, bool namedStages);
/// The parameters of a step as written in a schedule file: "{loop: i, factor: 16}".
QString stepParameters(const sched::Step& step);
/// Parses edited parameters ("{loop: i, factor: 8}") for a primitive; nullopt + error if bad.
std::optional<sched::Step> parseStepParameters(sched::Primitive primitive, const QString& text,
                                               QString* error = nullptr);

} // namespace loopscope::ui
