// The pseudo-code printer of the loop-nest IR (`loopscope-cli lower`, the golden files): one
// line per statement, with the buffers' levels, layouts and, in row-addressed memories, rows.
#include "lower/gemmini_layout.h"
#include "lower/loop_nest.h"

#include <sstream>

namespace loopscope::lower {

namespace {

class Printer {
public:
    // The printer builds index expressions (an access relative to its buffer's origin) in a
    // copy of the pool: the nest is shared, read by other threads (the app measures on a worker
    // while the loop nest view prints), and growing its pool would move the nodes they read.
    explicit Printer(const LoopNest& n) : m_n(n), m_ix(n.index)
    {
        m_rows = placeRows(n);
        m_pingPong = pingPongBuffers(n);
        m_halfSlot.assign(n.buffers.size(), -1);
    }

    std::string run()
    {
        const auto& k = *m_n.kernel;
        m_os << "// " << k.name << " on " << m_n.target->name << "\n";
        for (const auto& b : m_n.buffers)
            if (b.role == Buffer::Role::Home)
                m_os << "tensor " << b.name << ": " << levelName(b.level) << ' '
                     << ir::dtypeName(b.dtype) << shapeStr(b.shape) << "  // "
                     << (k.isInput(b.tensor) ? "input" : k.isIntermediate(b.tensor) ? "intermediate" : "output")
                     << "\n";
        stmt(m_n.root, 0);
        return m_os.str();
    }

private:
    std::string levelName(int l) const { return l < 0 ? "registers" : m_n.target->levels[l].name; }
    static std::string shapeStr(const std::vector<int64_t>& s)
    {
        std::string out = "[";
        for (size_t i = 0; i < s.size(); ++i)
            out += (i ? ", " : "") + std::to_string(s[i]);
        return out + "]";
    }
    std::string ix(IndexId id) const { return m_n.index.str(id, m_n.slotNames); }
    std::string access(int buffer, const std::vector<IndexId>& idx)
    {
        const Buffer& b = m_n.buffers[buffer];
        std::string out = b.name + "[";
        for (size_t d = 0; d < idx.size(); ++d) {
            IndexId rel = b.origin[d] == kNoIndex ? idx[d] : m_ix.sub(idx[d], b.origin[d]);
            std::string s = m_ix.str(rel, m_n.slotNames);
            if (b.step[d] != 1)
                s = "(" + s + ") / " + std::to_string(b.step[d]);
            out += (d ? ", " : "") + s;
        }
        return out + "]";
    }
    std::string region(const Region& r) const
    {
        std::string out = "[";
        for (size_t d = 0; d < r.min.size(); ++d) {
            out += d ? ", " : "";
            int64_t c;
            bool single = m_n.index.isConst(r.count[d], &c) && c == 1;
            if (single) {
                out += ix(r.min[d]);
                continue;
            }
            std::string cnt = m_n.index.isConst(r.count[d], &c) ? std::to_string(c) : ix(r.count[d]);
            out += ix(r.min[d]) + " : +" + cnt;
            if (r.step[d] != 1)
                out += " step " + std::to_string(r.step[d]);
        }
        return out + "]";
    }
    std::string value(int v) const
    {
        const ValueNode& n = m_n.values[v];
        switch (n.op) {
        case ValueNode::Op::Const:
            if (m_n.kernel->isFloatKernel()) {
                std::ostringstream os;
                os << n.floatValue;
                return os.str();
            }
            return std::to_string(n.intValue);
        case ValueNode::Op::Reg: return m_n.regNames[n.reg];
        case ValueNode::Op::Add: return "(" + value(n.a) + " + " + value(n.b) + ")";
        case ValueNode::Op::Sub: return "(" + value(n.a) + " - " + value(n.b) + ")";
        case ValueNode::Op::Mul: return value(n.a) + " * " + value(n.b);
        case ValueNode::Op::Neg: return "-" + value(n.a);
        }
        return "?";
    }
    static std::string stripParens(std::string s)
    {
        if (s.size() > 1 && s.front() == '(' && s.back() == ')') {
            int depth = 0;
            for (size_t i = 0; i < s.size(); ++i) {
                depth += s[i] == '(' ? 1 : s[i] == ')' ? -1 : 0;
                if (depth == 0 && i + 1 < s.size())
                    return s;
            }
            return s.substr(1, s.size() - 2);
        }
        return s;
    }
    void line(int depth, const std::string& s) { m_os << std::string(depth * 2, ' ') << s << "\n"; }

    void stmt(int id, int depth)
    {
        const Stmt& s = m_n.stmts[id];
        switch (s.kind) {
        case Stmt::Kind::Block:
            for (int c : s.body)
                stmt(c, depth);
            break;
        case Stmt::Kind::For: {
            std::string kind = s.loopKind == sched::LoopKind::Serial ? "" : std::string("  // ") + sched::loopKindName(s.loopKind);
            line(depth, "for " + s.name + " in 0.." + std::to_string(s.extent) + ":" + (s.reduction ? "  // reduction" : "") + kind);
            m_loops.push_back(s.slot);
            for (int c : s.body)
                stmt(c, depth + 1);
            m_loops.pop_back();
            break;
        }
        case Stmt::Kind::If: {
            std::string cond;
            for (const Cond& c : s.conds) {
                std::string part;
                if (c.lo != kNoIndex)
                    part += ix(c.lo) + " <= ";
                part += ix(c.expr);
                if (c.hi != kNoIndex)
                    part += " <= " + ix(c.hi);
                cond += (cond.empty() ? "" : " && ") + part;
            }
            const Cond::Why w = s.conds.front().why;
            const char* why = w == Cond::Why::Padding ? "padding" : w == Cond::Why::Region ? "region" : w == Cond::Why::Slide ? "sliding window" : "partial tile";
            line(depth, "if " + cond + ":  // " + why);
            for (int c : s.body)
                stmt(c, depth + 1);
            break;
        }
        case Stmt::Kind::Alloc: {
            const Buffer& b = m_n.buffers[s.buffer];
            std::string what = b.role == Buffer::Role::Accumulator ? "accumulator" : b.role == Buffer::Role::Intermediate ? "intermediate" : b.write ? "cache_write" : "cache_read";
            std::string layout;
            if (!b.order.empty()) {
                layout = ", stored as [";
                for (size_t i = 0; i < b.order.size(); ++i)
                    layout += (i ? ", " : "") + std::to_string(b.order[i]);
                layout += "]";
            }
            if (b.role == Buffer::Role::Cache && b.tensor >= 0 && b.dtype != m_n.kernel->tensors[b.tensor].dtype)
                layout += std::string(", widened from ") + ir::dtypeName(m_n.kernel->tensors[b.tensor].dtype)
                          + (b.valueOffset ? ", holds " + m_n.kernel->tensors[b.tensor].name + (b.valueOffset > 0 ? " + " : " - ")
                                                 + std::to_string(b.valueOffset > 0 ? b.valueOffset : -b.valueOffset)
                                           : std::string());
            if (b.rollDim >= 0)
                layout += ", sliding along " + slideLoopName(m_n, b) + ": rows of dimension "
                          + std::to_string(b.rollDim) + " kept modulo " + std::to_string(b.shape[b.rollDim]);
            if (m_pingPong[s.buffer] && !m_loops.empty())
                m_halfSlot[s.buffer] = m_loops.back();
            line(depth, "alloc " + b.name + ": " + levelName(b.level) + ' ' + ir::dtypeName(b.dtype) + shapeStr(b.shape)
                            + (b.doubleBuffer ? " x2" : "") + "  // " + what + (b.doubleBuffer ? ", double-buffered" : "") + layout + rowSpan(s.buffer));
            for (int c : s.body)
                stmt(c, depth);
            break;
        }
        case Stmt::Kind::Copy: {
            const Buffer& src = m_n.buffers[s.src];
            const Buffer& dst = m_n.buffers[s.buffer];
            line(depth, "copy " + m_n.kernel->tensors[src.tensor].name + region(s.region) + ": " + src.name + " -> " + dst.name + "  // "
                            + levelName(src.level) + " -> " + levelName(dst.level) + (s.doubleBuffer ? ", prefetched (double buffer)" : "")
                            + (dst.dtype != src.dtype ? ", widened by the core" : "")
                            + (s.slidePart == 0 ? ", whole tile" : s.slidePart == 1 ? ", new part only (the rest is kept)" : ""));
            break;
        }
        case Stmt::Kind::AccInit: {
            std::string init = s.src >= 0 ? access(s.src, s.srcIndex) : "0";
            line(depth, access(s.buffer, s.index) + " = " + init);
            break;
        }
        case Stmt::Kind::Load:
            line(depth, m_n.regNames[s.reg] + " = " + access(s.buffer, s.index));
            break;
        case Stmt::Kind::Compute:
            line(depth, access(s.buffer, s.index) + (s.accumulate ? " += " : " = ") + stripParens(value(s.value)));
            break;
        case Stmt::Kind::AccStore: {
            const auto& st = m_n.kernel->stages[s.stage];
            std::string acc = access(s.src, s.srcIndex);
            line(depth, access(s.buffer, s.index) + " = " + (st.requant ? "requantize(" + acc + ")" : acc));
            break;
        }
        case Stmt::Kind::Fill: {
            const Buffer& dst = m_n.buffers[s.buffer];
            line(depth, "fill " + m_n.kernel->tensors[dst.tensor].name + region(s.region) + ": " + dst.name + " = " + std::to_string(s.fillValue)
                            + "  // padding halo");
            break;
        }
        case Stmt::Kind::Matmul: matmul(m_n.matmuls[s.op], depth); break;
        }
    }

    /// "matmul C_accumulator[...] += A_scratchpad[...] x B_scratchpad[...]  // gemmini_matmul 16x16x16, ...".
    void matmul(const MatmulOp& op, int depth)
    {
        auto operand = [&](int b, const Region& r) { return m_n.buffers[b].name + region(r); };
        const bool ws = op.dataflow == sched::Dataflow::WeightStationary;
        std::string note = "gemmini_matmul " + std::to_string(op.extentI) + "x" + std::to_string(op.extentJ) + "x" + std::to_string(op.extentK) + ", "
            + sched::dataflowName(op.dataflow);
        if (op.reuseSlot >= 0)
            note += std::string(ws ? ", weights kept across " : ", partial sums kept across ") + m_n.slotNames[op.reuseSlot];
        if (op.overwriteFirst) {
            std::string first;
            for (int sl : op.firstSlots)
                first += (first.empty() ? "" : " && ") + m_n.slotNames[sl] + " == 0";
            note += first.empty() ? ", overwrites" : ", overwrites when " + first;
        }
        note += "  // rows: " + m_n.buffers[op.a].name + " " + firstRow(op.a, op.aRegion) + "; " + m_n.buffers[op.b].name + " " + firstRow(op.b, op.bRegion) + "; "
            + m_n.buffers[op.c].name + " " + firstRow(op.c, op.cRegion);
        line(depth, "matmul " + operand(op.c, op.cRegion) + " += " + operand(op.a, op.aRegion) + " * " + operand(op.b, op.bRegion) + "  // " + note);
    }

    /// ", rows 0..1023" (", rows 1024..1279 | 1280..1535" for the two halves of a double buffer)
    /// for a buffer in a row-addressed level: the local addresses the exported code uses.
    std::string rowSpan(int buffer) const
    {
        const RowPlacement& r = m_rows[buffer];
        if (r.level < 0)
            return "";
        auto span = [](int64_t from, int64_t n) { return n == 1 ? std::to_string(from) : std::to_string(from) + ".." + std::to_string(from + n - 1); };
        return (r.rows == 1 && !r.doubled ? ", row " : ", rows ") + span(r.base, r.rows) + (r.doubled ? " | " + span(r.base + r.rows, r.rows) : "");
    }

    /// The row a matmul operand's block starts at ("1024 + k.outer*16 (+256 when j.outer is odd)").
    std::string firstRow(int buffer, const Region& r)
    {
        const RowPlacement& p = m_rows[buffer];
        if (p.level < 0)
            return "?";
        const IndexId row = m_ix.addConst(rowIndex(m_ix, *m_n.target, m_n.buffers[buffer], r.min), p.base);
        std::string text = m_ix.str(row, m_n.slotNames);
        if (p.doubled && m_halfSlot[buffer] >= 0)
            text += " (+" + std::to_string(p.rows) + " when " + m_n.slotNames[m_halfSlot[buffer]] + " is odd)";
        return text;
    }

    const LoopNest& m_n;
    IndexPool m_ix;
    std::ostringstream m_os;
    std::vector<RowPlacement> m_rows;   ///< rows of buffers in row-addressed levels (placeRows)
    std::vector<bool> m_pingPong;
    std::vector<int> m_halfSlot;        ///< per ping-pong buffer, the loop whose parity picks its half
    std::vector<int> m_loops;           ///< slots of the loops around the statement printed
};

} // namespace

std::string print(const LoopNest& nest) { return Printer(nest).run(); }

} // namespace loopscope::lower
