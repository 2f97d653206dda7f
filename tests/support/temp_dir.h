// A temporary folder for a test, removed with its contents afterwards.
#pragma once

#include <filesystem>
#include <string>

namespace loopscope::test {

/// A fresh folder under the system's temporary directory (mkdtemp: `prefix` and six random
/// characters), removed with everything in it afterwards, also when a test took away its
/// write permission.
struct TempDir {
    std::filesystem::path path;
    explicit TempDir(const std::string& prefix = "loopscope-test");
    ~TempDir();
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
};

} // namespace loopscope::test
