// Which points of a front to measure: best first, one per loop structure first.
#include "search/measure_choice.h"

#include <algorithm>
#include <set>

namespace loopscope::search {

std::string structureKey(const std::vector<sched::Step>& trace)
{
    std::string key;
    for (sched::Step s : trace) {
        s.factor = 0;
        s.nparts = 0;
        s.factors.clear();
        key += sched::describe(s);
        key += '\n';
    }
    return key;
}

std::vector<int> pointsToMeasure(const std::vector<SearchPoint>& front, Objective objective, int n)
{
    std::vector<int> order(front.size());
    for (size_t i = 0; i < order.size(); ++i)
        order[i] = static_cast<int>(i);
    std::stable_sort(order.begin(), order.end(),
                     [&](int x, int y) { return objectiveValue(objective, front[x].figures) < objectiveValue(objective, front[y].figures); });
    const size_t want = std::min(order.size(), static_cast<size_t>(std::max(0, n)));
    std::vector<int> chosen;
    std::vector<bool> taken(front.size(), false);
    std::set<std::string> structures;
    for (int i : order) {
        if (chosen.size() == want)
            break;
        if (structures.insert(structureKey(front[i].trace)).second) {
            chosen.push_back(i);
            taken[i] = true;
        }
    }
    for (int i : order) {
        if (chosen.size() == want)
            break;
        if (!taken[i])
            chosen.push_back(i);
    }
    return chosen;
}

} // namespace loopscope::search
