// The cost of tensorized stages on a PE array (used by analyze.cpp): instruction counts, array
// cycles per dataflow, DMA rows over the bus, the rows buffers take, and the diagnostics of the
// array. Internal to core/analysis; the result is CostReport::array.
#pragma once

#include "analysis/cost_report.h"
#include "analysis/lattice_count.h"

#include <functional>
#include <vector>

namespace loopscope::analysis::detail {

/// Executions of the statement being visited (its enclosing loops and guards), each weighted by
/// the product of the extra factors: how analyze.cpp counts.
using Counter = std::function<int64_t(std::vector<Factor>)>;

/// A DMA transfer statement's cost: bus cycles of its rows plus the outer level's latency per
/// execution, and the instructions it issues.
struct DmaCost {
    double cycles = 0;
    int64_t elements = 0;
    int64_t mvins = 0, mvouts = 0, configs = 0;
    int64_t fences = 0;  ///< a store to the host's staging tile waits for it
};

/// One Matmul statement: elements it reads and writes (what the interpreter counts) and its time.
struct MatmulCost {
    int64_t executions = 0;
    int64_t aReads = 0, bReads = 0, cReads = 0, cWrites = 0;
    int64_t weightLoads = 0;   ///< preloads bringing new data into the PEs
    int64_t arrayMacs = 0;
    double arrayCycles = 0;
};

class ArrayModel {
public:
    ArrayModel(const lower::LoopNest& n, const hw::Target& t);

    /// Whether the nest has tensorized stages on this target (nothing else here applies otherwise).
    bool active() const { return m_active; }
    bool tensorized(int stage) const;
    /// What the host does for a loop of a tensorized stage in the generated code.
    enum class HostLoop {
        Issue,   ///< it issues instructions: its overhead overlaps the array
        Serial,  ///< host arithmetic before the array starts (the initial row): its overhead adds
        None,    ///< it walks an accumulator tile element by element in the nest, but the code moves the tile with mvin/mvout
    };
    HostLoop hostLoop(int forStmt) const { return m_hostLoop[forStmt]; }

    /// A copy (mvin, or mvout from a row-addressed buffer) or fill of a tensorized stage.
    DmaCost region(const lower::Region& r, int rowBuffer, int otherLevel, bool out, const Counter& count);
    /// The initial rows (mvin3) or the store (mvout) of a tensorized accumulator tile, whose
    /// region is on the AccInit / AccStore statement.
    DmaCost tile(const lower::Stmt& leaf, int tileBuffer, bool store, const Counter& count);
    MatmulCost matmul(const lower::MatmulOp& op, const Counter& count);
    /// The kernel's MACs in a tensorized stage (terms padding skips excluded).
    int64_t usefulMacs(int stage) const;

    /// Adds issued instructions and host/array figures as the walk finds them.
    ArrayInstructions& instructions() { return m_instructions; }
    void addWeightLoads(int64_t n) { m_weightLoads += n; }
    void addArrayMacs(int64_t n) { m_arrayMacs += n; }
    /// A row of this many bytes moved by one mvin/mvout (for the DMA row-limit diagnostic).
    void noteDmaRow(int buffer, int64_t rowBytes);

    /// Fills r.array and adds the array's diagnostics, once the walk is done.
    void finish(CostReport& r, int64_t arrayCycles, int64_t hostCycles, int64_t prepareCycles);

private:
    int64_t smallestBlock(lower::IndexId count) const;

    const lower::LoopNest& m_n;
    const hw::Target& m_t;
    bool m_active = false;
    int m_dim = 0;
    std::vector<bool> m_tensorizedStage;
    std::vector<HostLoop> m_hostLoop;  ///< per statement (For statements of tensorized stages)
    ArrayInstructions m_instructions;
    int64_t m_weightLoads = 0;
    int64_t m_arrayMacs = 0;
    struct WideRow {
        int buffer;
        int64_t bytes;
    };
    std::vector<WideRow> m_wideRows;
};

} // namespace loopscope::analysis::detail
