// Finds the stages whose input offset the C export folds into the bias (see offset_fold.h).
#include "lower/offset_fold.h"

#include <map>
#include <set>

namespace loopscope::lower {

namespace {

/// A stage `out += (x + offset) * w` as written in the kernel.
struct StageForm {
    int x = -1;
    int w = -1;
    int64_t offset = 0;
};

/// x + c, c + x or x - c as (tensor of x, offset).
bool offsetLoad(const ir::Expr& e, int& tensor, int64_t& offset)
{
    using K = ir::Expr::Kind;
    if (e.kind != K::Add && e.kind != K::Sub)
        return false;
    if (e.a->kind == K::Load && e.b->kind == K::Const) {
        tensor = e.a->access.tensor;
        offset = e.kind == K::Add ? e.b->intValue : -e.b->intValue;
        return true;
    }
    if (e.kind == K::Add && e.a->kind == K::Const && e.b->kind == K::Load) {
        tensor = e.b->access.tensor;
        offset = e.a->intValue;
        return true;
    }
    return false;
}

/// Whether tensor t is used by the kernel other than as the bias of stage `s`.
bool usedElsewhere(const ir::Kernel& k, int s, int t)
{
    for (size_t i = 0; i < k.stages.size(); ++i) {
        const ir::Stage& st = k.stages[i];
        if (st.output.tensor == t)
            return true;
        for (const ir::Access& a : st.loads())
            if (a.tensor == t)
                return true;
        if (st.requant) {
            const ir::Requantize& q = *st.requant;
            if (q.multiplier.tensor == t || q.shift.tensor == t || (q.bias == t && static_cast<int>(i) != s))
                return true;
        }
    }
    return false;
}

/// The kernel-level conditions of a fold (offset_fold.h).
bool stageForm(const ir::Kernel& k, int s, StageForm& f)
{
    const ir::Stage& st = k.stages[s];
    if (k.isFloatKernel() || !st.accumulate || st.padZero || !st.requant || st.requant->bias < 0 || !st.requant->channel || !st.value
        || st.value->kind != ir::Expr::Kind::Mul)
        return false;
    const ir::Expr& a = *st.value->a;
    const ir::Expr& b = *st.value->b;
    const ir::Expr* plain = nullptr;
    if (offsetLoad(a, f.x, f.offset) && b.kind == ir::Expr::Kind::Load)
        plain = &b;
    else if (offsetLoad(b, f.x, f.offset) && a.kind == ir::Expr::Kind::Load)
        plain = &a;
    if (!plain || f.offset == 0)
        return false;
    f.w = plain->access.tensor;
    if (f.w == f.x || !k.isInput(f.w) || usedElsewhere(k, s, st.requant->bias))
        return false;
    // sum(w) over the reduction must be one number per output channel: w's index may use the
    // channel's axes and the reduction axes only.
    std::set<int> channelAxes;
    for (const auto& term : st.requant->channel->terms)
        channelAxes.insert(term.axis);
    for (const ir::AffineExpr& e : plain->access.index)
        for (const auto& term : e.terms)
            if (term.coeff != 0 && !st.axes[term.axis].reduction && !channelAxes.count(term.axis))
                return false;
    return true;
}

} // namespace

void findOffsetFolds(LoopNest& nest)
{
    nest.offsetFolds.clear();
    nest.foldedValues.assign(nest.values.size(), 0);
    if (!nest.matmuls.empty())
        return;
    const ir::Kernel& k = *nest.kernel;
    // The tensor each register is loaded from (-2 when loads of several tensors share it).
    std::map<int, int> regTensor;
    for (const Stmt& s : nest.stmts)
        if (s.kind == Stmt::Kind::Load) {
            const int t = nest.buffers[s.buffer].tensor;
            auto [it, fresh] = regTensor.emplace(s.reg, t);
            if (!fresh && it->second != t)
                it->second = -2;
        }
    auto regOf = [&](int v, int tensor) {
        const ValueNode& n = nest.values[v];
        if (n.op != ValueNode::Op::Reg)
            return false;
        auto it = regTensor.find(n.reg);
        return it != regTensor.end() && it->second == tensor;
    };
    // x + offset (or x - (-offset), offset + x) over a register loaded from x.
    auto offsetReg = [&](int v, const StageForm& f) {
        const ValueNode& n = nest.values[v];
        if (n.op != ValueNode::Op::Add && n.op != ValueNode::Op::Sub)
            return false;
        if (nest.values[n.b].op != ValueNode::Op::Const || !regOf(n.a, f.x))
            return false;
        return (n.op == ValueNode::Op::Add ? nest.values[n.b].intValue : -nest.values[n.b].intValue) == f.offset;
    };
    for (size_t s = 0; s < k.stages.size(); ++s) {
        StageForm f;
        if (!stageForm(k, static_cast<int>(s), f))
            continue;
        std::vector<int> folded;
        bool all = true;
        for (const Stmt& c : nest.stmts) {
            if (c.kind != Stmt::Kind::Compute || c.stage != static_cast<int>(s))
                continue;
            const ValueNode& mul = nest.values[c.value];
            if (c.helper || !c.accumulate || mul.op != ValueNode::Op::Mul) {
                all = false;
                break;
            }
            if (offsetReg(mul.a, f) && regOf(mul.b, f.w))
                folded.push_back(mul.a);
            else if (offsetReg(mul.b, f) && regOf(mul.a, f.w))
                folded.push_back(mul.b);
            else {
                all = false;  // a widening cache holds x with its offset: nothing to fold
                break;
            }
        }
        if (!all || folded.empty())
            continue;
        for (int v : folded)
            nest.foldedValues[v] = 1;
        nest.offsetFolds.push_back({static_cast<int>(s), f.x, f.w, k.stages[s].requant->bias, f.offset});
    }
}

} // namespace loopscope::lower
