// Executes a lowered loop nest on real data and counts every element moved per memory level.
#pragma once

#include "lower/loop_nest.h"
#include "sched/program.h"
#include "verify/data.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace loopscope::verify {

/// Bytes read and written in one memory level (registers are not counted).
struct LevelTraffic {
    std::string name;
    int64_t readBytes = 0;
    int64_t writeBytes = 0;
};

/// Bytes of one tensor read and written in one level.
struct TensorTraffic {
    std::string tensor;
    std::string level;
    int64_t readBytes = 0;
    int64_t writeBytes = 0;
};

struct Traffic {
    std::vector<LevelTraffic> levels;    ///< every level of the target, outermost first
    std::vector<TensorTraffic> tensors;  ///< (tensor, level) pairs with any traffic, by tensor then level
};

struct InterpretResult {
    bool ok = false;
    std::string error;      ///< an access outside a buffer (a lowering bug), when !ok
    Dataset data;           ///< every tensor's home contents after the run
    Traffic traffic;
};

/// One element read or written by the interpreter, as it happens.
struct Access {
    int stmt = -1;                  ///< the statement executing (Copy, Load, Compute, ...)
    int buffer = -1;                ///< index into LoopNest::buffers
    bool write = false;
    const int64_t* index = nullptr; ///< global tensor index (Buffer::shape.size() values; the
                                    ///< loop index for accumulators)
    const int64_t* slots = nullptr; ///< every loop counter's current value
};
/// Sees every access (for tests that check a model of the accesses against the real ones).
using AccessObserver = std::function<void(const Access&)>;

/// Runs the nest on `inputs` (one TensorData per kernel tensor, as from makeInputs); an
/// observer, when given, sees every element access.
InterpretResult interpret(const lower::LoopNest& nest, const Dataset& inputs, const AccessObserver& observer = {});

struct VerifyResult {
    bool ok = false;
    std::string message;    ///< "OK" or the first mismatch / the interpreter error
    Traffic traffic;
};

/// Lowers the program, interprets it on makeInputs(seed), and compares every output tensor
/// with runReference on the same inputs.
VerifyResult verifyProgram(const sched::Program& program, uint64_t seed);

} // namespace loopscope::verify
