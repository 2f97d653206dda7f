// A hardware target: compute units, memory levels, constraints. Plain data; the YAML
// loader lives in hwdesc/ (hwdesc/target_loader.h), above core.
#pragma once

#include "common/diagnostic.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace loopscope::hw {

/// One memory level. Levels are listed outermost (largest, slowest) first.
struct MemoryLevel {
    std::string name;             ///< e.g. "DRAM", "SRAM", "scratchpad"
    int64_t sizeBytes = 0;
    double bandwidthBytesPerCycle = 1;  ///< sustained transfer rate into/out of this level
    int64_t latencyCycles = 0;    ///< setup latency of one transfer or access
    double energyPjPerByte = 0;
    int bufferCount = 1;          ///< how many buffers it can ping-pong (2 = double buffering)
    bool dma = false;             ///< transfers into this level can run on a DMA engine
    int banks = 1;                ///< independent SRAM banks (the scratchpad of a PE array)
    int64_t rowBytes = 0;         ///< row-addressed level (Gemmini scratchpad, accumulator): bytes per row; 0: byte-addressed
    SourceLoc loc;

    /// Rows of a row-addressed level (0 when byte-addressed).
    int64_t rows() const { return rowBytes > 0 ? sizeBytes / rowBytes : 0; }
};

/// A processing-element array of an accelerator (e.g. a Gemmini systolic array).
struct PeArray {
    int rows = 0;
    int cols = 0;
    std::vector<std::string> dataflows;  ///< "weight_stationary", "output_stationary"
    /// Timing of the array's instructions (defaults: the number of rows, DIM).
    int computeCycles = 0;        ///< cycles one compute occupies the array (it streams DIM rows of A)
    int preloadCycles = 0;        ///< cycles to shift a new block into the PEs (WS weights, OS bias)
    int64_t dmaMaxBytes = 0;      ///< largest row one mvin/mvout moves (Gemmini's dma_maxbytes); 0: no limit
    double hostIssueCycles = 1;   ///< host cycles to issue one accelerator instruction
    double hostRequantizeCycles = 0;  ///< host cycles to requantize one output element the array produced
};

struct Compute {
    /// Multiply-accumulates per cycle for each operand dtype name ("int8", "float32", ...).
    std::map<std::string, double> macsPerCycle;
    int simdLanes = 1;            ///< lanes of a vectorized inner loop (per dtype: int8 lanes)
    bool dsp = false;             ///< Arm DSP extension (SMLAD and friends)
    bool fpu = false;
    int cores = 1;                ///< cores that could run iterations of a parallel loop at once
    int registers = 8;            ///< registers available to hold accumulators
    double energyPjPerMac = 0;
    std::optional<PeArray> peArray;
};

/// How the exported code's instructions become cycles on a CPU target (target file: `issue`,
/// docs/cost-model.md "Cycles from instructions"). The emulator counts instructions exactly but
/// no cycles; these figures of the core's pipeline turn the predicted instructions into an
/// estimate of the cycles a real core takes. Without the section a CPU target's compute cycles
/// are its MACs at the peak rate plus loop_overhead_cycles per iteration.
struct IssueModel {
    bool present = false;
    double width = 1;               ///< instructions issued per cycle at most (2: dual issue)
    double memoryCycles = 1;        ///< cycles of the load/store unit per load or store
    double macCycles = 1;           ///< cycles of the multiplier per MLA, SMLAD or multiply of a requantization
    double fpuCycles = 1;           ///< cycles of the FPU per floating-point operation
    double takenBranchCycles = 0;   ///< extra cycles of a taken branch (a loop's back edge, a call, a return)
    double loopExitCycles = 0;      ///< extra cycles when a loop is left (its exit branch mispredicted)
    double loadUseCycles = 0;       ///< stall per load, on average, while its result is awaited
    SourceLoc loc;
};

/// Per-target coefficients of the instruction model, fitted on the emulator (target file:
/// `calibration`, written by `loopscope-cli calibrate`): instructions per counted event.
struct Calibration {
    std::string compiler;    ///< the compiler and flags the coefficients describe
    std::string emulator;    ///< where they were measured
    std::string date;
    int schedules = 0;       ///< schedules they were fitted on
    std::map<std::string, double> coefficients;  ///< feature name (analysis/instructions.h) -> instructions
    SourceLoc loc;
};

struct Constraints {
    int64_t maxTileSize = 0;      ///< largest extent of one tile dimension; 0 = none
    int64_t alignmentBytes = 1;   ///< alignment of on-chip buffers
};

struct Target {
    std::string name;
    std::string kind;             ///< "mcu" or "accelerator"
    std::string description;
    double clockMhz = 0;
    Compute compute;
    std::vector<MemoryLevel> levels;  ///< outermost first
    Constraints constraints;
    double loopOverheadCycles = 0;   ///< per iteration of a loop that is not unrolled (unless `issue` is given)
    IssueModel issue;                ///< CPU targets: instructions -> cycles
    Calibration calibration;         ///< CPU targets: the instruction model's coefficients
    std::string path;                ///< file it came from

    int findLevel(const std::string& name) const;
    int innermostLevel() const { return static_cast<int>(levels.size()) - 1; }
};

} // namespace loopscope::hw
