// Integer interval and box arithmetic: floor division and modulo, inclusive intervals and
// boxes of tensor elements. One implementation for lowering (bounds of index expressions),
// analysis (the tile model) and the views that draw regions.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

namespace loopscope {

/// Floor division (rounds toward negative infinity); `b` must not be 0.
inline int64_t floorDiv(int64_t a, int64_t b)
{
    const int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

/// Floor modulo: the result has the sign of `b`.
inline int64_t floorMod(int64_t a, int64_t b) { return a - floorDiv(a, b) * b; }

/// An inclusive integer interval [lo, hi] (empty when hi < lo) whose values step by `stride`:
/// lo, lo + stride, ..., hi. Stride 1 is every integer; a single value has no stride. The
/// arithmetic gives exact lo and hi (interval arithmetic) and keeps strides where it can, so
/// that the outline of a strided tile ({2, 6} of 4 j.outer + 2) clips exactly at an edge.
struct Interval {
    int64_t lo = 0;
    int64_t hi = -1;
    int64_t stride = 1;

    static Interval point(int64_t v) { return {v, v, 1}; }
    /// The identity of hull(): empty, and any hull with it is the other interval.
    static Interval none() { return {std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::min(), 1}; }

    bool empty() const { return hi < lo; }
    /// Distance between neighbouring values (0 for a single value).
    int64_t step() const { return lo == hi ? 0 : stride; }
    /// Integers between lo and hi (the outline; not the count of strided values).
    int64_t size() const { return empty() ? 0 : hi - lo + 1; }
    bool contains(int64_t v) const { return lo <= v && v <= hi; }
    Interval hull(const Interval& o) const
    {
        if (empty())
            return o;
        if (o.empty())
            return *this;
        return {std::min(lo, o.lo), std::max(hi, o.hi), std::gcd(std::gcd(step(), o.step()), lo > o.lo ? lo - o.lo : o.lo - lo)};
    }
    /// The values within [a, b] (a contiguous range), the stride kept.
    Interval within(int64_t a, int64_t b) const
    {
        if (empty() || b < a)
            return none();
        const int64_t s = std::max<int64_t>(1, step());
        Interval r = *this;
        if (r.lo < a)
            r.lo += (a - r.lo + s - 1) / s * s;
        if (r.hi > b)
            r.hi -= (r.hi - b + s - 1) / s * s;
        return r.empty() ? none() : r;
    }

    // Interval arithmetic (exact bounds of the result over every pair of values).
    Interval operator+(const Interval& o) const { return {lo + o.lo, hi + o.hi, strideOf(std::gcd(step(), o.step()))}; }
    Interval scaled(int64_t c) const
    {
        const int64_t s = strideOf(step() * (c < 0 ? -c : c));
        return c >= 0 ? Interval{lo * c, hi * c, s} : Interval{hi * c, lo * c, s};
    }
    /// Floor division by a positive constant.
    Interval divided(int64_t c) const
    {
        return {floorDiv(lo, c), floorDiv(hi, c), step() % c == 0 ? strideOf(step() / c) : 1};
    }
    /// Floor modulo by a positive constant: exact when the interval stays in one period.
    Interval modulo(int64_t c) const
    {
        if (floorDiv(lo, c) == floorDiv(hi, c))
            return {floorMod(lo, c), floorMod(hi, c), strideOf(step())};
        return {0, c - 1, 1};
    }
    Interval min(const Interval& o) const { return {std::min(lo, o.lo), std::min(hi, o.hi), 1}; }
    Interval max(const Interval& o) const { return {std::max(lo, o.lo), std::max(hi, o.hi), 1}; }

    /// Same values (the stride of a single value does not matter).
    bool operator==(const Interval& o) const { return lo == o.lo && hi == o.hi && step() == o.step(); }

private:
    static int64_t strideOf(int64_t s) { return s > 0 ? s : 1; }
};

/// A box of tensor elements: one inclusive interval per dimension; along a dimension whose
/// interval has a stride > 1 only every stride-th element is meant (the outline is the box).
struct Box {
    std::vector<Interval> dims;

    /// An empty box of `rank` dimensions, the identity of hull().
    static Box none(size_t rank) { return Box{std::vector<Interval>(rank, Interval::none())}; }
    /// The whole of a tensor of this shape.
    static Box whole(const std::vector<int64_t>& shape)
    {
        Box b;
        for (int64_t s : shape)
            b.dims.push_back({0, s - 1});
        return b;
    }

    size_t rank() const { return dims.size(); }
    bool empty() const
    {
        return std::any_of(dims.begin(), dims.end(), [](const Interval& i) { return i.empty(); });
    }
    /// Elements inside the outline (0 when empty).
    int64_t elements() const
    {
        if (empty())
            return 0;
        int64_t n = 1;
        for (const Interval& i : dims)
            n *= i.size();
        return n;
    }
    bool contains(const int64_t* index) const
    {
        for (size_t d = 0; d < dims.size(); ++d)
            if (!dims[d].contains(index[d]))
                return false;
        return true;
    }
    Box hull(const Box& o) const
    {
        Box b = *this;
        for (size_t d = 0; d < b.dims.size() && d < o.dims.size(); ++d)
            b.dims[d] = b.dims[d].hull(o.dims[d]);
        return b;
    }
    /// Grows the box to hold one element.
    void include(const int64_t* index)
    {
        for (size_t d = 0; d < dims.size(); ++d)
            dims[d] = dims[d].hull(Interval::point(index[d]));
    }
    /// Clipped to a tensor of this shape.
    Box clipped(const std::vector<int64_t>& shape) const
    {
        Box b = *this;
        for (size_t d = 0; d < b.dims.size() && d < shape.size(); ++d)
            b.dims[d] = b.dims[d].within(0, shape[d] - 1);
        return b;
    }
    /// Largest stride of any dimension (1: contiguous).
    int64_t stride() const
    {
        int64_t s = 1;
        for (const Interval& i : dims)
            s = std::max(s, i.step());
        return s;
    }
    bool operator==(const Box& o) const { return dims == o.dims; }
};

/// "C[16:32, 0:16]" (half-open, as Python slices), "C[3, 0:8]" for a single index, and
/// "C (nothing)" for an empty box.
inline std::string boxText(const std::string& tensor, const Box& b)
{
    if (b.empty())
        return tensor + " (nothing)";
    std::string s = tensor + "[";
    for (size_t d = 0; d < b.dims.size(); ++d) {
        if (d)
            s += ", ";
        s += b.dims[d].lo == b.dims[d].hi ? std::to_string(b.dims[d].lo)
                                          : std::to_string(b.dims[d].lo) + ":" + std::to_string(b.dims[d].hi + 1);
    }
    return s + "]";
}

} // namespace loopscope
