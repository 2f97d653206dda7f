// Sliding-window caches: preconditions and geometry (see slide.h).
#include "sched/slide.h"

#include <numeric>

namespace loopscope::sched {

namespace {

/// The largest distance between two values variable `v` takes inside the body of the loop at
/// position `pos` of the stage's order (every loop at or outside it fixed).
int64_t spanInside(const StageSchedule& ss, int v, int pos)
{
    const LoopVar& lv = ss.vars[v];
    int64_t span = 0;
    if (lv.active)
        span = ss.position(v) > pos ? lv.extent - 1 : 0;
    else if (lv.splitOuter >= 0)
        span = spanInside(ss, lv.splitOuter, pos) * ss.vars[lv.splitInner].extent + spanInside(ss, lv.splitInner, pos);
    else if (lv.fusedInto >= 0)
        span = spanInside(ss, lv.fusedInto, pos) > 0 ? lv.extent - 1 : 0;
    return std::min(span, lv.extent - 1);
}

ScheduleError error(std::string message, std::string loop, std::string tensor, std::string detail = {})
{
    ScheduleError e;
    e.primitive = Primitive::CacheRead;
    e.message = std::move(message);
    e.detail = std::move(detail);
    e.loops = {std::move(loop)};
    e.tensors = {std::move(tensor)};
    return e;
}

} // namespace

std::optional<ScheduleError> checkSlide(const Program& p, int cache, SlideGeometry* out)
{
    const CacheStage& c = p.caches[cache];
    const ir::Kernel& k = *p.kernel;
    const StageSchedule& ss = p.stages[c.stage];
    const std::string tn = k.tensors[c.tensor].name;
    const std::string where = tn + "@" + p.target->levels[c.level].name;
    const std::string xn = c.slideVar >= 0 ? ss.vars[c.slideVar].name : std::string("?");
    if (c.write)
        return error("cache_write " + where + " can't slide: only a cache_read keeps the overlap of its tiles", xn, tn);
    if (c.var != c.slideVar)
        return error(where + " slides along " + xn + " but sits at " + (c.var < 0 ? std::string("root") : ss.vars[c.var].name),
                     xn, tn, "a sliding cache sits at the loop it slides along (at: " + xn + ", slide: " + xn + ")");
    if (!ss.vars[c.slideVar].active)
        return error(where + " slides along " + xn + ", which is no longer a loop", xn, tn);
    if (ss.vars[c.slideVar].kind == LoopKind::Parallel)
        return error("can't slide " + where + " along " + xn + ": it is a parallel loop, whose iterations may run at once, "
                         + "while each keeps what the one before fetched",
                     xn, tn);
    if (c.doubleBuffer)
        return error("can't both slide " + where + " along " + xn + " and double-buffer it", xn, tn,
                     "the next tile's new part would overwrite rows the current iteration still reads; "
                     "slide or double_buffer, not both");
    if (ss.tensorize)
        return error("can't slide " + where + ": stage " + k.stages[c.stage].name + " is tensorized (the accelerator's "
                         + "operands are whole blocks in the scratchpad)",
                     xn, tn);
    const int prod = k.producerOf(c.tensor);
    if (prod >= 0 && !p.stages[prod].computeAt.isRoot())
        return error("can't slide " + where + ": " + tn + " is computed inside a loop of stage "
                         + k.stages[p.stages[prod].computeAt.stage].name + ", fresh each time",
                     xn, tn);
    // The axis the loop steps, and by how much per iteration: splits only (a fused loop's
    // values jump back at every wrap of its inner part).
    int v = c.slideVar;
    int64_t stride = 1;
    while (ss.vars[v].origin == LoopVar::Origin::SplitOuter || ss.vars[v].origin == LoopVar::Origin::SplitInner) {
        const LoopVar& lv = ss.vars[v];
        const LoopVar& parent = ss.vars[lv.parent];
        if (lv.origin == LoopVar::Origin::SplitOuter)
            stride *= ss.vars[parent.splitInner].extent;
        v = lv.parent;
    }
    if (ss.vars[v].origin != LoopVar::Origin::Axis)
        return error("can't slide " + where + " along " + xn + ": it is (part of) a fused loop, whose tiles do not advance steadily",
                     xn, tn);
    const int axis = ss.vars[v].axis;
    std::vector<ir::Access> accs;
    for (const auto& a : effectiveLoads(p, c.stage))
        if (a.tensor == c.tensor)
            accs.push_back(a);
    if (accs.empty())
        return error("can't slide " + where + ": stage " + k.stages[c.stage].name + " reads it only as a requantize parameter",
                     xn, tn);
    int dim = -1;
    int64_t coeff = 0;
    for (size_t d = 0; d < accs[0].index.size(); ++d) {
        const int64_t cd = accs[0].index[d].coeffOf(axis);
        if (cd == 0)
            continue;
        if (dim >= 0)
            return error("can't slide " + where + " along " + xn + ": its tile moves along two dimensions of " + tn + " ("
                             + std::to_string(dim) + " and " + std::to_string(d) + ")",
                         xn, tn);
        dim = static_cast<int>(d);
        coeff = cd;
    }
    if (dim < 0)
        return error("can't slide " + where + " along " + xn + ": its tile is the same in every iteration of " + xn, xn, tn,
                     "nothing moves; place the cache outside " + xn + " (compute_at) to fetch it once");
    if (coeff < 0)
        return error("can't slide " + where + " along " + xn + ": its tile moves backwards along dimension " + std::to_string(dim)
                         + " of " + tn,
                     xn, tn);
    // The window along `dim`: what the loops inside the cache's loop span, plus the spread of the
    // accesses' constants; the region is unit-stepped when those have no common divisor.
    const int pos = ss.position(c.slideVar);
    int64_t width = 0, step = 0;
    for (const auto& t : accs[0].index[dim].terms) {
        const int64_t span = spanInside(ss, t.axis, pos);
        width += std::abs(t.coeff) * span;
        if (span > 0)
            step = std::gcd(step, std::abs(t.coeff));
    }
    int64_t kmin = accs[0].index[dim].constant, kmax = kmin;
    for (const auto& a : accs) {
        kmin = std::min(kmin, a.index[dim].constant);
        kmax = std::max(kmax, a.index[dim].constant);
        step = std::gcd(step, a.index[dim].constant - accs[0].index[dim].constant);
    }
    width += kmax - kmin + 1;
    if (step > 1)
        return error("can't slide " + where + " along " + xn + ": its tile takes every " + std::to_string(step) + "th element of dimension "
                         + std::to_string(dim) + " of " + tn + " (a strided window)",
                     xn, tn);
    const int64_t shift = coeff * stride;
    if (shift >= width)
        return error("can't slide " + where + " along " + xn + ": consecutive tiles do not overlap (each is " + std::to_string(width)
                         + " wide along dimension " + std::to_string(dim) + " of " + tn + " and moves by " + std::to_string(shift) + ")",
                     xn, tn, "sliding keeps the overlap of consecutive tiles; without one there is nothing to keep");
    if (out)
        *out = SlideGeometry{axis, dim, shift, width};
    return std::nullopt;
}

} // namespace loopscope::sched
