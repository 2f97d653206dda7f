// Shared by the store tests: a scratch folder per test and variants made from the examples.
#pragma once

#include "store/variant_files.h"
#include "store/workspace.h"
#include "support/test_paths.h"
#include "target_loader.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

namespace loopscope::test {

/// A fresh folder under the system's temporary folder, removed at the end of the test.
class ScratchDir {
public:
    explicit ScratchDir(const std::string& tag)
    {
        const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
        m_path = std::filesystem::temp_directory_path()
            / ("loopscope-" + tag + "-" + (info ? std::string(info->name()) : std::string("x")) + "-" + std::to_string(getpid()));
        std::filesystem::remove_all(m_path);
        std::filesystem::create_directories(m_path);
    }
    ~ScratchDir()
    {
        std::error_code ec;
        std::filesystem::permissions(m_path, std::filesystem::perms::owner_all, std::filesystem::perm_options::add, ec);
        std::filesystem::remove_all(m_path, ec);
    }
    std::string operator/(const std::string& name) const { return (m_path / name).string(); }
    const std::filesystem::path& path() const { return m_path; }

private:
    std::filesystem::path m_path;
};

inline store::TargetParser targetParser() { return [](const std::string& text, const std::string& path) { return hw::parseTarget(text, path); }; }
inline store::BuiltinTargetText builtinText() { return [](const std::string& name) { return hw::builtinTargetText(name); }; }

/// examples/schedules/<name>.sched.yaml as a variant (figures included).
inline store::NewVariant exampleVariant(const std::string& name)
{
    auto v = store::variantFromScheduleFile(sourceDir() + "/examples/schedules/" + name + ".sched.yaml", targetParser(), builtinText());
    EXPECT_TRUE(v.ok()) << v.errorText();
    return v.ok() ? *v : store::NewVariant{};
}

inline std::string fileBytes(const std::string& path) { return readText(path); }

inline void writeBytes(const std::string& path, const std::string& bytes)
{
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << bytes;
}

} // namespace loopscope::test
