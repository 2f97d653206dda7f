// Checks of option values shared by the subcommands.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdlib>
#include <string>

namespace loopscope::cli {

/// A number of 0 or more, said so in words: CLI::NonNegativeNumber's message quoted the largest
/// double ("Value -1 not in range 0.000000 to 17976931348623157...").
inline CLI::Validator nonNegative()
{
    return CLI::Validator(
        [](std::string& value) -> std::string {
            char* end = nullptr;
            const double v = std::strtod(value.c_str(), &end);
            if (value.empty() || end == value.c_str() || *end != '\0' || !(v >= 0))
                return "takes a number of 0 or more, not '" + value + "'";
            return {};
        },
        "NONNEGATIVE");
}

} // namespace loopscope::cli
