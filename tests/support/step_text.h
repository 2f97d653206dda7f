// Test helpers: an example kernel with parameters, steps built field by field or written as a
// schedule file's `steps:` text, replayed on the built-in cortex-m7.
#pragma once

#include "ir/kernel.h"
#include "sched/program.h"
#include "sched/step.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace loopscope::test {

/// examples/kernels/NAME.kernel.yaml with `params` (a failed load is a test failure; null).
std::shared_ptr<const ir::Kernel> exampleKernel(const std::string& name, const std::map<std::string, int64_t>& params);
/// A step of primitive `p` on `loops` (for split, `factor`), in `stage` (empty: the kernel's
/// only or last stage).
sched::Step loopStep(sched::Primitive p, std::vector<std::string> loops = {}, int64_t factor = 0, std::string stage = {});
/// A cache_read or cache_write of `tensor` into `level` at loop `at`.
sched::Step cacheStep(sched::Primitive p, std::string tensor, std::string level, std::string at = "root", std::string stage = {});
/// The steps of a schedule file's `steps:` text ("  - split: {loop: i, factor: 4}\n...").
std::vector<sched::Step> steps(const std::string& text);
/// Replays `stepText` on `k` and the built-in cortex-m7.
sched::ApplyResult replay(const std::shared_ptr<const ir::Kernel>& k, const std::string& stepText);

/// Steps written as a schedule file (kernel k.kernel.yaml, target cortex-m7) and read back.
struct RoundTrip {
    std::string text;                 ///< the file written
    std::vector<sched::Step> steps;   ///< the steps read from it (empty, and a test failure, if it did not parse)
};
RoundTrip roundTrip(const std::vector<sched::Step>& steps);

} // namespace loopscope::test
