// Candidate evaluation: apply, repair against the occupancy bound, lower, analyse.
#include "search/evaluator.h"

#include "search/occupancy_bound.h"

#include <algorithm>

namespace loopscope::search {

namespace {

Result<sched::Program> applyAll(sched::Program p, const std::vector<sched::Step>& steps)
{
    for (const auto& s : steps) {
        // Moved, not copied: a copy of the program per step was a tenth of an evaluation.
        sched::ApplyResult r = sched::apply(std::move(p), s);
        if (!r.ok())
            return Diagnostic{Severity::Error, {}, r.error().str()};
        p = std::move(r.program());
    }
    return p;
}

/// The candidate's (stage, tensor) of a cache stage of the program, or false (a pinned cache).
bool candidateTensor(const SearchSpace& space, const Candidate& c, const sched::CacheStage& cs, size_t& stage, size_t& tensor)
{
    for (size_t s = 0; s < space.stages().size(); ++s) {
        if (space.stages()[s].stage != cs.stage)
            continue;
        for (size_t t = 0; t < space.stages()[s].tensors.size(); ++t)
            if (space.stages()[s].tensors[t].tensor == cs.tensor && c.stages[s].cacheAt[t] >= 0
                && cs.level == space.cacheLevelOf(c, static_cast<int>(s), static_cast<int>(t))) {
                stage = s;
                tensor = t;
                return true;
            }
    }
    return false;
}

} // namespace

Figures figuresOf(const analysis::CostReport& r)
{
    Figures f;
    f.cycles = r.cycles.total;
    f.energyUj = r.energyUj;
    f.latencyMs = r.latencyMs;
    f.instructions = r.instructions.available ? r.instructions.predicted : 0;
    for (size_t l = 0; l < r.levels.size(); ++l) {
        if (l == 0)
            f.dramBytes = r.levels[l].readBytes + r.levels[l].writeBytes;
        else
            f.onChipBytes += r.levels[l].usedBytes;
    }
    return f;
}

Result<sched::Program> Evaluator::build(Candidate& c, int* repairs, bool* pruned) const
{
    auto structure = applyAll(m_space.base(), m_space.structureSteps(c));
    if (!structure)
        return structure.errors();
    const hw::Target& tgt = *m_space.base().target;
    // A cache_write needs the output tile of its loop's body to be one box: every spatial axis
    // contiguous inside the loop at outer position `at` of stage `s` (the root always is).
    auto oneBox = [&](size_t s, int at) {
        if (at <= 0)
            return true;
        const SpaceStage& sp = m_space.stages()[s];
        const sched::StageSchedule& ss = structure->stages[sp.stage];
        const int var = ss.findLoop(m_space.outerLoopName(c, static_cast<int>(s), at));
        const ir::Stage& st = m_space.base().kernel->stages[sp.stage];
        bool contiguous = var >= 0;
        for (int a = 0; contiguous && a < static_cast<int>(st.axes.size()); ++a)
            contiguous = st.axes[a].reduction || sched::axisContiguousInside(ss, a, var);
        return contiguous;
    };
    // Moved outward until it is.
    for (size_t s = 0; s < m_space.stages().size(); ++s) {
        const SpaceStage& sp = m_space.stages()[s];
        for (size_t t = 0; t < sp.tensors.size(); ++t) {
            int& at = c.stages[s].cacheAt[t];
            while (sp.tensors[t].write && at > 0 && !oneBox(s, at))
                --at;
            if (at <= 0 && sp.tensors[t].write)
                c.stages[s].doubleBuffer[t] = 0;  // at the root it is written back once
        }
    }
    int fixes = 0;
    for (;;) {
        auto placed = applyAll(*structure, m_space.placementSteps(c));
        if (!placed)
            return placed.errors();
        OccupancyBound bound = boundOccupancy(*placed);
        int level = bound.overCapacity(tgt);
        int bad = -1;
        if (level >= 0) {
            // The largest of the candidate's own buffers in that level.
            int64_t largest = -1;
            for (size_t b = 0; b < bound.buffers.size(); ++b) {
                const BufferBound& bb = bound.buffers[b];
                size_t s = 0, t = 0;
                bool own = bb.level == level
                           && ((bb.cache >= 0 && candidateTensor(m_space, c, placed->caches[bb.cache], s, t)) || bb.cache < 0);
                if (bb.cache < 0) {
                    own = false;
                    if (bb.accumulator)
                        continue;  // set by the loop order: not repaired
                    for (size_t q = 0; q < m_space.stages().size(); ++q)
                        own = own || (m_space.stages()[q].stage == bb.stage && c.stages[q].computeAt > 0 && bb.level == level);
                }
                if (own && bb.bytes > largest) {
                    largest = bb.bytes;
                    bad = static_cast<int>(b);
                }
            }
        } else {
            bad = bound.overTileSize(tgt);
            if (bad >= 0) {
                size_t s = 0, t = 0;
                const BufferBound& bb = bound.buffers[bad];
                if (bb.cache >= 0 && !candidateTensor(m_space, c, placed->caches[bb.cache], s, t))
                    bad = -2;
            }
        }
        if (level < 0 && bad == -1) {
            if (repairs)
                *repairs = fixes;
            return placed;
        }
        if (bad < 0) {
            if (pruned)
                *pruned = true;
            return Diagnostic{Severity::Error, {},
                              level >= 0 ? "no feasible schedule: " + describeOverCapacity(*placed, bound, level)
                                         : std::string("no feasible schedule: a pinned cache exceeds the target's max_tile_size")};
        }
        // Repair: un-double, move one loop inward, un-widen at the innermost loop, or drop.
        const BufferBound& bb = bound.buffers[bad];
        ++fixes;
        if (bb.cache < 0) {
            for (size_t q = 0; q < m_space.stages().size(); ++q)
                if (m_space.stages()[q].stage == bb.stage) {
                    int consumer = m_space.stages()[q].consumer;
                    int& at = c.stages[q].computeAt;
                    at = at < static_cast<int>(m_space.bands(c, consumer).outer.size()) ? at + 1 : -1;
                }
        } else {
            size_t s = 0, t = 0;
            candidateTensor(m_space, c, placed->caches[bb.cache], s, t);
            Candidate::Stage& cs = c.stages[s];
            int nOuter = static_cast<int>(m_space.bands(c, static_cast<int>(s)).outer.size());
            const bool array = cs.tensorize >= 0;   // the tensorize needs every one of its caches
            if (cs.doubleBuffer[t]) {
                cs.doubleBuffer[t] = 0;
            } else if (cs.widen[t] && cs.cacheAt[t] >= nOuter) {
                cs.widen[t] = 0;  // innermost already: half the bytes as int8 before dropping the cache
            } else if (cs.cacheAt[t] < nOuter && (array || !m_space.stages()[s].tensors[t].write)) {
                const bool write = m_space.stages()[s].tensors[t].write;
                const int before = cs.cacheAt[t];
                cs.cacheAt[t] += 1;
                // A written tile (the accumulator's) moves on inward past loops where it would
                // not be one box (a split's outer part inside its inner part, where a pinned
                // split and the search's meet); the search's own defect otherwise.
                while (write && cs.cacheAt[t] < nOuter && !oneBox(s, cs.cacheAt[t]))
                    cs.cacheAt[t] += 1;
                m_space.canonicalize(c);
                if (cs.cacheAt[t] == before || (write && !oneBox(s, cs.cacheAt[t]))) {  // the accumulator cannot move inside a reduction loop
                    if (pruned)
                        *pruned = true;
                    return Diagnostic{Severity::Error, {}, "no feasible schedule: " + describeOverCapacity(*placed, bound, level >= 0 ? level : bb.level)};
                }
            } else if (array) {
                if (pruned)
                    *pruned = true;
                return Diagnostic{Severity::Error, {}, "no feasible schedule: " + describeOverCapacity(*placed, bound, level >= 0 ? level : bb.level)};
            } else {
                cs.cacheAt[t] = -1;
            }
        }
        m_space.canonicalize(c);
        if (fixes > 1000)
            return Diagnostic{Severity::Error, {}, "repair did not converge"};
    }
}

Evaluation Evaluator::evaluate(const Candidate& candidate) const
{
    Evaluation e;
    e.candidate = candidate;
    bool pruned = false;
    auto p = build(e.candidate, &e.repairs, &pruned);
    if (!p) {
        e.status = pruned ? Evaluation::Status::Pruned : Evaluation::Status::Rejected;
        e.reason = p.errorText();
        return e;
    }
    analyse(std::move(*p), e);
    return e;
}

Evaluation Evaluator::evaluateProgram(sched::Program program) const
{
    Evaluation e;
    analyse(std::move(program), e);
    return e;
}

void Evaluator::analyse(sched::Program&& program, Evaluation& e)
{
    const std::shared_ptr<const hw::Target> target = program.target;
    lower::LoopNest nest = lower::lower(std::move(program));  // the trace moved into the nest, not copied
    analysis::CostReport report = analysis::analyze(nest, *target);
    e.steps = std::move(nest.trace);  // and on into the evaluation
    e.figures = figuresOf(report);
    for (const auto& d : report.diagnostics)
        if (d.severity == Severity::Error) {
            e.status = Evaluation::Status::Diagnosed;
            e.reason = d.code + ": " + d.message;
            break;
        }
}

} // namespace loopscope::search
