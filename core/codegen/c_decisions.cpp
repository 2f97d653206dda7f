// The C generator's decisions about a loop nest (see c_decisions.h).
#include "codegen/c_decisions.h"

#include <algorithm>

namespace loopscope::codegen {

using lower::Buffer;
using lower::IndexId;
using lower::IndexPool;
using lower::kNoIndex;
using lower::LoopNest;
using lower::Stmt;
using lower::ValueNode;

namespace {

/// Adds scale * e to `out` (linear terms; non-linear atoms are kept apart).
void addLinear(const IndexPool& ix, IndexId e, int64_t scale, BufferOffset& out, std::vector<std::pair<IndexId, int64_t>>& atoms)
{
    if (e == kNoIndex)
        return;
    const IndexPool::Node& n = ix.node(e);
    if (n.op != IndexPool::Node::Op::Linear) {
        atoms.push_back({e, scale});
        return;
    }
    out.constant += scale * n.constant;
    for (const auto& t : n.terms) {
        if (t.atom >= 0)
            out.coeff.add(t.atom, scale * t.coeff);
        else
            atoms.push_back({-t.atom - 1, scale * t.coeff});
    }
}

} // namespace

int64_t bufferStride(const Buffer& b, size_t dim, int64_t regionStep)
{
    // The product of the dimensions stored inside `dim` (b.storageOrder(), without a copy:
    // this runs for every access the instruction model counts).
    int64_t inner = 1;
    if (b.order.empty()) {
        // Row-major (most buffers): the dimensions after `dim`.
        for (size_t i = dim + 1; i < b.shape.size(); ++i)
            inner *= b.shape[i];
    } else {
        bool inside = false;
        for (int e : b.order) {
            if (inside)
                inner *= b.shape[e];
            inside = inside || e == static_cast<int>(dim);
        }
    }
    const int64_t step = b.step[dim];
    return (step == 1 ? regionStep : regionStep / step) * inner;
}

BufferOffset bufferOffset(const LoopNest& nest, int buffer, const std::vector<IndexId>& index)
{
    const Buffer& b = nest.buffers[buffer];
    const IndexPool& ix = nest.index;
    BufferOffset out;
    if (b.level < 0 && b.elements() == 1)
        return out;  // a scalar in a register
    const size_t dims = b.order.empty() ? b.shape.size() : b.order.size();
    for (size_t i = 0; i < dims; ++i) {
        const int d = b.order.empty() ? static_cast<int>(i) : b.order[i];  // b.storageOrder(), not copied
        const int64_t stride = bufferStride(b, static_cast<size_t>(d), b.step[d]);
        if (d == b.rollDim) {
            // A rolling buffer's row: the index modulo the rows kept, computed where the index
            // changes (not in the loop along the row). It stays "linear" for the DSP path,
            // which checks that the vectorized loop does not move the row.
            if (d < static_cast<int>(index.size()))
                out.nonlinear.push_back(index[d]);
            continue;
        }
        BufferOffset rel;
        std::vector<std::pair<IndexId, int64_t>> atoms;
        if (d < static_cast<int>(index.size()))
            addLinear(ix, index[d], 1, rel, atoms);
        const IndexId origin = b.origin[d];
        bool namedOrigin = false;
        if (origin != kNoIndex) {
            if (ix.isPureLinear(origin))
                addLinear(ix, origin, -1, rel, atoms);
            else
                namedOrigin = true;  // a local computed where the buffer is allocated
        }
        // (g - origin) / step, exact when every coefficient (and a named origin's 1) divides.
        const int64_t step = b.step[d];
        bool exact = atoms.empty() && (!namedOrigin || step == 1);
        for (const auto& [slot, c] : rel.coeff)
            exact = exact && c % step == 0;
        if (!exact) {
            out.pureLinear = false;
            for (const auto& [slot, c] : rel.coeff)
                if (c != 0)
                    out.coeff.add(slot, c / std::max<int64_t>(1, step) * stride);
            for (const auto& a : atoms)
                out.nonlinear.push_back(a.first);
            if (d < static_cast<int>(index.size()) && step != 1)
                out.nonlinear.push_back(index[d]);
            out.base = out.base || namedOrigin;
            continue;
        }
        for (const auto& [slot, c] : rel.coeff)
            if (c != 0)
                out.coeff.add(slot, c / step * stride);
        out.constant += (rel.constant - (rel.constant % step + step) % step) / step * stride;
        out.base = out.base || namedOrigin;
    }
    out.coeff.dropZeros();
    return out;
}

namespace {

/// The operand feeding value `valueId`: a register loaded in the loop's body, plus or minus a
/// constant; or a constant.
bool operandOf(const LoopNest& n, int valueId, const std::map<int, const Stmt*>& loads, DspOperand& out)
{
    const ValueNode& v = n.values[valueId];
    auto loaded = [&](int id) -> const Stmt* {
        const ValueNode& r = n.values[id];
        if (r.op != ValueNode::Op::Reg)
            return nullptr;
        auto it = loads.find(r.reg);
        return it == loads.end() ? nullptr : it->second;
    };
    if (const Stmt* l = loaded(valueId)) {
        out = {l, 0, 0, 0};
        return true;
    }
    if (v.op == ValueNode::Op::Const) {
        out = {nullptr, 0, 0, v.intValue};
        return true;
    }
    if ((v.op == ValueNode::Op::Add || v.op == ValueNode::Op::Sub) && n.values[v.b].op == ValueNode::Op::Const) {
        const Stmt* l = loaded(v.a);
        if (l && n.offsetFolded(valueId)) {
            out = {l, 0, 0, 0};  // the offset is in the bias
            return true;
        }
        const int64_t c = n.values[v.b].intValue * (v.op == ValueNode::Op::Sub ? -1 : 1);
        // The sum must stay an int16 lane (int8 values plus the offset).
        if (l && c >= -32768 + 128 && c <= 32767 - 128) {
            out = {l, c, 0, 0};
            return true;
        }
    }
    return false;
}

/// dspLoop's decision with its reason.
std::optional<DspLoop> decideDsp(const LoopNest& n, const Stmt& s, std::string& why)
{
    if (s.kind != Stmt::Kind::For || s.loopKind != sched::LoopKind::Vectorized) {
        why = "not a vectorized loop";
        return std::nullopt;
    }
    if (!n.target->compute.dsp) {
        why = "the target has no DSP extension";
        return std::nullopt;
    }
    std::map<int, const Stmt*> loads;
    const Stmt* update = nullptr;
    std::optional<ir::DType> elem;
    for (int c : s.body) {
        const Stmt& b = n.stmts[c];
        const ir::DType t = b.kind == Stmt::Kind::Load ? n.buffers[b.buffer].dtype : ir::DType::Float32;
        if (b.kind == Stmt::Kind::Load && (t == ir::DType::Int8 || t == ir::DType::Int16) && (!elem || *elem == t)) {
            elem = t;
            loads[b.reg] = &b;
        } else if (b.kind == Stmt::Kind::Compute && b.accumulate && !update) {
            update = &b;
        } else {
            why = "the body is not int8 or int16 loads of one type and one multiply-accumulate";
            return std::nullopt;
        }
    }
    if (!update || !elem || n.buffers[update->buffer].dtype != ir::DType::Int32) {
        why = "no int32 multiply-accumulate of int8 or int16 loads";
        return std::nullopt;
    }
    DspLoop d;
    d.path = s.reduction ? DspLoop::Path::Smlad : DspLoop::Path::Lanes;
    d.int8 = *elem == ir::DType::Int8;
    d.lanes = d.int8 ? 4 : 2;
    d.update = update;
    if (s.extent % d.lanes != 0) {
        why = "the vector extent is not a multiple of " + std::to_string(d.lanes);
        return std::nullopt;
    }
    const ValueNode& mul = n.values[update->value];
    if (mul.op != ValueNode::Op::Mul || !operandOf(n, mul.a, loads, d.x) || !operandOf(n, mul.b, loads, d.y)) {
        why = "the value is not (x + c) * (y + d)";
        return std::nullopt;
    }
    if (!d.x.load)
        std::swap(d.x, d.y);  // a constant operand is always y
    if (!d.x.load) {
        why = "both operands are constants";
        return std::nullopt;
    }
    if (!d.y.load && (d.path != DspLoop::Path::Smlad || d.y.constant < -32768 || d.y.constant > 32767)) {
        why = "a constant operand needs a reduction and an int16 value";
        return std::nullopt;
    }
    if (!d.int8 && (d.x.offset != 0 || d.y.offset != 0)) {
        why = "int16 operands with an offset could leave the int16 range";
        return std::nullopt;
    }
    // Each operand must be affine in the vectorized loop: element distance `stride`.
    for (DspOperand* o : {&d.x, &d.y}) {
        if (!o->load)
            continue;
        const BufferOffset off = bufferOffset(n, o->load->buffer, o->load->index);
        o->stride = off.coefficient(s.slot);
        std::vector<int> moved;
        for (IndexId e : off.nonlinear)
            n.index.slotsOf(e, moved);
        if (!off.pureLinear || o->stride == 0 || std::find(moved.begin(), moved.end(), s.slot) != moved.end()) {
            why = "an operand is not affine in the vectorized loop";
            return std::nullopt;
        }
    }
    if (d.path == DspLoop::Path::Lanes) {
        // Each iteration updates its own accumulator element, next to the previous one; both
        // operands are contiguous (one word load gives the lanes).
        const BufferOffset acc = bufferOffset(n, update->buffer, update->index);
        if (!acc.pureLinear || acc.coefficient(s.slot) != 1) {
            why = "the lanes' accumulators are not consecutive elements";
            return std::nullopt;
        }
        if (d.x.stride != 1 || !d.y.load || d.y.stride != 1) {
            why = "lanes need two operands contiguous along the vectorized loop";
            return std::nullopt;
        }
    }
    return d;
}

} // namespace

std::optional<DspLoop> dspLoop(const LoopNest& n, const Stmt& s)
{
    std::string why;
    return decideDsp(n, s, why);
}

bool vectorizedWrittenOut(const LoopNest& n, const Stmt& loop)
{
    if (loop.kind != Stmt::Kind::For || loop.loopKind != sched::LoopKind::Vectorized)
        return false;
    std::vector<int> slots;
    return lower::anyInside(n, loop, [&](const Stmt& st) {
        const bool acc = st.kind == Stmt::Kind::AccInit || st.kind == Stmt::Kind::Compute || st.kind == Stmt::Kind::AccStore;
        const int b = st.kind == Stmt::Kind::AccStore ? st.src : st.buffer;
        const auto& index = st.kind == Stmt::Kind::AccStore ? st.srcIndex : st.index;
        if (!acc || b < 0 || n.buffers[b].level >= 0 || n.buffers[b].elements() <= 1)
            return false;
        slots.clear();
        for (IndexId e : index)
            n.index.slotsOf(e, slots);
        return std::find(slots.begin(), slots.end(), loop.slot) != slots.end();
    });
}

std::string dspRefusal(const LoopNest& n, const Stmt& s)
{
    std::string why;
    return decideDsp(n, s, why) ? std::string() : why;
}

CopyShape copyShape(const LoopNest& n, const Stmt& s)
{
    const Buffer& src = n.buffers[s.src];
    const Buffer& dst = n.buffers[s.buffer];
    const size_t dims = s.region.min.size();
    CopyShape c;
    c.elementBytes = ir::dtypeBytes(dst.dtype);
    const size_t last = dims - 1;
    auto stride = [&](const Buffer& b, size_t d) { return bufferStride(b, d, s.region.step[d]); };
    // Rows are the contiguous run of trailing dimensions when the last one is contiguous in both
    // buffers (then the dimension before the run gives the row count), else single elements
    // along the last dimension.
    // A rolling buffer's rows wrap around: its rolling dimension is never part of a run, nor the
    // row dimension of one call; the calls loop over it.
    const int roll = std::max(src.rollDim, dst.rollDim);
    c.rowContiguous = stride(src, last) == 1 && stride(dst, last) == 1 && roll != static_cast<int>(last);
    if (c.rowContiguous) {
        c.runStart = last;
        // A dimension joins the run when the one inside it is whole in both buffers: its count
        // is static and its neighbours are that many elements apart in both.
        while (c.runStart > 0 && static_cast<int>(c.runStart) - 1 != roll) {
            const size_t d = c.runStart;
            int64_t count = 0;
            if (!n.index.isConst(s.region.count[d], &count) || stride(src, d - 1) != count * stride(src, d)
                || stride(dst, d - 1) != count * stride(dst, d))
                break;
            c.runInnerElements *= count;
            --c.runStart;
        }
        c.hasRowDim = c.runStart >= 1 && static_cast<int>(c.runStart) - 1 != roll;
        c.rowDim = c.hasRowDim ? c.runStart - 1 : 0;
        c.outerDims = c.hasRowDim ? c.rowDim : c.runStart;
    } else if (roll == static_cast<int>(last)) {
        c.hasRowDim = false;  // one element per call, every dimension looped
        c.outerDims = dims;
    } else {
        c.hasRowDim = true;
        c.rowDim = last;
        c.outerDims = last;
    }
    if (c.hasRowDim) {
        c.srcRowStride = stride(src, c.rowDim);
        c.dstRowStride = stride(dst, c.rowDim);
    }
    return c;
}

RequantForm requantForm(const LoopNest& n, const Stmt& store)
{
    RequantForm f;
    const auto& st = n.kernel->stages[store.stage];
    if (!st.requant)
        return f;
    f.perChannelMultiplier = store.multBuffer >= 0;
    f.perChannelShift = store.shiftBuffer >= 0;
    const int64_t lo = st.requant->actMin, hi = st.requant->actMax;
    for (int bits = 1; bits <= 31; ++bits)
        if (lo == -(int64_t(1) << (bits - 1)) && hi == (int64_t(1) << (bits - 1)) - 1)
            f.clampBits = bits;
    return f;
}

bool widensCopy(const lower::LoopNest& nest, const lower::Stmt& copy)
{
    return copy.kind == lower::Stmt::Kind::Copy && nest.buffers[copy.buffer].dtype != nest.buffers[copy.src].dtype;
}

bool hasWideningCopy(const lower::LoopNest& nest)
{
    for (const lower::Stmt& s : nest.stmts)
        if (widensCopy(nest, s))
            return true;
    return false;
}

} // namespace loopscope::codegen
