// Factors of execution counts over a loop nest (see nest_count.h).
#include "analysis/nest_count.h"

#include <algorithm>
#include <bit>

namespace loopscope::analysis {

using lower::IndexId;
using lower::kNoIndex;

void addSlots(const lower::IndexPool& index, IndexId e, std::vector<int>& out) { addSlots(index, std::span<const IndexId>(&e, 1), out); }

void addSlots(const lower::IndexPool& index, std::span<const IndexId> ids, std::vector<int>& out)
{
    if (out.capacity() < 8)
        out.reserve(8);  // one allocation, not one per doubling
    for (IndexId e : ids)
        if (e != kNoIndex)
            index.slotsOf(e, out);
    // Sorted and without repeats through a bit set when every slot is below 64 (always, but in
    // nests of more than 64 loops): a sort's calls cost more than the few slots.
    uint64_t mask = 0;
    bool small = true;
    for (int v : out) {
        if (v < 0 || v >= 64) {
            small = false;
            break;
        }
        mask |= uint64_t(1) << v;
    }
    if (small) {
        out.clear();
        for (; mask != 0; mask &= mask - 1)
            out.push_back(std::countr_zero(mask));
        return;
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
}

namespace {

int64_t condValue(const Factor& f, const int64_t* v)
{
    const auto* ix = static_cast<const lower::IndexPool*>(f.context);
    const int64_t x = ix->eval(f.ids[0], v);
    if (f.ids[1] != kNoIndex && x < ix->eval(f.ids[1], v))
        return 0;
    if (f.ids[2] != kNoIndex && x > ix->eval(f.ids[2], v))
        return 0;
    return 1;
}

/// Floor and ceiling of a / b for b > 0.
template <typename T>
T floorDiv(T a, T b)
{
    return a >= 0 ? a / b : -((-a + b - 1) / b);
}
template <typename T>
T ceilDiv(T a, T b)
{
    return -floorDiv(-a, b);
}

/// How many of var's values [0, extent) hold k + c * var within [lo, hi] (each bound when
/// present), for c != 0: one interval of them. In T, a type that cannot overflow on the inputs.
template <typename T>
int64_t heldAlong(T k, T c, bool hasLo, T lo, bool hasHi, T hi, int64_t extent)
{
    T first = 0, last = static_cast<T>(extent) - 1;
    if (c > 0) {
        if (hasLo)
            first = std::max(first, ceilDiv<T>(lo - k, c));
        if (hasHi)
            last = std::min(last, floorDiv<T>(hi - k, c));
    } else {
        if (hasLo)
            last = std::min(last, floorDiv<T>(k - lo, -c));
        if (hasHi)
            first = std::max(first, ceilDiv<T>(k - hi, -c));
    }
    return last < first ? 0 : static_cast<int64_t>(last - first + 1);
}

/// condValue summed over `var` in [0, extent): the guard's expression is linear in the slots and
/// its bounds constant (condFactor checks), so the values of `var` where it holds are one
/// interval.
int64_t condAlong(const Factor& f, const int64_t* v, int var, int64_t extent)
{
    const auto* ix = static_cast<const lower::IndexPool*>(f.context);
    const lower::IndexPool::Node& e = ix->node(f.ids[0]);
    int64_t c = 0;
    for (const auto& t : e.terms)
        if (t.atom == var)
            c += t.coeff;
    const int64_t k64 = ix->eval(f.ids[0], v);  // at var = 0
    const bool hasLo = f.ids[1] != kNoIndex, hasHi = f.ids[2] != kNoIndex;
    const int64_t lo64 = hasLo ? ix->node(f.ids[1]).constant : 0, hi64 = hasHi ? ix->node(f.ids[2]).constant : 0;
    if (c == 0)
        return (hasLo && k64 < lo64) || (hasHi && k64 > hi64) ? 0 : extent;
    // In 64 bits where nothing can overflow (every guard of a real nest): a 128-bit division is a
    // library call, and this runs for every point of the loops around a guarded copy.
    constexpr int64_t kSmall = int64_t(1) << 60;
    if (c > -kSmall && c < kSmall && k64 > -kSmall && k64 < kSmall && lo64 > -kSmall && lo64 < kSmall && hi64 > -kSmall
        && hi64 < kSmall)
        return heldAlong<int64_t>(k64, c, hasLo, lo64, hasHi, hi64, extent);
    return heldAlong<__int128>(k64, c, hasLo, lo64, hasHi, hi64, extent);
}

int64_t countValue(const Factor& f, const int64_t* v)
{
    return std::max<int64_t>(0, static_cast<const lower::IndexPool*>(f.context)->eval(f.ids[0], v));
}

int64_t nonEmptyValue(const Factor& f, const int64_t* v) { return countValue(f, v) > 0 ? 1 : 0; }

} // namespace

Factor condFactor(const lower::IndexPool& index, const lower::Cond& cond)
{
    Factor f;
    addSlots(index, cond.expr, f.vars);
    addSlots(index, cond.lo, f.vars);
    addSlots(index, cond.hi, f.vars);
    f.plain = condValue;
    f.context = &index;
    f.ids = {cond.expr, cond.lo, cond.hi};
    // Linear in the slots between constant bounds (the padding and partial-tile guards): its
    // sum along one slot is an interval's length.
    const bool linear = index.isPureLinear(cond.expr);
    const bool constantBounds = (cond.lo == kNoIndex || index.isConst(cond.lo)) && (cond.hi == kNoIndex || index.isConst(cond.hi));
    if (linear && constantBounds)
        f.along = condAlong;
    return f;
}

Factor countFactor(const lower::IndexPool& index, IndexId e)
{
    Factor f;
    addSlots(index, e, f.vars);
    f.plain = countValue;
    f.context = &index;
    f.ids = {e, kNoIndex, kNoIndex};
    return f;
}

Factor nonEmptyFactor(const lower::IndexPool& index, IndexId e)
{
    Factor f = countFactor(index, e);
    f.plain = nonEmptyValue;
    return f;
}

} // namespace loopscope::analysis
