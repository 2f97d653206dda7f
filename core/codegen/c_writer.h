// The C writer behind generateSource: its state (C names, double buffers, slot overrides) and
// its expression helpers, shared by the files that print one kind of statement (c_codegen.cpp:
// loops, statements, buffers; c_copy.cpp: copies through the DMA hooks; c_dsp.cpp: the Arm DSP
// paths). Internal to core/codegen.
#pragma once

#include "codegen/c_codegen.h"
#include "codegen/c_decisions.h"

#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace loopscope::codegen::detail {

/// A transfer (tensor, from level, to level); its id in <kernel>_transfers is its index in
/// transfersOf().
struct Transfer {
    int tensor, from, to;
};

/// Transfers of a nest, in first-use order.
std::vector<Transfer> transfersOf(const lower::LoopNest& n);

class CWriter {
public:
    explicit CWriter(const lower::LoopNest& n);
    /// The whole <kernel>.c.
    std::string run();

private:
    struct DoubleBuffer {
        int loop = -1;                    ///< the For statement whose iterations ping-pong
        std::vector<lower::Cond> guards;  ///< conditions between that loop and the buffer
    };

    std::string levelName(int l) const;
    void nameThings();

    // ---- expressions (c_codegen.cpp)
    std::string slotText(int s) const;
    std::string ix(lower::IndexId id) const;
    static std::string strip(std::string s);
    /// Flat element offset of a global tensor index in a buffer.
    lower::IndexId flat(int b, const std::vector<lower::IndexId>& global);
    std::string select(int b) const;
    std::string access(int b, const std::vector<lower::IndexId>& global);
    /// "&buf[sel][offset]" of a global index.
    std::string address(int b, const std::vector<lower::IndexId>& global);
    std::string value(int v) const;
    std::string conds(const std::vector<lower::Cond>& cs) const;
    void prepareDoubleBuffers(int id, std::vector<int> loops, std::vector<lower::Cond> guards);
    /// A new slot for a C local used in index expressions (block-scoped names may repeat).
    int newTemp(const std::string& name);

    // ---- statements (c_codegen.cpp)
    void line(const std::string& s);
    void body(const lower::Stmt& s);
    void stmt(int id);
    void forLoop(int id, const lower::Stmt& s);
    void alloc(const lower::Stmt& s);
    /// Whether guards (partial tiles) skip the initialisation of some of an accumulator's elements.
    bool guardedInit(const lower::Stmt& alloc) const;
    /// Whether a guard encloses a loop written as a `for` statement (its condition is marked likely).
    bool guardsLoop(const lower::Stmt& guard) const;
    /// Whether a guard holds no guard inside and holds in at least half of its executions (over
    /// every copy of the unrolled loops it is in: one statement); asked for guards that hold no
    /// `for` loop (guardsLoop), whose condition is then marked likely as well.
    bool likelyInnermostGuard(int id) const;

    // ---- copies (c_copy.cpp)
    void copy(int id, const lower::Stmt& s);
    void copyRegion(int id, const lower::Stmt& s, int transfer, const std::string& dstSelect);

    // ---- Arm DSP paths (c_dsp.cpp): emit "#if LOOPSCOPE_USE_DSP" and the DSP loop; the
    // caller writes the plain loop after "#else".
    // `writtenOut`: the steps as blocks with a constant counter, not a loop (an accumulator
    // array in registers must be indexed by constants).
    void emitDsp(const lower::Stmt& loop, const DspLoop& plan, bool writtenOut);
    void emitDspReduction(const lower::Stmt& loop, const DspLoop& plan, bool writtenOut);
    void emitDspLanes(const lower::Stmt& loop, const DspLoop& plan, bool writtenOut);
    /// Opens the DSP loop over `loop` in steps of `step` (a for, or one block per step).
    void openDspSteps(const lower::Stmt& loop, int step, bool writtenOut, const std::function<void()>& stepBody);

    const lower::LoopNest& m_n;
    const ir::Kernel& m_k;
    lower::IndexPool m_ix;
    std::vector<std::string> m_slot;
    std::map<int, std::string> m_temp;
    std::map<std::pair<int, int>, int> m_originSlot;
    std::map<std::pair<int, int>, int> m_nextOriginSlot;  ///< the same, for the next tile of a double buffer
    std::vector<std::string> m_reg;
    std::map<int, std::string> m_bufName;
    std::map<int, std::string> m_override;
    std::vector<bool> m_pingPong;  ///< per buffer: pingPongBuffers()
    std::map<int, DoubleBuffer> m_db;
    std::map<int, std::string> m_dbSelect;
    std::set<int> m_loopHasDb;
    std::vector<Transfer> m_transfers;
    mutable std::vector<int64_t> m_execs;  ///< per statement: analysis::statementExecutions, when a guard asks
    std::ostringstream* m_os = nullptr;
    int m_indent = 0;
};

} // namespace loopscope::codegen::detail
