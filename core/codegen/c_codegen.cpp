// C99 generator: walks the lowered loop nest and prints the code it describes, so that what
// the cost model counts is what the firmware does (every transfer goes through the DMA hooks).
#include "codegen/c_codegen.h"

#include "codegen/c_fold.h"
#include "codegen/c_writer.h"

#include "analysis/cost_report.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
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
/* A guard around a loop (padding, partial tiles) holds for most iterations: said so, GCC keeps
   the loop's registers in the fall-through path instead of spilling them there. */
#if defined(__GNUC__)
#define LS_LIKELY(c) __builtin_expect(!!(c), 1)
#else
#define LS_LIKELY(c) (c)
#endif

LS_UNUSED static inline int ls_floordiv(int a, int b) { int q = a / b; return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q; }
LS_UNUSED static inline int ls_floormod(int a, int b) { return a - ls_floordiv(a, b) * b; }

)";

/// Tensors passed to the kernel function: every home buffer, in kernel order.
/// How the kernel indexes a tensor, which documents its layout: ", written as O[n, oh, ow, k]" or
/// ", read as F[k, r, s, c]" (the first stage that uses it), or ", indexed by channel k" for a
/// requantization parameter.
std::string layoutNote(const ir::Kernel& k, int t, bool folded)
{
    auto text = [&](const ir::Stage& st, const ir::Access& a) {
        std::string out = k.tensors[t].name + "[";
        for (size_t d = 0; d < a.index.size(); ++d)
            out += (d ? ", " : "") + ir::affineToString(st, a.index[d]);
        return out + "]";
    };
    for (const ir::Stage& st : k.stages) {
        if (st.output.tensor == t)
            return ", written as " + text(st, st.output);
        for (const ir::Access& a : st.loads())
            if (a.tensor == t)
                return ", read as " + text(st, a);
        if (st.requant && st.requant->channel
            && (st.requant->bias == t || st.requant->multiplier.tensor == t || st.requant->shift.tensor == t))
            return ", indexed by output channel " + ir::affineToString(st, *st.requant->channel)
                + (folded && st.requant->bias == t ? " (pass " + cIdentifier(k.name) + "_prepare's " + cIdentifier(k.tensors[t].name) + "_folded)" : "");
    }
    return "";
}

/// Whether tensor t is a bias the kernel takes with the input offset folded in.
bool isFoldedBias(const LoopNest& n, int t)
{
    return std::any_of(n.offsetFolds.begin(), n.offsetFolds.end(), [t](const lower::OffsetFold& f) { return f.bias == t; });
}

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

/// Whether any index of the statements inside `s` reads loop counter `slot` as the C writes it
/// (an unrolled copy's counter that nothing reads must be marked used: exports build with
/// -Werror). A scalar in a register is accessed by name, without its index.
bool usesSlot(const LoopNest& n, const Stmt& s, int slot)
{
    std::vector<int> slots;
    auto reads = [&](IndexId e) {
        if (e == kNoIndex)
            return false;
        slots.clear();
        n.index.slotsOf(e, slots);
        return std::find(slots.begin(), slots.end(), slot) != slots.end();
    };
    auto any = [&](const std::vector<IndexId>& es) { return std::any_of(es.begin(), es.end(), reads); };
    auto scalar = [&](int buffer) { return buffer >= 0 && n.buffers[buffer].level < 0 && n.buffers[buffer].elements() == 1; };
    for (int c : s.body) {
        const Stmt& b = n.stmts[c];
        const bool indexed = b.kind != Stmt::Kind::Alloc && !scalar(b.buffer);
        bool used = (indexed && any(b.index)) || (!scalar(b.src) && any(b.srcIndex)) || reads(b.channel) || any(b.region.min) || any(b.region.count);
        for (const Cond& cond : b.conds)
            used = used || reads(cond.expr) || reads(cond.lo) || reads(cond.hi);
        if (b.kind == Stmt::Kind::Alloc)
            used = used || any(n.buffers[b.buffer].origin);
        if (used || usesSlot(n, b, slot))
            return true;
    }
    return false;
}

} // namespace

namespace detail {

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

CWriter::CWriter(const LoopNest& n) : m_n(n), m_k(*n.kernel), m_ix(n.index)
{
    nameThings();
    m_transfers = transfersOf(n);
    m_pingPong = pingPongBuffers(n);
    prepareDoubleBuffers(n.root, {}, {});
}

std::string CWriter::run()
{
    const std::string kid = cIdentifier(m_k.name);
    std::ostringstream os;
    os << "/* " << kid << ".c: generated by Loopscope from a schedule of " << m_k.name << " for " << m_n.target->name << ".\n"
       << "   The loop nest, its buffers and its transfers are those the cost model counted. */\n"
       << "#include \"" << kid << ".h\"\n\n#include <stddef.h>\n#include <stdint.h>\n#include <string.h>\n\n";
    os << unusedMacroC();
    os << "/* Section and alignment of on-chip buffers: define these to place them (e.g. in a linker section). */\n";
    for (size_t l = 0; l < m_n.target->levels.size(); ++l) {
        std::string macro = "LOOPSCOPE_" + upper(cIdentifier(m_n.target->levels[l].name));
        os << "#ifndef " << macro << "\n#define " << macro << "\n#endif\n";
    }
    os << "#ifndef LOOPSCOPE_ALIGNED\n#define LOOPSCOPE_ALIGNED(n) __attribute__((aligned(n)))\n#endif\n"
       << "/* Loop hooks: LOOPSCOPE_PARALLEL precedes parallel loops (e.g. _Pragma(\"omp parallel for\")),\n"
       << "   LOOPSCOPE_VECTORIZE precedes vectorized loops. */\n"
       << "/* Arm DSP extension (SMLAD): used for vectorized int8 and int16 reductions unless LOOPSCOPE_NO_DSP. */\n"
       << "#if defined(__ARM_FEATURE_DSP) && !defined(LOOPSCOPE_NO_DSP)\n#include <arm_acle.h>\n#define LOOPSCOPE_USE_DSP 1\n"
       << "/* PKHBT, and SXTAB16/SXTB16 with a rotation, which ACLE does not offer: plain C that clang\n"
       << "   folds into one instruction each; for GCC, which does not, the forms CMSIS-Core uses. */\n"
       << "#if defined(__clang__)\n"
       << "LS_UNUSED static inline int32_t ls_pkhbt(int32_t lo, int32_t hi) { return (int32_t)(((uint32_t)lo & 0xffffu) | ((uint32_t)hi << 16)); }\n"
       << "LS_UNUSED static inline int32_t ls_sxtab16_ror8(int32_t a, int32_t b) { return __sxtab16(a, (int32_t)(((uint32_t)b >> 8) | ((uint32_t)b << 24))); }\n"
       << "LS_UNUSED static inline int32_t ls_sxtb16_ror8(int32_t a) { return __sxtb16((int32_t)(((uint32_t)a >> 8) | ((uint32_t)a << 24))); }\n"
       << "#else\n"
       << "LS_UNUSED static inline int32_t ls_pkhbt(int32_t lo, int32_t hi)\n{\n    int32_t r;\n    __asm__(\"pkhbt %0, %1, %2, lsl #16\" : \"=r\"(r) : \"r\"(lo), \"r\"(hi));\n    return r;\n}\n"
       << "LS_UNUSED static inline int32_t ls_sxtab16_ror8(int32_t a, int32_t b)\n{\n    int32_t r;\n    __asm__(\"sxtab16 %0, %1, %2, ror #8\" : \"=r\"(r) : \"r\"(a), \"r\"(b));\n    return r;\n}\n"
       << "LS_UNUSED static inline int32_t ls_sxtb16_ror8(int32_t a)\n{\n    int32_t r;\n    __asm__(\"sxtb16 %0, %1, ror #8\" : \"=r\"(r) : \"r\"(a));\n    return r;\n}\n"
       << "#endif\n"
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
    if (hasWideningCopy(m_n))
        os << "/* The widening copy of an int8 tensor into an int16 cache (cache_read with dtype: int16): the\n"
           << "   core itself makes it (no DMA engine widens), element by element, adding `offset` (the input\n"
           << "   offset the cache holds already added). Counts and strides in elements. Weak, like the DMA\n"
           << "   hooks (LOOPSCOPE_NO_DEFAULT_DMA omits it too). */\n"
           << "#ifndef LOOPSCOPE_NO_DEFAULT_DMA\n"
           << widenCopyFunctionC("LOOPSCOPE_WEAK ", false) << "#endif\n\n";
    os << "const char *const " << kid << "_transfers[" << std::max<size_t>(1, m_transfers.size()) << "] = {";
    for (size_t i = 0; i < m_transfers.size(); ++i)
        os << (i ? ", " : "") << "\"" << m_k.tensors[m_transfers[i].tensor].name << " " << levelName(m_transfers[i].from) << " "
           << levelName(m_transfers[i].to) << "\"";
    if (m_transfers.empty())
        os << "\"\"";
    os << "};\n\n" << kHelpers << requantizeFunctionC() << "\n";
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
    os << "\n" << prepareFunctionC(m_n) << signature(m_n) << "\n{\n";
    m_os = &os;
    m_indent = 1;
    stmt(m_n.root);
    os << "}\n";
    return os.str();
}

std::string CWriter::levelName(int l) const { return l < 0 ? "registers" : m_n.target->levels[l].name; }

void CWriter::nameThings()
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
            m_bufName[static_cast<int>(b)] = unique(cIdentifier(buf.role == Buffer::Role::Accumulator ? m_k.tensors[buf.tensor].name + "_acc" : buf.name));
    }
    for (const auto& r : m_n.regNames)
        m_reg.push_back(unique("r_" + cIdentifier(r)));
}

std::string CWriter::slotText(int s) const
{
    auto it = m_override.find(s);
    if (it != m_override.end())
        return it->second;
    return s < static_cast<int>(m_slot.size()) ? m_slot[s] : m_temp.at(s);
}

std::string CWriter::ix(IndexId id) const
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

std::string CWriter::strip(std::string s)
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
IndexId CWriter::flat(int b, const std::vector<IndexId>& global)
{
    const Buffer& buf = m_n.buffers[b];
    IndexId off = kNoIndex;  // none yet: the outermost dimension's index is the offset so far
    for (int d : buf.storageOrder()) {
        IndexId g = d < static_cast<int>(global.size()) ? global[d] : m_ix.constant(0);
        IndexId origin = buf.origin[d];
        // Inside the buffer's scope a non-affine origin is a named local (see alloc()).
        auto& names = m_override.empty() ? m_originSlot : m_nextOriginSlot;
        auto named = names.find({b, static_cast<int>(d)});
        if (origin != kNoIndex && named != names.end())
            origin = m_ix.slot(named->second);
        IndexId rel = origin == kNoIndex ? g : m_ix.sub(g, origin);
        IndexId local = d == buf.rollDim ? lower::rollingIndex(m_ix, g, buf.shape[d], m_n.slotExtents) : m_ix.div(rel, buf.step[d]);
        off = off == kNoIndex ? local : m_ix.add(m_ix.mul(off, buf.shape[d]), local);
    }
    return off == kNoIndex ? m_ix.constant(0) : off;
}

std::string CWriter::select(int b) const
{
    const Buffer& buf = m_n.buffers[b];
    if (!buf.doubleBuffer)
        return "";
    auto it = m_dbSelect.find(b);
    return it == m_dbSelect.end() ? "[0]" : "[" + it->second + "]";
}

std::string CWriter::access(int b, const std::vector<IndexId>& global)
{
    const Buffer& buf = m_n.buffers[b];
    if (buf.level < 0 && buf.elements() == 1)
        return m_bufName[b];
    return m_bufName[b] + select(b) + "[" + strip(ix(flat(b, global))) + "]";
}

bool CWriter::guardedInit(const Stmt& alloc) const
{
    // Depth-first over the accumulator's scope: an AccInit of it below an If.
    std::vector<std::pair<int, bool>> todo;
    for (int c : alloc.body)
        todo.push_back({c, false});
    while (!todo.empty()) {
        auto [id, guarded] = todo.back();
        todo.pop_back();
        const Stmt& st = m_n.stmts[id];
        if (st.kind == Stmt::Kind::AccInit && st.buffer == alloc.buffer && guarded)
            return true;
        for (int c : st.body)
            todo.push_back({c, guarded || st.kind == Stmt::Kind::If});
    }
    return false;
}

std::string CWriter::address(int b, const std::vector<IndexId>& global)
{
    return "&" + m_bufName[b] + select(b) + "[" + strip(ix(flat(b, global))) + "]";
}

std::string CWriter::value(int v) const
{
    const ValueNode& n = m_n.values[v];
    switch (n.op) {
    case ValueNode::Op::Const: return m_k.isFloatKernel() ? floatLiteral(n.floatValue) : std::to_string(n.intValue);
    case ValueNode::Op::Reg: return m_reg[n.reg];
    case ValueNode::Op::Add:
        if (m_n.offsetFolded(v))
            return value(n.a);  // the offset is in the bias (<kernel>_prepare)
        return "(" + value(n.a) + " + " + value(n.b) + ")";
    case ValueNode::Op::Sub:
        if (m_n.offsetFolded(v))
            return value(n.a);
        return "(" + value(n.a) + " - " + value(n.b) + ")";
    case ValueNode::Op::Mul: return "(" + value(n.a) + " * " + value(n.b) + ")";
    case ValueNode::Op::Neg: return "(-" + value(n.a) + ")";
    }
    return "0";
}

std::string CWriter::conds(const std::vector<Cond>& cs) const
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

void CWriter::prepareDoubleBuffers(int id, std::vector<int> loops, std::vector<Cond> guards)
{
    const Stmt& s = m_n.stmts[id];
    if (s.kind == Stmt::Kind::For) {
        loops.push_back(id);
        guards.clear();
    }
    if (s.kind == Stmt::Kind::If)
        guards.insert(guards.end(), s.conds.begin(), s.conds.end());
    if (s.kind == Stmt::Kind::Alloc && m_pingPong[s.buffer]) {
        m_db[s.buffer] = DoubleBuffer{loops.back(), guards};
        m_loopHasDb.insert(loops.back());
    }
    for (int c : s.body)
        prepareDoubleBuffers(c, loops, guards);
}

/// A new slot for a C local used in index expressions (block-scoped names may repeat).
int CWriter::newTemp(const std::string& name)
{
    int slot = static_cast<int>(m_slot.size() + 1000 + m_temp.size());
    m_temp[slot] = name;
    return slot;
}

void CWriter::line(const std::string& s) { *m_os << std::string(m_indent * 4, ' ') << s << "\n"; }

void CWriter::body(const Stmt& s)
{
    for (int c : s.body)
        stmt(c);
}

bool CWriter::guardsLoop(const Stmt& guard) const
{
    // A loop written as a `for` statement (forLoop).
    return lower::anyInside(m_n, guard, [&](const Stmt& st) {
        return st.kind == Stmt::Kind::For && st.loopKind != sched::LoopKind::Unrolled && !vectorizedWrittenOut(m_n, st);
    });
}

bool CWriter::likelyInnermostGuard(int id) const
{
    // Only a guard with no guard inside: marking one that holds guards made GCC lay out the
    // copies of an unrolled tap loop worse (depthwise_conv_int8_mult_tflite_unrolled: 3.2% more
    // instructions with the hint on its row guards alone, 4.4% with it on the column guards
    // inside them too, 0.4% fewer with it on the column guards alone).
    if (lower::anyInside(m_n, m_n.stmts[id], [](const Stmt& st) { return st.kind == Stmt::Kind::If; }))
        return false;
    // The analysis' exact counts (it runs once per export, when a guard asks: some tens of
    // microseconds); the codegen's decisions it counts with do not depend on this hint.
    if (m_execs.empty())
        m_execs = analysis::statementExecutions(m_n, *m_n.target);
    const int64_t runs = m_execs[id];
    if (runs <= 0)
        return false;
    // How often the guarded code runs: the count of its first statement that the analysis
    // records (blocks and allocations hold statements, they are not counted themselves).
    std::vector<int> todo(m_n.stmts[id].body.rbegin(), m_n.stmts[id].body.rend());
    while (!todo.empty()) {
        const int b = todo.back();
        todo.pop_back();
        if (m_execs[b] > 0)
            return 2 * m_execs[b] >= runs;
        const Stmt& st = m_n.stmts[b];
        if (st.kind == Stmt::Kind::Block || st.kind == Stmt::Kind::Alloc)
            todo.insert(todo.end(), st.body.rbegin(), st.body.rend());
    }
    return false;
}

void CWriter::stmt(int id)
{
    const Stmt& s = m_n.stmts[id];
    switch (s.kind) {
    case Stmt::Kind::Block: body(s); break;
    case Stmt::Kind::For: forLoop(id, s); break;
    case Stmt::Kind::If:
        // A guard around a loop says it usually holds: GCC's static prediction takes the body of
        // an `if` for as likely as not, and with a loop inside, its register allocator spilled
        // that loop's pointers and operands where the guard is taken (conv2d_int8_tiled: 12
        // instructions per MAC in one of its three unrolled `s` copies, 7 in the others; with the
        // hint no copy spills, 6 to 7 per MAC, and the kernel runs 23% fewer). A guard around
        // straight-line code says so only when it holds in at least half of its executions and
        // holds no guard (likelyInnermostGuard, session 17): without the hint GCC moved such a tap
        // out of line and rebuilt its address there (random #100039: 21.5% fewer instructions
        // with it); with it on every guard two depthwise examples ran 3-4% slower. Measured over
        // 500 random schedules (65 faster, 39 slower, 0.4% fewer in the geometric mean):
        // docs/performance.md, "Innermost guards that usually hold".
        line(guardsLoop(s) || likelyInnermostGuard(id) ? "if (LS_LIKELY(" + conds(s.conds) + ")) {" : "if (" + conds(s.conds) + ") {");
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
    case Stmt::Kind::Matmul:
    case Stmt::Kind::Fill:
        // A tensorized block runs on the accelerator: codegen/gemmini_codegen.h writes it.
        line("#error \"a tensorized block: export it with the Gemmini generator\"");
        break;
    case Stmt::Kind::AccStore: {
        const Buffer& dst = m_n.buffers[s.buffer];
        const auto& st = m_k.stages[s.stage];
        std::string acc = access(s.src, s.srcIndex);
        if (st.requant) {
            const auto& rq = *st.requant;
            std::string mult = s.multBuffer >= 0 ? access(s.multBuffer, {s.channel}) : std::to_string(rq.multiplier.value);
            std::string shift = s.shiftBuffer >= 0 ? access(s.shiftBuffer, {s.channel}) : std::to_string(rq.shift.value);
            acc = requantizeCall(acc, mult, shift, rq.outputOffset, rq.actMin, rq.actMax);
        }
        line(access(s.buffer, s.index) + " = (" + cType(dst.dtype) + ")" + (st.requant ? acc : "(" + acc + ")") + ";");
        break;
    }
    }
}


void CWriter::forLoop(int id, const Stmt& s)
{
    const std::string v = m_slot[s.slot];
    // A vectorized loop over the elements of an accumulator kept in registers is written out
    // like an unrolled one: indexed by a loop counter, the array would have to live in memory.
    const bool writtenOut = vectorizedWrittenOut(m_n, s);
    const std::optional<DspLoop> plan = s.loopKind == sched::LoopKind::Vectorized ? dspLoop(m_n, s) : std::nullopt;
    if (s.loopKind == sched::LoopKind::Unrolled || (writtenOut && !plan)) {
        line("/* " + s.name + (writtenOut ? ": vectorized, written out (its accumulators stay in registers) */" : ": unrolled */"));
        for (const auto& [buffer, db] : m_db)
            if (db.loop == id && !m_n.buffers[buffer].write)
                line("int " + m_bufName[buffer] + "_ready = 0;  /* tile prefetched by the previous iteration */");
        for (int64_t i = 0; i < s.extent; ++i) {
            line("{");
            ++m_indent;
            line("const int " + v + " = " + std::to_string(i) + ";" + (usesSlot(m_n, s, s.slot) ? "" : "  (void)" + v + ";"));
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
        const bool dsp = plan.has_value();
        if (dsp) {
            emitDsp(s, *plan, writtenOut);
            line("#else");
        }
        if (writtenOut) {
            line("/* " + s.name + ": vectorized, written out (its accumulators stay in registers) */");
            for (int64_t i = 0; i < s.extent; ++i) {
                line("{");
                ++m_indent;
                line("const int " + v + " = " + std::to_string(i) + ";" + (usesSlot(m_n, s, s.slot) ? "" : "  (void)" + v + ";"));
                body(s);
                --m_indent;
                line("}");
            }
        } else {
            if (s.loopKind == sched::LoopKind::Vectorized)
                line("LOOPSCOPE_VECTORIZE");
            line("for (int " + v + " = 0; " + v + " < " + std::to_string(s.extent) + "; ++" + v + ") {");
            ++m_indent;
            body(s);
            --m_indent;
            line("}");
        }
        if (dsp)
            line("#endif");
    }
    if (m_loopHasDb.count(id))
        line("loopscope_dma_wait();  /* last ping-pong transfers of " + s.name + " */");
}

void CWriter::alloc(const Stmt& s)
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
            // Zero-initialised when guards skip the initialisation of some elements (partial tiles):
            // those are then never used either, which GCC's -Wmaybe-uninitialized cannot prove.
            line(std::string(t) + " " + m_bufName[s.buffer] + "[" + std::to_string(b.elements()) + "]" + (guardedInit(s) ? " = {0};" : ";"));
        body(s);
        --m_indent;
        line("}");
        return;
    }
    body(s);
}

} // namespace detail

std::string generateHeader(const LoopNest& n)
{
    const ir::Kernel& k = *n.kernel;
    const std::string kid = cIdentifier(k.name);
    const std::string guard = "LOOPSCOPE_" + upper(kid) + "_H";
    std::ostringstream os;
    os << "/* " << kid << ".h: generated by Loopscope. */\n#ifndef " << guard << "\n#define " << guard << "\n\n#include <stddef.h>\n#include <stdint.h>\n\n"
       << "#ifdef __cplusplus\nextern \"C\" {\n#define LOOPSCOPE_RESTRICT __restrict\n#else\n#define LOOPSCOPE_RESTRICT restrict\n#endif\n\n";
    os << "/* " << k.name << " scheduled for " << n.target->name << ".\n";
    for (const auto& st : k.stages)
        os << " *   " << st.source << (st.padZero ? "   (zero padding: out-of-bounds terms are skipped)" : "") << "\n";
    os << " *\n * Tensors (row-major, C order, dimensions outermost first; pointers must not alias), each with\n"
       << " * the index the kernel uses it by, which gives its layout (the names are the kernel's axes):\n";
    for (int t : parameters(n)) {
        const ir::Tensor& ten = k.tensors[t];
        std::string role = k.isInput(t) ? "input" : k.isIntermediate(t) ? "workspace (intermediate)" : "output";
        os << " *   " << cIdentifier(ten.name) << ": " << ir::dtypeName(ten.dtype) << shapeText(ten.shape) << ", " << role
           << layoutNote(k, t, isFoldedBias(n, t)) << "\n";
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
               << (rq.channel ? ", channel = " + ir::affineToString(st, *rq.channel) : std::string()) << ".\n";
        }
    os << prepareNoteC(n) << " */\n" << signature(n) << ";\n\n";
    if (!n.offsetFolds.empty())
        os << "/* The biases with the input offsets folded in; once per set of weights, before the kernel. */\n" << prepareSignatureC(n) << ";\n\n";
    os << "/* Names of the transfers passed to loopscope_dma_copy: \"tensor from to\". */\nextern const char *const " << kid << "_transfers[];\n#define "
       << upper(kid) << "_TRANSFER_COUNT " << detail::transfersOf(n).size() << "\n\n";
    os << "/* DMA hooks every transfer between memory levels goes through (weak memcpy defaults are in\n"
       << "   " << kid << ".c; define these two in your project to use a DMA engine): a strided 2-D copy of\n"
       << "   `rows` rows of `row_bytes` bytes (strides in bytes), and a wait for every copy started.\n"
       << "   `transfer` indexes " << kid << "_transfers. The same declarations in every Loopscope header. */\n"
       << "void loopscope_dma_copy(void *dst, const void *src, size_t row_bytes, size_t rows,\n"
       << "                        size_t dst_stride, size_t src_stride, int transfer);\n"
       << "void loopscope_dma_wait(void);\n\n";
    if (hasWideningCopy(n))
        os << "/* The copy into a widened (int16) cache, made by the core: `rows` rows of `row_elements` int8\n"
           << "   elements, each stored as int16 plus `offset` (strides in elements). A weak default is in\n"
           << "   " << kid << ".c. */\n"
           << "void loopscope_widen_copy(int16_t *dst, const int8_t *src, size_t row_elements, size_t rows,\n"
           << "                          size_t dst_stride, size_t src_stride, int32_t offset, int transfer);\n\n";
    os << "#ifdef __cplusplus\n}\n#endif\n\n#endif\n";
    return os.str();
}

std::string widenCopyFunctionC(const std::string& attributes, bool countBytes)
{
    std::string c = attributes + "void loopscope_widen_copy(int16_t *dst, const int8_t *src, size_t row_elements, size_t rows,\n"
        "                          size_t dst_stride, size_t src_stride, int32_t offset, int transfer)\n{\n"
        "    size_t r, e;\n";
    if (!countBytes)
        c += "    (void)transfer;\n";
    c += "    for (r = 0; r < rows; ++r) {\n"
         "        int16_t *d = dst + r * dst_stride;\n"
         "        const int8_t *s = src + r * src_stride;\n"
         "        for (e = 0; e < row_elements; ++e)\n"
         "            d[e] = (int16_t)(s[e] + offset);\n"
         "    }\n";
    if (countBytes)
        c += "    if (transfer >= 0 && transfer < LS_TRANSFERS)\n        ls_bytes[transfer] += (unsigned long)(row_elements * rows * sizeof(int16_t));\n";
    return c + "}\n";
}

std::string generateSource(const LoopNest& nest) { return detail::CWriter(nest).run(); }

} // namespace loopscope::codegen
