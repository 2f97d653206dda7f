// Factors of execution counts over a loop nest (see nest_count.h).
#include "analysis/nest_count.h"

#include <algorithm>

namespace loopscope::analysis {

using lower::IndexId;
using lower::kNoIndex;

void addSlots(const lower::IndexPool& index, IndexId e, std::vector<int>& out)
{
    if (e != kNoIndex)
        index.slotsOf(e, out);
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
}

Factor condFactor(const lower::IndexPool& index, const lower::Cond& cond)
{
    Factor f;
    addSlots(index, cond.expr, f.vars);
    addSlots(index, cond.lo, f.vars);
    addSlots(index, cond.hi, f.vars);
    const lower::IndexPool* ix = &index;
    f.eval = [ix, cond](const int64_t* v) -> int64_t {
        int64_t x = ix->eval(cond.expr, v);
        if (cond.lo != kNoIndex && x < ix->eval(cond.lo, v))
            return 0;
        if (cond.hi != kNoIndex && x > ix->eval(cond.hi, v))
            return 0;
        return 1;
    };
    return f;
}

Factor countFactor(const lower::IndexPool& index, IndexId e)
{
    Factor f;
    addSlots(index, e, f.vars);
    const lower::IndexPool* ix = &index;
    f.eval = [ix, e](const int64_t* v) -> int64_t { return std::max<int64_t>(0, ix->eval(e, v)); };
    return f;
}

} // namespace loopscope::analysis
