// Lowering: kernel + schedule -> loop nest. Places every stage's loops, guards, cache
// stages, producers computed at a loop, the accumulator and hoisted loads.
#include "lower/loop_nest.h"
#include "lower/offset_fold.h"
#include "lower/tensorize_lower.h"
#include "sched/slide.h"

#include <algorithm>
#include <map>
#include <numeric>

namespace loopscope::lower {

namespace {

using sched::LoopVar;
using sched::Program;

/// Interval of an integer quantity inside the body of a loop: [lo, hi] with hi - lo <= width;
/// `point` when it does not vary there.
struct Interval {
    IndexId lo = kNoIndex;
    IndexId hi = kNoIndex;
    int64_t width = 0;
    bool point = true;
};

/// A box of a tensor seen from some depth of a stage's nest.
struct Box {
    Region region;              ///< clipped min / count / step
    std::vector<IndexId> hi;    ///< clipped last index per dimension (below min when empty)
    std::vector<int64_t> shape; ///< static elements per dimension
};

class Lowerer {
public:
    explicit Lowerer(const Program& p) : Lowerer(p, std::vector<sched::Step>(p.trace)) {}

    /// With the program's trace given (moved by lower(Program&&)): lowering does not read it.
    Lowerer(const Program& p, std::vector<sched::Step>&& trace) : m_p(p), m_k(*p.kernel)
    {
        m_n.kernel = p.kernel;
        m_n.target = p.target;
        m_n.trace = std::move(trace);
        m_n.caches = p.caches;
    }

    LoopNest run()
    {
        m_n.index.reserve(256);
        m_n.stmts.reserve(64);
        // Home buffers: every materialised tensor in the outermost level, except
        // intermediates whose producer is computed inside a consumer loop.
        m_home.assign(m_k.tensors.size(), -1);
        for (size_t t = 0; t < m_k.tensors.size(); ++t) {
            int prod = m_k.producerOf(static_cast<int>(t));
            if (prod >= 0 && (m_p.stages[prod].inlined || !m_p.stages[prod].computeAt.isRoot()))
                continue;
            bool used = prod >= 0;
            for (size_t s = 0; s < m_k.stages.size() && !used; ++s)
                used = stageUses(static_cast<int>(s), static_cast<int>(t));
            if (!used)
                continue;
            Buffer b;
            b.name = m_k.tensors[t].name;
            b.tensor = static_cast<int>(t);
            b.level = m_p.homeLevel();
            b.dtype = m_k.tensors[t].dtype;
            b.role = Buffer::Role::Home;
            b.shape = m_k.tensors[t].shape;
            b.step.assign(b.shape.size(), 1);
            b.origin.assign(b.shape.size(), kNoIndex);
            m_home[t] = addBuffer(std::move(b));
            m_scope.push_back(m_home[t]);
        }
        int root = newStmt(Stmt::Kind::Block);
        for (size_t s = 0; s < m_k.stages.size(); ++s)
            if (!m_p.stages[s].inlined && m_p.stages[s].computeAt.isRoot())
                emitStage(static_cast<int>(s), root, nullptr);
        m_n.root = root;
        // A double-buffered copy is prefetched only where the code can ping-pong.
        const std::vector<bool> pingPong = pingPongBuffers(m_n);
        for (Stmt& st : m_n.stmts)
            if (st.kind == Stmt::Kind::Copy && st.doubleBuffer)
                st.doubleBuffer = pingPong[m_n.buffers[st.buffer].doubleBuffer ? st.buffer : st.src];
        return std::move(m_n);
    }

private:
    struct LoadInfo {
        const ir::Access* access = nullptr;  ///< in Ctx::value, which holds it
        int reg = -1;
        int depth = -1;
        bool padded = false;   ///< may fall outside its tensor (zero padding)
    };
    struct GuardInfo {
        Cond cond;
        int depth = -1;
    };

    /// Per-stage lowering state.
    struct Ctx {
        int s = -1;
        std::vector<int64_t> extent;      ///< per var, possibly shrunk to a producer region
        std::vector<int> slot;            ///< per active var
        std::vector<IndexId> varExpr;     ///< per var (cache)
        std::vector<IndexId> axisExpr;    ///< per axis
        std::vector<IndexId> regionMin;   ///< per axis (producers computed at a loop)
        std::vector<IndexId> regionMax;
        std::vector<LoadInfo> loads;
        std::vector<GuardInfo> guards;
        ir::ExprPtr value;
        std::map<int, int64_t> foldedOffset;  ///< tensor -> the offset its widening cache holds
        int valueNode = -1;
        int accDepth = -2;                ///< depth of the accumulator; -2: none
        int accBuffer = -1;
        std::vector<IndexId> accIndex;    ///< accumulator index (flat, over its loops)
        // A tensorized stage (lower/tensorize_lower.h): its block, operands and initial value.
        bool tensorized = false;
        sched::TensorizeOperands ops;
        int initBuffer = -1;              ///< the accumulator's initial row (bias or bias + offset correction), or -1
        /// The interval of every axis over the loops inside depth d, at [d + 1]: made once per
        /// depth (box() is asked for every cache and access at a depth; each made its nodes
        /// again). Extents, slots and the producer's region are set before the first box.
        std::vector<std::vector<Interval>> axisIntervals;
    };

    bool stageUses(int s, int t) const
    {
        if (m_p.stages[s].inlined)
            return false;
        const auto& st = m_k.stages[s];
        if (st.output.tensor == t)
            return true;
        bool reads = false;
        sched::visitEffectiveLoads(m_p, s, [&](const ir::Access& a) { reads = reads || a.tensor == t; });
        if (reads)
            return true;
        return st.requant && (st.requant->bias == t || st.requant->multiplier.tensor == t || st.requant->shift.tensor == t);
    }

    /// The loads of `e` (which holds them alive), in evaluation order, not copied.
    static std::vector<const ir::Access*> loadsOf(const ir::ExprPtr& e)
    {
        std::vector<const ir::Access*> out;
        ir::visitLoads(e.get(), [&](const ir::Access& a) { out.push_back(&a); });
        return out;
    }

    int addBuffer(Buffer b)
    {
        m_n.buffers.push_back(std::move(b));
        return static_cast<int>(m_n.buffers.size() - 1);
    }
    int newStmt(Stmt::Kind k)
    {
        Stmt s;
        s.kind = k;
        m_n.stmts.push_back(std::move(s));
        return static_cast<int>(m_n.stmts.size() - 1);
    }
    int newSlot(const std::string& name, int64_t extent)
    {
        m_n.slotNames.push_back(name);
        m_n.slotExtents.push_back(extent);
        return static_cast<int>(m_n.slotNames.size() - 1);
    }
    void append(int block, int child) { m_n.stmts[block].body.push_back(child); }
    IndexPool& ix() { return m_n.index; }

    /// Innermost visible buffer of a tensor for a stage.
    int lookup(int tensor, int stage) const
    {
        for (auto it = m_scope.rbegin(); it != m_scope.rend(); ++it) {
            const Buffer& b = m_n.buffers[*it];
            if (b.tensor == tensor && b.role != Buffer::Role::Accumulator
                && (b.ownerStage < 0 || b.ownerStage == stage))
                return *it;
        }
        return -1;
    }

    // ---- variables, axes, intervals ------------------------------------------------------

    const sched::StageSchedule& ss(const Ctx& c) const { return m_p.stages[c.s]; }

    IndexId varExpr(Ctx& c, int v)
    {
        if (c.varExpr[v] != kNoIndex)
            return c.varExpr[v];
        const LoopVar& lv = ss(c).vars[v];
        IndexId e;
        if (lv.active)
            e = ix().slot(c.slot[v]);
        else if (lv.splitOuter >= 0)
            e = ix().add(ix().mul(varExpr(c, lv.splitOuter), lv.factor > 0 ? c.extent[lv.splitInner] : 1), varExpr(c, lv.splitInner));
        else {
            int f = lv.fusedInto;
            const LoopVar& fv = ss(c).vars[f];
            int64_t innerExt = c.extent[fv.fusedInner];
            e = fv.fusedOuter == v ? ix().div(varExpr(c, f), innerExt) : ix().mod(varExpr(c, f), innerExt);
        }
        c.varExpr[v] = e;
        return e;
    }

    /// Position in the stage's loop order of the innermost loop an index depends on (-1: none).
    int depthOf(const Ctx& c, IndexId e) const
    {
        std::vector<int> slots;
        m_n.index.slotsOf(e, slots);
        int d = -1;
        const auto& order = ss(c).order;
        for (int sl : slots)
            for (size_t i = 0; i < order.size(); ++i)
                if (c.slot[order[i]] == sl)
                    d = std::max(d, static_cast<int>(i));
        return d;
    }

    Interval varInterval(Ctx& c, int v, int depth)
    {
        const LoopVar& lv = ss(c).vars[v];
        Interval r;
        if (lv.active) {
            int pos = ss(c).position(v);
            if (pos <= depth) {
                r.lo = r.hi = ix().slot(c.slot[v]);
                return r;
            }
            r.lo = ix().constant(0);
            r.hi = ix().constant(c.extent[v] - 1);
            r.width = c.extent[v] - 1;
            r.point = false;
            return r;
        }
        if (lv.splitOuter >= 0) {
            int64_t f = c.extent[lv.splitInner];
            Interval o = varInterval(c, lv.splitOuter, depth);
            Interval i = varInterval(c, lv.splitInner, depth);
            r.point = o.point && i.point;
            r.lo = ix().add(ix().mul(o.lo, f), i.lo);
            r.hi = ix().add(ix().mul(o.hi, f), i.hi);
            r.width = o.width * f + i.width;
            if (c.extent[v] % f != 0 || c.extent[lv.splitOuter] * f != c.extent[v])
                r.hi = ix().min(r.hi, ix().constant(c.extent[v] - 1));
            return r;
        }
        const LoopVar& fv = ss(c).vars[lv.fusedInto];
        Interval f = varInterval(c, lv.fusedInto, depth);
        if (f.point) {
            r.lo = r.hi = varExpr(c, v);
            return r;
        }
        r.lo = ix().constant(0);
        r.hi = ix().constant(c.extent[v] - 1);
        r.width = c.extent[v] - 1;
        r.point = false;
        (void)fv;
        return r;
    }

    Interval axisInterval(Ctx& c, int axis, int depth)
    {
        Interval r = varInterval(c, axis, depth);  // axis a is variable a (Program::initial)
        if (c.regionMin.empty() || c.regionMin[axis] == kNoIndex)
            return r;
        r.lo = ix().add(c.regionMin[axis], r.lo);
        r.hi = ix().min(ix().add(c.regionMin[axis], r.hi), c.regionMax[axis]);
        if (r.point)
            r.hi = r.lo;
        return r;
    }

    /// Box of all accesses `accs` (same tensor, same coefficients) over the loops inside
    /// `depth`. `clamp` clips to the tensor (zero padding); `unitStep` forces step 1.
    Box box(Ctx& c, const std::vector<const ir::Access*>& accs, int depth, bool clamp, bool unitStep, bool capToTensor = true)
    {
        const ir::Tensor& t = m_k.tensors[accs[0]->tensor];
        const ir::Stage& st = m_k.stages[c.s];
        Box b;
        if (depth < -1)
            depth = -1;
        const size_t key = static_cast<size_t>(depth + 1);
        if (c.axisIntervals.size() <= key)
            c.axisIntervals.resize(key + 1);
        if (c.axisIntervals[key].size() != st.axes.size()) {
            std::vector<Interval> made(st.axes.size());
            for (size_t a = 0; a < st.axes.size(); ++a)
                made[a] = axisInterval(c, static_cast<int>(a), depth);
            c.axisIntervals[key] = std::move(made);
        }
        const std::vector<Interval>& ax = c.axisIntervals[key];
        const bool clampAll = clamp;
        // One allocation per vector, not one per doubling (a box per cache and access, every lowering).
        b.region.min.reserve(t.shape.size());
        b.hi.reserve(t.shape.size());
        b.region.count.reserve(t.shape.size());
        b.region.step.reserve(t.shape.size());
        b.shape.reserve(t.shape.size());
        for (size_t d = 0; d < t.shape.size(); ++d) {
            const ir::AffineExpr& e = accs[0]->index[d];
            IndexId lo = ix().constant(0), hi = ix().constant(0);
            int64_t width = 0, step = 0;
            for (const auto& term : e.terms) {
                const Interval& iv = ax[term.axis];
                if (term.coeff >= 0) {
                    lo = ix().add(lo, ix().mul(iv.lo, term.coeff));
                    hi = ix().add(hi, ix().mul(iv.hi, term.coeff));
                } else {
                    lo = ix().add(lo, ix().mul(iv.hi, term.coeff));
                    hi = ix().add(hi, ix().mul(iv.lo, term.coeff));
                }
                width += std::abs(term.coeff) * iv.width;
                if (!iv.point)
                    step = std::gcd(step, std::abs(term.coeff));
            }
            int64_t kmin = e.constant, kmax = e.constant;
            for (const ir::Access* a : accs) {
                kmin = std::min(kmin, a->index[d].constant);
                kmax = std::max(kmax, a->index[d].constant);
                step = std::gcd(step, a->index[d].constant - e.constant);
            }
            if (step == 0 || unitStep)
                step = 1;
            lo = ix().addConst(lo, kmin);
            hi = ix().addConst(hi, kmax);
            width += kmax - kmin;
            // Clip to the tensor only where the index can leave it (zero padding).
            int64_t staticLo = e.constant, staticHi = e.constant;
            for (const auto& term : e.terms)
                (term.coeff >= 0 ? staticHi : staticLo) += term.coeff * (st.axes[term.axis].extent - 1);
            staticLo += kmin - e.constant;
            staticHi += kmax - e.constant;
            bool clipLo = clamp && staticLo < 0;
            bool clipHi = clamp && staticHi > t.shape[d] - 1;
            if (clipLo) {
                IndexId neg = ix().max(ix().constant(0), ix().mul(lo, -1));
                lo = step == 1 ? ix().max(lo, ix().constant(0))
                               : ix().add(lo, ix().mul(ix().div(ix().addConst(neg, step - 1), step), step));
            }
            if (clipHi)
                hi = ix().min(hi, ix().constant(t.shape[d] - 1));
            clamp = clamp && (clipLo || clipHi);
            IndexId count = ix().addConst(ix().div(ix().sub(hi, lo), step), 1);
            if (clamp && !ix().isConst(count))
                count = ix().max(ix().constant(0), count);
            clamp = clampAll;
            b.region.min.push_back(lo);
            b.hi.push_back(hi);
            b.region.count.push_back(count);
            b.region.step.push_back(step);
            int64_t full = (t.shape[d] - 1) / step + 1;
            // A box that keeps its padding halo is as wide as the halo along the padded dimensions.
            const bool halo = !capToTensor && (staticLo < 0 || staticHi > t.shape[d] - 1);
            b.shape.push_back(std::min(width / step + 1, halo ? (staticHi - staticLo) / step + 1 : full));
        }
        return b;
    }

    std::vector<const ir::Access*> accessesOf(const Ctx& c, int tensor) const
    {
        std::vector<const ir::Access*> out;
        for (const auto& l : c.loads)
            if (l.access->tensor == tensor)
                out.push_back(l.access);
        return out;
    }

    // ---- value expressions ---------------------------------------------------------------

    int valueNode(ValueNode v)
    {
        m_n.values.push_back(v);
        return static_cast<int>(m_n.values.size() - 1);
    }

    int buildValue(Ctx& c, const ir::ExprPtr& e, size_t& nextLoad)
    {
        ValueNode v;
        switch (e->kind) {
        case ir::Expr::Kind::Const:
            v.op = ValueNode::Op::Const;
            v.intValue = e->intValue;
            v.floatValue = e->isFloatConst ? e->floatValue : static_cast<double>(e->intValue);
            return valueNode(v);
        case ir::Expr::Kind::Load:
            v.op = ValueNode::Op::Reg;
            v.reg = c.loads[nextLoad++].reg;
            return valueNode(v);
        case ir::Expr::Kind::Neg:
            v.op = ValueNode::Op::Neg;
            v.a = buildValue(c, e->a, nextLoad);
            return valueNode(v);
        case ir::Expr::Kind::Add: {
            // `T[...] + c` read from a widening cache that already holds T + c.
            const bool loadLeft = e->a->kind == ir::Expr::Kind::Load && e->b->kind == ir::Expr::Kind::Const;
            const bool loadRight = e->b->kind == ir::Expr::Kind::Load && e->a->kind == ir::Expr::Kind::Const;
            if (loadLeft || loadRight) {
                const ir::Expr& load = loadLeft ? *e->a : *e->b;
                const ir::Expr& k = loadLeft ? *e->b : *e->a;
                auto f = c.foldedOffset.find(load.access.tensor);
                if (f != c.foldedOffset.end() && f->second == k.intValue)
                    return buildValue(c, loadLeft ? e->a : e->b, nextLoad);
            }
            v.op = ValueNode::Op::Add;
            break;
        }
        case ir::Expr::Kind::Sub: v.op = ValueNode::Op::Sub; break;
        case ir::Expr::Kind::Mul: v.op = ValueNode::Op::Mul; break;
        }
        int a = buildValue(c, e->a, nextLoad);
        int b = buildValue(c, e->b, nextLoad);
        v.a = a;
        v.b = b;
        return valueNode(v);
    }

    IndexId accessIndex(Ctx& c, const ir::AffineExpr& e)
    {
        IndexId r = ix().constant(e.constant);
        for (const auto& t : e.terms)
            r = ix().add(r, ix().mul(c.axisExpr[t.axis], t.coeff));
        return r;
    }

    std::string slotName(int s, const LoopVar& v) const
    {
        int live = 0;
        for (const auto& st : m_p.stages)
            live += st.inlined ? 0 : 1;
        if (live == 1)
            return v.name;
        return m_k.stages[s].name + ":" + v.name;
    }

    // ---- stage emission -------------------------------------------------------------------

    /// Emits stage s into `block`. `region` holds, for producers computed at a consumer loop,
    /// the per-dimension min/max of their output that the consumer needs.
    void emitStage(int s, int block, const Box* region)
    {
        const ir::Stage& st = m_k.stages[s];
        const auto& sched = m_p.stages[s];
        Ctx c;
        c.s = s;
        c.extent.resize(sched.vars.size());
        c.slot.assign(sched.vars.size(), -1);
        c.varExpr.assign(sched.vars.size(), kNoIndex);
        // Extents: axes (possibly shrunk to the producer's region), then derived variables
        // in creation order (a split or fuse always creates variables after their sources).
        for (size_t v = 0; v < sched.vars.size(); ++v) {
            const LoopVar& lv = sched.vars[v];
            switch (lv.origin) {
            case LoopVar::Origin::Axis: c.extent[v] = lv.extent; break;
            case LoopVar::Origin::SplitOuter: c.extent[v] = (c.extent[lv.parent] + lv.factor - 1) / lv.factor; break;
            case LoopVar::Origin::SplitInner: c.extent[v] = std::min(lv.factor, c.extent[lv.parent]); break;
            case LoopVar::Origin::Fused: c.extent[v] = c.extent[lv.fusedOuter] * c.extent[lv.fusedInner]; break;
            }
            if (lv.origin == LoopVar::Origin::Axis && region) {
                // Spatial axis a is output dimension d.
                for (size_t d = 0; d < st.output.index.size(); ++d)
                    if (st.output.index[d].terms[0].axis == static_cast<int>(v))
                        c.extent[v] = region->shape[d];
            }
            if (lv.origin == LoopVar::Origin::SplitOuter || lv.origin == LoopVar::Origin::SplitInner) {
                // Recompute outer from the (possibly clipped) inner factor.
                if (lv.origin == LoopVar::Origin::SplitOuter) {
                    int64_t f = std::min(lv.factor, c.extent[lv.parent]);
                    c.extent[v] = (c.extent[lv.parent] + f - 1) / f;
                }
            }
        }
        for (int v : sched.order)
            c.slot[v] = newSlot(slotName(s, sched.vars[v]), c.extent[v]);

        if (region) {
            c.regionMin.assign(st.axes.size(), kNoIndex);
            c.regionMax.assign(st.axes.size(), kNoIndex);
            for (size_t d = 0; d < st.output.index.size(); ++d) {
                int a = st.output.index[d].terms[0].axis;
                c.regionMin[a] = region->region.min[d];
                c.regionMax[a] = ix().addConst(ix().add(region->region.min[d], region->region.count[d]), -1);
            }
        }
        c.axisExpr.resize(st.axes.size());
        for (size_t a = 0; a < st.axes.size(); ++a) {
            IndexId e = varExpr(c, static_cast<int>(a));
            if (region && c.regionMin[a] != kNoIndex)
                e = ix().add(c.regionMin[a], e);
            c.axisExpr[a] = e;
        }

        // Guards for partial tiles: every split whose factor does not divide its parent.
        for (size_t v = 0; v < sched.vars.size(); ++v) {
            const LoopVar& lv = sched.vars[v];
            if (lv.splitOuter < 0)
                continue;
            int64_t f = c.extent[lv.splitInner];
            if (c.extent[lv.splitOuter] * f == c.extent[v])
                continue;
            GuardInfo g;
            g.cond.expr = varExpr(c, static_cast<int>(v));
            g.cond.hi = ix().constant(c.extent[v] - 1);
            g.cond.why = Cond::Why::PartialTile;
            g.depth = depthOf(c, g.cond.expr);
            c.guards.push_back(g);
        }
        if (region)
            for (size_t a = 0; a < st.axes.size(); ++a)
                if (c.regionMin[a] != kNoIndex) {
                    GuardInfo g;
                    g.cond.expr = c.axisExpr[a];
                    g.cond.hi = c.regionMax[a];
                    g.cond.why = Cond::Why::Region;
                    g.depth = depthOf(c, varExpr(c, static_cast<int>(a)));
                    c.guards.push_back(g);
                }

        // Loads (after inlining), their registers and depths.
        c.value = sched::effectiveValue(m_p, s);
        for (const auto& cs : m_p.caches)
            if (cs.stage == s && cs.dtype && !cs.write)
                if (int64_t off = sched::widenedOffset(m_p, s, cs.tensor))
                    c.foldedOffset[cs.tensor] = off;
        std::map<std::string, int> regUse;
        for (const ir::Access* load : loadsOf(c.value)) {
            const ir::Access& acc = *load;
            LoadInfo li;
            li.access = load;
            const ir::Tensor& t = m_k.tensors[acc.tensor];
            std::string base = t.name;
            std::transform(base.begin(), base.end(), base.begin(), [](unsigned char ch) { return std::tolower(ch); });
            int n = regUse[base]++;
            m_n.regNames.push_back(base + (n ? std::to_string(n) : ""));
            li.reg = static_cast<int>(m_n.regNames.size() - 1);
            li.depth = -1;
            for (const auto& e : acc.index)
                li.depth = std::max(li.depth, depthOf(c, accessIndex(c, e)));
            // ... and inside the scope of the buffer it reads.
            for (const auto& cs : m_p.caches)
                if (cs.stage == s && cs.tensor == acc.tensor && cs.var >= 0)
                    li.depth = std::max(li.depth, sched.position(cs.var));
            int prod = m_k.producerOf(acc.tensor);
            if (prod >= 0 && m_p.stages[prod].computeAt.stage == s && m_p.stages[prod].computeAt.var >= 0)
                li.depth = std::max(li.depth, sched.position(m_p.stages[prod].computeAt.var));
            if (st.padZero) {
                std::vector<Interval> full;
                for (size_t d = 0; d < acc.index.size(); ++d) {
                    int64_t lo = acc.index[d].constant, hi = acc.index[d].constant;
                    for (const auto& term : acc.index[d].terms) {
                        int64_t ext = st.axes[term.axis].extent - 1;
                        (term.coeff >= 0 ? hi : lo) += term.coeff * ext;
                    }
                    if (lo < 0 || hi > t.shape[d] - 1) {
                        li.padded = true;
                        GuardInfo g;
                        g.cond.expr = accessIndex(c, acc.index[d]);
                        g.cond.lo = lo < 0 ? ix().constant(0) : kNoIndex;
                        g.cond.hi = hi > t.shape[d] - 1 ? ix().constant(t.shape[d] - 1) : kNoIndex;
                        g.cond.why = Cond::Why::Padding;
                        g.depth = depthOf(c, g.cond.expr);
                        c.guards.push_back(g);
                    }
                }
            }
            c.loads.push_back(li);
        }
        // A padding guard skips the whole term: the update sits inside it, so loads of the
        // padded tensor must too; other loads may be hoisted above it.
        size_t next = 0;
        c.valueNode = buildValue(c, c.value, next);

        // The accumulator sits just outside the outermost reduction loop.
        int n = static_cast<int>(sched.order.size());
        if (st.accumulate) {
            int r = n;
            for (int i = 0; i < n; ++i)
                if (sched.vars[sched.order[i]].reduction) {
                    r = i;
                    break;
                }
            c.accDepth = r - 1;
        }
        // A padding guard skips a term: it sits at the innermost loop it depends on, but inside
        // the accumulator's scope (skipping must never skip the accumulator's init or store).
        // Loads that may fall outside their tensor go inside every padding guard.
        int padDepth = -1;
        for (auto& g : c.guards)
            if (g.cond.why == Cond::Why::Padding) {
                g.depth = std::min(std::max(g.depth, c.accDepth + 1), n - 1);
                padDepth = std::max(padDepth, g.depth);
            }
        for (auto& l : c.loads)
            if (l.padded)
                l.depth = std::max(l.depth, padDepth);

        if (sched.tensorize) {
            // The block is one instruction: the halo of a padded operand holds the pad value
            // instead of a guard, the accumulator is the cache_write tile in the accumulator.
            c.tensorized = true;
            c.ops = sched::tensorizeOperands(m_p, s);
            c.accDepth = -2;
            std::erase_if(c.guards, [](const GuardInfo& g) { return g.cond.why == Cond::Why::Padding; });
            int bias = st.requant && st.requant->bias >= 0 ? lookup(st.requant->bias, s) : -1;
            c.initBuffer = bias;
            if (c.ops.offsetA != 0) {
                detail::InitRow init = detail::emitInitRow(m_n, m_p, s, block, c.ops, lookup(c.ops.b, s), bias);
                block = init.alloc;
                c.initBuffer = init.buffer;
            }
        }
        emitLevel(c, -1, block);
    }

    /// Emits the body at `depth` (-1: the stage's root; d: inside loop order[d]).
    void emitLevel(Ctx& c, int depth, int block)
    {
        const auto& sched = m_p.stages[c.s];
        const ir::Stage& st = m_k.stages[c.s];
        const int n = static_cast<int>(sched.order.size());
        size_t scopeMark = m_scope.size();

        // 1. guards at this depth. The fills of a sliding cache go inside the partial-tile guards
        //    but outside the padding ones: an iteration whose terms all fall in the padding
        //    still fetches its new rows, which the next iteration keeps.
        const int var = depth >= 0 ? sched.order[depth] : -1;
        std::vector<int> sliding;
        for (const auto& [ci, info] : m_slides)
            if (m_p.caches[ci].stage == c.s && m_p.caches[ci].var == var && var >= 0)
                sliding.push_back(ci);
        std::vector<Cond> conds, padding;
        for (const auto& g : c.guards)
            if (g.depth == depth)
                (!sliding.empty() && g.cond.why == Cond::Why::Padding ? padding : conds).push_back(g.cond);
        for (std::vector<Cond>* part : {&conds, &padding}) {
            if (part == &padding)
                for (int ci : sliding)
                    emitSlideFills(c, ci, block);
            *part = needed(*part);
            if (!part->empty()) {
                int ifs = newStmt(Stmt::Kind::If);
                m_n.stmts[ifs].conds = *part;
                m_n.stmts[ifs].stage = c.s;
                append(block, ifs);
                block = ifs;
            }
        }

        // 2. producers computed here
        for (size_t p = 0; p < m_p.stages.size(); ++p) {
            const auto& ps = m_p.stages[p];
            if (ps.inlined || ps.computeAt.isRoot() || ps.computeAt.stage != c.s || ps.computeAt.var != var)
                continue;
            int t = m_k.stages[p].output.tensor;
            Box reg = box(c, accessesOf(c, t), depth, st.padZero, true);
            Buffer b;
            b.name = m_k.tensors[t].name + "_" + levelName(ps.storeLevel);
            b.tensor = t;
            b.level = ps.storeLevel;
            b.dtype = m_k.tensors[t].dtype;
            b.role = Buffer::Role::Intermediate;
            b.atStage = c.s;
            b.atVar = var;
            b.shape = reg.shape;
            b.step.assign(b.shape.size(), 1);
            b.origin = reg.region.min;
            int bid = addBuffer(std::move(b));
            int alloc = newStmt(Stmt::Kind::Alloc);
            m_n.stmts[alloc].buffer = bid;
            m_n.stmts[alloc].stage = static_cast<int>(p);
            append(block, alloc);
            block = alloc;
            m_scope.push_back(bid);
            emitStage(static_cast<int>(p), block, &reg);
        }

        // 3. cache stages placed here, outer levels first
        std::vector<int> caches;
        for (size_t i = 0; i < m_p.caches.size(); ++i)
            if (m_p.caches[i].stage == c.s && m_p.caches[i].var == var && m_p.caches[i].slideVar < 0)
                caches.push_back(static_cast<int>(i));
        std::stable_sort(caches.begin(), caches.end(), [&](int a, int b) {
            return std::pair(m_p.caches[a].level, m_p.caches[a].tensor) < std::pair(m_p.caches[b].level, m_p.caches[b].tensor);
        });
        std::vector<std::pair<int, int>> writeBacks;  // (alloc block, copy stmt) to append after the body
        for (int ci : caches) {
            const sched::CacheStage& cs = m_p.caches[ci];
            if (c.tensorized && cs.write) {
                block = tensorizedAccumulator(c, depth, ci, block, writeBacks);
                continue;
            }
            std::vector<const ir::Access*> accs;
            if (cs.write)
                accs.push_back(&st.output);
            else
                accs = accessesOf(c, cs.tensor);
            bool clamp = st.padZero && !cs.write;
            Box bx;
            ir::Access quant;
            if (accs.empty()) {
                // Requantize parameters: indexed by the channel axis only.
                quant = quantAccess(st, cs.tensor);
                accs.push_back(&quant);
            }
            // A tensorized operand keeps its padding halo (filled with the pad value below).
            const bool halo = c.tensorized && clamp && cs.tensor == c.ops.a;
            bx = box(c, accs, depth, halo ? false : clamp, false, !halo);
            Region copyRegion = halo ? box(c, accs, depth, true, false).region : bx.region;
            int src = lookup(cs.tensor, c.s);
            Buffer b;
            b.name = m_k.tensors[cs.tensor].name + "_" + levelName(cs.level);
            b.tensor = cs.tensor;
            b.level = cs.level;
            b.dtype = cs.dtype ? *cs.dtype : m_k.tensors[cs.tensor].dtype;
            if (cs.dtype && !cs.write)
                b.valueOffset = sched::widenedOffset(m_p, c.s, cs.tensor);
            b.role = Buffer::Role::Cache;
            b.ownerStage = c.s;
            b.cache = ci;
            b.write = cs.write;
            b.doubleBuffer = cs.doubleBuffer;
            b.atStage = c.s;
            b.atVar = var;
            b.shape = bx.shape;
            b.step = bx.region.step;
            b.origin = bx.region.min;
            b.order = cs.layout;
            int bid = addBuffer(std::move(b));
            int alloc = newStmt(Stmt::Kind::Alloc);
            m_n.stmts[alloc].buffer = bid;
            m_n.stmts[alloc].stage = c.s;
            append(block, alloc);
            int copy = newStmt(Stmt::Kind::Copy);
            Stmt& cp = m_n.stmts[copy];
            cp.stage = c.s;
            cp.region = copyRegion;
            cp.doubleBuffer = cs.doubleBuffer;
            if (cs.write) {
                cp.src = bid;
                cp.buffer = src;
                writeBacks.push_back({alloc, copy});
            } else {
                cp.src = src;
                cp.buffer = bid;
                append(alloc, copy);
            }
            if (halo)
                detail::appendHaloFills(m_n, alloc, c.s, bid, bx.region, m_k.tensors[cs.tensor].shape, -c.ops.offsetA);
            block = alloc;
            m_scope.push_back(bid);
        }

        // 3b. sliding caches of the next loop: their buffer lives across its iterations.
        if (depth + 1 < n)
            block = allocSlides(c, depth + 1, block);

        // 4. the accumulator: one element per iteration of the spatial loops inside the
        //    outermost reduction loop, initialised before it and stored after it.
        int accAlloc = -1;
        std::vector<int> accLoops;
        if (depth == c.accDepth) {
            for (int i = depth + 1; i < n; ++i)
                if (!sched.vars[sched.order[i]].reduction)
                    accLoops.push_back(sched.order[i]);
            Buffer b;
            b.name = m_k.tensors[st.output.tensor].name + "_acc";
            b.tensor = st.output.tensor;
            b.dtype = m_k.isFloatKernel() ? ir::DType::Float32 : (st.requant ? ir::DType::Int32 : m_k.tensors[st.output.tensor].dtype);
            b.role = Buffer::Role::Accumulator;
            b.ownerStage = c.s;
            b.atStage = c.s;
            b.atVar = var;
            // One dimension, row-major over the accumulator's loops (the layout C code uses).
            int64_t elements = 1;
            IndexId flat = ix().constant(0);
            for (int v : accLoops) {
                flat = ix().add(ix().mul(flat, c.extent[v]), ix().slot(c.slot[v]));
                elements *= c.extent[v];
            }
            b.shape = {elements};
            b.step = {1};
            b.origin = {kNoIndex};
            b.level = accumulatorInRegisters(c, depth, b.elements()) ? -1 : m_p.target->innermostLevel();
            int bid = addBuffer(std::move(b));
            c.accBuffer = bid;
            c.accIndex = {flat};
            accAlloc = newStmt(Stmt::Kind::Alloc);
            m_n.stmts[accAlloc].buffer = bid;
            m_n.stmts[accAlloc].stage = c.s;
            append(block, accAlloc);
            int init = newStmt(Stmt::Kind::AccInit);
            m_n.stmts[init].stage = c.s;
            m_n.stmts[init].buffer = bid;
            m_n.stmts[init].index = c.accIndex;
            if (st.requant && st.requant->bias >= 0 && st.requant->channel) {
                m_n.stmts[init].src = lookup(st.requant->bias, c.s);
                m_n.stmts[init].srcIndex = {accessIndex(c, *st.requant->channel)};
            }
            append(accAlloc, accNest(c, depth, accLoops, init));
            block = accAlloc;
        }

        // 5. loads hoisted to this depth (a tensorized block's operands are read by its instruction)
        for (const auto& l : c.loads)
            if (l.depth == depth && !(c.tensorized && depth >= n - 3))
                emitLoad(c, l, block);

        // 6. the next loop, or the update (a tensorized block: one instruction)
        if (c.tensorized && depth + 1 == n - 3) {
            emitBlock(c, block);
        } else if (depth + 1 < n) {
            int v = sched.order[depth + 1];
            const LoopVar& lv = sched.vars[v];
            int loop = newStmt(Stmt::Kind::For);
            Stmt& f = m_n.stmts[loop];
            f.stage = c.s;
            f.name = m_n.slotNames[c.slot[v]];
            f.slot = c.slot[v];
            f.var = v;
            f.extent = c.extent[v];
            f.loopKind = lv.kind;
            f.reduction = lv.reduction;
            append(block, loop);
            emitLevel(c, depth + 1, loop);
        } else {
            int target = block;
            int comp = newStmt(Stmt::Kind::Compute);
            Stmt& cm = m_n.stmts[comp];
            cm.stage = c.s;
            cm.value = c.valueNode;
            if (st.accumulate) {
                cm.buffer = c.accBuffer;
                cm.accumulate = true;
                cm.index = c.accIndex;
            } else {
                cm.buffer = lookup(st.output.tensor, c.s);
                for (const auto& e : st.output.index)
                    cm.index.push_back(accessIndex(c, e));
            }
            append(target, comp);
        }

        // Closing: accumulator store, then cache write-backs (inner first).
        if (accAlloc >= 0) {
            int store = newStmt(Stmt::Kind::AccStore);
            Stmt& w = m_n.stmts[store];
            w.stage = c.s;
            w.src = c.accBuffer;
            w.srcIndex = c.accIndex;
            w.buffer = lookup(st.output.tensor, c.s);
            for (const auto& e : st.output.index)
                w.index.push_back(accessIndex(c, e));
            if (st.requant) {
                w.channel = st.requant->channel ? accessIndex(c, *st.requant->channel) : kNoIndex;
                if (st.requant->multiplier.tensor >= 0)
                    w.multBuffer = lookup(st.requant->multiplier.tensor, c.s);
                if (st.requant->shift.tensor >= 0)
                    w.shiftBuffer = lookup(st.requant->shift.tensor, c.s);
            }
            append(accAlloc, accNest(c, depth, accLoops, store));
        }
        for (auto it = writeBacks.rbegin(); it != writeBacks.rend(); ++it)
            append(it->first, it->second);
        m_scope.resize(scopeMark);
    }

    // ---- sliding caches (sched/slide.h) ----------------------------------------------------

    /// A sliding cache's buffer: allocated outside its loop, rolling along one dimension.
    struct SlideInfo {
        int buffer = -1;
        int src = -1;
        Region region;          ///< the whole tile of one iteration of the loop
        IndexId hi = kNoIndex;  ///< its last index along `dim`
        int dim = -1;
    };

    /// Allocates, in the body of the loop at depth - 1 (the stage's root at 0), the buffers of the
    /// sliding caches of the loop at `depth`; returns the block inside them.
    int allocSlides(Ctx& c, int depth, int block)
    {
        const auto& sched = m_p.stages[c.s];
        const ir::Stage& st = m_k.stages[c.s];
        const int var = sched.order[depth];
        for (size_t i = 0; i < m_p.caches.size(); ++i) {
            const sched::CacheStage& cs = m_p.caches[i];
            if (cs.stage != c.s || cs.var != var || cs.slideVar != var)
                continue;
            sched::SlideGeometry g;
            if (sched::checkSlide(m_p, static_cast<int>(i), &g))
                continue;  // apply() refuses such a cache; never reached
            Box bx = box(c, accessesOf(c, cs.tensor), depth, st.padZero, false);
            SlideInfo info;
            info.src = lookup(cs.tensor, c.s);
            info.region = bx.region;
            info.hi = bx.hi[g.dim];
            info.dim = g.dim;
            Buffer b;
            b.name = m_k.tensors[cs.tensor].name + "_" + levelName(cs.level);
            b.tensor = cs.tensor;
            b.level = cs.level;
            b.dtype = cs.dtype ? *cs.dtype : m_k.tensors[cs.tensor].dtype;
            if (cs.dtype)
                b.valueOffset = sched::widenedOffset(m_p, c.s, cs.tensor);
            b.role = Buffer::Role::Cache;
            b.ownerStage = c.s;
            b.cache = static_cast<int>(i);
            b.atStage = c.s;
            b.atVar = var;
            b.shape = bx.shape;
            // A power-of-two number of rows makes the row index an AND instead of a modulo (on
            // a Cortex-M7 the modulo by 3 of a 3x3 convolution's band costs more than it saves
            // in copies); taken when it costs at most a third more rows (3 -> 4, 6 -> 8).
            int64_t rows = 1;
            while (rows < b.shape[g.dim])
                rows *= 2;
            if (rows * 3 <= b.shape[g.dim] * 4)
                b.shape[g.dim] = rows;
            b.step = bx.region.step;
            b.origin = bx.region.min;
            b.origin[g.dim] = kNoIndex;  // rolling: the row's place is its index modulo the rows kept
            b.rollDim = g.dim;
            b.window = bx.region;
            b.order = cs.layout;
            info.buffer = addBuffer(std::move(b));
            int alloc = newStmt(Stmt::Kind::Alloc);
            m_n.stmts[alloc].buffer = info.buffer;
            m_n.stmts[alloc].stage = c.s;
            append(block, alloc);
            block = alloc;
            m_scope.push_back(info.buffer);
            m_slides[static_cast<int>(i)] = info;
        }
        return block;
    }

    /// The fills of sliding cache `ci` in its loop's body: the whole tile on the loop's first
    /// iteration, afterwards the part past the previous iteration's tile along the rolling dimension.
    void emitSlideFills(Ctx& c, int ci, int block)
    {
        const SlideInfo& info = m_slides.at(ci);
        const int x = c.slot[m_p.caches[ci].var];
        const int d = info.dim;
        for (int part = 0; part < 2; ++part) {
            Region r = info.region;
            if (part == 0) {
                // The loop's first iteration: its counter is 0 there.
                for (size_t k = 0; k < r.min.size(); ++k) {
                    r.min[k] = ix().substitute(r.min[k], x, ix().constant(0));
                    r.count[k] = ix().substitute(r.count[k], x, ix().constant(0));
                }
            } else {
                // New rows: past the last row of the previous tile, up to the last of this one.
                const IndexId lo = r.min[d];
                const IndexId end = ix().addConst(info.hi, 1);  // one past the last row (unit step)
                const IndexId prevEnd = ix().substitute(end, x, ix().addConst(ix().slot(x), -1));
                r.min[d] = notBelow(prevEnd, lo, x) ? prevEnd : ix().max(lo, prevEnd);
                r.count[d] = ix().sub(end, r.min[d]);
            }
            int ifs = newStmt(Stmt::Kind::If);
            Cond cond;
            cond.expr = ix().slot(x);
            cond.lo = ix().constant(part);
            cond.hi = part == 0 ? ix().constant(0) : kNoIndex;
            cond.why = Cond::Why::Slide;
            m_n.stmts[ifs].conds = {cond};
            m_n.stmts[ifs].stage = c.s;
            append(block, ifs);
            int copy = newStmt(Stmt::Kind::Copy);
            Stmt& cp = m_n.stmts[copy];
            cp.stage = c.s;
            cp.region = r;
            cp.src = info.src;
            cp.buffer = info.buffer;
            cp.slidePart = part;
            append(ifs, copy);
        }
    }

    /// Whether a >= b whenever slot x is at least 1 (every slot they read enumerated over its
    /// loop; false when that is too many points to try).
    bool notBelow(IndexId a, IndexId b, int x)
    {
        const IndexId diff = ix().sub(a, b);
        int64_t k = 0;
        if (ix().isConst(diff, &k))
            return k >= 0;
        std::vector<int> slots;
        ix().slotsOf(diff, slots);
        std::sort(slots.begin(), slots.end());
        slots.erase(std::unique(slots.begin(), slots.end()), slots.end());
        int64_t points = 1;
        for (int s : slots)
            points *= std::max<int64_t>(1, m_n.slotExtents[s]);
        if (points > (int64_t(1) << 16))
            return false;
        std::vector<int64_t> values(m_n.slotExtents.size(), 0);
        for (int64_t p = 0; p < points; ++p) {
            int64_t rest = p;
            for (int s : slots) {
                values[s] = rest % std::max<int64_t>(1, m_n.slotExtents[s]);
                rest /= std::max<int64_t>(1, m_n.slotExtents[s]);
            }
            if (values[x] >= 1 && ix().eval(diff, values.data()) < 0)
                return false;
        }
        return true;
    }

    /// The accumulator of a tensorized stage: its cache_write tile in the accumulator level, int32,
    /// indexed like the output; initialised from the initial row (or overwritten by the first
    /// result) and stored through the epilogue when the cache loop's body ends.
    int tensorizedAccumulator(Ctx& c, int depth, int ci, int block, std::vector<std::pair<int, int>>& writeBacks)
    {
        const auto& sched = m_p.stages[c.s];
        const ir::Stage& st = m_k.stages[c.s];
        const sched::CacheStage& cs = m_p.caches[ci];
        const int n = static_cast<int>(sched.order.size());
        const int var = depth >= 0 ? sched.order[depth] : -1;
        Box bx = box(c, {&st.output}, depth, false, false);
        Buffer b;
        b.name = m_k.tensors[cs.tensor].name + "_" + levelName(cs.level);
        b.tensor = cs.tensor;
        b.level = cs.level;
        b.dtype = ir::DType::Int32;
        b.role = Buffer::Role::Accumulator;
        b.ownerStage = c.s;
        b.cache = ci;
        b.write = true;
        b.doubleBuffer = cs.doubleBuffer;
        b.atStage = c.s;
        b.atVar = var;
        b.shape = bx.shape;
        b.step = bx.region.step;
        b.origin = bx.region.min;
        int bid = addBuffer(std::move(b));
        int alloc = newStmt(Stmt::Kind::Alloc);
        m_n.stmts[alloc].buffer = bid;
        m_n.stmts[alloc].stage = c.s;
        append(block, alloc);
        c.accBuffer = bid;
        std::vector<IndexId> global;
        for (const auto& e : st.output.index)
            global.push_back(accessIndex(c, e));
        c.accIndex = global;
        std::vector<int> spatial;
        for (int i = depth + 1; i < n; ++i)
            if (!sched.vars[sched.order[i]].reduction)
                spatial.push_back(sched.order[i]);
        if (c.initBuffer >= 0) {
            int init = newStmt(Stmt::Kind::AccInit);
            m_n.stmts[init].stage = c.s;
            m_n.stmts[init].buffer = bid;
            m_n.stmts[init].index = global;
            m_n.stmts[init].src = c.initBuffer;
            m_n.stmts[init].srcIndex = {c.axisExpr[c.ops.axisJ]};
            m_n.stmts[init].region = bx.region;  // the tile, for the Gemmini code and model (mvin of its rows)
            append(alloc, accNest(c, depth, spatial, init));
        }
        int store = newStmt(Stmt::Kind::AccStore);
        Stmt& w = m_n.stmts[store];
        w.stage = c.s;
        w.src = bid;
        w.srcIndex = global;
        w.region = bx.region;  // the tile (mvout of its rows)
        w.buffer = lookup(st.output.tensor, c.s);
        w.index = global;
        if (st.requant) {
            w.channel = st.requant->channel ? accessIndex(c, *st.requant->channel) : kNoIndex;
            if (st.requant->multiplier.tensor >= 0)
                w.multBuffer = lookup(st.requant->multiplier.tensor, c.s);
            if (st.requant->shift.tensor >= 0)
                w.shiftBuffer = lookup(st.requant->shift.tensor, c.s);
        }
        writeBacks.push_back({alloc, accNest(c, depth, spatial, store)});
        return alloc;
    }

    /// The instruction of a tensorized block, in the body of loop order[n - 4] (or the root).
    void emitBlock(Ctx& c, int block)
    {
        const auto& sched = m_p.stages[c.s];
        const sched::TensorizeSpec& tz = *sched.tensorize;
        const int n = static_cast<int>(sched.order.size());
        detail::MatmulInputs in;
        in.stage = c.s;
        in.dataflow = tz.dataflow;
        in.slots = {c.slot[tz.i], c.slot[tz.j], c.slot[tz.k]};
        in.extents = {c.extent[tz.i], c.extent[tz.j], c.extent[tz.k]};
        for (const auto& g : c.guards)
            if (g.depth >= n - 3)
                in.guards.push_back(g.cond);
        const LoadInfo& la = c.loads[c.ops.loadA];
        const LoadInfo& lb = c.loads[c.ops.loadB];
        in.a = lookup(la.access->tensor, c.s);
        in.b = lookup(lb.access->tensor, c.s);
        in.c = c.accBuffer;
        for (const auto& e : la.access->index)
            in.aIndex.push_back(accessIndex(c, e));
        for (const auto& e : lb.access->index)
            in.bIndex.push_back(accessIndex(c, e));
        in.cIndex = c.accIndex;
        in.offsetA = c.ops.offsetA;
        in.overwriteFirst = c.initBuffer < 0;
        // The reduction loops between the accumulator tile and the block.
        const int at = m_n.buffers[c.accBuffer].atVar;
        for (int i = at < 0 ? 0 : sched.position(at) + 1; i < n - 3; ++i)
            if (sched.vars[sched.order[i]].reduction)
                in.firstSlots.push_back(c.slot[sched.order[i]]);
        // A partial tile of an outer split can leave whole blocks empty: the instruction runs
        // only where its first row, column and element exist.
        std::vector<Cond> nonEmpty;
        for (const Cond& g : in.guards)
            for (int slot : in.slots) {
                std::vector<int> used;
                m_n.index.slotsOf(g.expr, used);
                if (std::find(used.begin(), used.end(), slot) == used.end())
                    continue;
                Cond first = g;
                first.expr = ix().sub(g.expr, ix().slot(slot));
                nonEmpty.push_back(first);
            }
        nonEmpty = needed(nonEmpty);
        if (!nonEmpty.empty()) {
            int ifs = newStmt(Stmt::Kind::If);
            m_n.stmts[ifs].conds = nonEmpty;
            m_n.stmts[ifs].stage = c.s;
            append(block, ifs);
            block = ifs;
        }
        detail::emitMatmul(m_n, block, in);
    }

    /// Wraps `leaf` in copies of the accumulator's loops (same slots, same kinds) and the
    /// partial-tile / region guards of the spatial axes that those loops bound.
    int accNest(Ctx& c, int depth, const std::vector<int>& loops, int leaf)
    {
        const auto& sched = m_p.stages[c.s];
        std::vector<int> reductionSlots;
        for (int v : sched.order)
            if (sched.vars[v].reduction)
                reductionSlots.push_back(c.slot[v]);
        std::vector<Cond> conds;
        std::vector<int> slots;  // one vector for every guard
        for (const auto& g : c.guards) {
            if (g.cond.why == Cond::Why::Padding || g.depth <= depth)
                continue;
            slots.clear();
            m_n.index.slotsOf(g.cond.expr, slots);
            bool spatial = std::none_of(slots.begin(), slots.end(), [&](int sl) {
                return std::find(reductionSlots.begin(), reductionSlots.end(), sl) != reductionSlots.end();
            });
            if (spatial)
                conds.push_back(g.cond);
        }
        int cur = leaf;
        conds = needed(conds);
        if (!conds.empty()) {
            int ifs = newStmt(Stmt::Kind::If);
            m_n.stmts[ifs].conds = conds;
            m_n.stmts[ifs].stage = c.s;
            m_n.stmts[ifs].body.push_back(cur);
            cur = ifs;
        }
        for (auto it = loops.rbegin(); it != loops.rend(); ++it) {
            int loop = newStmt(Stmt::Kind::For);
            Stmt& f = m_n.stmts[loop];
            f.stage = c.s;
            f.name = m_n.slotNames[c.slot[*it]];
            f.slot = c.slot[*it];
            f.var = *it;
            f.extent = c.extent[*it];
            f.loopKind = sched.vars[*it].kind == sched::LoopKind::Parallel ? sched::LoopKind::Serial : sched.vars[*it].kind;
            f.body.push_back(cur);
            cur = loop;
        }
        return cur;
    }

    /// Drops conditions that hold for every value of the loops involved.
    std::vector<Cond> needed(const std::vector<Cond>& conds)
    {
        std::vector<Cond> out;
        for (const Cond& c : conds) {
            bool loOk = c.lo == kNoIndex || ix().bounds(ix().sub(c.expr, c.lo), m_n.slotExtents).first >= 0;
            bool hiOk = c.hi == kNoIndex || ix().bounds(ix().sub(c.hi, c.expr), m_n.slotExtents).first >= 0;
            if (!(loOk && hiOk))
                out.push_back(c);
        }
        return out;
    }

    void emitLoad(Ctx& c, const LoadInfo& l, int block)
    {
        int ld = newStmt(Stmt::Kind::Load);
        Stmt& s = m_n.stmts[ld];
        s.stage = c.s;
        s.reg = l.reg;
        s.buffer = lookup(l.access->tensor, c.s);
        for (const auto& e : l.access->index)
            s.index.push_back(accessIndex(c, e));
        append(block, ld);
    }

    bool accumulatorInRegisters(const Ctx& c, int depth, int64_t elements) const
    {
        if (elements == 1)
            return true;
        if (elements > m_p.target->compute.registers)
            return false;
        const auto& sched = m_p.stages[c.s];
        for (size_t i = depth + 1; i < sched.order.size(); ++i) {
            const LoopVar& lv = sched.vars[sched.order[i]];
            if (!lv.reduction && lv.kind != sched::LoopKind::Unrolled && lv.kind != sched::LoopKind::Vectorized && c.extent[sched.order[i]] > 1)
                return false;
        }
        return true;
    }

    /// The access of a requantize parameter tensor: [channel axis].
    ir::Access quantAccess(const ir::Stage& st, int tensor) const
    {
        ir::Access a;
        a.tensor = tensor;
        ir::AffineExpr e;
        if (st.requant && st.requant->channel)
            e = *st.requant->channel;
        else
            e.terms.push_back({0, 1});
        a.index.push_back(e);
        return a;
    }

    std::string levelName(int l) const { return l < 0 ? "reg" : m_p.target->levels[l].name; }

    const Program& m_p;
    const ir::Kernel& m_k;
    LoopNest m_n;
    std::vector<int> m_home;
    std::vector<int> m_scope;
    std::map<int, SlideInfo> m_slides;  ///< sliding cache -> its buffer, allocated outside its loop
};

} // namespace

LoopNest lower(const sched::Program& program)
{
    LoopNest nest = Lowerer(program).run();
    findOffsetFolds(nest);
    return nest;
}

LoopNest lower(sched::Program&& program)
{
    std::vector<sched::Step> trace = std::move(program.trace);
    program.trace.clear();
    LoopNest nest = Lowerer(program, std::move(trace)).run();
    findOffsetFolds(nest);
    return nest;
}

} // namespace loopscope::lower
