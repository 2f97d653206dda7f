// Random legal schedules for property tests: random primitives with random parameters drawn
// from the current program state; steps the primitives reject are dropped.
#pragma once

#include "common/rng.h"
#include "sched/program.h"

#include <cstdint>

namespace loopscope::test {

/// Small deterministic generator (splitmix64, common/rng.h), identical on every platform.
using Rng = loopscope::Rng;

/// A random step for the program (may be illegal; apply decides).
sched::Step randomStep(const sched::Program& p, Rng& rng);

/// Applies up to `steps` random legal steps to the initial program. `attempts` receives the
/// number of steps tried (legal or not).
sched::Program randomSchedule(const sched::Program& initial, Rng& rng, int steps, int* attempts = nullptr);

/// The same schedule with `slide` added to every cache_read step placed at a loop whose tiles
/// overlap along it (cache_read's sliding window); steps where apply refuses it stay as they were.
/// Returns `p` itself when none can slide.
sched::Program withSlides(const sched::Program& p);

} // namespace loopscope::test
