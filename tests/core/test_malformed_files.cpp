// Malformed input files: every file under tests/data/malformed/{kernels,targets,schedules}
// starts with "# expect: <substring>" and must fail to load with an error containing it.
//
// An expectation that starts with ':' (":12:5: error: ...") must follow the file's own name
// directly, so it names file:line:column of this file. Otherwise it names another file (a
// malformed kernel or target that a schedule refers to) and must itself hold a position.
#include "support/test_paths.h"

#include "ir/kernel.h"
#include "sched/schedule_file.h"
#include "target_loader.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

using namespace loopscope;
namespace fs = std::filesystem;

namespace {

const char* const kFolders[] = {"kernels", "targets", "schedules"};

struct MalformedFile {
    std::string folder;
    std::string path;
};

std::vector<std::string> yamlFiles(const std::string& folder)
{
    std::vector<std::string> out;
    const fs::path dir = fs::path(test::sourceDir()) / "tests/data/malformed" / folder;
    if (!fs::is_directory(dir))
        return out;
    for (const auto& e : fs::directory_iterator(dir))
        if (e.is_regular_file() && e.path().extension() == ".yaml")
            out.push_back(e.path().string());
    std::sort(out.begin(), out.end());
    return out;
}

std::vector<MalformedFile> allFiles()
{
    std::vector<MalformedFile> out;
    for (const char* folder : kFolders)
        for (const auto& p : yamlFiles(folder))
            out.push_back({folder, p});
    return out;
}

/// All diagnostics of a failed load, or "" when it loaded.
std::string loadErrors(const MalformedFile& f)
{
    if (f.folder == "kernels") {
        auto r = ir::loadKernelFile(f.path);
        return r.ok() ? std::string() : r.errorText();
    }
    if (f.folder == "targets") {
        auto r = hw::loadTargetFile(f.path);
        return r.ok() ? std::string() : r.errorText();
    }
    auto r = sched::openSchedule(f.path, [](const std::string& nameOrPath, const std::string& baseDir) {
        return hw::resolveTarget(nameOrPath, baseDir);
    });
    return r.ok() ? std::string() : r.errorText();
}

void PrintTo(const MalformedFile& f, std::ostream* os) { *os << f.path; }

class MalformedFiles : public ::testing::TestWithParam<MalformedFile> {};

TEST_P(MalformedFiles, FailsWithTheExpectedMessage)
{
    const MalformedFile& f = GetParam();
    std::ifstream in(f.path);
    std::string first;
    std::getline(in, first);
    const std::string tag = "# expect: ";
    ASSERT_EQ(first.rfind(tag, 0), 0u) << f.path << " must start with '" << tag << "<substring of the error>'";
    const std::string expected = first.substr(tag.size());
    ASSERT_FALSE(expected.empty()) << f.path << ": empty expectation";
    ASSERT_TRUE(std::regex_search(expected, std::regex(":[0-9]+:[0-9]+: ")))
        << f.path << ": the expectation must name a line and column (file:line:column:)";

    std::string errors;
    ASSERT_NO_THROW(errors = loadErrors(f)) << f.path;
    ASSERT_FALSE(errors.empty()) << f.path << " loaded without error";

    const std::string name = fs::path(f.path).filename().string();
    const std::string needle = expected.front() == ':' ? name + expected : expected;
    EXPECT_NE(errors.find(needle), std::string::npos) << f.path << "\n  expected: " << needle
                                                      << "\n  got:      " << errors;
    // Every line is a located diagnostic: "path:line:column: error: ..." (no bare "error:").
    std::istringstream lines(errors);
    std::string line;
    while (std::getline(lines, line))
        EXPECT_TRUE(std::regex_search(line, std::regex("^[^ ]+:[0-9]+:[0-9]+: error: ")))
            << f.path << ": diagnostic without file:line:column: " << line;
}

std::string testName(const ::testing::TestParamInfo<MalformedFile>& info)
{
    std::string n = info.param.folder + "_" + fs::path(info.param.path).stem().string();
    for (char& c : n)
        if (!std::isalnum(static_cast<unsigned char>(c)))
            c = '_';
    return n;
}

INSTANTIATE_TEST_SUITE_P(Data, MalformedFiles, ::testing::ValuesIn(allFiles()), testName);

TEST(MalformedFolders, EachHoldsEnoughFiles)
{
    for (const char* folder : kFolders)
        EXPECT_GE(yamlFiles(folder).size(), 10u) << "tests/data/malformed/" << folder;
    EXPECT_GE(yamlFiles("schedules").size(), 15u);
}

} // namespace
