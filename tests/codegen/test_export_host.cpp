// Exported C on the host: every example schedule and 200 random schedules compile warning-free
// under -std=c99 -Wall -Wextra -Werror with AddressSanitizer and UBSan, give zero mismatches
// against the naive reference, and move through the DMA hooks exactly the bytes the cost model
// counts for their copy stages.
#include "support/random_schedule.h"
#include "support/test_paths.h"

#include "analysis/cost_report.h"
#include "codegen/c_codegen.h"
#include "sched/schedule_file.h"
#include "target_loader.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

using namespace loopscope;
namespace fs = std::filesystem;

namespace {

struct RunResult {
    int exitCode = -1;
    std::string output;
};

RunResult run(const std::string& command)
{
    RunResult r;
    std::string cmd = command + " 2>&1";
    FILE* p = popen(cmd.c_str(), "r");
    if (!p)
        return r;
    char buf[4096];
    while (size_t n = fread(buf, 1, sizeof buf, p))
        r.output.append(buf, n);
    int status = pclose(p);
    r.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return r;
}

/// Exports, compiles with sanitizers, runs; returns "" on success or what went wrong.
std::string exportAndRun(const sched::Program& p, const fs::path& dir)
{
    fs::remove_all(dir);
    fs::create_directories(dir);
    lower::LoopNest nest = lower::lower(p);
    const std::string kid = codegen::cIdentifier(p.kernel->name);
    std::ofstream(dir / (kid + ".h")) << codegen::generateHeader(nest);
    std::ofstream(dir / (kid + ".c")) << codegen::generateSource(nest);
    std::ofstream(dir / "main.c") << codegen::generateHarnessMain(nest, 7);
    RunResult cc = run("cc -std=c99 -Wall -Wextra -Werror -O1 -fsanitize=address,undefined -fno-sanitize-recover=all -o " + (dir / "k").string() + " "
                       + (dir / (kid + ".c")).string() + " " + (dir / "main.c").string());
    if (cc.exitCode != 0)
        return "compile failed:\n" + cc.output;
    RunResult exe = run((dir / "k").string());
    if (exe.exitCode != 0)
        return "run failed (" + std::to_string(exe.exitCode) + "):\n" + exe.output;
    std::smatch m;
    if (!std::regex_search(exe.output, m, std::regex("checksum 0x[0-9a-f]+ mismatches 0\n")))
        return "no clean checksum line:\n" + exe.output;
    // DMA bytes per transfer against the model.
    analysis::CostReport report = analysis::analyze(nest, *p.target);
    std::map<std::string, int64_t> hooks;
    std::istringstream lines(exe.output);
    std::string line;
    std::regex transfer("transfer (\\S+) (\\S+) (\\S+) bytes (\\d+)");
    while (std::getline(lines, line))
        if (std::regex_match(line, m, transfer))
            hooks[m[1].str() + " " + m[2].str() + "->" + m[3].str()] = std::stoll(m[4].str());
    std::map<std::string, int64_t> model;
    for (const auto& t : report.transfers)
        model[t.tensor + " " + t.from + "->" + t.to] = t.bytes;
    if (hooks != model) {
        std::string text = "DMA hook bytes differ from the model:\n";
        for (const auto& [k, v] : model)
            text += "  model " + k + " " + std::to_string(v) + "\n";
        for (const auto& [k, v] : hooks)
            text += "  hooks " + k + " " + std::to_string(v) + "\n";
        return text;
    }
    fs::remove_all(dir);
    return "";
}

std::string traceText(const sched::Program& p)
{
    std::string out;
    for (const auto& s : p.trace)
        out += "  " + sched::describe(s) + (s.stage.empty() ? "" : " [stage " + s.stage + "]") + "\n";
    return out;
}

fs::path scratch(const std::string& name)
{
    fs::path dir = fs::temp_directory_path() / ("loopscope-export-" + std::to_string(::getpid())) / name;
    return dir;
}

TEST(ExportHost, EveryExampleScheduleRunsCleanWithSanitizers)
{
    int seen = 0;
    for (const auto& e : fs::directory_iterator(test::sourceDir() + "/examples/schedules")) {
        if (e.path().extension() != ".yaml")
            continue;
        auto o = sched::openSchedule(e.path().string(), [](const std::string& n, const std::string& d) { return hw::resolveTarget(n, d); });
        ASSERT_TRUE(o.ok()) << o.errorText();
        std::string problem = exportAndRun(o->program, scratch(e.path().stem().stem().string()));
        EXPECT_EQ(problem, "") << e.path();
        ++seen;
    }
    EXPECT_GE(seen, 10);
}

class ExportRandom : public ::testing::TestWithParam<int> {};

constexpr int kShards = 4;
constexpr int kPerShard = 50;  // 200 random schedules in all

TEST_P(ExportRandom, RandomSchedulesRunCleanWithSanitizers)
{
    const std::vector<std::pair<const char*, std::map<std::string, int64_t>>> kernels = {
        {"matmul_f32", {{"M", 5}, {"N", 6}, {"K", 7}}},
        {"matmul_int8", {{"M", 6}, {"N", 5}, {"K", 9}}},
        {"conv2d_int8", {{"H", 5}, {"W", 6}, {"C", 3}, {"K", 4}}},
        {"conv2d_s2_int8", {{"H", 7}, {"W", 6}, {"C", 2}, {"K", 3}}},
        {"depthwise_conv_int8", {{"H", 5}, {"W", 6}, {"C", 4}}},
        {"pointwise_conv_int8", {{"H", 4}, {"W", 5}, {"C", 6}, {"K", 3}}},
        {"dwsep_conv", {{"H", 5}, {"W", 6}, {"C", 3}, {"K", 4}}},
        {"dense_int8", {{"B", 2}, {"IN", 9}, {"OUT", 5}}},
        {"scaled_matmul", {}},
    };
    const char* targets[] = {"cortex-m7", "cortex-m4", "gemmini-16x16"};
    for (int i = 0; i < kPerShard; ++i) {
        int n = GetParam() * kPerShard + i;
        const auto& [name, params] = kernels[n % kernels.size()];
        auto kernel = ir::loadKernelFile(test::kernelPath(name), params);
        ASSERT_TRUE(kernel.ok()) << kernel.errorText();
        sched::Program initial = sched::Program::initial(std::make_shared<const ir::Kernel>(*kernel), test::builtinTarget(targets[n % 3]));
        test::Rng rng(0xC0DE + n * 31337);
        sched::Program p = test::randomSchedule(initial, rng, 1 + static_cast<int>(rng.below(12)));
        std::string problem = exportAndRun(p, scratch("random-" + std::to_string(n)));
        ASSERT_EQ(problem, "") << name << " on " << targets[n % 3] << ", schedule #" << n << "\ntrace:\n" << traceText(p);
    }
}

INSTANTIATE_TEST_SUITE_P(Shards, ExportRandom, ::testing::Range(0, kShards));

} // namespace

namespace {

TEST(AnalyzeMeasure, CountsTheExportedKernelsInstructionsOnQemu)
{
    RunResult r = run(std::string(LOOPSCOPE_CLI) + " analyze " + test::sourceDir() + "/examples/schedules/matmul_int8_regblock.sched.yaml --measure --json");
    ASSERT_EQ(r.exitCode, 0) << r.output;
    std::smatch m;
    ASSERT_TRUE(std::regex_search(r.output, m, std::regex("\"kernel_instructions\": (\\d+)"))) << r.output;
    const long long insns = std::stoll(m[1].str());
    // 64x64x64 MACs with a 2x4 register block: a little over 2 instructions per MAC (the
    // naive nest needs about 6); a count far off means the measurement is broken.
    EXPECT_GT(insns, 262144LL * 3 / 2);
    EXPECT_LT(insns, 262144LL * 3);
    // Not a Cortex-M target: a clear refusal.
    RunResult g = run(std::string(LOOPSCOPE_CLI) + " analyze " + test::sourceDir() + "/examples/schedules/matmul_f32_tiled.sched.yaml --target cortex-m4 --measure");
    EXPECT_EQ(g.exitCode, 0) << g.output;
    EXPECT_NE(g.output.find("qemu mps2-an386 (Cortex-M4)"), std::string::npos) << g.output;
}

} // namespace
