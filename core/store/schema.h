// The workspace's tables, as forward migrations: migration N takes a file from schema N to N+1.
#pragma once

#include <string>
#include <vector>

namespace loopscope::store::detail {

/// Application id in the sqlite header of every workspace ('LPSW').
inline constexpr int kApplicationId = 0x4C505357;

/// SQL scripts; element N migrates schema N to N+1 (element 0 creates schema 1 in an empty file).
const std::vector<std::string>& migrations();

} // namespace loopscope::store::detail
