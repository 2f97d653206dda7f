// The C of the requantize epilogue shared by the kernel and the harness: TFLite's
// MultiplyByQuantizedMultiplier (bit-exact, branch-free, SSAT/USAT/QADD where the core has them),
// the reference formulation the harness checks it against, and the call the kernel writes.
#include "codegen/c_codegen.h"

#include <string>

namespace loopscope::codegen {

const char* unusedMacroC()
{
    return R"(/* LS_UNUSED marks helpers a given kernel may not call (no unused-function warning with GCC or clang). */
#ifndef LS_UNUSED
#if defined(__GNUC__)
#define LS_UNUSED __attribute__((unused))
#else
#define LS_UNUSED
#endif
#endif
)";
}

const char* requantizeFunctionC()
{
    static const std::string text = std::string(unusedMacroC()) + R"(/* Requantization, bit-exact with TFLite's MultiplyByQuantizedMultiplier followed by the output
   offset, for every accumulator and shift and for multipliers in TFLite's range [0, 2^31 - 1];
   ls_clamp (or LS_SAT, one SSAT for a signed power-of-two range) then applies the activation
   range. Written without branches, in 11 instructions per output on a Cortex-M with the DSP
   extension (plus a few per channel, which the compiler shares between the outputs of a channel):
   - shifts are clamped to [-32, 31] (one SSAT), then split into the left and right shifts (USAT);
   - SaturatingRoundingDoublingHighMul(x, m) is floor((2 x m + 2^31) / 2^32): with m2 = 2 m as an
     int32 (2 m - 2^32 when m >= 2^30) that is the rounded high word of x * m2 plus x when m >= 2^30,
     one SMMLAR (it never saturates for m >= 0);
   - RoundingDivideByPOT rounds half away from zero: +1 when the remainder exceeds half the
     divisor (one more for negative values), the comparison read from the sign of a difference;
   - the offset is added with saturation (QADD), so the clamped result equals that of exact
     (64-bit) arithmetic. */
#if defined(__ARM_FEATURE_SAT) && !defined(LOOPSCOPE_NO_SAT)
#include <arm_acle.h>
#define LS_USAT5(x) ((int32_t)__usat((x), 5))
#define LS_SSAT6(x) ((int32_t)__ssat((x), 6))
#define LS_SAT(v, bits, lo, hi) __ssat((v), (bits))
#else
#define LS_USAT5(x) ((x) < 0 ? 0 : ((x) > 31 ? 31 : (x)))
#define LS_SSAT6(x) ((x) < -32 ? -32 : ((x) > 31 ? 31 : (x)))
#define LS_SAT(v, bits, lo, hi) ls_clamp((v), (lo), (hi))
#endif
#if defined(__ARM_FEATURE_DSP) && !defined(LOOPSCOPE_NO_SAT)
#define LS_QADD(a, b) __qadd((a), (b))
#else
#define LS_QADD(a, b) ls_qadd((a), (b))
#endif
LS_UNUSED static inline int32_t ls_qadd(int32_t a, int32_t b)
{
    const int64_t s = (int64_t)a + (int64_t)b;
    return s > INT32_MAX ? INT32_MAX : (s < INT32_MIN ? INT32_MIN : (int32_t)s);
}
/* (a * b + c * 2^32 + 2^31) >> 32, modulo 2^32: SMMLAR. ACLE has no intrinsic for it; clang
   folds the plain C into one instruction, GCC does not. */
#if defined(__ARM_FEATURE_DSP) && defined(__GNUC__) && !defined(__clang__) && !defined(LOOPSCOPE_NO_SAT)
LS_UNUSED static inline int32_t ls_smmlar(int32_t a, int32_t b, int32_t c)
{
    int32_t r;
    __asm__("smmlar %0, %1, %2, %3" : "=r"(r) : "r"(a), "r"(b), "r"(c));
    return r;
}
#else
LS_UNUSED static inline int32_t ls_smmlar(int32_t a, int32_t b, int32_t c)
{
    const uint64_t p = (uint64_t)((int64_t)a * (int64_t)b) + ((uint64_t)(uint32_t)c << 32) + 0x80000000u;
    return (int32_t)(uint32_t)(p >> 32);
}
#endif
LS_UNUSED static inline int32_t ls_clamp(int32_t v, int32_t lo, int32_t hi) { return v < lo ? lo : (v > hi ? hi : v); }
LS_UNUSED static inline int32_t ls_requantize(int32_t acc, int32_t multiplier, int32_t shift, int32_t offset)
{
    const int32_t s = LS_SSAT6(shift);
    const int32_t left = LS_USAT5(s);
    const int32_t right = LS_USAT5(-s);
    const int32_t x = (int32_t)((uint32_t)acc << left);
    const int32_t m2 = (int32_t)((uint32_t)multiplier << 1);
    const int32_t high = ls_smmlar(x, m2, x & (m2 >> 31));
    const int32_t mask = (int32_t)((1u << right) - 1u);
    /* (mask >> 1) + (high < 0) - remainder: negative exactly when the quotient rounds up. */
    const int32_t t = (mask >> 1) - (high & mask) + (int32_t)((uint32_t)high >> 31);
    return LS_QADD((high >> right) + (int32_t)((uint32_t)t >> 31), offset);
}
)";
    return text.c_str();
}

const char* referenceRequantizeFunctionC()
{
    return R"(/* The naive reference's requantization: TFLite's MultiplyByQuantizedMultiplier written as TFLite
   writes it (SaturatingRoundingDoublingHighMul, then RoundingDivideByPOT), the output offset and
   the activation clamp, in 64-bit arithmetic. Independent of the kernel's ls_requantize, which is
   checked against it. */
LS_UNUSED static inline int32_t ls_ref_requantize(int32_t acc, int32_t multiplier, int32_t shift, int32_t offset, int32_t lo, int32_t hi)
{
    int left = shift > 0 ? (shift > 31 ? 31 : (int)shift) : 0;
    int right = shift > 0 ? 0 : (shift < -31 ? 31 : (int)-shift);
    int32_t x = (int32_t)((uint32_t)acc << left);
    int64_t ab = (int64_t)x * (int64_t)multiplier;
    int32_t nudge = ab >= 0 ? (1 << 30) : (1 - (1 << 30));
    int32_t high = (x == multiplier && x == INT32_MIN) ? INT32_MAX : (int32_t)((ab + nudge) / ((int64_t)1 << 31));
    int32_t mask = (int32_t)(((int64_t)1 << right) - 1);
    int32_t rem = high & mask;
    int32_t threshold = (mask >> 1) + (high < 0 ? 1 : 0);
    int64_t v = (int64_t)(high >> right) + (rem > threshold ? 1 : 0) + offset;
    return (int32_t)(v < lo ? lo : (v > hi ? hi : v));
}
)";
}

std::string requantizeCall(const std::string& acc, const std::string& mult, const std::string& shift, int64_t offset, int64_t lo, int64_t hi)
{
    const std::string v = "ls_requantize(" + acc + ", " + mult + ", " + shift + ", " + std::to_string(offset) + ")";
    for (int bits = 1; bits <= 31; ++bits)
        if (lo == -(int64_t(1) << (bits - 1)) && hi == (int64_t(1) << (bits - 1)) - 1)
            return "LS_SAT(" + v + ", " + std::to_string(bits) + ", " + std::to_string(lo) + ", " + std::to_string(hi) + ")";
    return "ls_clamp(" + v + ", " + std::to_string(lo) + ", " + std::to_string(hi) + ")";
}

} // namespace loopscope::codegen
