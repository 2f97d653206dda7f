// The analytical cost model: one walk of the loop nest computes occupancy, exact traffic,
// cycles, energy, bounds and teaching diagnostics. It mirrors what the generated code does:
// the same statements the interpreter executes, counted instead of run.
#include "analysis/cost_report.h"

#include "common/saturating.h"
#include "common/text_file.h"

#include "analysis/array_model.h"
#include "analysis/dsp_hint.h"
#include "codegen/c_decisions.h"
#include "codegen/code_size.h"
#include "analysis/lattice_count.h"
#include "lower/gemmini_layout.h"
#include "analysis/nest_count.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <set>
#include <sstream>

namespace loopscope::analysis {

using lower::Buffer;
using lower::Cond;
using lower::IndexId;
using lower::kNoIndex;
using lower::LoopNest;
using lower::Stmt;

bool CostReport::hasErrors() const
{
    return std::any_of(diagnostics.begin(), diagnostics.end(), [](const CostDiagnostic& d) { return d.severity == Severity::Error; });
}

std::vector<int> cacheSteps(const sched::Program& program)
{
    std::vector<int> out(program.caches.size(), -1);
    const auto& k = *program.kernel;
    for (size_t c = 0; c < program.caches.size(); ++c) {
        const auto& cs = program.caches[c];
        for (size_t i = 0; i < program.trace.size(); ++i) {
            const auto& s = program.trace[i];
            bool about = (s.primitive == sched::Primitive::CacheRead || s.primitive == sched::Primitive::CacheWrite
                          || (s.primitive == sched::Primitive::ComputeAt && s.producer.empty()))
                && s.tensor == k.tensors[cs.tensor].name && s.level == program.target->levels[cs.level].name;
            if (about)
                out[c] = static_cast<int>(i);
        }
    }
    return out;
}

namespace {

std::string fmtBytes(int64_t b)
{
    std::ostringstream os;
    auto unit = [&](double v, const char* u) {
        os.setf(std::ios::fixed);
        os.precision(v == std::floor(v) ? 0 : 1);
        os << v << ' ' << u;
    };
    if (b < 1024)
        os << b << " B";
    else if (b < 1024 * 1024)
        unit(b / 1024.0, "KiB");
    else
        unit(b / 1048576.0, "MiB");
    return os.str();
}

std::string shapeStr(const std::vector<int64_t>& s)
{
    std::string out;
    for (size_t i = 0; i < s.size(); ++i)
        out += (i ? "x" : "") + std::to_string(s[i]);
    return out;
}

/// Totals of one subtree, for the cycle model.
struct Sub {
    double compute = 0;
    double transfer = 0;
    double array = 0;   ///< tensorized stages: cycles the PE array computes
    double host = 0;    ///< tensorized stages: host cycles issuing them, overlapped with the array
    double prepare = 0; ///< host work done once per set of weights (the initial row of an offset), not per call
    /// Compute time of the subtree: the array and the host issuing to it run at once.
    double busy() const { return compute + std::max(array, host); }
};

class Analyzer {
public:
    Analyzer(const LoopNest& n, const hw::Target& t)
        : m_n(n), m_t(t), m_k(*n.kernel), m_pingPong(lower::pingPongBuffers(n)), m_array(n, t)
    {
        size_t levels = t.levels.size();
        m_execs.assign(n.stmts.size(), 0);
        m_read.assign(levels, std::vector<int64_t>(m_k.tensors.size(), 0));
        m_write = m_read;
        m_stageMacs.assign(m_k.stages.size(), 0);
        m_stageTouched.assign(m_k.stages.size(), false);
        m_allocLoop.assign(n.buffers.size(), -1);
        m_allocRuns.assign(n.buffers.size(), 0);
        m_slotStage.assign(n.slotExtents.size(), -1);
        // The walk's stacks, reserved once rather than grown by doublings.
        m_loops.reserve(n.slotExtents.size());
        m_loopSlots.reserve(n.slotExtents.size());
        m_conds.reserve(16);
        m_guards.reserve(16);
        m_copies.reserve(8);
        m_loadsAt.reserve(16);
        m_transfers.reserve(8);
        // Each stage's MAC rate, from the dtype of its first load: looked up once, not at every
        // statement (each lookup copied the stage's loads and compared dtype names).
        m_stagePeak.reserve(m_k.stages.size());
        for (const ir::Stage& st : m_k.stages) {
            int first = -1;
            ir::visitLoads(st.value.get(), [&](const ir::Access& a) { first = first < 0 ? a.tensor : first; });
            m_stagePeak.push_back(peakRate(first < 0 ? "float32" : ir::dtypeName(m_k.tensors[first].dtype)));
        }
    }

    CostReport run()
    {
        CostReport r;
        r.kernel = m_k.name;
        r.target = m_t.name;
        if (m_t.levels.size() != m_n.target->levels.size()) {
            r.diagnostics.push_back({Severity::Error, "target-mismatch", "target " + m_t.name + " has " + std::to_string(m_t.levels.size())
                + " memory levels but the schedule was lowered for " + m_n.target->name + " with " + std::to_string(m_n.target->levels.size()), std::nullopt, {}, {}});
            return r;
        }
        // Groups of guarded loops too large to enumerate are left out, and said so below.
        CountBudgetScope budget;
        Sub total = walk(m_n.root);
        occupancy(r);
        // Traffic.
        for (size_t l = 0; l < m_t.levels.size(); ++l) {
            LevelReport& lr = r.levels[l];
            for (size_t t = 0; t < m_k.tensors.size(); ++t) {
                lr.readBytes += m_read[l][t];
                lr.writeBytes += m_write[l][t];
            }
        }
        r.tensors.reserve(m_k.tensors.size() * m_t.levels.size());
        for (size_t t = 0; t < m_k.tensors.size(); ++t)
            for (size_t l = 0; l < m_t.levels.size(); ++l)
                if (m_read[l][t] || m_write[l][t])
                    r.tensors.push_back({m_k.tensors[t].name, m_t.levels[l].name, m_read[l][t], m_write[l][t]});
        // Cycles.
        if (m_array.active())
            for (size_t s = 0; s < m_k.stages.size(); ++s)
                if (m_array.tensorized(static_cast<int>(s))) {
                    const int64_t useful = m_array.usefulMacs(static_cast<int>(s));
                    m_macs += useful;
                    m_paddingMacs -= useful;
                    m_stageMacs[s] += useful;
                    m_stageTouched[s] = true;
                    // A flush and config_ex to start, a fence at the end.
                    m_array.instructions().flush += 1;
                    m_array.instructions().config += 1;
                    m_array.instructions().fence += 1;
                    total.host += 3 * m_t.compute.peArray->hostIssueCycles;
                }
        r.macs = m_macs;
        double busy = total.busy();
        // A CPU target stating its pipeline: compute is the instructions the exported kernel
        // executes, through the issue model; the share of it each ping-pong tile overlaps scales
        // with it (docs/cost-model.md, "Cycles from instructions").
        double scale = 1;
        if (m_t.kind != "accelerator") {
            std::vector<LoopFeatures> loops;
            const InsnFeatures features = instructionFeatures(m_n, m_execs, m_t.issue.present ? &loops : nullptr);
            r.instructions = predictInstructions(features, m_t);
            if (m_t.issue.present) {
                r.cycles.fromInstructions = true;
                r.cycles.issue = kernelIssueCycles(features, loops, insnCoefficients(m_t), m_t.issue);
                // Never below the MACs at the peak rate, a bound the hardware cannot beat (a
                // calibration could fit an MLA at under one instruction).
                const double estimate = std::max(r.cycles.issue.cycles, computeBound());
                scale = busy > 0 ? estimate / busy : 1.0;
                busy = estimate;
            }
        }
        const double hiddenTotal = hideTransfers(scale);
        double hidden = std::min({hiddenTotal, total.transfer, busy});
        // Doubles past 2^63 cycles (a target of slow memories, a kernel of 2^48 points) become
        // the largest count, never a wrapped or undefined one; a diagnostic says so.
        r.cycles.compute = countOf(busy);
        r.cycles.transfer = countOf(total.transfer);
        r.cycles.total = countOf(busy + total.transfer - hidden);
        r.cycles.total = std::max({r.cycles.total, r.cycles.compute, r.cycles.transfer});
        r.cycles.overlapRatio = total.transfer > 0 ? hidden / total.transfer : 0.0;
        r.latencyMs = m_t.clockMhz > 0 ? r.cycles.total / (m_t.clockMhz * 1000.0) : 0.0;
        double pj = 0;
        for (size_t l = 0; l < m_t.levels.size(); ++l)
            pj += static_cast<double>(r.levels[l].readBytes + r.levels[l].writeBytes) * m_t.levels[l].energyPjPerByte;
        pj += static_cast<double>(m_macs + m_paddingMacs) * m_t.compute.energyPjPerMac;
        r.energyUj = pj * 1e-6;
        r.transfers = m_transfers;
        bounds(r);
        diagnostics(r);
        m_array.finish(r, countOf(total.array), countOf(total.host), countOf(total.prepare));
        limits(r, budget);
        return r;
    }

    const std::vector<int64_t>& executionsCounted() const { return m_execs; }

private:
    // ---- counting -------------------------------------------------------------------------

    struct Loop {
        int slot;
        int64_t extent;
        sched::LoopKind kind;
        int stmt;
    };

    /// Executions of the current statement (enclosing loops, guards holding). Every statement
    /// of one body shares the figure: it is counted once per context (m_execsHere).
    int64_t executions() const
    {
        if (m_execsHere < 0)
            m_execsHere = sumOfProducts(m_loopSlots, m_n.slotExtents, m_guards);
        return m_execsHere;
    }

    /// sumOfProducts over the enclosing loops of the guards' factors and `extra` (appended to
    /// m_guards for the call and taken off again: no copy of the guards' factors).
    int64_t countWith(std::vector<Factor>&& extra) const
    {
        return sumOfProductsWith(m_loopSlots, m_n.slotExtents, m_guards, std::move(extra));
    }

    bool readsSlot(const std::vector<const Cond*>& conds, int slot) const
    {
        std::vector<int>& slots = m_scratchSlots;  // reused: no allocation per loop
        slots.clear();
        for (const Cond* c : conds)
            for (IndexId e : {c->expr, c->lo, c->hi})
                if (e != kNoIndex)
                    m_n.index.slotsOf(e, slots);
        return std::find(slots.begin(), slots.end(), slot) != slots.end();
    }

    /// Elements moved by a region statement over all its executions.
    int64_t regionElements(const lower::Region& reg) const
    {
        std::vector<Factor> fs;
        fs.reserve(reg.count.size());
        for (IndexId e : reg.count)
            fs.push_back(countFactor(m_n.index, e));
        return countWith(std::move(fs));
    }

    /// Counts executions of the statement being visited weighted by extra factors (the array model's view).
    detail::Counter counter() const
    {
        return [this](std::vector<Factor> extra) { return countWith(std::move(extra)); };
    }

    /// A DMA statement of a tensorized stage: its cycles on the bus, its instructions issued.
    void dma(Sub& out, const detail::DmaCost& d)
    {
        out.transfer += d.cycles;
        m_array.instructions().mvin += d.mvins;
        m_array.instructions().mvout += d.mvouts;
        m_array.instructions().config += d.configs;
        m_array.instructions().fence += d.fences;
        out.host += static_cast<double>(d.mvins + d.mvouts + d.configs + d.fences) * m_t.compute.peArray->hostIssueCycles;
    }

    void countAccess(int buffer, bool write, int64_t elements)
    {
        const Buffer& b = m_n.buffers[buffer];
        if (b.level < 0)
            return;
        (write ? m_write : m_read)[b.level][b.tensor] += elements * ir::dtypeBytes(b.dtype);
    }

    /// Cycles the core spends on direct accesses to levels outside the innermost.
    double accessCycles(int buffer, int64_t elements) const
    {
        const Buffer& b = m_n.buffers[buffer];
        if (b.level < 0 || b.level == static_cast<int>(m_t.levels.size()) - 1)
            return 0;
        const auto& lv = m_t.levels[b.level];
        return elements * (ir::dtypeBytes(b.dtype) / lv.bandwidthBytesPerCycle + static_cast<double>(lv.latencyCycles));
    }

    double macRate(int stage) const
    {
        double peak = m_stagePeak[stage];
        int64_t lanes = 1, rows = 1;
        if (!m_loops.empty() && m_loops.back().kind == sched::LoopKind::Vectorized)
            lanes = m_loops.back().extent;
        if (m_t.compute.peArray) {
            for (auto it = m_loops.rbegin(); it != m_loops.rend(); ++it)
                if (it->kind == sched::LoopKind::Unrolled) {
                    rows = it->extent;
                    break;
                }
            lanes = std::min<int64_t>(lanes, m_t.compute.peArray->cols);
            rows = std::min<int64_t>(rows, m_t.compute.peArray->rows);
            return std::min(peak, static_cast<double>(lanes * rows));
        }
        return std::min(peak, static_cast<double>(std::min<int64_t>(lanes, std::max(1, m_t.compute.simdLanes))));
    }

    double peakRate(const std::string& dtype) const
    {
        auto it = m_t.compute.macsPerCycle.find(dtype);
        if (it != m_t.compute.macsPerCycle.end() && it->second > 0)
            return it->second;
        return 1.0;
    }

    // ---- the walk -------------------------------------------------------------------------

    Sub walk(int id)
    {
        const Stmt& s = m_n.stmts[id];
        Sub out;
        switch (s.kind) {
        case Stmt::Kind::Block:
            for (int c : s.body)
                add(out, walk(c));
            break;
        case Stmt::Kind::For: {
            m_execs[id] = executions();
            if (s.loopKind != sched::LoopKind::Unrolled) {
                int64_t runs = m_execs[id];
                double iters = static_cast<double>(runs) * s.extent;
                if (s.loopKind == sched::LoopKind::Vectorized)
                    iters = static_cast<double>(runs) * std::ceil(s.extent / static_cast<double>(std::max(1, m_t.compute.simdLanes)));
                // The host loops of a tensorized stage run ahead of the array (decoupled queues);
                // those walking an accumulator tile are mvin/mvout rows in the code.
                const double overhead = iters * m_t.loopOverheadCycles;
                if (!m_array.tensorized(s.stage))
                    out.compute += overhead;
                else if (m_array.hostLoop(id) == detail::ArrayModel::HostLoop::Serial)
                    out.prepare += overhead;
                else if (m_array.hostLoop(id) == detail::ArrayModel::HostLoop::Issue)
                    out.host += overhead;
            }
            m_loops.push_back({s.slot, s.extent, s.loopKind, id});
            m_loopSlots.push_back(s.slot);
            // The guards around a loop cannot read its counter: inside, every point of the
            // context outside runs once per value of it.
            m_execsHere = readsSlot(m_conds, s.slot) ? -1 : m_execs[id] * m_n.slotExtents[s.slot];
            m_slotStage[s.slot] = s.stage;
            for (int c : s.body)
                add(out, walk(c));
            m_loops.pop_back();
            m_loopSlots.pop_back();
            m_execsHere = m_execs[id];
            break;
        }
        case Stmt::Kind::If:
            m_execs[id] = executions();
            for (const Cond& c : s.conds) {
                m_conds.push_back(&c);
                m_guards.push_back(condFactor(m_n.index, c));
            }
            m_execsHere = -1;
            for (int c : s.body)
                add(out, walk(c));
            m_conds.resize(m_conds.size() - s.conds.size());
            m_guards.resize(m_conds.size());
            m_execsHere = m_execs[id];
            break;
        case Stmt::Kind::Alloc: {
            const Buffer& b = m_n.buffers[s.buffer];
            m_allocLoop[s.buffer] = m_loops.empty() ? -1 : m_loops.back().slot;
            m_allocRuns[s.buffer] = executions();
            Sub body;
            double copyCycles = 0;
            if (m_array.tensorized(s.stage) && b.role == Buffer::Role::Accumulator)
                copyCycles += accumulatorTile(body, s);
            for (int c : s.body) {
                Sub sub = walk(c);
                if (m_n.stmts[c].kind == Stmt::Kind::Copy || m_n.stmts[c].kind == Stmt::Kind::Fill)
                    copyCycles += sub.transfer;
                add(body, sub);
            }
            if (m_pingPong[s.buffer] && m_allocRuns[s.buffer] > 1) {
                // Ping-pong: while one iteration computes, the next one's copy runs (hideTransfers).
                double runs = static_cast<double>(m_allocRuns[s.buffer]);
                m_doubleBuffers.push_back({s.buffer, body.busy() / runs, copyCycles / runs, runs, m_allocLoop[s.buffer]});
            }
            add(out, body);
            break;
        }
        case Stmt::Kind::Copy: {
            int64_t elems = regionElements(s.region);
            int64_t runs = m_execs[id] = executions();
            countAccess(s.src, false, elems);
            countAccess(s.buffer, true, elems);
            const Buffer& src = m_n.buffers[s.src];
            const Buffer& dst = m_n.buffers[s.buffer];
            int outer = std::min(src.level, dst.level);
            double bw = std::min(src.level >= 0 ? m_t.levels[src.level].bandwidthBytesPerCycle : 1e9,
                                 dst.level >= 0 ? m_t.levels[dst.level].bandwidthBytesPerCycle : 1e9);
            double latency = outer >= 0 ? static_cast<double>(m_t.levels[outer].latencyCycles) : 0.0;
            if (m_array.tensorized(s.stage) && (lower::rowLanes(m_t, dst) > 0 || lower::rowLanes(m_t, src) > 0)) {
                // mvin / mvout: rows over the DMA bus.
                const bool out_ = lower::rowLanes(m_t, dst) == 0;
                dma(out, m_array.region(s.region, out_ ? s.src : s.buffer, out_ ? dst.level : src.level, out_, counter()));
            } else {
                out.transfer += elems * ir::dtypeBytes(dst.dtype) / bw + runs * latency;
            }
            m_copies.push_back({id, s.src, s.buffer, elems, runs});
            addTransfer(src, dst, elems * ir::dtypeBytes(dst.dtype), runs);
            break;
        }
        case Stmt::Kind::Fill: {
            // The padding halo of a tensorized operand: mvin from a constant row.
            int64_t elems = regionElements(s.region);
            countAccess(s.buffer, true, elems);
            const Buffer& dst = m_n.buffers[s.buffer];
            dma(out, m_array.region(s.region, s.buffer, 0, false, counter()));
            addTransfer(m_n.buffers[s.buffer], m_t.levels[0].name, dst, elems * ir::dtypeBytes(dst.dtype), executions());
            break;
        }
        case Stmt::Kind::Matmul: {
            const lower::MatmulOp& op = m_n.matmuls[s.op];
            detail::MatmulCost m = m_array.matmul(op, counter());
            countAccess(op.a, false, m.aReads);
            countAccess(op.b, false, m.bReads);
            countAccess(op.c, false, m.cReads);
            countAccess(op.c, true, m.cWrites);
            out.array += m.arrayCycles;
            out.host += 2.0 * static_cast<double>(m.executions) * m_t.compute.peArray->hostIssueCycles;
            m_array.instructions().preload += m.executions;
            m_array.instructions().compute += m.executions;
            m_array.addWeightLoads(m.weightLoads);
            m_array.addArrayMacs(m.arrayMacs);
            m_paddingMacs += m.arrayMacs;
            break;
        }
        case Stmt::Kind::AccInit: {
            int64_t n = m_execs[id] = executions();
            if (s.helper || m_array.tensorized(s.stage)) {
                // Host work (the initial row) or the tile's initial value (costed as one mvin per tile row).
                countAccess(s.buffer, true, n);
                if (s.src >= 0)
                    countAccess(s.src, false, n);
                if (s.helper)
                    out.prepare += static_cast<double>(n);
                break;
            }
            countAccess(s.buffer, true, n);
            out.transfer += accessCycles(s.buffer, n);
            if (s.src >= 0) {
                countAccess(s.src, false, n);
                out.transfer += accessCycles(s.src, n);
            }
            break;
        }
        case Stmt::Kind::Load: {
            int64_t n = m_execs[id] = executions();
            if (s.helper) {
                countAccess(s.buffer, false, n);
                out.prepare += static_cast<double>(n);
                break;
            }
            countAccess(s.buffer, false, n);
            out.transfer += accessCycles(s.buffer, n);
            m_loadsAt.push_back({id, n, m_loops.empty() ? -1 : m_loops.back().slot});
            checkVectorStride(s);
            break;
        }
        case Stmt::Kind::Compute: {
            int64_t n = m_execs[id] = executions();
            if (s.helper) {
                // Host arithmetic the schedule added: not a MAC of the kernel.
                if (s.accumulate)
                    countAccess(s.buffer, false, n);
                countAccess(s.buffer, true, n);
                out.prepare += static_cast<double>(n);
                break;
            }
            if (s.accumulate) {
                countAccess(s.buffer, false, n);
                out.transfer += accessCycles(s.buffer, n);
                m_macs += n;
                m_stageMacs[s.stage] += n;
                m_stageTouched[s.stage] = true;
            }
            countAccess(s.buffer, true, n);
            out.transfer += accessCycles(s.buffer, n);
            out.compute += n / macRate(s.stage);
            if (!s.accumulate)
                checkVectorStride(s, true);
            break;
        }
        case Stmt::Kind::AccStore: {
            int64_t n = m_execs[id] = executions();
            if (m_array.tensorized(s.stage)) {
                // mvout (costed per tile) and, unless the output is the raw int32 sum, the
                // requantization on the host.
                countAccess(s.src, false, n);
                countAccess(s.buffer, true, n);
                for (int q : {s.multBuffer, s.shiftBuffer})
                    if (q >= 0)
                        countAccess(q, false, n);
                if (m_k.stages[s.stage].requant || m_n.buffers[s.buffer].dtype != ir::DType::Int32)
                    out.host += static_cast<double>(n) * m_t.compute.peArray->hostRequantizeCycles;
                break;
            }
            countAccess(s.src, false, n);
            countAccess(s.buffer, true, n);
            out.transfer += accessCycles(s.src, n) + accessCycles(s.buffer, n);
            checkVectorStride(s, true);
            for (int q : {s.multBuffer, s.shiftBuffer})
                if (q >= 0) {
                    countAccess(q, false, n);
                    out.transfer += accessCycles(q, n);
                }
            break;
        }
        }
        return out;
    }

    void addTransfer(const Buffer& src, const Buffer& dst, int64_t bytes, int64_t copies)
    {
        addTransfer(src, src.level >= 0 ? m_t.levels[src.level].name : "registers", dst, bytes, copies);
    }

    void addTransfer(const Buffer& src, const std::string& from, const Buffer& dst, int64_t bytes, int64_t copies)
    {
        const std::string& tensor = m_k.tensors[src.tensor].name;
        const std::string to = dst.level >= 0 ? m_t.levels[dst.level].name : "registers";
        for (auto& t : m_transfers)
            if (t.tensor == tensor && t.from == from && t.to == to) {
                t.bytes += bytes;
                t.copies += copies;
                return;
            }
        m_transfers.push_back({tensor, from, to, bytes, copies});
    }

    static void add(Sub& a, const Sub& b)
    {
        a.compute += b.compute;
        a.transfer += b.transfer;
        a.array += b.array;
        a.host += b.host;
        a.prepare += b.prepare;
    }

    /// The initial rows (mvin of the bias or initial row, repeated) and the store (mvout, raw
    /// int32) of a tensorized stage's accumulator tile, once per execution of its allocation;
    /// returns their bus cycles (which a double-buffered tile overlaps).
    double accumulatorTile(Sub& out, const Stmt& alloc)
    {
        double cycles = 0;
        std::vector<int> pending(alloc.body.begin(), alloc.body.end());
        while (!pending.empty()) {
            const Stmt& s = m_n.stmts[pending.back()];
            pending.pop_back();
            pending.insert(pending.end(), s.body.begin(), s.body.end());
            const bool init = s.kind == Stmt::Kind::AccInit && s.buffer == alloc.buffer;
            const bool store = s.kind == Stmt::Kind::AccStore && s.src == alloc.buffer;
            if (!init && !store)
                continue;
            Sub d;
            detail::DmaCost c = m_array.tile(s, alloc.buffer, store, counter());
            dma(d, c);
            cycles += d.transfer;
            add(out, d);
            const Buffer& tile = m_n.buffers[alloc.buffer];
            const int home = 0;
            if (init)
                addTransfer(m_n.buffers[s.src], m_t.levels[home].name, tile, c.elements * ir::dtypeBytes(tile.dtype), executions());
            else
                addTransfer(tile, m_t.levels[tile.level].name, m_n.buffers[s.buffer], c.elements * ir::dtypeBytes(tile.dtype), executions());
        }
        return cycles;
    }

    // ---- occupancy ------------------------------------------------------------------------

    /// The peak of every level: its bytes, and the buffers live at it (outermost first).
    struct Peak {
        std::vector<int64_t> bytes;              ///< per level
        std::vector<std::vector<int>> buffers;   ///< per level: buffers live at the peak
    };

    /// Peak bytes per level of statement `id`'s subtree into bytes[id * L + l], and in
    /// best[id * L + l] the child holding that peak (-1: none). Flat arrays filled once,
    /// instead of a Peak with a list of buffers per level at every statement: that was an
    /// eighth of a search evaluation. The buffers are listed once, at the root (peak()).
    void peakBytes(int id, std::vector<int64_t>& bytes, std::vector<int>& best) const
    {
        const Stmt& s = m_n.stmts[id];
        const size_t L = m_t.levels.size();
        int64_t* p = bytes.data() + static_cast<size_t>(id) * L;
        int* from = best.data() + static_cast<size_t>(id) * L;
        std::fill_n(p, L, 0);
        std::fill_n(from, L, -1);
        for (int c : s.body) {
            // A statement without a body holds nothing (and most are such leaves).
            if (m_n.stmts[c].body.empty() && m_n.stmts[c].kind != Stmt::Kind::Alloc)
                continue;
            peakBytes(c, bytes, best);
            const int64_t* q = bytes.data() + static_cast<size_t>(c) * L;
            for (size_t l = 0; l < L; ++l)
                if (q[l] > p[l]) {  // the first child with the largest peak holds it
                    p[l] = q[l];
                    from[l] = c;
                }
        }
        if (s.kind == Stmt::Kind::Alloc) {
            const Buffer& b = m_n.buffers[s.buffer];
            if (b.level >= 0)
                p[b.level] += alignedFootprint(b);
        }
    }

    Peak peak(int id) const
    {
        const size_t L = m_t.levels.size();
        std::vector<int64_t> bytes(m_n.stmts.size() * L);
        std::vector<int> best(m_n.stmts.size() * L);
        peakBytes(id, bytes, best);
        Peak p{std::vector<int64_t>(bytes.begin() + static_cast<ptrdiff_t>(id * L), bytes.begin() + static_cast<ptrdiff_t>((id + 1) * L)),
               std::vector<std::vector<int>>(L)};
        // Down the chain of statements holding each level's peak: their allocations, outermost first.
        for (size_t l = 0; l < L; ++l)
            for (int at = id; at >= 0; at = best[static_cast<size_t>(at) * L + l]) {
                const Stmt& s = m_n.stmts[at];
                if (s.kind == Stmt::Kind::Alloc && m_n.buffers[s.buffer].level == static_cast<int>(l))
                    p.buffers[l].push_back(s.buffer);
            }
        return p;
    }

    int64_t alignedFootprint(const Buffer& b) const
    {
        int64_t bytes = b.bytes();
        if (b.role != Buffer::Role::Home && b.level > 0) {
            int64_t a = std::max<int64_t>(1, m_t.constraints.alignmentBytes);
            bytes = (bytes + a - 1) / a * a;
        }
        return bytes * (b.doubleBuffer ? 2 : 1);
    }

    std::string loopOf(const Buffer& b) const
    {
        if (b.role == Buffer::Role::Home || b.atVar < 0)
            return "root";
        for (size_t i = 0; i < m_n.stmts.size(); ++i) {
            const Stmt& s = m_n.stmts[i];
            if (s.kind == Stmt::Kind::For && s.stage == b.atStage && s.var == b.atVar)
                return s.name;
        }
        return "root";
    }

    BufferUse use(int id) const
    {
        const Buffer& b = m_n.buffers[id];
        BufferUse u;
        u.name = b.name;
        u.tensor = m_k.tensors[b.tensor].name;
        u.loop = loopOf(b);
        u.shape = b.shape;
        u.bytes = alignedFootprint(b);
        u.doubleBuffered = b.doubleBuffer;
        u.home = b.role == Buffer::Role::Home;
        return u;
    }

    void occupancy(CostReport& r) const
    {
        Peak p = peak(m_n.root);
        // Home buffers live for the whole program.
        for (size_t b = 0; b < m_n.buffers.size(); ++b) {
            const Buffer& buf = m_n.buffers[b];
            if (buf.role == Buffer::Role::Home && buf.level >= 0) {
                p.bytes[buf.level] += buf.bytes();
                p.buffers[buf.level].insert(p.buffers[buf.level].begin(), static_cast<int>(b));
            }
        }
        r.levels.reserve(m_t.levels.size());
        for (size_t l = 0; l < m_t.levels.size(); ++l) {
            LevelReport lr;
            lr.name = m_t.levels[l].name;
            lr.capacityBytes = m_t.levels[l].sizeBytes;
            lr.usedBytes = p.bytes[l];
            lr.buffers.reserve(p.buffers[l].size());
            for (int b : p.buffers[l])
                lr.buffers.push_back(use(b));
            r.levels.push_back(std::move(lr));
        }
    }

    // ---- bounds ---------------------------------------------------------------------------

    /// Distinct elements of a tensor that one access pattern touches over all axis values.
    int64_t touched(const ir::Stage& st, const ir::Access& acc) const
    {
        const ir::Tensor& t = m_k.tensors[acc.tensor];
        int64_t n = 1;
        for (size_t d = 0; d < acc.index.size(); ++d) {
            const auto& e = acc.index[d];
            int64_t lo = e.constant, hi = e.constant, step = 0;
            for (const auto& term : e.terms) {
                int64_t ext = st.axes[term.axis].extent - 1;
                (term.coeff >= 0 ? hi : lo) += term.coeff * ext;
                if (ext > 0)
                    step = std::gcd(step, std::abs(term.coeff));
            }
            if (step == 0)
                step = 1;
            if (lo < 0)
                lo += (-lo + step - 1) / step * step;
            hi = std::min(hi, t.shape[d] - 1);
            n *= hi < lo ? 0 : (hi - lo) / step + 1;
        }
        return n;
    }

    /// Every MAC at the peak rate of its dtype.
    double computeBound() const
    {
        double cycles = 0;
        for (size_t stage = 0; stage < m_stageMacs.size(); ++stage)
            if (m_stageTouched[stage])  // the stages that counted MACs, in order, as a map held them
                cycles += m_stageMacs[stage] / m_stagePeak[stage];
        return std::floor(cycles);
    }

    /// Transfer cycles the ping-pong buffers hide: while one tile computes, the next one's copy
    /// runs. `scale` turns the compute the walk counted into the cycles reported (the issue
    /// model's over the walk's).
    double hideTransfers(double scale)
    {
        // Several ping-pong buffers of one loop share its compute: together they hide at most
        // that much per iteration (one DMA engine moves their next tiles in turn).
        std::map<int, double> hiddenPerIteration;  // per loop slot
        double hidden = 0;
        for (DoubleBufferInfo& d : m_doubleBuffers) {
            d.computePer *= scale;
            double& shared = hiddenPerIteration[d.loopSlot];
            const double hidePer = std::min(d.transferPer, std::max(0.0, d.computePer - shared));
            shared += hidePer;
            hidden += (d.runs - 1) * hidePer;
        }
        return hidden;
    }

    void bounds(CostReport& r) const
    {
        r.bounds.computeCycles = countOf(computeBound());
        // Compulsory: inputs used, read once; outputs written once.
        int64_t bytes = 0;
        for (size_t t = 0; t < m_k.tensors.size(); ++t) {
            const ir::Tensor& ten = m_k.tensors[t];
            if (m_k.isOutput(static_cast<int>(t))) {
                bytes += ten.bytes();
                continue;
            }
            if (!m_k.isInput(static_cast<int>(t)))
                continue;
            int64_t most = 0;
            for (const auto& st : m_k.stages) {
                ir::visitLoads(st.value.get(), [&](const ir::Access& acc) {
                    if (acc.tensor == static_cast<int>(t))
                        most = std::max(most, touched(st, acc));
                });
                if (st.requant && (st.requant->bias == static_cast<int>(t) || st.requant->multiplier.tensor == static_cast<int>(t) || st.requant->shift.tensor == static_cast<int>(t)))
                    most = std::max(most, ten.elements());
            }
            bytes += most * ir::dtypeBytes(ten.dtype);
        }
        r.bounds.compulsoryBytes = bytes;
        r.bounds.ioLowerBoundBytes = ioLowerBound();
    }

    /// Smith et al. 2017 for a single matmul-like stage: Q >= 2mnk/sqrt(S) - 2S words moved
    /// between the outermost level and everything inside it (S words).
    std::optional<int64_t> ioLowerBound() const
    {
        if (m_k.stages.size() != 1)
            return std::nullopt;
        const ir::Stage& st = m_k.stages[0];
        std::vector<const ir::Access*> loads;  // visited, not copied
        ir::visitLoads(st.value.get(), [&](const ir::Access& a) { loads.push_back(&a); });
        if (!st.accumulate || loads.size() != 2)
            return std::nullopt;
        int spatial = st.spatialCount();
        std::vector<int> owner(st.axes.size(), 0);  // bit 1: A, bit 2: B
        for (int which = 0; which < 2; ++which)
            for (const auto& e : loads[which]->index) {
                if (e.terms.size() != 1 || e.terms[0].coeff != 1 || e.constant != 0)
                    return std::nullopt;
                owner[e.terms[0].axis] |= 1 << which;
            }
        int64_t m = 1, n = 1, k = 1;
        for (size_t a = 0; a < st.axes.size(); ++a) {
            bool red = static_cast<int>(a) >= spatial;
            if (red && owner[a] == 3)
                k *= st.axes[a].extent;
            else if (!red && owner[a] == 1)
                m *= st.axes[a].extent;
            else if (!red && owner[a] == 2)
                n *= st.axes[a].extent;
            else
                return std::nullopt;
        }
        int64_t minElem = 8;
        for (const auto& t : m_k.tensors)
            minElem = std::min<int64_t>(minElem, ir::dtypeBytes(t.dtype));
        double s = m_t.compute.registers;
        for (size_t l = 1; l < m_t.levels.size(); ++l)
            s += static_cast<double>(m_t.levels[l].sizeBytes) / minElem;
        double q = 2.0 * m * n * k / std::sqrt(s) - 2.0 * s;
        return satMul(countOf(std::floor(q)), minElem);
    }

    // ---- diagnostics ----------------------------------------------------------------------

    /// What the figures leave out or could not hold: groups of guarded loops over the counting
    /// budget (their statements are not counted), and figures past 2^63 (shown as 2^63 - 1).
    void limits(CostReport& r, const CountBudgetScope& budget) const
    {
        if (budget.largestUncounted() > 0) {
            std::vector<std::string> loops;
            for (int v : budget.uncountedVars())
                if (v >= 0 && v < static_cast<int>(m_n.slotNames.size()))
                    loops.push_back(m_n.slotNames[v]);
            std::string names;
            for (const auto& l : loops)
                names += (names.empty() ? "" : ", ") + l;
            r.diagnostics.push_back({Severity::Error, "uncounted",
                                     "the guards on loops " + names + " span " + std::to_string(budget.largestUncounted())
                                         + " points, more than the " + std::to_string(kMaxEnumeratedPoints)
                                         + " the model counts exactly: the statements under them are left out of these figures; analyse a smaller instance (params:)",
                                     std::nullopt, loops, {}});
        }
        std::vector<std::string> saturated;
        auto check = [&](int64_t v, const std::string& what) {
            if (v == kSaturatedCount)
                saturated.push_back(what);
        };
        check(r.macs, "MACs");
        check(r.cycles.total, "cycles");
        check(r.cycles.compute, "compute cycles");
        check(r.cycles.transfer, "transfer cycles");
        check(r.bounds.computeCycles, "the compute bound");
        for (const auto& l : r.levels) {
            check(l.readBytes, l.name + " bytes read");
            check(l.writeBytes, l.name + " bytes written");
        }
        if (!saturated.empty()) {
            std::string what;
            for (const auto& s : saturated)
                what += (what.empty() ? "" : ", ") + s;
            r.diagnostics.push_back({Severity::Warning, "saturated",
                                     "figures past 2^63 are shown as " + std::to_string(kSaturatedCount) + ", the largest count: " + what,
                                     std::nullopt, {}, {}});
        }
    }

    std::optional<int> stepOfDoubleBuffer(int tensor) const
    {
        std::optional<int> found;
        for (size_t i = 0; i < m_n.trace.size(); ++i)
            if (m_n.trace[i].primitive == sched::Primitive::DoubleBuffer && m_n.trace[i].tensor == m_k.tensors[tensor].name)
                found = static_cast<int>(i);
        return found;
    }

    std::optional<int> stepOfCache(int cache) const
    {
        if (cache < 0)
            return std::nullopt;
        const auto& cs = m_n.caches[cache];
        std::optional<int> found;
        for (size_t i = 0; i < m_n.trace.size(); ++i) {
            const auto& s = m_n.trace[i];
            bool about = s.tensor == m_k.tensors[cs.tensor].name && s.level == m_t.levels[cs.level].name
                && (s.primitive == sched::Primitive::CacheRead || s.primitive == sched::Primitive::CacheWrite
                    || s.primitive == sched::Primitive::ComputeAt);
            if (about)
                found = static_cast<int>(i);
        }
        return found;
    }

    /// The last step of `prim` on loop `loopName` of stage `stage`.
    std::optional<int> stepOfLoop(int stage, const std::string& loopName, sched::Primitive prim) const
    {
        std::optional<int> found;
        const std::string& stageName = m_k.stages[stage].name;
        for (size_t i = 0; i < m_n.trace.size(); ++i) {
            const auto& s = m_n.trace[i];
            if (s.primitive == prim && !s.loops.empty() && s.loops[0] == loopName && (s.stage.empty() || s.stage == stageName))
                found = static_cast<int>(i);
        }
        return found;
    }

    std::string bareLoopName(const std::string& slotName) const
    {
        size_t colon = slotName.find(':');
        return colon == std::string::npos ? slotName : slotName.substr(colon + 1);
    }

    /// Records a vectorized access whose lanes are not neighbours in `s.buffer`.
    void checkVectorStride(const Stmt& s, bool store = false)
    {
        if (m_loops.empty() || m_loops.back().kind != sched::LoopKind::Vectorized)
            return;
        int vslot = m_loops.back().slot;
        const Buffer& b = m_n.buffers[s.buffer];
        // Element distance in the buffer between neighbouring lanes.
        std::vector<int64_t> v(m_n.slotExtents.size(), 0);
        auto flat = [&](const std::vector<int64_t>& vals) {
            int64_t off = 0;
            for (int d : b.storageOrder()) {
                int64_t g = m_n.index.eval(s.index[d], vals.data());
                int64_t o = b.origin[d] == kNoIndex ? 0 : m_n.index.eval(b.origin[d], vals.data());
                off = off * b.shape[d] + (g - o) / b.step[d];
            }
            return off;
        };
        if (s.index.size() != b.shape.size())
            return;
        int64_t a = flat(v);
        v[vslot] = 1;
        int64_t stride = flat(v) - a;
        if (stride != 1 && stride != 0) {
            for (const auto& e : m_strided)
                if (e.loop == m_n.slotNames[vslot] && e.tensor == m_k.tensors[b.tensor].name)
                    return;
            m_strided.push_back({m_n.slotNames[vslot], m_k.tensors[b.tensor].name, stride, s.stage, store, m_loops.back().stmt});
        }
    }

    void diagnostics(CostReport& r)
    {
        auto& out = r.diagnostics;
        // A dtype the target has no MAC rate for.
        for (size_t st = 0; st < m_k.stages.size(); ++st) {
            int first = -1;  // the first load's tensor, not a copy of every load
            ir::visitLoads(m_k.stages[st].value.get(), [&](const ir::Access& a) { first = first < 0 ? a.tensor : first; });
            std::string dtype = first < 0 ? "float32" : ir::dtypeName(m_k.tensors[first].dtype);
            if (!m_t.compute.macsPerCycle.count(dtype))
                out.push_back({Severity::Warning, "no-mac-rate",
                               m_t.name + " lists no " + dtype + " MAC rate (compute.macs_per_cycle); stage " + m_k.stages[st].name
                                   + " is costed at 1 MAC per cycle",
                               std::nullopt, {}, {}});
        }
        // Over capacity.
        for (size_t l = 0; l < r.levels.size(); ++l) {
            const LevelReport& lr = r.levels[l];
            if (lr.usedBytes <= lr.capacityBytes)
                continue;
            std::string list;
            std::vector<std::string> tensors;
            std::optional<int> step;
            for (const auto& b : lr.buffers) {
                list += (list.empty() ? "" : ", ") + b.name + " " + shapeStr(b.shape) + (b.doubleBuffered ? " x2" : "") + " = " + fmtBytes(b.bytes);
                tensors.push_back(b.tensor);
            }
            // Point at the latest step that placed one of the buffers live at the peak.
            for (const auto& b : lr.buffers)
                for (size_t i = 0; i < m_n.buffers.size(); ++i)
                    if (m_n.buffers[i].name == b.name && m_n.buffers[i].level == static_cast<int>(l)) {
                        std::optional<int> st = stepOfCache(m_n.buffers[i].cache);
                        if (st && (!step || *st > *step))
                            step = st;
                    }
            out.push_back({Severity::Error, "over-capacity",
                           lr.name + " holds " + fmtBytes(lr.usedBytes) + " at once but has " + fmtBytes(lr.capacityBytes) + ": " + list,
                           step, {}, tensors});
        }
        // C the exporter refuses to write (its unrolled loops copy their bodies past
        // kMaxWrittenStatements): the instruction figures would describe code that is never
        // written, and the Code view shows none.
        if (const std::string why = codegen::generatedCodeSizeError(m_n); !why.empty())
            out.push_back({Severity::Error, "code-too-large", why + "; the instructions predicted are those of C that is not written",
                           std::nullopt, {}, {}});
        // A cache stage that reloads the same tile.
        for (const auto& c : m_copies) {
            const Stmt& s = m_n.stmts[c.stmt];
            const Buffer& dst = m_n.buffers[c.dst];
            const Buffer& cacheBuf = dst.role == Buffer::Role::Cache ? dst : m_n.buffers[c.src];
            // A sliding cache's fills move along its loop by construction (sched/slide.h); its
            // whole-tile fill runs once per entry into that loop.
            if (cacheBuf.role != Buffer::Role::Cache || cacheBuf.write || s.slidePart >= 0)
                continue;
            std::vector<int> used;
            for (IndexId e : s.region.min)
                m_n.index.slotsOf(e, used);
            for (IndexId e : s.region.count)
                m_n.index.slotsOf(e, used);
            // Loops of the cache's own stage enclosing the copy, outermost first (a cache
            // can only be placed at loops of its stage).
            std::vector<std::pair<int, const std::string*>> all, loops;  // (slot, name), names not copied
            collectEnclosing(m_n.root, c.stmt, all);
            for (const auto& l : all)
                if (m_slotStage[l.first] >= 0 && m_slotStage[l.first] == cacheBuf.ownerStage)
                    loops.push_back(l);
            int innermostUsed = -1;
            for (size_t i = 0; i < loops.size(); ++i)
                if (std::find(used.begin(), used.end(), loops[i].first) != used.end())
                    innermostUsed = static_cast<int>(i);
            std::vector<std::string> idle;
            for (size_t i = innermostUsed + 1; i < loops.size(); ++i)
                if (m_n.slotExtents[loops[i].first] > 1)
                    idle.push_back(*loops[i].second);
            if (idle.empty())
                continue;
            std::string tn = m_k.tensors[cacheBuf.tensor].name;
            std::string lvl = m_t.levels[cacheBuf.level].name;
            std::string where = innermostUsed >= 0 ? bareLoopName(*loops[innermostUsed].second) : "root";
            std::string idleList;
            for (const auto& n : idle)
                idleList += (idleList.empty() ? "" : ", ") + n;
            out.push_back({Severity::Warning, "redundant-reload",
                           tn + "@" + lvl + " reloads the same tile on every iteration of " + idleList + ": its tile does not depend on "
                               + (idle.size() == 1 ? "that loop" : "those loops") + "; compute_at {tensor: " + tn + ", level: " + lvl + ", at: " + where
                               + "} loads it once instead",
                           stepOfCache(cacheBuf.cache), idle, {tn}});
        }
        // Vectorized loops with non-unit stride. On the Arm DSP path a strided operand is packed
        // from separate loads (PKHBT), which the instruction count includes: a hint there, not a
        // warning (the dsp-path hint's own suggestion led to it).
        for (const auto& sv : m_strided) {
            const bool packed = m_t.compute.dsp && !m_t.compute.peArray && !sv.store && codegen::dspRefusal(m_n, m_n.stmts[sv.loopStmt]).empty();
            const std::string fix = "reorder so that " + sv.loop + " indexes the last dimension, or cache " + sv.tensor + " transposed";
            out.push_back({packed ? Severity::Hint : Severity::Warning, "vector-stride",
                           "vectorized loop " + sv.loop + (sv.store ? " writes " : " reads ") + sv.tensor + " with a stride of " + std::to_string(sv.stride)
                               + (packed ? " elements: the DSP path packs its lanes from separate loads (PKHBT), as the instruction count includes; "
                                               + fix + " to load neighbouring lanes as one word"
                                         : " elements; lanes need neighbouring elements (" + fix + ")"),
                           stepOfLoop(sv.stage, bareLoopName(sv.loop), sched::Primitive::Vectorize), {sv.loop}, {sv.tensor}});
        }
        // parallel on a single core: accepted, but the loop runs serially.
        std::set<std::pair<int, int>> parallelSeen;
        for (const Stmt& s : m_n.stmts)
            if (s.kind == Stmt::Kind::For && s.loopKind == sched::LoopKind::Parallel && m_t.compute.cores <= 1
                && parallelSeen.insert({s.stage, s.var}).second)
                out.push_back({Severity::Hint, "single-core-parallel",
                               "parallel loop " + s.name + " runs serially: " + m_t.name + " has one core, so its iterations run one after "
                                   + "another (as the exported C and these figures do); running them at once needs a target with several "
                                   + "cores (compute: {cores: N} in its target file)",
                               stepOfLoop(s.stage, bareLoopName(s.name), sched::Primitive::Parallel), {s.name}, {}});
        // SIMD lanes / PE rows left idle.
        // A loop appears several times in the nest (accumulator init, update, store): report once.
        std::set<std::pair<int, int>> reported;
        for (const Stmt& s : m_n.stmts) {
            if (s.kind != Stmt::Kind::For || s.loopKind != sched::LoopKind::Vectorized || !reported.insert({s.stage, s.var}).second)
                continue;
            int64_t lanes = m_t.compute.peArray ? m_t.compute.peArray->cols : m_t.compute.simdLanes;
            // On a DSP target an int8 or int16 multiply-accumulate loop has the DSP path's lanes
            // (4 int8 or 2 int16 per SMLAD): the generated code takes the path only for a multiple
            // of them and otherwise runs the whole loop as scalar code, not a last partial vector.
            if (const std::string why = m_t.compute.dsp && !m_t.compute.peArray ? codegen::dspRefusal(m_n, s) : "x"; why.empty()) {
                continue;
            } else if (why.starts_with("the vector extent is not a multiple of ")) {
                const std::string dspLanes = why.substr(std::string("the vector extent is not a multiple of ").size());
                out.push_back({Severity::Hint, "idle-lanes",
                               "vectorized loop " + s.name + " has extent " + std::to_string(s.extent) + ", not a multiple of the " + dspLanes
                                   + " lanes of the DSP path: the generated code runs the whole loop as scalar multiply-accumulates; a split factor that is a multiple of "
                                   + dspLanes + " lets it use SMLAD",
                               stepOfLoop(s.stage, bareLoopName(s.name), sched::Primitive::Vectorize), {s.name}, {}});
                continue;
            }
            if (lanes > 1 && s.extent % lanes != 0) {
                int64_t used = s.extent % lanes;
                out.push_back({Severity::Hint, "idle-lanes",
                               "vectorized loop " + s.name + " has extent " + std::to_string(s.extent) + ": the last vector uses "
                                   + std::to_string(used) + " of " + std::to_string(lanes) + " lanes; a split factor that is a multiple of "
                                   + std::to_string(lanes) + " keeps them busy",
                               stepOfLoop(s.stage, bareLoopName(s.name), sched::Primitive::Vectorize), {s.name}, {}});
            }
        }
        // Scalar int8/int16 reductions the DSP path would take if vectorized: what it saves by the
        // instruction model (the same nest with the loop vectorized, counted the same way). Only
        // when it saves at least 10% of the kernel's instructions: a hint, not noise.
        if (r.instructions.available)
            for (const DspSaving& d : dspVectorizeSavings(m_n, m_t, m_execs, r.instructions.predicted)) {
                const Stmt& s = m_n.stmts[d.stmt];
                if (d.before <= 0 || d.after > d.before - d.before / 10)
                    continue;
                const int64_t percent = (d.before - d.after) * 100 / d.before;
                // With several stages the step names its stage (the app applies the suggestion as written).
                const std::string where = m_k.stages.size() > 1 ? "stage: \"" + m_k.stages[s.stage].name + "\", " : "";
                out.push_back({Severity::Hint, "dsp-path",
                               "reduction loop " + s.name + " runs one scalar multiply-accumulate per iteration; vectorize {" + where + "loop: " + bareLoopName(s.name)
                                   + "} lets the generated code use the Arm DSP path (SMLAD: two per instruction): the instruction model predicts "
                                   + groupDigits(d.before) + " instructions as scheduled and " + groupDigits(d.after) + " with it (" + std::to_string(percent)
                                   + "% fewer)",
                               std::nullopt, {s.name}, {}});
            }
        reported.clear();
        if (m_t.compute.peArray)
            for (const Stmt& s : m_n.stmts)
                if (s.kind == Stmt::Kind::For && s.loopKind == sched::LoopKind::Unrolled && s.extent % m_t.compute.peArray->rows != 0
                    && !m_array.tensorized(s.stage) && reported.insert({s.stage, s.var}).second)
                    out.push_back({Severity::Hint, "idle-pe-rows",
                                   s.extent < m_t.compute.peArray->rows
                                       ? "unrolled loop " + s.name + " feeds " + std::to_string(s.extent) + " of the " + std::to_string(m_t.compute.peArray->rows)
                                           + " PE rows; the rest idle"
                                       : "unrolled loop " + s.name + " has extent " + std::to_string(s.extent) + ": its last pass feeds "
                                           + std::to_string(s.extent % m_t.compute.peArray->rows) + " of the " + std::to_string(m_t.compute.peArray->rows)
                                           + " PE rows; the rest idle",
                                   stepOfLoop(s.stage, bareLoopName(s.name), sched::Primitive::Unroll), {s.name}, {}});
        // Target constraints.
        for (size_t b = 0; b < m_n.buffers.size(); ++b) {
            const Buffer& buf = m_n.buffers[b];
            if (buf.role == Buffer::Role::Home || buf.level < 0)
                continue;
            if (m_t.constraints.maxTileSize > 0 && buf.role != Buffer::Role::Accumulator)
                for (int64_t d : buf.shape)
                    if (d > m_t.constraints.maxTileSize) {
                        out.push_back({Severity::Error, "max-tile-size",
                                       buf.name + " has a dimension of " + std::to_string(d) + " elements; " + m_t.name + " allows at most "
                                           + std::to_string(m_t.constraints.maxTileSize) + " per tile dimension",
                                       stepOfCache(buf.cache), {}, {m_k.tensors[buf.tensor].name}});
                        break;
                    }
            int64_t align = m_t.constraints.alignmentBytes;
            if (align > 1 && buf.role == Buffer::Role::Cache) {
                int64_t row = buf.shape[buf.storageOrder().back()] * ir::dtypeBytes(buf.dtype);
                if (row % align != 0)
                    out.push_back({Severity::Hint, "alignment",
                                   buf.name + " rows are " + std::to_string(row) + " bytes, not a multiple of the " + std::to_string(align)
                                       + "-byte alignment " + m_t.name + " asks for DMA buffers; rows after the first start unaligned",
                                   stepOfCache(buf.cache), {}, {m_k.tensors[buf.tensor].name}});
            }
        }
        // Double buffers the code cannot ping-pong: nothing is overlapped.
        for (size_t i = 0; i < m_n.buffers.size(); ++i) {
            const Buffer& b = m_n.buffers[i];
            if (!b.doubleBuffer || m_pingPong[i])
                continue;
            out.push_back({Severity::Warning, "no-overlap",
                           "double buffering " + b.name + " overlaps nothing: its source is filled inside the same loop iteration, so the next tile "
                               "cannot be fetched ahead (it still takes twice the memory); cache the source at an outer loop",
                           stepOfDoubleBuffer(b.tensor),
                           {}, {m_k.tensors[b.tensor].name}});
        }
        // Double buffering that cannot hide its transfers.
        for (const auto& d : m_doubleBuffers) {
            if (d.transferPer <= d.computePer)
                continue;
            const Buffer& b = m_n.buffers[d.buffer];
            std::ostringstream msg;
            msg.precision(0);
            msg << std::fixed << "double buffering " << b.name << " cannot hide its transfer: " << d.transferPer << " cycles per tile against "
                << d.computePer << " cycles of compute; the loop is transfer-bound (larger tiles raise the compute per byte)";
            out.push_back({Severity::Warning, "transfer-bound", msg.str(), stepOfCache(b.cache), {}, {m_k.tensors[b.tensor].name}});
        }
    }

    bool collectEnclosing(int id, int target, std::vector<std::pair<int, const std::string*>>& loops) const
    {
        if (id == target)
            return true;
        const Stmt& s = m_n.stmts[id];
        if (s.kind == Stmt::Kind::For)
            loops.push_back({s.slot, &s.name});
        for (int c : s.body)
            if (collectEnclosing(c, target, loops))
                return true;
        if (s.kind == Stmt::Kind::For)
            loops.pop_back();
        return false;
    }

    struct CopyInfo {
        int stmt, src, dst;
        int64_t elements, runs;
    };
    struct LoadInfo {
        int stmt;
        int64_t runs;
        int innermostSlot;
    };
    struct Strided {
        std::string loop, tensor;
        int64_t stride;
        int stage;
        bool store;
        int loopStmt;  ///< the vectorized For statement
    };
    struct DoubleBufferInfo {
        int buffer;
        double computePer, transferPer;
        double runs;    ///< tiles the buffer holds in turn
        int loopSlot;   ///< the loop whose iterations they are (-1: none)
    };

    const LoopNest& m_n;
    const hw::Target& m_t;
    const ir::Kernel& m_k;
    std::vector<Loop> m_loops;
    std::vector<int> m_loopSlots;  ///< the slots of m_loops
    std::vector<const Cond*> m_conds;
    /// condFactor of each of m_conds, built once per guard (countWith appends to it for a call).
    mutable std::vector<Factor> m_guards;
    mutable std::vector<int> m_scratchSlots;  ///< readsSlot's
    std::vector<std::vector<int64_t>> m_read, m_write;
    int64_t m_macs = 0;
    std::vector<int64_t> m_stageMacs;  ///< per stage
    std::vector<bool> m_stageTouched;  ///< per stage: MACs counted (even 0)
    std::vector<int> m_allocLoop;      ///< per buffer: the slot of the loop around its allocation (-1: none)
    std::vector<int> m_slotStage;      ///< per slot: the stage of its loop (-1: not seen)
    std::vector<int64_t> m_allocRuns;  ///< per buffer: executions of its allocation
    std::vector<bool> m_pingPong;  ///< per buffer: lower::pingPongBuffers()
    std::vector<CopyInfo> m_copies;
    std::vector<LoadInfo> m_loadsAt;
    std::vector<Strided> m_strided;
    std::vector<DoubleBufferInfo> m_doubleBuffers;
    std::vector<TransferReport> m_transfers;
    detail::ArrayModel m_array;
    int64_t m_paddingMacs = 0;  ///< MACs the array does beyond the kernel's (the padding halo): its MACs minus the kernel's
    std::vector<int64_t> m_execs;  ///< per statement: executions (a For: entries)
    std::vector<double> m_stagePeak;  ///< per stage: peakRate of its first load's dtype
    mutable int64_t m_execsHere = -1;  ///< executions() in the current loops and guards (-1: not counted yet)
};

} // namespace

CostReport analyze(const lower::LoopNest& nest, const hw::Target& target)
{
    return Analyzer(nest, target).run();
}

std::vector<int64_t> statementExecutions(const lower::LoopNest& nest, const hw::Target& target)
{
    Analyzer a(nest, target);
    a.run();
    return a.executionsCounted();
}

} // namespace loopscope::analysis
