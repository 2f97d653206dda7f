// `loopscope-cli search`: the front as a table and as JSON, the best schedule written with
// --out (and refused over an existing file), pinned steps, and bad input (exit 2, a message).
#include "support/test_paths.h"

#include "commands.h"
#include "sched/schedule_file.h"
#include "target_loader.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <sstream>
#include <unistd.h>

using namespace loopscope;
namespace fs = std::filesystem;

namespace {

struct CliResult {
    int rc = -1;
    std::string out, err;
};

CliResult runSearchCli(std::vector<std::string> args)
{
    args.insert(args.begin(), "loopscope-cli");
    std::vector<char*> argv;
    for (auto& a : args)
        argv.push_back(a.data());
    std::ostringstream out, err;
    CliResult r;
    r.rc = cli::runCli(static_cast<int>(argv.size()), argv.data(), out, err);
    r.out = out.str();
    r.err = err.str();
    return r;
}

std::string src(const std::string& rel) { return test::sourceDir() + "/" + rel; }

fs::path scratch()
{
    static const fs::path d = [] {
        fs::path p = fs::temp_directory_path() / ("loopscope_test_search_" + std::to_string(::getpid()));
        fs::create_directories(p);
        return p;
    }();
    return d;
}

} // namespace

TEST(SearchCli, TableJsonAndBestScheduleWritten)
{
    fs::path outFile = scratch() / "best.sched.yaml";
    CliResult r = runSearchCli({"search", src("examples/kernels/matmul_int8.kernel.yaml"), "--target", "cortex-m7", "--budget", "300", "--threads", "2",
                 "--out", outFile.string()});
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_NE(r.out.find("Pareto front over (cycles, on-chip bytes, energy)"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("what it changes"), std::string::npos) << r.out;
    ASSERT_TRUE(fs::exists(outFile));
    auto o = sched::openSchedule(outFile.string(), [](const std::string& n, const std::string& d) { return hw::resolveTarget(n, d); });
    ASSERT_TRUE(o.ok()) << o.errorText();
    // Refuses to replace it without --force, replaces it with.
    r = runSearchCli({"search", src("examples/kernels/matmul_int8.kernel.yaml"), "--target", "cortex-m7", "--budget", "64", "--out", outFile.string()});
    EXPECT_EQ(r.rc, cli::kExitBadInput);
    EXPECT_NE(r.err.find("--force"), std::string::npos);
    r = runSearchCli({"search", src("examples/kernels/matmul_int8.kernel.yaml"), "--target", "cortex-m7", "--budget", "64", "--out", outFile.string(), "--force"});
    EXPECT_EQ(r.rc, 0) << r.err;

    r = runSearchCli({"search", src("examples/kernels/matmul_int8.kernel.yaml"), "--target", "cortex-m7", "--budget", "300", "--json", "--objective", "energy"});
    ASSERT_EQ(r.rc, 0) << r.err;
    auto j = nlohmann::json::parse(r.out);
    ASSERT_GT(j["front"].size(), 0u);
    EXPECT_EQ(j["objective"], "energy");
    EXPECT_EQ(j["progress"]["drawn"], 300);
    EXPECT_EQ(j["progress"]["rejected"], 0);
    double best = j["front"][j["best"].get<int>()]["energy_uj"];
    for (const auto& p : j["front"]) {
        EXPECT_LE(best, p["energy_uj"].get<double>());
        EXPECT_TRUE(p["trace"].is_array());
    }
}

TEST(SearchCli, PinnedStepsOfASchedule)
{
    CliResult r = runSearchCli({"search", src("examples/schedules/conv2d_int8_tiled.sched.yaml"), "--pin", "3", "--budget", "128", "--json"});
    ASSERT_EQ(r.rc, 0) << r.err;
    auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["pinned_steps"], 3);
    for (const auto& p : j["front"]) {
        ASSERT_GE(p["trace"].size(), 3u);
        EXPECT_EQ(p["trace"][0], "split oh by 4");
    }
}

TEST(SearchCli, BadInputIsExitTwoWithAMessage)
{
    CliResult r = runSearchCli({"search", src("examples/kernels/matmul_int8.kernel.yaml"), "--budget", "10"});
    EXPECT_EQ(r.rc, cli::kExitBadInput);
    EXPECT_NE(r.err.find("--target"), std::string::npos) << r.err;
    r = runSearchCli({"search", src("examples/kernels/matmul_int8.kernel.yaml"), "--target", "cortex-m7", "--objective", "speed"});
    EXPECT_EQ(r.rc, cli::kExitBadInput);
    EXPECT_NE(r.err.find("unknown objective 'speed'"), std::string::npos) << r.err;
    r = runSearchCli({"search", src("examples/schedules/conv2d_int8_tiled.sched.yaml"), "--pin", "99", "--budget", "10"});
    EXPECT_EQ(r.rc, cli::kExitBadInput);
    EXPECT_NE(r.err.find("exceeds the schedule's 7 steps"), std::string::npos) << r.err;
    r = runSearchCli({"search", src("tests/data/malformed/does-not-exist.kernel.yaml"), "--target", "cortex-m7"});
    EXPECT_EQ(r.rc, cli::kExitBadInput);
    EXPECT_FALSE(r.err.empty());
}
