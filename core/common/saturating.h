// Counts that cannot overflow: the cost model's sums saturate at INT64_MAX instead of wrapping
// (signed overflow is undefined behaviour), and a figure that saturated is reported as such.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

namespace loopscope {

/// The value of a count that does not fit in 64 bits.
inline constexpr int64_t kSaturatedCount = std::numeric_limits<int64_t>::max();

inline int64_t satAdd(int64_t a, int64_t b)
{
    int64_t r = 0;
    if (!__builtin_add_overflow(a, b, &r))
        return r;
    return a < 0 ? std::numeric_limits<int64_t>::min() : kSaturatedCount;
}

inline int64_t satMul(int64_t a, int64_t b)
{
    int64_t r = 0;
    if (!__builtin_mul_overflow(a, b, &r))
        return r;
    return (a < 0) != (b < 0) ? std::numeric_limits<int64_t>::min() : kSaturatedCount;
}

/// A cycle or byte figure computed in a double, as a count: rounded up; kSaturatedCount from
/// 2^63 on (and for infinity); 0 for a negative value or NaN, which no figure should be.
inline int64_t countOf(double v)
{
    if (!(v > 0))
        return 0;
    const double up = std::ceil(v);
    return up >= 9223372036854775808.0 ? kSaturatedCount : static_cast<int64_t>(up);
}

} // namespace loopscope
