// Step differences between a schedule and a search point, with the figures of each step.
#include "search/explain.h"

#include <cmath>
#include <cstdio>

namespace loopscope::search {

namespace {

Figures analyseProgram(const sched::Program& p)
{
    lower::LoopNest nest = lower::lower(p);
    return figuresOf(analysis::analyze(nest, *p.target));
}

std::string percent(double before, double after)
{
    if (before == 0)
        return after == 0 ? "=" : "+inf";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%+.1f %%", 100.0 * (after - before) / before);
    return buf;
}

std::string bytesDelta(int64_t d)
{
    char buf[32];
    if (std::llabs(d) >= 1024)
        std::snprintf(buf, sizeof buf, "%+.1f KiB", static_cast<double>(d) / 1024.0);
    else
        std::snprintf(buf, sizeof buf, "%+lld B", static_cast<long long>(d));
    return buf;
}

} // namespace

PointExplanation explainPoint(const sched::Program& current, const std::vector<sched::Step>& trace)
{
    PointExplanation e;
    const auto& cur = current.trace;
    size_t common = 0;
    while (common < cur.size() && common < trace.size() && cur[common] == trace[common])
        ++common;
    e.commonSteps = static_cast<int>(common);
    e.current = analyseProgram(current);
    for (size_t i = common; i < cur.size(); ++i) {
        StepChange c;
        c.step = cur[i];
        c.added = false;
        e.changes.push_back(std::move(c));
    }
    std::vector<sched::Step> prefix(trace.begin(), trace.begin() + static_cast<std::ptrdiff_t>(common));
    sched::ApplyResult r = sched::replay(current.kernel, current.target, prefix);
    bool ok = r.ok();
    sched::Program p = ok ? r.program() : current;
    Figures before = ok ? analyseProgram(p) : Figures{};
    for (size_t i = common; i < trace.size(); ++i) {
        StepChange c;
        c.step = trace[i];
        if (ok) {
            sched::ApplyResult n = sched::apply(p, trace[i]);
            ok = n.ok();
            if (ok) {
                p = std::move(n.program());
                c.before = before;
                c.after = analyseProgram(p);
                c.analysed = true;
                before = c.after;
            }
        }
        e.changes.push_back(std::move(c));
    }
    e.point = ok ? before : Figures{};
    return e;
}

std::string describeChange(const StepChange& c)
{
    std::string s = (c.added ? "+ " : "- ") + sched::describe(c.step);
    if (!c.added || !c.analysed)
        return s;
    s += ": cycles " + percent(static_cast<double>(c.before.cycles), static_cast<double>(c.after.cycles));
    s += ", on-chip " + bytesDelta(c.after.onChipBytes - c.before.onChipBytes);
    s += ", energy " + percent(c.before.energyUj, c.after.energyUj);
    return s;
}

} // namespace loopscope::search
