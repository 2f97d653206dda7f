// A file produced by a generator: a path relative to the output directory and its text.
#pragma once

#include <string>

namespace loopscope::codegen {

struct GeneratedFile {
    std::string path;
    std::string text;
};

} // namespace loopscope::codegen
