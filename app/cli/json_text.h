// JSON text for output and for the workspace.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace loopscope::cli {

/// `j` as text, `indent` spaces per level (-1: one line). Bytes that are no part of a UTF-8
/// character (a Latin-1 file or folder name, a --name typed in a Latin-1 terminal) become U+FFFD
/// instead of nlohmann's exception, which made `workspace list --json` an internal error.
template <typename Json>
std::string jsonText(const Json& j, int indent = 2)
{
    return j.dump(indent, ' ', false, Json::error_handler_t::replace);
}

} // namespace loopscope::cli
