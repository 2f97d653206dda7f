// The schedule primitives. Each checks its preconditions (listed in its comment) and either
// returns the new program or a ScheduleError naming the loops/tensors involved.
#include "sched/program.h"
#include "sched/slide.h"
#include "sched/tensorize.h"

#include <algorithm>
#include <set>

namespace loopscope::sched {

namespace {

constexpr int64_t kMaxUnroll = 256;
constexpr int64_t kMaxVectorLanes = 64;

/// Thrown only inside this file to unwind a failing primitive; apply() turns it into a value.
struct Fail {
    std::string message;
    std::string detail;
    std::vector<std::string> loops;
    std::vector<std::string> tensors;
};

[[noreturn]] void fail(std::string message, std::vector<std::string> loops = {},
                       std::vector<std::string> tensors = {}, std::string detail = {})
{
    throw Fail{std::move(message), std::move(detail), std::move(loops), std::move(tensors)};
}

std::string joined(const std::vector<std::string>& v)
{
    std::string out;
    for (const auto& s : v)
        out += (out.empty() ? "" : ", ") + s;
    return out;
}

struct LoopRef {
    int stage = -1;
    int var = -1;
};

class Applier {
public:
    Applier(Program p, const Step& step) : m_p(std::move(p)), m_step(step) {}

    Program run()
    {
        switch (m_step.primitive) {
        case Primitive::Split: split(); break;
        case Primitive::Tile: tile(); break;
        case Primitive::Reorder: reorder(m_step.loops); break;
        case Primitive::Fuse: fuse(); break;
        case Primitive::Unroll: setKind(LoopKind::Unrolled); break;
        case Primitive::Vectorize: setKind(LoopKind::Vectorized); break;
        case Primitive::Parallel: setKind(LoopKind::Parallel); break;
        case Primitive::CacheRead: cache(false); break;
        case Primitive::CacheWrite: cache(true); break;
        case Primitive::ComputeAt: computeAt(); break;
        case Primitive::ComputeInline: computeInline(); break;
        case Primitive::DoubleBuffer: doubleBuffer(); break;
        case Primitive::Tensorize: tensorize(); break;
        }
        validate();
        m_p.trace.push_back(m_step);
        return std::move(m_p);
    }

private:
    const ir::Kernel& kernel() const { return *m_p.kernel; }
    const std::string& stageName(int s) const { return kernel().stages[s].name; }

    int stageByName(const std::string& name) const
    {
        int s = kernel().findStage(name);
        if (s < 0) {
            std::vector<std::string> names;
            for (const auto& st : kernel().stages)
                names.push_back(st.name);
            fail("no stage named '" + name + "' (stages: " + joined(names) + ")");
        }
        if (m_p.stages[s].inlined)
            fail("stage " + name + " was inlined by compute_inline and has no loops");
        return s;
    }

    /// Explains why `name` is not an active loop of stage s.
    [[noreturn]] void notALoop(int s, const std::string& name) const
    {
        const auto& ss = m_p.stages[s];
        int v = ss.findVar(name);
        std::string detail;
        if (v >= 0) {
            const LoopVar& lv = ss.vars[v];
            if (lv.splitOuter >= 0)
                detail = name + " was split into " + ss.vars[lv.splitOuter].name + " and "
                    + ss.vars[lv.splitInner].name;
            else if (lv.fusedInto >= 0)
                detail = name + " was fused into " + ss.vars[lv.fusedInto].name;
        }
        std::vector<std::string> loops;
        for (int o : ss.order)
            loops.push_back(ss.vars[o].name);
        if (detail.empty())
            detail = "loops of stage " + stageName(s) + ": " + joined(loops);
        fail(name + " is not a loop of stage " + stageName(s), {name}, {}, detail);
    }

    LoopRef loop(const std::string& name, int inStage = -1) const
    {
        if (name.empty())
            fail("a loop name is required");
        if (inStage < 0 && !m_step.stage.empty())
            inStage = stageByName(m_step.stage);
        if (inStage >= 0) {
            int v = m_p.stages[inStage].findLoop(name);
            if (v < 0)
                notALoop(inStage, name);
            return {inStage, v};
        }
        std::vector<LoopRef> found;
        for (size_t s = 0; s < m_p.stages.size(); ++s) {
            if (m_p.stages[s].inlined)
                continue;
            int v = m_p.stages[s].findLoop(name);
            if (v >= 0)
                found.push_back({static_cast<int>(s), v});
        }
        if (found.size() == 1)
            return found[0];
        if (found.size() > 1) {
            std::vector<std::string> names;
            for (const auto& f : found)
                names.push_back(stageName(f.stage));
            fail("loop " + name + " exists in stages " + joined(names) + "; name the stage",
                 {name});
        }
        // Not found anywhere: explain against the last stage (single-stage kernels).
        int last = -1;
        for (size_t s = 0; s < m_p.stages.size(); ++s)
            if (!m_p.stages[s].inlined && m_p.stages[s].findVar(name) >= 0)
                last = static_cast<int>(s);
        if (last < 0)
            for (size_t s = 0; s < m_p.stages.size(); ++s)
                if (!m_p.stages[s].inlined)
                    last = static_cast<int>(s);
        notALoop(last, name);
    }

    LoopVar& var(LoopRef r) { return m_p.stages[r.stage].vars[r.var]; }
    const std::string& name(LoopRef r) const { return m_p.stages[r.stage].vars[r.var].name; }

    void checkNewName(int s, const std::string& newName, const std::string& what) const
    {
        if (m_p.stages[s].findVar(newName) >= 0)
            fail("can't " + what + " because " + newName + " already exists in stage "
                     + stageName(s),
                 {newName});
    }

    /// Moves attachments (cache stages, compute_at producers) from variable `from` to `to`.
    void reattach(int s, int from, int to)
    {
        for (auto& c : m_p.caches)
            if (c.stage == s && c.var == from) {
                c.var = to;
                if (c.slideVar == from)
                    c.slideVar = to;  // a sliding cache slides along the loop it sits at
            }
        for (auto& st : m_p.stages)
            if (st.computeAt.stage == s && st.computeAt.var == from)
                st.computeAt.var = to;
    }

    /// Names of what sits in the body of a loop (cache stages and producers).
    std::vector<std::string> attachedAt(int s, int v) const
    {
        std::vector<std::string> out;
        for (const auto& c : m_p.caches)
            if (c.stage == s && c.var == v)
                out.push_back(kernel().tensors[c.tensor].name + "@"
                              + m_p.target->levels[c.level].name);
        for (size_t p = 0; p < m_p.stages.size(); ++p)
            if (m_p.stages[p].computeAt.stage == s && m_p.stages[p].computeAt.var == v)
                out.push_back("stage " + stageName(static_cast<int>(p)));
        return out;
    }

    // split: requires an active serial loop that is not a fused loop, exactly one of factor/nparts > 0, a factor not
    // larger than the extent, and free names <loop>.outer/<loop>.inner. A factor that does
    // not divide the extent leaves a partial last tile (guarded when lowered). Whatever sat in
    // the loop's body (cache stages, producers) now sits in the body of <loop>.inner.
    void split()
    {
        if (m_step.loops.size() != 1)
            fail("split takes exactly one loop");
        // Name the loop and what was given: "split needs ..." alone left the user to find both.
        // Both given is refused whatever their signs (factor 4 with nparts -2 used to pass).
        const std::string& l = m_step.loops[0];
        if (m_step.factor != 0 && m_step.nparts != 0)
            fail("split of " + l + " takes a factor or nparts, not both (factor " + std::to_string(m_step.factor) + ", nparts "
                     + std::to_string(m_step.nparts) + ")",
                 m_step.loops);
        if (m_step.factor <= 0 && m_step.nparts <= 0)
            fail("split of " + l + " needs a positive factor or nparts ("
                     + (m_step.nparts != 0 ? "nparts " + std::to_string(m_step.nparts) : "factor " + std::to_string(m_step.factor)) + ")",
                 m_step.loops);
        LoopRef r = loop(m_step.loops[0]);
        splitLoop(r, m_step.factor, m_step.nparts);
    }

    LoopRef splitLoop(LoopRef r, int64_t factor, int64_t nparts)
    {
        const LoopVar old = var(r);
        if (old.kind != LoopKind::Serial)
            fail("can't split " + old.name + " because it is " + loopKindName(old.kind)
                     + "; split before marking it",
                 {old.name});
        if (old.origin == LoopVar::Origin::Fused)
            fail("can't split fused loop " + old.name
                     + ": its tiles would not be boxes of the tensors; split before fusing",
                 {old.name});
        if (nparts > 0) {
            if (nparts > old.extent)
                fail("can't split " + old.name + " into " + std::to_string(nparts)
                         + " parts: its extent is only " + std::to_string(old.extent),
                     {old.name});
            factor = (old.extent + nparts - 1) / nparts;
        }
        if (factor > old.extent)
            fail("split factor " + std::to_string(factor) + " exceeds the extent "
                     + std::to_string(old.extent) + " of " + old.name,
                 {old.name});
        const std::string outerName = old.name + ".outer";
        const std::string innerName = old.name + ".inner";
        checkNewName(r.stage, outerName, "split " + old.name + " into " + outerName + " and " + innerName);
        checkNewName(r.stage, innerName, "split " + old.name + " into " + outerName + " and " + innerName);

        auto& ss = m_p.stages[r.stage];
        LoopVar outer, inner;
        outer.name = outerName;
        outer.extent = (old.extent + factor - 1) / factor;
        outer.origin = LoopVar::Origin::SplitOuter;
        inner.name = innerName;
        inner.extent = factor;
        inner.origin = LoopVar::Origin::SplitInner;
        for (LoopVar* v : {&outer, &inner}) {
            v->reduction = old.reduction;
            v->parent = r.var;
            v->factor = factor;
        }
        int oi = static_cast<int>(ss.vars.size());
        ss.vars.push_back(outer);
        ss.vars.push_back(inner);
        ss.vars[r.var].active = false;
        ss.vars[r.var].splitOuter = oi;
        ss.vars[r.var].splitInner = oi + 1;
        int pos = ss.position(r.var);
        ss.order[pos] = oi;
        ss.order.insert(ss.order.begin() + pos + 1, oi + 1);
        reattach(r.stage, r.var, oi + 1);
        return {r.stage, oi};
    }

    // tile: sugar for split x, split y, then reorder x.outer, y.outer, x.inner, y.inner.
    // Requires two distinct loops of one stage, x outside y, and two positive factors.
    void tile()
    {
        if (m_step.loops.size() != 2 || m_step.factors.size() != 2)
            fail("tile takes two loops and two factors");
        LoopRef x = loop(m_step.loops[0]);
        LoopRef y = loop(m_step.loops[1], x.stage);
        if (x.var == y.var)
            fail("can't tile " + name(x) + " with itself", {name(x)});
        const auto& ss = m_p.stages[x.stage];
        if (ss.position(x.var) > ss.position(y.var))
            fail("can't tile: " + name(x) + " must be outside " + name(y), {name(x), name(y)});
        for (int64_t f : m_step.factors)
            if (f <= 0)
                fail("tile factors must be positive", m_step.loops);
        std::string xn = name(x), yn = name(y);
        splitLoop(x, m_step.factors[0], 0);
        y = loop(yn, x.stage);
        splitLoop(y, m_step.factors[1], 0);
        reorder({xn + ".outer", yn + ".outer", xn + ".inner", yn + ".inner"}, x.stage);
    }

    // reorder: requires at least two distinct active loops of one stage. They take the
    // positions they occupied, in the order given; other loops stay where they are.
    void reorder(const std::vector<std::string>& names, int inStage = -1)
    {
        if (names.size() < 2)
            fail("reorder needs at least two loops");
        std::vector<LoopRef> refs;
        for (const auto& n : names) {
            LoopRef r = loop(n, refs.empty() ? inStage : refs[0].stage);
            for (const auto& prev : refs)
                if (prev.var == r.var)
                    fail("reorder names " + n + " twice", {n});
            refs.push_back(r);
        }
        auto& ss = m_p.stages[refs[0].stage];
        std::vector<int> positions;
        for (const auto& r : refs)
            positions.push_back(ss.position(r.var));
        std::sort(positions.begin(), positions.end());
        for (size_t i = 0; i < refs.size(); ++i)
            ss.order[positions[i]] = refs[i].var;
    }

    // fuse: requires two active serial loops of one stage, the second directly inside the
    // first, both spatial or both reduction, and nothing placed in the outer loop's body
    // between them. The result <a>.<b>.fused takes over what sat in the inner loop's body.
    void fuse()
    {
        if (m_step.loops.size() != 2)
            fail("fuse takes exactly two loops");
        LoopRef a = loop(m_step.loops[0]);
        LoopRef b = loop(m_step.loops[1], a.stage);
        auto& ss = m_p.stages[a.stage];
        if (ss.position(b.var) != ss.position(a.var) + 1)
            fail("can't fuse " + name(a) + " and " + name(b) + ": " + name(b)
                     + " is not directly inside " + name(a),
                 {name(a), name(b)});
        if (var(a).reduction != var(b).reduction)
            fail("can't fuse " + name(a) + " and " + name(b)
                     + ": one is a reduction loop and the other is not",
                 {name(a), name(b)});
        for (LoopRef r : {a, b})
            if (var(r).kind != LoopKind::Serial)
                fail("can't fuse " + name(r) + " because it is " + loopKindName(var(r).kind),
                     {name(r)});
        auto inOuter = attachedAt(a.stage, a.var);
        if (!inOuter.empty())
            fail("can't fuse " + name(a) + " and " + name(b) + ": " + joined(inOuter)
                     + " sits between them, in the body of " + name(a),
                 {name(a)}, {}, "move it with compute_at first");
        LoopVar f;
        f.name = name(a) + "." + name(b) + ".fused";
        checkNewName(a.stage, f.name, "fuse " + name(a) + " and " + name(b));
        f.extent = var(a).extent * var(b).extent;
        f.origin = LoopVar::Origin::Fused;
        f.reduction = var(a).reduction;
        f.fusedOuter = a.var;
        f.fusedInner = b.var;
        int fi = static_cast<int>(ss.vars.size());
        ss.vars.push_back(f);
        ss.vars[a.var].active = false;
        ss.vars[b.var].active = false;
        ss.vars[a.var].fusedInto = fi;
        ss.vars[b.var].fusedInto = fi;
        int pos = ss.position(a.var);
        ss.order[pos] = fi;
        ss.order.erase(ss.order.begin() + pos + 1);
        reattach(a.stage, b.var, fi);
    }

    // unroll / vectorize / parallel: require an active serial loop.
    //  unroll: extent at most kMaxUnroll.
    //  vectorize: the innermost loop of its stage, extent at most kMaxVectorLanes.
    //  parallel: a spatial loop (a parallel reduction would race on the accumulator).
    void setKind(LoopKind kind)
    {
        if (m_step.loops.size() != 1)
            fail(std::string(primitiveName(m_step.primitive)) + " takes exactly one loop");
        LoopRef r = loop(m_step.loops[0]);
        LoopVar& v = var(r);
        if (v.kind != LoopKind::Serial)
            fail(v.name + " is already " + loopKindName(v.kind), {v.name});
        const auto& ss = m_p.stages[r.stage];
        switch (kind) {
        case LoopKind::Unrolled:
            if (v.extent > kMaxUnroll)
                fail("can't unroll " + v.name + ": extent " + std::to_string(v.extent)
                         + " exceeds " + std::to_string(kMaxUnroll) + "; split it first",
                     {v.name});
            break;
        case LoopKind::Vectorized:
            if (ss.order.back() != r.var)
                fail("can't vectorize " + v.name + ": only the innermost loop ("
                         + ss.vars[ss.order.back()].name + ") can be vectorized",
                     {v.name});
            if (v.extent > kMaxVectorLanes)
                fail("can't vectorize " + v.name + ": extent " + std::to_string(v.extent)
                         + " exceeds " + std::to_string(kMaxVectorLanes) + " lanes; split it first",
                     {v.name});
            break;
        case LoopKind::Parallel:
            if (v.reduction)
                fail("can't parallelize reduction loop " + v.name
                         + ": iterations would race on the accumulator",
                     {v.name});
            break;
        case LoopKind::Serial: break;
        }
        v.kind = kind;
    }

    int levelByName(const std::string& n) const
    {
        if (n.empty())
            fail("a memory level is required");
        int l = m_p.target->findLevel(n);
        if (l < 0) {
            std::vector<std::string> names;
            for (const auto& lv : m_p.target->levels)
                names.push_back(lv.name);
            fail("target " + m_p.target->name + " has no memory level '" + n + "' (levels: "
                 + joined(names) + ")");
        }
        return l;
    }

    int tensorByName(const std::string& n) const
    {
        if (n.empty())
            fail("a tensor name is required");
        int t = kernel().findTensor(n);
        if (t < 0)
            fail("no tensor named '" + n + "'", {}, {n});
        return t;
    }

    /// Caches and producer regions are boxes computed from one index pattern: every load of
    /// the tensor in the stage must share its coefficients (constants may differ).
    void requireOnePattern(int s, int t) const
    {
        const ir::ExprPtr value = effectiveValue(m_p, s);  // holds the accesses
        std::vector<const ir::Access*> loads;
        ir::visitLoads(value.get(), [&](const ir::Access& a) {
            if (a.tensor == t)
                loads.push_back(&a);
        });
        const ir::Access* first = nullptr;
        for (const ir::Access* a : loads) {
            const ir::Access& acc = *a;
            if (!first) {
                first = &acc;
                continue;
            }
            for (size_t d = 0; d < acc.index.size(); ++d) {
                const auto& a = acc.index[d];
                const auto& b = first->index[d];
                for (size_t x = 0; x < kernel().stages[s].axes.size(); ++x)
                    if (a.coeffOf(static_cast<int>(x)) != b.coeffOf(static_cast<int>(x)))
                        fail("stage " + stageName(s) + " reads " + kernel().tensors[t].name
                                 + " through index patterns that differ in more than a constant; a buffer of it would not be one box",
                             {}, {kernel().tensors[t].name});
            }
        }
    }

    bool stageReads(int s, int t) const
    {
        bool reads = false;
        visitEffectiveLoads(m_p, s, [&](const ir::Access& acc) { reads = reads || acc.tensor == t; });
        if (reads)
            return true;
        const auto& rq = kernel().stages[s].requant;
        return rq && (rq->bias == t || rq->multiplier.tensor == t || rq->shift.tensor == t);
    }

    /// Resolves `at` (a loop name or "root"/empty) for a cache stage of tensor t.
    LoopRef placement(const std::string& at, int t, bool write)
    {
        const std::string& tn = kernel().tensors[t].name;
        if (!at.empty() && at != "root")
            return loop(at);
        if (!m_step.stage.empty())
            return {stageByName(m_step.stage), -1};
        std::vector<int> users;
        for (size_t s = 0; s < m_p.stages.size(); ++s) {
            if (m_p.stages[s].inlined)
                continue;
            bool uses = write ? kernel().stages[s].output.tensor == t
                              : stageReads(static_cast<int>(s), t);
            if (uses)
                users.push_back(static_cast<int>(s));
        }
        if (users.size() != 1) {
            if (users.empty())
                fail(std::string("no stage ") + (write ? "writes " : "reads ") + tn, {}, {tn});
            fail(tn + " is read by several stages; name the stage", {}, {tn});
        }
        return {users[0], -1};
    }

    // cache_read / cache_write: require a stored tensor (not inlined), a memory level of the
    // target inside the tensor's home level, an optional layout that permutes the tensor's
    // dimensions, and a placement (a loop of the stage that reads / writes it, or
    // root). cache_read: the stage reads the tensor and does not write it. cache_write: the
    // stage writes the tensor, the placement is outside every reduction loop of the stage
    // (the tile is final when written back). No second cache of the same tensor and level
    // for the same stage.
    void cache(bool write)
    {
        int t = tensorByName(m_step.tensor);
        const std::string& tn = kernel().tensors[t].name;
        int level = levelByName(m_step.level);
        int prod = kernel().producerOf(t);
        if (prod >= 0 && m_p.stages[prod].inlined)
            fail("can't cache " + tn + ": its stage was inlined, so it is never stored", {}, {tn});
        LoopRef at = placement(m_step.at, t, write);
        const std::string& sn = stageName(at.stage);
        if (write) {
            if (kernel().stages[at.stage].output.tensor != t)
                fail("stage " + sn + " does not write " + tn + "; cache_write caches the output of the stage it is placed in", {}, {tn});
        } else {
            if (!stageReads(at.stage, t))
                fail("stage " + sn + " does not read " + tn, {}, {tn});
            requireOnePattern(at.stage, t);
        }
        if (level == m_p.homeLevel())
            fail("can't cache " + tn + " into " + m_p.target->levels[level].name
                     + ": that is its home level; pick a level inside it",
                 {}, {tn});
        if (m_p.findCache(t, level, at.stage) >= 0)
            fail(tn + " already has a cache stage in " + m_p.target->levels[level].name
                     + " for stage " + sn + "; use compute_at to move it",
                 {}, {tn});
        CacheStage c;
        // A widening cache is the only cache of its tensor for the stage: the stage's loads
        // then all read its int16 values (with the folded offset), and no copy reads from it.
        for (const CacheStage& other : m_p.caches)
            if (other.tensor == t && other.stage == at.stage && (other.dtype || !m_step.dtype.empty()))
                fail("can't add a second cache of " + tn + " for stage " + sn + " when one of them widens it (dtype); "
                         + "a widened cache must be the tensor's only cache in the stage",
                     {}, {tn});
        if (!m_step.dtype.empty()) {
            ir::DType d;
            const ir::DType from = kernel().tensors[t].dtype;
            if (!ir::parseDType(m_step.dtype, d))
                fail("unknown dtype '" + m_step.dtype + "' (a cache_read can widen int8 to int16)", {}, {tn});
            if (write)
                fail("cache_write keeps the tensor's dtype; only cache_read widens", {}, {tn});
            if (from != ir::DType::Int8 || d != ir::DType::Int16)
                fail(std::string("can't cache ") + tn + " (" + ir::dtypeName(from) + ") as " + ir::dtypeName(d)
                         + ": a cache_read widens int8 to int16 only",
                     {}, {tn});
            if (m_p.stages[at.stage].tensorize)
                fail("can't widen " + tn + ": stage " + sn + " is tensorized, and the accelerator reads int8 operands", {}, {tn});
            c.dtype = d;
        }
        if (!m_step.layout.empty()) {
            const size_t rank = kernel().tensors[t].shape.size();
            std::vector<int> seen(rank, 0);
            bool ok = m_step.layout.size() == rank;
            for (int64_t d : m_step.layout)
                ok = ok && d >= 0 && d < static_cast<int64_t>(rank) && !seen[d]++;
            if (!ok)
                fail("layout of " + tn + " must list each of its " + std::to_string(rank) + " dimensions 0.." + std::to_string(rank - 1)
                         + " once, outermost first",
                     {}, {tn});
            for (int64_t d : m_step.layout)
                c.layout.push_back(static_cast<int>(d));
        }
        if (!m_step.slide.empty()) {
            if (write)
                fail("cache_write can't slide: only a cache_read keeps the overlap of consecutive tiles", {m_step.slide}, {tn});
            const LoopRef sl = loop(m_step.slide, at.stage);
            if (sl.var != at.var)
                fail(tn + " slides along " + m_step.slide + " but is placed " + (at.var < 0 ? std::string("at root") : "at " + m_step.at)
                         + ": a sliding cache sits at the loop it slides along",
                     {m_step.slide}, {tn}, "write at: " + m_step.slide + ", slide: " + m_step.slide);
            c.slideVar = at.var;
        }
        c.tensor = t;
        c.level = level;
        c.write = write;
        c.stage = at.stage;
        c.var = at.var;
        m_p.caches.push_back(c);
    }

    /// " for stage X (it has one for stage O)" when the step names a stage that has no cache of
    /// the tensor but others do.
    std::string forStageNote(int t, int level) const
    {
        if (m_step.stage.empty())
            return "";
        std::string note = " for stage " + m_step.stage;
        if (kernel().findStage(m_step.stage) < 0) {
            std::vector<std::string> names;
            for (const auto& st : kernel().stages)
                names.push_back(st.name);
            return note + " (no such stage; stages: " + joined(names) + ")";
        }
        std::vector<std::string> others;
        for (const auto& c : m_p.caches)
            if (c.tensor == t && (level < 0 || c.level == level))
                others.push_back(stageName(c.stage));
        if (!others.empty())
            note += " (it has one for stage " + joined(others) + ")";
        return note;
    }

    // compute_at, two forms.
    //  tensor+level: moves an existing cache stage to another loop of its stage (or root).
    //  producer: places a producer stage's whole nest in the body of a loop of a later stage
    //    that reads its output; the output then lives in a buffer of `level` (default: the
    //    innermost level) holding only the region that loop's body reads. Requires the
    //    producer to be an earlier stage whose output the consumer reads, not inlined, with
    //    no cache_write of its own output.
    void computeAt()
    {
        if (m_step.producer.empty()) {
            int t = tensorByName(m_step.tensor);
            int level = levelByName(m_step.level);
            int found = -1;
            for (size_t i = 0; i < m_p.caches.size(); ++i)
                if (m_p.caches[i].tensor == t && m_p.caches[i].level == level
                    && (m_step.stage.empty() || stageName(m_p.caches[i].stage) == m_step.stage)) {
                    if (found >= 0)
                        fail(m_step.tensor + " has cache stages in " + m_step.level + " for several stages; name the stage", {}, {m_step.tensor});
                    found = static_cast<int>(i);
                }
            if (found < 0)
                fail(m_step.tensor + " has no cache stage in " + m_step.level + forStageNote(t, level)
                         + "; add one with cache_read or cache_write",
                     {}, {m_step.tensor});
            CacheStage& c = m_p.caches[found];
            if (m_step.at.empty() || m_step.at == "root") {
                c.var = -1;
                return;
            }
            LoopRef r = loop(m_step.at, c.stage);
            c.var = r.var;
            return;
        }
        int p = stageByName(m_step.producer);
        if (m_step.at.empty() || m_step.at == "root") {
            m_p.stages[p].computeAt = Attach{};
            m_p.stages[p].storeLevel = -1;
            return;
        }
        LoopRef r = loop(m_step.at);
        const std::string& pn = stageName(p);
        if (r.stage == p)
            fail("can't compute " + pn + " at its own loop " + m_step.at, {m_step.at});
        int t = kernel().stages[p].output.tensor;
        if (r.stage < p)
            fail("can't compute " + pn + " at " + m_step.at + ": stage " + stageName(r.stage)
                     + " runs before " + pn,
                 {m_step.at});
        if (!stageReads(r.stage, t))
            fail("can't compute " + pn + " at " + m_step.at + ": stage " + stageName(r.stage)
                     + " does not read " + kernel().tensors[t].name,
                 {m_step.at}, {kernel().tensors[t].name});
        requireOnePattern(r.stage, t);
        for (size_t s = 0; s < m_p.stages.size(); ++s)
            if (static_cast<int>(s) != r.stage && static_cast<int>(s) != p && !m_p.stages[s].inlined && stageReads(static_cast<int>(s), t))
                fail("can't compute " + pn + " inside " + stageName(r.stage) + ": stage "
                         + stageName(static_cast<int>(s)) + " also reads "
                         + kernel().tensors[t].name,
                     {}, {kernel().tensors[t].name});
        for (const auto& c : m_p.caches)
            if (c.write && c.tensor == t)
                fail("can't compute " + pn + " at " + m_step.at + ": its output "
                         + kernel().tensors[t].name + " has a cache_write stage",
                     {}, {kernel().tensors[t].name});
        int level = m_step.level.empty() ? m_p.target->innermostLevel() : levelByName(m_step.level);
        m_p.stages[p].computeAt = Attach{r.stage, r.var};
        m_p.stages[p].storeLevel = level;
    }

    // compute_inline: requires a stage without reduction or requantize, no zero padding, an
    // output that is an intermediate (read by a later stage), and no cache stages or
    // compute_at involving that output. Its expression is substituted into its readers.
    void computeInline()
    {
        int p = stageByName(m_step.producer.empty() ? m_step.stage : m_step.producer);
        const auto& st = kernel().stages[p];
        if (st.accumulate)
            fail("can't inline " + st.name + ": it is a reduction (+=); only elementwise stages can be inlined");
        if (st.requant || st.padZero)
            fail("can't inline " + st.name + ": it has a requantize epilogue or zero padding");
        int t = st.output.tensor;
        if (!kernel().isIntermediate(t))
            fail("can't inline " + st.name + ": its output " + kernel().tensors[t].name
                     + " is not read by a later stage",
                 {}, {kernel().tensors[t].name});
        for (const auto& c : m_p.caches)
            if (c.tensor == t || c.stage == p)
                fail("can't inline " + st.name + ": it has cache stages", {}, {kernel().tensors[t].name});
        for (size_t s = 0; s < m_p.stages.size(); ++s)
            if (m_p.stages[s].computeAt.stage == p)
                fail("can't inline " + st.name + ": stage " + stageName(static_cast<int>(s)) + " is computed inside it");
        m_p.stages[p].inlined = true;
        m_p.stages[p].computeAt = Attach{};
    }

    // double_buffer: requires a cache stage of the tensor (level optional when unique)
    // placed at a loop (or at the root of a stage computed inside a consumer loop), not yet double-buffered, in a level whose buffer_count
    // is at least 2.
    void doubleBuffer()
    {
        int t = tensorByName(m_step.tensor);
        int level = m_step.level.empty() ? -1 : levelByName(m_step.level);
        int found = -1;
        for (size_t i = 0; i < m_p.caches.size(); ++i) {
            const auto& c = m_p.caches[i];
            if (c.tensor != t || (level >= 0 && c.level != level))
                continue;
            if (!m_step.stage.empty() && stageName(c.stage) != m_step.stage)
                continue;
            if (found >= 0)
                fail(m_step.tensor + " has several cache stages; name the level (and stage)", {}, {m_step.tensor});
            found = static_cast<int>(i);
        }
        if (found < 0)
            fail(m_step.tensor + " has no cache stage" + (level >= 0 ? " in " + m_step.level : std::string()) + forStageNote(t, level)
                     + " to double-buffer; add one with cache_read or cache_write",
                 {}, {m_step.tensor});
        CacheStage& c = m_p.caches[found];
        const auto& lv = m_p.target->levels[c.level];
        // At the root of a stage computed inside a consumer loop, the cache is refilled on
        // every iteration of that loop: it can ping-pong there.
        if (c.var < 0 && m_p.stages[c.stage].computeAt.isRoot())
            fail("can't double-buffer " + m_step.tensor + "@" + lv.name
                     + ": it sits at root and is filled only once",
                 {}, {m_step.tensor});
        if (c.doubleBuffer)
            fail(m_step.tensor + "@" + lv.name + " is already double-buffered", {}, {m_step.tensor});
        if (c.dtype)
            fail("can't double-buffer " + m_step.tensor + "@" + lv.name + ": it is widened to " + ir::dtypeName(*c.dtype)
                     + ", a copy the core makes itself (no DMA engine widens), so there is no transfer to overlap",
                 {}, {m_step.tensor});
        if (lv.bufferCount < 2)
            fail("can't double-buffer " + m_step.tensor + " in " + lv.name + ": the level's buffer_count is "
                     + std::to_string(lv.bufferCount),
                 {}, {m_step.tensor});
        c.doubleBuffer = true;
    }

    // tensorize: the three innermost loops [i, j, k] become one accelerator operation per block;
    // its preconditions are in sched/tensorize.cpp.
    void tensorize()
    {
        if (m_step.loops.size() != 3)
            fail("tensorize takes three loops [i, j, k]: the rows, columns and reduction of the block", m_step.loops);
        LoopRef i = loop(m_step.loops[0]);
        LoopRef j = loop(m_step.loops[1], i.stage);
        LoopRef k = loop(m_step.loops[2], i.stage);
        if (m_p.stages[i.stage].tensorize)
            fail("stage " + stageName(i.stage) + " is already tensorized (step " + std::to_string(m_p.stages[i.stage].tensorize->step + 1) + ")", m_step.loops);
        for (const CacheStage& c : m_p.caches)
            if (c.stage == i.stage && c.dtype)
                fail("can't tensorize stage " + stageName(i.stage) + ": its cache of " + kernel().tensors[c.tensor].name
                         + " is widened to " + ir::dtypeName(*c.dtype) + ", and the accelerator reads int8 operands",
                     m_step.loops, {kernel().tensors[c.tensor].name});
        if (auto e = checkTensorize(m_p, i.stage, i.var, j.var, k.var, m_step))
            fail(e->message, e->loops, e->tensors, e->detail);
        TensorizeSpec spec;
        spec.i = i.var;
        spec.j = j.var;
        spec.k = k.var;
        spec.intrinsic = m_step.intrinsic;
        parseDataflow(m_step.dataflow, spec.dataflow);
        spec.step = static_cast<int>(m_p.trace.size());
        m_p.stages[i.stage].tensorize = spec;
    }

    /// Invariants over the whole program, checked after every primitive.
    void validate() const
    {
        // A tensorized stage keeps its block: later steps must not break its preconditions.
        if (m_step.primitive != Primitive::Tensorize)
            for (size_t s = 0; s < m_p.stages.size(); ++s)
                if (auto e = recheckTensorize(m_p, static_cast<int>(s)))
                    fail(e->message, e->loops, e->tensors, e->detail);
        // Caches and producer regions are one box each: an inline may not give their tensor a
        // second index pattern later.
        for (const auto& c : m_p.caches)
            if (!c.write)
                requireOnePattern(c.stage, c.tensor);
        for (size_t i = 0; i < m_p.caches.size(); ++i)
            if (m_p.caches[i].slideVar >= 0)
                if (auto e = checkSlide(m_p, static_cast<int>(i)))
                    fail(e->message, e->loops, e->tensors, e->detail);
        for (size_t p = 0; p < m_p.stages.size(); ++p) {
            const Attach& a = m_p.stages[p].computeAt;
            if (!a.isRoot() && !m_p.stages[p].inlined)
                requireOnePattern(a.stage, kernel().stages[p].output.tensor);
        }
        for (size_t s = 0; s < m_p.stages.size(); ++s) {
            const auto& ss = m_p.stages[s];
            if (ss.inlined)
                continue;
            for (size_t i = 0; i + 1 < ss.order.size(); ++i)
                if (ss.vars[ss.order[i]].kind == LoopKind::Vectorized)
                    fail(ss.vars[ss.order[i]].name + " is vectorized and must stay the innermost loop of stage "
                             + stageName(static_cast<int>(s)),
                         {ss.vars[ss.order[i]].name});
        }
        for (const auto& c : m_p.caches) {
            if (!c.write)
                continue;
            const auto& prodAt = m_p.stages[c.stage].computeAt;
            if (!prodAt.isRoot())
                fail("can't cache_write " + kernel().tensors[c.tensor].name + ": stage " + stageName(c.stage) + " is computed at "
                         + m_p.stages[prodAt.stage].vars[prodAt.var].name + ", where its output already has a buffer of its own",
                     {}, {kernel().tensors[c.tensor].name});
            if (c.var < 0)
                continue;
            const auto& ss = m_p.stages[c.stage];
            const auto& v = ss.vars[c.var];
            int pos = ss.position(c.var);
            const auto& stage = kernel().stages[c.stage];
            for (int a = 0; a < stage.spatialCount(); ++a)
                if (!axisContiguousInside(ss, a, c.var))
                    fail("cache_write " + kernel().tensors[c.tensor].name + "@" + m_p.target->levels[c.level].name
                             + " at " + v.name + ": the tile of " + kernel().tensors[c.tensor].name
                             + " computed in its body is not contiguous along " + stage.axes[a].name,
                         {v.name}, {kernel().tensors[c.tensor].name},
                         "the outer part of a split of " + stage.axes[a].name + " runs inside " + v.name
                             + " while the inner part runs outside; reorder them or place the cache elsewhere");
            const std::string where = kernel().tensors[c.tensor].name + "@" + m_p.target->levels[c.level].name;
            if (v.reduction)
                fail("cache_write " + where + " can't sit at reduction loop " + v.name
                         + ": the tile is not final there",
                     {v.name}, {kernel().tensors[c.tensor].name}, "place it at a spatial loop outside every reduction loop");
            for (int i = 0; i < pos; ++i)
                if (ss.vars[ss.order[i]].reduction)
                    fail("reduction loop " + ss.vars[ss.order[i]].name + " would be outside " + v.name
                             + ", where cache_write " + where + " sits",
                         {ss.vars[ss.order[i]].name, v.name}, {kernel().tensors[c.tensor].name},
                         "the written-back tile would not be final");
        }
        // A consumer's cache of an intermediate computed inside one of its loops must sit
        // inside that loop (before it, the intermediate does not exist yet), in a level inside
        // the one the intermediate lives in.
        for (const auto& c : m_p.caches) {
            if (c.write)
                continue;
            int prod = kernel().producerOf(c.tensor);
            if (prod < 0)
                continue;
            const Attach& a = m_p.stages[prod].computeAt;
            if (a.isRoot())
                continue;
            const int store = m_p.stages[prod].storeLevel;
            if (c.level <= store) {
                const std::string tn = kernel().tensors[c.tensor].name;
                fail("can't cache " + tn + " into " + m_p.target->levels[c.level].name + ": " + tn + " is computed at "
                         + m_p.stages[a.stage].vars[a.var].name + " into " + m_p.target->levels[store].name
                         + "; a cache must be in a level inside that one",
                     {m_p.stages[a.stage].vars[a.var].name}, {tn});
            }
            if (a.stage != c.stage)
                continue;
            const auto& ss = m_p.stages[c.stage];
            if (c.var < 0 || ss.position(c.var) < ss.position(a.var))
                fail("cache_read " + kernel().tensors[c.tensor].name + "@" + m_p.target->levels[c.level].name
                         + " sits outside " + ss.vars[a.var].name + ", where its producer "
                         + stageName(prod) + " is computed",
                     {ss.vars[a.var].name}, {kernel().tensors[c.tensor].name});
        }
    }

    Program m_p;
    const Step& m_step;
};

} // namespace

ApplyResult apply(const Program& program, const Step& step)
{
    return apply(Program(program), step);
}

ApplyResult apply(Program&& program, const Step& step)
{
    const int index = static_cast<int>(program.trace.size());
    try {
        return Applier(std::move(program), step).run();
    } catch (const Fail& f) {
        ScheduleError e;
        e.stepIndex = index;
        e.primitive = step.primitive;
        e.message = f.message;
        e.detail = f.detail;
        e.loops = f.loops;
        e.tensors = f.tensors;
        e.loc = step.loc;
        return e;
    }
}

ApplyResult replay(std::shared_ptr<const ir::Kernel> kernel,
                   std::shared_ptr<const hw::Target> target, const std::vector<Step>& steps)
{
    Program p = Program::initial(std::move(kernel), std::move(target));
    p.trace.reserve(steps.size());
    for (const auto& s : steps) {
        ApplyResult r = apply(std::move(p), s);
        if (!r.ok())
            return r;
        p = std::move(r.program());
    }
    return p;
}

} // namespace loopscope::sched
