// Random legal schedules for property tests: random primitives with random parameters drawn
// from the current program state; steps the primitives reject are dropped.
#pragma once

#include "sched/program.h"

#include <cstdint>

namespace loopscope::test {

/// Small deterministic generator (splitmix64), identical on every platform.
class Rng {
public:
    explicit Rng(uint64_t seed) : m_state(seed) {}
    uint64_t next();
    /// Uniform in [0, n).
    int64_t below(int64_t n) { return n <= 0 ? 0 : static_cast<int64_t>(next() % static_cast<uint64_t>(n)); }
    bool chance(int percent) { return below(100) < percent; }

private:
    uint64_t m_state;
};

/// A random step for the program (may be illegal; apply decides).
sched::Step randomStep(const sched::Program& p, Rng& rng);

/// Applies up to `steps` random legal steps to the initial program. `attempts` receives the
/// number of steps tried (legal or not).
sched::Program randomSchedule(const sched::Program& initial, Rng& rng, int steps, int* attempts = nullptr);

} // namespace loopscope::test
