// Random tensorized schedules for property tests: matmuls and convolutions of random sizes split
// into blocks of at most DIM (partial edges included), their outer loops in random order, the
// operands cached at random loops outside the block (sometimes double-buffered), the output in
// the accumulator, either dataflow, then the tensorize.
#pragma once

#include "support/random_schedule.h"

#include "sched/program.h"

#include <memory>
#include <string>

namespace loopscope::test {

/// One random tensorized schedule of one of the kernels matmul_int8, conv2d_int8,
/// conv2d_s2_int8, pointwise_conv_int8 (chosen by `n`) on the Gemmini target, with sizes from
/// `rng` (small enough for the interpreter and an exported harness to run in milliseconds).
/// `tried` receives how many candidates it drew before one applied.
sched::Program randomTensorized(int n, Rng& rng, std::shared_ptr<const hw::Target> target, int* tried = nullptr);

/// The names randomTensorized picks from (n modulo their count).
const std::vector<std::string>& tensorizedKernels();

} // namespace loopscope::test
