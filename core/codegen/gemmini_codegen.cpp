// The Gemmini code generator: walks the lowered nest of a tensorized kernel and writes what the
// cost model counted (analysis/array_model.cpp): one mvin per DMA row chunk of a copy, fill or
// initial-row load, one mvout per chunk of a store, one preload and one compute per block.
#include "codegen/gemmini_codegen.h"

#include "codegen/c_codegen.h"
#include "codegen/harness_files.h"
#include "lower/gemmini_layout.h"

#include <algorithm>
#include <cmath>
#include <functional>
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

bool isGemminiNest(const LoopNest& nest) { return !nest.matmuls.empty(); }

namespace {

std::string upper(std::string s)
{
    for (char& c : s)
        c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return s;
}

bool tensorizedStage(const LoopNest& n, int stage)
{
    for (const Stmt& s : n.stmts)
        if (s.kind == Stmt::Kind::Matmul && s.stage == stage)
            return true;
    return false;
}

/// The initial-row buffer of the nest (the helper statements write it), or -1.
int initRowBuffer(const LoopNest& n)
{
    for (const Stmt& s : n.stmts)
        if (s.helper && s.kind == Stmt::Kind::AccInit)
            return s.buffer;
    return -1;
}

/// Whether a statement's subtree holds only loops, guards and accumulator inits or stores of
/// `tile`: the nest walks a tile element by element, the code moves it by rows.
bool tileNest(const LoopNest& n, int id, int tile, bool& init)
{
    const Stmt& s = n.stmts[id];
    if (s.kind == Stmt::Kind::AccInit && s.buffer == tile && !s.helper) {
        init = true;
        return true;
    }
    if (s.kind == Stmt::Kind::AccStore && s.src == tile) {
        init = false;
        return true;
    }
    if (s.kind != Stmt::Kind::For && s.kind != Stmt::Kind::If)
        return false;
    for (int c : s.body)
        if (!tileNest(n, c, tile, init))
            return false;
    return !s.body.empty();
}

const Stmt* tileLeaf(const LoopNest& n, int id)
{
    const Stmt& s = n.stmts[id];
    if (s.kind == Stmt::Kind::AccInit || s.kind == Stmt::Kind::AccStore)
        return &s;
    for (int c : s.body)
        if (const Stmt* l = tileLeaf(n, c))
            return l;
    return nullptr;
}

/// Does the stage's output leave the accumulator as its raw int32 sums?
bool rawOutput(const LoopNest& n, int stage)
{
    const ir::Stage& st = n.kernel->stages[stage];
    return !st.requant && n.kernel->tensors[st.output.tensor].dtype == ir::DType::Int32;
}

} // namespace

std::string gemminiExportError(const LoopNest& n, const GemminiOptions& options)
{
    const ir::Kernel& k = *n.kernel;
    for (size_t s = 0; s < k.stages.size(); ++s) {
        bool present = false;
        for (const Stmt& st : n.stmts)
            present = present || st.stage == static_cast<int>(s);
        if (present && !tensorizedStage(n, static_cast<int>(s)))
            return "stage " + k.stages[s].name + " is not tensorized: a Gemmini export writes tensorized stages only (the rest would run on the host, whose code "
                   "for it is the portable C export of a schedule without tensorize)";
    }
    if (!n.target->compute.peArray || n.target->compute.peArray->rows != 16)
        return "the Gemmini export is written for DIM = 16 (the gemmini.h of the default configuration); target " + n.target->name + " has another array";
    if (options.accScale)
        for (const auto& st : k.stages) {
            if (!st.requant)
                return "--gemmini-acc-scale needs a requantizing stage; " + st.name + " has none";
            const auto& rq = *st.requant;
            if (rq.multiplier.tensor >= 0 || rq.shift.tensor >= 0)
                return "--gemmini-acc-scale: Gemmini's acc_scale is one float per configuration, but stage " + st.name
                       + " requantizes per channel (TFLite's per-channel multipliers and shifts)";
            if (rq.outputOffset != 0 || rq.actMin != -128 || rq.actMax != 127 || k.tensors[st.output.tensor].dtype != ir::DType::Int8)
                return "--gemmini-acc-scale: the accumulator's scaled read gives round(acc x scale) clamped to int8, with no output offset or other range; stage "
                       + st.name + " has output offset " + std::to_string(rq.outputOffset) + " and range [" + std::to_string(rq.actMin) + ", "
                       + std::to_string(rq.actMax) + "]";
        }
    return "";
}

GemminiSignature gemminiSignature(const LoopNest& n)
{
    GemminiSignature sig;
    for (size_t t = 0; t < n.kernel->tensors.size(); ++t)
        for (const Buffer& b : n.buffers)
            if (b.role == Buffer::Role::Home && b.tensor == static_cast<int>(t)) {
                sig.params.push_back(static_cast<int>(t));
                break;
            }
    const int init = initRowBuffer(n);
    if (init >= 0) {
        sig.initRow = true;
        sig.initName = cIdentifier(n.buffers[init].name);
        sig.initElements = n.buffers[init].elements();
        std::set<int> read;
        for (const Stmt& s : n.stmts)
            if (s.helper) {
                if (s.kind == Stmt::Kind::Load)
                    read.insert(n.buffers[s.buffer].tensor);
                if (s.kind == Stmt::Kind::AccInit && s.src >= 0)
                    read.insert(n.buffers[s.src].tensor);
            }
        sig.prepareParams.assign(read.begin(), read.end());
    }
    return sig;
}

namespace {

class Writer {
public:
    Writer(const LoopNest& n, const GemminiOptions& o)
        : m_n(n), m_k(*n.kernel), m_t(*n.target), m_ix(n.index), m_opts(o), m_rows(lower::placeRows(n)), m_sig(gemminiSignature(n))
    {
        m_init = initRowBuffer(n);
        std::set<std::string> used;
        for (const auto& t : m_k.tensors)
            used.insert(cIdentifier(t.name));
        used.insert(cIdentifier(m_k.name));
        for (const auto& s : n.slotNames) {
            std::string name = cIdentifier(s);
            for (int i = 2; used.count(name); ++i)
                name = cIdentifier(s) + "_" + std::to_string(i);
            used.insert(name);
            m_slot.push_back(name);
        }
        m_pingPong = lower::pingPongBuffers(n);
        prepareDoubleBuffers(n.root, -1, {});
        for (const Stmt& s : n.stmts)
            if (s.kind == Stmt::Kind::Matmul)
                m_stage = s.stage;
        m_dim = m_t.compute.peArray->rows;
    }

    std::string source()
    {
        const std::string kid = cIdentifier(m_k.name);
        std::ostringstream body;
        m_os = &body;
        m_indent = 1;
        stmt(m_n.root);
        std::ostringstream os;
        os << "/* " << kid << ".c: generated by Loopscope from a schedule of " << m_k.name << " for " << m_t.name << ", a Gemmini accelerator.\n"
           << "   Each tensorized block is one preload and one compute; operands move into the scratchpad by mvin, results leave the\n"
           << "   accumulator by mvout, at the rows the tool shows. GNU C (-std=gnu99), as Gemmini's gemmini.h is; it compiles unchanged\n"
           << "   against that header in a Gemmini software project, or against the export harness's. */\n"
           << "#include \"" << kid << ".h\"\n\n#include \"gemmini.h\"\n\n#include <stddef.h>\n#include <stdint.h>\n\n";
        os << "/* The schedule's rows assume Gemmini's default configuration. */\n"
           << "#if DIM != " << m_dim << " || BANK_NUM * BANK_ROWS < " << levelRows("scratchpad") << " || ACC_ROWS < " << levelRows("accumulator")
           << "\n#error \"" << kid << ".c was scheduled for DIM " << m_dim << ", " << levelRows("scratchpad") << " scratchpad rows and " << levelRows("accumulator")
           << " accumulator rows (gemmini_params.h)\"\n#endif\n\n";
        os << "/* LOOPSCOPE_GEMMINI_TRANSFER(t) precedes each mvin and mvout: transfer t of " << kid << "_transfers (the harness counts\n"
           << "   bytes per transfer with it). */\n#ifndef LOOPSCOPE_GEMMINI_TRANSFER\n#define LOOPSCOPE_GEMMINI_TRANSFER(t) ((void)0)\n#endif\n\n";
        os << "const char *const " << kid << "_transfers[" << std::max<size_t>(1, m_transfers.size()) << "] = {";
        for (size_t i = 0; i < m_transfers.size(); ++i)
            os << (i ? ", " : "") << "\"" << m_transfers[i] << "\"";
        if (m_transfers.empty())
            os << "\"\"";
        os << "};\n\n";
        os << "#define LS_MIN(a, b) ((a) < (b) ? (a) : (b))\n#define LS_MAX(a, b) ((a) > (b) ? (a) : (b))\n"
           << "/* Local addresses: scratchpad row r is r; accumulator row r is LS_ACC | r, with LS_ACCUMULATE to add to it and LS_RAW\n"
           << "   to read its int32 sums unscaled. */\n"
           << "#define LS_ACC ((uint32_t)1 << 31)\n#define LS_ACCUMULATE ((uint32_t)1 << 30)\n#define LS_RAW ((uint32_t)1 << 29)\n\n";
        if (m_floorDiv)
            os << unusedMacroC() << "LS_UNUSED static inline int ls_floordiv(int a, int b) { int q = a / b; return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q; }\n\n";
        if (m_requantize)
            os << requantizeFunctionC() << "\n";
        for (const auto& [value, name] : m_padRows) {
            os << "/* A row of the pad value (" << value << "), moved into the padding halo with a main-memory stride of 0. */\nstatic const elem_t " << name
               << "[DIM] = {";
            for (int i = 0; i < m_dim; ++i)
                os << (i ? ", " : "") << value;
            os << "};\n";
        }
        if (m_stageElements > 0)
            os << "/* Where mvout leaves a tile's int32 sums for the host to requantize. */\nstatic int32_t ls_stage[" << m_stageElements << "];\n";
        if (!m_padRows.empty() || m_stageElements > 0)
            os << "\n";
        if (m_init >= 0)
            os << prepare() << "\n";
        os << signature() << "\n{\n";
        // Some tensors only <kernel>_prepare reads (the bias of a stage whose input has an offset).
        for (int t : m_sig.params)
            if (!m_used.count(t))
                os << "    (void)" << cIdentifier(m_k.tensors[t].name) << ";  /* read by " << kid << "_prepare */\n";
        const lower::MatmulOp& op = m_n.matmuls[0];
        const bool ws = op.dataflow == sched::Dataflow::WeightStationary;
        os << "    gemmini_flush(0);\n"
           << "    /* " << (ws ? "Weight" : "Output") << "-stationary; rows of A fed "
           << (aStride(op) == 1 ? std::string("from consecutive scratchpad rows") : std::to_string(aStride(op)) + " scratchpad rows apart");
        if (m_opts.accScale)
            os << "; the accumulator read scaled by " << accScale();
        os << ". */\n    gemmini_extended_config_ex(" << (ws ? "WEIGHT_STATIONARY" : "OUTPUT_STATIONARY") << ", NO_ACTIVATION, 0, "
           << (m_opts.accScale ? accScale() : std::string("ACC_SCALE_IDENTITY")) << ", 0, " << aStride(op) << ", false, false);\n";
        os << body.str();
        os << "    gemmini_fence();\n}\n";
        return os.str();
    }

    std::string header()
    {
        const std::string kid = cIdentifier(m_k.name);
        const std::string guard = "LOOPSCOPE_" + upper(kid) + "_H";
        std::ostringstream os;
        os << "/* " << kid << ".h: generated by Loopscope for " << m_t.name << " (a Gemmini accelerator). */\n#ifndef " << guard << "\n#define " << guard
           << "\n\n#include <stddef.h>\n#include <stdint.h>\n\n#ifdef __cplusplus\nextern \"C\" {\n#define LOOPSCOPE_RESTRICT __restrict\n#else\n#define LOOPSCOPE_RESTRICT restrict\n#endif\n\n";
        os << "/* " << m_k.name << " scheduled for " << m_t.name << ".\n";
        for (const auto& st : m_k.stages)
            os << " *   " << st.source << (st.padZero ? "   (zero padding: out-of-bounds terms are skipped)" : "") << "\n";
        os << " *\n * Tensors (row-major, C order; pointers must not alias):\n";
        for (int t : m_sig.params) {
            const ir::Tensor& ten = m_k.tensors[t];
            os << " *   " << cIdentifier(ten.name) << ": " << ir::dtypeName(ten.dtype) << shape(ten.shape) << ", " << (m_k.isInput(t) ? "input" : "output") << "\n";
        }
        if (m_sig.initRow)
            os << " *   " << m_sig.initName << ": int32[" << m_sig.initElements << "], the accumulator's initial row from " << kid
               << "_prepare (the input offset folded into the bias; compute it once per set of weights)\n";
        for (const auto& st : m_k.stages)
            if (st.requant)
                os << " * Requantization of " << st.name
                   << (m_opts.accScale ? ": by Gemmini's acc_scale on mvout (round to nearest even, not TFLite-exact).\n"
                                       : " on the host, bit-exact with TFLite's MultiplyByQuantizedMultiplier (per channel).\n");
        os << " * Compile with -std=gnu99 (gemmini.h is GNU C); it calls gemmini.h's macros. */\n" << signature() << ";\n\n";
        if (m_sig.initRow)
            os << "/* The initial row: " << m_sig.initName << "[j] = bias[j] + offset x (sum over the reduction of the weights of column j). */\n"
               << prepareSignature() << ";\n\n";
        os << "/* Names of the transfers LOOPSCOPE_GEMMINI_TRANSFER(t) announces: \"tensor from to\". */\nextern const char *const " << kid << "_transfers[];\n#define "
           << upper(kid) << "_TRANSFER_COUNT " << countTransfers() << "\n\n";
        os << "#ifdef __cplusplus\n}\n#endif\n\n#endif\n";
        return os.str();
    }

private:
    // ---- names and expressions --------------------------------------------------------------

    static std::string shape(const std::vector<int64_t>& s)
    {
        std::string out = "[";
        for (size_t i = 0; i < s.size(); ++i)
            out += (i ? "][" : "") + std::to_string(s[i]);
        return out + "]";
    }

    int64_t levelRows(const std::string& name) const
    {
        int l = m_t.findLevel(name);
        return l >= 0 ? m_t.levels[l].rows() : 0;
    }

    std::string param(int t) const
    {
        const ir::Tensor& ten = m_k.tensors[t];
        return std::string(m_k.isInput(t) ? "const " : "") + cType(ten.dtype) + " *LOOPSCOPE_RESTRICT " + cIdentifier(ten.name);
    }

    std::string signature() const
    {
        std::string s = "void " + cIdentifier(m_k.name) + "(";
        bool first = true;
        for (int t : m_sig.params) {
            s += (first ? "" : ", ") + param(t);
            first = false;
        }
        if (m_sig.initRow)
            s += (first ? "" : ", ") + std::string("const int32_t *LOOPSCOPE_RESTRICT ") + m_sig.initName;
        return s + ")";
    }

    std::string prepareSignature() const
    {
        std::string s = "void " + cIdentifier(m_k.name) + "_prepare(";
        for (int t : m_sig.prepareParams)
            s += param(t) + ", ";
        return s + "int32_t *LOOPSCOPE_RESTRICT " + m_sig.initName + ")";
    }

    std::string slotText(int s) const
    {
        auto it = m_override.find(s);
        if (it != m_override.end())
            return it->second;
        return s < static_cast<int>(m_slot.size()) ? m_slot[s] : m_temp.at(s);
    }

    std::string ix(IndexId id)
    {
        const IndexPool::Node n = m_ix.node(id);
        switch (n.op) {
        case IndexPool::Node::Op::Linear: {
            std::string out;
            for (const auto& t : n.terms) {
                std::string atom = t.atom >= 0 ? slotText(t.atom) : ix(-t.atom - 1);
                const int64_t c = t.coeff < 0 ? -t.coeff : t.coeff;
                std::string term = c == 1 ? atom : atom + " * " + std::to_string(c);
                out += out.empty() ? (t.coeff < 0 ? "-" + term : term) : (t.coeff < 0 ? " - " : " + ") + term;
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
            const bool div = n.op == IndexPool::Node::Op::Div;
            if (m_ix.bounds(n.a, m_n.slotExtents).first >= 0 || !div)
                return "(" + ix(n.a) + (div ? " / " : " % ") + std::to_string(n.constant) + ")";
            m_floorDiv = true;
            return "ls_floordiv(" + ix(n.a) + ", " + std::to_string(n.constant) + ")";
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

    std::string conds(const std::vector<Cond>& cs)
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

    int newTemp(const std::string& name)
    {
        const int slot = static_cast<int>(m_slot.size() + 1000 + m_temp.size());
        m_temp[slot] = name;
        return slot;
    }

    /// Flat row-major offset of a global index in a kernel tensor.
    IndexId homeOffset(int tensor, const std::vector<IndexId>& g)
    {
        const auto& shape = m_k.tensors[tensor].shape;
        IndexId off = m_ix.constant(0);
        for (size_t d = 0; d < shape.size(); ++d)
            off = m_ix.add(m_ix.mul(off, shape[d]), g[d]);
        return off;
    }

    /// Local coordinates of a global index in a buffer.
    std::vector<IndexId> local(const Buffer& b, const std::vector<IndexId>& g)
    {
        std::vector<IndexId> out;
        for (size_t d = 0; d < g.size(); ++d) {
            IndexId rel = b.origin[d] == kNoIndex ? g[d] : m_ix.sub(g[d], b.origin[d]);
            out.push_back(m_ix.div(rel, b.step[d]));
        }
        return out;
    }

    /// The row of a global index in a row-addressed buffer (its current half), as C.
    std::string row(int buffer, const std::vector<IndexId>& g, const std::string& half)
    {
        const IndexId r = m_ix.addConst(lower::rowIndex(m_ix, m_t, m_n.buffers[buffer], g), m_rows[buffer].base);
        std::string text = strip(ix(r));
        if (m_rows[buffer].doubled && !half.empty())
            text += " + " + std::to_string(m_rows[buffer].rows) + " * " + half;
        return text;
    }

    // ---- double buffers ---------------------------------------------------------------------

    struct PingPong {
        int loop = -1;             ///< For statement
        std::vector<Cond> guards;  ///< between that loop and the buffer
    };

    void prepareDoubleBuffers(int id, int loop, std::vector<Cond> guards)
    {
        const Stmt& s = m_n.stmts[id];
        if (s.kind == Stmt::Kind::For) {
            loop = id;
            guards.clear();
        }
        if (s.kind == Stmt::Kind::If)
            guards.insert(guards.end(), s.conds.begin(), s.conds.end());
        if (s.kind == Stmt::Kind::Alloc && m_pingPong[s.buffer] && loop >= 0) {
            m_db[s.buffer] = PingPong{loop, guards};
            m_loopDb[loop].push_back(s.buffer);
        }
        for (int c : s.body)
            prepareDoubleBuffers(c, loop, guards);
    }

    /// The half of a double buffer in use: the parity of its loop.
    std::string half(int buffer)
    {
        auto it = m_db.find(buffer);
        if (it == m_db.end())
            return "";
        return "(" + slotText(m_n.stmts[it->second.loop].slot) + " & 1)";
    }

    // ---- transfers ---------------------------------------------------------------------------

    int transferId(const std::string& tensor, const std::string& from, const std::string& to)
    {
        const std::string name = tensor + " " + from + " " + to;
        for (size_t i = 0; i < m_transfers.size(); ++i)
            if (m_transfers[i] == name)
                return static_cast<int>(i);
        m_transfers.push_back(name);
        return static_cast<int>(m_transfers.size() - 1);
    }

    size_t countTransfers()
    {
        if (!m_counted) {
            std::ostringstream sink;
            m_os = &sink;
            stmt(m_n.root);
            m_counted = true;
        }
        return m_transfers.size();
    }

    // ---- statements ---------------------------------------------------------------------------

    void line(const std::string& s) { *m_os << std::string(m_indent * 4, ' ') << s << "\n"; }

    void open(const std::string& s)
    {
        line(s.empty() ? "{" : s + " {");
        ++m_indent;
    }

    void close()
    {
        --m_indent;
        line("}");
    }

    void body(const Stmt& s)
    {
        for (int c : s.body)
            stmt(c);
    }

    void stmt(int id)
    {
        const Stmt& s = m_n.stmts[id];
        if (s.helper)
            return;  // <kernel>_prepare
        switch (s.kind) {
        case Stmt::Kind::Block: body(s); break;
        case Stmt::Kind::For: loop(id, s); break;
        case Stmt::Kind::If:
            open("if (" + conds(s.conds) + ")");
            body(s);
            close();
            break;
        case Stmt::Kind::Alloc: alloc(s); break;
        case Stmt::Kind::Copy: copy(s); break;
        case Stmt::Kind::Fill: fill(s, half(s.buffer)); break;
        case Stmt::Kind::Matmul: matmul(m_n.matmuls[s.op]); break;
        case Stmt::Kind::AccInit:
        case Stmt::Kind::AccStore:
        case Stmt::Kind::Load:
        case Stmt::Kind::Compute:
            // Only the tiles' inits and stores reach here in a Gemmini nest, as whole tiles (alloc).
            break;
        }
    }

    void loop(int id, const Stmt& s)
    {
        if (onlyHelpers(id))
            return;
        for (int b : m_loopDb[id])
            if (!m_n.buffers[b].write)
                line("int " + readyFlag(b) + " = 0;  /* the next tile of " + m_n.buffers[b].name + " is already on its way */");
        if (s.loopKind == sched::LoopKind::Unrolled) {
            for (int64_t v = 0; v < s.extent; ++v) {
                m_override[s.slot] = std::to_string(v);
                open("");
                body(s);
                close();
            }
            m_override.erase(s.slot);
            return;
        }
        const std::string v = slotText(s.slot);
        open("for (int " + v + " = 0; " + v + " < " + std::to_string(s.extent) + "; ++" + v + ")");
        body(s);
        close();
    }

    std::string readyFlag(int buffer) const { return "ls_" + cIdentifier(m_n.buffers[buffer].name) + "_ready"; }

    void alloc(const Stmt& s)
    {
        const Buffer& b = m_n.buffers[s.buffer];
        if (s.buffer == m_init) {
            body(s);  // the initial row is a parameter; its computation is <kernel>_prepare
            return;
        }
        if (b.role == Buffer::Role::Accumulator) {
            // The accumulator tile: its initial rows, the blocks, its store.
            for (int c : s.body) {
                bool init = false;
                if (tileNest(m_n, c, s.buffer, init)) {
                    const Stmt* leaf = tileLeaf(m_n, c);
                    if (init)
                        tileInit(*leaf, s.buffer);
                    else
                        tileStore(*leaf, s.buffer);
                } else {
                    stmt(c);
                }
            }
            return;
        }
        line("/* " + b.name + ": " + m_t.levels[b.level].name + " rows " + std::to_string(m_rows[s.buffer].base) + ".."
             + std::to_string(m_rows[s.buffer].base + m_rows[s.buffer].rows * (m_rows[s.buffer].doubled ? 2 : 1) - 1)
             + (b.doubleBuffer ? ", two halves" : "") + " */");
        body(s);
    }

    /// mvin / mvout of a region: per outer index, per run of up to DIM rows along the dimension
    /// stored next to the innermost, per chunk of up to DIM lanes. `dram(g)` is the main-memory
    /// address of global index g, `local(g)` the local address.
    void rows(const lower::Region& r, const Buffer& rowBuffer, const std::function<std::string(const std::vector<IndexId>&)>& dram,
              const std::function<std::string(const std::vector<IndexId>&)>& localAddr, const std::string& macro, int transfer)
    {
        const std::vector<int> order = rowBuffer.storageOrder();
        const int last = order.back();
        const int second = order.size() >= 2 ? order[order.size() - 2] : -1;
        const size_t dims = r.min.size();
        open("");
        std::string nonEmpty;
        std::vector<IndexId> g(dims);
        for (size_t d = 0; d < dims; ++d) {
            line("const int n" + std::to_string(d) + " = " + strip(ix(r.count[d])) + ";");
            nonEmpty += (d ? " && " : "") + std::string("n") + std::to_string(d) + " > 0";
        }
        open("if (" + nonEmpty + ")");
        int opened = 0;
        std::string rowsText = "1", colsText;
        for (size_t d = 0; d < dims; ++d) {
            const std::string nd = "n" + std::to_string(d);
            int t = newTemp("t" + std::to_string(d));
            const std::string& v = m_temp[t];
            if (static_cast<int>(d) == last || static_cast<int>(d) == second) {
                open("for (int " + v + " = 0; " + v + " < " + nd + "; " + v + " += DIM)");
                (static_cast<int>(d) == last ? colsText : rowsText) = "LS_MIN(DIM, " + nd + " - " + v + ")";
            } else {
                open("for (int " + v + " = 0; " + v + " < " + nd + "; ++" + v + ")");
            }
            ++opened;
            g[d] = m_ix.add(r.min[d], m_ix.mul(m_ix.slot(t), r.step[d]));
        }
        line("LOOPSCOPE_GEMMINI_TRANSFER(" + std::to_string(transfer) + ");");
        line(macro + "(" + dram(g) + ", " + localAddr(g) + ", " + colsText + ", " + rowsText + ");");
        for (int i = 0; i < opened; ++i)
            close();
        close();
        close();
    }

    /// Main-memory stride in bytes between the rows a region's mvin moves (along `second`).
    int64_t dramStride(int tensor, const lower::Region& r, int second) const
    {
        if (second < 0)
            return 0;
        const auto& shape = m_k.tensors[tensor].shape;
        int64_t stride = 1;
        for (size_t e = second + 1; e < shape.size(); ++e)
            stride *= shape[e];
        return stride * r.step[second] * ir::dtypeBytes(m_k.tensors[tensor].dtype);
    }

    /// mvin, mvin2 or mvin3 and its config_ld id for a buffer of the stage.
    std::pair<std::string, int> mvinOf(const Buffer& b) const
    {
        if (b.role == Buffer::Role::Accumulator)
            return {"gemmini_extended_mvin3", 2};
        const auto& ops = m_n.matmuls[0];
        if (m_n.buffers[ops.b].tensor == b.tensor)
            return {"gemmini_extended_mvin2", 1};
        return {"gemmini_extended_mvin", 0};
    }

    void copy(const Stmt& s)
    {
        const Buffer& src = m_n.buffers[s.src];
        const Buffer& dst = m_n.buffers[s.buffer];
        auto pp = m_db.find(s.buffer);
        if (pp == m_db.end() || dst.write) {
            mvin(s, half(s.buffer));
            return;
        }
        // A ping-pong: the tile of this iteration came with the previous one, unless that was
        // the first or skipped; the next tile goes into the other half now, while this one computes.
        const Stmt& loopStmt = m_n.stmts[pp->second.loop];
        const std::string x = slotText(loopStmt.slot);
        const std::string ready = readyFlag(s.buffer);
        line("/* " + m_k.tensors[src.tensor].name + ": " + m_t.levels[src.level].name + " -> " + m_t.levels[dst.level].name + ", ping-pong over "
             + loopStmt.name + " */");
        open("if (!" + ready + ")");
        mvinWithFills(s, half(s.buffer));
        close();
        m_override[loopStmt.slot] = "(" + x + " + 1)";
        const std::string next = conds(pp->second.guards);
        m_override.erase(loopStmt.slot);
        line(ready + " = " + x + " + 1 < " + std::to_string(loopStmt.extent) + (next == "1" ? std::string() : " && " + next) + ";");
        open("if (" + ready + ")");
        m_override[loopStmt.slot] = "(" + x + " + 1)";
        mvinWithFills(s, "((" + x + " + 1) & 1)");
        m_override.erase(loopStmt.slot);
        close();
    }

    /// The copy of a ping-pong buffer and the fills of its halo (the statements that follow it in its allocation).
    void mvinWithFills(const Stmt& copyStmt, const std::string& halfText)
    {
        mvin(copyStmt, halfText);
        for (const Stmt& f : m_n.stmts)
            if (f.kind == Stmt::Kind::Fill && f.buffer == copyStmt.buffer)
                fill(f, halfText, true);
    }

    void mvin(const Stmt& s, const std::string& halfText)
    {
        const Buffer& src = m_n.buffers[s.src];
        const Buffer& dst = m_n.buffers[s.buffer];
        const std::vector<int> order = dst.storageOrder();
        const int second = order.size() >= 2 ? order[order.size() - 2] : -1;
        const auto [macro, id] = mvinOf(dst);
        m_used.insert(src.tensor);
        line("/* " + m_k.tensors[src.tensor].name + ": " + m_t.levels[src.level].name + " -> " + m_t.levels[dst.level].name + " */");
        line("gemmini_extended3_config_ld(" + std::to_string(dramStride(src.tensor, s.region, second)) + ", MVIN_SCALE_IDENTITY, false, " + std::to_string(id) + ");");
        const int transfer = transferId(m_k.tensors[src.tensor].name, m_t.levels[src.level].name, m_t.levels[dst.level].name);
        rows(
            s.region, dst, [&](const std::vector<IndexId>& g) { return "&" + cIdentifier(m_k.tensors[src.tensor].name) + "[" + strip(ix(homeOffset(src.tensor, g))) + "]"; },
            [&](const std::vector<IndexId>& g) { return row(s.buffer, g, halfText); }, macro, transfer);
    }

    void fill(const Stmt& s, const std::string& halfText, bool force = false)
    {
        // A ping-pong buffer's fills go with its copies (mvinWithFills).
        if (!force && m_db.count(s.buffer) && !m_n.buffers[s.buffer].write)
            return;
        const Buffer& dst = m_n.buffers[s.buffer];
        const auto [macro, id] = mvinOf(dst);
        std::string& pad = m_padRows[s.fillValue];
        if (pad.empty())
            pad = "ls_pad_row" + std::string(s.fillValue < 0 ? "_m" : "_") + std::to_string(s.fillValue < 0 ? -s.fillValue : s.fillValue);
        line("/* the padding halo of " + dst.name + ": " + std::to_string(s.fillValue) + " */");
        line("gemmini_extended3_config_ld(0, MVIN_SCALE_IDENTITY, false, " + std::to_string(id) + ");");
        const int transfer = transferId(m_k.tensors[dst.tensor].name, m_t.levels[0].name, m_t.levels[dst.level].name);
        const std::string padName = pad;
        rows(
            s.region, dst, [&](const std::vector<IndexId>&) { return padName; }, [&](const std::vector<IndexId>& g) { return row(s.buffer, g, halfText); }, macro,
            transfer);
    }

    void tileInit(const Stmt& leaf, int tile)
    {
        const Buffer& b = m_n.buffers[tile];
        const Buffer& src = m_n.buffers[leaf.src];
        const std::string srcName = leaf.src == m_init ? m_sig.initName : cIdentifier(src.name);
        if (leaf.src != m_init)
            m_used.insert(src.tensor);
        line("/* " + b.name + " starts from " + (leaf.src == m_init ? std::string("the initial row") : src.name) + ", repeated on every row (stride 0) */");
        line("gemmini_extended3_config_ld(0, MVIN_SCALE_IDENTITY, false, 2);");
        const int transfer = transferId(m_k.tensors[src.tensor].name, m_t.levels[0].name, m_t.levels[b.level].name);
        const size_t lastDim = leaf.region.min.size() - 1;
        rows(
            leaf.region, b, [&](const std::vector<IndexId>& g) { return "&" + srcName + "[" + strip(ix(g[lastDim])) + "]"; },
            [&](const std::vector<IndexId>& g) { return "LS_ACC | (" + row(tile, g, half(tile)) + ")"; }, "gemmini_extended_mvin3", transfer);
    }

    void tileStore(const Stmt& leaf, int tile)
    {
        const Buffer& b = m_n.buffers[tile];
        const ir::Stage& st = m_k.stages[leaf.stage];
        const int out = m_n.buffers[leaf.buffer].tensor;
        const std::string outName = cIdentifier(m_k.tensors[out].name);
        m_used.insert(out);
        if (st.requant && !m_opts.accScale)
            for (int q : {st.requant->multiplier.tensor, st.requant->shift.tensor})
                if (q >= 0)
                    m_used.insert(q);
        const int transfer = transferId(m_k.tensors[b.tensor].name, m_t.levels[b.level].name, m_t.levels[0].name);
        const size_t dims = leaf.region.min.size();
        const int second = static_cast<int>(dims) - 2;
        if (rawOutput(m_n, leaf.stage) || m_opts.accScale) {
            // Straight to the output: raw int32 sums, or int8 scaled by acc_scale.
            line("/* " + b.name + " -> " + m_k.tensors[out].name + (m_opts.accScale ? ", scaled by acc_scale */" : ", raw int32 */"));
            line("gemmini_config_st(" + std::to_string(dramStride(out, leaf.region, second)) + ");");
            rows(
                leaf.region, b, [&](const std::vector<IndexId>& g) { return "&" + outName + "[" + strip(ix(homeOffset(out, g))) + "]"; },
                [&](const std::vector<IndexId>& g) { return "LS_ACC | " + std::string(m_opts.accScale ? "" : "LS_RAW | ") + "(" + row(tile, g, half(tile)) + ")"; },
                "gemmini_extended_mvout", transfer);
            return;
        }
        // Raw int32 sums to a staging tile; the host requantizes them (TFLite-exact).
        m_requantize = m_requantize || st.requant.has_value();
        m_stageElements = std::max(m_stageElements, b.elements());
        line("/* " + b.name + " -> the staging tile, raw int32; the host requantizes it into " + m_k.tensors[out].name + " */");
        line("gemmini_config_st(" + std::to_string(b.shape[dims - 1] * 4) + ");");
        auto stageIndex = [&](const std::vector<IndexId>& g) {
            std::vector<IndexId> loc = local(b, g);
            IndexId off = m_ix.constant(0);
            for (size_t d = 0; d < dims; ++d)
                off = m_ix.add(m_ix.mul(off, b.shape[d]), loc[d]);
            return strip(ix(off));
        };
        rows(
            leaf.region, b, [&](const std::vector<IndexId>& g) { return "&ls_stage[" + stageIndex(g) + "]"; },
            [&](const std::vector<IndexId>& g) { return "LS_ACC | LS_RAW | (" + row(tile, g, half(tile)) + ")"; }, "gemmini_extended_mvout", transfer);
        line("gemmini_fence();  /* the host reads what mvout wrote */");
        open("");
        std::vector<IndexId> g(dims);
        std::string nonEmpty;
        for (size_t d = 0; d < dims; ++d) {
            line("const int n" + std::to_string(d) + " = " + strip(ix(leaf.region.count[d])) + ";");
        }
        for (size_t d = 0; d < dims; ++d) {
            int t = newTemp("e" + std::to_string(d));
            const std::string& v = m_temp[t];
            open("for (int " + v + " = 0; " + v + " < n" + std::to_string(d) + "; ++" + v + ")");
            g[d] = m_ix.add(leaf.region.min[d], m_ix.mul(m_ix.slot(t), leaf.region.step[d]));
        }
        const std::string acc = "ls_stage[" + stageIndex(g) + "]";
        std::string value = acc;
        if (st.requant) {
            const auto& rq = *st.requant;
            const std::string ch = strip(ix(g[dims - 1]));
            const std::string mult = rq.multiplier.tensor >= 0 ? cIdentifier(m_k.tensors[rq.multiplier.tensor].name) + "[" + ch + "]" : std::to_string(rq.multiplier.value);
            const std::string shift = rq.shift.tensor >= 0 ? cIdentifier(m_k.tensors[rq.shift.tensor].name) + "[" + ch + "]" : std::to_string(rq.shift.value);
            value = requantizeCall(acc, mult, shift, rq.outputOffset, rq.actMin, rq.actMax);
        }
        line(outName + "[" + strip(ix(homeOffset(out, g))) + "] = (" + cType(m_k.tensors[out].dtype) + ")" + (st.requant ? value : "(" + value + ")") + ";");
        for (size_t d = 0; d < dims; ++d)
            close();
        close();
    }

    int64_t aStride(const lower::MatmulOp& op)
    {
        // Scratchpad rows between A's consecutive rows: i moves one dimension of A by its
        // coefficient, which is that many local steps, times the rows of the dimensions stored inside it.
        const Buffer& a = m_n.buffers[op.a];
        const std::vector<int> order = a.storageOrder();
        for (size_t d = 0; d < op.aIndex.size(); ++d) {
            const IndexPool::Node n = m_ix.node(op.aIndex[d]);
            int64_t c = 0;
            if (n.op == IndexPool::Node::Op::Linear)
                for (const auto& t : n.terms)
                    if (t.atom == op.slotI)
                        c = t.coeff;
            if (c == 0)
                continue;
            int64_t inner = 1;
            bool inside = false;
            for (size_t i = 0; i + 1 < order.size(); ++i) {
                if (inside)
                    inner *= a.shape[order[i]];
                inside = inside || order[i] == static_cast<int>(d);
            }
            return c / a.step[d] * inner;
        }
        return 1;
    }

    std::string accScale() const
    {
        const auto& rq = *m_k.stages[m_stage].requant;
        const double scale = static_cast<double>(rq.multiplier.value) / 2147483648.0 * std::ldexp(1.0, static_cast<int>(rq.shift.value));
        std::ostringstream os;
        os.precision(9);
        os << scale << "f";
        return os.str();
    }

    void matmul(const lower::MatmulOp& op)
    {
        const bool ws = op.dataflow == sched::Dataflow::WeightStationary;
        auto origin = [](const lower::Region& r) { return r.min; };
        const std::string rows = strip(ix(op.rows)), cols = strip(ix(op.cols)), depth = strip(ix(op.depth));
        std::string accumulate;
        if (!op.overwriteFirst)
            accumulate = "LS_ACCUMULATE";
        else if (!op.firstSlots.empty()) {
            std::string any;
            for (int sl : op.firstSlots)
                any += (any.empty() ? "" : " || ") + slotText(sl) + " != 0";
            accumulate = "(" + any + " ? LS_ACCUMULATE : 0)";
        }
        open("");
        line("/* " + m_n.buffers[op.c].name + " += " + m_n.buffers[op.a].name + " x " + m_n.buffers[op.b].name + ": a " + std::to_string(op.extentI) + "x"
             + std::to_string(op.extentJ) + "x" + std::to_string(op.extentK) + " block */");
        line("const uint32_t a = " + row(op.a, origin(op.aRegion), half(op.a)) + ";");
        line("const uint32_t b = " + row(op.b, origin(op.bRegion), half(op.b)) + ";");
        line("const uint32_t c = LS_ACC | " + (accumulate.empty() ? std::string() : accumulate + " | ") + "(" + row(op.c, origin(op.cRegion), half(op.c)) + ");");
        const std::string reuse = op.reuseSlot >= 0 ? slotText(op.reuseSlot) : std::string();
        if (ws) {
            auto fresh = [&] {
                line("gemmini_extended_preload(b, c, " + cols + ", " + depth + ", " + cols + ", " + rows + ");");
                line("gemmini_extended_compute_preloaded(a, GARBAGE_ADDR, " + depth + ", " + rows + ", DIM, DIM);");
            };
            if (reuse.empty()) {
                fresh();
            } else {
                open("if (" + reuse + " == 0)");
                fresh();
                close();
                open("else");
                line("/* the weights stay in the PEs across " + m_n.slotNames[op.reuseSlot] + " */");
                line("gemmini_extended_preload(GARBAGE_ADDR, c, " + cols + ", " + depth + ", " + cols + ", " + rows + ");");
                line("gemmini_extended_compute_accumulated(a, GARBAGE_ADDR, " + depth + ", " + rows + ", DIM, DIM);");
                close();
            }
        } else {
            const std::string first = reuse.empty() ? "1" : reuse + " == 0";
            const std::string last = reuse.empty() ? "1" : reuse + " == " + std::to_string(op.reuseExtent - 1);
            if (!reuse.empty())
                line("/* the partial sums stay in the PEs across " + m_n.slotNames[op.reuseSlot] + "; the last one writes them out */");
            line("gemmini_extended_preload(GARBAGE_ADDR, " + (reuse.empty() ? std::string("c") : "(" + last + ") ? c : GARBAGE_ADDR") + ", DIM, DIM, " + cols + ", " + rows + ");");
            if (reuse.empty()) {
                line("gemmini_extended_compute_preloaded(a, b, " + depth + ", " + rows + ", " + cols + ", " + depth + ");");
            } else {
                open("if (" + first + ")");
                line("gemmini_extended_compute_preloaded(a, b, " + depth + ", " + rows + ", " + cols + ", " + depth + ");");
                close();
                open("else");
                line("gemmini_extended_compute_accumulated(a, b, " + depth + ", " + rows + ", " + cols + ", " + depth + ");");
                close();
            }
        }
        close();
    }

    // ---- <kernel>_prepare: the initial row on the host -------------------------------------------

    std::string prepare()
    {
        std::ostringstream os;
        std::ostream* saved = m_os;
        m_os = &os;
        const int savedIndent = m_indent;
        m_indent = 1;
        os << "/* The accumulator's initial row, once per set of weights: the bias plus the input offset times the sums of the weights'\n"
           << "   columns, so that the array multiplies the raw int8 inputs. */\n"
           << prepareSignature() << "\n{\n";
        helper(m_n.root);
        os << "}\n";
        m_os = saved;
        m_indent = savedIndent;
        return os.str();
    }

    void helper(int id)
    {
        const Stmt& s = m_n.stmts[id];
        switch (s.kind) {
        case Stmt::Kind::Block:
        case Stmt::Kind::Alloc:
            for (int c : s.body)
                helper(c);
            break;
        case Stmt::Kind::For: {
            if (!containsHelper(id))
                return;
            const std::string v = slotText(s.slot);
            open("for (int " + v + " = 0; " + v + " < " + std::to_string(s.extent) + "; ++" + v + ")");
            for (int c : s.body)
                helper(c);
            close();
            break;
        }
        case Stmt::Kind::AccInit:
            if (s.helper)
                line(m_sig.initName + "[" + strip(ix(s.index[0])) + "] = " + (s.src >= 0 ? cIdentifier(m_n.buffers[s.src].name) + "[" + strip(ix(s.srcIndex[0])) + "]" : "0") + ";");
            break;
        case Stmt::Kind::Load:
            if (s.helper)
                line("const int32_t " + cIdentifier(m_n.regNames[s.reg]) + " = " + cIdentifier(m_n.buffers[s.buffer].name) + "["
                     + strip(ix(homeOffset(m_n.buffers[s.buffer].tensor, s.index))) + "];");
            break;
        case Stmt::Kind::Compute:
            if (s.helper) {
                const lower::ValueNode& mul = m_n.values[s.value];
                line(m_sig.initName + "[" + strip(ix(s.index[0])) + "] += " + std::to_string(m_n.values[mul.a].intValue) + " * "
                     + cIdentifier(m_n.regNames[m_n.values[mul.b].reg]) + ";");
            }
            break;
        default: break;
        }
    }

    /// A loop of <kernel>_prepare: only helper statements inside.
    bool onlyHelpers(int id) const
    {
        const Stmt& s = m_n.stmts[id];
        if (s.kind != Stmt::Kind::For)
            return s.helper;
        for (int c : s.body)
            if (!onlyHelpers(c))
                return false;
        return true;
    }

    bool containsHelper(int id) const
    {
        const Stmt& s = m_n.stmts[id];
        if (s.helper)
            return true;
        for (int c : s.body)
            if (containsHelper(c))
                return true;
        return false;
    }

    const LoopNest& m_n;
    const ir::Kernel& m_k;
    const hw::Target& m_t;
    IndexPool m_ix;
    GemminiOptions m_opts;
    std::vector<lower::RowPlacement> m_rows;
    GemminiSignature m_sig;
    int m_init = -1;
    int m_stage = 0;
    int m_dim = 16;
    std::vector<std::string> m_slot;
    std::map<int, std::string> m_temp;
    std::map<int, std::string> m_override;
    std::vector<bool> m_pingPong;
    std::map<int, PingPong> m_db;
    std::map<int, std::vector<int>> m_loopDb;
    std::vector<std::string> m_transfers;
    std::map<int64_t, std::string> m_padRows;
    int64_t m_stageElements = 0;
    bool m_requantize = false;
    std::set<int> m_used;  ///< tensors the kernel body reads or writes
    bool m_floorDiv = false;
    bool m_counted = false;
    std::ostream* m_os = nullptr;
    int m_indent = 0;
};

} // namespace

std::string generateGemminiHeader(const LoopNest& nest, const GemminiOptions& options) { return Writer(nest, options).header(); }

std::string generateGemminiSource(const LoopNest& nest, const GemminiOptions& options) { return Writer(nest, options).source(); }

std::vector<GeneratedFile> gemminiSupportFiles(const std::string& kernelName)
{
    return harnessSupportFiles(kernelName, "gemmini/");
}

} // namespace loopscope::codegen
