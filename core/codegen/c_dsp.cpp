// The Arm DSP paths of vectorized int8 and int16 loops (planDsp in c_plans.h decides which):
//  - a reduction `acc += (x + c) * (y + d)`: two MACs per SMLAD into one accumulator; int8
//    operands are unpacked to int16 pairs (SXTB16/SXTAB16 for contiguous ones, PKHBT from single
//    bytes otherwise), int16 ones loaded as pairs (PKHBT when strided); a constant operand is a
//    pair constant;
//  - spatial lanes `acc[v] += (x[v] + c) * (y[v] + d)` (a depthwise convolution's channels):
//    each lane its own accumulator, one SMLABB or SMLATT per MAC on the unpacked halves.
// dspLoop() in c_decisions.h decides which. Each path writes "#if LOOPSCOPE_USE_DSP" and its loop; the caller follows with "#else" and
// the plain loop.
#include "codegen/c_writer.h"

#include <cstdio>
#include <functional>

namespace loopscope::codegen::detail {

using lower::Stmt;

namespace {

/// A 32-bit constant with `v` in both halves, as C.
std::string pairConstant(int64_t v)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "(int32_t)0x%08x", static_cast<unsigned>(((v & 0xffff) << 16) | (v & 0xffff)));
    return buf;
}

} // namespace

void CWriter::emitDsp(const Stmt& loop, const DspLoop& plan, bool writtenOut)
{
    if (plan.path == DspLoop::Path::Smlad)
        emitDspReduction(loop, plan, writtenOut);
    else
        emitDspLanes(loop, plan, writtenOut);
}

void CWriter::openDspSteps(const Stmt& s, int step, bool writtenOut, const std::function<void()>& stepBody)
{
    const std::string v = m_slot[s.slot];
    if (!writtenOut) {
        line("for (int " + v + " = 0; " + v + " < " + std::to_string(s.extent) + "; " + v + " += " + std::to_string(step) + ") {");
        ++m_indent;
        stepBody();
        --m_indent;
        line("}");
        return;
    }
    for (int64_t i = 0; i < s.extent; i += step) {
        line("{");
        ++m_indent;
        line("const int " + v + " = " + std::to_string(i) + ";");
        stepBody();
        --m_indent;
        line("}");
    }
}

/// Loads and unpacks one int8 operand of four lanes into `name`02 (lanes 0 and 2) and `name`13
/// (lanes 1 and 3), or one int16 operand of two lanes into `name`w; a constant operand becomes a
/// pair constant.
static void unpackOperand(const DspOperand& o, bool int8, const std::string& name, const std::string& base,
                          const std::function<void(const std::string&)>& line)
{
    if (!o.load) {
        const std::string c2 = pairConstant(o.constant);
        if (int8) {
            line("const int32_t " + name + "02 = " + c2 + ";");
            line("const int32_t " + name + "13 = " + c2 + ";");
        } else {
            line("const int32_t " + name + "w = " + c2 + ";");
        }
        return;
    }
    if (!int8) {
        if (o.stride == 1) {
            line("uint32_t " + name + "w;");
            line("memcpy(&" + name + "w, " + base + ", 4);");
        } else {
            line("const int16_t *" + name + "p = " + base + ";");
            line("const int32_t " + name + "w = ls_pkhbt(" + name + "p[0], " + name + "p[" + std::to_string(o.stride) + "]);");
        }
        return;
    }
    const std::string c2 = pairConstant(o.offset);
    if (o.stride == 1) {
        line("uint32_t " + name + "w;");
        line("memcpy(&" + name + "w, " + base + ", 4);");
        if (o.offset == 0) {
            // Sign extension alone: no constant register.
            line("const int32_t " + name + "02 = __sxtb16((int32_t)" + name + "w);");
            line("const int32_t " + name + "13 = ls_sxtb16_ror8((int32_t)" + name + "w);");
        } else {
            line("const int32_t " + name + "02 = __sxtab16(" + c2 + ", (int32_t)" + name + "w);");
            line("const int32_t " + name + "13 = ls_sxtab16_ror8(" + c2 + ", (int32_t)" + name + "w);");
        }
        return;
    }
    line("const int8_t *" + name + "p = " + base + ";");
    auto half = [&](int i, int j) {
        return "ls_pkhbt(" + name + "p[" + std::to_string(i * o.stride) + "], " + name + "p[" + std::to_string(j * o.stride) + "])";
    };
    if (o.offset == 0) {
        line("const int32_t " + name + "02 = " + half(0, 2) + ";");
        line("const int32_t " + name + "13 = " + half(1, 3) + ";");
    } else {
        line("const int32_t " + name + "02 = __sadd16(" + half(0, 2) + ", " + c2 + ");");
        line("const int32_t " + name + "13 = __sadd16(" + half(1, 3) + ", " + c2 + ");");
    }
}

void CWriter::emitDspReduction(const Stmt& s, const DspLoop& plan, bool writtenOut)
{
    const bool int8 = plan.int8;
    const Stmt& update = *plan.update;
    const std::string acc = access(update.buffer, update.index);
    auto base = [&](const DspOperand& o) { return o.load ? address(o.load->buffer, o.load->index) : std::string(); };
    auto emit = [this](const std::string& l) { line(l); };
    line("#if LOOPSCOPE_USE_DSP");
    line("/* " + s.name + ": vectorized " + (int8 ? "int8" : "int16") + " multiply-accumulate, 2 MACs per SMLAD */");
    openDspSteps(s, plan.lanes, writtenOut, [&] {
        unpackOperand(plan.x, int8, "lx", base(plan.x), emit);
        unpackOperand(plan.y, int8, "ly", base(plan.y), emit);
        if (int8) {
            line(acc + " = __smlad(lx02, ly02, " + acc + ");");
            line(acc + " = __smlad(lx13, ly13, " + acc + ");");
        } else {
            line(acc + " = __smlad((int32_t)lxw, (int32_t)lyw, " + acc + ");");
        }
    });
}

void CWriter::emitDspLanes(const Stmt& s, const DspLoop& plan, bool writtenOut)
{
    const bool int8 = plan.int8;
    const Stmt& update = *plan.update;
    const std::string accBase = m_bufName[update.buffer] + select(update.buffer) + "[" + strip(ix(flat(update.buffer, update.index)));
    auto lane = [&](int j) { return accBase + (j ? " + " + std::to_string(j) : std::string()) + "]"; };
    auto base = [&](const DspOperand& o) { return address(o.load->buffer, o.load->index); };
    auto emit = [this](const std::string& l) { line(l); };
    line("#if LOOPSCOPE_USE_DSP");
    line("/* " + s.name + ": " + (int8 ? "4" : "2") + " lanes of " + (int8 ? "int8" : "int16") + ", each its own accumulator: one SMLABB or SMLATT per MAC */");
    openDspSteps(s, plan.lanes, writtenOut, [&] {
        unpackOperand(plan.x, int8, "lx", base(plan.x), emit);
        unpackOperand(plan.y, int8, "ly", base(plan.y), emit);
        if (int8) {
            line(lane(0) + " = __smlabb(lx02, ly02, " + lane(0) + ");");
            line(lane(1) + " = __smlabb(lx13, ly13, " + lane(1) + ");");
            line(lane(2) + " = __smlatt(lx02, ly02, " + lane(2) + ");");
            line(lane(3) + " = __smlatt(lx13, ly13, " + lane(3) + ");");
        } else {
            line(lane(0) + " = __smlabb((int32_t)lxw, (int32_t)lyw, " + lane(0) + ");");
            line(lane(1) + " = __smlatt((int32_t)lxw, (int32_t)lyw, " + lane(1) + ");");
        }
    });
}

} // namespace loopscope::codegen::detail
