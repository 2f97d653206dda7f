// Factors of execution counts over a loop nest (see nest_count.h).
#include "analysis/nest_count.h"

#include <algorithm>

namespace loopscope::analysis {

using lower::IndexId;
using lower::kNoIndex;

void addSlots(const lower::IndexPool& index, IndexId e, std::vector<int>& out)
{
    if (out.capacity() < 8)
        out.reserve(8);  // one allocation, not one per doubling
    if (e != kNoIndex)
        index.slotsOf(e, out);
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
