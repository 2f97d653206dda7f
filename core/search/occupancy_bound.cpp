// Closed-form upper bound of each level's occupancy, from the program alone.
#include "search/occupancy_bound.h"

#include <algorithm>
#include <cstdlib>
#include <sstream>

namespace loopscope::search {

namespace {

/// Collects the axes a (possibly fused) variable runs over.
void axesOf(const sched::StageSchedule& ss, int v, std::vector<int>& out)
{
    const sched::LoopVar& lv = ss.vars[v];
    switch (lv.origin) {
    case sched::LoopVar::Origin::Axis: out.push_back(lv.axis); return;
    case sched::LoopVar::Origin::SplitOuter:
    case sched::LoopVar::Origin::SplitInner: axesOf(ss, lv.parent, out); return;
    case sched::LoopVar::Origin::Fused:
        axesOf(ss, lv.fusedOuter, out);
        axesOf(ss, lv.fusedInner, out);
        return;
    }
}

/// The axis of a split chain and the distance its variable moves that axis per step, with each
/// split's factor as lowered (`factor`, per variable); false for a fused variable (or one split
/// from a fused variable).
bool axisStride(const sched::StageSchedule& ss, const std::vector<int64_t>& factor, int v, int& axis, int64_t& stride)
{
    stride = 1;
    for (;;) {
        const sched::LoopVar& lv = ss.vars[v];
        switch (lv.origin) {
        case sched::LoopVar::Origin::Axis: axis = lv.axis; return true;
        case sched::LoopVar::Origin::SplitOuter: stride *= factor[static_cast<size_t>(v)]; v = lv.parent; break;
        case sched::LoopVar::Origin::SplitInner: v = lv.parent; break;
        case sched::LoopVar::Origin::Fused: return false;
        }
    }
}

std::vector<int64_t> boxShape(const sched::Program& p, int stage, int var, int tensor, bool write, bool capAtTensor = true);

/// Span (largest index minus smallest) of every axis of `stage` over the loops inside the
/// body of `var` (-1: the whole nest). A stage computed at a loop of its consumer computes
/// only the region the consumer reads there: its spatial axes run over that region, and its
/// loops take the extents the lowering gives them there (lower.cpp, emitStage): a split whose
/// factor does not divide the region still runs whole tiles (28 rows split by 8 span 32).
std::vector<int64_t> axisSpans(const sched::Program& p, int stage, int var)
{
    const ir::Stage& st = p.kernel->stages[stage];
    const sched::StageSchedule& ss = p.stages[stage];
    std::vector<int64_t> axisExtent(st.axes.size(), 0);
    for (size_t a = 0; a < st.axes.size(); ++a)
        axisExtent[a] = st.axes[a].extent;
    const sched::Attach& at = ss.computeAt;
    if (!at.isRoot() && at.stage >= 0 && !st.output.index.empty()) {
        const std::vector<int64_t> region = boxShape(p, at.stage, at.var, st.output.tensor, false);
        for (size_t d = 0; d < st.output.index.size() && d < region.size(); ++d)
            for (const auto& term : st.output.index[d].terms)
                axisExtent[term.axis] = std::min(axisExtent[term.axis], region[d]);
    }
    // Every variable's extent and, for the outer part of a split, its factor, as lowered (the
    // factor clipped to its parent's extent).
    const size_t nv = ss.vars.size();
    std::vector<int64_t> ext(nv, 1), factor(nv, 1);
    for (size_t v = 0; v < nv; ++v) {
        const sched::LoopVar& lv = ss.vars[v];
        switch (lv.origin) {
        case sched::LoopVar::Origin::Axis: ext[v] = axisExtent[lv.axis]; break;
        case sched::LoopVar::Origin::SplitOuter:
            factor[v] = std::max<int64_t>(1, std::min(lv.factor, ext[lv.parent]));
            ext[v] = (ext[lv.parent] + factor[v] - 1) / factor[v];
            break;
        case sched::LoopVar::Origin::SplitInner: ext[v] = std::min(lv.factor, ext[lv.parent]); break;
        case sched::LoopVar::Origin::Fused: ext[v] = ext[lv.fusedOuter] * ext[lv.fusedInner]; break;
        }
    }
    std::vector<int64_t> span(st.axes.size(), 0);
    int from = var < 0 ? 0 : ss.position(var) + 1;
    if (var >= 0 && ss.position(var) < 0)
        from = 0;  // not an active loop: bound by the whole nest
    for (size_t i = static_cast<size_t>(from); i < ss.order.size(); ++i) {
        const int v = ss.order[i];
        int axis = -1;
        int64_t stride = 1;
        if (axisStride(ss, factor, v, axis, stride)) {
            span[axis] += stride * (ext[v] - 1);
        } else {
            std::vector<int> axes;
            axesOf(ss, v, axes);
            for (int a : axes)
                span[a] = axisExtent[a] - 1;
        }
    }
    // No clamp to the axis extent: a partial last tile still allocates a whole one, as the
    // lowering does.
    return span;
}

/// Bounding box of the accesses of `stage` to `tensor` over the loops inside `var`.
std::vector<int64_t> boxShape(const sched::Program& p, int stage, int var, int tensor, bool write, bool capAtTensor)
{
    const ir::Tensor& t = p.kernel->tensors[tensor];
    const ir::ExprPtr value = write ? nullptr : sched::effectiveValue(p, stage);  // holds the accesses
    std::vector<const ir::Access*> accs;
    if (write)
        accs.push_back(&p.kernel->stages[stage].output);
    else
        ir::visitLoads(value.get(), [&](const ir::Access& a) {
            if (a.tensor == tensor)
                accs.push_back(&a);
        });
    std::vector<int64_t> span = axisSpans(p, stage, var);
    std::vector<int64_t> shape(t.shape.size(), 1);
    if (accs.empty()) {
        shape = t.shape;
        return shape;
    }
    for (size_t d = 0; d < t.shape.size(); ++d) {
        int64_t width = 0, kmin = accs[0]->index[d].constant, kmax = kmin;
        for (const ir::Access* ap : accs) {
            const ir::Access& a = *ap;
            int64_t w = 0;
            for (const auto& term : a.index[d].terms)
                w += std::abs(term.coeff) * span[term.axis];
            width = std::max(width, w);
            kmin = std::min(kmin, a.index[d].constant);
            kmax = std::max(kmax, a.index[d].constant);
        }
        shape[d] = capAtTensor ? std::min(width + (kmax - kmin) + 1, t.shape[d]) : width + (kmax - kmin) + 1;
    }
    return shape;
}

int64_t elementsOf(const std::vector<int64_t>& shape)
{
    int64_t n = 1;
    for (int64_t d : shape)
        n *= d;
    return n;
}

std::string fmtBytes(int64_t b)
{
    std::ostringstream os;
    if (b >= 1024 * 1024)
        os << static_cast<double>(b) / (1024.0 * 1024.0) << " MiB";
    else if (b >= 1024)
        os << static_cast<double>(b) / 1024.0 << " KiB";
    else
        os << b << " B";
    return os.str();
}

} // namespace

int OccupancyBound::overCapacity(const hw::Target& target) const
{
    for (size_t l = 0; l < bytes.size() && l < target.levels.size(); ++l)
        if (bytes[l] > target.levels[l].sizeBytes)
            return static_cast<int>(l);
    return -1;
}

int OccupancyBound::overTileSize(const hw::Target& target) const
{
    if (target.constraints.maxTileSize <= 0)
        return -1;
    for (size_t b = 0; b < buffers.size(); ++b)
        for (int64_t d : buffers[b].shape)
            if (d > target.constraints.maxTileSize)
                return static_cast<int>(b);
    return -1;
}

OccupancyBound boundOccupancy(const sched::Program& p)
{
    const hw::Target& tgt = *p.target;
    const ir::Kernel& k = *p.kernel;
    OccupancyBound out;
    out.bytes.assign(tgt.levels.size(), 0);
    for (const auto& t : k.tensors)
        if (!out.bytes.empty())
            out.bytes[0] += t.bytes();
    // A tensorized stage starts its accumulator from an initial row kept in the outermost level
    // (the bias plus the input offset times the weights' sums: one int32 per output column).
    for (size_t s = 0; s < p.stages.size(); ++s)
        if (p.stages[s].tensorize && !out.bytes.empty() && !k.tensors[k.stages[s].output.tensor].shape.empty())
            out.bytes[0] += k.tensors[k.stages[s].output.tensor].shape.back() * ir::dtypeBytes(ir::DType::Int32);
    int64_t align = std::max<int64_t>(1, tgt.constraints.alignmentBytes);
    auto place = [&](BufferBound b, bool doubled, const std::vector<int>& layout = {}) {
        const int elementBytes = b.elementBytes > 0 ? b.elementBytes : ir::dtypeBytes(k.tensors[b.tensor].dtype);
        int64_t bytes = elementsOf(b.shape) * elementBytes;
        if (b.level > 0)
            bytes = (bytes + align - 1) / align * align;
        const hw::MemoryLevel* lv = b.level >= 0 && b.level < static_cast<int>(tgt.levels.size()) ? &tgt.levels[b.level] : nullptr;
        if (lv && lv->rowBytes > 0 && b.level > 0 && !b.shape.empty()) {
            // A row-addressed level (Gemmini's scratchpad and accumulator) holds whole rows: the
            // innermost stored dimension in rows of `lanes` elements (lower::rowLayout), each
            // row taking rowBytes of the capacity.
            const int64_t lanes = tgt.compute.peArray ? tgt.compute.peArray->cols : std::max<int64_t>(1, lv->rowBytes / elementBytes);
            const int inner = layout.empty() ? static_cast<int>(b.shape.size()) - 1 : layout.back();
            int64_t rows = (b.shape[static_cast<size_t>(inner)] + lanes - 1) / lanes;
            for (size_t d = 0; d < b.shape.size(); ++d)
                if (static_cast<int>(d) != inner)
                    rows *= b.shape[d];
            bytes = std::max(bytes, rows * lv->rowBytes);
        }
        b.bytes = bytes * (doubled ? 2 : 1);
        if (b.level >= 0 && b.level < static_cast<int>(out.bytes.size()))
            out.bytes[b.level] += b.bytes;
        out.buffers.push_back(std::move(b));
    };
    for (size_t c = 0; c < p.caches.size(); ++c) {
        const sched::CacheStage& cs = p.caches[c];
        BufferBound b;
        b.cache = static_cast<int>(c);
        b.stage = cs.stage;
        b.tensor = cs.tensor;
        b.level = cs.level;
        // A tensorized stage's operand holds its padding halo too (the array reads whole rows).
        b.shape = boxShape(p, cs.stage, cs.var, cs.tensor, cs.write, !p.stages[cs.stage].tensorize.has_value());
        if (cs.dtype)
            b.elementBytes = ir::dtypeBytes(*cs.dtype);  // a widened cache (int8 held as int16)
        place(std::move(b), cs.doubleBuffer, cs.layout);
    }
    for (size_t s = 0; s < p.stages.size(); ++s) {
        const sched::StageSchedule& ss = p.stages[s];
        if (ss.inlined || ss.computeAt.isRoot() || ss.computeAt.stage < 0)
            continue;
        int tensor = k.stages[s].output.tensor;
        BufferBound b;
        b.stage = static_cast<int>(s);
        b.tensor = tensor;
        b.level = ss.storeLevel >= 0 ? ss.storeLevel : tgt.innermostLevel();
        b.shape = boxShape(p, ss.computeAt.stage, ss.computeAt.var, tensor, false);
        place(std::move(b), false);
    }
    // Accumulators: the lowering keeps one element per iteration of the spatial loops inside
    // the outermost reduction loop, in registers when that is one element, or a few that
    // unrolled or vectorized loops index (lower.cpp, accumulatorInRegisters); else in the
    // innermost level.
    for (size_t s = 0; s < p.stages.size(); ++s) {
        const sched::StageSchedule& ss = p.stages[s];
        const ir::Stage& st = k.stages[s];
        if (ss.inlined || !st.accumulate || ss.tensorize)
            continue;  // a tensorized stage accumulates in its accumulator cache (counted above)
        size_t r = ss.order.size();
        for (size_t i = 0; i < ss.order.size(); ++i)
            if (ss.vars[ss.order[i]].reduction) {
                r = i;
                break;
            }
        int64_t elements = 1;
        bool registersOnly = true;
        for (size_t i = r; i < ss.order.size(); ++i) {
            const sched::LoopVar& lv = ss.vars[ss.order[i]];
            if (lv.reduction)
                continue;
            elements *= lv.extent;
            if (lv.kind != sched::LoopKind::Unrolled && lv.kind != sched::LoopKind::Vectorized && lv.extent > 1)
                registersOnly = false;
        }
        if (elements == 1 || (elements <= tgt.compute.registers && registersOnly))
            continue;
        ir::DType dt = k.isFloatKernel() ? ir::DType::Float32 : (st.requant ? ir::DType::Int32 : k.tensors[st.output.tensor].dtype);
        BufferBound b;
        b.stage = static_cast<int>(s);
        b.tensor = st.output.tensor;
        b.level = tgt.innermostLevel();
        b.shape = {elements};
        b.elementBytes = ir::dtypeBytes(dt);
        b.accumulator = true;
        place(std::move(b), false);
    }
    return out;
}

std::string describeOverCapacity(const sched::Program& p, const OccupancyBound& bound, int level)
{
    const hw::MemoryLevel& l = p.target->levels[level];
    std::ostringstream os;
    os << l.name << " must hold " << fmtBytes(bound.bytes[level]) << " (";
    bool first = true;
    if (level == 0) {
        for (const auto& t : p.kernel->tensors) {
            os << (first ? "" : ", ") << t.name << " " << fmtBytes(t.bytes());
            first = false;
        }
    }
    for (const auto& b : bound.buffers) {
        if (b.level != level)
            continue;
        os << (first ? "" : ", ") << p.kernel->tensors[b.tensor].name << " ";
        for (size_t d = 0; d < b.shape.size(); ++d)
            os << (d ? "x" : "") << b.shape[d];
        if (b.cache >= 0 && p.caches[b.cache].doubleBuffer)
            os << " x2";
        os << " = " << fmtBytes(b.bytes);
        first = false;
    }
    os << ") but has " << fmtBytes(l.sizeBytes);
    return os.str();
}

} // namespace loopscope::search
