// C99 generator: walks the lowered loop nest and prints the code it describes, so that what
// the cost model counts is what the firmware does (every transfer goes through the DMA hooks).
#include "codegen/c_codegen.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <sstream>

namespace loopscope::codegen {

using lower::Buffer;
using lower::Cond;
using lower::IndexId;
using lower::IndexPool;
using lower::kNoIndex;
using lower::LoopNest;
using lower::Stmt;
using lower::ValueNode;

std::string cIdentifier(const std::string& name)
{
    std::string out;
    for (char c : name)
        out += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
    if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0])))
        out = "k_" + out;
    return out;
}

namespace {

const char* cType(ir::DType t)
{
    switch (t) {
    case ir::DType::Int8: return "int8_t";
    case ir::DType::Int16: return "int16_t";
    case ir::DType::Int32: return "int32_t";
    case ir::DType::Float32: return "float";
    }
    return "int32_t";
}

std::string upper(std::string s)
{
    for (char& c : s)
        c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return s;
}

std::string floatLiteral(double v)
{
    std::ostringstream os;
    os.precision(9);
    os << v;
    std::string s = os.str();
    if (s.find_first_of(".eEn") == std::string::npos)
        s += ".0";
    return s + "f";
}

/// Requantize and floor-division helpers shared by the kernel and the harness.
const char* kHelpers = R"(#define LS_MIN(a, b) ((a) < (b) ? (a) : (b))
#define LS_MAX(a, b) ((a) > (b) ? (a) : (b))

static inline int ls_floordiv(int a, int b) { int q = a / b; return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q; }
static inline int ls_floormod(int a, int b) { return a - ls_floordiv(a, b) * b; }

/* TFLite's MultiplyByQuantizedMultiplier (SaturatingRoundingDoublingHighMul, then
   RoundingDivideByPOT), bit-exact, followed by the output offset and the activation clamp. */
static inline int32_t ls_requantize(int32_t acc, int32_t multiplier, int32_t shift, int32_t offset, int32_t lo, int32_t hi)
{
    int left = shift > 0 ? (shift > 31 ? 31 : (int)shift) : 0;
    int right = shift > 0 ? 0 : (-shift > 31 ? 31 : (int)-shift);
    int32_t x = (int32_t)((uint32_t)acc << left);
    int64_t ab = (int64_t)x * (int64_t)multiplier;
    int32_t nudge = ab >= 0 ? (1 << 30) : (1 - (1 << 30));
    int32_t high = (x == multiplier && x == INT32_MIN) ? INT32_MAX : (int32_t)((ab + nudge) / ((int64_t)1 << 31));
    int32_t mask = (int32_t)(((int64_t)1 << right) - 1);
    int32_t rem = high & mask;
    int32_t threshold = (mask >> 1) + (high < 0 ? 1 : 0);
    int32_t v = (high >> right) + (rem > threshold ? 1 : 0) + offset;
    return v < lo ? lo : (v > hi ? hi : v);
}
)";

struct Transfer {
    int tensor, from, to;
    bool operator<(const Transfer& o) const { return std::tie(tensor, from, to) < std::tie(o.tensor, o.from, o.to); }
};

/// Transfers (tensor, from, to) of a nest, in first-use order; the id is the index.
std::vector<Transfer> transfersOf(const LoopNest& n)
{
    std::vector<Transfer> out;
    for (const Stmt& s : n.stmts)
        if (s.kind == Stmt::Kind::Copy) {
            Transfer t{n.buffers[s.src].tensor, n.buffers[s.src].level, n.buffers[s.buffer].level};
            bool seen = false;
            for (const auto& o : out)
                seen = seen || (o.tensor == t.tensor && o.from == t.from && o.to == t.to);
            if (!seen)
                out.push_back(t);
        }
    return out;
}

/// Tensors passed to the kernel function: every home buffer, in kernel order.
std::vector<int> parameters(const LoopNest& n)
{
    std::vector<int> out;
    for (size_t t = 0; t < n.kernel->tensors.size(); ++t)
        for (const Buffer& b : n.buffers)
            if (b.role == Buffer::Role::Home && b.tensor == static_cast<int>(t)) {
                out.push_back(static_cast<int>(t));
                break;
            }
    return out;
}

std::string signature(const LoopNest& n)
{
    const ir::Kernel& k = *n.kernel;
    std::string s = "void " + cIdentifier(k.name) + "(";
    bool first = true;
    for (int t : parameters(n)) {
        const ir::Tensor& ten = k.tensors[t];
        bool input = k.isInput(t);
        s += std::string(first ? "" : ", ") + (input ? "const " : "") + cType(ten.dtype) + " *LOOPSCOPE_RESTRICT " + cIdentifier(ten.name);
        first = false;
    }
    return s + ")";
}

std::string shapeText(const std::vector<int64_t>& shape)
{
    std::string s = "[";
    for (size_t i = 0; i < shape.size(); ++i)
        s += (i ? "][" : "") + std::to_string(shape[i]);
    return s + "]";
}

class SourceWriter {
public:
    explicit SourceWriter(const LoopNest& n) : m_n(n), m_k(*n.kernel), m_ix(n.index)
    {
        nameThings();
        m_transfers = transfersOf(n);
        prepareDoubleBuffers(n.root, {}, {});
    }

    std::string run()
    {
        const std::string kid = cIdentifier(m_k.name);
        std::ostringstream os;
        os << "/* " << kid << ".c: generated by Loopscope from a schedule of " << m_k.name << " for " << m_n.target->name << ".\n"
           << "   The loop nest, its buffers and its transfers are those the cost model counted. */\n"
           << "#include \"" << kid << ".h\"\n\n#include <stddef.h>\n#include <stdint.h>\n#include <string.h>\n\n";
        os << "/* Section and alignment of on-chip buffers: define these to place them (e.g. in a linker section). */\n";
        for (size_t l = 0; l < m_n.target->levels.size(); ++l) {
            std::string macro = "LOOPSCOPE_" + upper(cIdentifier(m_n.target->levels[l].name));
            os << "#ifndef " << macro << "\n#define " << macro << "\n#endif\n";
        }
        os << "#ifndef LOOPSCOPE_ALIGNED\n#define LOOPSCOPE_ALIGNED(n) __attribute__((aligned(n)))\n#endif\n"
           << "/* Loop hooks: LOOPSCOPE_PARALLEL precedes parallel loops (e.g. _Pragma(\"omp parallel for\")),\n"
           << "   LOOPSCOPE_VECTORIZE precedes vectorized loops. */\n"
           << "/* Arm DSP extension (SMLAD): used for vectorized int8 reductions unless LOOPSCOPE_NO_DSP. */\n"
           << "#if defined(__ARM_FEATURE_DSP) && !defined(LOOPSCOPE_NO_DSP)\n#include <arm_acle.h>\n#define LOOPSCOPE_USE_DSP 1\n"
           << "/* PKHBT and SXTAB16 with a rotation, which ACLE does not offer (the forms CMSIS-Core uses). */\n"
           << "static inline int32_t ls_pkhbt(int32_t lo, int32_t hi)\n{\n    int32_t r;\n    __asm__(\"pkhbt %0, %1, %2, lsl #16\" : \"=r\"(r) : \"r\"(lo), \"r\"(hi));\n    return r;\n}\n"
           << "static inline int32_t ls_sxtab16_ror8(int32_t a, int32_t b)\n{\n    int32_t r;\n    __asm__(\"sxtab16 %0, %1, %2, ror #8\" : \"=r\"(r) : \"r\"(a), \"r\"(b));\n    return r;\n}\n"
           << "#else\n#define LOOPSCOPE_USE_DSP 0\n#endif\n"
           << "#ifndef LOOPSCOPE_PARALLEL\n#define LOOPSCOPE_PARALLEL\n#endif\n"
           << "#ifndef LOOPSCOPE_VECTORIZE\n#if defined(__GNUC__) && !defined(__clang__)\n#define LOOPSCOPE_VECTORIZE _Pragma(\"GCC ivdep\")\n#else\n#define LOOPSCOPE_VECTORIZE\n#endif\n#endif\n\n";
        os << "/* DMA hooks. Every transfer between memory levels goes through loopscope_dma_copy (a strided\n"
           << "   2-D copy: `rows` rows of `row_bytes`, strides in bytes) and loopscope_dma_wait (wait for\n"
           << "   every copy started). These defaults are synchronous memcpy; they are weak, so defining the two\n"
           << "   functions elsewhere (a DMA driver) replaces them. Define LOOPSCOPE_NO_DEFAULT_DMA to omit them.\n"
           << "   `transfer` indexes " << kid << "_transfers. */\n"
           << "#ifndef LOOPSCOPE_NO_DEFAULT_DMA\n"
           << "#ifndef LOOPSCOPE_WEAK\n#define LOOPSCOPE_WEAK __attribute__((weak))\n#endif\n"
           << "LOOPSCOPE_WEAK void loopscope_dma_copy(void *dst, const void *src, size_t row_bytes, size_t rows,\n"
           << "                                      size_t dst_stride, size_t src_stride, int transfer)\n{\n"
           << "    size_t r;\n    (void)transfer;\n"
           << "    for (r = 0; r < rows; ++r)\n"
           << "        memcpy((char *)dst + r * dst_stride, (const char *)src + r * src_stride, row_bytes);\n}\n"
           << "LOOPSCOPE_WEAK void loopscope_dma_wait(void) {}\n#endif\n\n";
        os << "const char *const " << kid << "_transfers[" << std::max<size_t>(1, m_transfers.size()) << "] = {";
        for (size_t i = 0; i < m_transfers.size(); ++i)
            os << (i ? ", " : "") << "\"" << m_k.tensors[m_transfers[i].tensor].name << " " << levelName(m_transfers[i].from) << " "
               << levelName(m_transfers[i].to) << "\"";
        if (m_transfers.empty())
            os << "\"\"";
        os << "};\n\n" << kHelpers << "\n";
        // Static buffers of on-chip levels.
        for (size_t b = 0; b < m_n.buffers.size(); ++b) {
            const Buffer& buf = m_n.buffers[b];
            if (buf.role == Buffer::Role::Home || buf.level < 0)
                continue;
            std::string macro = "LOOPSCOPE_" + upper(cIdentifier(m_n.target->levels[buf.level].name));
            os << "static " << cType(buf.dtype) << " " << m_bufName[b] << (buf.doubleBuffer ? "[2]" : "") << "[" << buf.elements() << "] "
               << macro << " LOOPSCOPE_ALIGNED(" << std::max<int64_t>(4, m_n.target->constraints.alignmentBytes) << ");  /* "
               << (buf.role == Buffer::Role::Accumulator ? "accumulator" : buf.role == Buffer::Role::Intermediate ? "intermediate" : buf.write ? "cache_write" : "cache_read")
               << " of " << m_k.tensors[buf.tensor].name << shapeText(buf.shape) << " in " << levelName(buf.level) << (buf.doubleBuffer ? ", double-buffered" : "") << " */\n";
        }
        os << "\n" << signature(m_n) << "\n{\n";
        m_os = &os;
        m_indent = 1;
        stmt(m_n.root);
        os << "}\n";
        return os.str();
    }

private:
    std::string levelName(int l) const { return l < 0 ? "registers" : m_n.target->levels[l].name; }

    void nameThings()
    {
        std::set<std::string> used;
        for (const auto& t : m_k.tensors)
            used.insert(cIdentifier(t.name));
        used.insert(cIdentifier(m_k.name));
        auto unique = [&](std::string base) {
            std::string name = base;
            for (int i = 2; used.count(name); ++i)
                name = base + "_" + std::to_string(i);
            used.insert(name);
            return name;
        };
        for (const auto& s : m_n.slotNames)
            m_slot.push_back(unique(cIdentifier(s)));
        for (size_t b = 0; b < m_n.buffers.size(); ++b) {
            const Buffer& buf = m_n.buffers[b];
            if (buf.role == Buffer::Role::Home)
                m_bufName[static_cast<int>(b)] = cIdentifier(buf.name);
            else
                m_bufName[static_cast<int>(b)] = unique(cIdentifier(buf.role == Buffer::Role::Accumulator ? "acc_" + m_k.tensors[buf.tensor].name : buf.name));
        }
        for (const auto& r : m_n.regNames)
            m_reg.push_back(unique("r_" + cIdentifier(r)));
    }

    // ---- expressions ----------------------------------------------------------------------

    std::string slotText(int s) const
    {
        auto it = m_override.find(s);
        if (it != m_override.end())
            return it->second;
        return s < static_cast<int>(m_slot.size()) ? m_slot[s] : m_temp.at(s);
    }

    std::string ix(IndexId id) const
    {
        const IndexPool::Node& n = m_ix.node(id);
        switch (n.op) {
        case IndexPool::Node::Op::Linear: {
            std::string out;
            for (const auto& t : n.terms) {
                std::string atom = t.atom >= 0 ? slotText(t.atom) : ix(-t.atom - 1);
                int64_t c = t.coeff;
                std::string term = c == 1 || c == -1 ? atom : atom + " * " + std::to_string(c < 0 ? -c : c);
                if (out.empty())
                    out = c < 0 ? "-" + term : term;
                else
                    out += (c < 0 ? " - " : " + ") + term;
            }
            if (out.empty())
                return std::to_string(n.constant);
            if (n.constant > 0)
                out += " + " + std::to_string(n.constant);
            else if (n.constant < 0)
                out += " - " + std::to_string(-n.constant);
            return n.terms.size() == 1 && n.constant == 0 && n.terms[0].coeff == 1 ? out : "(" + out + ")";
        }
        case IndexPool::Node::Op::Div:
        case IndexPool::Node::Op::Mod: {
            bool nonNegative = m_ix.bounds(n.a, m_n.slotExtents).first >= 0;
            bool div = n.op == IndexPool::Node::Op::Div;
            if (nonNegative)
                return "(" + ix(n.a) + (div ? " / " : " % ") + std::to_string(n.constant) + ")";
            return std::string(div ? "ls_floordiv(" : "ls_floormod(") + ix(n.a) + ", " + std::to_string(n.constant) + ")";
        }
        case IndexPool::Node::Op::Min: return "LS_MIN(" + ix(n.a) + ", " + ix(n.b) + ")";
        case IndexPool::Node::Op::Max: return "LS_MAX(" + ix(n.a) + ", " + ix(n.b) + ")";
        }
        return "0";
    }

    static std::string strip(std::string s)
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

    /// Flat element offset of a global tensor index in a buffer.
    IndexId flat(int b, const std::vector<IndexId>& global)
    {
        const Buffer& buf = m_n.buffers[b];
        IndexId off = m_ix.constant(0);
        for (int d : buf.storageOrder()) {
            IndexId g = d < static_cast<int>(global.size()) ? global[d] : m_ix.constant(0);
            IndexId origin = buf.origin[d];
            // Inside the buffer's scope a non-affine origin is a named local (see alloc()).
            auto& names = m_override.empty() ? m_originSlot : m_nextOriginSlot;
            auto named = names.find({b, static_cast<int>(d)});
            if (origin != kNoIndex && named != names.end())
                origin = m_ix.slot(named->second);
            IndexId rel = origin == kNoIndex ? g : m_ix.sub(g, origin);
            IndexId local = m_ix.div(rel, buf.step[d]);
            off = m_ix.add(m_ix.mul(off, buf.shape[d]), local);
        }
        return off;
    }

    std::string select(int b) const
    {
        const Buffer& buf = m_n.buffers[b];
        if (!buf.doubleBuffer)
            return "";
        auto it = m_dbSelect.find(b);
        return it == m_dbSelect.end() ? "[0]" : "[" + it->second + "]";
    }

    std::string access(int b, const std::vector<IndexId>& global)
    {
        const Buffer& buf = m_n.buffers[b];
        if (buf.level < 0 && buf.elements() == 1)
            return m_bufName[b];
        return m_bufName[b] + select(b) + "[" + strip(ix(flat(b, global))) + "]";
    }

    std::string value(int v) const
    {
        const ValueNode& n = m_n.values[v];
        switch (n.op) {
        case ValueNode::Op::Const: return m_k.isFloatKernel() ? floatLiteral(n.floatValue) : std::to_string(n.intValue);
        case ValueNode::Op::Reg: return m_reg[n.reg];
        case ValueNode::Op::Add: return "(" + value(n.a) + " + " + value(n.b) + ")";
        case ValueNode::Op::Sub: return "(" + value(n.a) + " - " + value(n.b) + ")";
        case ValueNode::Op::Mul: return "(" + value(n.a) + " * " + value(n.b) + ")";
        case ValueNode::Op::Neg: return "(-" + value(n.a) + ")";
        }
        return "0";
    }

    std::string conds(const std::vector<Cond>& cs) const
    {
        std::string out;
        for (const Cond& c : cs) {
            if (c.lo != kNoIndex)
                out += (out.empty() ? "" : " && ") + strip(ix(c.lo)) + " <= " + strip(ix(c.expr));
            if (c.hi != kNoIndex)
                out += (out.empty() ? "" : " && ") + strip(ix(c.expr)) + " <= " + strip(ix(c.hi));
        }
        return out.empty() ? "1" : out;
    }

    // ---- double buffering -------------------------------------------------------------------

    struct DoubleBuffer {
        int loop = -1;             ///< the For statement whose iterations ping-pong
        std::vector<Cond> guards;  ///< conditions between that loop and the buffer
    };

    void prepareDoubleBuffers(int id, std::vector<int> loops, std::vector<Cond> guards)
    {
        const Stmt& s = m_n.stmts[id];
        if (s.kind == Stmt::Kind::For) {
            loops.push_back(id);
            guards.clear();
        }
        if (s.kind == Stmt::Kind::If)
            guards.insert(guards.end(), s.conds.begin(), s.conds.end());
        if (s.kind == Stmt::Kind::Alloc && m_n.buffers[s.buffer].doubleBuffer && !loops.empty()) {
            const Buffer& b = m_n.buffers[s.buffer];
            // Prefetching the next tile needs its source to exist already: a buffer allocated
            // outside the ping-pong loop.
            bool sourceOutside = true;
            for (int c : s.body)
                if (m_n.stmts[c].kind == Stmt::Kind::Copy && !b.write) {
                    int src = m_n.stmts[c].src;
                    sourceOutside = m_n.buffers[src].role == Buffer::Role::Home || allocatedOutside(src, loops.back());
                }
            if (sourceOutside) {
                m_db[s.buffer] = DoubleBuffer{loops.back(), guards};
                m_loopHasDb.insert(loops.back());
            }
        }
        for (int c : s.body)
            prepareDoubleBuffers(c, loops, guards);
    }

    bool allocatedOutside(int buffer, int loopStmt) const
    {
        // The buffer's Alloc is not inside the loop statement's subtree.
        std::vector<int> todo{loopStmt};
        while (!todo.empty()) {
            int id = todo.back();
            todo.pop_back();
            const Stmt& s = m_n.stmts[id];
            if (s.kind == Stmt::Kind::Alloc && s.buffer == buffer)
                return false;
            todo.insert(todo.end(), s.body.begin(), s.body.end());
        }
        return true;
    }

    /// A new slot for a C local used in index expressions (block-scoped names may repeat).
    int newTemp(const std::string& name)
    {
        int slot = static_cast<int>(m_slot.size() + 1000 + m_temp.size());
        m_temp[slot] = name;
        return slot;
    }

    // ---- statements -----------------------------------------------------------------------

    void line(const std::string& s) { *m_os << std::string(m_indent * 4, ' ') << s << "\n"; }

    void body(const Stmt& s)
    {
        for (int c : s.body)
            stmt(c);
    }

    void stmt(int id)
    {
        const Stmt& s = m_n.stmts[id];
        switch (s.kind) {
        case Stmt::Kind::Block: body(s); break;
        case Stmt::Kind::For: forLoop(id, s); break;
        case Stmt::Kind::If:
            line("if (" + conds(s.conds) + ") {");
            ++m_indent;
            body(s);
            --m_indent;
            line("}");
            break;
        case Stmt::Kind::Alloc: alloc(s); break;
        case Stmt::Kind::Copy: copy(id, s); break;
        case Stmt::Kind::AccInit: {
            std::string v = "0";
            if (s.src >= 0)
                v = access(s.src, s.srcIndex);
            else if (m_k.isFloatKernel())
                v = "0.0f";
            line(access(s.buffer, s.index) + " = " + v + ";");
            break;
        }
        case Stmt::Kind::Load: {
            const Buffer& b = m_n.buffers[s.buffer];
            const char* t = ir::isFloat(b.dtype) ? "float" : "int32_t";
            line("const " + std::string(t) + " " + m_reg[s.reg] + " = " + access(s.buffer, s.index) + ";");
            break;
        }
        case Stmt::Kind::Compute: {
            const Buffer& b = m_n.buffers[s.buffer];
            std::string v = strip(value(s.value));
            if (s.accumulate)
                line(access(s.buffer, s.index) + " += " + (ir::isFloat(b.dtype) || b.dtype == ir::DType::Int32 ? v : "(" + std::string(cType(b.dtype)) + ")(" + v + ")") + ";");
            else
                line(access(s.buffer, s.index) + " = (" + cType(b.dtype) + ")(" + v + ");");
            break;
        }
        case Stmt::Kind::AccStore: {
            const Buffer& dst = m_n.buffers[s.buffer];
            const auto& st = m_k.stages[s.stage];
            std::string acc = access(s.src, s.srcIndex);
            if (st.requant) {
                const auto& rq = *st.requant;
                std::string mult = s.multBuffer >= 0 ? access(s.multBuffer, {s.channel}) : std::to_string(rq.multiplier.value);
                std::string shift = s.shiftBuffer >= 0 ? access(s.shiftBuffer, {s.channel}) : std::to_string(rq.shift.value);
                acc = "ls_requantize(" + acc + ", " + mult + ", " + shift + ", " + std::to_string(rq.outputOffset) + ", " + std::to_string(rq.actMin) + ", "
                    + std::to_string(rq.actMax) + ")";
            }
            line(access(s.buffer, s.index) + " = (" + cType(dst.dtype) + ")" + (st.requant ? acc : "(" + acc + ")") + ";");
            break;
        }
        }
    }

    /// One int8 operand of a vectorized multiply-accumulate: a load, plus a constant offset.
    struct DspOperand {
        const Stmt* load = nullptr;
        int64_t offset = 0;
    };

    bool dspOperand(int valueId, const std::map<int, const Stmt*>& loads, DspOperand& out) const
    {
        const ValueNode& v = m_n.values[valueId];
        auto loaded = [&](int id) -> const Stmt* {
            const ValueNode& r = m_n.values[id];
            if (r.op != ValueNode::Op::Reg)
                return nullptr;
            auto it = loads.find(r.reg);
            return it == loads.end() ? nullptr : it->second;
        };
        if (const Stmt* l = loaded(valueId)) {
            out = {l, 0};
            return true;
        }
        if ((v.op == ValueNode::Op::Add || v.op == ValueNode::Op::Sub) && m_n.values[v.b].op == ValueNode::Op::Const) {
            const Stmt* l = loaded(v.a);
            int64_t c = m_n.values[v.b].intValue * (v.op == ValueNode::Op::Sub ? -1 : 1);
            if (l && c >= -32768 + 128 && c <= 32767 - 128) {
                out = {l, c};
                return true;
            }
        }
        return false;
    }

    /// The Arm DSP path of a vectorized int8 reduction `acc += (x + c) * (y + d)`: four lanes
    /// per step, unpacked to int16 pairs (SXTAB16 for contiguous operands, PKHBT otherwise) and
    /// accumulated two MACs per SMLAD. Emits "#if LOOPSCOPE_USE_DSP" and the DSP loop and
    /// returns true; the caller then writes the plain loop after "#else".
    bool emitDsp(const Stmt& s)
    {
        if (!m_n.target->compute.dsp || !s.reduction || s.extent % 4 != 0)
            return false;
        std::map<int, const Stmt*> loads;
        const Stmt* update = nullptr;
        for (int c : s.body) {
            const Stmt& b = m_n.stmts[c];
            if (b.kind == Stmt::Kind::Load && m_n.buffers[b.buffer].dtype == ir::DType::Int8)
                loads[b.reg] = &b;
            else if (b.kind == Stmt::Kind::Compute && b.accumulate && !update)
                update = &b;
            else
                return false;
        }
        if (!update || m_n.buffers[update->buffer].dtype != ir::DType::Int32)
            return false;
        const ValueNode& mul = m_n.values[update->value];
        DspOperand x, y;
        if (mul.op != ValueNode::Op::Mul || !dspOperand(mul.a, loads, x) || !dspOperand(mul.b, loads, y))
            return false;
        // Each operand's offset must be affine in the vectorized loop: element distance `stride`.
        auto strideOf = [&](const Stmt& l, int64_t& stride) {
            IndexId off = flat(l.buffer, l.index);
            if (!m_ix.isPureLinear(off))
                return false;
            stride = 0;
            for (const auto& t : m_ix.node(off).terms)
                if (t.atom == s.slot)
                    stride = t.coeff;
            return stride != 0;
        };
        int64_t sx, sy;
        if (!strideOf(*x.load, sx) || !strideOf(*y.load, sy))
            return false;
        const std::string v = m_slot[s.slot];
        const std::string acc = access(update->buffer, update->index);
        line("#if LOOPSCOPE_USE_DSP");
        line("/* " + s.name + ": vectorized int8 multiply-accumulate, 2 MACs per SMLAD */");
        line("for (int " + v + " = 0; " + v + " < " + std::to_string(s.extent) + "; " + v + " += 4) {");
        ++m_indent;
        auto pack = [&](const DspOperand& o, int64_t stride, const std::string& name) {
            const std::string base = "&" + m_bufName[o.load->buffer] + select(o.load->buffer) + "[" + strip(ix(flat(o.load->buffer, o.load->index))) + "]";
            const std::string c2 = "(int32_t)0x" + [&] {
                char buf[16];
                std::snprintf(buf, sizeof buf, "%08x", static_cast<unsigned>(((o.offset & 0xffff) << 16) | (o.offset & 0xffff)));
                return std::string(buf);
            }();
            if (stride == 1) {
                line("uint32_t " + name + "w;");
                line("memcpy(&" + name + "w, " + base + ", 4);");
                line("const int32_t " + name + "02 = __sxtab16(" + c2 + ", (int32_t)" + name + "w);");
                line("const int32_t " + name + "13 = ls_sxtab16_ror8(" + c2 + ", (int32_t)" + name + "w);");
            } else {
                line("const int8_t *" + name + "p = " + base + ";");
                auto half = [&](int i, int j) {
                    return "ls_pkhbt(" + name + "p[" + std::to_string(i * stride) + "], " + name + "p[" + std::to_string(j * stride) + "])";
                };
                if (o.offset == 0) {
                    line("const int32_t " + name + "02 = " + half(0, 2) + ";");
                    line("const int32_t " + name + "13 = " + half(1, 3) + ";");
                } else {
                    line("const int32_t " + name + "02 = __sadd16(" + half(0, 2) + ", " + c2 + ");");
                    line("const int32_t " + name + "13 = __sadd16(" + half(1, 3) + ", " + c2 + ");");
                }
            }
        };
        pack(x, sx, "lx");
        pack(y, sy, "ly");
        line(acc + " = __smlad(lx02, ly02, " + acc + ");");
        line(acc + " = __smlad(lx13, ly13, " + acc + ");");
        --m_indent;
        line("}");
        return true;
    }

    void forLoop(int id, const Stmt& s)
    {
        const std::string v = m_slot[s.slot];
        if (s.loopKind == sched::LoopKind::Unrolled) {
            line("/* " + s.name + ": unrolled */");
            for (const auto& [buffer, db] : m_db)
                if (db.loop == id && !m_n.buffers[buffer].write)
                    line("int " + m_bufName[buffer] + "_ready = 0;  /* tile prefetched by the previous iteration */");
            for (int64_t i = 0; i < s.extent; ++i) {
                line("{");
                ++m_indent;
                line("const int " + v + " = " + std::to_string(i) + ";");
                body(s);
                --m_indent;
                line("}");
            }
        } else {
            for (const auto& [buffer, db] : m_db)
                if (db.loop == id && !m_n.buffers[buffer].write)
                    line("int " + m_bufName[buffer] + "_ready = 0;  /* tile prefetched by the previous iteration */");
            if (s.loopKind == sched::LoopKind::Parallel)
                line("LOOPSCOPE_PARALLEL");
            const bool dsp = s.loopKind == sched::LoopKind::Vectorized && emitDsp(s);
            if (dsp)
                line("#else");
            if (s.loopKind == sched::LoopKind::Vectorized)
                line("LOOPSCOPE_VECTORIZE");
            line("for (int " + v + " = 0; " + v + " < " + std::to_string(s.extent) + "; ++" + v + ") {");
            ++m_indent;
            body(s);
            --m_indent;
            line("}");
            if (dsp)
                line("#endif");
        }
        if (m_loopHasDb.count(id))
            line("loopscope_dma_wait();  /* last ping-pong transfers of " + s.name + " */");
    }

    void alloc(const Stmt& s)
    {
        const Buffer& b = m_n.buffers[s.buffer];
        auto db = m_db.find(s.buffer);
        if (db != m_db.end())
            m_dbSelect[s.buffer] = "(" + m_slot[m_n.stmts[db->second.loop].slot] + " & 1)";
        for (size_t d = 0; d < b.origin.size(); ++d) {
            if (b.origin[d] == kNoIndex || m_ix.isPureLinear(b.origin[d]))
                continue;
            int slot = newTemp(m_bufName[s.buffer] + "_o" + std::to_string(d));
            line("const int " + m_temp[slot] + " = " + strip(ix(b.origin[d])) + ";  /* where " + m_bufName[s.buffer] + " starts along dimension " + std::to_string(d) + " */");
            m_originSlot[{s.buffer, static_cast<int>(d)}] = slot;
        }
        if (b.level < 0) {
            // Accumulator in registers: a local the compiler keeps in registers.
            line("{");
            ++m_indent;
            const char* t = cType(b.dtype);
            if (b.elements() == 1)
                line(std::string(t) + " " + m_bufName[s.buffer] + ";");
            else
                line(std::string(t) + " " + m_bufName[s.buffer] + "[" + std::to_string(b.elements()) + "];");
            body(s);
            --m_indent;
            line("}");
            return;
        }
        body(s);
    }

    /// Emits the hook calls moving a region from src to dst. `slotOverride` evaluates the
    /// region for another iteration (the next tile of a double buffer).
    void copyRegion(const Stmt& s, int transfer, const std::string& dstSelect)
    {
        const Buffer& src = m_n.buffers[s.src];
        const Buffer& dst = m_n.buffers[s.buffer];
        const size_t dims = s.region.min.size();
        const int64_t esize = ir::dtypeBytes(dst.dtype);
        line("{");
        ++m_indent;
        std::string nonEmpty;
        std::vector<IndexId> mins(dims);
        for (size_t d = 0; d < dims; ++d) {
            line("const int n" + std::to_string(d) + " = " + strip(ix(s.region.count[d])) + ";");
            nonEmpty += (d ? " && " : "") + std::string("n") + std::to_string(d) + " > 0";
            mins[d] = s.region.min[d];
            if (!m_ix.isPureLinear(mins[d])) {
                int slot = newTemp("m" + std::to_string(d));
                line("const int " + m_temp[slot] + " = " + strip(ix(mins[d])) + ";");
                mins[d] = m_ix.slot(slot);
            }
        }
        // Element distance between neighbours of dimension d in a buffer.
        auto stride = [&](const Buffer& b, size_t d) {
            // Elements between neighbours along d: the dimensions stored inside it.
            const std::vector<int> order = b.storageOrder();
            int64_t inner = 1;
            bool inside = false;
            for (int e : order) {
                if (inside)
                    inner *= b.shape[e];
                inside = inside || e == static_cast<int>(d);
            }
            return s.region.step[d] / b.step[d] * inner;
        };
        const size_t last = dims - 1;
        // Rows are the last dimension when it is contiguous in both buffers (then the one
        // before it gives the row count), else single elements along the last dimension.
        const bool rowContiguous = stride(src, last) == 1 && stride(dst, last) == 1;
        const bool hasRowDim = !rowContiguous || dims >= 2;
        const size_t rowDim = rowContiguous ? last - 1 : last;
        const size_t outerDims = rowContiguous ? (dims >= 2 ? last - 1 : 0) : last;
        std::string rowBytes = rowContiguous ? "(size_t)n" + std::to_string(last) + " * " + std::to_string(esize) : std::to_string(esize);
        std::string rows = hasRowDim ? "(size_t)n" + std::to_string(rowDim) : "1";
        std::string dstStride = hasRowDim ? std::to_string(stride(dst, rowDim) * esize) : "0";
        std::string srcStride = hasRowDim ? std::to_string(stride(src, rowDim) * esize) : "0";
        line("if (" + nonEmpty + ") {");
        ++m_indent;
        std::vector<IndexId> g(dims);
        int opened = 0;
        for (size_t d = 0; d < dims; ++d) {
            if (d < outerDims) {
                int tslot = newTemp("t" + std::to_string(d));
                const std::string& t = m_temp[tslot];
                line("for (int " + t + " = 0; " + t + " < n" + std::to_string(d) + "; ++" + t + ") {");
                ++m_indent;
                ++opened;
                g[d] = m_ix.add(mins[d], m_ix.mul(m_ix.slot(tslot), s.region.step[d]));
            } else {
                g[d] = mins[d];
            }
        }
        std::string dstExpr = "&" + m_bufName[s.buffer] + dstSelect + "[" + strip(ix(flat(s.buffer, g))) + "]";
        std::string srcExpr = "&" + m_bufName[s.src] + select(s.src) + "[" + strip(ix(flat(s.src, g))) + "]";
        line("loopscope_dma_copy(" + dstExpr + ", " + srcExpr + ", " + rowBytes + ", " + rows + ", " + dstStride + ", " + srcStride + ", " + std::to_string(transfer) + ");");
        for (int i = 0; i < opened; ++i) {
            --m_indent;
            line("}");
        }
        --m_indent;
        line("}");
        --m_indent;
        line("}");
    }

    void copy(int id, const Stmt& s)
    {
        (void)id;
        const Buffer& src = m_n.buffers[s.src];
        const Buffer& dst = m_n.buffers[s.buffer];
        int transfer = 0;
        for (size_t i = 0; i < m_transfers.size(); ++i)
            if (m_transfers[i].tensor == src.tensor && m_transfers[i].from == src.level && m_transfers[i].to == dst.level)
                transfer = static_cast<int>(i);
        std::string what = "/* " + m_k.tensors[src.tensor].name + ": " + levelName(src.level) + " -> " + levelName(dst.level);
        // A double-buffered read: fetch the first tile, wait, start the next one, compute.
        auto dbRead = m_db.find(s.buffer);
        if (dbRead != m_db.end() && !dst.write) {
            const Stmt& loop = m_n.stmts[dbRead->second.loop];
            const std::string x = m_slot[loop.slot];
            // `ready` says whether the previous iteration prefetched this tile (it did not on the
            // first iteration, nor when guards skipped the previous one).
            const std::string ready = m_bufName[s.buffer] + "_ready";
            line(what + ", ping-pong over " + loop.name + " */");
            line("if (!" + ready + ") {");
            ++m_indent;
            copyRegion(s, transfer, "[" + m_dbSelect[s.buffer] + "]");
            --m_indent;
            line("}");
            line("loopscope_dma_wait();");
            m_override[loop.slot] = "(" + x + " + 1)";
            std::string next = conds(dbRead->second.guards);
            line(ready + " = " + x + " + 1 < " + std::to_string(loop.extent) + (next == "1" ? "" : " && " + next) + ";");
            line("if (" + ready + ") {");
            ++m_indent;
            for (const auto& [key, slot] : m_originSlot)
                if (key.first == s.buffer) {
                    int nextSlot = newTemp(m_temp[slot] + "_next");
                    line("const int " + m_temp[nextSlot] + " = " + strip(ix(dst.origin[key.second])) + ";");
                    m_nextOriginSlot[key] = nextSlot;
                }
            copyRegion(s, transfer, "[(" + x + " + 1) & 1]");
            m_nextOriginSlot.clear();
            --m_indent;
            line("}");
            m_override.clear();
            return;
        }
        auto dbWrite = m_db.find(s.src);
        if (dbWrite != m_db.end() && src.write) {
            // Write-back of a double buffer: wait for the previous tile's, then start this one.
            line(what + ", ping-pong write-back */");
            line("loopscope_dma_wait();");
            copyRegion(s, transfer, select(s.buffer));
            return;
        }
        line(what + " */");
        copyRegion(s, transfer, select(s.buffer));
        line("loopscope_dma_wait();");
    }

    const LoopNest& m_n;
    const ir::Kernel& m_k;
    IndexPool m_ix;
    std::vector<std::string> m_slot;
    std::map<int, std::string> m_temp;
    std::map<std::pair<int, int>, int> m_originSlot;
    std::map<std::pair<int, int>, int> m_nextOriginSlot;  ///< the same, for the next tile of a double buffer
    std::vector<std::string> m_reg;
    std::map<int, std::string> m_bufName;
    std::map<int, std::string> m_override;
    std::map<int, DoubleBuffer> m_db;
    std::map<int, std::string> m_dbSelect;
    std::set<int> m_loopHasDb;
    std::vector<Transfer> m_transfers;
    std::ostringstream* m_os = nullptr;
    int m_indent = 0;
};

} // namespace

std::string generateHeader(const LoopNest& n)
{
    const ir::Kernel& k = *n.kernel;
    const std::string kid = cIdentifier(k.name);
    const std::string guard = "LOOPSCOPE_" + upper(kid) + "_H";
    std::ostringstream os;
    os << "/* " << kid << ".h: generated by Loopscope. */\n#ifndef " << guard << "\n#define " << guard << "\n\n#include <stdint.h>\n\n"
       << "#ifdef __cplusplus\nextern \"C\" {\n#define LOOPSCOPE_RESTRICT __restrict\n#else\n#define LOOPSCOPE_RESTRICT restrict\n#endif\n\n";
    os << "/* " << k.name << " scheduled for " << n.target->name << ".\n";
    for (const auto& st : k.stages)
        os << " *   " << st.source << (st.padZero ? "   (zero padding: out-of-bounds terms are skipped)" : "") << "\n";
    os << " *\n * Tensors (row-major, C order; pointers must not alias):\n";
    for (int t : parameters(n)) {
        const ir::Tensor& ten = k.tensors[t];
        std::string role = k.isInput(t) ? "input" : k.isIntermediate(t) ? "workspace (intermediate)" : "output";
        os << " *   " << cIdentifier(ten.name) << ": " << ir::dtypeName(ten.dtype) << shapeText(ten.shape) << ", " << role << "\n";
    }
    for (const auto& st : k.stages)
        if (st.requant) {
            const auto& rq = *st.requant;
            os << " * Requantization of " << st.name << " (TFLite / CMSIS-NN convention): out = clamp(MultiplyByQuantizedMultiplier(acc";
            if (rq.bias >= 0)
                os << " + " << k.tensors[rq.bias].name << "[channel]";
            os << ", multiplier, shift) + " << rq.outputOffset << ", " << rq.actMin << ", " << rq.actMax << "),\n *   multiplier "
               << (rq.multiplier.tensor >= 0 ? k.tensors[rq.multiplier.tensor].name + "[channel]" : std::to_string(rq.multiplier.value)) << ", shift "
               << (rq.shift.tensor >= 0 ? k.tensors[rq.shift.tensor].name + "[channel]" : std::to_string(rq.shift.value))
               << (rq.channelAxis >= 0 ? ", channel = axis " + st.axes[rq.channelAxis].name : std::string()) << ".\n";
        }
    os << " */\n" << signature(n) << ";\n\n";
    os << "/* Names of the transfers passed to loopscope_dma_copy: \"tensor from to\". */\nextern const char *const " << kid << "_transfers[];\n#define "
       << upper(kid) << "_TRANSFER_COUNT " << transfersOf(n).size() << "\n\n";
    os << "#ifdef __cplusplus\n}\n#endif\n\n#endif\n";
    return os.str();
}

std::string generateSource(const LoopNest& nest) { return SourceWriter(nest).run(); }

} // namespace loopscope::codegen
