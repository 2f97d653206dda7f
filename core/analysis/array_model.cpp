// The PE-array model of tensorized stages (docs/cost-model.md, "Gemmini"): every figure is
// counted exactly over the loop nest, as the rest of the cost model is, from the statements the
// Gemmini code generator turns into instructions.
#include "analysis/array_model.h"

#include "lower/gemmini_layout.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "common/saturating.h"
#include <numeric>
#include <sstream>

namespace loopscope::analysis::detail {

using lower::Buffer;
using lower::IndexId;
using lower::kNoIndex;
using lower::Stmt;

namespace {

std::vector<int> slotsOf(const lower::IndexPool& ix, const std::vector<IndexId>& ids)
{
    std::vector<int> out;
    for (IndexId e : ids)
        if (e != kNoIndex)
            ix.slotsOf(e, out);
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

} // namespace

ArrayModel::ArrayModel(const lower::LoopNest& n, const hw::Target& t) : m_n(n), m_t(t)
{
    m_tensorizedStage.assign(n.kernel->stages.size(), false);
    for (const Stmt& s : n.stmts)
        if (s.kind == Stmt::Kind::Matmul && s.stage >= 0)
            m_tensorizedStage[s.stage] = true;
    m_active = t.compute.peArray.has_value() && !n.matmuls.empty();
    m_dim = t.compute.peArray ? t.compute.peArray->rows : 0;
    // A loop whose statements are only accumulator inits and stores becomes mvin/mvout rows; one
    // with host arithmetic (helpers) runs before the array; the others issue instructions. Only
    // asked of the loops of tensorized stages (tensorized() needs an active array): on a CPU
    // target the walk is skipped (it was a hundredth of an analysis there).
    m_hostLoop.assign(n.stmts.size(), HostLoop::Issue);
    if (!m_active || n.root < 0)
        return;
    auto classify = [&](auto&& self, int id) -> int {  // bit 1: helper, bit 2: other than acc init/store
        const Stmt& s = n.stmts[id];
        int bits = 0;
        if (s.helper)
            bits |= 1;
        else if (s.kind != Stmt::Kind::For && s.kind != Stmt::Kind::If && s.kind != Stmt::Kind::AccInit && s.kind != Stmt::Kind::AccStore)
            bits |= 2;
        for (int c : s.body)
            bits |= self(self, c);
        if (s.kind == Stmt::Kind::For)
            m_hostLoop[id] = (bits & 1) ? HostLoop::Serial : (bits & 2) ? HostLoop::Issue : HostLoop::None;
        return bits;
    };
    classify(classify, n.root);
}

bool ArrayModel::tensorized(int stage) const
{
    return m_active && stage >= 0 && stage < static_cast<int>(m_tensorizedStage.size()) && m_tensorizedStage[stage];
}

void ArrayModel::noteDmaRow(int buffer, int64_t rowBytes)
{
    const int64_t limit = m_t.compute.peArray ? m_t.compute.peArray->dmaMaxBytes : 0;
    if (limit <= 0 || rowBytes <= limit)
        return;
    for (const auto& w : m_wideRows)
        if (w.buffer == buffer)
            return;
    m_wideRows.push_back({buffer, rowBytes});
}

DmaCost ArrayModel::region(const lower::Region& r, int rowBuffer, int otherLevel, bool out, const Counter& count)
{
    const Buffer& b = m_n.buffers[rowBuffer];
    const lower::IndexPool* ix = &m_n.index;
    const int64_t lanes = std::max<int64_t>(1, lower::rowLanes(m_t, b));
    const int64_t es = ir::dtypeBytes(b.dtype);
    const double bw = std::min(m_t.levels[b.level].bandwidthBytesPerCycle, m_t.levels[otherLevel].bandwidthBytesPerCycle);
    const std::vector<int> order = b.storageOrder();
    const int last = order.back();
    const int second = order.size() >= 2 ? order[order.size() - 2] : -1;
    noteDmaRow(rowBuffer, std::min<int64_t>(lanes, b.shape[last]) * es);
    const std::vector<IndexId> counts = r.count;
    const std::vector<int> vars = slotsOf(m_n.index, counts);
    auto each = [=](const int64_t* v, std::vector<int64_t>& c) {
        c.resize(counts.size());
        for (size_t d = 0; d < counts.size(); ++d)
            c[d] = std::max<int64_t>(0, ix->eval(counts[d], v));
    };
    // Bus beats of one row of the region: chunks of at most `lanes` elements, each its own
    // request of ceil(bytes / bus width) beats.
    auto beats = [=](int64_t elements) {
        const int64_t full = elements / lanes, rest = elements % lanes;
        const auto beat = [=](int64_t e) { return countOf(static_cast<double>(e) * static_cast<double>(es) / bw); };
        return full * beat(lanes) + (rest > 0 ? beat(rest) : 0);
    };
    DmaCost cost;
    cost.elements = count({Factor{vars, [=](const int64_t* v) {
        std::vector<int64_t> c;
        each(v, c);
        int64_t p = 1;
        for (int64_t x : c)
            p *= x;
        return p;
    }}});
    const int64_t busBeats = count({Factor{vars, [=](const int64_t* v) {
        std::vector<int64_t> c;
        each(v, c);
        int64_t rows = 1;
        for (size_t d = 0; d < c.size(); ++d)
            if (static_cast<int>(d) != last)
                rows *= c[d];
        return rows * beats(c[last]);
    }}});
    // One instruction moves up to DIM rows along the dimension stored next to the innermost
    // one, and up to DIM lanes.
    const int64_t instructions = count({Factor{vars, [=](const int64_t* v) {
        std::vector<int64_t> c;
        each(v, c);
        int64_t n = 1;
        for (size_t d = 0; d < c.size(); ++d) {
            if (static_cast<int>(d) == last || static_cast<int>(d) == second)
                n *= (c[d] + lanes - 1) / lanes;
            else
                n *= c[d];
        }
        return n;
    }}});
    const int64_t executions = count({});
    const int outer = std::min(b.level, otherLevel);
    cost.cycles = static_cast<double>(busBeats) + static_cast<double>(executions * m_t.levels[outer].latencyCycles);
    (out ? cost.mvouts : cost.mvins) = instructions;
    cost.configs = executions;
    return cost;
}

DmaCost ArrayModel::tile(const lower::Stmt& leaf, int tileBuffer, bool store, const Counter& count)
{
    DmaCost c = region(leaf.region, tileBuffer, 0, store, count);
    // A result the host requantizes (or narrows) goes through a staging tile it may read only
    // after a fence.
    const ir::Stage& st = m_n.kernel->stages[leaf.stage];
    if (store && (st.requant || m_n.buffers[leaf.buffer].dtype != ir::DType::Int32))
        c.fences = count({});
    return c;
}

MatmulCost ArrayModel::matmul(const lower::MatmulOp& op, const Counter& count)
{
    const lower::IndexPool* ix = &m_n.index;
    MatmulCost c;
    auto product = [&](std::vector<IndexId> ids) {
        std::vector<int> vars = slotsOf(m_n.index, ids);
        return Factor{vars, [ix, ids](const int64_t* v) {
                          int64_t p = 1;
                          for (IndexId e : ids)
                              p *= std::max<int64_t>(0, ix->eval(e, v));
                          return p;
                      }};
    };
    auto atSlot = [](int slot, int64_t value, bool equal = true) {
        return Factor{{slot}, [slot, value, equal](const int64_t* v) -> int64_t { return (v[slot] == value) == equal ? 1 : 0; }};
    };
    const bool ws = op.dataflow == sched::Dataflow::WeightStationary;
    const bool reuse = op.reuseSlot >= 0;
    c.executions = count({});
    c.aReads = count({product({op.rows, op.depth})});
    std::vector<Factor> bf = {product({op.depth, op.cols})};
    if (ws && reuse)
        bf.push_back(atSlot(op.reuseSlot, 0));
    c.bReads = count(bf);
    c.weightLoads = reuse ? count({atSlot(op.reuseSlot, 0)}) : c.executions;
    std::vector<Factor> wf = {product({op.rows, op.cols})};
    if (!ws && reuse)
        wf.push_back(atSlot(op.reuseSlot, op.reuseExtent - 1));
    c.cWrites = count(wf);
    if (op.overwriteFirst) {
        // Reads exclude the writes that overwrite: those with every first-slot at 0.
        std::vector<int> first = op.firstSlots;
        std::vector<Factor> rf = wf;
        rf.push_back(Factor{first, [first](const int64_t* v) -> int64_t {
                                for (int s : first)
                                    if (v[s] != 0)
                                        return 1;
                                return 0;
                            }});
        c.cReads = first.empty() ? 0 : count(rf);
    } else {
        c.cReads = c.cWrites;
    }
    c.arrayMacs = count({product({op.rows, op.cols, op.depth})});
    const hw::PeArray& pe = *m_t.compute.peArray;
    c.arrayCycles = static_cast<double>(c.executions) * pe.computeCycles
        + static_cast<double>(c.weightLoads) * std::max(0, pe.preloadCycles - pe.computeCycles);
    return c;
}

int64_t ArrayModel::usefulMacs(int stage) const
{
    const ir::Kernel& k = *m_n.kernel;
    const ir::Stage& st = k.stages[stage];
    std::vector<int> vars;
    std::vector<int64_t> extents;
    for (size_t a = 0; a < st.axes.size(); ++a) {
        vars.push_back(static_cast<int>(a));
        extents.push_back(st.axes[a].extent);
    }
    std::vector<Factor> factors;
    if (st.padZero)
        for (const ir::Access& acc : st.loads())
            for (size_t d = 0; d < acc.index.size(); ++d) {
                const ir::AffineExpr e = acc.index[d];
                const int64_t size = k.tensors[acc.tensor].shape[d];
                Factor f;
                for (const auto& t : e.terms)
                    f.vars.push_back(t.axis);
                f.eval = [e, size](const int64_t* v) -> int64_t {
                    int64_t x = e.constant;
                    for (const auto& t : e.terms)
                        x += t.coeff * v[t.axis];
                    return x >= 0 && x < size ? 1 : 0;
                };
                factors.push_back(std::move(f));
            }
    return sumOfProducts(vars, extents, factors);
}

int64_t ArrayModel::smallestBlock(IndexId count) const
{
    // The fewest rows (or columns) a block that runs has: blocks a partial tile leaves empty do
    // not run. The count depends on a few outer loops; enumerate them (or fall back to the bound).
    std::vector<int> vars;
    m_n.index.slotsOf(count, vars);
    std::sort(vars.begin(), vars.end());
    vars.erase(std::unique(vars.begin(), vars.end()), vars.end());
    int64_t points = 1;
    for (int v : vars)
        points = std::min<int64_t>(points * m_n.slotExtents[v], int64_t(1) << 20);
    if (points >= (int64_t(1) << 20))
        return std::max<int64_t>(1, m_n.index.bounds(count, m_n.slotExtents).first);
    std::vector<int64_t> values(m_n.slotExtents.size(), 0);
    int64_t fewest = std::numeric_limits<int64_t>::max();
    while (true) {
        const int64_t c = m_n.index.eval(count, values.data());
        if (c > 0)
            fewest = std::min(fewest, c);
        size_t i = 0;
        for (; i < vars.size(); ++i) {
            if (++values[vars[i]] < m_n.slotExtents[vars[i]])
                break;
            values[vars[i]] = 0;
        }
        if (i == vars.size())
            break;
    }
    return fewest == std::numeric_limits<int64_t>::max() ? 0 : fewest;
}

void ArrayModel::finish(CostReport& r, int64_t arrayCycles, int64_t hostCycles, int64_t prepareCycles)
{
    if (!m_active)
        return;
    ArrayReport a;
    a.dim = m_dim;
    std::vector<std::string> dataflows;
    for (const auto& op : m_n.matmuls)
        if (std::find(dataflows.begin(), dataflows.end(), sched::dataflowName(op.dataflow)) == dataflows.end())
            dataflows.push_back(sched::dataflowName(op.dataflow));
    for (const auto& d : dataflows)
        a.dataflow += (a.dataflow.empty() ? "" : ", ") + d;
    a.instructions = m_instructions;
    a.weightLoads = m_weightLoads;
    a.arrayCycles = arrayCycles;
    a.hostCycles = hostCycles;
    a.prepareCycles = prepareCycles;
    a.arrayMacs = m_arrayMacs;
    for (size_t s = 0; s < m_tensorizedStage.size(); ++s)
        if (m_tensorizedStage[s])
            a.usefulMacs += usefulMacs(static_cast<int>(s));
    const double capacity = static_cast<double>(m_instructions.compute) * m_dim * m_dim * m_dim;
    a.peUtilisation = capacity > 0 ? static_cast<double>(a.usefulMacs) / capacity : 0.0;
    a.peakFraction = r.cycles.total > 0 ? static_cast<double>(r.bounds.computeCycles) / static_cast<double>(r.cycles.total) : 0.0;

    // Rows of the row-addressed levels.
    std::vector<int64_t> peak;
    const std::vector<lower::RowPlacement> placed = lower::placeRows(m_n, &peak);
    for (size_t l = 0; l < m_t.levels.size(); ++l) {
        const hw::MemoryLevel& lv = m_t.levels[l];
        if (lv.rowBytes <= 0)
            continue;
        a.levels.push_back({lv.name, peak[l], lv.rows(), lv.banks, lv.rowBytes});
    }
    for (const auto& p : placed) {
        if (p.level < 0)
            continue;
        const Buffer& b = m_n.buffers[p.buffer];
        const hw::MemoryLevel& lv = m_t.levels[p.level];
        const int64_t perBank = std::max<int64_t>(1, lv.rows() / std::max(1, lv.banks));
        RowBlock rb;
        rb.buffer = b.name;
        rb.tensor = m_n.kernel->tensors[b.tensor].name;
        rb.level = lv.name;
        rb.loop = "root";
        for (const Stmt& s : m_n.stmts)
            if (s.kind == Stmt::Kind::For && b.atVar >= 0 && s.stage == b.atStage && s.var == b.atVar) {
                rb.loop = s.name;
                break;
            }
        rb.baseRow = p.base;
        rb.rows = p.rows;
        rb.doubleBuffered = p.doubled;
        rb.bank = static_cast<int>(p.base / perBank);
        rb.lastBank = static_cast<int>((p.base + p.rows * (p.doubled ? 2 : 1) - 1) / perBank);
        a.rowBlocks.push_back(rb);
    }

    // Diagnostics.
    std::optional<int> step;
    for (size_t i = 0; i < m_n.trace.size(); ++i)
        if (m_n.trace[i].primitive == sched::Primitive::Tensorize)
            step = static_cast<int>(i);
    for (const RowLevel& l : a.levels) {
        if (l.peakRows <= l.rows)
            continue;
        std::string list;
        std::vector<std::string> tensors;
        for (const RowBlock& rb : a.rowBlocks)
            if (rb.level == l.name) {
                list += (list.empty() ? "" : ", ") + rb.buffer + " " + std::to_string(rb.rows) + (rb.doubleBuffered ? " x2" : "") + " rows";
                tensors.push_back(rb.tensor);
            }
        r.diagnostics.push_back({Severity::Error, "over-capacity",
                                 l.name + " needs " + std::to_string(l.peakRows) + " rows at once but has " + std::to_string(l.rows) + " ("
                                     + std::to_string(l.banks) + " banks of " + std::to_string(l.rows / std::max(1, l.banks)) + " rows of "
                                     + std::to_string(l.rowBytes) + " B; a buffer takes whole rows): " + list,
                                 step, {}, tensors});
    }
    for (const auto& w : m_wideRows) {
        const Buffer& b = m_n.buffers[w.buffer];
        r.diagnostics.push_back({Severity::Error, "dma-row-too-wide",
                                 b.name + " moves rows of " + std::to_string(w.bytes) + " bytes (" + std::to_string(m_dim) + " x "
                                     + ir::dtypeName(b.dtype) + "); one mvin or mvout moves at most " + std::to_string(m_t.compute.peArray->dmaMaxBytes)
                                     + " bytes per row (dma_max_bytes)",
                                 step, {}, {m_n.kernel->tensors[b.tensor].name}});
    }
    // PE rows and columns a block leaves idle. In WS the weights (depth x cols) sit in the PEs,
    // in OS the partial sums (rows x cols).
    for (const auto& op : m_n.matmuls) {
        const bool ws = op.dataflow == sched::Dataflow::WeightStationary;
        struct Side {
            const char* code;
            const char* what;
            int slot;
            int64_t extent;
            IndexId count;
        };
        const Side peRows = ws ? Side{"idle-pe-rows", "PE rows", op.slotK, op.extentK, op.depth} : Side{"idle-pe-rows", "PE rows", op.slotI, op.extentI, op.rows};
        const Side peCols{"idle-pe-cols", "PE columns", op.slotJ, op.extentJ, op.cols};
        for (const Side& side : {peRows, peCols}) {
            const std::string loop = m_n.slotNames[side.slot];
            const int64_t fewest = smallestBlock(side.count);
            std::string message;
            if (side.extent < m_dim)
                message = loop + " spans " + std::to_string(side.extent) + " of the " + std::to_string(m_dim) + " " + side.what + " in "
                    + sched::dataflowName(op.dataflow) + "; the other " + std::to_string(m_dim - side.extent) + " idle in every instruction";
            else if (fewest < side.extent)
                message = "edge blocks of " + loop + " use " + std::to_string(fewest) + " of the " + std::to_string(m_dim) + " " + side.what
                    + " (a partial block); an extent that is a multiple of " + std::to_string(m_dim) + " keeps them busy";
            if (!message.empty())
                r.diagnostics.push_back({Severity::Hint, side.code, message, step, {loop}, {}});
        }
    }
    r.array = std::move(a);
}

} // namespace loopscope::analysis::detail
