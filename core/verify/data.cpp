// Tensor contents: deterministic inputs, integer wrapping, TFLite requantization, comparison.
#include "verify/data.h"

#include <charconv>
#include <cmath>
#include <limits>

namespace loopscope::verify {

int64_t TensorData::size() const
{
    int64_t n = 1;
    for (int64_t d : shape)
        n *= d;
    return n;
}

int64_t TensorData::offset(const int64_t* index) const
{
    int64_t off = 0;
    for (size_t d = 0; d < shape.size(); ++d)
        off = off * shape[d] + index[d];
    return off;
}

namespace {

/// splitmix64 (Steele, Lea, Flood 2014): tiny, fast and the same on every platform, unlike
/// the standard distributions whose output differs between library implementations.
class SplitMix64 {
public:
    explicit SplitMix64(uint64_t seed) : m_state(seed) {}

    uint64_t next()
    {
        uint64_t z = (m_state += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
    }

    /// Uniform in [lo, hi] (multiply-shift; the bias is below 2^-32 for our ranges).
    int64_t range(int64_t lo, int64_t hi)
    {
        uint64_t span = static_cast<uint64_t>(hi - lo) + 1;
        uint64_t r = static_cast<uint64_t>((static_cast<unsigned __int128>(next()) * span) >> 64);
        return lo + static_cast<int64_t>(r);
    }

    /// Uniform in [-1, 1): 24 random bits, exact in float.
    float unitSigned()
    {
        uint64_t bits = next() >> 40;
        return static_cast<float>(bits) * (1.0f / 8388608.0f) - 1.0f;
    }

private:
    uint64_t m_state;
};

/// FNV-1a: gives each tensor its own stream, so adding a tensor does not change the others.
uint64_t nameHash(const std::string& s)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (unsigned char c : s) {
        h ^= c;
        h *= 0x100000001b3ULL;
    }
    return h;
}

enum class Role { Plain, Bias, Multiplier, Shift };

Role roleOf(const ir::Kernel& k, int tensor)
{
    for (const ir::Stage& s : k.stages) {
        if (!s.requant)
            continue;
        if (s.requant->multiplier.tensor == tensor)
            return Role::Multiplier;
        if (s.requant->shift.tensor == tensor)
            return Role::Shift;
        if (s.requant->bias == tensor)
            return Role::Bias;
    }
    return Role::Plain;
}

} // namespace

Dataset makeInputs(const ir::Kernel& kernel, uint64_t seed)
{
    Dataset data;
    data.reserve(kernel.tensors.size());
    for (size_t i = 0; i < kernel.tensors.size(); ++i) {
        const ir::Tensor& t = kernel.tensors[i];
        TensorData d;
        d.dtype = t.dtype;
        d.shape = t.shape;
        const int64_t n = t.elements();
        const bool fill = kernel.isInput(static_cast<int>(i));
        SplitMix64 rng(seed ^ nameHash(t.name));
        if (ir::isFloat(t.dtype)) {
            d.floats.assign(static_cast<size_t>(n), 0.0f);
            if (fill) {
                for (float& v : d.floats)
                    v = rng.unitSigned();
            }
        } else {
            d.ints.assign(static_cast<size_t>(n), 0);
            if (fill) {
                int64_t lo = -1000, hi = 1000;
                switch (roleOf(kernel, static_cast<int>(i))) {
                case Role::Bias: lo = -5000; hi = 5000; break;
                case Role::Multiplier: lo = int64_t(1) << 30; hi = std::numeric_limits<int32_t>::max(); break;
                case Role::Shift: lo = -12; hi = 2; break;
                case Role::Plain:
                    if (t.dtype == ir::DType::Int8) {
                        lo = -128;
                        hi = 127;
                    }
                    break;
                }
                for (int64_t& v : d.ints)
                    v = rng.range(lo, hi);
            }
        }
        data.push_back(std::move(d));
    }
    return data;
}

int64_t wrapTo(ir::DType t, int64_t v)
{
    switch (t) {
    case ir::DType::Int8: return static_cast<int8_t>(static_cast<uint8_t>(v));
    case ir::DType::Int16: return static_cast<int16_t>(static_cast<uint16_t>(v));
    case ir::DType::Int32: return static_cast<int32_t>(static_cast<uint32_t>(v));
    case ir::DType::Float32: return v;
    }
    return v;
}

namespace {

/// gemmlowp::SaturatingRoundingDoublingHighMul.
int32_t saturatingRoundingDoublingHighMul(int32_t a, int32_t b)
{
    const bool overflow = a == b && a == std::numeric_limits<int32_t>::min();
    const int64_t ab = static_cast<int64_t>(a) * static_cast<int64_t>(b);
    const int32_t nudge = ab >= 0 ? (1 << 30) : (1 - (1 << 30));
    const int32_t high = static_cast<int32_t>((ab + nudge) / (int64_t(1) << 31));
    return overflow ? std::numeric_limits<int32_t>::max() : high;
}

/// gemmlowp::RoundingDivideByPOT: round to nearest, ties away from zero.
int32_t roundingDivideByPOT(int32_t x, int exponent)
{
    const int32_t mask = static_cast<int32_t>((int64_t(1) << exponent) - 1);
    const int32_t remainder = x & mask;
    const int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
    return (x >> exponent) + (remainder > threshold ? 1 : 0);
}

} // namespace

int32_t multiplyByQuantizedMultiplier(int32_t x, int32_t multiplier, int shift)
{
    // TFLite asserts shifts in range; clamping keeps out-of-range data defined instead of UB.
    const int leftShift = shift > 0 ? (shift > 31 ? 31 : shift) : 0;
    const int rightShift = shift > 0 ? 0 : (shift < -31 ? 31 : -shift);
    // x * (1 << left_shift) in int32 wraps on every platform TFLite runs on; do it explicitly.
    const int32_t shifted = static_cast<int32_t>(static_cast<uint32_t>(x) << leftShift);
    return roundingDivideByPOT(saturatingRoundingDoublingHighMul(shifted, multiplier), rightShift);
}

int64_t requantizeValue(int64_t acc, int32_t multiplier, int shift, int64_t outputOffset, int64_t actMin,
                        int64_t actMax)
{
    const int32_t acc32 = static_cast<int32_t>(wrapTo(ir::DType::Int32, acc));
    int64_t v = static_cast<int64_t>(multiplyByQuantizedMultiplier(acc32, multiplier, shift)) + outputOffset;
    if (v < actMin)
        v = actMin;
    if (v > actMax)
        v = actMax;
    return v;
}

int64_t firstMismatch(const TensorData& got, const TensorData& want)
{
    if (got.dtype != want.dtype)
        return 0;
    const bool fl = ir::isFloat(want.dtype);
    const int64_t ng = fl ? static_cast<int64_t>(got.floats.size()) : static_cast<int64_t>(got.ints.size());
    const int64_t nw = fl ? static_cast<int64_t>(want.floats.size()) : static_cast<int64_t>(want.ints.size());
    const int64_t n = ng < nw ? ng : nw;
    for (int64_t i = 0; i < n; ++i) {
        if (!fl) {
            if (got.ints[i] != want.ints[i])
                return i;
            continue;
        }
        const double g = got.floats[i];
        const double w = want.floats[i];
        if (g == w || (std::isnan(g) && std::isnan(w)))
            continue;
        // NaN compares false, so a NaN on one side is a mismatch.
        if (!(std::fabs(g - w) <= kFloatAbsTol + kFloatRelTol * std::fabs(w)))
            return i;
    }
    return ng == nw ? -1 : n;
}

std::string indexString(const std::string& name, const TensorData& t, int64_t flat)
{
    if (flat < 0 || flat >= t.size() || t.shape.empty())
        return name + "[offset " + std::to_string(flat) + "]";
    std::vector<int64_t> idx(t.shape.size());
    for (size_t d = t.shape.size(); d-- > 0;) {
        idx[d] = flat % t.shape[d];
        flat /= t.shape[d];
    }
    std::string out = name + "[";
    for (size_t d = 0; d < idx.size(); ++d)
        out += (d ? ", " : "") + std::to_string(idx[d]);
    return out + "]";
}

std::string valueString(const TensorData& t, int64_t flat)
{
    if (ir::isFloat(t.dtype)) {
        if (flat < 0 || flat >= static_cast<int64_t>(t.floats.size()))
            return "?";
        // Shortest text that reads back as the same float, independent of the C locale.
        char buf[64];
        auto r = std::to_chars(buf, buf + sizeof buf, t.floats[flat]);
        return std::string(buf, r.ptr);
    }
    if (flat < 0 || flat >= static_cast<int64_t>(t.ints.size()))
        return "?";
    return std::to_string(t.ints[flat]);
}

} // namespace loopscope::verify
