// The dsp-path hint's figures (see dsp_hint.h).
#include "analysis/dsp_hint.h"

#include "analysis/instructions.h"
#include "codegen/c_decisions.h"

namespace loopscope::analysis {

using lower::LoopNest;
using lower::Stmt;

namespace {

/// Cheap checks before the nest is copied: a scalar reduction loop around int8 or int16 loads and
/// one int32 update (codegen::dspLoop decides the rest).
bool candidate(const LoopNest& n, const Stmt& s)
{
    if (s.kind != Stmt::Kind::For || !s.reduction || s.extent < 2
        || (s.loopKind != sched::LoopKind::Serial && s.loopKind != sched::LoopKind::Parallel))
        return false;
    int updates = 0;
    for (int c : s.body) {
        const Stmt& b = n.stmts[c];
        if ((b.kind != Stmt::Kind::Compute && b.kind != Stmt::Kind::Load) || b.buffer < 0)
            return false;
        const ir::DType t = n.buffers[b.buffer].dtype;
        if (b.kind == Stmt::Kind::Compute && b.accumulate && t == ir::DType::Int32)
            ++updates;
        else if (b.kind != Stmt::Kind::Load || (t != ir::DType::Int8 && t != ir::DType::Int16))
            return false;
    }
    return updates == 1;
}

} // namespace

std::vector<DspSaving> dspVectorizeSavings(const LoopNest& nest, const hw::Target& target, const std::vector<int64_t>& executions, int64_t predicted)
{
    std::vector<DspSaving> out;
    if (!target.compute.dsp || target.kind == "accelerator")
        return out;
    std::vector<int> loops;
    for (size_t i = 0; i < nest.stmts.size(); ++i)
        if (candidate(nest, nest.stmts[i]))
            loops.push_back(static_cast<int>(i));
    if (loops.empty())
        return out;
    LoopNest vectorized = nest;
    for (int id : loops) {
        Stmt& s = vectorized.stmts[id];
        const sched::LoopKind kind = s.loopKind;
        s.loopKind = sched::LoopKind::Vectorized;
        if (codegen::dspLoop(vectorized, s)) {
            const InstructionReport r = predictInstructions(instructionFeatures(vectorized, executions), target);
            out.push_back({id, predicted, r.predicted});
        }
        s.loopKind = kind;
    }
    return out;
}

} // namespace loopscope::analysis
