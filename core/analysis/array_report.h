// The PE-array part of a cost report (a tensorized nest on an accelerator): instructions,
// array and host cycles, PE utilisation, and the rows each buffer takes in the scratchpad and
// the accumulator.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace loopscope::analysis {

/// Accelerator instructions the exported code issues, by kind.
struct ArrayInstructions {
    int64_t mvin = 0;       ///< mvin / mvin2 / mvin3 (operands, halo fills, initial rows)
    int64_t mvout = 0;
    int64_t preload = 0;
    int64_t compute = 0;    ///< compute_preloaded + compute_accumulated
    int64_t config = 0;     ///< config_ex, config_ld, config_st
    int64_t flush = 0;      ///< gemmini_flush
    int64_t fence = 0;      ///< gemmini_fence (a wait of the host, not an instruction of the array)
    /// Instructions sent to the accelerator (fences are not).
    int64_t total() const { return mvin + mvout + preload + compute + config + flush; }
};

/// Rows one buffer occupies in a row-addressed level (lower::placeRows).
struct RowBlock {
    std::string buffer;
    std::string tensor;
    std::string level;
    std::string loop;           ///< loop whose body holds it
    int64_t baseRow = 0;
    int64_t rows = 0;           ///< one half of a double buffer
    bool doubleBuffered = false;
    int bank = 0;               ///< bank of its first row
    int lastBank = 0;           ///< bank of its last row (both halves)
};

/// Rows of a row-addressed level: used at the peak, capacity, banks.
struct RowLevel {
    std::string name;
    int64_t peakRows = 0;
    int64_t rows = 0;           ///< capacity
    int banks = 1;
    int64_t rowBytes = 0;
};

struct ArrayReport {
    int dim = 0;                     ///< DIM (PE rows = columns)
    std::string dataflow;            ///< of the tensorized stages ("weight_stationary", ...; several: joined)
    ArrayInstructions instructions;
    int64_t weightLoads = 0;         ///< preloads that bring new data into the PEs (the others reuse it)
    int64_t arrayCycles = 0;         ///< cycles the array computes (compute instructions and unhidden preloads)
    int64_t hostCycles = 0;          ///< host cycles issuing instructions, looping and requantizing, overlapped with the array
    /// Host cycles of the work done once per set of weights, before the kernel (the initial
    /// accumulator row that folds an input offset into the bias: <kernel>_prepare); not in the
    /// kernel's cycles.
    int64_t prepareCycles = 0;
    int64_t arrayMacs = 0;           ///< MACs the computes do, padding halo included
    int64_t usefulMacs = 0;          ///< the kernel's MACs in tensorized stages (what the PE utilisation credits)
    double peUtilisation = 0;        ///< usefulMacs / (compute instructions x DIM^3): how full each compute is
    double peakFraction = 0;         ///< compute bound / total cycles: the share of the array's peak reached
    std::vector<RowLevel> levels;    ///< the row-addressed levels
    std::vector<RowBlock> rowBlocks; ///< every buffer placed in them
};

} // namespace loopscope::analysis

namespace loopscope::analysis {

/// The array section of `loopscope-cli analyze`: computes, utilisation, cycles, instructions, rows.
std::string arrayReportText(const ArrayReport& a);

} // namespace loopscope::analysis
