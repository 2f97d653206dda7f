// Random legal schedules for property tests.
#include "support/random_schedule.h"

#include <algorithm>

namespace loopscope::test {

using sched::LoopKind;
using sched::Primitive;
using sched::Program;
using sched::Step;

namespace {

std::vector<int> liveStages(const Program& p)
{
    std::vector<int> out;
    for (size_t s = 0; s < p.stages.size(); ++s)
        if (!p.stages[s].inlined)
            out.push_back(static_cast<int>(s));
    return out;
}

template <typename T>
const T& pick(const std::vector<T>& v, Rng& rng)
{
    return v[rng.below(static_cast<int64_t>(v.size()))];
}

std::vector<int> readTensors(const Program& p, int s)
{
    std::vector<int> out;
    for (const auto& a : sched::effectiveLoads(p, s))
        if (std::find(out.begin(), out.end(), a.tensor) == out.end())
            out.push_back(a.tensor);
    const auto& rq = p.kernel->stages[s].requant;
    if (rq)
        for (int t : {rq->bias, rq->multiplier.tensor, rq->shift.tensor})
            if (t >= 0)
                out.push_back(t);
    return out;
}

std::string randomAt(const Program& p, int s, Rng& rng)
{
    const auto& ss = p.stages[s];
    if (rng.chance(15))
        return "root";
    return ss.vars[pick(ss.order, rng)].name;
}

} // namespace

void maybeLayout(const Program& p, Step& st, Rng& rng);

Step randomStep(const Program& p, Rng& rng)
{
    Step st;
    std::vector<int> stages = liveStages(p);
    int s = pick(stages, rng);
    const auto& ss = p.stages[s];
    const auto& kernel = *p.kernel;
    if (kernel.stages.size() > 1)
        st.stage = kernel.stages[s].name;
    auto loopName = [&](int v) { return ss.vars[v].name; };
    int choice = static_cast<int>(rng.below(100));
    if (choice < 25) {
        st.primitive = Primitive::Split;
        int v = pick(ss.order, rng);
        st.loops = {loopName(v)};
        int64_t ext = std::max<int64_t>(ss.vars[v].extent, 1);
        if (rng.chance(20))
            st.nparts = 1 + rng.below(ext);
        else
            st.factor = 1 + rng.below(ext);
    } else if (choice < 33) {
        st.primitive = Primitive::Tile;
        if (ss.order.size() < 2)
            return randomStep(p, rng);
        size_t a = rng.below(ss.order.size() - 1);
        size_t b = a + 1 + rng.below(ss.order.size() - a - 1);
        st.loops = {loopName(ss.order[a]), loopName(ss.order[b])};
        st.factors = {1 + rng.below(ss.vars[ss.order[a]].extent), 1 + rng.below(ss.vars[ss.order[b]].extent)};
    } else if (choice < 48) {
        st.primitive = Primitive::Reorder;
        std::vector<int> loops = ss.order;
        for (size_t i = loops.size(); i > 1; --i)
            std::swap(loops[i - 1], loops[rng.below(static_cast<int64_t>(i))]);
        size_t n = std::min<size_t>(loops.size(), 2 + rng.below(3));
        for (size_t i = 0; i < n; ++i)
            st.loops.push_back(loopName(loops[i]));
    } else if (choice < 53) {
        st.primitive = Primitive::Fuse;
        if (ss.order.size() < 2)
            return randomStep(p, rng);
        size_t a = rng.below(ss.order.size() - 1);
        st.loops = {loopName(ss.order[a]), loopName(ss.order[a + 1])};
    } else if (choice < 59) {
        st.primitive = Primitive::Unroll;
        st.loops = {loopName(pick(ss.order, rng))};
    } else if (choice < 63) {
        st.primitive = Primitive::Vectorize;
        st.loops = {loopName(ss.order.back())};
    } else if (choice < 66) {
        st.primitive = Primitive::Parallel;
        st.loops = {loopName(pick(ss.order, rng))};
    } else if (choice < 80) {
        st.primitive = Primitive::CacheRead;
        auto ts = readTensors(p, s);
        if (ts.empty())
            return randomStep(p, rng);
        st.tensor = kernel.tensors[pick(ts, rng)].name;
        st.level = p.target->levels[1 + rng.below(static_cast<int64_t>(p.target->levels.size()) - 1)].name;
        st.at = randomAt(p, s, rng);
        maybeLayout(p, st, rng);
        // Sometimes widened into int16 (holding the input offset where the stage adds one).
        if (kernel.tensors[kernel.findTensor(st.tensor)].dtype == ir::DType::Int8 && rng.chance(25))
            st.dtype = "int16";
    } else if (choice < 86) {
        st.primitive = Primitive::CacheWrite;
        st.tensor = kernel.tensors[kernel.stages[s].output.tensor].name;
        st.level = p.target->levels[1 + rng.below(static_cast<int64_t>(p.target->levels.size()) - 1)].name;
        st.at = randomAt(p, s, rng);
        maybeLayout(p, st, rng);
    } else if (choice < 94) {
        st.primitive = Primitive::ComputeAt;
        st.at = randomAt(p, s, rng);
        std::vector<int> producers;
        for (int q : stages)
            if (q < s)
                producers.push_back(q);
        if (!producers.empty() && rng.chance(60)) {
            st.producer = kernel.stages[pick(producers, rng)].name;
            if (rng.chance(30))
                st.level = p.target->levels[rng.below(static_cast<int64_t>(p.target->levels.size()))].name;
        } else {
            if (p.caches.empty())
                return randomStep(p, rng);
            const auto& c = pick(p.caches, rng);
            st.tensor = kernel.tensors[c.tensor].name;
            st.level = p.target->levels[c.level].name;
            st.stage = kernel.stages[c.stage].name;
            st.at = randomAt(p, c.stage, rng);
        }
    } else if (choice < 96) {
        st.primitive = Primitive::ComputeInline;
        st.stage.clear();
        st.producer = kernel.stages[pick(stages, rng)].name;
    } else {
        st.primitive = Primitive::DoubleBuffer;
        if (p.caches.empty())
            return randomStep(p, rng);
        const auto& c = pick(p.caches, rng);
        st.tensor = kernel.tensors[c.tensor].name;
        st.level = p.target->levels[c.level].name;
        st.stage = kernel.stages[c.stage].name;
    }
    return st;
}

/// Sometimes a random storage order for a cache stage's buffer.
void maybeLayout(const Program& p, Step& st, Rng& rng)
{
    int t = p.kernel->findTensor(st.tensor);
    if (t < 0 || !rng.chance(25))
        return;
    size_t rank = p.kernel->tensors[t].shape.size();
    for (size_t d = 0; d < rank; ++d)
        st.layout.push_back(static_cast<int64_t>(d));
    for (size_t i = rank; i > 1; --i)
        std::swap(st.layout[i - 1], st.layout[rng.below(static_cast<int64_t>(i))]);
}

Program randomSchedule(const Program& initial, Rng& rng, int steps, int* attempts)
{
    Program p = initial;
    int tried = 0;
    for (int i = 0; i < steps; ++i) {
        ++tried;
        sched::ApplyResult r = sched::apply(p, randomStep(p, rng));
        if (r.ok())
            p = std::move(r.program());
    }
    if (attempts)
        *attempts = tried;
    return p;
}

sched::Program withSlides(const sched::Program& p)
{
    std::vector<sched::Step> steps = p.trace;
    sched::Program best = p;
    for (size_t i = 0; i < steps.size(); ++i) {
        if (steps[i].primitive != sched::Primitive::CacheRead || steps[i].at.empty() || steps[i].at == "root" || !steps[i].slide.empty())
            continue;
        steps[i].slide = steps[i].at;
        sched::ApplyResult r = sched::replay(p.kernel, p.target, steps);
        if (r.ok())
            best = std::move(r.program());
        else
            steps[i].slide.clear();
    }
    return best;
}

} // namespace loopscope::test
