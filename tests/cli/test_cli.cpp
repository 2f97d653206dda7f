// loopscope-cli as a user runs it: the built binary is spawned, its stdout and stderr are
// captured, and exit codes (0 ok, 1 verification failed, 2 bad input) and output are checked.
#include "support/test_paths.h"

#include "analysis/instructions.h"
#include "ir/kernel.h"
#include "lower/loop_nest.h"
#include "sched/schedule_file.h"
#include "target_loader.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

using namespace loopscope;
namespace fs = std::filesystem;

namespace {

struct CliRun {
    int exitCode = -1;
    std::string out;
    std::string err;
};

std::string readBytes(const fs::path& p)
{
    std::ifstream in(p, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

std::string shellQuote(const std::string& s)
{
    std::string out = "'";
    for (char c : s) {
        if (c == '\'')
            out += "'\\''";
        else
            out += c;
    }
    return out + "'";
}

fs::path scratchDir()
{
    static const fs::path dir = [] {
        fs::path d = fs::temp_directory_path() / ("loopscope_test_cli_" + std::to_string(::getpid()));
        fs::create_directories(d);
        return d;
    }();
    return dir;
}

/// Runs loopscope-cli with `args` (each passed as one argument) and captures everything.
CliRun cli(const std::vector<std::string>& args)
{
    static int counter = 0;
    const int n = counter++;
    const fs::path out = scratchDir() / ("out" + std::to_string(n));
    const fs::path err = scratchDir() / ("err" + std::to_string(n));
    std::string cmd = shellQuote(LOOPSCOPE_CLI);
    for (const auto& a : args)
        cmd += " " + shellQuote(a);
    cmd += " >" + shellQuote(out.string()) + " 2>" + shellQuote(err.string()) + " </dev/null";
    const int status = std::system(cmd.c_str());
    CliRun r;
    r.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = readBytes(out);
    r.err = readBytes(err);
    fs::remove(out);
    fs::remove(err);
    return r;
}

std::string describe(const CliRun& r)
{
    return "exit " + std::to_string(r.exitCode) + "\n--- stdout:\n" + r.out + "--- stderr:\n" + r.err;
}

std::string src(const std::string& rel) { return test::sourceDir() + "/" + rel; }

std::vector<std::string> exampleSchedules()
{
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(src("examples/schedules")))
        if (e.path().string().ends_with(".sched.yaml"))
            out.push_back(e.path().string());
    std::sort(out.begin(), out.end());
    return out;
}

std::vector<std::string> exampleKernels()
{
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(src("examples/kernels")))
        if (e.path().string().ends_with(".kernel.yaml"))
            out.push_back(e.path().string());
    std::sort(out.begin(), out.end());
    return out;
}

const std::string kTiled = "examples/schedules/matmul_f32_tiled.sched.yaml";

sched::OpenedSchedule openOrFail(const std::string& path)
{
    auto o = sched::openSchedule(path, [](const std::string& n, const std::string& dir) {
        return hw::resolveTarget(n, dir);
    });
    EXPECT_TRUE(o.ok()) << o.errorText();
    return o.ok() ? *o : sched::OpenedSchedule{};
}

// ---- lower ------------------------------------------------------------------------------

TEST(CliLower, ScheduleMatchesTheLibrary)
{
    const std::string path = src(kTiled);
    CliRun r = cli({"lower", path});
    ASSERT_EQ(r.exitCode, 0) << describe(r);
    EXPECT_EQ(r.err, "");
    auto o = openOrFail(path);
    ASSERT_TRUE(o.kernel);
    EXPECT_EQ(r.out, lower::print(lower::lower(o.program)));
    EXPECT_NE(r.out.find("copy A["), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("on cortex-m7"), std::string::npos) << r.out;
}

TEST(CliLower, KernelIsUnscheduledOnCortexM7ByDefault)
{
    const std::string path = src("examples/kernels/matmul_f32.kernel.yaml");
    CliRun r = cli({"lower", path});
    ASSERT_EQ(r.exitCode, 0) << describe(r);
    auto k = ir::loadKernelFile(path);
    ASSERT_TRUE(k.ok()) << k.errorText();
    auto t = hw::loadBuiltinTarget("cortex-m7");
    ASSERT_TRUE(t.ok()) << t.errorText();
    auto p = sched::Program::initial(std::make_shared<const ir::Kernel>(*k), std::make_shared<const hw::Target>(*t));
    EXPECT_EQ(r.out, lower::print(lower::lower(p)));
    EXPECT_EQ(r.out.find("copy"), std::string::npos) << "an unscheduled nest has no copies\n" << r.out;
}

TEST(CliLower, EveryExampleKernel)
{
    for (const auto& k : exampleKernels()) {
        CliRun r = cli({"lower", k});
        EXPECT_EQ(r.exitCode, 0) << k << "\n" << describe(r);
        EXPECT_FALSE(r.out.empty()) << k;
    }
}

TEST(CliLower, TargetOption)
{
    CliRun k = cli({"lower", src("examples/kernels/matmul_int8.kernel.yaml"), "--target", "gemmini-16x16"});
    ASSERT_EQ(k.exitCode, 0) << describe(k);
    EXPECT_NE(k.out.find("// matmul_int8 on gemmini-16x16"), std::string::npos) << k.out;

    // A schedule replayed on another target that has the same level names.
    CliRun s = cli({"lower", src(kTiled), "--target", "cortex-m4"});
    ASSERT_EQ(s.exitCode, 0) << describe(s);
    EXPECT_NE(s.out.find("// matmul_f32 on cortex-m4"), std::string::npos) << s.out;

    // ... and on one that lacks them: the replay fails, naming the step.
    CliRun g = cli({"lower", src(kTiled), "--target", "gemmini-16x16"});
    EXPECT_EQ(g.exitCode, 2) << describe(g);
    EXPECT_EQ(g.out, "");
    EXPECT_NE(g.err.find("step 4 (cache_read)"), std::string::npos) << g.err;
    EXPECT_NE(g.err.find("no memory level 'SRAM'"), std::string::npos) << g.err;

    CliRun bad = cli({"lower", src(kTiled), "--target", "no-such-target"});
    EXPECT_EQ(bad.exitCode, 2) << describe(bad);
    EXPECT_NE(bad.err.find("no-such-target"), std::string::npos) << bad.err;
}

// ---- verify -----------------------------------------------------------------------------

TEST(CliVerify, EveryExampleScheduleIsOk)
{
    const auto schedules = exampleSchedules();
    ASSERT_FALSE(schedules.empty());
    for (const auto& s : schedules) {
        CliRun r = cli({"verify", s});
        EXPECT_EQ(r.exitCode, 0) << s << "\n" << describe(r);
        EXPECT_EQ(r.out, "OK\n") << s;
        EXPECT_EQ(r.err, "") << s;
    }
}

TEST(CliVerify, Seed)
{
    for (const char* seed : {"7", "0", "123456789"}) {
        CliRun r = cli({"verify", "--seed", seed, src(kTiled)});
        EXPECT_EQ(r.exitCode, 0) << describe(r);
        EXPECT_EQ(r.out, "OK\n");
    }
    CliRun after = cli({"verify", src(kTiled), "--seed", "7"});
    EXPECT_EQ(after.exitCode, 0) << describe(after);
    CliRun bad = cli({"verify", src(kTiled), "--seed", "seven"});
    EXPECT_EQ(bad.exitCode, 2) << describe(bad);
    EXPECT_NE(bad.err.find("seven"), std::string::npos) << bad.err;
}

TEST(CliVerify, KernelFile)
{
    CliRun r = cli({"verify", src("tests/data/kernels/scaled_matmul.kernel.yaml")});
    EXPECT_EQ(r.exitCode, 0) << describe(r);
    EXPECT_EQ(r.out, "OK\n");
}

// Exit code 1 means the interpreter disagrees with the reference, which only a bug in the
// primitives or the lowering can cause; there is no honest schedule that must give 1. This
// schedule did (an accepted cache_write whose tile is strided, see the malformed file's
// comment): it must be rejected (2) or verify (0). While it still reaches 1, the mismatch
// report is checked for its format.
TEST(CliVerify, AcceptedScheduleNeverMismatches)
{
    const std::string path = src("tests/data/malformed/schedules/cache-write-strided-after-unit-split.yaml");
    CliRun r = cli({"verify", path});
    EXPECT_NE(r.exitCode, 1) << "an accepted schedule computes a wrong result\n" << describe(r);
    if (r.exitCode == 1) {
        EXPECT_EQ(r.out.rfind("mismatch at C[", 0), 0u) << r.out;
        EXPECT_NE(r.out.find(", expected "), std::string::npos) << r.out;
        EXPECT_EQ(r.err, "");
    } else {
        EXPECT_EQ(r.exitCode, 2) << describe(r);
        EXPECT_NE(r.err.find("step 4 (reorder)"), std::string::npos) << r.err;
    }
}

// ---- counts -----------------------------------------------------------------------------

nlohmann::json countsJson(const std::string& schedule, const std::vector<std::string>& extra = {})
{
    std::vector<std::string> args = {"counts", "--json", schedule};
    args.insert(args.end(), extra.begin(), extra.end());
    CliRun r = cli(args);
    EXPECT_EQ(r.exitCode, 0) << describe(r);
    EXPECT_EQ(r.err, "");
    try {
        return nlohmann::json::parse(r.out);
    } catch (const std::exception& e) {
        ADD_FAILURE() << "counts --json is not JSON: " << e.what() << "\n" << r.out;
        return {};
    }
}

int64_t tensorBytes(const nlohmann::json& j, const std::string& tensor, const std::string& level, const char* field)
{
    for (const auto& t : j["tensors"])
        if (t["name"] == tensor && t["level"] == level)
            return t[field].get<int64_t>();
    return 0;
}

TEST(CliCounts, JsonShape)
{
    nlohmann::json j = countsJson(src(kTiled));
    ASSERT_TRUE(j.is_object()) << j.dump();
    ASSERT_TRUE(j.contains("levels") && j["levels"].is_array());
    ASSERT_TRUE(j.contains("tensors") && j["tensors"].is_array());

    // Levels: every level of the target, outermost first.
    auto target = hw::loadBuiltinTarget("cortex-m7");
    ASSERT_TRUE(target.ok());
    ASSERT_EQ(j["levels"].size(), target->levels.size());
    for (size_t i = 0; i < target->levels.size(); ++i) {
        const auto& l = j["levels"][i];
        EXPECT_EQ(l.size(), 3u) << l.dump();
        EXPECT_EQ(l["name"], target->levels[i].name);
        EXPECT_TRUE(l["read_bytes"].is_number_integer()) << l.dump();
        EXPECT_TRUE(l["write_bytes"].is_number_integer()) << l.dump();
        EXPECT_GE(l["read_bytes"].get<int64_t>(), 0);
    }
    EXPECT_EQ(j["levels"][0]["name"], "DRAM");
    EXPECT_EQ(j["levels"][1]["name"], "SRAM");

    // Tensors: name, level, bytes; per level they add up to the level's totals.
    std::map<std::string, std::pair<int64_t, int64_t>> sums;
    for (const auto& t : j["tensors"]) {
        EXPECT_EQ(t.size(), 4u) << t.dump();
        ASSERT_TRUE(t["name"].is_string() && t["level"].is_string()) << t.dump();
        ASSERT_TRUE(t["read_bytes"].is_number_integer() && t["write_bytes"].is_number_integer()) << t.dump();
        sums[t["level"]].first += t["read_bytes"].get<int64_t>();
        sums[t["level"]].second += t["write_bytes"].get<int64_t>();
    }
    for (const auto& l : j["levels"]) {
        EXPECT_EQ(sums[l["name"]].first, l["read_bytes"].get<int64_t>()) << l.dump();
        EXPECT_EQ(sums[l["name"]].second, l["write_bytes"].get<int64_t>()) << l.dump();
    }
}

// The seed's tiled matmul: A is cached per (i.outer, j.outer), so each element of A is read
// from DRAM once per iteration of j.outer, B once per i.outer; C is written once.
TEST(CliCounts, TiledMatmulDramTraffic)
{
    const std::string path = src(kTiled);
    auto o = openOrFail(path);
    ASSERT_TRUE(o.kernel);
    const ir::Kernel& k = *o.kernel;
    int64_t iFactor = 0, jFactor = 0;
    for (const auto& s : o.file.steps)
        if (s.primitive == sched::Primitive::Split && s.loops == std::vector<std::string>{"i"})
            iFactor = s.factor;
        else if (s.primitive == sched::Primitive::Split && s.loops == std::vector<std::string>{"j"})
            jFactor = s.factor;
    ASSERT_GT(iFactor, 0);
    ASSERT_GT(jFactor, 0);
    const int64_t M = k.params.at("M"), N = k.params.at("N");
    ASSERT_EQ(M % iFactor, 0);
    ASSERT_EQ(N % jFactor, 0);
    const int64_t jOuter = N / jFactor, iOuter = M / iFactor;
    const int64_t aBytes = k.tensors[k.findTensor("A")].bytes();
    const int64_t bBytes = k.tensors[k.findTensor("B")].bytes();
    const int64_t cBytes = k.tensors[k.findTensor("C")].bytes();
    ASSERT_EQ(aBytes, 64 * 64 * 4);  // the example's sizes; 64/16 = 4 tiles per dimension
    ASSERT_EQ(jOuter, 4);

    nlohmann::json j = countsJson(path);
    EXPECT_EQ(tensorBytes(j, "A", "DRAM", "read_bytes"), 4 * aBytes);
    EXPECT_EQ(tensorBytes(j, "A", "DRAM", "read_bytes"), jOuter * aBytes);
    EXPECT_EQ(tensorBytes(j, "B", "DRAM", "read_bytes"), iOuter * bBytes);
    EXPECT_EQ(tensorBytes(j, "C", "DRAM", "write_bytes"), cBytes);
    EXPECT_EQ(tensorBytes(j, "C", "DRAM", "read_bytes"), 0);
    // What goes into SRAM is what comes out of DRAM.
    EXPECT_EQ(tensorBytes(j, "A", "SRAM", "write_bytes"), jOuter * aBytes);
    EXPECT_EQ(tensorBytes(j, "B", "SRAM", "write_bytes"), iOuter * bBytes);
    // Traffic does not depend on the data.
    EXPECT_EQ(countsJson(path, {"--seed", "7"}), j);
}

TEST(CliCounts, TextAgreesWithJson)
{
    const std::string path = src(kTiled);
    CliRun r = cli({"counts", path});
    ASSERT_EQ(r.exitCode, 0) << describe(r);
    nlohmann::json j = countsJson(path);
    for (const auto& l : j["levels"]) {
        
        const std::string name = l["name"];
        auto pos = r.out.find("\n" + name + " ");
        ASSERT_NE(pos, std::string::npos) << name << "\n" << r.out;
        std::istringstream line(r.out.substr(pos + 1, r.out.find('\n', pos + 1) - pos - 1));
        std::string n;
        int64_t rd = -1, wr = -1;
        line >> n >> rd >> wr;
        EXPECT_EQ(rd, l["read_bytes"].get<int64_t>()) << name;
        EXPECT_EQ(wr, l["write_bytes"].get<int64_t>()) << name;
    }
}

TEST(CliCounts, EveryExampleSchedule)
{
    for (const auto& s : exampleSchedules()) {
        SCOPED_TRACE(s);
        nlohmann::json j = countsJson(s);
        ASSERT_TRUE(j.contains("levels")) << j.dump();
        EXPECT_GE(j["levels"].size(), 2u);
        EXPECT_GT(j["levels"][0]["read_bytes"].get<int64_t>(), 0);
    }
}

// ---- targets ----------------------------------------------------------------------------

TEST(CliTargets, ListsTheBuiltInTargets)
{
    CliRun r = cli({"targets"});
    ASSERT_EQ(r.exitCode, 0) << describe(r);
    EXPECT_EQ(r.err, "");
    for (const char* name : {"cortex-m4", "cortex-m7", "gemmini-16x16"}) {
        bool atLineStart = r.out.rfind(std::string(name) + " ", 0) == 0
            || r.out.find("\n" + std::string(name) + " ") != std::string::npos;
        EXPECT_TRUE(atLineStart) << name << "\n" << r.out;
    }
    // Clock and level sizes come from the target file (cortex-m7: 400 MHz, 8 MiB DRAM, 512 KiB SRAM).
    const size_t m7 = r.out.find("cortex-m7 ");
    ASSERT_NE(m7, std::string::npos) << r.out;
    const std::string line = r.out.substr(m7, r.out.find('\n', m7) - m7);
    for (const char* part : {"400 MHz", "DRAM 8 MiB", "SRAM 512 KiB"})
        EXPECT_NE(line.find(part), std::string::npos) << part << "\n" << line;
}

// ---- bad input --------------------------------------------------------------------------

void expectBadInput(const std::vector<std::string>& args, const std::string& errSubstring)
{
    std::string shown;
    for (const auto& a : args)
        shown += " " + a;
    CliRun r = cli(args);
    EXPECT_EQ(r.exitCode, 2) << "loopscope-cli" << shown << "\n" << describe(r);
    EXPECT_EQ(r.out, "") << "loopscope-cli" << shown;
    EXPECT_NE(r.err.find(errSubstring), std::string::npos)
        << "loopscope-cli" << shown << "\n  expected on stderr: " << errSubstring << "\n" << describe(r);
}

TEST(CliBadInput, MissingFile)
{
    const std::string missing = src("examples/schedules/no_such.sched.yaml");
    for (const char* cmd : {"lower", "verify", "counts"})
        expectBadInput({cmd, missing}, "cannot open '" + missing + "'");
    expectBadInput({"lower", src("examples/kernels/no_such.kernel.yaml")}, "no_such.kernel.yaml");
}

TEST(CliBadInput, NegativeNumbersAreRefusedInWords)
{
    // A negative time limit, budget or seed was taken (a seed wrapped to 2^64 - 1) or refused
    // with a message quoting the largest double.
    const std::string kernel = src("examples/kernels/matmul_f32.kernel.yaml");
    expectBadInput({"search", kernel, "--target", "cortex-m7", "--time", "-1", "--budget", "50"}, "--time: takes a number of 0 or more, not '-1'");
    expectBadInput({"search", kernel, "--target", "cortex-m7", "--time", "0", "--budget", "-5"}, "--budget: takes a number of 0 or more, not '-5'");
    expectBadInput({"search", kernel, "--target", "cortex-m7", "--seed", "-1"}, "--seed: takes a number of 0 or more, not '-1'");
    expectBadInput({"verify", src("examples/schedules/matmul_f32_tiled.sched.yaml"), "--seed", "-1"}, "--seed: takes a number of 0 or more, not '-1'");
    expectBadInput({"search", kernel, "--target", "cortex-m7", "--threads", "x"}, "--threads");
}

TEST(CliBadInput, MalformedYaml)
{
    const std::string bad = src("tests/data/malformed/schedules/yaml-syntax.yaml");
    for (const char* cmd : {"lower", "verify", "counts"})
        expectBadInput({cmd, bad}, "yaml-syntax.yaml:7:12: error: YAML syntax error");
    expectBadInput({"lower", src("tests/data/malformed/kernels/yaml-syntax.yaml")}, "yaml-syntax.yaml:");
}

TEST(CliBadInput, FailingStep)
{
    const std::string bad = src("tests/data/malformed/schedules/replay-loop-not-in-stage.yaml");
    for (const char* cmd : {"lower", "verify", "counts"})
        expectBadInput({cmd, bad}, "replay-loop-not-in-stage.yaml:8:5: error: step 3 (reorder): j.inner is not a loop of stage C");
}

TEST(CliBadInput, UnknownSubcommandAndOptions)
{
    expectBadInput({"frobnicate"}, "frobnicate");
    expectBadInput({}, "");
    expectBadInput({"verify", src(kTiled), "--frobnicate"}, "--frobnicate");
    expectBadInput({"lower", src(kTiled), "--json"}, "--json");
    expectBadInput({"counts"}, "SCHEDULE");
    expectBadInput({"lower"}, "FILE");
    expectBadInput({"targets", "extra"}, "extra");
}

TEST(CliHelp, EverySubcommand)
{
    CliRun top = cli({"--help"});
    EXPECT_EQ(top.exitCode, 0) << describe(top);
    for (const char* cmd : {"lower", "verify", "counts", "targets"})
        EXPECT_NE(top.out.find(cmd), std::string::npos) << top.out;

    const std::map<std::string, std::vector<std::string>> options = {
        {"lower", {"FILE", "--target"}},
        {"verify", {"SCHEDULE", "--seed"}},
        {"counts", {"SCHEDULE", "--json", "--seed"}},
        {"targets", {}},
    };
    for (const auto& [cmd, opts] : options) {
        for (const char* flag : {"--help", "-h"}) {
            CliRun r = cli({cmd, flag});
            EXPECT_EQ(r.exitCode, 0) << cmd << " " << flag << "\n" << describe(r);
            EXPECT_EQ(r.err, "") << cmd << " " << flag;
            // The subcommand's own help: its usage line and its options.
            EXPECT_NE(r.out.find(cmd), std::string::npos) << cmd << " " << flag << "\n" << r.out;
            for (const auto& o : opts)
                EXPECT_NE(r.out.find(o), std::string::npos) << cmd << " " << flag << ": help lacks " << o << "\n" << r.out;
        }
    }
    CliRun all = cli({"--help-all"});
    EXPECT_EQ(all.exitCode, 0) << describe(all);
    EXPECT_NE(all.out.find("--seed"), std::string::npos) << all.out;
}

struct Cleanup : ::testing::Environment {
    void TearDown() override { fs::remove_all(scratchDir()); }
};
const auto* const kCleanup = ::testing::AddGlobalTestEnvironment(new Cleanup);

} // namespace

TEST(CliExport, NeverOverwritesAFileItDidNotWrite)
{
    const fs::path dir = fs::temp_directory_path() / ("loopscope-cli-export-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    std::ofstream(dir / "main.c") << "int main(void) { return 42; }  /* the user's own */\n";

    // A file in the way: exit 2, the file named, nothing written (not even the kernel).
    expectBadInput({"export", src(kTiled), "--out", dir.string(), "--harness"},
                   "not exporting into '" + dir.string() + "': main.c exists and would be overwritten (not written by an earlier export, or "
                   "edited since). Nothing was written. Use --force to replace it.");
    EXPECT_FALSE(fs::exists(dir / "matmul_f32.c"));
    EXPECT_FALSE(fs::exists(dir / ".loopscope-export"));
    EXPECT_EQ(test::readText(dir / "main.c"), "int main(void) { return 42; }  /* the user's own */\n");

    // Without the harness nothing is in the way; exporting again replaces its own files.
    CliRun first = cli({"export", src(kTiled), "--out", dir.string()});
    ASSERT_EQ(first.exitCode, 0) << describe(first);
    const std::string tiledC = test::readText(dir / "matmul_f32.c");
    CliRun again = cli({"export", src("examples/schedules/matmul_f32_naive.sched.yaml"), "--out", dir.string()});
    ASSERT_EQ(again.exitCode, 0) << describe(again);
    EXPECT_NE(test::readText(dir / "matmul_f32.c"), tiledC);

    // An edit to an exported file is the user's work too.
    std::ofstream(dir / "matmul_f32.c", std::ios::app) << "/* tuned by hand */\n";
    expectBadInput({"export", src(kTiled), "--out", dir.string()}, "matmul_f32.c exists and would be overwritten");
    EXPECT_NE(test::readText(dir / "matmul_f32.c").find("/* tuned by hand */"), std::string::npos);

    // --force replaces whatever is in the way.
    CliRun forced = cli({"export", src(kTiled), "--out", dir.string(), "--harness", "--force"});
    ASSERT_EQ(forced.exitCode, 0) << describe(forced);
    EXPECT_EQ(test::readText(dir / "matmul_f32.c").find("/* tuned by hand */"), std::string::npos);
    EXPECT_NE(test::readText(dir / "main.c").find("Loopscope export harness"), std::string::npos);
    fs::remove_all(dir);
}

// A schedule that does not fit its target (an error diagnostic) is not exported unless asked:
// exit 2, the errors named, nothing written; --force exports it with the errors as warnings.
TEST(CliExport, RefusesAScheduleWithErrorsUnlessForced)
{
    const fs::path dir = fs::temp_directory_path() / ("loopscope-cli-export-errors-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    const fs::path schedule = dir / "too_big.sched.yaml";
    std::ofstream(schedule) << "kernel: " << src("examples/kernels/matmul_f32.kernel.yaml") << "\n"
                            << "target: " << src("tests/data/analysis/tiny-fast-memory.target.yaml") << "\n"
                            << "steps:\n  - split: {loop: i, factor: 16}\n  - split: {loop: j, factor: 16}\n"
                            << "  - reorder: {loops: [i.outer, j.outer, i.inner, j.inner, k]}\n"
                            << "  - cache_read: {tensor: A, level: SRAM, at: j.outer}\n";
    const fs::path out = dir / "out";
    CliRun refused = cli({"export", schedule.string(), "--out", out.string()});
    EXPECT_EQ(refused.exitCode, 2) << describe(refused);
    EXPECT_NE(refused.err.find("error [over-capacity] step 4: SRAM holds 4 KiB at once but has 48 B: A_SRAM 16x64 = 4 KiB"), std::string::npos) << refused.err;
    EXPECT_NE(refused.err.find("not exported: the schedule has 1 error"), std::string::npos) << refused.err;
    EXPECT_NE(refused.err.find("Use --force to export anyway"), std::string::npos) << refused.err;
    EXPECT_FALSE(fs::exists(out / "matmul_f32.c"));

    CliRun forced = cli({"export", schedule.string(), "--out", out.string(), "--force"});
    EXPECT_EQ(forced.exitCode, 0) << describe(forced);
    EXPECT_NE(forced.err.find("warning [over-capacity]"), std::string::npos) << forced.err;
    EXPECT_TRUE(fs::exists(out / "matmul_f32.c"));
    fs::remove_all(dir);
}

// `analyze --loops`: what the instruction model expects GCC -O2 to make of each loop.
TEST(CliAnalyze, LoopsListWhatTheCompilerIsExpectedToMakeOfEachLoop)
{
    auto loopsOf = [](const std::string& schedule) {
        CliRun r = cli({"analyze", "--json", "--loops", schedule});
        EXPECT_EQ(r.exitCode, 0) << describe(r);
        nlohmann::json j = nlohmann::json::parse(r.out, nullptr, false);
        EXPECT_FALSE(j.is_discarded()) << r.out;
        return j;
    };
    // i.inner, a two-iteration loop one statement too large to unroll, is kept; k.inner inside
    // it (two iterations, one multiply-accumulate) is unrolled by the compiler.
    nlohmann::json j = loopsOf(src("tests/data/analysis/two_trip_one_too_large.sched.yaml"));
    ASSERT_TRUE(j["loops"].is_array()) << j.dump(1);
    const nlohmann::json* iInner = nullptr;
    const nlohmann::json* kInner = nullptr;
    int depthBefore = -1;
    for (const auto& l : j["loops"]) {
        EXPECT_LE(l["depth"].get<int>(), depthBefore + 1) << "the C's order, a child right after its parent";
        depthBefore = l["depth"].get<int>();
        if (l["name"] == "i.inner" && l["depth"] == 4)  // in k.outer, i.outer, j.inner: the multiply-accumulates'
            iInner = &l;
        if (l["name"] == "k.inner" && iInner && !kInner)
            kInner = &l;
    }
    ASSERT_NE(iInner, nullptr) << j["loops"].dump(1);
    ASSERT_NE(kInner, nullptr);
    EXPECT_EQ((*iInner)["compiled"], "loop");
    EXPECT_EQ((*iInner)["iterations"], 2);
    EXPECT_GT((*iInner)["instructions"].get<double>(), 0);
    EXPECT_GT((*iInner)["registers"].get<double>(), 0);  // the innermost kept loop
    EXPECT_EQ((*kInner)["compiled"], "unrolled by the compiler");
    EXPECT_FALSE(kInner->contains("instructions"));
    // Instructions inside a kept loop include its kept loops': the outermost holds nearly all of
    // the kernel's (the function's prologue, the other nests outside).
    const double kernel = j["instructions"]["kernel"].get<double>();
    const double outer = j["loops"][0]["instructions"].get<double>();
    EXPECT_LE(outer, kernel);
    EXPECT_GT(outer, 0.9 * kernel);
    // w.inner around a 2x2 block whose index arithmetic folds away: unrolled by the compiler.
    j = loopsOf(src("tests/data/analysis/two_trip_folded_index.sched.yaml"));
    bool folded = false;
    for (const auto& l : j["loops"])
        folded = folded || (l["name"] == "w.inner" && l["compiled"] == "unrolled by the compiler");
    EXPECT_TRUE(folded) << j["loops"].dump(1);
    // The schedule's unroll steps and the DSP path.
    j = loopsOf(src("examples/schedules/dense_int8_dsp.sched.yaml"));
    bool unrolled = false, dsp = false;
    for (const auto& l : j["loops"]) {
        unrolled = unrolled || (l["name"] == "b.inner" && l["compiled"] == "unrolled");
        dsp = dsp || (l["name"] == "i.inner" && l["dsp"] == true);
    }
    EXPECT_TRUE(unrolled && dsp) << j["loops"].dump(1);
    // The spills of a kept loop: the stack accesses of the values beyond the registers, inside it
    // (a search pick whose 16 oh copies share F's packed pairs: all of the kernel's spills in
    // its ow loop, 18 registers live there; none in the ow loop of the initialisation).
    j = loopsOf(src("tests/data/instructions/search_conv2d_int8_dsp_5.sched.yaml"));
    const double spills = j["instructions"]["breakdown"]["spills"].get<double>();
    EXPECT_GT(spills, 0);
    int spilling = 0, free = 0;
    for (const auto& l : j["loops"]) {
        if (!l.contains("registers"))
            continue;  // not an innermost kept loop
        ASSERT_TRUE(l.contains("spill_instructions")) << l.dump();
        if (l["registers"].get<double>() > 14) {
            EXPECT_DOUBLE_EQ(l["spill_instructions"].get<double>(), spills) << l.dump();
            ++spilling;
        } else {
            EXPECT_EQ(l["spill_instructions"].get<double>(), 0) << l.dump();
            ++free;
        }
    }
    EXPECT_EQ(spilling, 1) << j["loops"].dump(1);
    EXPECT_GE(free, 1);
    // What a kept loop's instructions are made of: its events, each times the target's
    // instructions per event, sum to them (cortex-m7 has no calibration: the defaults), and the
    // stack accesses among them are its spills.
    for (const auto& l : j["loops"]) {
        if (!l.contains("instructions"))
            continue;
        ASSERT_TRUE(l.contains("events")) << l.dump();
        double sum = 0, stack = 0;
        for (const auto& [name, count] : l["events"].items()) {
            int i = 0;
            while (i < analysis::kInsnFeatureCount && name != analysis::insnFeatureName(static_cast<analysis::InsnFeature>(i)))
                ++i;
            ASSERT_LT(i, analysis::kInsnFeatureCount) << name;
            const auto f = static_cast<analysis::InsnFeature>(i);
            sum += count.get<double>() * analysis::defaultInsnCoefficient(f);
            if (f == analysis::InsnFeature::Spill || f == analysis::InsnFeature::SpillReload)
                stack += count.get<double>() * analysis::defaultInsnCoefficient(f);
        }
        EXPECT_NEAR(sum, l["instructions"].get<double>(), 1e-6 * sum + 1e-9) << l.dump();
        EXPECT_NEAR(stack, l["spill_instructions"].get<double>(), 1e-9) << l.dump();
    }
    // The table.
    CliRun text = cli({"analyze", "--loops", src("tests/data/analysis/two_trip_one_too_large.sched.yaml")});
    ASSERT_EQ(text.exitCode, 0) << describe(text);
    EXPECT_NE(text.out.find("compiled as"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("unrolled by the compiler"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find(" of 14"), std::string::npos) << text.out;
    // A two-iteration innermost loop shows GCC's size estimate as the model rebuilds it, O-E
    // (random #100102's i.inner: 23 statements, 5 folding away in the copies; GCC keeps it).
    j = loopsOf(src("tests/data/analysis/two_innermost_kept.sched.yaml"));
    bool weighed = false;
    for (const auto& l : j["loops"])
        if (l["name"] == "i.inner" && l.contains("gcc_size")) {
            weighed = true;
            EXPECT_EQ(l["gcc_size"], 23) << l.dump();
            EXPECT_EQ(l["gcc_folded"], 5) << l.dump();
            EXPECT_EQ(l["compiled"], "loop") << l.dump();
        }
    EXPECT_TRUE(weighed) << j.dump();
    CliRun sized = cli({"analyze", "--loops", src("tests/data/analysis/two_innermost_kept.sched.yaml")});
    ASSERT_EQ(sized.exitCode, 0) << describe(sized);
    EXPECT_NE(sized.out.find("loop" + std::string(22, ' ') + "23-5"), std::string::npos) << sized.out;
    // An accelerator: no instruction model, no loop list.
    j = loopsOf(src("examples/schedules/gemmini_matmul_int8_128.sched.yaml"));
    EXPECT_FALSE(j.contains("loops"));
}

// `tiles`: the regions of the tile model per iteration of the outer loops, as text and JSON.
TEST(CliTiles, PrintsTheRegionsOfEveryStep)
{
    CliRun text = cli({"tiles", src("docs/tutorial/matmul_4_double_buffered.sched.yaml")});
    ASSERT_EQ(text.exitCode, 0) << describe(text);
    EXPECT_NE(text.out.find("tiles of matmul_f32 on cortex-m7: output C [64 x 64], 16 steps over i.outer (4) x j.outer (4)"), std::string::npos)
        << text.out;
    EXPECT_NE(text.out.find("step 6 of 16: i.outer = 1, j.outer = 1\n  computes C[16:32, 16:32] (256 elements)\n"
                            "  SRAM A_SRAM: A[16:32, 0:64] (4 KiB)\n    second buffer prefetches A[32:48, 0:64]\n"),
              std::string::npos)
        << text.out;

    CliRun json = cli({"tiles", src("examples/schedules/dwsep_conv_fused.sched.yaml"), "--json"});
    ASSERT_EQ(json.exitCode, 0) << describe(json);
    const auto j = nlohmann::json::parse(json.out);
    EXPECT_EQ(j["output"]["tensor"], "O");
    EXPECT_EQ(j["positions"], 28);
    ASSERT_EQ(j["steps"].size(), 28u);
    const auto& step1 = j["steps"][1];
    EXPECT_EQ(step1["tile"]["text"], "O[4:8, 0:112, 0:64]");
    EXPECT_EQ(step1["tile"]["lo"], (std::vector<int64_t>{4, 0, 0}));
    EXPECT_EQ(step1["tile"]["hi"], (std::vector<int64_t>{7, 111, 63}));
    bool input = false;
    for (const auto& r : step1["resident"])
        if (r["tensor"] == "I") {
            input = true;
            EXPECT_EQ(r["level"], "SRAM");
            EXPECT_EQ(r["region"]["text"], "I[3:9, 0:112, 0:32]");
        }
    EXPECT_TRUE(input) << json.out;
    EXPECT_TRUE(step1["resident"][0]["fetched"].is_null()) << json.out;  // no sliding cache there

    // A sliding cache: the region held and the part fetched at the step (the rest was kept).
    CliRun slide = cli({"tiles", src("examples/schedules/conv2d_int8_tflite_slide.sched.yaml"), "--json"});
    ASSERT_EQ(slide.exitCode, 0) << describe(slide);
    const auto js = nlohmann::json::parse(slide.out);
    ASSERT_EQ(js["steps"].size(), 16u);
    const auto& r2 = js["steps"][2]["resident"][0];
    EXPECT_EQ(r2["tensor"], "I");
    EXPECT_EQ(r2["region"]["text"], "I[0, 1:4, 0:16, 0:16]");
    EXPECT_EQ(r2["fetched"]["text"], "I[0, 3, 0:16, 0:16]");
    EXPECT_EQ(js["steps"][0]["resident"][0]["fetched"]["text"], "I[0, 0:2, 0:16, 0:16]");
    CliRun slideText = cli({"tiles", src("examples/schedules/conv2d_int8_tflite_slide.sched.yaml")});
    EXPECT_NE(slideText.out.find("    sliding window: fetched I[0, 3, 0:16, 0:16], the rest kept from the step before\n"), std::string::npos)
        << slideText.out;

    expectBadInput({"tiles", src("tests/data/malformed/schedules/unknown-primitive.yaml")}, "unknown-primitive.yaml:");
}

// A schedule of billions of steps: the first --max-steps (10,000 unless given) are listed and the
// rest counted. `tiles` printed them all, for ever, and its JSON took all the memory.
TEST(CliTiles, ListsTheFirstStepsOfAScheduleOfBillions)
{
    const fs::path s = scratchDir() / "billions.sched.yaml";
    std::ofstream(s) << "kernel: " << src("examples/kernels/matmul_f32.kernel.yaml")
                     << "\ntarget: cortex-m7\nparams: {M: 65536, N: 65536, K: 65536}\nsteps:\n  - split: {loop: i, factor: 1}\n"
                        "  - split: {loop: j, factor: 1}\n  - reorder: {loops: [i.outer, j.outer, i.inner, j.inner, k]}\n"
                        "  - cache_read: {tensor: A, level: SRAM, at: j.outer}\n";
    CliRun text = cli({"tiles", s.string()});
    ASSERT_EQ(text.exitCode, 0) << describe(text);
    EXPECT_NE(text.out.find("output C [65536 x 65536], more than 2147483647 steps over i.outer (65536) x j.outer (65536)"), std::string::npos)
        << text.out.substr(0, 400);
    EXPECT_NE(text.out.find("\nstep 10000 of more than 2147483647: i.outer = 0, j.outer = 9999\n"), std::string::npos);
    EXPECT_EQ(text.out.find("\nstep 10001 of"), std::string::npos);
    EXPECT_NE(text.out.find("\n... and more than 2147473647 more steps (--max-steps 10000 listed the first; give more to list more)\n"),
              std::string::npos)
        << text.out.substr(text.out.size() - 400);
    CliRun json = cli({"tiles", s.string(), "--json", "--max-steps", "5"});
    ASSERT_EQ(json.exitCode, 0) << describe(json);
    const auto j = nlohmann::json::parse(json.out);
    EXPECT_EQ(j["steps"].size(), 5u);
    EXPECT_EQ(j["steps_listed"], 5);
    EXPECT_EQ(j["positions_capped"], true);

    CliRun three = cli({"tiles", src("docs/tutorial/matmul_4_double_buffered.sched.yaml"), "--max-steps", "3"});
    ASSERT_EQ(three.exitCode, 0) << describe(three);
    EXPECT_NE(three.out.find("\nstep 3 of 16:"), std::string::npos) << three.out;
    EXPECT_EQ(three.out.find("\nstep 4 of 16:"), std::string::npos) << three.out;
    EXPECT_NE(three.out.find("\n... and 13 more steps (--max-steps 3 listed the first; give more to list more)\n"), std::string::npos) << three.out;
    expectBadInput({"tiles", src("docs/tutorial/matmul_4_double_buffered.sched.yaml"), "--max-steps", "0"}, "--max-steps");
}

// calibrate measures every example it can and names each one it leaves out, with why: it used to
// skip silently an example it could not replay on the target and one whose C was over 300,000
// characters (conv2d_int8_dsp, conv2d_int8_tflite_small and _slide were never measured). Examples
// written for an accelerator are counted in one line. Needs qemu and arm-none-eabi-gcc
// (./test.sh installs them), as the export tests do.
TEST(CliCalibrate, NamesTheExamplesItLeavesOutAndMeasuresLargeOnes)
{
    const fs::path dir = scratchDir() / "calibrate_examples";
    fs::remove_all(dir);
    fs::create_directories(dir / "schedules");
    fs::copy(src("examples/kernels"), dir / "kernels", fs::copy_options::recursive);
    for (const char* name : {"conv2d_int8_dsp", "matmul_int8_naive", "gemmini_matmul_int8_64"})
        fs::copy_file(src(std::string("examples/schedules/") + name + ".sched.yaml"), dir / "schedules" / (std::string(name) + ".sched.yaml"));
    // A schedule whose second step names a memory level cortex-m7 does not have.
    std::ofstream(dir / "schedules" / "broken.sched.yaml") << "kernel: ../kernels/matmul_int8.kernel.yaml\ntarget: cortex-m7\nsteps:\n"
                                                              "  - split: {loop: i, factor: 4}\n"
                                                              "  - cache_read: {tensor: A, level: L9, at: i.outer}\n";
    const CliRun r = cli({"calibrate", "cortex-m7", "--check", "--schedules", "0", "--examples", dir.string()});
    ASSERT_EQ(r.exitCode, 0) << describe(r);
    EXPECT_NE(r.out.find("measuring 2 example and 0 random schedules"), std::string::npos) << describe(r);
    EXPECT_NE(r.out.find("(1 examples for an accelerator left out)"), std::string::npos) << describe(r);
    EXPECT_NE(r.err.find("calibrate: left out example broken.sched.yaml: "), std::string::npos) << describe(r);
    EXPECT_NE(r.err.find("broken.sched.yaml:5:5: error: step 2 (cache_read): target cortex-m7 has no memory level 'L9'"), std::string::npos) << describe(r);
    EXPECT_EQ(r.err.find("conv2d_int8_dsp"), std::string::npos) << describe(r);
    EXPECT_NE(r.out.find("(2 schedules)"), std::string::npos) << describe(r);
    fs::remove_all(dir);
}
