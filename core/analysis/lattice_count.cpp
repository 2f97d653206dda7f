// Factorised exact counting over loop iteration spaces.
#include "analysis/lattice_count.h"

#include <algorithm>
#include <array>

#include "common/saturating.h"

namespace loopscope::analysis {

namespace {

/// Scratch arrays indexed by variable id: on the stack for the few dozen slots of a nest.
template <typename T>
class Scratch {
public:
    Scratch(size_t n, T init)
    {
        if (n > m_small.size()) {
            m_large.assign(n, init);
            m_data = m_large.data();
        } else {
            std::fill_n(m_small.begin(), n, init);
            m_data = m_small.data();
        }
    }
    T& operator[](size_t i) { return m_data[i]; }
    T* data() { return m_data; }

private:
    std::array<T, 64> m_small;
    std::vector<T> m_large;
    T* m_data;
};

thread_local CountBudgetScope* t_scope = nullptr;

} // namespace

CountBudgetScope::CountBudgetScope() : m_previous(t_scope) { t_scope = this; }

CountBudgetScope::~CountBudgetScope() { t_scope = m_previous; }

void CountBudgetScope::note(int64_t points, const std::vector<int>& vars)
{
    if (t_scope && points > t_scope->m_largest) {
        t_scope->m_largest = points;
        t_scope->m_vars = vars;
    }
}

int64_t sumOfProducts(const std::vector<int>& vars, const std::vector<int64_t>& extents,
                      const std::vector<Factor>& factors)
{
    if (vars.empty() && factors.empty())
        return 1;
    if (factors.empty()) {
        int64_t total = 1;
        for (int v : vars)
            total = satMul(total, extents[v]);
        return total;
    }
    int maxVar = 0;
    for (int v : vars)
        maxVar = std::max(maxVar, v);
    for (const Factor& f : factors)
        for (int v : f.vars)
            maxVar = std::max(maxVar, v);
    const size_t n = static_cast<size_t>(maxVar) + 1;
    // Union-find over variables connected by a factor.
    Scratch<int> parent(n, 0);
    for (size_t i = 0; i < n; ++i)
        parent[i] = static_cast<int>(i);
    auto find = [&](int x) {
        while (parent[x] != x)
            x = parent[x] = parent[parent[x]];
        return x;
    };
    Scratch<char> inFactor(n, 0);
    for (const Factor& f : factors)
        for (size_t i = 0; i < f.vars.size(); ++i) {
            inFactor[f.vars[i]] = 1;
            if (i > 0)
                parent[find(f.vars[i])] = find(f.vars[0]);
        }
    int64_t total = 1;
    for (int v : vars)
        if (!inFactor[v])
            total = satMul(total, extents[v]);
    if (total == 0)
        return 0;
    // Factors without variables are constants.
    for (const Factor& f : factors)
        if (f.vars.empty())
            total = satMul(total, f(nullptr));
    Scratch<int64_t> values(n, 0);
    Scratch<char> done(n, 0);
    // The group's variables and factors, on the stack for the usual few (no allocation per sum).
    Scratch<int> group(vars.size(), 0);
    Scratch<const Factor*> fs(factors.size(), nullptr);
    for (int v : vars) {
        if (!inFactor[v] || done[find(v)])
            continue;
        int root = find(v);
        done[root] = 1;
        size_t groupSize = 0;
        for (int w : vars)
            if (inFactor[w] && find(w) == root)
                group[groupSize++] = w;
        size_t factorCount = 0;
        for (const Factor& f : factors)
            if (!f.vars.empty() && find(f.vars[0]) == root)
                fs[factorCount++] = &f;
        int64_t sum = 0;
        for (size_t i = 0; i < groupSize; ++i)
            values[group[i]] = 0;
        bool empty = std::any_of(group.data(), group.data() + groupSize, [&](int w) { return extents[w] <= 0; });
        int64_t points = 1;
        for (size_t i = 0; i < groupSize; ++i)
            points = satMul(points, std::max<int64_t>(0, extents[group[i]]));
        if (!empty && points > kMaxEnumeratedPoints) {
            CountBudgetScope::note(points, std::vector<int>(group.data(), group.data() + groupSize));
            return 0;
        }
        // One factor that sums in closed form along a variable: enumerate the others only.
        if (!empty && factorCount == 1 && fs[0]->along && groupSize > 0) {
            const int last = group[groupSize - 1];
            --groupSize;
            for (;;) {
                sum = satAdd(sum, fs[0]->along(*fs[0], values.data(), last, extents[last]));
                size_t i = groupSize;
                bool done = true;
                while (i > 0) {
                    --i;
                    if (++values[group[i]] < extents[group[i]]) {
                        done = false;
                        break;
                    }
                    values[group[i]] = 0;
                }
                if (done)
                    break;
            }
            empty = true;  // summed
        }
        while (!empty) {
            int64_t prod = 1;
            for (size_t k = 0; k < factorCount; ++k) {
                prod = satMul(prod, (*fs[k])(values.data()));
                if (prod == 0)
                    break;
            }
            sum = satAdd(sum, prod);
            size_t i = groupSize;
            while (i > 0) {
                --i;
                if (++values[group[i]] < extents[group[i]])
                    break;
                values[group[i]] = 0;
                if (i == 0)
                    empty = true;
            }
            if (groupSize == 0)
                break;
        }
        total = satMul(total, sum);
        if (total == 0)
            return 0;
    }
    return total;
}

int64_t sumOfProductsWith(const std::vector<int>& vars, const std::vector<int64_t>& extents,
                          std::vector<Factor>& factors, std::vector<Factor>&& extra)
{
    const size_t kept = factors.size();
    for (Factor& f : extra)
        factors.push_back(std::move(f));
    const int64_t n = sumOfProducts(vars, extents, factors);
    factors.resize(kept);
    return n;
}

} // namespace loopscope::analysis
