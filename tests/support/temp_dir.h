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

/// One folder per test process for helpers that name their files inside it (`prefix` and six
/// random characters, as TempDir): made at the first call with that prefix and removed with
/// everything in it when the process exits (by the process that made it, not by a forked
/// child). The folders named by the process id that tests made before were never removed: 31
/// of them were left in /tmp by every ctest run.
const std::filesystem::path& processTempDir(const std::string& prefix);

} // namespace loopscope::test
