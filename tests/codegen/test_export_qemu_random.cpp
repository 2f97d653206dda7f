// Random schedules that take the Arm DSP path, run on the emulated cores. The host tests run
// 200 random exports as plain C (the host has no DSP); here schedules built to vectorize an
// int8 or int16 reduction (a reduction axis split by 4 or 8, its inner part innermost and
// vectorized), or the channel lanes of a depthwise convolution (SMLABB/SMLATT), are grown with
// random legal steps, exported with the harness and run on the Cortex-M7 (SMLAD, SMLABB,
// SSAT/USAT/QADD/SMMLAR) and the Cortex-M3 (SSAT/USAT, plain C otherwise): zero mismatches, the
// same checksum on both. Needs arm-none-eabi-gcc and qemu-system-arm
// (./test.sh installs them); installs nothing.
#include "support/random_schedule.h"
#include "support/test_paths.h"

#include "codegen/c_codegen.h"
#include "codegen/export_writer.h"
#include "ir/kernel.h"
#include "lower/loop_nest.h"
#include "sched/program.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <string>

#include <unistd.h>

using namespace loopscope;
namespace fs = std::filesystem;

namespace {

/// Splits a reduction axis of the last stage by `factor` and makes its inner part the
/// innermost, vectorized loop; nullopt when the primitives refuse.
std::optional<sched::Program> vectorizeAReduction(const sched::Program& p, test::Rng& rng, bool spatial = false)
{
    const int s = static_cast<int>(p.stages.size()) - 1;
    const sched::StageSchedule& ss = p.stages[s];
    std::vector<std::string> reductions;
    for (int v : ss.order)
        if (ss.vars[v].reduction != spatial && ss.vars[v].extent % 4 == 0 && (!spatial || ss.vars[v].name == "c"))
            reductions.push_back(ss.vars[v].name);
    if (reductions.empty())
        return std::nullopt;
    const std::string r = reductions[rng.below(static_cast<int64_t>(reductions.size()))];
    sched::Step split;
    split.primitive = sched::Primitive::Split;
    split.stage = p.kernel->stages[s].name;
    split.loops = {r};
    split.factor = rng.chance(70) ? 4 : 8;
    auto a = sched::apply(p, split);
    if (!a.ok())
        return std::nullopt;
    const sched::StageSchedule& after = a.program().stages[s];
    sched::Step reorder;
    reorder.primitive = sched::Primitive::Reorder;
    reorder.stage = split.stage;
    for (int v : after.order)
        if (after.vars[v].name != r + ".inner")
            reorder.loops.push_back(after.vars[v].name);
    reorder.loops.push_back(r + ".inner");
    auto b = sched::apply(a.program(), reorder);
    if (!b.ok())
        return std::nullopt;
    sched::Step vec;
    vec.primitive = sched::Primitive::Vectorize;
    vec.stage = split.stage;
    vec.loops = {r + ".inner"};
    auto c = sched::apply(b.program(), vec);
    if (!c.ok())
        return std::nullopt;
    return c.program();
}

} // namespace

TEST(ExportQemuRandom, RandomDspSchedulesAreBitExactOnCortexM7AndM3)
{
    const std::vector<std::pair<const char*, std::map<std::string, int64_t>>> kernels = {
        {"matmul_int8", {{"M", 6}, {"N", 5}, {"K", 16}}},
        {"conv2d_int8", {{"H", 5}, {"W", 6}, {"C", 8}, {"K", 4}}},
        {"pointwise_conv_int8", {{"H", 4}, {"W", 5}, {"C", 8}, {"K", 3}}},
        {"dense_int8", {{"B", 2}, {"IN", 16}, {"OUT", 5}}},
        {"dense_int16", {{"B", 2}, {"IN", 16}, {"OUT", 5}}},
        {"depthwise_conv_int8", {{"H", 4}, {"W", 5}, {"C", 8}}},
    };
    const fs::path root = fs::temp_directory_path() / ("loopscope-qemu-random-" + std::to_string(::getpid()));
    int dspExports = 0, laneExports = 0;
    for (int n = 0; dspExports < 24 && n < 600; ++n) {
        const auto& [name, params] = kernels[n % kernels.size()];
        auto kernel = ir::loadKernelFile(test::kernelPath(name), params);
        ASSERT_TRUE(kernel.ok()) << kernel.errorText();
        test::Rng rng(0xD5B0 + n * 7919);
        sched::Program initial = sched::Program::initial(std::make_shared<const ir::Kernel>(*kernel), test::builtinTarget("cortex-m7"));
        const bool lanes = std::string(name) == "depthwise_conv_int8";
        std::optional<sched::Program> vectorized = vectorizeAReduction(test::randomSchedule(initial, rng, static_cast<int>(rng.below(5))), rng, lanes);
        if (!vectorized)
            continue;
        const sched::Program p = test::randomSchedule(*vectorized, rng, static_cast<int>(rng.below(6)));
        const lower::LoopNest nest = lower::lower(p);
        const std::string source = codegen::generateSource(nest);
        if (source.find(lanes ? "one SMLABB or SMLATT per MAC" : "2 MACs per SMLAD") == std::string::npos)
            continue;  // the random steps took the loop off the DSP path
        ++dspExports;
        laneExports += lanes ? 1 : 0;
        codegen::ExportOptions options;
        options.harness = true;
        const fs::path dir = root / std::to_string(n);
        auto w = codegen::writeExport(dir, codegen::exportFiles(nest, options), false);
        ASSERT_TRUE(w.ok) << w.error;
        std::string checksums[2];
        const char* cores[] = {"m7", "m3"};
        for (int c = 0; c < 2; ++c) {
            const test::RunResult r = test::run("make -s -C '" + dir.string() + "' run-" + cores[c]);
            const std::string& out = r.output;
            std::smatch m;
            ASSERT_EQ(r.exitCode, 0) << name << " #" << n << " on " << cores[c] << "\n" << out;
            ASSERT_TRUE(std::regex_search(out, m, std::regex("checksum (0x[0-9a-f]+) mismatches 0\n"))) << name << " #" << n << "\n" << out;
            checksums[c] = m[1].str();
        }
        EXPECT_EQ(checksums[0], checksums[1]) << name << " #" << n;
        fs::remove_all(dir);
    }
    fs::remove_all(root);
    EXPECT_EQ(dspExports, 24) << "too few random schedules took the DSP path";
    EXPECT_GE(laneExports, 3) << "too few random depthwise schedules took the SMLABB/SMLATT path";
}
