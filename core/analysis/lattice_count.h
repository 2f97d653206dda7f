// Exact sums over integer boxes of products of factors, factorised by independent variables.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <vector>

namespace loopscope::analysis {

/// One factor of a product: a function of some variables.
struct Factor {
    std::vector<int> vars;
    std::function<int64_t(const int64_t* values)> eval;  ///< values indexed by variable id
    /// When set, called instead of `eval` with `context` and `ids`: the common factors (a guard,
    /// a count) without a std::function, whose state would be allocated at every factor built
    /// and copied (the analysis builds thousands per search evaluation).
    int64_t (*plain)(const Factor& self, const int64_t* values) = nullptr;
    /// When set: the factor summed over variable `var`'s values [0, extent), the others at
    /// `values` (values[var] is 0), in closed form. sumOfProducts uses it for a group of one
    /// factor instead of enumerating the group's last variable.
    int64_t (*along)(const Factor& self, const int64_t* values, int var, int64_t extent) = nullptr;
    const void* context = nullptr;
    std::array<int, 3> ids{};

    /// The factor's value at `values`.
    int64_t operator()(const int64_t* values) const { return plain ? plain(*this, values) : eval(values); }
};

/// The most points one group of connected variables is enumerated over: 2^24, a fraction of a
/// second. A partial tile of a loop over 2^36 elements would otherwise take hours.
inline constexpr int64_t kMaxEnumeratedPoints = int64_t(1) << 24;

/// Sum over every assignment of the variables `vars` (variable v ranging over
/// [0, extents[v])) of the product of all factors. Variables that share no factor are summed
/// independently, so the cost is the sum, not the product, of the groups' sizes; a variable
/// no factor mentions contributes its extent as a multiplier. Saturates at INT64_MAX. A group
/// of more than kMaxEnumeratedPoints points is not enumerated: the sum is then 0, and the
/// innermost CountBudgetScope of the thread records it.
int64_t sumOfProducts(const std::vector<int>& vars, const std::vector<int64_t>& extents,
                      const std::vector<Factor>& factors);

/// sumOfProducts of `factors` and `extra` together: `extra` is appended to `factors` for the call
/// and taken off again, so that factors kept for a whole walk (the guards around a statement)
/// are not copied for every sum.
int64_t sumOfProductsWith(const std::vector<int>& vars, const std::vector<int64_t>& extents,
                          std::vector<Factor>& factors, std::vector<Factor>&& extra);

/// While alive, collects on this thread the groups sumOfProducts left uncounted (over its point
/// budget), so that the analysis can say which figures miss them. Scopes nest.
class CountBudgetScope {
public:
    CountBudgetScope();
    ~CountBudgetScope();
    CountBudgetScope(const CountBudgetScope&) = delete;
    CountBudgetScope& operator=(const CountBudgetScope&) = delete;

    /// Points of the largest group left uncounted (0: every sum was exact).
    int64_t largestUncounted() const { return m_largest; }
    /// The variables of that group.
    const std::vector<int>& uncountedVars() const { return m_vars; }

    /// Called by sumOfProducts.
    static void note(int64_t points, const std::vector<int>& vars);

private:
    CountBudgetScope* m_previous = nullptr;
    int64_t m_largest = 0;
    std::vector<int> m_vars;
};

} // namespace loopscope::analysis
