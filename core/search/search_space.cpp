// The schedule search space: sampling, mutation, canonical form and steps of a candidate.
#include "search/search_space.h"

#include "sched/tensorize.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>
#include <set>

namespace loopscope::search {

namespace {

constexpr int64_t kMaxUnrollExtent = 256;   // sched::apply's limit
constexpr int64_t kMaxVectorLanes = 64;     // sched::apply's limit
constexpr int kMaxUnrollLoops = 4;

int axisOfVar(const sched::StageSchedule& ss, int v)
{
    for (;;) {
        const sched::LoopVar& lv = ss.vars[v];
        if (lv.origin == sched::LoopVar::Origin::Axis)
            return lv.axis;
        if (lv.origin == sched::LoopVar::Origin::Fused)
            return -1;
        v = lv.parent;
    }
}

int randomInt(std::mt19937_64& rng, int lo, int hi)  // inclusive
{
    if (hi <= lo)
        return lo;
    return lo + static_cast<int>(rng() % static_cast<uint64_t>(hi - lo + 1));
}

bool hasOuter(const SpaceLoop& l, int64_t tile) { return tile < l.extent || l.extent == 1; }
bool hasInner(const SpaceLoop&, int64_t tile) { return tile > 1; }

sched::Step makeStep(sched::Primitive p, const std::string& stage)
{
    sched::Step s;
    s.primitive = p;
    s.stage = stage;
    return s;
}

/// The hash both Candidate::hash and SearchSpace::blockKey build, one value at a time.
struct Mixer {
    uint64_t h = 1469598103934665603ull;
    void operator()(int64_t v)
    {
        h ^= static_cast<uint64_t>(v) + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
        h *= 1099511628211ull;
    }
    /// The producer placement and the array mapping of a stage.
    void placement(const Candidate::Stage& s)
    {
        (*this)(s.computeAt);
        (*this)(s.tensorize);
        (*this)(s.dataflow);
        for (int64_t t : s.tile2)
            (*this)(t);
    }
};

} // namespace

uint64_t Candidate::hash() const
{
    Mixer mix;
    for (const auto& s : stages) {
        for (int64_t t : s.tile) mix(t);
        for (int o : s.outerOrder) mix(o);
        mix(-7);
        for (int o : s.innerOrder) mix(o);
        mix(-11);
        for (int a : s.cacheAt) mix(a);
        for (uint8_t d : s.doubleBuffer) mix(d);
        for (uint8_t v : s.vectorLast) mix(v);
        for (size_t w = 0; w < s.widen.size(); ++w)
            if (s.widen[w])  // nothing mixed for an unwidened cache: hashes of the spaces without widening stay as they were
                mix(-1000 - static_cast<int64_t>(w));
        mix(s.unroll);
        mix(s.vectorize);
        mix.placement(s);
        mix(-13);
    }
    return mix.h;
}

uint64_t SearchSpace::blockKey(const Candidate& c) const
{
    Mixer mix;
    for (size_t s = 0; s < m_stages.size(); ++s) {
        const Candidate::Stage& cs = c.stages[s];
        const Bands b = bands(c, static_cast<int>(s));
        for (int64_t t : cs.tile) mix(t);
        mix(-7);
        // The unrolled loops as a set: their order only orders the straight-line copies.
        const std::vector<UnrollLoop> u = unrollable(c, static_cast<int>(s), b);
        std::vector<int> unrolled;
        for (int i = 0; i < cs.unroll && i < static_cast<int>(u.size()); ++i)
            unrolled.push_back(u[static_cast<size_t>(i)].outer ? 1000 + u[static_cast<size_t>(i)].loop : u[static_cast<size_t>(i)].loop);
        for (int l : b.inner)
            if (std::find(unrolled.begin(), unrolled.end(), l) == unrolled.end())
                mix(l);
        mix(-11);
        std::sort(unrolled.begin(), unrolled.end());
        for (int l : unrolled) mix(l);
        mix(-13);
        mix(cs.vectorize);
        for (uint8_t w : cs.widen) mix(w);
        mix.placement(cs);
        mix(-17);
    }
    return mix.h;
}

int64_t SearchSpace::unrolledCopies(const Candidate& c) const
{
    int64_t most = 1;
    for (size_t s = 0; s < m_stages.size(); ++s) {
        const Candidate::Stage& cs = c.stages[s];
        const std::vector<UnrollLoop> u = unrollable(c, static_cast<int>(s), bands(c, static_cast<int>(s)));
        int64_t copies = 1;
        for (int i = 0; i < cs.unroll && i < static_cast<int>(u.size()); ++i)
            copies *= u[static_cast<size_t>(i)].copies;
        most = std::max(most, copies);
    }
    return most;
}

SearchSpace::SearchSpace(const sched::Program& base, SpaceOptions options)
    : m_base(base), m_options(options)
{
    const hw::Target& tgt = *base.target;
    const ir::Kernel& k = *base.kernel;
    m_level = tgt.innermostLevel();
    if (tgt.compute.peArray && tgt.compute.peArray->rows > 0 && tgt.compute.peArray->rows == tgt.compute.peArray->cols) {
        m_dim = tgt.compute.peArray->rows;
        m_scratchpad = tgt.findLevel(sched::kScratchpadLevel);
        m_accumulator = tgt.findLevel(sched::kAccumulatorLevel);
        if (m_scratchpad < 0 || m_accumulator < 0)
            m_dim = 0;
    }
    for (size_t s = 0; s < base.stages.size(); ++s) {
        const sched::StageSchedule& ss = base.stages[s];
        if (ss.inlined)
            continue;
        const ir::Stage& st = k.stages[s];
        SpaceStage sp;
        sp.stage = static_cast<int>(s);
        sp.name = st.name;
        for (int v : ss.order) {
            const sched::LoopVar& lv = ss.vars[v];
            SpaceLoop l;
            l.name = lv.name;
            l.extent = lv.extent;
            l.reduction = lv.reduction;
            l.axis = axisOfVar(ss, v);
            l.splittable = lv.kind == sched::LoopKind::Serial && lv.origin != sched::LoopVar::Origin::Fused;
            l.vectorized = lv.kind == sched::LoopKind::Vectorized;
            l.fixedInner = lv.kind == sched::LoopKind::Unrolled || l.vectorized;
            for (const auto& c : base.caches)
                if (c.stage == static_cast<int>(s) && c.var == v) {
                    l.anchor = true;
                    l.anchorWrite = l.anchorWrite || c.write;
                }
            for (const auto& other : base.stages)
                if (other.computeAt.stage == static_cast<int>(s) && other.computeAt.var == v)
                    l.anchor = true;
            if (ss.tensorize && (v == ss.tensorize->i || v == ss.tensorize->j || v == ss.tensorize->k)) {
                l.block = true;        // a pinned tensorize's block loop: stays inner, whole, in its place
                l.fixedInner = true;
                l.splittable = false;
            }
            if (l.anchor && !l.fixedInner)
                l.splittable = false;
            if (l.splittable) {
                for (int64_t f = 1; f <= l.extent; ++f)
                    if (l.extent % f == 0 || (m_options.partialTiles && (f & (f - 1)) == 0) || (f == m_dim && !ss.tensorize))
                        l.factors.push_back(f);
            } else {
                l.factors.push_back(lv.kind == sched::LoopKind::Parallel || l.anchor ? 1 : l.extent);
            }
            sp.loops.push_back(std::move(l));
        }
        // Tensors: inputs read (once each, in order of first use), then the output.
        std::vector<ir::Access> loads = sched::effectiveLoads(base, static_cast<int>(s));
        std::set<int> seen;
        auto addTensor = [&](const ir::Access& a, bool write) {
            if (m_level <= 0 || !seen.insert(a.tensor).second)
                return;
            if (base.findCache(a.tensor, m_level, static_cast<int>(s)) >= 0)
                return;
            int producer = k.producerOf(a.tensor);
            if (!write && producer >= 0 && !base.stages[producer].computeAt.isRoot())
                return;  // computed at a loop already: it lives where it is computed
            if (write && k.isIntermediate(a.tensor))
                return;
            SpaceTensor t;
            t.tensor = a.tensor;
            t.name = k.tensors[a.tensor].name;
            t.write = write;
            for (const auto& e : a.index)
                t.dims.push_back(e.terms.size() == 1 && e.terms[0].coeff == 1 ? e.terms[0].axis : -1);
            sp.tensors.push_back(std::move(t));
        };
        for (const auto& a : loads)
            addTensor(a, false);
        addTensor(st.output, true);
        // The DSP path: int8 or int16 operands on a target with the DSP extension.
        bool allInt = !loads.empty();
        ir::DType dt = ir::DType::Int8;
        for (const auto& a : loads) {
            ir::DType d = k.tensors[a.tensor].dtype;
            if (d != ir::DType::Int8 && d != ir::DType::Int16)
                allInt = false;
            else
                dt = d;
        }
        sp.operandsInt = allInt && tgt.compute.dsp;
        sp.lanes = sp.operandsInt ? (dt == ir::DType::Int8 ? 4 : 2) : 1;
        for (SpaceTensor& t : sp.tensors) {
            bool pinned = false;  // a widened cache must be the tensor's only one in the stage (sched::apply)
            for (const auto& c : base.caches)
                pinned = pinned || (c.tensor == t.tensor && c.stage == static_cast<int>(s));
            t.widenable = sp.operandsInt && !t.write && !pinned && k.tensors[t.tensor].dtype == ir::DType::Int8;
        }
        if (ss.tensorize) {
            // Its operands are cached where the tensorize needs them; the block stays as it is.
            sp.tensorizedByPin = true;
            sp.tensors.clear();
            sp.operandsInt = false;
            sp.lanes = 1;
        } else if (m_dim > 0) {
            findArrayMappings(sp);
        }
        m_stages.push_back(std::move(sp));
    }
    // Producers that may be computed at a loop of their first consumer.
    for (auto& sp : m_stages) {
        int out = k.stages[sp.stage].output.tensor;
        if (!k.isIntermediate(out) || !base.stages[sp.stage].computeAt.isRoot() || m_level <= 0)
            continue;
        bool pinnedCache = false;  // a pinned cache of the intermediate: it stays where it is
        for (const auto& c : base.caches)
            pinnedCache = pinnedCache || c.tensor == out;
        if (pinnedCache)
            continue;
        for (size_t c = 0; c < m_stages.size(); ++c) {
            bool reads = false;
            for (const auto& a : sched::effectiveLoads(base, m_stages[c].stage))
                reads = reads || a.tensor == out;
            if (reads && m_stages[c].stage > sp.stage) {
                sp.consumer = static_cast<int>(c);
                break;
            }
        }
    }
}

void SearchSpace::findArrayMappings(SpaceStage& sp) const
{
    // A pinned cache of the stage would sit beside the ones tensorize needs: host mode only.
    for (const auto& c : m_base.caches)
        if (c.stage == sp.stage)
            return;
    const std::vector<std::string> targetFlows = m_base.target->compute.peArray->dataflows;
    auto usable = [&](const SpaceLoop& l) { return !l.anchor && !l.fixedInner && (l.splittable || l.extent <= m_dim) && l.extent > 1; };
    const int n = static_cast<int>(sp.loops.size());
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j)
            for (int k = 0; k < n; ++k) {
                const SpaceLoop &li = sp.loops[i], &lj = sp.loops[j], &lk = sp.loops[k];
                if (i == j || li.reduction || lj.reduction || !lk.reduction || !usable(li) || !usable(lj) || !usable(lk))
                    continue;
                // The probe: each role loop cut to at most DIM, its inner part innermost.
                sched::Program probe = m_base;
                std::vector<std::string> inner(3), order;
                bool ok = true;
                const int roles[3] = {i, j, k};
                for (int r = 0; r < 3 && ok; ++r) {
                    const SpaceLoop& l = sp.loops[roles[r]];
                    inner[r] = l.name;
                    if (l.extent > m_dim) {
                        sched::Step st = makeStep(sched::Primitive::Split, sp.name);
                        st.loops = {l.name};
                        st.factor = m_dim;
                        auto res = sched::apply(probe, st);
                        ok = res.ok();
                        if (ok)
                            probe = std::move(res.program());
                        inner[r] = l.name + ".inner";
                    }
                }
                if (!ok)
                    continue;
                for (int v : probe.stages[sp.stage].order) {
                    const std::string& name = probe.stages[sp.stage].vars[v].name;
                    if (std::find(inner.begin(), inner.end(), name) == inner.end())
                        order.push_back(name);
                }
                order.insert(order.end(), inner.begin(), inner.end());
                sched::Step re = makeStep(sched::Primitive::Reorder, sp.name);
                re.loops = order;
                auto reordered = sched::apply(probe, re);
                if (!reordered.ok())
                    continue;
                probe = std::move(reordered.program());
                ArrayMapping m{i, j, k, -1, -1, -1, {}};
                for (sched::Dataflow df : {sched::Dataflow::WeightStationary, sched::Dataflow::OutputStationary}) {
                    if (std::find(targetFlows.begin(), targetFlows.end(), sched::dataflowName(df)) == targetFlows.end())
                        continue;
                    const sched::TensorizePlan plan = sched::planTensorize(probe, sp.stage, df);
                    if (!plan.legal)
                        continue;
                    sched::Program applied = probe;
                    for (const auto& st : plan.steps) {
                        auto res = sched::apply(applied, st);
                        if (!res.ok()) {
                            ok = false;
                            break;
                        }
                        applied = std::move(res.program());
                    }
                    if (!ok)
                        break;
                    const sched::TensorizeOperands ops = sched::tensorizeOperands(applied, sp.stage);
                    for (size_t t = 0; t < sp.tensors.size(); ++t) {
                        if (sp.tensors[t].tensor == ops.a && !sp.tensors[t].write)
                            m.a = static_cast<int>(t);
                        if (sp.tensors[t].tensor == ops.b && !sp.tensors[t].write)
                            m.b = static_cast<int>(t);
                        if (sp.tensors[t].write)
                            m.c = static_cast<int>(t);
                    }
                    m.dataflows.push_back(df);
                }
                if (ok && !m.dataflows.empty() && m.a >= 0 && m.b >= 0 && m.c >= 0)
                    sp.arrayMappings.push_back(std::move(m));
            }
}

int SearchSpace::cacheLevelOf(const Candidate& c, int s, int t) const
{
    const int mapping = c.stages[static_cast<size_t>(s)].tensorize;
    if (mapping < 0)
        return m_level;
    return m_stages[static_cast<size_t>(s)].tensors[static_cast<size_t>(t)].write ? m_accumulator : m_scratchpad;
}

Candidate SearchSpace::identity() const
{
    Candidate c;
    for (const auto& sp : m_stages) {
        Candidate::Stage s;
        // Loops up to the last anchor stay outer loops, the rest inner ones: the bands then
        // give the base program's order back.
        size_t lastAnchor = 0;
        for (size_t l = 0; l < sp.loops.size(); ++l)
            if (sp.loops[l].anchor)
                lastAnchor = l + 1;
        for (size_t l = 0; l < sp.loops.size(); ++l) {
            const SpaceLoop& lp = sp.loops[l];
            if (l < lastAnchor && lp.splittable)
                s.tile.push_back(1);
            else
                s.tile.push_back(lp.fixedInner || (lp.splittable && lp.extent > 1) ? lp.extent : lp.factors.front());
        }
        s.outerOrder.resize(sp.loops.size());
        std::iota(s.outerOrder.begin(), s.outerOrder.end(), 0);
        s.innerOrder = s.outerOrder;
        s.cacheAt.assign(sp.tensors.size(), -1);
        s.doubleBuffer.assign(sp.tensors.size(), 0);
        s.vectorLast.assign(sp.tensors.size(), 0);
        s.widen.assign(sp.tensors.size(), 0);
        s.tile2.assign(sp.loops.size(), 0);
        c.stages.push_back(std::move(s));
    }
    return c;
}

namespace {

/// A CacheStage's placement as the projection compares it with the base program's.
bool sameCache(const sched::CacheStage& a, const sched::CacheStage& b)
{
    return a.tensor == b.tensor && a.level == b.level && a.write == b.write && a.stage == b.stage && a.var == b.var
           && a.doubleBuffer == b.doubleBuffer && a.layout == b.layout && a.dtype == b.dtype && a.slideVar == b.slideVar;
}

} // namespace

std::optional<Candidate> SearchSpace::project(const sched::Program& scheduled, std::string& why) const
{
    const sched::Program& p = scheduled;
    if (p.stages.size() != m_base.stages.size() || p.caches.size() < m_base.caches.size()) {
        why = "not a schedule of the searched program";
        return std::nullopt;
    }
    for (size_t i = 0; i < m_base.caches.size(); ++i)
        if (!sameCache(p.caches[i], m_base.caches[i])) {
            why = "a step changes the pinned cache of " + m_base.kernel->tensors[m_base.caches[i].tensor].name;
            return std::nullopt;
        }
    for (size_t s = 0; s < p.stages.size(); ++s) {
        const sched::StageSchedule& ss = p.stages[s];
        const sched::StageSchedule& bs = m_base.stages[s];
        const std::string& stage = m_base.kernel->stages[s].name;
        if (ss.inlined != bs.inlined) {
            why = "compute_inline of " + stage + " is not in the space";
            return std::nullopt;
        }
        if (ss.tensorize.has_value() != bs.tensorize.has_value()) {
            why = "tensorize of " + stage + " is not read back into the space";
            return std::nullopt;
        }
        if (ss.computeAt != bs.computeAt && (!bs.computeAt.isRoot() || ss.storeLevel != m_level)) {
            why = "the placement of " + stage + " is not in the space";
            return std::nullopt;
        }
    }

    // Per space loop: its whole variable, or the two parts of its one split.
    struct Parts {
        int whole = -1, outer = -1, inner = -1;
    };
    std::vector<std::vector<Parts>> parts(m_stages.size());
    Candidate c = identity();
    for (size_t s = 0; s < m_stages.size(); ++s) {
        const SpaceStage& sp = m_stages[s];
        const sched::StageSchedule& ss = p.stages[static_cast<size_t>(sp.stage)];
        Candidate::Stage& cs = c.stages[s];
        for (size_t l = 0; l < sp.loops.size(); ++l) {
            const SpaceLoop& lp = sp.loops[l];
            Parts& pt = parts[s].emplace_back();
            const int v = ss.findVar(lp.name);
            if (v < 0) {
                why = "not a schedule of the searched program (no loop " + lp.name + ")";
                return std::nullopt;
            }
            const sched::LoopVar& lv = ss.vars[static_cast<size_t>(v)];
            if (lv.active) {
                pt.whole = v;
                continue;
            }
            const bool split = lv.splitOuter >= 0 && ss.vars[static_cast<size_t>(lv.splitOuter)].active && ss.vars[static_cast<size_t>(lv.splitInner)].active;
            if (!split || !lp.splittable) {
                why = lp.name + (split ? " cannot be split in the space (a pinned step fixes it)" : " is fused or split twice");
                return std::nullopt;
            }
            pt.outer = lv.splitOuter;
            pt.inner = lv.splitInner;
            cs.tile[l] = ss.vars[static_cast<size_t>(lv.splitInner)].extent;
            if (std::find(lp.factors.begin(), lp.factors.end(), cs.tile[l]) == lp.factors.end()) {
                why = "split " + lp.name + " by " + std::to_string(cs.tile[l]) + ": not one of the space's tile factors"
                      + (m_options.partialTiles ? "" : " (partial tiles are not searched)");
                return std::nullopt;
            }
        }
        for (int v : ss.order) {
            const sched::LoopVar& lv = ss.vars[static_cast<size_t>(v)];
            const bool pinnedKind = v < static_cast<int>(m_base.stages[static_cast<size_t>(sp.stage)].vars.size())
                                    && m_base.stages[static_cast<size_t>(sp.stage)].vars[static_cast<size_t>(v)].kind == lv.kind;
            if (!pinnedKind && (lv.kind == sched::LoopKind::Parallel)) {
                why = "parallel " + lv.name + " is not in the space";
                return std::nullopt;
            }
        }
    }

    // The split point between the outer and the inner band is not written anywhere: a whole
    // loop before it is an outer loop (tile 1), after it an inner one (tile = extent). Each
    // point the order allows is tried; the first whose candidate gives back the program's
    // order, caches, placements and unrolled loops is the projection.
    std::vector<std::pair<int, int>> ranges(m_stages.size());
    for (size_t s = 0; s < m_stages.size(); ++s) {
        const sched::StageSchedule& ss = p.stages[static_cast<size_t>(m_stages[s].stage)];
        int lastOuter = -1, firstInner = static_cast<int>(ss.order.size());
        for (const Parts& pt : parts[s]) {
            if (pt.outer >= 0)
                lastOuter = std::max(lastOuter, ss.position(pt.outer));
            if (pt.inner >= 0)
                firstInner = std::min(firstInner, ss.position(pt.inner));
        }
        if (lastOuter >= firstInner) {
            why = "an inner part of a split loop runs outside an outer part in " + m_stages[s].name + " (the space keeps outer parts outside inner ones)";
            return std::nullopt;
        }
        ranges[s] = {lastOuter + 1, firstInner};
    }
    // Stages are independent but for compute_at (a producer placed at a loop of its consumer):
    // each stage's split point is chosen in order, the consumers' before their producers'.
    std::vector<size_t> stageOrder(m_stages.size());
    std::iota(stageOrder.begin(), stageOrder.end(), 0);
    std::stable_sort(stageOrder.begin(), stageOrder.end(), [&](size_t a, size_t b) { return (m_stages[a].consumer >= 0) < (m_stages[b].consumer >= 0); });
    for (size_t s : stageOrder) {
        const SpaceStage& sp = m_stages[s];
        const sched::StageSchedule& ss = p.stages[static_cast<size_t>(sp.stage)];
        bool found = false;
        std::string failed;
        for (int split = ranges[s].first; split <= ranges[s].second && !found; ++split) {
            Candidate::Stage& cs = c.stages[s];
            std::vector<std::pair<int, int>> outer, inner;  // (position, loop)
            for (size_t l = 0; l < sp.loops.size(); ++l) {
                const Parts& pt = parts[s][l];
                if (pt.whole >= 0) {
                    const int at = ss.position(pt.whole);
                    if (sp.loops[l].splittable)
                        cs.tile[l] = at < split ? 1 : sp.loops[l].extent;
                    (at < split ? outer : inner).push_back({at, static_cast<int>(l)});
                } else {
                    outer.push_back({ss.position(pt.outer), static_cast<int>(l)});
                    inner.push_back({ss.position(pt.inner), static_cast<int>(l)});
                }
            }
            std::sort(outer.begin(), outer.end());
            std::sort(inner.begin(), inner.end());
            cs.outerOrder.clear();
            cs.innerOrder.clear();
            for (const auto& [at, l] : outer)
                cs.outerOrder.push_back(l);
            for (const auto& [at, l] : inner)
                cs.innerOrder.push_back(l);
            for (size_t l = 0; l < sp.loops.size(); ++l) {
                if (std::find(cs.outerOrder.begin(), cs.outerOrder.end(), static_cast<int>(l)) == cs.outerOrder.end())
                    cs.outerOrder.push_back(static_cast<int>(l));
                if (std::find(cs.innerOrder.begin(), cs.innerOrder.end(), static_cast<int>(l)) == cs.innerOrder.end())
                    cs.innerOrder.push_back(static_cast<int>(l));
            }
            const Bands b = bands(c, static_cast<int>(s));
            std::vector<std::string> names;
            for (int l : b.outer)
                names.push_back(outerName(c, static_cast<int>(s), l));
            for (int l : b.inner)
                names.push_back(innerName(c, static_cast<int>(s), l));
            std::vector<std::string> actual;
            for (int v : ss.order)
                actual.push_back(ss.vars[static_cast<size_t>(v)].name);
            if (names != actual) {
                failed = "its loop order";
                continue;
            }
            auto outerPosition = [&](const Candidate& cand, int stage, int var, const sched::StageSchedule& sched) {
                const Bands bb = bands(cand, stage);
                for (size_t q = 0; q < bb.outer.size(); ++q)
                    if (outerName(cand, stage, bb.outer[q]) == sched.vars[static_cast<size_t>(var)].name)
                        return static_cast<int>(q) + 1;
                return -1;
            };
            // The caches the steps add, in this stage.
            std::fill(cs.cacheAt.begin(), cs.cacheAt.end(), -1);
            std::fill(cs.doubleBuffer.begin(), cs.doubleBuffer.end(), 0);
            std::fill(cs.vectorLast.begin(), cs.vectorLast.end(), 0);
            std::fill(cs.widen.begin(), cs.widen.end(), 0);
            bool cachesFit = true;
            for (size_t k = m_base.caches.size(); k < p.caches.size() && cachesFit; ++k) {
                const sched::CacheStage& cache = p.caches[k];
                if (cache.stage != sp.stage)
                    continue;
                int t = -1;
                for (size_t i = 0; i < sp.tensors.size(); ++i)
                    if (sp.tensors[i].tensor == cache.tensor && sp.tensors[i].write == cache.write)
                        t = static_cast<int>(i);
                if (t < 0 || cache.level != m_level || cache.slideVar >= 0 || cs.cacheAt[static_cast<size_t>(t)] >= 0) {
                    why = "the cache of " + m_base.kernel->tensors[cache.tensor].name
                          + (cache.slideVar >= 0 ? " slides: not in the space" : " is not one the space places");
                    return std::nullopt;
                }
                const int at = cache.var < 0 ? 0 : outerPosition(c, static_cast<int>(s), cache.var, ss);
                cachesFit = at >= 0;
                cs.cacheAt[static_cast<size_t>(t)] = at;
                cs.doubleBuffer[static_cast<size_t>(t)] = cache.doubleBuffer;
                cs.vectorLast[static_cast<size_t>(t)] = !cache.layout.empty();
                cs.widen[static_cast<size_t>(t)] = cache.dtype.has_value();
            }
            if (!cachesFit) {
                failed = "a cache at an inner loop";
                continue;
            }
            // Producers computed at a loop of this stage (their own loops come later).
            for (size_t q = 0; q < m_stages.size(); ++q) {
                if (m_stages[q].consumer != static_cast<int>(s))
                    continue;
                const sched::StageSchedule& ps = p.stages[static_cast<size_t>(m_stages[q].stage)];
                c.stages[q].computeAt = ps.computeAt.isRoot() ? -1 : outerPosition(c, static_cast<int>(s), ps.computeAt.var, ss);
                cachesFit = cachesFit && (ps.computeAt.isRoot() || c.stages[q].computeAt > 0);
            }
            if (!cachesFit) {
                failed = "a producer computed at an inner loop";
                continue;
            }
            // Unrolled and vectorized loops the steps add.
            const auto& baseVars = m_base.stages[static_cast<size_t>(sp.stage)].vars;
            std::set<std::string> unrolled;
            cs.vectorize = false;
            bool kindsFit = true;
            for (int v : ss.order) {
                const sched::LoopVar& lv = ss.vars[static_cast<size_t>(v)];
                if (v < static_cast<int>(baseVars.size()) && baseVars[static_cast<size_t>(v)].kind == lv.kind && baseVars[static_cast<size_t>(v)].active)
                    continue;
                if (lv.kind == sched::LoopKind::Unrolled)
                    unrolled.insert(lv.name);
                else if (lv.kind == sched::LoopKind::Vectorized) {
                    // Only the innermost inner loop is vectorized in the space.
                    cs.vectorize = true;
                    kindsFit = kindsFit && !b.inner.empty() && innerName(c, static_cast<int>(s), b.inner.back()) == lv.name;
                }
            }
            if (!kindsFit) {
                failed = "a vectorized loop that is not the innermost";
                continue;
            }
            const std::vector<UnrollLoop> list = unrollable(c, static_cast<int>(s), b);
            std::set<std::string> prefix;
            int count = -1;
            for (size_t k = 0; k <= list.size(); ++k) {
                if (prefix == unrolled) {
                    count = static_cast<int>(k);
                    break;
                }
                if (k < list.size())
                    prefix.insert(list[k].outer ? outerName(c, static_cast<int>(s), list[k].loop) : innerName(c, static_cast<int>(s), list[k].loop));
            }
            if (count < 0) {
                failed = "its unrolled loops (the space unrolls the innermost inner loops, then the innermost outer ones inside every cache)";
                continue;
            }
            cs.unroll = count;
            found = true;
        }
        if (!found) {
            why = "the space cannot write " + failed + " in " + sp.name;
            return std::nullopt;
        }
    }
    Candidate canonical = c;
    canonicalize(canonical);
    if (!(canonical == c)) {
        why = "its caches, vectorize or unrolling are not ones the space keeps (canonical form)";
        return std::nullopt;
    }
    return c;
}

Bands SearchSpace::bands(const Candidate& c, int stage) const
{
    const SpaceStage& sp = m_stages[stage];
    const Candidate::Stage& cs = c.stages[stage];
    Bands b;
    for (int l : cs.outerOrder)
        if (hasOuter(sp.loops[l], cs.tile[l]))
            b.outer.push_back(l);
    for (int l : cs.innerOrder) {
        if (hasInner(sp.loops[l], cs.tile[l]))
            b.inner.push_back(l);
        if (cs.tensorize >= 0 && cs.tile2[static_cast<size_t>(l)] > 0)
            b.middle.push_back(l);
    }
    return b;
}

std::string SearchSpace::outerName(const Candidate& c, int stage, int loop) const
{
    const SpaceLoop& l = m_stages[stage].loops[loop];
    int64_t t = c.stages[stage].tile[loop];
    return t > 1 && t < l.extent ? l.name + ".outer" : l.name;
}

std::string SearchSpace::innerName(const Candidate& c, int stage, int loop) const
{
    const SpaceLoop& l = m_stages[stage].loops[loop];
    if (c.stages[stage].tensorize >= 0 && c.stages[stage].tile2[loop] > 0)
        return l.name + ".inner.inner";
    int64_t t = c.stages[stage].tile[loop];
    return t > 1 && t < l.extent ? l.name + ".inner" : l.name;
}

std::string SearchSpace::middleName(const Candidate& c, int stage, int loop) const
{
    (void)c;
    return m_stages[stage].loops[loop].name + ".inner.outer";
}

std::string SearchSpace::outerLoopName(const Candidate& c, int stage, int p) const
{
    Bands b = bands(c, stage);
    return outerName(c, stage, b.outer[static_cast<size_t>(p - 1)]);
}

void SearchSpace::canonicalize(Candidate& c) const
{
    const hw::Target& tgt = *m_base.target;
    for (size_t s = 0; s < m_stages.size(); ++s) {
        const SpaceStage& sp = m_stages[s];
        Candidate::Stage& cs = c.stages[s];
        for (size_t l = 0; l < sp.loops.size(); ++l)
            if (!sp.loops[l].splittable)
                cs.tile[l] = sp.loops[l].factors.front();
        // A pinned vectorized loop stays innermost.
        for (size_t l = 0; l < sp.loops.size(); ++l)
            if (sp.loops[l].vectorized) {
                auto it = std::find(cs.innerOrder.begin(), cs.innerOrder.end(), static_cast<int>(l));
                cs.innerOrder.erase(it);
                cs.innerOrder.push_back(static_cast<int>(l));
            }
        // A pinned cache_write keeps every reduction loop inside its loop.
        for (size_t l = 0; l < sp.loops.size(); ++l) {
            if (!sp.loops[l].anchorWrite)
                continue;
            auto& o = cs.outerOrder;
            auto at = std::find(o.begin(), o.end(), static_cast<int>(l));
            std::vector<int> before, moved;
            for (auto it = o.begin(); it != at; ++it)
                (sp.loops[*it].reduction ? moved : before).push_back(*it);
            before.push_back(static_cast<int>(l));
            before.insert(before.end(), moved.begin(), moved.end());
            before.insert(before.end(), at + 1, o.end());
            o = before;
        }
        // A pinned tensorize's block loops stay innermost, in their order.
        for (size_t l = 0; l < sp.loops.size(); ++l)
            if (sp.loops[l].block) {
                auto it = std::find(cs.innerOrder.begin(), cs.innerOrder.end(), static_cast<int>(l));
                cs.innerOrder.erase(it);
                cs.innerOrder.push_back(static_cast<int>(l));
            }
        cs.tensorize = std::clamp(cs.tensorize, -1, static_cast<int>(sp.arrayMappings.size()) - 1);
        if (cs.tensorize >= 0) {
            canonicalizeArray(c, static_cast<int>(s));
            continue;
        }
        cs.dataflow = 0;
        std::fill(cs.tile2.begin(), cs.tile2.end(), 0);
        Bands b = bands(c, static_cast<int>(s));
        int nOuter = static_cast<int>(b.outer.size());
        // Vectorize the innermost inner loop where the DSP path can take it.
        bool pinnedVector = !b.inner.empty() && sp.loops[b.inner.back()].vectorized;
        if (cs.vectorize) {
            bool ok = sp.lanes > 1 && !b.inner.empty() && !pinnedVector;
            if (ok) {
                int l = b.inner.back();
                int64_t ext = cs.tile[l] < sp.loops[l].extent ? cs.tile[l] : sp.loops[l].extent;
                ok = sp.loops[l].splittable && ext <= kMaxVectorLanes && ext % sp.lanes == 0;
            }
            cs.vectorize = ok;
        }
        int vecAxis = (cs.vectorize || pinnedVector) ? sp.loops[b.inner.back()].axis : -1;
        for (size_t t = 0; t < sp.tensors.size(); ++t) {
            const SpaceTensor& st = sp.tensors[t];
            int& at = cs.cacheAt[t];
            at = std::clamp(at, -1, nOuter);
            if (st.write && at > 0) {
                // A cache_write at a loop with a reduction loop outside it would write partial sums back.
                int legal = 0;
                while (legal < at && !sp.loops[b.outer[legal]].reduction)
                    ++legal;
                at = legal;
            }
            // An intermediate computed at a loop of this stage is not cached again.
            int prod = m_base.kernel->producerOf(st.tensor);
            for (size_t q = 0; q < m_stages.size(); ++q)
                if (m_stages[q].stage == prod && c.stages[q].computeAt > 0)
                    at = -1;
            bool db = cs.doubleBuffer[t] && at > 0 && !st.write && tgt.levels[m_level].bufferCount >= 2;
            cs.doubleBuffer[t] = db;
            bool vl = false;
            if (cs.vectorLast[t] && at >= 0 && vecAxis >= 0 && st.dims.size() >= 2) {
                auto it = std::find(st.dims.begin(), st.dims.end(), vecAxis);
                vl = it != st.dims.end() && it + 1 != st.dims.end();
            }
            cs.vectorLast[t] = vl;
            // Widened: cached, and not double-buffered (the core widens it itself: no transfer to overlap).
            cs.widen[t] = cs.widen[t] && at >= 0 && st.widenable;
            if (cs.widen[t])
                cs.doubleBuffer[t] = 0;
        }
        cs.unroll = std::clamp(cs.unroll, 0, static_cast<int>(unrollable(c, static_cast<int>(s), b).size()));
        if (sp.consumer >= 0) {
            Bands cb = bands(c, sp.consumer);
            cs.computeAt = std::clamp(cs.computeAt, -1, static_cast<int>(cb.outer.size()));
            if (cs.computeAt == 0)
                cs.computeAt = -1;
        } else {
            cs.computeAt = -1;
        }
    }
}

std::vector<SearchSpace::UnrollLoop> SearchSpace::unrollable(const Candidate& c, int stage, const Bands& b) const
{
    const SpaceStage& sp = m_stages[static_cast<size_t>(stage)];
    const Candidate::Stage& cs = c.stages[static_cast<size_t>(stage)];
    std::vector<UnrollLoop> out;
    int64_t product = 1;
    auto take = [&](int l, int64_t ext, bool outer) {
        if (out.size() >= static_cast<size_t>(kMaxUnrollLoops) || !sp.loops[static_cast<size_t>(l)].splittable || ext > kMaxUnrollExtent
            || product * ext > m_options.maxUnrollProduct)
            return false;
        product *= ext;
        out.push_back({l, outer, ext});
        return true;
    };
    const bool vectorized = cs.vectorize || (!b.inner.empty() && sp.loops[static_cast<size_t>(b.inner.back())].vectorized);
    const int end = static_cast<int>(b.inner.size()) - (vectorized ? 1 : 0);
    for (int i = end - 1; i >= 0; --i)
        if (!take(b.inner[static_cast<size_t>(i)], cs.tile[static_cast<size_t>(b.inner[static_cast<size_t>(i)])], false))
            return out;
    // Outer loops, innermost first, inside the innermost cache or producer placed in the stage
    // (position p > 0 is the body of the p-th outer loop): none is copied by the unrolling.
    int inside = 0;
    for (int at : cs.cacheAt)
        inside = std::max(inside, at);
    for (size_t q = 0; q < m_stages.size(); ++q)
        if (m_stages[q].consumer == stage)
            inside = std::max(inside, c.stages[q].computeAt);
    for (int p = static_cast<int>(b.outer.size()); p > inside; --p) {
        const int l = b.outer[static_cast<size_t>(p - 1)];
        const SpaceLoop& lp = sp.loops[static_cast<size_t>(l)];
        const int64_t t = cs.tile[static_cast<size_t>(l)];
        const int64_t trips = t > 1 && t < lp.extent ? (lp.extent + t - 1) / t : lp.extent;
        if (!take(l, trips, true))
            break;
    }
    return out;
}

void SearchSpace::canonicalizeArray(Candidate& c, int s) const
{
    const hw::Target& tgt = *m_base.target;
    const SpaceStage& sp = m_stages[static_cast<size_t>(s)];
    Candidate::Stage& cs = c.stages[static_cast<size_t>(s)];
    const ArrayMapping& m = sp.arrayMappings[static_cast<size_t>(cs.tensorize)];
    cs.dataflow = std::clamp(cs.dataflow, 0, static_cast<int>(m.dataflows.size()) - 1);
    // The block: each role loop's inner part, at most DIM (at least 2 where the loop allows),
    // innermost in the order rows, columns, depth.
    for (int r : {m.i, m.j, m.k}) {
        const std::vector<int64_t>& f = sp.loops[static_cast<size_t>(r)].factors;
        int64_t& t = cs.tile[static_cast<size_t>(r)];
        if (t > m_dim) {
            for (int64_t x : f)
                if (x <= m_dim)
                    t = x;
        }
        if (t < 2) {
            for (int64_t x : f)
                if (x >= 2 && x <= m_dim) {
                    t = x;
                    break;
                }
        }
        // Columns and depth run along the last index of B, C and A, which the scratchpad and
        // the accumulator store in rows of DIM: a block there starts at a row, so it is DIM
        // wide (the last one possibly partial) or the whole loop.
        const int64_t extent = sp.loops[static_cast<size_t>(r)].extent;
        if (r != m.i && t < extent)
            t = std::min(m_dim, extent);
        auto it = std::find(cs.innerOrder.begin(), cs.innerOrder.end(), r);
        cs.innerOrder.erase(it);
        cs.innerOrder.push_back(r);
    }
    // Tiles of blocks: a multiple of the block, below the extent, on the mapping's loops only.
    for (size_t l = 0; l < sp.loops.size(); ++l) {
        int64_t& t2 = cs.tile2[l];
        const int li = static_cast<int>(l);
        const int64_t block = cs.tile[l], extent = sp.loops[l].extent;
        if (block >= 2)
            t2 = t2 / block * block;
        if ((li != m.i && li != m.j && li != m.k) || t2 <= block || t2 >= extent || block < 2 || block >= extent)
            t2 = 0;
    }
    cs.vectorize = false;
    std::fill(cs.vectorLast.begin(), cs.vectorLast.end(), 0);
    std::fill(cs.widen.begin(), cs.widen.end(), 0);  // the accelerator reads int8 operands
    const Bands b = bands(c, s);
    const int nOuter = static_cast<int>(b.outer.size());
    for (size_t t = 0; t < sp.tensors.size(); ++t) {
        int& at = cs.cacheAt[t];
        const int ti = static_cast<int>(t);
        if (ti != m.a && ti != m.b && ti != m.c) {
            at = -1;  // e.g. the bias of a requantizing stage: tensorize folds it into the initial row
            cs.doubleBuffer[t] = 0;
            continue;
        }
        at = std::clamp(at, 0, nOuter);
        if (ti == m.c) {
            // No reduction loop outside the accumulator's loop: it would write partial sums back.
            int legal = 0;
            while (legal < at && !sp.loops[static_cast<size_t>(b.outer[static_cast<size_t>(legal)])].reduction)
                ++legal;
            at = legal;
        }
        const int level = ti == m.c ? m_accumulator : m_scratchpad;
        cs.doubleBuffer[t] = cs.doubleBuffer[t] && at > 0 && tgt.levels[static_cast<size_t>(level)].bufferCount >= 2;
    }
    // Unroll: the loop right outside the block (the host's loop overhead), when it is short.
    int64_t around = 0;
    if (b.inner.size() > 3)
        around = cs.tile[static_cast<size_t>(b.inner[b.inner.size() - 4])];
    else if (!b.middle.empty())
        around = cs.tile2[static_cast<size_t>(b.middle.back())] / cs.tile[static_cast<size_t>(b.middle.back())];
    else if (!b.outer.empty()) {
        const int l = b.outer.back();
        const int64_t t = cs.tile[static_cast<size_t>(l)];
        const int64_t e = sp.loops[static_cast<size_t>(l)].extent;
        around = !sp.loops[static_cast<size_t>(l)].splittable ? 0 : t > 1 && t < e ? (e + t - 1) / t : e;
    }
    cs.unroll = around > 1 && around <= m_options.maxUnrollProduct && around <= kMaxUnrollExtent ? std::clamp(cs.unroll, 0, 1) : 0;
    cs.computeAt = -1;
    if (sp.consumer >= 0) {
        Bands cb = bands(c, sp.consumer);
        cs.computeAt = std::clamp(cs.computeAt, -1, static_cast<int>(cb.outer.size()));
    }
}

void SearchSpace::sampleArray(Candidate& c, int s, std::mt19937_64& rng) const
{
    const SpaceStage& sp = m_stages[static_cast<size_t>(s)];
    Candidate::Stage& cs = c.stages[static_cast<size_t>(s)];
    cs.tensorize = randomInt(rng, 0, static_cast<int>(sp.arrayMappings.size()) - 1);
    const ArrayMapping& m = sp.arrayMappings[static_cast<size_t>(cs.tensorize)];
    cs.dataflow = randomInt(rng, 0, static_cast<int>(m.dataflows.size()) - 1);
    for (int r : {m.i, m.j, m.k}) {
        // Half of the blocks as large as the array allows; the others any size within it.
        std::vector<int64_t> within;
        for (int64_t x : sp.loops[static_cast<size_t>(r)].factors)
            if (x >= 2 && x <= m_dim)
                within.push_back(x);
        if (!within.empty())
            cs.tile[static_cast<size_t>(r)] = (rng() & 1) ? within.back() : within[rng() % within.size()];
    }
    for (int r : {m.i, m.j, m.k}) {
        // Half of the loops get a tile of several blocks.
        const int64_t block = cs.tile[static_cast<size_t>(r)], extent = sp.loops[static_cast<size_t>(r)].extent;
        const int64_t most = block > 1 ? (extent - 1) / block : 0;
        cs.tile2[static_cast<size_t>(r)] = (rng() & 1) && most >= 2 ? block * (2 + static_cast<int64_t>(rng() % static_cast<uint64_t>(most - 1))) : 0;
    }
    const int n = static_cast<int>(sp.loops.size());
    for (int t : {m.a, m.b, m.c}) {
        cs.cacheAt[static_cast<size_t>(t)] = randomInt(rng, 0, n);
        cs.doubleBuffer[static_cast<size_t>(t)] = rng() & 1;
    }
    cs.unroll = rng() & 1;
}

Candidate SearchSpace::sample(std::mt19937_64& rng) const
{
    Candidate c = identity();
    for (size_t s = 0; s < m_stages.size(); ++s) {
        const SpaceStage& sp = m_stages[s];
        Candidate::Stage& cs = c.stages[s];
        for (size_t l = 0; l < sp.loops.size(); ++l)
            cs.tile[l] = sp.loops[l].factors[rng() % sp.loops[l].factors.size()];
        std::shuffle(cs.outerOrder.begin(), cs.outerOrder.end(), rng);
        std::shuffle(cs.innerOrder.begin(), cs.innerOrder.end(), rng);
        int nOuter = static_cast<int>(sp.loops.size());
        for (size_t t = 0; t < sp.tensors.size(); ++t) {
            cs.cacheAt[t] = randomInt(rng, -1, nOuter);
            cs.doubleBuffer[t] = rng() & 1;
            cs.vectorLast[t] = rng() & 1;
            if (sp.tensors[t].widenable)  // drawn only where it can apply: other spaces draw as before
                cs.widen[t] = rng() & 1;
        }
        cs.unroll = randomInt(rng, 0, 3);
        cs.vectorize = rng() & 1;
        cs.computeAt = randomInt(rng, -1, 4);
        // On a PE array most samples tensorize; a few stay on the host (the front's small end).
        if (!sp.arrayMappings.empty() && rng() % 8 != 0)
            sampleArray(c, static_cast<int>(s), rng);
    }
    canonicalize(c);
    return c;
}

void SearchSpace::mutateOnce(Candidate& c, std::mt19937_64& rng) const
{
    int s = randomInt(rng, 0, static_cast<int>(m_stages.size()) - 1);
    const SpaceStage& sp = m_stages[s];
    Candidate::Stage& cs = c.stages[s];
    int n = static_cast<int>(sp.loops.size());
    int nt = static_cast<int>(sp.tensors.size());
    switch (rng() % (sp.arrayMappings.empty() ? 9 : 10)) {
    case 0:
    case 1: {  // a tile factor: a neighbour, or any
        int l = randomInt(rng, 0, n - 1);
        const auto& f = sp.loops[l].factors;
        int i = static_cast<int>(std::find(f.begin(), f.end(), cs.tile[l]) - f.begin());
        if (rng() % 3 == 0)
            i = randomInt(rng, 0, static_cast<int>(f.size()) - 1);
        else
            i = std::clamp(i + ((rng() & 1) ? 1 : -1), 0, static_cast<int>(f.size()) - 1);
        cs.tile[l] = f[static_cast<size_t>(i)];
        break;
    }
    case 2:
    case 3: {  // swap two neighbours of the outer or inner band
        Bands b = bands(c, s);
        auto& band = (rng() & 1) ? b.outer : b.inner;
        auto& order = (&band == &b.outer) ? cs.outerOrder : cs.innerOrder;
        if (band.size() >= 2) {
            int i = randomInt(rng, 0, static_cast<int>(band.size()) - 2);
            auto a = std::find(order.begin(), order.end(), band[i]);
            auto z = std::find(order.begin(), order.end(), band[i + 1]);
            std::iter_swap(a, z);
        }
        break;
    }
    case 4: {  // move a cache one loop in or out, or add/remove it
        if (nt == 0)
            break;
        int t = randomInt(rng, 0, nt - 1);
        cs.cacheAt[t] += (rng() & 1) ? 1 : -1;
        break;
    }
    case 5:
        if (nt > 0) {
            int t = randomInt(rng, 0, nt - 1);
            if (sp.tensors[static_cast<size_t>(t)].widenable && (rng() & 1))
                cs.widen[static_cast<size_t>(t)] ^= 1;
            else
                cs.doubleBuffer[t] ^= 1;
        }
        break;
    case 6: cs.unroll += (rng() & 1) ? 1 : -1; cs.unroll = std::max(cs.unroll, 0); break;
    case 7:
        if ((rng() & 1) && nt > 0) {
            int t = randomInt(rng, 0, nt - 1);
            cs.vectorLast[t] ^= 1;
        } else {
            cs.vectorize = !cs.vectorize;
        }
        break;
    case 8: cs.computeAt += (rng() & 1) ? 1 : -1; break;
    case 9:  // the array: a tile of blocks, the other dataflow, another mapping, or in and out of array mode
        if (cs.tensorize >= 0 && (rng() % 3 == 0)) {
            const ArrayMapping& m = sp.arrayMappings[static_cast<size_t>(cs.tensorize)];
            const int r = std::array<int, 3>{m.i, m.j, m.k}[rng() % 3];
            int64_t& t2 = cs.tile2[static_cast<size_t>(r)];
            const int64_t block = cs.tile[static_cast<size_t>(r)];
            t2 = t2 == 0 ? 2 * block : t2 + ((rng() & 1) ? block : -block);
        } else if (cs.tensorize >= 0 && (rng() & 1)) {
            cs.dataflow ^= 1;
        } else if (cs.tensorize >= 0 && (rng() & 1)) {
            cs.tensorize = randomInt(rng, -1, static_cast<int>(sp.arrayMappings.size()) - 1);
        } else if (cs.tensorize < 0) {
            sampleArray(c, s, rng);
        } else {
            cs.tensorize = -1;
        }
        break;
    }
}

Candidate SearchSpace::mutate(const Candidate& c, std::mt19937_64& rng) const
{
    Candidate m = c;
    int changes = 1 + static_cast<int>(rng() % 3);
    for (int i = 0; i < changes; ++i)
        mutateOnce(m, rng);
    canonicalize(m);
    return m;
}

std::vector<sched::Step> SearchSpace::structureSteps(const Candidate& c) const
{
    std::vector<sched::Step> out;
    size_t most = m_stages.size() * 2;  // a reorder and a compute_at per stage, two splits per loop
    for (const SpaceStage& sp : m_stages)
        most += 2 * sp.loops.size();
    out.reserve(most);  // a step is large: growing the vector moved every one of them
    for (size_t s = 0; s < m_stages.size(); ++s) {
        const SpaceStage& sp = m_stages[s];
        const Candidate::Stage& cs = c.stages[s];
        const bool array = cs.tensorize >= 0;
        for (size_t l = 0; l < sp.loops.size(); ++l) {
            if (array && cs.tile2[l] > 0) {
                // A tile of blocks: x -> x.outer, x.inner; then x.inner -> x.inner.outer, x.inner.inner.
                sched::Step tile = makeStep(sched::Primitive::Split, sp.name);
                tile.loops = {sp.loops[l].name};
                tile.factor = cs.tile2[l];
                out.push_back(std::move(tile));
                sched::Step block = makeStep(sched::Primitive::Split, sp.name);
                block.loops = {sp.loops[l].name + ".inner"};
                block.factor = cs.tile[l];
                out.push_back(std::move(block));
            } else if (cs.tile[l] > 1 && cs.tile[l] < sp.loops[l].extent) {
                sched::Step st = makeStep(sched::Primitive::Split, sp.name);
                st.loops = {sp.loops[l].name};
                st.factor = cs.tile[l];
                out.push_back(std::move(st));
            }
        }
        Bands b = bands(c, static_cast<int>(s));
        std::vector<std::string> names;
        for (int l : b.outer)
            names.push_back(outerName(c, static_cast<int>(s), l));
        for (int l : b.middle)
            names.push_back(middleName(c, static_cast<int>(s), l));
        for (int l : b.inner)
            names.push_back(innerName(c, static_cast<int>(s), l));
        // The order the splits leave: each split loop's outer part where it was, inner part right inside it.
        std::vector<std::string> current;
        for (size_t l = 0; l < sp.loops.size(); ++l) {
            if (hasOuter(sp.loops[l], cs.tile[l]))
                current.push_back(outerName(c, static_cast<int>(s), static_cast<int>(l)));
            if (array && cs.tile2[l] > 0)
                current.push_back(middleName(c, static_cast<int>(s), static_cast<int>(l)));
            if (hasInner(sp.loops[l], cs.tile[l]))
                current.push_back(innerName(c, static_cast<int>(s), static_cast<int>(l)));
        }
        if (names.size() >= 2 && names != current) {
            sched::Step st = makeStep(sched::Primitive::Reorder, sp.name);
            st.loops = names;
            out.push_back(std::move(st));
        }
    }
    for (size_t s = 0; s < m_stages.size(); ++s) {
        const SpaceStage& sp = m_stages[s];
        if (sp.consumer < 0 || c.stages[s].computeAt <= 0)
            continue;
        sched::Step st = makeStep(sched::Primitive::ComputeAt, m_stages[sp.consumer].name);
        st.producer = sp.name;
        st.level = m_base.target->levels[m_level].name;
        st.at = outerLoopName(c, sp.consumer, c.stages[s].computeAt);
        out.push_back(std::move(st));
    }
    return out;
}

std::vector<sched::Step> SearchSpace::arrayPlacementSteps(const Candidate& c, int s) const
{
    std::vector<sched::Step> out;
    const SpaceStage& sp = m_stages[static_cast<size_t>(s)];
    const Candidate::Stage& cs = c.stages[static_cast<size_t>(s)];
    const ArrayMapping& m = sp.arrayMappings[static_cast<size_t>(cs.tensorize)];
    const Bands b = bands(c, s);
    for (int t : {m.a, m.b, m.c}) {
        const SpaceTensor& tn = sp.tensors[static_cast<size_t>(t)];
        const std::string level = m_base.target->levels[static_cast<size_t>(t == m.c ? m_accumulator : m_scratchpad)].name;
        const int at = cs.cacheAt[static_cast<size_t>(t)];
        sched::Step st = makeStep(tn.write ? sched::Primitive::CacheWrite : sched::Primitive::CacheRead, sp.name);
        st.tensor = tn.name;
        st.level = level;
        st.at = at == 0 ? "root" : outerName(c, s, b.outer[static_cast<size_t>(at - 1)]);
        out.push_back(std::move(st));
        if (cs.doubleBuffer[static_cast<size_t>(t)]) {
            sched::Step db = makeStep(sched::Primitive::DoubleBuffer, sp.name);
            db.tensor = tn.name;
            db.level = level;
            out.push_back(std::move(db));
        }
    }
    if (cs.unroll > 0) {
        sched::Step st = makeStep(sched::Primitive::Unroll, sp.name);
        st.loops = {b.inner.size() > 3 ? innerName(c, s, b.inner[b.inner.size() - 4])
                    : !b.middle.empty()  ? middleName(c, s, b.middle.back())
                                         : outerName(c, s, b.outer.back())};
        out.push_back(std::move(st));
    }
    sched::Step st = makeStep(sched::Primitive::Tensorize, sp.name);
    st.loops = {innerName(c, s, m.i), innerName(c, s, m.j), innerName(c, s, m.k)};
    st.intrinsic = sched::kGemminiMatmul;
    st.dataflow = sched::dataflowName(m.dataflows[static_cast<size_t>(cs.dataflow)]);
    out.push_back(std::move(st));
    return out;
}

std::vector<sched::Step> SearchSpace::placementSteps(const Candidate& c) const
{
    std::vector<sched::Step> out;
    size_t most = 0;  // a cache and a double buffer per tensor, an unroll per loop, a vectorize and a tensorize per stage
    for (const SpaceStage& sp : m_stages)
        most += 2 * sp.tensors.size() + sp.loops.size() + 2;
    out.reserve(most);
    const std::string level = m_level >= 0 ? m_base.target->levels[m_level].name : "";
    for (size_t s = 0; s < m_stages.size(); ++s) {
        const SpaceStage& sp = m_stages[s];
        const Candidate::Stage& cs = c.stages[s];
        if (cs.tensorize >= 0) {
            std::vector<sched::Step> a = arrayPlacementSteps(c, static_cast<int>(s));
            std::move(a.begin(), a.end(), std::back_inserter(out));
            continue;
        }
        Bands b = bands(c, static_cast<int>(s));
        int vecAxis = -1;
        if (!b.inner.empty() && (cs.vectorize || sp.loops[b.inner.back()].vectorized))
            vecAxis = sp.loops[b.inner.back()].axis;
        for (size_t t = 0; t < sp.tensors.size(); ++t) {
            if (cs.cacheAt[t] < 0)
                continue;
            const SpaceTensor& tn = sp.tensors[t];
            sched::Step st = makeStep(tn.write ? sched::Primitive::CacheWrite : sched::Primitive::CacheRead, sp.name);
            st.tensor = tn.name;
            st.level = level;
            st.at = cs.cacheAt[t] == 0 ? "root" : outerName(c, static_cast<int>(s), b.outer[cs.cacheAt[t] - 1]);
            if (cs.vectorLast[t]) {
                int d = static_cast<int>(std::find(tn.dims.begin(), tn.dims.end(), vecAxis) - tn.dims.begin());
                for (int i = 0; i < static_cast<int>(tn.dims.size()); ++i)
                    if (i != d)
                        st.layout.push_back(i);
                st.layout.push_back(d);
            }
            if (cs.widen[t])
                st.dtype = "int16";
            out.push_back(std::move(st));
            if (cs.doubleBuffer[t]) {
                sched::Step db = makeStep(sched::Primitive::DoubleBuffer, sp.name);
                db.tensor = tn.name;
                db.level = level;
                out.push_back(std::move(db));
            }
        }
        // Outermost first: the trace of an unroll of inner loops only is as it always was.
        const std::vector<UnrollLoop> unrolled = unrollable(c, static_cast<int>(s), b);
        for (int i = std::min(cs.unroll, static_cast<int>(unrolled.size())) - 1; i >= 0; --i) {
            const UnrollLoop& u = unrolled[static_cast<size_t>(i)];
            sched::Step st = makeStep(sched::Primitive::Unroll, sp.name);
            st.loops = {u.outer ? outerName(c, static_cast<int>(s), u.loop) : innerName(c, static_cast<int>(s), u.loop)};
            out.push_back(std::move(st));
        }
        if (cs.vectorize) {
            sched::Step st = makeStep(sched::Primitive::Vectorize, sp.name);
            st.loops = {innerName(c, static_cast<int>(s), b.inner.back())};
            out.push_back(std::move(st));
        }
    }
    return out;
}

std::vector<sched::Step> SearchSpace::steps(const Candidate& c) const
{
    std::vector<sched::Step> out = structureSteps(c);
    std::vector<sched::Step> p = placementSteps(c);
    out.insert(out.end(), p.begin(), p.end());
    return out;
}

double SearchSpace::log10Size() const
{
    double l = 0;
    for (const auto& sp : m_stages) {
        for (const auto& lp : sp.loops)
            l += std::log10(static_cast<double>(lp.factors.size()));
        double n = static_cast<double>(sp.loops.size());
        l += 2 * std::lgamma(n + 1) / std::log(10.0);
        l += static_cast<double>(sp.tensors.size()) * std::log10(2 * (n + 2));
        l += std::log10(4.0 * (sp.lanes > 1 ? 2 : 1));
        for (const auto& t : sp.tensors)
            l += t.widenable ? std::log10(2.0) : 0.0;
    }
    return l;
}

} // namespace loopscope::search
