// The export harness's main.c: deterministic inputs, the scheduled kernel, a naive reference
// written straight from the kernel (independent of the schedule), comparison, checksum, and
// DMA hooks that count the bytes of every transfer.
#include "codegen/c_codegen.h"
#include "codegen/c_fold.h"
#include "codegen/c_decisions.h"
#include "codegen/gemmini_codegen.h"

#include <sstream>

namespace loopscope::codegen {

namespace {

enum class Role { Plain, Bias, Multiplier, Shift };

Role roleOf(const ir::Kernel& k, int t)
{
    for (const auto& st : k.stages)
        if (st.requant) {
            if (st.requant->bias == t)
                return Role::Bias;
            if (st.requant->multiplier.tensor == t)
                return Role::Multiplier;
            if (st.requant->shift.tensor == t)
                return Role::Shift;
        }
    return Role::Plain;
}

/// main.c's check of the kernel's requantization (the fast, branch-free ls_requantize, with
/// SSAT/USAT/SMMLAR on cores that have them) against the reference's literal TFLite formulation,
/// on edge cases (extreme accumulators, multipliers in TFLite's range [0, 2^31 - 1], every shift in
/// [-40, 40]) and on pseudo-random inputs from a generator of its own (the data of the kernel run is
/// unchanged).
const char* const kRequantizeCheck = R"(static long check_requantize(void)
{
    static const int32_t accs[] = {0, 1, -1, 2, -2, 3, -3, 255, -256, 12345, -12345, 1 << 30, -(1 << 30),
                                   INT32_MAX, INT32_MIN, INT32_MIN + 1, INT32_MAX - 1};
    static const int32_t mults[] = {0, 1, 2, (1 << 30) - 1, 1 << 30, (1 << 30) + 1, 1518500250, INT32_MAX - 1, INT32_MAX};
    uint32_t s = 2463534242u;
    long bad = 0, n;
    int32_t shift;
    size_t a, m;
    for (a = 0; a < sizeof accs / sizeof accs[0]; ++a)
        for (m = 0; m < sizeof mults / sizeof mults[0]; ++m)
            for (shift = -40; shift <= 40; ++shift) {
                bad += LS_SAT(ls_requantize(accs[a], mults[m], shift, -3), 8, -128, 127) != ls_ref_requantize(accs[a], mults[m], shift, -3, -128, 127);
                bad += ls_clamp(ls_requantize(accs[a], mults[m], shift, 7), -1000, 1000) != ls_ref_requantize(accs[a], mults[m], shift, 7, -1000, 1000);
                bad += ls_requantize(accs[a], mults[m], shift, -3) != ls_ref_requantize(accs[a], mults[m], shift, -3, INT32_MIN, INT32_MAX);
            }
    for (n = 0; n < 20000; ++n) {
        int32_t acc, mult, sh;
        s ^= s << 13; s ^= s >> 17; s ^= s << 5;
        acc = (int32_t)s >> (s & 15u);
        s ^= s << 13; s ^= s >> 17; s ^= s << 5;
        mult = (int32_t)(s >> 1); /* TFLite's multipliers are in [0, 2^31 - 1] */
        s ^= s << 13; s ^= s >> 17; s ^= s << 5;
        sh = (int32_t)(s % 64u) - 32;
        bad += LS_SAT(ls_requantize(acc, mult, sh, 5), 16, -32768, 32767) != ls_ref_requantize(acc, mult, sh, 5, -32768, 32767);
    }
    bad += ls_requantize(5, 1 << 30, INT32_MIN, 0) != ls_ref_requantize(5, 1 << 30, INT32_MIN, 0, INT32_MIN, INT32_MAX);
    bad += ls_requantize(5, 1 << 30, INT32_MAX, 0) != ls_ref_requantize(5, 1 << 30, INT32_MAX, 0, INT32_MIN, INT32_MAX);
    printf("requantize check: %ld mismatches\n", bad);
    return bad;
}

)";

class HarnessWriter {
public:
    HarnessWriter(const lower::LoopNest& n, uint64_t seed) : m_n(n), m_k(*n.kernel), m_seed(seed) {}
    /// A Gemmini export: the functional model's counters instead of DMA hooks, <kernel>_prepare
    /// before the kernel; with `accScale`, results within 1 of TFLite's count as matching.
    HarnessWriter(const lower::LoopNest& n, uint64_t seed, bool accScale) : m_n(n), m_k(*n.kernel), m_seed(seed), m_gemmini(true), m_accScale(accScale) {}

    std::string run()
    {
        const std::string kid = cIdentifier(m_k.name);
        std::ostringstream& os = m_os;
        os << "/* main.c: Loopscope export harness for " << m_k.name << ". Fills the inputs deterministically, runs the\n"
           << "   scheduled kernel and a naive reference, prints a checksum of the outputs and the number of\n"
           << "   mismatching elements (integers: exact; floats: |a - b| <= 1e-3 + 1e-4 |b|), then the bytes\n"
           << "   that went through each DMA transfer. Returns 1 on any mismatch. */\n"
           << "#include \"" << kid << ".h\"\n\n#include <stddef.h>\n#include <stdint.h>\n#include <stdio.h>\n#include <string.h>\n\n";
        os << "static uint32_t ls_state = " << static_cast<uint32_t>(m_seed * 2654435761u + 1u) << "u;\n"
           << "static uint32_t ls_next(void)\n{\n    /* xorshift32: the same sequence on every platform */\n"
           << "    ls_state ^= ls_state << 13;\n    ls_state ^= ls_state >> 17;\n    ls_state ^= ls_state << 5;\n    return ls_state;\n}\n"
           << "static int32_t ls_range(int32_t lo, int32_t hi) { return lo + (int32_t)(ls_next() % (uint32_t)(hi - lo + 1)); }\n\n";
        if (m_gemmini)
            os << "/* The functional model's counters (gemmini.h, gemmini_model.c): bytes per transfer, instructions per funct. */\n"
               << "#include \"gemmini.h\"\n#define LS_TRANSFERS " << upper(kid) << "_TRANSFER_COUNT\n#define ls_bytes loopscope_gemmini_transfer_bytes\n\n";
        else
        os << "#define LS_TRANSFERS " << upper(kid) << "_TRANSFER_COUNT\n"
           << "static unsigned long ls_bytes[LS_TRANSFERS + 1];\n"
           << "/* Counting DMA hooks: they replace the kernel's weak defaults (the same memcpy loop, plus the byte\n"
           << "   count). On the Cortex-M builds they sit in a section of their own, whose instructions count as\n"
           << "   copies. The instruction-counting builds (make insns-m7) define LOOPSCOPE_HARNESS_DEFAULT_DMA and keep\n"
           << "   the kernel's own defaults, as a firmware without a DMA engine does (the bytes below then read 0). */\n"
           << "#ifndef LOOPSCOPE_HARNESS_DEFAULT_DMA\n"
           << "#if defined(__arm__) && defined(__GNUC__)\n#define LS_DMA_SECTION __attribute__((section(\".text.loopscope_dma\")))\n#else\n#define LS_DMA_SECTION\n#endif\n"
           << "LS_DMA_SECTION void loopscope_dma_copy(void *dst, const void *src, size_t row_bytes, size_t rows, size_t dst_stride, size_t src_stride, int transfer)\n{\n"
           << "    size_t r;\n    for (r = 0; r < rows; ++r)\n        memcpy((char *)dst + r * dst_stride, (const char *)src + r * src_stride, row_bytes);\n"
           << "    if (transfer >= 0 && transfer < LS_TRANSFERS)\n        ls_bytes[transfer] += (unsigned long)(row_bytes * rows);\n}\n"
           << "LS_DMA_SECTION void loopscope_dma_wait(void) {}\n"
           << (hasWideningCopy(m_n) ? widenCopyFunctionC("LS_DMA_SECTION ", true) : std::string()) << "#endif\n\n";
        if (hasRequantize())
            os << requantizeFunctionC() << "\n" << referenceRequantizeFunctionC() << "\n" << kRequantizeCheck;
        // Tensors: the kernel's and the reference's copies of everything computed.
        const GemminiSignature sig = m_gemmini ? gemminiSignature(m_n) : GemminiSignature{};
        if (sig.initRow)
            os << "static int32_t t_" << sig.initName << "[" << sig.initElements << "];\n";
        if (!m_gemmini)
            for (const lower::OffsetFold& f : m_n.offsetFolds)
                os << "static int32_t t_" << foldedBiasName(m_n, f) << "[" << m_k.tensors[f.bias].elements() << "];\n";
        for (size_t t = 0; t < m_k.tensors.size(); ++t) {
            const ir::Tensor& ten = m_k.tensors[t];
            if (isParameter(static_cast<int>(t)))
                os << "static " << cType(ten.dtype) << " t_" << cIdentifier(ten.name) << "[" << ten.elements() << "];\n";
            if (!m_k.isInput(static_cast<int>(t)))
                os << "static " << cType(ten.dtype) << " ref_" << cIdentifier(ten.name) << "[" << ten.elements() << "];\n";
        }
        os << "\nstatic void fill_inputs(void)\n{\n    long i;\n";
        for (size_t t = 0; t < m_k.tensors.size(); ++t) {
            const ir::Tensor& ten = m_k.tensors[t];
            if (!m_k.isInput(static_cast<int>(t)))
                continue;
            std::string v;
            switch (roleOf(m_k, static_cast<int>(t))) {
            case Role::Bias: v = "ls_range(-5000, 5000)"; break;
            case Role::Multiplier: v = "ls_range(1073741824, 2147483646)"; break;
            case Role::Shift: v = "ls_range(-12, 2)"; break;
            case Role::Plain:
                v = ten.dtype == ir::DType::Float32 ? "(float)ls_range(-1000, 1000) / 1000.0f"
                    : ten.dtype == ir::DType::Int8  ? "ls_range(-128, 127)"
                                                    : "ls_range(-1000, 1000)";
            }
            os << "    for (i = 0; i < " << ten.elements() << "; ++i)\n        t_" << cIdentifier(ten.name) << "[i] = (" << cType(ten.dtype) << ")" << v << ";\n";
        }
        os << "}\n\n";
        reference();
        // main
        os << "static uint32_t ls_fnv(uint32_t h, uint32_t v)\n{\n    int b;\n    for (b = 0; b < 4; ++b) {\n        h ^= (v >> (8 * b)) & 0xffu;\n        h *= 16777619u;\n    }\n    return h;\n}\n\n";
        os << "int main(void)\n{\n    long ls_i, ls_mismatches = 0;\n    uint32_t ls_checksum = 2166136261u;\n    int ls_t;\n    fill_inputs();\n"
           << (hasRequantize() ? "    ls_mismatches += check_requantize();\n" : "");
        if (!m_gemmini && !m_n.offsetFolds.empty()) {
            // The kernel takes the biases with the input offset folded in; the reference the model's.
            os << "    " << kid << "_prepare(";
            for (int t : prepareInputs(m_n))
                os << "t_" << cIdentifier(m_k.tensors[t].name) << ", ";
            for (size_t f = 0; f < m_n.offsetFolds.size(); ++f)
                os << (f ? ", " : "") << "t_" << foldedBiasName(m_n, m_n.offsetFolds[f]);
            os << ");\n";
        }
        if (sig.initRow) {
            os << "    " << kid << "_prepare(";
            for (int t : sig.prepareParams)
                os << "t_" << cIdentifier(m_k.tensors[t].name) << ", ";
            os << "t_" << sig.initName << ");\n";
        }
        os << "    " << kid << "(";
        bool first = true;
        for (size_t t = 0; t < m_k.tensors.size(); ++t) {
            if (!isParameter(static_cast<int>(t)))
                continue;
            std::string name = cIdentifier(m_k.tensors[t].name);
            for (const lower::OffsetFold& f : m_n.offsetFolds)
                if (!m_gemmini && f.bias == static_cast<int>(t))
                    name = foldedBiasName(m_n, f);
            os << (first ? "" : ", ") << "t_" << name;
            first = false;
        }
        if (sig.initRow)
            os << ", t_" << sig.initName;
        os << ");\n    reference();\n";
        for (size_t t = 0; t < m_k.tensors.size(); ++t) {
            if (!m_k.isOutput(static_cast<int>(t)))
                continue;
            const ir::Tensor& ten = m_k.tensors[t];
            const std::string got = "t_" + cIdentifier(ten.name), want = "ref_" + cIdentifier(ten.name);
            os << "    for (ls_i = 0; ls_i < " << ten.elements() << "; ++ls_i) {\n";
            if (ten.dtype == ir::DType::Float32) {
                os << "        float d = " << got << "[ls_i] - " << want << "[ls_i], w = " << want << "[ls_i];\n"
                   << "        uint32_t bits;\n        if (d < 0) d = -d;\n        if (w < 0) w = -w;\n"
                   << "        if (!(d <= 1e-3f + 1e-4f * w)) {\n            if (ls_mismatches == 0) printf(\"first mismatch: " << ten.name
                   << "[%ld] = %g, expected %g\\n\", ls_i, (double)" << got << "[ls_i], (double)" << want << "[ls_i]);\n            ++ls_mismatches;\n        }\n"
                   << "        memcpy(&bits, &" << got << "[ls_i], sizeof bits);\n        ls_checksum = ls_fnv(ls_checksum, bits);\n";
            } else if (m_accScale) {
                // Gemmini's float scale rounds differently from TFLite's fixed-point multiply.
                os << "        if (" << got << "[ls_i] - " << want << "[ls_i] > 1 || " << want << "[ls_i] - " << got << "[ls_i] > 1) {\n            if (ls_mismatches == 0) printf(\"first mismatch beyond 1: " << ten.name
                   << "[%ld] = %ld, expected %ld\\n\", ls_i, (long)" << got << "[ls_i], (long)" << want << "[ls_i]);\n            ++ls_mismatches;\n        }\n"
                   << "        ls_checksum = ls_fnv(ls_checksum, (uint32_t)(int32_t)" << got << "[ls_i]);\n";
            } else {
                os << "        if (" << got << "[ls_i] != " << want << "[ls_i]) {\n            if (ls_mismatches == 0) printf(\"first mismatch: " << ten.name
                   << "[%ld] = %ld, expected %ld\\n\", ls_i, (long)" << got << "[ls_i], (long)" << want << "[ls_i]);\n            ++ls_mismatches;\n        }\n"
                   << "        ls_checksum = ls_fnv(ls_checksum, (uint32_t)(int32_t)" << got << "[ls_i]);\n";
            }
            os << "    }\n";
        }
        os << "    printf(\"checksum 0x%08lx mismatches %ld\\n\", (unsigned long)ls_checksum, ls_mismatches);\n"
           << "    for (ls_t = 0; ls_t < LS_TRANSFERS; ++ls_t)\n        printf(\"transfer %s bytes %lu\\n\", " << kid << "_transfers[ls_t], ls_bytes[ls_t]);\n";
        if (m_gemmini)
            os << "    printf(\"gemmini instructions config %lu mvin %lu mvout %lu preload %lu compute %lu flush %lu\\n\", loopscope_gemmini_instructions[k_CONFIG],\n"
               << "           loopscope_gemmini_instructions[k_MVIN] + loopscope_gemmini_instructions[k_MVIN2] + loopscope_gemmini_instructions[k_MVIN3],\n"
               << "           loopscope_gemmini_instructions[k_MVOUT], loopscope_gemmini_instructions[k_PRELOAD],\n"
               << "           loopscope_gemmini_instructions[k_COMPUTE_PRELOADED] + loopscope_gemmini_instructions[k_COMPUTE_ACCUMULATE], loopscope_gemmini_instructions[k_FLUSH]);\n";
        os << "    return ls_mismatches != 0;\n}\n";
        return os.str();
    }

private:
    bool hasRequantize() const
    {
        for (const auto& st : m_k.stages)
            if (st.requant)
                return true;
        return false;
    }

    static std::string upper(std::string s)
    {
        for (char& c : s)
            c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
        return s;
    }

    /// Tensors the kernel takes as arguments (those stored in their home level).
    bool isParameter(int t) const
    {
        for (const auto& b : m_n.buffers)
            if (b.role == lower::Buffer::Role::Home && b.tensor == t)
                return true;
        return false;
    }

    std::string array(int t) const
    {
        return (m_k.isInput(t) ? "t_" : "ref_") + cIdentifier(m_k.tensors[t].name);
    }

    std::string index(const ir::Stage& st, const ir::Access& a) const
    {
        const ir::Tensor& t = m_k.tensors[a.tensor];
        std::string flat;
        for (size_t d = 0; d < a.index.size(); ++d) {
            std::string e = std::to_string(a.index[d].constant);
            for (const auto& term : a.index[d].terms)
                e += " + " + std::to_string(term.coeff) + " * x" + std::to_string(term.axis);
            flat = flat.empty() ? "(" + e + ")" : "(" + flat + ") * " + std::to_string(t.shape[d]) + " + (" + e + ")";
        }
        (void)st;
        return flat.empty() ? "0" : flat;
    }

    std::string expr(const ir::Stage& st, const ir::Expr& e) const
    {
        switch (e.kind) {
        case ir::Expr::Kind::Const:
            if (m_k.isFloatKernel()) {
                std::ostringstream os;
                os.precision(9);
                os << (e.isFloatConst ? e.floatValue : static_cast<double>(e.intValue));
                std::string s = os.str();
                if (s.find_first_of(".eE") == std::string::npos)
                    s += ".0";
                return s + "f";
            }
            return "(int64_t)" + std::to_string(e.intValue);
        case ir::Expr::Kind::Load:
            return std::string(m_k.isFloatKernel() ? "" : "(int64_t)") + array(e.access.tensor) + "[" + index(st, e.access) + "]";
        case ir::Expr::Kind::Neg: return "(-" + expr(st, *e.a) + ")";
        case ir::Expr::Kind::Add: return "(" + expr(st, *e.a) + " + " + expr(st, *e.b) + ")";
        case ir::Expr::Kind::Sub: return "(" + expr(st, *e.a) + " - " + expr(st, *e.b) + ")";
        case ir::Expr::Kind::Mul: return "(" + expr(st, *e.a) + " * " + expr(st, *e.b) + ")";
        }
        return "0";
    }

    void reference()
    {
        std::ostringstream& os = m_os;
        os << "/* The unscheduled kernel, straight from its definition. */\nstatic void reference(void)\n{\n";
        for (const auto& st : m_k.stages) {
            os << "    /* " << st.source << " */\n    {\n";
            std::string ind = "        ";
            int spatial = st.spatialCount();
            for (int a = 0; a < spatial; ++a) {
                os << ind << "int x" << a << ";\n";
            }
            for (size_t a = spatial; a < st.axes.size(); ++a)
                os << ind << "int x" << a << ";\n";
            for (int a = 0; a < spatial; ++a) {
                os << ind << "for (x" << a << " = 0; x" << a << " < " << st.axes[a].extent << "; ++x" << a << ")\n";
                ind += "    ";
            }
            os << ind.substr(4) << "{\n";
            const char* accType = m_k.isFloatKernel() ? "float" : "int64_t";
            const std::string out = array(st.output.tensor) + "[" + index(st, st.output) + "]";
            const ir::DType outType = m_k.tensors[st.output.tensor].dtype;
            if (!st.accumulate) {
                os << ind << out << " = (" << cType(outType) << ")" << expr(st, *st.value) << ";\n";
            } else {
                std::string init = m_k.isFloatKernel() ? "0.0f" : "0";
                // The output channel indexing the per-channel parameters, over the x variables.
                std::string channel;
                if (st.requant && st.requant->channel) {
                    channel = std::to_string(st.requant->channel->constant);
                    for (const auto& term : st.requant->channel->terms)
                        channel += " + " + std::to_string(term.coeff) + " * x" + std::to_string(term.axis);
                    channel = "[" + channel + "]";
                }
                if (st.requant && st.requant->bias >= 0)
                    init = "t_" + cIdentifier(m_k.tensors[st.requant->bias].name) + channel;
                os << ind << accType << " acc = " << init << ";\n";
                std::string rind = ind;
                for (size_t a = spatial; a < st.axes.size(); ++a) {
                    os << rind << "for (x" << a << " = 0; x" << a << " < " << st.axes[a].extent << "; ++x" << a << ")\n";
                    rind += "    ";
                }
                os << rind.substr(4) << "{\n";
                if (st.padZero) {
                    std::string cond;
                    for (const auto& acc : st.loads())
                        for (size_t d = 0; d < acc.index.size(); ++d) {
                            std::string e = std::to_string(acc.index[d].constant);
                            for (const auto& term : acc.index[d].terms)
                                e += " + " + std::to_string(term.coeff) + " * x" + std::to_string(term.axis);
                            cond += (cond.empty() ? "" : " || ") + std::string("(") + e + ") < 0 || (" + e + ") >= " + std::to_string(m_k.tensors[acc.tensor].shape[d]);
                        }
                    if (!cond.empty())
                        os << rind << "if (" << cond << ") continue;\n";
                }
                os << rind << "acc += " << expr(st, *st.value) << ";\n" << rind.substr(4) << "}\n";
                if (st.requant) {
                    const auto& rq = *st.requant;
                    const std::string& ch = channel;
                    std::string mult = rq.multiplier.tensor >= 0 ? "t_" + cIdentifier(m_k.tensors[rq.multiplier.tensor].name) + ch : std::to_string(rq.multiplier.value);
                    std::string shift = rq.shift.tensor >= 0 ? "t_" + cIdentifier(m_k.tensors[rq.shift.tensor].name) + ch : std::to_string(rq.shift.value);
                    os << ind << out << " = (" << cType(outType) << ")ls_ref_requantize((int32_t)acc, " << mult << ", " << shift << ", " << rq.outputOffset << ", " << rq.actMin
                       << ", " << rq.actMax << ");\n";
                } else {
                    os << ind << out << " = (" << cType(outType) << ")acc;\n";
                }
            }
            os << ind.substr(4) << "}\n    }\n";
        }
        os << "}\n\n";
    }

    const lower::LoopNest& m_n;
    const ir::Kernel& m_k;
    uint64_t m_seed;
    bool m_gemmini = false;
    bool m_accScale = false;
    std::ostringstream m_os;
};

} // namespace

std::string generateHarnessMain(const lower::LoopNest& nest, uint64_t seed) { return HarnessWriter(nest, seed).run(); }

std::string generateGemminiHarnessMain(const lower::LoopNest& nest, uint64_t seed, bool accScale) { return HarnessWriter(nest, seed, accScale).run(); }

} // namespace loopscope::codegen
