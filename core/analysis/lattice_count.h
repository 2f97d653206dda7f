// Exact sums over integer boxes of products of factors, factorised by independent variables.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

namespace loopscope::analysis {

/// One factor of a product: a function of some variables.
struct Factor {
    std::vector<int> vars;
    std::function<int64_t(const int64_t* values)> eval;  ///< values indexed by variable id
};

/// Sum over every assignment of the variables `vars` (variable v ranging over
/// [0, extents[v])) of the product of all factors. Variables that share no factor are summed
/// independently, so the cost is the sum, not the product, of the groups' sizes; a variable
/// no factor mentions contributes its extent as a multiplier.
int64_t sumOfProducts(const std::vector<int>& vars, const std::vector<int64_t>& extents,
                      const std::vector<Factor>& factors);

} // namespace loopscope::analysis
