// The reference evaluator: every stage as plain nested loops over its axes, straight from the IR.
#include "verify/data.h"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace loopscope::verify {
namespace {

using ir::AffineExpr;
using ir::Expr;

/// One load of the value expression with what it needs to find its element.
struct LoadPlan {
    const TensorData* data = nullptr;
    const std::vector<AffineExpr>* index = nullptr;
};

/// The value expression flattened to postfix, so the innermost loop walks an array instead of
/// a tree of shared pointers. Evaluation order and arithmetic are those of the tree.
struct Op {
    enum class Code { Const, Load, Add, Sub, Mul, Neg };
    Code code = Code::Const;
    int64_t intValue = 0;
    float floatValue = 0;
    int load = -1;
};

struct Program {
    std::vector<Op> ops;
    std::vector<LoadPlan> loads;
    size_t maxStack = 0;
};

size_t flatten(const Expr& e, const Dataset& data, Program& p, size_t depth)
{
    size_t deepest = depth + 1;
    auto push = [&](Op op) { p.ops.push_back(op); };
    switch (e.kind) {
    case Expr::Kind::Const: {
        Op op;
        op.code = Op::Code::Const;
        op.intValue = e.intValue;
        // Constants are rounded to float once, as a C float literal would be.
        op.floatValue = static_cast<float>(e.floatValue);
        push(op);
        break;
    }
    case Expr::Kind::Load: {
        Op op;
        op.code = Op::Code::Load;
        op.load = static_cast<int>(p.loads.size());
        p.loads.push_back(LoadPlan{&data[e.access.tensor], &e.access.index});
        push(op);
        break;
    }
    case Expr::Kind::Neg: {
        deepest = std::max(deepest, flatten(*e.a, data, p, depth));
        Op op;
        op.code = Op::Code::Neg;
        push(op);
        break;
    }
    case Expr::Kind::Add:
    case Expr::Kind::Sub:
    case Expr::Kind::Mul: {
        deepest = std::max(deepest, flatten(*e.a, data, p, depth));
        deepest = std::max(deepest, flatten(*e.b, data, p, depth + 1));
        Op op;
        op.code = e.kind == Expr::Kind::Add   ? Op::Code::Add
                  : e.kind == Expr::Kind::Sub ? Op::Code::Sub
                                              : Op::Code::Mul;
        push(op);
        break;
    }
    }
    return deepest;
}

int64_t evalIndex(const AffineExpr& e, const int64_t* x)
{
    int64_t v = e.constant;
    for (const AffineExpr::Term& t : e.terms)
        v += t.coeff * x[t.axis];
    return v;
}

/// Flat offset of a load at the current point, or -1 when an index leaves its dimension.
int64_t loadOffset(const LoadPlan& l, const int64_t* x)
{
    const std::vector<int64_t>& shape = l.data->shape;
    int64_t off = 0;
    for (size_t d = 0; d < shape.size(); ++d) {
        int64_t i = evalIndex((*l.index)[d], x);
        if (i < 0 || i >= shape[d])
            return -1;
        off = off * shape[d] + i;
    }
    return off;
}

/// Integer arithmetic in int64 with two's complement wrap-around (never undefined).
int64_t wrapAdd(int64_t a, int64_t b)
{
    return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}

int64_t wrapSub(int64_t a, int64_t b)
{
    return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
}

int64_t wrapMul(int64_t a, int64_t b)
{
    return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
}

class StageRunner {
public:
    StageRunner(const ir::Stage& s, Dataset& data) : m_stage(s), m_data(data) {}

    void run()
    {
        const size_t nAxes = m_stage.axes.size();
        for (const ir::Axis& a : m_stage.axes) {
            if (a.extent <= 0)
                return;
        }
        if (!m_stage.value)
            return;
        size_t depth = flatten(*m_stage.value, m_data, m_program, 0);
        m_intStack.resize(depth + 1);
        m_floatStack.resize(depth + 1);
        m_offsets.resize(m_program.loads.size());
        TensorData& out = m_data[m_stage.output.tensor];
        const bool fl = ir::isFloat(out.dtype);
        const size_t nSpatial = static_cast<size_t>(m_stage.spatialCount());
        std::vector<int64_t> x(nAxes, 0);

        // Spatial axes outermost in order, then the reduction axes in order: an odometer.
        auto advance = [&](size_t from, size_t to) {
            for (size_t a = to; a-- > from;) {
                if (++x[a] < m_stage.axes[a].extent)
                    return true;
                x[a] = 0;
            }
            return false;
        };
        do {
            int64_t outOff = 0;
            bool outOk = true;
            for (size_t d = 0; d < out.shape.size(); ++d) {
                int64_t i = evalIndex(m_stage.output.index[d], x.data());
                outOk = outOk && i >= 0 && i < out.shape[d];
                outOff = outOff * out.shape[d] + i;
            }
            if (!outOk)
                continue;
            for (size_t a = nSpatial; a < nAxes; ++a)
                x[a] = 0;
            if (fl)
                out.floats[outOff] = runPointFloat(x.data(), nSpatial, nAxes, advance);
            else
                out.ints[outOff] = runPointInt(x.data(), nSpatial, nAxes, advance);
        } while (advance(0, nSpatial));
    }

private:
    /// Computes the offsets of every load; false when one is out of bounds (the term is skipped).
    bool locate(const int64_t* x)
    {
        for (size_t i = 0; i < m_program.loads.size(); ++i) {
            m_offsets[i] = loadOffset(m_program.loads[i], x);
            if (m_offsets[i] < 0)
                return false;
        }
        return true;
    }

    int64_t evalInt()
    {
        size_t sp = 0;
        int64_t* st = m_intStack.data();
        for (const Op& op : m_program.ops) {
            switch (op.code) {
            case Op::Code::Const: st[sp++] = op.intValue; break;
            case Op::Code::Load: {
                const TensorData& t = *m_program.loads[op.load].data;
                int64_t off = m_offsets[op.load];
                st[sp++] = ir::isFloat(t.dtype) ? static_cast<int64_t>(t.floats[off]) : t.ints[off];
                break;
            }
            case Op::Code::Neg: st[sp - 1] = wrapSub(0, st[sp - 1]); break;
            case Op::Code::Add: --sp; st[sp - 1] = wrapAdd(st[sp - 1], st[sp]); break;
            case Op::Code::Sub: --sp; st[sp - 1] = wrapSub(st[sp - 1], st[sp]); break;
            case Op::Code::Mul: --sp; st[sp - 1] = wrapMul(st[sp - 1], st[sp]); break;
            }
        }
        return st[0];
    }

    float evalFloat()
    {
        size_t sp = 0;
        float* st = m_floatStack.data();
        for (const Op& op : m_program.ops) {
            switch (op.code) {
            case Op::Code::Const: st[sp++] = op.floatValue; break;
            case Op::Code::Load: {
                const TensorData& t = *m_program.loads[op.load].data;
                int64_t off = m_offsets[op.load];
                st[sp++] = ir::isFloat(t.dtype) ? t.floats[off] : static_cast<float>(t.ints[off]);
                break;
            }
            case Op::Code::Neg: st[sp - 1] = -st[sp - 1]; break;
            case Op::Code::Add: --sp; st[sp - 1] = st[sp - 1] + st[sp]; break;
            case Op::Code::Sub: --sp; st[sp - 1] = st[sp - 1] - st[sp]; break;
            case Op::Code::Mul: --sp; st[sp - 1] = st[sp - 1] * st[sp]; break;
            }
        }
        return st[0];
    }

    template <typename Advance>
    float runPointFloat(int64_t* x, size_t nSpatial, size_t nAxes, Advance& advance)
    {
        if (!m_stage.accumulate)
            return locate(x) ? evalFloat() : 0.0f;
        float acc = 0.0f;
        do {
            if (locate(x))
                acc += evalFloat();
        } while (advance(nSpatial, nAxes));
        return acc;
    }

    template <typename Advance>
    int64_t runPointInt(int64_t* x, size_t nSpatial, size_t nAxes, Advance& advance)
    {
        const ir::DType outType = m_data[m_stage.output.tensor].dtype;
        if (!m_stage.accumulate)
            return locate(x) ? wrapTo(outType, evalInt()) : 0;
        const ir::Requantize* q = m_stage.requant ? &*m_stage.requant : nullptr;
        const int64_t channel = q && q->channel ? q->channel->eval(x) : 0;
        int64_t acc = q && q->bias >= 0 ? perChannel(q->bias, channel) : 0;
        do {
            if (locate(x))
                acc = wrapAdd(acc, evalInt());
        } while (advance(nSpatial, nAxes));
        if (!q)
            return wrapTo(outType, acc);
        const int64_t mult =
            q->multiplier.tensor >= 0 ? perChannel(q->multiplier.tensor, channel) : q->multiplier.value;
        const int64_t shift = q->shift.tensor >= 0 ? perChannel(q->shift.tensor, channel) : q->shift.value;
        // The accumulator is an int32, as in TFLite and CMSIS-NN.
        return requantizeValue(wrapTo(ir::DType::Int32, acc), static_cast<int32_t>(wrapTo(ir::DType::Int32, mult)),
                               static_cast<int>(wrapTo(ir::DType::Int32, shift)), q->outputOffset, q->actMin,
                               q->actMax);
    }

    int64_t perChannel(int tensor, int64_t channel) const
    {
        const TensorData& t = m_data[tensor];
        if (channel < 0 || channel >= static_cast<int64_t>(t.ints.size()))
            return 0;
        return t.ints[channel];
    }

    const ir::Stage& m_stage;
    Dataset& m_data;
    Program m_program;
    std::vector<int64_t> m_offsets;
    std::vector<int64_t> m_intStack;
    std::vector<float> m_floatStack;
};

/// The dataset has one entry per tensor with the tensor's shape and storage.
bool matches(const ir::Kernel& k, const Dataset& data)
{
    if (data.size() != k.tensors.size())
        return false;
    for (size_t i = 0; i < data.size(); ++i) {
        const ir::Tensor& t = k.tensors[i];
        const TensorData& d = data[i];
        if (d.shape != t.shape)
            return false;
        size_t n = static_cast<size_t>(t.elements());
        if ((ir::isFloat(d.dtype) ? d.floats.size() : d.ints.size()) != n)
            return false;
    }
    return true;
}

} // namespace

void runReference(const ir::Kernel& kernel, Dataset& data)
{
    // A dataset made for another kernel would index out of range; leave it untouched.
    if (!matches(kernel, data))
        return;
    for (const ir::Stage& s : kernel.stages) {
        if (s.output.tensor < 0 || s.output.tensor >= static_cast<int>(data.size()))
            continue;
        StageRunner(s, data).run();
    }
}

} // namespace loopscope::verify
