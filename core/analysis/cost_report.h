// The analytical cost model's result: occupancy, traffic, cycles, energy, bounds, diagnostics.
#pragma once

#include "analysis/array_report.h"
#include "analysis/instructions.h"
#include "analysis/issue_model.h"
#include "common/diagnostic.h"
#include "lower/loop_nest.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace loopscope::analysis {

/// A buffer as placed in a memory level.
struct BufferUse {
    std::string name;
    std::string tensor;
    std::string loop;           ///< loop whose body holds it ("root" for whole tensors)
    std::vector<int64_t> shape;
    int64_t bytes = 0;          ///< including the second buffer of a double buffer
    bool doubleBuffered = false;
    bool home = false;          ///< the tensor's own storage in its home level
};

struct LevelReport {
    std::string name;
    int64_t capacityBytes = 0;
    int64_t usedBytes = 0;      ///< peak of the buffers live at the same time
    std::vector<BufferUse> buffers;  ///< the buffers live at that peak
    int64_t readBytes = 0;
    int64_t writeBytes = 0;
};

struct TensorReport {
    std::string name;
    std::string level;
    int64_t readBytes = 0;
    int64_t writeBytes = 0;
};

/// Bytes a tensor moves from one level to another through copy stages (the DMA hooks of
/// generated code), and how many copies do it.
struct TransferReport {
    std::string tensor;
    std::string from;
    std::string to;
    int64_t bytes = 0;
    int64_t copies = 0;
};

struct Cycles {
    int64_t total = 0;
    /// A CPU target with an issue model: the predicted kernel instructions through it (`issue`);
    /// otherwise MACs over the throughput of the units used, plus loop overhead.
    int64_t compute = 0;
    int64_t transfer = 0;       ///< copies between levels and direct accesses to outer levels
    double overlapRatio = 0;    ///< share of transfer cycles hidden behind compute (double buffering)
    bool fromInstructions = false;  ///< compute came from the instruction and issue models
    IssueCycles issue;          ///< where those cycles go (when fromInstructions)
};

struct Bounds {
    int64_t computeCycles = 0;  ///< MACs over the peak MAC rate
    int64_t compulsoryBytes = 0;  ///< every input element used read once, every output written once, in the home level
    std::optional<int64_t> ioLowerBoundBytes;  ///< Smith et al. 2017, matmul-like stages only
};

struct CostDiagnostic {
    Severity severity = Severity::Warning;
    std::string code;           ///< stable identifier, e.g. "over-capacity"
    std::string message;
    std::optional<int> step;    ///< 0-based trace step involved
    std::vector<std::string> loops;
    std::vector<std::string> tensors;
};

/// Immutable result of analysing one loop nest on one target.
struct CostReport {
    std::string kernel;
    std::string target;
    int64_t macs = 0;           ///< multiply-accumulates executed (terms skipped by padding excluded)
    Cycles cycles;
    double latencyMs = 0;
    double energyUj = 0;
    std::vector<LevelReport> levels;    ///< outermost first
    std::vector<TensorReport> tensors;  ///< (tensor, level) pairs with traffic
    std::vector<TransferReport> transfers;  ///< copy stages by (tensor, from, to), first use first
    Bounds bounds;
    InstructionReport instructions;      ///< predicted instructions of the exported code (CPU targets)
    std::vector<CostDiagnostic> diagnostics;
    std::optional<ArrayReport> array;   ///< tensorized stages on a PE array (docs/cost-model.md, "Gemmini")

    bool hasErrors() const;
};

/// Analyses a lowered nest on a target (usually nest.target; another target of the same
/// level names may be given to compare). Walks the nest once; never throws.
CostReport analyze(const lower::LoopNest& nest, const hw::Target& target);

/// How often each statement of the nest executes (a For: how often it is entered), as analyze()
/// counts it; indexed like nest.stmts. For the instruction model's finer reports and tests.
std::vector<int64_t> statementExecutions(const lower::LoopNest& nest, const hw::Target& target);

/// Steps of the trace that created or moved each cache stage (index = Program::caches index).
/// Diagnostics use it to point at the step to change.
std::vector<int> cacheSteps(const sched::Program& program);

} // namespace loopscope::analysis
