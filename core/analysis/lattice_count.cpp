// Factorised exact counting over loop iteration spaces.
#include "analysis/lattice_count.h"

#include <algorithm>
#include <numeric>

namespace loopscope::analysis {

int64_t sumOfProducts(const std::vector<int>& vars, const std::vector<int64_t>& extents,
                      const std::vector<Factor>& factors)
{
    if (vars.empty() && factors.empty())
        return 1;
    int maxVar = 0;
    for (int v : vars)
        maxVar = std::max(maxVar, v);
    for (const Factor& f : factors)
        for (int v : f.vars)
            maxVar = std::max(maxVar, v);
    // Union-find over variables connected by a factor.
    std::vector<int> parent(maxVar + 1);
    std::iota(parent.begin(), parent.end(), 0);
    auto find = [&](int x) {
        while (parent[x] != x)
            x = parent[x] = parent[parent[x]];
        return x;
    };
    std::vector<bool> inFactor(maxVar + 1, false);
    for (const Factor& f : factors)
        for (size_t i = 0; i < f.vars.size(); ++i) {
            inFactor[f.vars[i]] = true;
            if (i > 0)
                parent[find(f.vars[i])] = find(f.vars[0]);
        }
    int64_t total = 1;
    for (int v : vars)
        if (!inFactor[v])
            total *= extents[v];
    if (total == 0)
        return 0;
    // Factors without variables are constants.
    for (const Factor& f : factors)
        if (f.vars.empty())
            total *= f.eval(nullptr);
    std::vector<int64_t> values(maxVar + 1, 0);
    std::vector<bool> done(maxVar + 1, false);
    for (int v : vars) {
        if (!inFactor[v] || done[find(v)])
            continue;
        int root = find(v);
        done[root] = true;
        std::vector<int> group;
        for (int w : vars)
            if (inFactor[w] && find(w) == root)
                group.push_back(w);
        std::vector<const Factor*> fs;
        for (const Factor& f : factors)
            if (!f.vars.empty() && find(f.vars[0]) == root)
                fs.push_back(&f);
        int64_t sum = 0;
        for (int w : group)
            values[w] = 0;
        bool empty = std::any_of(group.begin(), group.end(), [&](int w) { return extents[w] <= 0; });
        while (!empty) {
            int64_t prod = 1;
            for (const Factor* f : fs) {
                prod *= f->eval(values.data());
                if (prod == 0)
                    break;
            }
            sum += prod;
            size_t i = group.size();
            while (i > 0) {
                --i;
                if (++values[group[i]] < extents[group[i]])
                    break;
                values[group[i]] = 0;
                if (i == 0)
                    empty = true;
            }
            if (group.empty())
                break;
        }
        total *= sum;
        if (total == 0)
            return 0;
    }
    return total;
}

} // namespace loopscope::analysis
