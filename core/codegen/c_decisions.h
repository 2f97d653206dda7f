// What the C generator decides about a loop nest, as data: how it indexes a buffer, where it
// takes the Arm DSP path, how it splits a copy into DMA-hook calls. The generator writes its
// code from these decisions and the cost model's instruction count follows the same ones
// (analysis/instructions.cpp), so the two cannot drift apart.
#pragma once

#include "lower/loop_nest.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace loopscope::codegen {

/// Coefficients per loop counter (slot), kept sorted by slot. Expressions involve few loops,
/// so they live in place (the cost model builds many of them per analysis) and spill to the
/// heap only beyond kInline.
class SlotCoefficients {
public:
    using Term = std::pair<int, int64_t>;

    void add(int slot, int64_t c)
    {
        Term* b = data();
        Term* e = b + m_size;
        Term* it = std::lower_bound(b, e, slot, [](const Term& t, int s) { return t.first < s; });
        if (it != e && it->first == slot) {
            it->second += c;
            return;
        }
        const size_t at = static_cast<size_t>(it - b);
        if (m_size == kInline && m_heap.empty())
            m_heap.assign(m_inline.begin(), m_inline.end());
        if (!m_heap.empty() || m_size >= kInline) {
            m_heap.insert(m_heap.begin() + static_cast<std::ptrdiff_t>(at), Term{slot, c});
        } else {
            for (size_t k = m_size; k > at; --k)
                m_inline[k] = m_inline[k - 1];
            m_inline[at] = {slot, c};
        }
        ++m_size;
    }
    int64_t operator[](int slot) const
    {
        for (const Term& t : *this)
            if (t.first == slot)
                return t.second;
        return 0;
    }
    void dropZeros()
    {
        Term* b = data();
        Term* e = std::remove_if(b, b + m_size, [](const Term& t) { return t.second == 0; });
        m_size = static_cast<size_t>(e - b);
        if (!m_heap.empty())
            m_heap.resize(m_size);
    }
    const Term* begin() const { return data(); }
    const Term* end() const { return data() + m_size; }
    size_t size() const { return m_size; }
    bool empty() const { return m_size == 0; }
    bool operator==(const SlotCoefficients& o) const { return std::equal(begin(), end(), o.begin(), o.end()); }

private:
    static constexpr size_t kInline = 12;
    Term* data() { return m_heap.empty() ? m_inline.data() : m_heap.data(); }
    const Term* data() const { return m_heap.empty() ? m_inline.data() : m_heap.data(); }
    std::array<Term, kInline> m_inline{};
    size_t m_size = 0;
    std::vector<Term> m_heap;
};

/// An element offset into a buffer as the generated C computes it: a linear form over loop
/// counters plus terms the code computes otherwise (a fused loop's division or modulo).
/// A cache's origin that is not affine is a local the code computes where the buffer is
/// allocated: a constant inside its scope, part of `base`.
struct BufferOffset {
    SlotCoefficients coeff;         ///< slot -> elements per unit
    int64_t constant = 0;
    bool base = false;              ///< a non-affine origin (a local computed at the allocation) is added
    std::vector<lower::IndexId> nonlinear;  ///< division/modulo/min/max terms recomputed where they change
                                            ///< (a rolling buffer's row index: the index along its rollDim)
    bool pureLinear = true;         ///< no nonlinear terms but a rolling buffer's row (the DSP path needs this)

    int64_t coefficient(int slot) const { return coeff[slot]; }
};

/// The offset of `buffer[index]` (global tensor indices, or the flat index of an accumulator).
BufferOffset bufferOffset(const lower::LoopNest& nest, int buffer, const std::vector<lower::IndexId>& index);

/// Elements between neighbours of dimension `dim` of `buffer` for a region with step `regionStep`.
int64_t bufferStride(const lower::Buffer& buffer, size_t dim, int64_t regionStep);

/// One operand of a DSP multiply-accumulate: a load plus a constant offset, and its element
/// distance between neighbouring lanes; or, with `load` null, a constant (`constant`).
struct DspOperand {
    const lower::Stmt* load = nullptr;
    int64_t offset = 0;
    int64_t stride = 0;
    int64_t constant = 0;   ///< the operand's value when load is null
};

/// A vectorized loop written on an Arm DSP path:
///  - Path::Smlad, a reduction `acc += (x + c) * (y + d)`, two MACs per SMLAD into one
///    accumulator: int8 (four lanes per step, SXTAB16/SXTB16 unpacking when contiguous, PKHBT
///    otherwise) or int16 (two lanes per step, one word per contiguous operand, PKHBT
///    otherwise); a constant y is a pair constant;
///  - Path::Lanes, a spatial loop whose iterations update consecutive accumulators
///    `acc[v] += (x[v] + c) * (y[v] + d)` (a depthwise convolution's channels), both operands
///    contiguous: one word load and two unpacks per operand per step, one SMLABB or SMLATT per
///    MAC (int8: four lanes per step; int16: two, one word each, no unpacking).
struct DspLoop {
    enum class Path { Smlad, Lanes };
    Path path = Path::Smlad;
    bool int8 = true;
    int lanes = 4;                        ///< loop iterations per step
    DspOperand x, y;                      ///< y is the constant one, if any
    const lower::Stmt* update = nullptr;  ///< the accumulating Compute
};

/// Whether the generator writes the vectorized loop `loop` on a DSP path, and how (nullopt:
/// plain C). Requires a target with `dsp`, a body of int8 or int16 operand loads and one int32
/// update, an extent that is a multiple of the lanes, offsets small enough for int16 pairs
/// (int8) or none (int16), and operands affine in the loop (see DspLoop for each path).
std::optional<DspLoop> dspLoop(const lower::LoopNest& nest, const lower::Stmt& loop);

/// Whether the vectorized loop `loop` is written out like an unrolled one (its iterations, or
/// its DSP steps, one after the other): it indexes an accumulator kept in registers, which a
/// loop counter would force into memory.
bool vectorizedWrittenOut(const lower::LoopNest& nest, const lower::Stmt& loop);

/// Why dspLoop() leaves `loop` to plain C ("" when it does not), for messages and tests.
std::string dspRefusal(const lower::LoopNest& nest, const lower::Stmt& loop);

/// How a copy statement becomes DMA-hook calls: `rows` rows of row elements per call, one call
/// per iteration of the region's dimensions before `outerDims`. The trailing dimensions that
/// are contiguous in both buffers (each inside one whole in both) form one row, the run
/// [runStart, rank): a whole tensor, or a band of whole rows, is one call.
struct CopyShape {
    bool rowContiguous = false;   ///< the last dimension is contiguous in both buffers
    size_t runStart = 0;          ///< rowContiguous: first dimension of the contiguous run
    int64_t runInnerElements = 1; ///< rowContiguous: elements of the run's dimensions after runStart
                                  ///< (static); a row is count[runStart] * runInnerElements elements
    bool hasRowDim = false;       ///< rows come from a dimension (else one row per call)
    size_t rowDim = 0;            ///< the dimension giving the row count
    size_t outerDims = 0;         ///< dimensions [0, outerDims) loop around the calls
    int64_t elementBytes = 1;
    int64_t srcRowStride = 0;     ///< elements between rows in the source
    int64_t dstRowStride = 0;     ///< elements between rows in the destination
};

CopyShape copyShape(const lower::LoopNest& nest, const lower::Stmt& copy);

/// Whether a copy widens (an int8 tensor into an int16 cache, sched::CacheStage::dtype): the
/// generated code calls loopscope_widen_copy, which the core runs, instead of the DMA hooks.
bool widensCopy(const lower::LoopNest& nest, const lower::Stmt& copy);
/// Whether any copy of the nest widens (the export then declares and defines loopscope_widen_copy).
bool hasWideningCopy(const lower::LoopNest& nest);

/// How a requantizing AccStore is written: ls_requantize with per-channel or constant
/// parameters, then one SSAT (`clampBits` > 0) or ls_clamp.
struct RequantForm {
    bool perChannelMultiplier = false;
    bool perChannelShift = false;
    int clampBits = 0;   ///< SSAT width when [act_min, act_max] is a signed power-of-two range
};

/// The form of `store` (an AccStore of a requantizing stage).
RequantForm requantForm(const lower::LoopNest& nest, const lower::Stmt& store);

} // namespace loopscope::codegen
