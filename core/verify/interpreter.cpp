// The oracle: an interpreter of the loop-nest IR with exact traffic counting.
#include "verify/interpreter.h"

#include "verify/budget.h"

#include <cstring>
#include <map>
#include <type_traits>

namespace loopscope::verify {

namespace {

using lower::Buffer;
using lower::IndexId;
using lower::LoopNest;
using lower::Stmt;
using lower::ValueNode;

/// Largest tensor rank the interpreter handles.
constexpr size_t kMaxRank = ir::kMaxTensorRank;   // the kernel parser refuses more

/// An access outside a buffer: unwinds the interpreter, reported as an error value.
struct OutOfBounds {
    std::string message;
};

template <typename T>
class Interpreter {
public:
    Interpreter(const LoopNest& n, const Dataset& inputs, const AccessObserver& observer) : m_n(n), m_in(inputs), m_observer(observer)
    {
        m_slots.assign(n.slotNames.size(), 0);
        m_regs.assign(n.regNames.size(), T{});
        m_store.resize(n.buffers.size());
        for (const Buffer& b : n.buffers)
            m_order.push_back(b.storageOrder());
        size_t levels = n.target->levels.size();
        m_read.assign(levels, std::vector<int64_t>(n.kernel->tensors.size(), 0));
        m_write = m_read;
    }

    InterpretResult run()
    {
        InterpretResult r;
        for (size_t b = 0; b < m_n.buffers.size(); ++b) {
            const Buffer& buf = m_n.buffers[b];
            if (buf.role != Buffer::Role::Home)
                continue;
            const TensorData& td = m_in[buf.tensor];
            if constexpr (std::is_same_v<T, float>)
                m_store[b].assign(td.floats.begin(), td.floats.end());
            else
                m_store[b].assign(td.ints.begin(), td.ints.end());
            m_store[b].resize(buf.elements());
        }
        for (const auto& st : m_n.stmts)
            if (st.index.size() > kMaxRank || st.srcIndex.size() > kMaxRank) {
                r.error = "tensors of more than " + std::to_string(kMaxRank) + " dimensions are not supported";
                return r;
            }
        try {
            exec(m_n.root);
        } catch (const OutOfBounds& e) {
            r.error = e.message;
            return r;
        }
        r.ok = true;
        r.data = m_in;
        for (size_t b = 0; b < m_n.buffers.size(); ++b) {
            const Buffer& buf = m_n.buffers[b];
            if (buf.role != Buffer::Role::Home)
                continue;
            TensorData& td = r.data[buf.tensor];
            if constexpr (std::is_same_v<T, float>)
                td.floats.assign(m_store[b].begin(), m_store[b].end());
            else
                td.ints.assign(m_store[b].begin(), m_store[b].end());
        }
        const auto& levels = m_n.target->levels;
        for (size_t l = 0; l < levels.size(); ++l) {
            LevelTraffic lt;
            lt.name = levels[l].name;
            for (size_t t = 0; t < m_n.kernel->tensors.size(); ++t) {
                lt.readBytes += m_read[l][t];
                lt.writeBytes += m_write[l][t];
            }
            r.traffic.levels.push_back(lt);
        }
        for (size_t t = 0; t < m_n.kernel->tensors.size(); ++t)
            for (size_t l = 0; l < levels.size(); ++l)
                if (m_read[l][t] || m_write[l][t])
                    r.traffic.tensors.push_back({m_n.kernel->tensors[t].name, levels[l].name, m_read[l][t], m_write[l][t]});
        return r;
    }

private:
    int64_t ev(IndexId id) const { return m_n.index.eval(id, m_slots.data()); }

    /// Flat offset in buffer b of a global tensor index.
    int64_t offset(int b, const int64_t* global)
    {
        const Buffer& buf = m_n.buffers[b];
        int64_t flat = 0;
        for (int d : m_order[b]) {
            if (d == buf.rollDim) {
                // A rolling buffer: the row's place is its index modulo the rows kept.
                flat = flat * buf.shape[d] + ((global[d] % buf.shape[d]) + buf.shape[d]) % buf.shape[d];
                continue;
            }
            int64_t rel = global[d] - (buf.origin[d] == lower::kNoIndex ? 0 : m_origin[b][d]);
            int64_t local = rel / buf.step[d];
            if (rel < 0 || rel % buf.step[d] != 0 || local >= buf.shape[d]) {
                std::string idx;
                for (size_t k = 0; k < buf.shape.size(); ++k)
                    idx += (k ? ", " : "") + std::to_string(global[k]);
                throw OutOfBounds{"access " + m_n.kernel->tensors[buf.tensor].name + "[" + idx
                                  + "] is outside buffer " + buf.name};
            }
            flat = flat * buf.shape[d] + local;
        }
        return flat;
    }

    void count(int b, bool write)
    {
        const Buffer& buf = m_n.buffers[b];
        if (buf.level < 0)
            return;
        int64_t bytes = ir::dtypeBytes(buf.dtype);
        (write ? m_write : m_read)[buf.level][buf.tensor] += bytes;
    }

    void observe(int b, const int64_t* g, bool write)
    {
        if (m_observer)
            m_observer(Access{m_stmt, b, write, g, m_slots.data()});
    }

    T read(int b, const int64_t* g)
    {
        T v = m_store[b][offset(b, g)];
        count(b, false);
        observe(b, g, false);
        return v;
    }

    void write(int b, const int64_t* g, T v)
    {
        const Buffer& buf = m_n.buffers[b];
        if constexpr (!std::is_same_v<T, float>)
            v = wrapTo(buf.dtype, v);
        m_store[b][offset(b, g)] = v;
        count(b, true);
        observe(b, g, true);
    }

    T value(int id)
    {
        const ValueNode& v = m_n.values[id];
        switch (v.op) {
        case ValueNode::Op::Const:
            if constexpr (std::is_same_v<T, float>)
                return static_cast<float>(v.floatValue);
            else
                return v.intValue;
        case ValueNode::Op::Reg: return m_regs[v.reg];
        case ValueNode::Op::Add: return value(v.a) + value(v.b);
        case ValueNode::Op::Sub: return value(v.a) - value(v.b);
        case ValueNode::Op::Mul: return value(v.a) * value(v.b);
        case ValueNode::Op::Neg: return -value(v.a);
        }
        return T{};
    }

    /// Calls f(global index) for every element of a region, row-major.
    template <typename F>
    void forRegion(const lower::Region& r, F&& f)
    {
        size_t dims = r.min.size();
        std::vector<int64_t> lo(dims), cnt(dims), g(dims), t(dims, 0);
        for (size_t d = 0; d < dims; ++d) {
            lo[d] = ev(r.min[d]);
            cnt[d] = ev(r.count[d]);
            if (cnt[d] <= 0)
                return;
            g[d] = lo[d];
        }
        while (true) {
            f(g.data());
            size_t d = dims;
            while (d > 0) {
                --d;
                if (++t[d] < cnt[d]) {
                    g[d] = lo[d] + t[d] * r.step[d];
                    break;
                }
                t[d] = 0;
                g[d] = lo[d];
                if (d == 0)
                    return;
            }
            if (dims == 0)
                return;
        }
    }

    void exec(int id)
    {
        const Stmt& s = m_n.stmts[id];
        m_stmt = id;
        switch (s.kind) {
        case Stmt::Kind::Block:
            for (int c : s.body)
                exec(c);
            break;
        case Stmt::Kind::For:
            for (int64_t i = 0; i < s.extent; ++i) {
                m_slots[s.slot] = i;
                for (int c : s.body)
                    exec(c);
            }
            break;
        case Stmt::Kind::If:
            for (const auto& c : s.conds) {
                int64_t v = ev(c.expr);
                if ((c.lo != lower::kNoIndex && v < ev(c.lo)) || (c.hi != lower::kNoIndex && v > ev(c.hi)))
                    return;
            }
            for (int c : s.body)
                exec(c);
            break;
        case Stmt::Kind::Alloc: {
            const Buffer& buf = m_n.buffers[s.buffer];
            // Poison fresh buffers so that a write-back of an element nobody computed shows.
            T poison;
            if constexpr (std::is_same_v<T, float>)
                poison = 1.0e30f;
            else
                poison = wrapTo(buf.dtype, 0x5A5A5A5A);
            std::vector<T> saved = std::move(m_store[s.buffer]);
            m_store[s.buffer].assign(buf.elements(), poison);
            std::vector<int64_t> savedOrigin = m_origin.count(s.buffer) ? m_origin[s.buffer] : std::vector<int64_t>{};
            std::vector<int64_t> origin(buf.shape.size(), 0);
            for (size_t d = 0; d < buf.shape.size(); ++d)
                origin[d] = buf.origin[d] == lower::kNoIndex ? 0 : ev(buf.origin[d]);
            m_origin[s.buffer] = origin;
            for (int c : s.body)
                exec(c);
            m_store[s.buffer] = std::move(saved);
            m_origin[s.buffer] = std::move(savedOrigin);
            break;
        }
        case Stmt::Kind::Copy:
            if constexpr (std::is_same_v<T, float>) {
                forRegion(s.region, [&](const int64_t* g) { write(s.buffer, g, read(s.src, g)); });
            } else {
                const int64_t shift = m_n.buffers[s.buffer].valueOffset - m_n.buffers[s.src].valueOffset;
                forRegion(s.region, [&](const int64_t* g) { write(s.buffer, g, read(s.src, g) + shift); });
            }
            break;
        case Stmt::Kind::AccInit: {
            int64_t g[kMaxRank], b[kMaxRank];
            for (size_t d = 0; d < s.index.size(); ++d)
                g[d] = ev(s.index[d]);
            T v{};
            if (s.src >= 0) {
                for (size_t d = 0; d < s.srcIndex.size(); ++d)
                    b[d] = ev(s.srcIndex[d]);
                v = read(s.src, b);
            }
            write(s.buffer, g, v);
            break;
        }
        case Stmt::Kind::Load: {
            int64_t g[kMaxRank];
            for (size_t d = 0; d < s.index.size(); ++d)
                g[d] = ev(s.index[d]);
            m_regs[s.reg] = read(s.buffer, g);
            break;
        }
        case Stmt::Kind::Compute: {
            int64_t g[kMaxRank];
            for (size_t d = 0; d < s.index.size(); ++d)
                g[d] = ev(s.index[d]);
            T v = value(s.value);
            if (s.accumulate)
                v = read(s.buffer, g) + v;
            write(s.buffer, g, v);
            break;
        }
        case Stmt::Kind::Fill:
            forRegion(s.region, [&](const int64_t* g) { write(s.buffer, g, static_cast<T>(s.fillValue)); });
            break;
        case Stmt::Kind::Matmul:
            matmul(m_n.matmuls[s.op], id);
            break;
        case Stmt::Kind::AccStore: {
            const auto& st = m_n.kernel->stages[s.stage];
            int64_t g[kMaxRank], a[kMaxRank];
            for (size_t d = 0; d < s.index.size(); ++d)
                g[d] = ev(s.index[d]);
            for (size_t d = 0; d < s.srcIndex.size(); ++d)
                a[d] = ev(s.srcIndex[d]);
            T acc = read(s.src, a);
            if constexpr (!std::is_same_v<T, float>) {
                if (st.requant) {
                    const auto& rq = *st.requant;
                    int64_t c = s.channel != lower::kNoIndex ? ev(s.channel) : 0;
                    int64_t mult = s.multBuffer >= 0 ? read(s.multBuffer, &c) : rq.multiplier.value;
                    int64_t shift = s.shiftBuffer >= 0 ? read(s.shiftBuffer, &c) : rq.shift.value;
                    acc = requantizeValue(acc, static_cast<int32_t>(mult), static_cast<int>(shift), rq.outputOffset, rq.actMin, rq.actMax);
                }
            }
            write(s.buffer, g, acc);
            break;
        }
        }
    }

    /// What the PEs hold between instructions of one Matmul statement: the weights (WS) or the
    /// partial sums (OS) of the block, kept while the loop around it runs.
    struct PeState {
        std::vector<T> values;
    };

    /// One accelerator instruction on a block, by its semantics: A (rows x depth) and B (depth x
    /// cols) read from their buffers (B only when the weights change in WS), C (+)= A x B written
    /// to the accumulator (in OS only when the partial sums leave the array).
    void matmul(const lower::MatmulOp& op, int stmt)
    {
        const int64_t rows = ev(op.rows), cols = ev(op.cols), depth = ev(op.depth);
        if (rows < 1 || cols < 1 || depth < 1 || rows > op.extentI || cols > op.extentJ || depth > op.extentK)
            throw OutOfBounds{"matmul block of " + std::to_string(rows) + "x" + std::to_string(cols) + "x" + std::to_string(depth) + " outside its "
                              + std::to_string(op.extentI) + "x" + std::to_string(op.extentJ) + "x" + std::to_string(op.extentK) + " loops"};
        const int64_t saved[3] = {m_slots[op.slotI], m_slots[op.slotJ], m_slots[op.slotK]};
        int64_t g[kMaxRank];
        auto at = [&](int64_t i, int64_t j, int64_t k, const std::vector<IndexId>& index) {
            m_slots[op.slotI] = i;
            m_slots[op.slotJ] = j;
            m_slots[op.slotK] = k;
            for (size_t d = 0; d < index.size(); ++d)
                g[d] = ev(index[d]);
            return g;
        };
        std::vector<T> a(rows * depth);
        for (int64_t i = 0; i < rows; ++i)
            for (int64_t k = 0; k < depth; ++k)
                a[i * depth + k] = read(op.a, at(i, 0, k, op.aIndex));
        const bool ws = op.dataflow == sched::Dataflow::WeightStationary;
        const int64_t l = op.reuseSlot >= 0 ? m_slots[op.reuseSlot] : 0;
        const bool first = op.reuseSlot < 0 || l == 0;
        const bool last = op.reuseSlot < 0 || l == op.reuseExtent - 1;
        bool overwrite = op.overwriteFirst;
        for (int sl : op.firstSlots)
            overwrite = overwrite && m_slots[sl] == 0;
        PeState& pe = m_pe[stmt];
        std::vector<T> b;
        if (!ws || first) {
            b.assign(depth * cols, T{});
            for (int64_t k = 0; k < depth; ++k)
                for (int64_t j = 0; j < cols; ++j)
                    b[k * cols + j] = read(op.b, at(0, j, k, op.bIndex));
        }
        if (ws && first)
            pe.values = b;  // the weights stay in the PEs
        const std::vector<T>& w = ws ? pe.values : b;
        if (!ws && first)
            pe.values.assign(rows * cols, T{});
        std::vector<T> result(rows * cols, T{});
        for (int64_t i = 0; i < rows; ++i)
            for (int64_t j = 0; j < cols; ++j) {
                T sum{};
                for (int64_t k = 0; k < depth; ++k)
                    sum += a[i * depth + k] * w[k * cols + j];
                result[i * cols + j] = sum;
            }
        if (!ws) {
            for (int64_t e = 0; e < rows * cols; ++e)
                pe.values[e] += result[e];
            result = pe.values;
        }
        if (ws || last)
            for (int64_t i = 0; i < rows; ++i)
                for (int64_t j = 0; j < cols; ++j) {
                    const int64_t* c = at(i, j, 0, op.cIndex);
                    std::vector<int64_t> idx(c, c + op.cIndex.size());
                    write(op.c, idx.data(), overwrite ? result[i * cols + j] : read(op.c, idx.data()) + result[i * cols + j]);
                }
        m_slots[op.slotI] = saved[0];
        m_slots[op.slotJ] = saved[1];
        m_slots[op.slotK] = saved[2];
    }

    const LoopNest& m_n;
    const Dataset& m_in;
    const AccessObserver& m_observer;
    int m_stmt = -1;
    std::map<int, PeState> m_pe;
    std::vector<int64_t> m_slots;
    std::vector<T> m_regs;
    std::vector<std::vector<T>> m_store;
    std::vector<std::vector<int>> m_order;  ///< per buffer: storage order of its dimensions
    std::map<int, std::vector<int64_t>> m_origin;
    std::vector<std::vector<int64_t>> m_read, m_write;
};

} // namespace

InterpretResult interpret(const lower::LoopNest& nest, const Dataset& inputs, const AccessObserver& observer)
{
    if (std::string why = interpretationBudgetError(nest); !why.empty()) {
        InterpretResult r;
        r.error = why;
        return r;
    }
    if (nest.kernel->isFloatKernel())
        return Interpreter<float>(nest, inputs, observer).run();
    return Interpreter<int64_t>(nest, inputs, observer).run();
}

VerifyResult verifyProgram(const sched::Program& program, uint64_t seed)
{
    VerifyResult out;
    const ir::Kernel& k = *program.kernel;
    lower::LoopNest nest = lower::lower(program);
    // Before any tensor is allocated: refuse what would not fit the budget.
    if (std::string why = interpretationBudgetError(nest); !why.empty()) {
        out.message = why;
        return out;
    }
    Dataset inputs = makeInputs(k, seed);
    Dataset want = inputs;
    runReference(k, want);
    InterpretResult got = interpret(nest, inputs);
    if (!got.ok) {
        out.message = "interpreter error: " + got.error;
        return out;
    }
    out.traffic = got.traffic;
    for (size_t t = 0; t < k.tensors.size(); ++t) {
        if (!k.isOutput(static_cast<int>(t)))
            continue;
        int64_t bad = firstMismatch(got.data[t], want[t]);
        if (bad >= 0) {
            out.message = "mismatch at " + indexString(k.tensors[t].name, want[t], bad) + ": got "
                + valueString(got.data[t], bad) + ", expected " + valueString(want[t], bad);
            return out;
        }
    }
    out.ok = true;
    out.message = "OK";
    return out;
}

} // namespace loopscope::verify
