// Lowering of a tensorized stage: the Matmul statement of a block (its partial extents, the state
// the PEs keep across the loop around it), the halo fills of a padded operand, and the host
// computation of the initial accumulator row that folds A's offset into the bias.
#include "lower/tensorize_lower.h"

#include <algorithm>

namespace loopscope::lower::detail {

namespace {

int newStmt(LoopNest& n, Stmt::Kind k, int stage)
{
    Stmt s;
    s.kind = k;
    s.stage = stage;
    n.stmts.push_back(std::move(s));
    return static_cast<int>(n.stmts.size() - 1);
}

int newSlot(LoopNest& n, const std::string& name, int64_t extent)
{
    n.slotNames.push_back(name);
    n.slotExtents.push_back(extent);
    return static_cast<int>(n.slotNames.size() - 1);
}

bool dependsOn(const LoopNest& n, const std::vector<IndexId>& index, int slot)
{
    std::vector<int> slots;
    for (IndexId e : index)
        n.index.slotsOf(e, slots);
    return std::find(slots.begin(), slots.end(), slot) != slots.end();
}

/// Coefficient of a slot in a linear expression (0 when absent or not linear in it).
int64_t coefficient(const IndexPool& ix, IndexId e, int slot)
{
    const IndexPool::Node& node = ix.node(e);
    if (node.op != IndexPool::Node::Op::Linear)
        return 0;
    for (const auto& t : node.terms)
        if (t.atom == slot)
            return t.coeff;
    return 0;
}

} // namespace

int emitMatmul(LoopNest& n, int block, const MatmulInputs& in)
{
    IndexPool& ix = n.index;
    MatmulOp op;
    op.slotI = in.slots[0];
    op.slotJ = in.slots[1];
    op.slotK = in.slots[2];
    op.extentI = in.extents[0];
    op.extentJ = in.extents[1];
    op.extentK = in.extents[2];
    // A partial block: a guard lo <= e <= hi on a block loop t (e = e0 + t) leaves hi - e0 + 1 of it.
    std::array<IndexId, 3> count = {ix.constant(in.extents[0]), ix.constant(in.extents[1]), ix.constant(in.extents[2])};
    for (const Cond& g : in.guards)
        for (int d = 0; d < 3; ++d)
            if (coefficient(ix, g.expr, in.slots[d]) == 1 && g.hi != kNoIndex) {
                IndexId e0 = ix.sub(g.expr, ix.slot(in.slots[d]));
                count[d] = ix.min(count[d], ix.addConst(ix.sub(g.hi, e0), 1));
            }
    op.rows = count[0];
    op.cols = count[1];
    op.depth = count[2];
    op.a = in.a;
    op.b = in.b;
    op.c = in.c;
    op.aIndex = in.aIndex;
    op.bIndex = in.bIndex;
    op.cIndex = in.cIndex;
    // Each operand's block: per dimension the index at the block's origin, and how many elements
    // the block loop in it spans (one for dimensions no block loop indexes).
    auto blockRegion = [&](const std::vector<IndexId>& index) {
        Region r;
        for (IndexId e : index) {
            IndexId origin = e, cnt = ix.constant(1);
            int64_t step = 1;
            for (int d = 0; d < 3; ++d)
                if (int64_t c = coefficient(ix, e, in.slots[d]); c != 0) {
                    origin = ix.sub(origin, ix.mul(ix.slot(in.slots[d]), c));
                    cnt = count[d];
                    step = c < 0 ? -c : c;
                }
            r.min.push_back(origin);
            r.count.push_back(cnt);
            r.step.push_back(step);
        }
        return r;
    };
    op.aRegion = blockRegion(op.aIndex);
    op.bRegion = blockRegion(op.bIndex);
    op.cRegion = blockRegion(op.cIndex);
    op.dataflow = in.dataflow;
    op.overwriteFirst = in.overwriteFirst;
    op.firstSlots = in.firstSlots;
    op.offsetA = in.offsetA;
    const int id = newStmt(n, Stmt::Kind::Matmul, in.stage);
    n.stmts[id].op = static_cast<int>(n.matmuls.size());
    n.stmts[block].body.push_back(id);
    // Consecutive instructions: the loop directly around this one and nothing else.
    const Stmt& parent = n.stmts[block];
    if (parent.kind == Stmt::Kind::For && parent.body.size() == 1) {
        const bool ws = in.dataflow == sched::Dataflow::WeightStationary;
        if ((ws && !dependsOn(n, op.bIndex, parent.slot)) || (!ws && parent.reduction && !dependsOn(n, op.cIndex, parent.slot))) {
            op.reuseSlot = parent.slot;
            op.reuseExtent = parent.extent;
            if (!ws)
                std::erase(op.firstSlots, parent.slot);
        }
    }
    n.matmuls.push_back(std::move(op));
    return id;
}

void appendHaloFills(LoopNest& n, int block, int stage, int buffer, const Region& unclipped, const std::vector<int64_t>& tensorShape,
                     int64_t value)
{
    IndexPool& ix = n.index;
    const size_t dims = unclipped.min.size();
    // Per dimension: the lattice points below 0 and above the last index, and those inside.
    std::vector<IndexId> below(dims), above(dims), insideMin(dims), insideCount(dims);
    std::vector<bool> padded(dims, false);
    for (size_t d = 0; d < dims; ++d) {
        const int64_t step = unclipped.step[d];
        const IndexId u0 = unclipped.min[d], cnt = unclipped.count[d];
        const IndexId zero = ix.constant(0);
        // ceil((0 - u0) / step) points lie below 0; ceil((u1 - (E - 1)) / step) above, u1 = u0 + (cnt - 1) step.
        IndexId lo = ix.min(cnt, ix.max(zero, ix.div(ix.addConst(ix.mul(u0, -1), step - 1), step)));
        IndexId u1 = ix.add(u0, ix.mul(ix.addConst(cnt, -1), step));
        IndexId hi = ix.min(ix.sub(cnt, lo), ix.max(zero, ix.div(ix.addConst(u1, step - 1 - (tensorShape[d] - 1)), step)));
        const auto lob = ix.bounds(lo, n.slotExtents), hib = ix.bounds(hi, n.slotExtents);
        padded[d] = lob.second > 0 || hib.second > 0;
        below[d] = lo;
        above[d] = hi;
        insideMin[d] = padded[d] ? ix.add(u0, ix.mul(lo, step)) : u0;
        insideCount[d] = padded[d] ? ix.sub(ix.sub(cnt, lo), hi) : cnt;
    }
    for (size_t d = 0; d < dims; ++d) {
        if (!padded[d])
            continue;
        for (int side = 0; side < 2; ++side) {
            Region r;
            r.step = unclipped.step;
            for (size_t e = 0; e < dims; ++e) {
                if (e < d) {
                    r.min.push_back(insideMin[e]);
                    r.count.push_back(insideCount[e]);
                } else if (e > d) {
                    r.min.push_back(unclipped.min[e]);
                    r.count.push_back(unclipped.count[e]);
                } else if (side == 0) {
                    r.min.push_back(unclipped.min[e]);
                    r.count.push_back(below[e]);
                } else {
                    r.min.push_back(ix.add(insideMin[e], ix.mul(insideCount[e], unclipped.step[e])));
                    r.count.push_back(above[e]);
                }
            }
            const int id = newStmt(n, Stmt::Kind::Fill, stage);
            n.stmts[id].buffer = buffer;
            n.stmts[id].region = std::move(r);
            n.stmts[id].fillValue = value;
            n.stmts[block].body.push_back(id);
        }
    }
}

InitRow emitInitRow(LoopNest& n, const sched::Program& p, int stage, int block, const sched::TensorizeOperands& ops, int bHome, int biasHome)
{
    const ir::Kernel& k = *p.kernel;
    const ir::Stage& st = k.stages[stage];
    const ir::Access b = sched::effectiveLoads(p, stage)[ops.loadB];
    IndexPool& ix = n.index;
    InitRow out;
    Buffer z;
    z.name = k.tensors[st.output.tensor].name + "_init";
    z.tensor = st.output.tensor;
    z.level = p.homeLevel();
    z.dtype = ir::DType::Int32;
    z.role = Buffer::Role::Intermediate;
    z.ownerStage = stage;
    z.shape = {st.axes[ops.axisJ].extent};
    z.step = {1};
    z.origin = {kNoIndex};
    n.buffers.push_back(std::move(z));
    out.buffer = static_cast<int>(n.buffers.size() - 1);
    out.alloc = newStmt(n, Stmt::Kind::Alloc, stage);
    n.stmts[out.alloc].buffer = out.buffer;
    n.stmts[block].body.push_back(out.alloc);

    // for j: init[j] = bias[j] (or 0); for every reduction axis: init[j] += offset * B[...]
    std::vector<int> axisSlot(st.axes.size(), -1);
    const std::string prefix = k.stages.size() > 1 ? st.name + ":init." : "init.";
    axisSlot[ops.axisJ] = newSlot(n, prefix + st.axes[ops.axisJ].name, st.axes[ops.axisJ].extent);
    int loop = newStmt(n, Stmt::Kind::For, stage);
    n.stmts[loop].name = n.slotNames[axisSlot[ops.axisJ]];
    n.stmts[loop].slot = axisSlot[ops.axisJ];
    n.stmts[loop].extent = st.axes[ops.axisJ].extent;
    n.stmts[out.alloc].body.push_back(loop);
    const IndexId j = ix.slot(axisSlot[ops.axisJ]);
    int init = newStmt(n, Stmt::Kind::AccInit, stage);
    n.stmts[init].buffer = out.buffer;
    n.stmts[init].index = {j};
    n.stmts[init].helper = true;
    if (biasHome >= 0) {
        n.stmts[init].src = biasHome;
        n.stmts[init].srcIndex = {j};
    }
    n.stmts[loop].body.push_back(init);
    int inner = loop;
    for (size_t a = 0; a < st.axes.size(); ++a) {
        if (!st.axes[a].reduction)
            continue;
        axisSlot[a] = newSlot(n, prefix + st.axes[a].name, st.axes[a].extent);
        int r = newStmt(n, Stmt::Kind::For, stage);
        n.stmts[r].name = n.slotNames[axisSlot[a]];
        n.stmts[r].slot = axisSlot[a];
        n.stmts[r].extent = st.axes[a].extent;
        n.stmts[r].reduction = true;
        n.stmts[inner].body.push_back(r);
        inner = r;
    }
    std::vector<IndexId> bIndex;
    for (const auto& e : b.index) {
        IndexId v = ix.constant(e.constant);
        for (const auto& t : e.terms)
            v = ix.add(v, ix.mul(ix.slot(axisSlot[t.axis]), t.coeff));
        bIndex.push_back(v);
    }
    n.regNames.push_back(k.tensors[b.tensor].name + "_sum");
    for (char& ch : n.regNames.back())
        ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    const int reg = static_cast<int>(n.regNames.size() - 1);
    int load = newStmt(n, Stmt::Kind::Load, stage);
    n.stmts[load].buffer = bHome;
    n.stmts[load].index = bIndex;
    n.stmts[load].reg = reg;
    n.stmts[load].helper = true;
    n.stmts[inner].body.push_back(load);
    ValueNode cst;
    cst.op = ValueNode::Op::Const;
    cst.intValue = ops.offsetA;
    cst.floatValue = static_cast<double>(ops.offsetA);
    n.values.push_back(cst);
    ValueNode rv;
    rv.op = ValueNode::Op::Reg;
    rv.reg = reg;
    n.values.push_back(rv);
    ValueNode mul;
    mul.op = ValueNode::Op::Mul;
    mul.a = static_cast<int>(n.values.size() - 2);
    mul.b = static_cast<int>(n.values.size() - 1);
    n.values.push_back(mul);
    int update = newStmt(n, Stmt::Kind::Compute, stage);
    n.stmts[update].buffer = out.buffer;
    n.stmts[update].index = {j};
    n.stmts[update].value = static_cast<int>(n.values.size() - 1);
    n.stmts[update].accumulate = true;
    n.stmts[update].helper = true;
    n.stmts[inner].body.push_back(update);
    return out;
}

} // namespace loopscope::lower::detail
