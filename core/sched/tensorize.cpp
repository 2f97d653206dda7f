// The tensorize primitive: checks that the three innermost loops of a stage form a block the
// PE array can compute (a matrix product of int8 operands cached in the scratchpad, accumulated
// in the accumulator) and records it. Each failed precondition is a typed error naming the
// loops and tensors, and, when a cache is missing, the step that adds it.
#include "sched/tensorize.h"

#include <algorithm>

namespace loopscope::sched {

namespace {

/// Unwinds a failing check inside this file; the public functions turn it into a value.
struct Failure {
    ScheduleError error;
};

[[noreturn]] void fail(std::string message, std::vector<std::string> loops = {}, std::vector<std::string> tensors = {},
                       std::string detail = {})
{
    ScheduleError e;
    e.primitive = Primitive::Tensorize;
    e.message = std::move(message);
    e.detail = std::move(detail);
    e.loops = std::move(loops);
    e.tensors = std::move(tensors);
    throw Failure{std::move(e)};
}

std::string joined(const std::vector<std::string>& v)
{
    std::string out;
    for (const auto& s : v)
        out += (out.empty() ? "" : ", ") + s;
    return out;
}

/// One factor of the product: a load, optionally plus or minus a constant.
bool factorOf(const ir::ExprPtr& e, ir::Access& access, int64_t& offset)
{
    offset = 0;
    if (e->kind == ir::Expr::Kind::Load) {
        access = e->access;
        return true;
    }
    if (e->kind != ir::Expr::Kind::Add && e->kind != ir::Expr::Kind::Sub)
        return false;
    const bool sub = e->kind == ir::Expr::Kind::Sub;
    if (e->a->kind == ir::Expr::Kind::Load && e->b->kind == ir::Expr::Kind::Const && !e->b->isFloatConst) {
        access = e->a->access;
        offset = sub ? -e->b->intValue : e->b->intValue;
        return true;
    }
    if (!sub && e->b->kind == ir::Expr::Kind::Load && e->a->kind == ir::Expr::Kind::Const && !e->a->isFloatConst) {
        access = e->b->access;
        offset = e->a->intValue;
        return true;
    }
    return false;
}

/// The stage axis a loop variable steps, and by how much one iteration moves it; false for
/// fused variables (their values are not a multiple of one axis).
bool axisStep(const StageSchedule& ss, int v, int& axis, int64_t& weight)
{
    weight = 1;
    while (true) {
        const LoopVar& lv = ss.vars[v];
        switch (lv.origin) {
        case LoopVar::Origin::Axis: axis = lv.axis; return true;
        case LoopVar::Origin::SplitInner: v = lv.parent; break;
        case LoopVar::Origin::SplitOuter:
            weight *= lv.factor;
            v = lv.parent;
            break;
        case LoopVar::Origin::Fused: return false;
        }
    }
}

bool uses(const ir::Access& a, int axis)
{
    for (const auto& e : a.index)
        if (e.coeffOf(axis) != 0)
            return true;
    return false;
}

/// Dimensions of an access whose index mentions an axis.
std::vector<int> dimsUsing(const ir::Access& a, int axis)
{
    std::vector<int> out;
    for (size_t d = 0; d < a.index.size(); ++d)
        if (a.index[d].coeffOf(axis) != 0)
            out.push_back(static_cast<int>(d));
    return out;
}

class Checker {
public:
    Checker(const Program& p, int s, int vi, int vj, int vk, const std::string& intrinsic, const std::string& dataflow)
        : m_p(p), m_k(*p.kernel), m_s(s), m_ss(p.stages[s]), m_vi(vi), m_vj(vj), m_vk(vk), m_intrinsic(intrinsic),
          m_dataflow(dataflow)
    {
    }

    TensorizeOperands run()
    {
        target();
        stage();
        loops();
        operands();
        caches();
        return m_ops;
    }

    TensorizeOperands operandsOnly()
    {
        value();
        int64_t w;
        axisStep(m_ss, m_vi, m_ops.axisI, w);
        axisStep(m_ss, m_vj, m_ops.axisJ, w);
        axisStep(m_ss, m_vk, m_ops.axisK, w);
        assignRoles();
        return m_ops;
    }

private:
    const std::string& stageName() const { return m_k.stages[m_s].name; }
    const std::string& loopName(int v) const { return m_ss.vars[v].name; }
    const std::string& tensorName(int t) const { return m_k.tensors[t].name; }
    std::vector<std::string> blockLoops() const { return {loopName(m_vi), loopName(m_vj), loopName(m_vk)}; }
    /// "stage: S, " when a step must name the stage to be unambiguous.
    std::string stagePart() const { return m_k.stages.size() > 1 ? "stage: " + stageName() + ", " : ""; }

    void target()
    {
        if (m_intrinsic.empty())
            fail("tensorize needs an intrinsic: intrinsic: " + std::string(kGemminiMatmul));
        if (m_intrinsic != kGemminiMatmul)
            fail("unknown intrinsic '" + m_intrinsic + "' (known: " + kGemminiMatmul + ")");
        if (m_dataflow.empty())
            fail("tensorize needs a dataflow: weight_stationary or output_stationary");
        Dataflow df;
        if (!parseDataflow(m_dataflow, df))
            fail("unknown dataflow '" + m_dataflow + "' (known: weight_stationary, output_stationary)");
        const hw::Target& t = *m_p.target;
        if (!t.compute.peArray)
            fail("target " + t.name + " has no PE array (compute.pe_array): " + kGemminiMatmul + " runs on an accelerator's systolic array");
        const hw::PeArray& pe = *t.compute.peArray;
        if (std::find(pe.dataflows.begin(), pe.dataflows.end(), m_dataflow) == pe.dataflows.end())
            fail("target " + t.name + "'s PE array does not support " + m_dataflow + " (dataflows: " + joined(pe.dataflows) + ")");
        if (pe.rows != pe.cols)
            fail("target " + t.name + "'s PE array is " + std::to_string(pe.rows) + "x" + std::to_string(pe.cols) + "; " + kGemminiMatmul
                 + " needs a square DIM x DIM array");
        for (const char* level : {kScratchpadLevel, kAccumulatorLevel})
            if (t.findLevel(level) < 0) {
                std::vector<std::string> names;
                for (const auto& l : t.levels)
                    names.push_back(l.name);
                fail("target " + t.name + " has no memory level '" + level + "' (levels: " + joined(names) + "): " + kGemminiMatmul
                     + " reads its operands from the scratchpad and accumulates in the accumulator");
            }
        m_dim = pe.rows;
    }

    void stage()
    {
        const ir::Stage& st = m_k.stages[m_s];
        if (!st.accumulate)
            fail("stage " + stageName() + " is not a reduction (+=): " + kGemminiMatmul + " computes a matrix product", {}, {tensorName(st.output.tensor)});
        const Attach& at = m_ss.computeAt;
        if (!at.isRoot())
            fail("stage " + stageName() + " is computed at " + m_p.stages[at.stage].vars[at.var].name + " of stage " + m_k.stages[at.stage].name
                     + "; a tensorized stage runs at the root (its output lives in DRAM)",
                 {}, {tensorName(st.output.tensor)});
        for (size_t q = 0; q < m_p.stages.size(); ++q)
            if (m_p.stages[q].computeAt.stage == m_s && !m_p.stages[q].inlined)
                fail("stage " + m_k.stages[q].name + " is computed inside stage " + stageName() + "; the host cannot write the scratchpad the array reads",
                     {}, {tensorName(m_k.stages[q].output.tensor)});
        value();
    }

    void value()
    {
        const ir::Stage& st = m_k.stages[m_s];
        ir::ExprPtr v = effectiveValue(m_p, m_s);
        ir::Access x, y;
        int64_t ox = 0, oy = 0;
        if (v->kind != ir::Expr::Kind::Mul || !factorOf(v->a, x, ox) || !factorOf(v->b, y, oy))
            fail("stage " + stageName() + " computes " + st.source + ": " + kGemminiMatmul
                     + " needs a product of two loads, each optionally plus a constant, e.g. (A[i, k] + 128) * B[k, j]",
                 {}, {tensorName(st.output.tensor)});
        m_x = x;
        m_y = y;
        m_ox = ox;
        m_oy = oy;
    }

    void loops()
    {
        const std::vector<int>& order = m_ss.order;
        const int n = static_cast<int>(order.size());
        if (m_vi == m_vj || m_vi == m_vk || m_vj == m_vk)
            fail("tensorize names a loop twice: " + joined(blockLoops()), blockLoops());
        if (n < 3 || order[n - 3] != m_vi || order[n - 2] != m_vj || order[n - 1] != m_vk) {
            std::vector<std::string> inner;
            for (int i = std::max(0, n - 3); i < n; ++i)
                inner.push_back(loopName(order[i]));
            fail("the loops must be the three innermost loops of stage " + stageName() + " in the order [i, j, k]; they are [" + joined(inner)
                     + "], not [" + joined(blockLoops()) + "]",
                 blockLoops(), {}, "reorder them first: reorder {loops: [" + joined(blockLoops()) + "]}");
        }
        for (int v : {m_vi, m_vj, m_vk})
            if (m_ss.vars[v].kind != LoopKind::Serial)
                fail("can't tensorize " + loopName(v) + ": it is " + loopKindName(m_ss.vars[v].kind) + "; the block's loops must be serial",
                     {loopName(v)});
        for (int v : order)
            if (m_ss.vars[v].kind == LoopKind::Parallel)
                fail("loop " + loopName(v) + " of stage " + stageName()
                         + " is parallel: a tensorized stage issues every block to one accelerator, whose scratchpad parallel iterations would share",
                     {loopName(v)});
        if (m_ss.vars[m_vi].reduction || m_ss.vars[m_vj].reduction)
            fail("tensorize maps [" + joined(blockLoops()) + "] onto the array as [i, j, k]: i and j become the rows and columns of the output "
                     "block and must be spatial, but " + loopName(m_ss.vars[m_vi].reduction ? m_vi : m_vj) + " is a reduction loop",
                 blockLoops(), {}, "reorder the stage so that its three innermost loops are two spatial loops, then a reduction loop");
        if (!m_ss.vars[m_vk].reduction)
            fail(loopName(m_vk) + " is not a reduction loop: k must be the reduction shared by both operands", {loopName(m_vk)});
        int64_t w = 0;
        for (int v : {m_vi, m_vj, m_vk}) {
            int axis = -1;
            if (!axisStep(m_ss, v, axis, w))
                fail("can't tensorize fused loop " + loopName(v) + ": its values do not step one axis", {loopName(v)});
            if (w != 1)
                fail("can't tensorize " + loopName(v) + ": it steps its axis by " + std::to_string(w)
                         + "; a block's rows, columns and depth must be consecutive (use the inner part of the split)",
                     {loopName(v)});
            (v == m_vi ? m_ops.axisI : v == m_vj ? m_ops.axisJ : m_ops.axisK) = axis;
        }
        const std::string dim = std::to_string(m_dim);
        const std::string what[] = {"has at most " + dim + " rows", "has at most " + dim + " columns", "reduces over at most " + dim + " elements"};
        int idx = 0;
        for (int v : {m_vi, m_vj, m_vk}) {
            if (m_ss.vars[v].extent > m_dim)
                fail(loopName(v) + " has extent " + std::to_string(m_ss.vars[v].extent) + ": a block " + what[idx] + " (the PE array is " + dim + "x" + dim + ")",
                     {loopName(v)}, {}, "split it: split {loop: " + loopName(v) + ", factor: " + dim + "}");
            ++idx;
        }
    }

    void assignRoles()
    {
        const bool xi = uses(m_x, m_ops.axisI), yi = uses(m_y, m_ops.axisI);
        const bool xj = uses(m_x, m_ops.axisJ), yj = uses(m_y, m_ops.axisJ);
        // A is the factor that i indexes and j does not.
        m_aIsX = (xi && !xj) || !(yi && !yj);
        const ir::Access& a = m_aIsX ? m_x : m_y;
        const ir::Access& b = m_aIsX ? m_y : m_x;
        m_ops.a = a.tensor;
        m_ops.b = b.tensor;
        m_ops.offsetA = m_aIsX ? m_ox : m_oy;
        // effectiveLoads lists the left factor's load first.
        m_ops.loadA = m_aIsX ? 0 : 1;
        m_ops.loadB = m_aIsX ? 1 : 0;
    }

    void operands()
    {
        const ir::Stage& st = m_k.stages[m_s];
        const std::string I = loopName(m_vi), J = loopName(m_vj), K = loopName(m_vk);
        const std::string tx = tensorName(m_x.tensor), ty = tensorName(m_y.tensor);
        const bool xi = uses(m_x, m_ops.axisI), yi = uses(m_y, m_ops.axisI);
        const bool xj = uses(m_x, m_ops.axisJ), yj = uses(m_y, m_ops.axisJ);
        const bool xk = uses(m_x, m_ops.axisK), yk = uses(m_y, m_ops.axisK);
        if (xj && yj)
            fail(J + " indexes both operands, " + tx + " and " + ty
                     + ": j must index only B and the output (the columns of the block); this is a depthwise pattern: each output channel reads its own "
                       "input channel, so there is no reduction shared by a column of the output and a row of the input, and no matrix product to put on "
                       "the PE array",
                 {J}, {tx, ty});
        if (xi && yi)
            fail(I + " indexes both operands, " + tx + " and " + ty + ": i must index only A and the output (the rows of the block)", {I}, {tx, ty});
        if (!(xk && yk))
            fail(K + " must index both operands (the reduction of the matrix product); " + (xk ? ty : tx) + " does not use it", {K}, {xk ? ty : tx});
        if (!(xi || yi))
            fail(I + " indexes neither operand: i must index A (the rows of the block)", {I}, {tx, ty});
        if (!(xj || yj))
            fail(J + " indexes neither operand: j must index B (the columns of the block)", {J}, {tx, ty});
        assignRoles();
        const ir::Access& a = m_aIsX ? m_x : m_y;
        const ir::Access& b = m_aIsX ? m_y : m_x;
        const std::string A = tensorName(a.tensor), B = tensorName(b.tensor);
        const int64_t offB = m_aIsX ? m_oy : m_ox;
        for (const ir::Access* acc : {&a, &b}) {
            const ir::Tensor& t = m_k.tensors[acc->tensor];
            if (t.dtype != ir::DType::Int8)
                fail("the PE array multiplies int8 operands; " + t.name + " is " + ir::dtypeName(t.dtype), {}, {t.name});
        }
        const ir::Tensor& out = m_k.tensors[st.output.tensor];
        if (ir::isFloat(out.dtype))
            fail("the accumulator holds int32 sums; the output " + out.name + " is float32", {}, {out.name});
        if (offB != 0)
            fail("the offset " + std::to_string(offB) + " on " + B + " (the operand indexed by j) cannot be folded into the accumulator's initial value: "
                     "it would add " + std::to_string(offB) + " x the sum of a row of " + A + "; only the operand indexed by i may carry an offset",
                 {}, {B});
        // Layout: A's last dimension runs along k, B's and the output's along j (the lanes of a row).
        const int rankA = static_cast<int>(a.index.size()), rankB = static_cast<int>(b.index.size());
        const int rankC = static_cast<int>(st.output.index.size());
        if (a.index[rankA - 1].coeffOf(m_ops.axisK) != 1 || dimsUsing(a, m_ops.axisK).size() != 1)
            fail(A + "'s last dimension must be indexed by " + K + " alone with a step of 1: a scratchpad row holds " + std::to_string(m_dim)
                     + " consecutive elements along it, the depth of the block",
                 {K}, {A});
        if (a.index[rankA - 1].coeffOf(m_ops.axisI) != 0 || dimsUsing(a, m_ops.axisI).size() != 1)
            fail(I + " must index exactly one dimension of " + A + " other than the last (the rows of the block)", {I}, {A});
        if (a.index[dimsUsing(a, m_ops.axisI)[0]].coeffOf(m_ops.axisI) < 0)
            fail(I + " runs backwards through " + A + "; the rows of a block must follow each other", {I}, {A});
        if (b.index[rankB - 1].coeffOf(m_ops.axisJ) != 1 || dimsUsing(b, m_ops.axisJ).size() != 1)
            fail(B + "'s last dimension must be indexed by " + J + " alone with a step of 1: a scratchpad row holds " + std::to_string(m_dim)
                     + " consecutive elements along it, the columns of the block",
                 {J}, {B});
        if (st.output.index[rankC - 1].terms[0].axis != m_ops.axisJ || rankC < 2 || st.output.index[rankC - 2].terms[0].axis != m_ops.axisI)
            fail("the output " + out.name + " must have " + J + " as its last dimension and " + I
                     + " as the one before it: an accumulator row holds the columns of one output row, and the rows of a block follow each other",
                 {I, J}, {out.name});
        m_b = b;
        m_a = a;
        // Zero padding: only A's non-last dimensions may leave the tensor (the halo is filled with the pad value).
        if (st.padZero)
            for (const ir::Access* acc : {&a, &b})
                for (int d = 0; d < static_cast<int>(acc->index.size()); ++d) {
                    int64_t lo = acc->index[d].constant, hi = lo;
                    for (const auto& term : acc->index[d].terms)
                        (term.coeff >= 0 ? hi : lo) += term.coeff * (st.axes[term.axis].extent - 1);
                    const int64_t ext = m_k.tensors[acc->tensor].shape[d];
                    if (lo >= 0 && hi <= ext - 1)
                        continue;
                    if (acc == &b || d == static_cast<int>(acc->index.size()) - 1)
                        fail("zero padding of " + tensorName(acc->tensor) + " along dimension " + std::to_string(d)
                                 + (acc == &b ? ": only A (the operand indexed by i) may be padded" : ": A's last dimension (the lanes of a row) cannot be padded"),
                             {}, {tensorName(acc->tensor)});
                    const int64_t pad = -m_ops.offsetA;
                    if (pad < -128 || pad > 127)
                        fail(A + " is zero-padded with offset " + std::to_string(m_ops.offsetA) + ": the scratchpad halo would hold " + std::to_string(pad)
                                 + " (so that the padded terms add nothing), which is not an int8",
                             {}, {A});
                }
        // The initial value of the accumulator is a row over j: the bias, plus the offset times
        // the sums of B over the reduction.
        if (st.requant && st.requant->bias >= 0 && st.requant->channel->plainAxis() != m_ops.axisJ)
            fail("the bias " + tensorName(st.requant->bias) + " is indexed by " + ir::affineToString(st, *st.requant->channel) + ", not by " + J
                     + ": the accumulator starts from a row of the bias along the block's columns",
                 {}, {tensorName(st.requant->bias)});
        if (m_ops.offsetA != 0)
            for (size_t ax = 0; ax < st.axes.size(); ++ax)
                if (!st.axes[ax].reduction && static_cast<int>(ax) != m_ops.axisJ && uses(b, static_cast<int>(ax)))
                    fail(B + " depends on " + st.axes[ax].name + " besides " + J + ": the offset on " + A
                             + " is folded into one initial row over j (the offset times the sums of B's columns)",
                         {}, {B});
        for (int t : {a.tensor, b.tensor}) {
            int prod = m_k.producerOf(t);
            if (prod >= 0 && !m_p.stages[prod].computeAt.isRoot())
                fail(tensorName(t) + " is computed at a loop of stage " + stageName() + " into an on-chip buffer; the array's operands are moved in from DRAM by mvin",
                     {}, {tensorName(t)});
        }
    }

    /// The loop just outside the block (where a cache of the whole block tile goes), or root.
    std::string outsideBlock() const
    {
        const int n = static_cast<int>(m_ss.order.size());
        return n >= 4 ? loopName(m_ss.order[n - 4]) : "root";
    }

    int positionOf(const CacheStage& c) const { return c.var < 0 ? -1 : m_ss.position(c.var); }

    /// The cache's tile must start every block at the first lane of a row: the loops between the
    /// cache and the block move the tensor's last index by multiples of DIM.
    void laneAligned(const ir::Access& acc, const CacheStage& c, const std::string& what)
    {
        const int n = static_cast<int>(m_ss.order.size());
        const ir::AffineExpr& last = acc.index.back();
        for (int p = positionOf(c) + 1; p < n - 3; ++p) {
            int v = m_ss.order[p], axis = -1;
            int64_t w = 0;
            if (!axisStep(m_ss, v, axis, w)) {
                if (last.terms.empty())
                    continue;
                fail("fused loop " + loopName(v) + " runs between " + what + " and the block: the block's first lane would not be known", {loopName(v)},
                     {tensorName(acc.tensor)});
            }
            const int64_t move = last.coeffOf(axis) * w;
            if (move % m_dim != 0 || move < 0)
                fail("loop " + loopName(v) + " inside " + what + " moves " + tensorName(acc.tensor) + "'s last index by " + std::to_string(move)
                         + ", not a multiple of " + std::to_string(m_dim) + ": a block would not start at the first element of a " + std::to_string(m_dim)
                         + "-element row",
                     {loopName(v)}, {tensorName(acc.tensor)},
                     "split " + m_k.stages[m_s].axes[axis].name + " by " + std::to_string(m_dim) + ", or place the cache inside " + loopName(v));
        }
    }

    void caches()
    {
        const ir::Stage& st = m_k.stages[m_s];
        const hw::Target& t = *m_p.target;
        const int sp = t.findLevel(kScratchpadLevel), accLevel = t.findLevel(kAccumulatorLevel);
        const int n = static_cast<int>(m_ss.order.size());
        auto cacheOf = [&](int tensor, bool write) {
            std::vector<const CacheStage*> out;
            for (const auto& c : m_p.caches)
                if (c.stage == m_s && c.tensor == tensor && c.write == write)
                    out.push_back(&c);
            return out;
        };
        for (int role = 0; role < 2; ++role) {
            const ir::Access& acc = role == 0 ? m_a : m_b;
            const std::string T = tensorName(acc.tensor);
            const std::string name = role == 0 ? "A" : "B";
            const auto cs = cacheOf(acc.tensor, false);
            const CacheStage* spc = nullptr;
            for (const CacheStage* c : cs) {
                if (c->level != sp)
                    fail(T + " is cached in " + t.levels[c->level].name + "; the array reads its operand " + name + " from the scratchpad only", {}, {T});
                spc = c;
            }
            if (!spc)
                fail(T + " must be cached in the scratchpad (the array reads its operand " + name + " there)", {}, {T},
                     "add cache_read {" + stagePart() + "tensor: " + T + ", level: scratchpad, at: " + outsideBlock() + "}");
            if (positionOf(*spc) >= n - 3)
                fail(T + "@scratchpad sits at " + loopName(spc->var) + ", inside the tensorized block; it must hold the whole block", {loopName(spc->var)}, {T},
                     "compute_at {" + stagePart() + "tensor: " + T + ", level: scratchpad, at: " + outsideBlock() + "}");
            const int rank = static_cast<int>(acc.index.size());
            if (!spc->layout.empty() && spc->layout.back() != rank - 1)
                fail(T + "@scratchpad stores dimension " + std::to_string(spc->layout.back()) + " innermost: mvin moves rows along " + T
                         + "'s last dimension, which must stay innermost in the scratchpad",
                     {}, {T});
            if (role == 1) {
                // The block's rows of B (its k) must be consecutive scratchpad rows.
                const int second = spc->layout.empty() ? rank - 2 : spc->layout[rank - 2];
                const auto kd = dimsUsing(acc, m_ops.axisK);
                if (rank < 2 || kd.size() != 1 || kd[0] != second || acc.index[second].coeffOf(m_ops.axisK) != 1)
                    fail(T + "'s rows in the scratchpad must follow " + loopName(m_vk) + ": " + loopName(m_vk)
                             + " must index, with a step of 1, the dimension stored next to the last one",
                         {loopName(m_vk)}, {T});
            }
            laneAligned(acc, *spc, T + "@scratchpad");
        }
        // The output: accumulated in the accumulator through a cache_write there.
        const std::string C = tensorName(st.output.tensor);
        const CacheStage* cw = nullptr;
        for (const CacheStage* c : cacheOf(st.output.tensor, true)) {
            if (c->level != accLevel)
                fail(C + " is cached in " + t.levels[c->level].name + "; the array's results go to the accumulator", {}, {C});
            cw = c;
        }
        if (!cw) {
            int firstReduction = n;
            for (int p = 0; p < n; ++p)
                if (m_ss.vars[m_ss.order[p]].reduction) {
                    firstReduction = p;
                    break;
                }
            const int at = std::min(firstReduction, n - 3) - 1;
            fail("the output " + C + " must be accumulated in the accumulator", {}, {C},
                 "add cache_write {" + stagePart() + "tensor: " + C + ", level: accumulator, at: " + (at >= 0 ? loopName(m_ss.order[at]) : std::string("root")) + "}");
        }
        for (size_t d = 0; d < cw->layout.size(); ++d)
            if (cw->layout[d] != static_cast<int>(d))
                fail(C + "@accumulator stores its dimensions in another order; the accumulator keeps the output's own order", {}, {C});
        if (positionOf(*cw) >= n - 3)
            fail(C + "@accumulator sits inside the tensorized block", {loopName(cw->var)}, {C});
        laneAligned(st.output, *cw, C + "@accumulator");
        if (st.requant)
            for (int q : {st.requant->bias, st.requant->multiplier.tensor, st.requant->shift.tensor})
                if (q >= 0 && !cacheOf(q, false).empty())
                    fail(tensorName(q) + " is cached, but a tensorized stage reads its requantization parameters from DRAM (the bias by mvin into the accumulator, "
                                         "multiplier and shift by the host)",
                         {}, {tensorName(q)});
    }

    const Program& m_p;
    const ir::Kernel& m_k;
    int m_s;
    const StageSchedule& m_ss;
    int m_vi, m_vj, m_vk;
    std::string m_intrinsic, m_dataflow;
    int64_t m_dim = 16;
    ir::Access m_x, m_y, m_a, m_b;
    int64_t m_ox = 0, m_oy = 0;
    bool m_aIsX = true;
    TensorizeOperands m_ops;
};

} // namespace

std::optional<ScheduleError> checkTensorize(const Program& p, int stage, int i, int j, int k, const Step& step)
{
    try {
        Checker(p, stage, i, j, k, step.intrinsic, step.dataflow).run();
    } catch (const Failure& f) {
        return f.error;
    }
    return std::nullopt;
}

std::optional<ScheduleError> recheckTensorize(const Program& p, int stage)
{
    const auto& ss = p.stages[stage];
    if (!ss.tensorize)
        return std::nullopt;
    const TensorizeSpec& t = *ss.tensorize;
    const std::string prefix = "stage " + p.kernel->stages[stage].name + " is tensorized (step " + std::to_string(t.step + 1) + "): ";
    for (int v : {t.i, t.j, t.k})
        if (!ss.vars[v].active) {
            ScheduleError e;
            e.primitive = Primitive::Tensorize;
            const LoopVar& lv = ss.vars[v];
            e.message = prefix + "its loop " + lv.name + " can't be " + (lv.fusedInto >= 0 ? "fused" : "split");
            e.loops = {lv.name};
            return e;
        }
    try {
        Checker(p, stage, t.i, t.j, t.k, t.intrinsic, dataflowName(t.dataflow)).run();
    } catch (const Failure& f) {
        ScheduleError e = f.error;
        e.message = prefix + e.message;
        return e;
    }
    return std::nullopt;
}

TensorizeOperands tensorizeOperands(const Program& p, int stage)
{
    const auto& ss = p.stages[stage];
    if (!ss.tensorize)
        return {};
    try {
        const TensorizeSpec& t = *ss.tensorize;
        return Checker(p, stage, t.i, t.j, t.k, t.intrinsic, dataflowName(t.dataflow)).operandsOnly();
    } catch (const Failure&) {
        return {};
    }
}

TensorizePlan planTensorize(const Program& p, int stage, Dataflow dataflow)
{
    TensorizePlan plan;
    const auto& ss = p.stages[stage];
    const int n = static_cast<int>(ss.order.size());
    const ir::Kernel& k = *p.kernel;
    Step tz;
    tz.primitive = Primitive::Tensorize;
    if (k.stages.size() > 1)
        tz.stage = k.stages[stage].name;
    for (int q = std::max(0, n - 3); q < n; ++q)
        tz.loops.push_back(ss.vars[ss.order[q]].name);
    tz.intrinsic = kGemminiMatmul;
    tz.dataflow = dataflowName(dataflow);
    // Add what the errors ask for (a cache_read or cache_write), one at a time, until the
    // tensorize applies or an error asks for something else.
    Program cur = p;
    for (int attempt = 0; attempt < 4; ++attempt) {
        ApplyResult r = apply(cur, tz);
        if (r.ok()) {
            plan.legal = true;
            plan.steps.push_back(tz);
            return plan;
        }
        const std::string& d = r.error().detail;
        Step fix;
        const bool read = d.rfind("add cache_read {", 0) == 0, write = d.rfind("add cache_write {", 0) == 0;
        if (!read && !write) {
            plan.error = r.error();
            plan.steps.clear();
            return plan;
        }
        fix.primitive = read ? Primitive::CacheRead : Primitive::CacheWrite;
        fix.stage = tz.stage;
        fix.tensor = r.error().tensors.empty() ? std::string() : r.error().tensors[0];
        fix.level = read ? kScratchpadLevel : kAccumulatorLevel;
        const size_t at = d.find("at: ");
        fix.at = at == std::string::npos ? "root" : d.substr(at + 4, d.size() - at - 5);
        ApplyResult f = apply(cur, fix);
        if (!f.ok()) {
            plan.error = f.error();
            plan.steps.clear();
            return plan;
        }
        cur = std::move(f.program());
        plan.steps.push_back(fix);
    }
    plan.error = apply(cur, tz).error();
    plan.steps.clear();
    return plan;
}

} // namespace loopscope::sched
