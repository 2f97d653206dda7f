// Program state queries, step names and descriptions, the initial (unscheduled) program.
#include "sched/program.h"

#include <array>
#include <functional>
#include <sstream>

namespace loopscope::sched {

namespace {
constexpr std::array<std::pair<Primitive, const char*>, 13> kPrimitiveNames = {{
    {Primitive::Split, "split"},
    {Primitive::Tile, "tile"},
    {Primitive::Reorder, "reorder"},
    {Primitive::Fuse, "fuse"},
    {Primitive::Unroll, "unroll"},
    {Primitive::Vectorize, "vectorize"},
    {Primitive::Parallel, "parallel"},
    {Primitive::CacheRead, "cache_read"},
    {Primitive::CacheWrite, "cache_write"},
    {Primitive::ComputeAt, "compute_at"},
    {Primitive::ComputeInline, "compute_inline"},
    {Primitive::DoubleBuffer, "double_buffer"},
    {Primitive::Tensorize, "tensorize"},
}};

std::string joinNames(const std::vector<std::string>& v, const char* sep = ", ")
{
    std::string out;
    for (const auto& s : v)
        out += (out.empty() ? "" : sep) + s;
    return out;
}
} // namespace

const char* primitiveName(Primitive p)
{
    for (const auto& [k, n] : kPrimitiveNames)
        if (k == p)
            return n;
    return "?";
}

bool parsePrimitive(const std::string& name, Primitive& out)
{
    for (const auto& [k, n] : kPrimitiveNames)
        if (name == n) {
            out = k;
            return true;
        }
    return false;
}

const char* dataflowName(Dataflow d)
{
    return d == Dataflow::WeightStationary ? "weight_stationary" : "output_stationary";
}

bool parseDataflow(const std::string& name, Dataflow& out)
{
    if (name == "weight_stationary")
        out = Dataflow::WeightStationary;
    else if (name == "output_stationary")
        out = Dataflow::OutputStationary;
    else
        return false;
    return true;
}

const char* loopKindName(LoopKind k)
{
    switch (k) {
    case LoopKind::Serial: return "serial";
    case LoopKind::Unrolled: return "unrolled";
    case LoopKind::Vectorized: return "vectorized";
    case LoopKind::Parallel: return "parallel";
    }
    return "?";
}

bool Step::operator==(const Step& o) const
{
    return primitive == o.primitive && stage == o.stage && loops == o.loops && factor == o.factor
        && nparts == o.nparts && factors == o.factors && layout == o.layout && tensor == o.tensor && level == o.level
        && at == o.at && producer == o.producer && intrinsic == o.intrinsic && dataflow == o.dataflow && dtype == o.dtype
        && slide == o.slide;
}

std::string describe(const Step& s)
{
    std::ostringstream os;
    os << primitiveName(s.primitive);
    switch (s.primitive) {
    case Primitive::Split:
        os << ' ' << (s.loops.empty() ? "?" : s.loops[0]);
        if (s.nparts > 0)
            os << " into " << s.nparts << " parts";
        else
            os << " by " << s.factor;
        break;
    case Primitive::Tile:
        os << ' ' << joinNames(s.loops) << " by ";
        for (size_t i = 0; i < s.factors.size(); ++i)
            os << (i ? "x" : "") << s.factors[i];
        break;
    case Primitive::Reorder:
    case Primitive::Fuse:
        os << ' ' << joinNames(s.loops);
        break;
    case Primitive::Unroll:
    case Primitive::Vectorize:
    case Primitive::Parallel:
        os << ' ' << (s.loops.empty() ? "?" : s.loops[0]);
        break;
    case Primitive::CacheRead:
    case Primitive::CacheWrite:
        os << ' ' << s.tensor << " into " << s.level << " at " << (s.at.empty() ? "root" : s.at);
        if (!s.layout.empty()) {
            os << " as [";
            for (size_t i = 0; i < s.layout.size(); ++i)
                os << (i ? ", " : "") << s.layout[i];
            os << "]";
        }
        if (!s.dtype.empty())
            os << " as " << s.dtype;
        if (!s.slide.empty())
            os << ", sliding along " << s.slide;
        break;
    case Primitive::ComputeAt:
        if (!s.producer.empty())
            os << ' ' << s.producer;
        else
            os << ' ' << s.tensor << '@' << s.level;
        os << " at " << s.at;
        break;
    case Primitive::ComputeInline:
        os << ' ' << s.producer;
        break;
    case Primitive::DoubleBuffer:
        os << ' ' << s.tensor << (s.level.empty() ? "" : "@" + s.level);
        break;
    case Primitive::Tensorize:
        os << ' ' << joinNames(s.loops) << " as " << (s.intrinsic.empty() ? "?" : s.intrinsic);
        if (!s.dataflow.empty())
            os << " (" << s.dataflow << ")";
        break;
    }
    return os.str();
}

int StageSchedule::findVar(const std::string& name) const
{
    for (size_t i = 0; i < vars.size(); ++i)
        if (vars[i].name == name)
            return static_cast<int>(i);
    return -1;
}

int StageSchedule::findLoop(const std::string& name) const
{
    int v = findVar(name);
    return v >= 0 && vars[v].active ? v : -1;
}

int StageSchedule::position(int var) const
{
    for (size_t i = 0; i < order.size(); ++i)
        if (order[i] == var)
            return static_cast<int>(i);
    return -1;
}

Program Program::initial(std::shared_ptr<const ir::Kernel> kernel,
                         std::shared_ptr<const hw::Target> target)
{
    Program p;
    p.kernel = std::move(kernel);
    p.target = std::move(target);
    for (const auto& stage : p.kernel->stages) {
        StageSchedule ss;
        for (size_t a = 0; a < stage.axes.size(); ++a) {
            LoopVar v;
            v.name = stage.axes[a].name;
            v.extent = stage.axes[a].extent;
            v.reduction = stage.axes[a].reduction;
            v.axis = static_cast<int>(a);
            ss.order.push_back(static_cast<int>(ss.vars.size()));
            ss.vars.push_back(v);
        }
        p.stages.push_back(std::move(ss));
    }
    return p;
}

int Program::findCache(int tensor, int level, int stage) const
{
    for (size_t i = 0; i < caches.size(); ++i)
        if (caches[i].tensor == tensor && caches[i].level == level
            && (stage < 0 || caches[i].stage == stage))
            return static_cast<int>(i);
    return -1;
}

std::string Program::loopLabel(int stage, int var) const
{
    if (var < 0)
        return "root";
    return stages[stage].vars[var].name;
}

namespace {
struct Range {
    bool point = true;
    bool contiguous = true;
    bool full = true;
};

Range rangeInside(const StageSchedule& ss, int v, int pos)
{
    const LoopVar& lv = ss.vars[v];
    if (lv.extent <= 1)
        return {};
    if (lv.active) {
        if (ss.position(v) <= pos)
            return {true, true, false};
        return {false, true, true};
    }
    if (lv.splitOuter >= 0) {
        Range o = rangeInside(ss, lv.splitOuter, pos);
        Range i = rangeInside(ss, lv.splitInner, pos);
        if (o.point && i.point)
            return {true, true, false};
        if (o.point)
            return {false, i.contiguous, false};
        if (i.point)  // values o*f + fixed: contiguous only when f is 1
            return {false, o.contiguous && ss.vars[lv.splitInner].extent <= 1, false};
        return {false, o.contiguous && i.full, o.full && i.full};
    }
    Range f = rangeInside(ss, lv.fusedInto, pos);
    if (f.point)
        return {true, true, false};
    return {false, true, true};
}
} // namespace

namespace {
/// Replaces loads of inlined stages by their expressions (affine composition).
ir::ExprPtr substituteInlined(const Program& p, const ir::ExprPtr& e);

ir::AffineExpr compose(const ir::AffineExpr& inner, const std::vector<ir::AffineExpr>& byAxis)
{
    ir::AffineExpr out;
    out.constant = inner.constant;
    for (const auto& t : inner.terms) {
        const ir::AffineExpr& sub = byAxis[t.axis];
        out.constant += t.coeff * sub.constant;
        for (const auto& st : sub.terms) {
            bool merged = false;
            for (auto& o : out.terms)
                if (o.axis == st.axis) {
                    o.coeff += t.coeff * st.coeff;
                    merged = true;
                }
            if (!merged)
                out.terms.push_back({st.axis, t.coeff * st.coeff});
        }
    }
    return out;
}

ir::ExprPtr inlineInto(const Program& p, const ir::ExprPtr& producerValue,
                       const std::vector<ir::AffineExpr>& byAxis)
{
    const ir::Expr& e = *producerValue;
    switch (e.kind) {
    case ir::Expr::Kind::Const: return producerValue;
    case ir::Expr::Kind::Load: {
        ir::Access acc = e.access;
        for (auto& ix : acc.index)
            ix = compose(ix, byAxis);
        return substituteInlined(p, ir::Expr::makeLoad(acc));
    }
    case ir::Expr::Kind::Neg: return ir::Expr::makeNeg(inlineInto(p, e.a, byAxis));
    default: return ir::Expr::makeBinary(e.kind, inlineInto(p, e.a, byAxis), inlineInto(p, e.b, byAxis));
    }
}

ir::ExprPtr substituteInlined(const Program& p, const ir::ExprPtr& e)
{
    switch (e->kind) {
    case ir::Expr::Kind::Const: return e;
    case ir::Expr::Kind::Load: {
        int prod = p.kernel->producerOf(e->access.tensor);
        if (prod < 0 || !p.stages[prod].inlined)
            return e;
        const ir::Stage& ps = p.kernel->stages[prod];
        // Producer axis a (spatial, output dim d) takes the consumer's index expression d.
        std::vector<ir::AffineExpr> byAxis(ps.axes.size());
        for (size_t d = 0; d < ps.output.index.size(); ++d)
            byAxis[ps.output.index[d].terms[0].axis] = e->access.index[d];
        return inlineInto(p, ps.value, byAxis);
    }
    case ir::Expr::Kind::Neg: {
        ir::ExprPtr a = substituteInlined(p, e->a);
        return a == e->a ? e : ir::Expr::makeNeg(std::move(a));
    }
    default: {
        // Unchanged operands keep the node: nothing to rebuild when no load is inlined.
        ir::ExprPtr a = substituteInlined(p, e->a), b = substituteInlined(p, e->b);
        return a == e->a && b == e->b ? e : ir::Expr::makeBinary(e->kind, std::move(a), std::move(b));
    }
    }
}

} // namespace

ir::ExprPtr effectiveValue(const Program& p, int stage)
{
    return substituteInlined(p, p.kernel->stages[stage].value);
}

std::vector<ir::Access> effectiveLoads(const Program& p, int stage)
{
    std::vector<ir::Access> out;
    visitEffectiveLoads(p, stage, [&](const ir::Access& a) { out.push_back(a); });
    return out;
}

void visitEffectiveLoads(const Program& p, int stage, const std::function<void(const ir::Access&)>& f)
{
    const ir::ExprPtr value = effectiveValue(p, stage);  // holds the accesses while f sees them
    ir::visitLoads(value.get(), f);
}

int64_t widenedOffset(const Program& p, int stage, int tensor)
{
    // Every load of the tensor must be one operand of an addition whose other operand is a
    // constant, the same constant each time.
    std::optional<int64_t> offset;
    bool foldable = true;
    std::function<void(const ir::ExprPtr&)> walk = [&](const ir::ExprPtr& e) {
        if (!foldable)
            return;
        if (e->kind == ir::Expr::Kind::Add) {
            const ir::Expr* load = nullptr;
            const ir::Expr* c = nullptr;
            if (e->a->kind == ir::Expr::Kind::Load && e->b->kind == ir::Expr::Kind::Const)
                load = e->a.get(), c = e->b.get();
            else if (e->b->kind == ir::Expr::Kind::Load && e->a->kind == ir::Expr::Kind::Const)
                load = e->b.get(), c = e->a.get();
            if (load && load->access.tensor == tensor) {
                if (offset && *offset != c->intValue)
                    foldable = false;
                offset = c->intValue;
                return;
            }
        }
        if (e->kind == ir::Expr::Kind::Load && e->access.tensor == tensor) {
            foldable = false;
            return;
        }
        if (e->a)
            walk(e->a);
        if (e->b)
            walk(e->b);
    };
    walk(effectiveValue(p, stage));
    const ir::DType from = p.kernel->tensors[tensor].dtype;
    if (!foldable || !offset || from != ir::DType::Int8)
        return 0;
    const int64_t lo = ir::dtypeMin(from) + *offset, hi = ir::dtypeMax(from) + *offset;
    return lo >= ir::dtypeMin(ir::DType::Int16) && hi <= ir::dtypeMax(ir::DType::Int16) ? *offset : 0;
}

bool axisContiguousInside(const StageSchedule& ss, int axis, int var)
{
    int pos = var < 0 ? -1 : ss.position(var);
    return rangeInside(ss, axis, pos).contiguous;
}

Diagnostic ScheduleError::diagnostic() const
{
    ScheduleError e = *this;
    e.loc = {};
    return Diagnostic{Severity::Error, loc, e.str()};
}

std::string ScheduleError::str() const
{
    std::ostringstream os;
    if (loc.known())
        os << loc.str() << ": ";
    if (stepIndex >= 0)
        os << "step " << stepIndex + 1 << " (" << primitiveName(primitive) << "): ";
    else
        os << primitiveName(primitive) << ": ";
    os << message;
    return os.str();
}

} // namespace loopscope::sched
