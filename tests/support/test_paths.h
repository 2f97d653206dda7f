// Paths of example and test data files, and small loaders shared by the tests.
#pragma once

#include "hw/target.h"

#include <memory>
#include <string>

namespace loopscope::test {

/// Repository root (set by CMake).
inline std::string sourceDir() { return LOOPSCOPE_SOURCE_DIR; }
/// examples/kernels/<name>.kernel.yaml, or tests/data/kernels/<name>.kernel.yaml if it exists.
std::string kernelPath(const std::string& name);
/// A built-in target; aborts the calling test (via ADD_FAILURE) and returns null if missing.
std::shared_ptr<const hw::Target> builtinTarget(const std::string& name);
/// A file's bytes ("" when it cannot be read).
std::string readText(const std::string& path);

struct RunResult {
    int exitCode = -1;    ///< -1 when it could not run or did not exit normally
    std::string output;   ///< stdout and stderr
};
/// Runs a shell command and captures its output.
RunResult run(const std::string& command);

} // namespace loopscope::test
