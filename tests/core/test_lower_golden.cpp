// Golden loop nests (Exo style): lower::print(lower(program)) for one schedule per primitive
// is compared with tests/golden/lower/<name>.txt. LOOPSCOPE_UPDATE_GOLDEN=1 rewrites the files.
#include "support/test_paths.h"

#include "ir/kernel.h"
#include "lower/loop_nest.h"
#include "sched/schedule_file.h"
#include "target_loader.h"
#include "verify/interpreter.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

using namespace loopscope;

namespace {

struct GoldenCase {
    const char* name;    ///< tests/golden/lower/<name>.txt
    const char* kernel;  ///< examples/kernels/<kernel>.kernel.yaml or tests/data/kernels
    std::map<std::string, int64_t> params;
    const char* target;
    /// The steps as written in a schedule file, one "- primitive: {...}" per line.
    const char* steps;
};

void PrintTo(const GoldenCase& c, std::ostream* os) { *os << c.name; }

std::string goldenPath(const std::string& name)
{
    return test::sourceDir() + "/tests/golden/lower/" + name + ".txt";
}

bool updateRequested()
{
    const char* v = std::getenv("LOOPSCOPE_UPDATE_GOLDEN");
    return v && std::string(v) == "1";
}

std::vector<std::string> splitLines(const std::string& s)
{
    std::vector<std::string> out;
    std::istringstream in(s);
    std::string line;
    while (std::getline(in, line))
        out.push_back(line);
    return out;
}

/// The first differing line with three lines of context, "-" expected, "+" actual.
std::string firstDifference(const std::string& expected, const std::string& actual)
{
    auto e = splitLines(expected), a = splitLines(actual);
    size_t i = 0;
    while (i < e.size() && i < a.size() && e[i] == a[i])
        ++i;
    std::ostringstream os;
    os << "@@ first difference at line " << i + 1 << " (expected " << e.size() << " lines, got " << a.size()
       << ")\n";
    const size_t from = i >= 3 ? i - 3 : 0;
    for (size_t j = from; j < i; ++j)
        os << "  " << e[j] << "\n";
    for (size_t j = i; j < std::min(e.size(), i + 4); ++j)
        os << "- " << e[j] << "\n";
    for (size_t j = i; j < std::min(a.size(), i + 4); ++j)
        os << "+ " << a[j] << "\n";
    return os.str();
}

/// Parses the steps through the schedule-file reader (the same path the CLI takes) and
/// replays them on the kernel with its small sizes.
sched::Program buildProgram(const GoldenCase& c)
{
    std::string text = std::string("kernel: k.kernel.yaml\ntarget: ") + c.target + "\nsteps:";
    text += c.steps[0] ? std::string("\n") + c.steps : std::string(" []\n");
    auto file = sched::parseScheduleFile(text, std::string(c.name) + ".sched.yaml");
    EXPECT_TRUE(file.ok()) << file.errorText() << "\n" << text;
    if (!file)
        return {};
    auto kernel = ir::loadKernelFile(test::kernelPath(c.kernel), c.params);
    EXPECT_TRUE(kernel.ok()) << kernel.errorText();
    if (!kernel)
        return {};
    auto target = test::builtinTarget(c.target);
    if (!target)
        return {};
    auto r = sched::replay(std::make_shared<const ir::Kernel>(std::move(*kernel)), target, file->steps);
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().str() + " (" + r.error().detail + ")");
    if (!r.ok())
        return {};
    return r.program();
}

class LowerGolden : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(LowerGolden, MatchesGoldenFileAndVerifies)
{
    const GoldenCase& c = GetParam();
    sched::Program p = buildProgram(c);
    ASSERT_TRUE(p.kernel) << "schedule did not replay";
    EXPECT_EQ(p.trace.size(), sched::parseScheduleFile(std::string("kernel: k\ntarget: t\nsteps:\n") + c.steps, "x")
                                  ->steps.size());

    const std::string actual = lower::print(lower::lower(p));
    const std::string path = goldenPath(c.name);
    if (updateRequested()) {
        std::filesystem::create_directories(std::filesystem::path(path).parent_path());
        std::ofstream out(path, std::ios::binary | std::ios::trunc);
        out << actual;
        ASSERT_TRUE(out.good()) << "cannot write " << path;
    } else {
        std::ifstream in(path, std::ios::binary);
        ASSERT_TRUE(in.good()) << "missing golden file " << path
                               << " (run with LOOPSCOPE_UPDATE_GOLDEN=1 to create it)";
        std::ostringstream ss;
        ss << in.rdbuf();
        const std::string expected = ss.str();
        EXPECT_TRUE(expected == actual) << path << " differs from the lowered nest\n"
                                        << firstDifference(expected, actual)
                                        << "(run with LOOPSCOPE_UPDATE_GOLDEN=1 to accept the new output)";
    }

    // A golden nest must also compute the right thing.
    verify::VerifyResult v = verify::verifyProgram(p, 1);
    EXPECT_TRUE(v.ok) << v.message << "\n" << actual;
}

// Sizes are small so that the files stay readable, and chosen so that some splits leave
// partial tiles.
const std::map<std::string, int64_t> kMatmul = {{"M", 8}, {"N", 8}, {"K", 8}};

const GoldenCase kCases[] = {
    // ---- the unscheduled nest of every example kernel -----------------------------------
    {"unscheduled_matmul_f32", "matmul_f32", kMatmul, "cortex-m7", ""},
    {"unscheduled_matmul_int8", "matmul_int8", {{"M", 4}, {"N", 5}, {"K", 6}}, "cortex-m7", ""},
    {"unscheduled_conv2d_int8", "conv2d_int8", {{"H", 4}, {"W", 5}, {"C", 2}, {"K", 3}}, "cortex-m7", ""},
    {"unscheduled_conv2d_s2_int8", "conv2d_s2_int8", {{"H", 7}, {"W", 6}, {"C", 2}, {"K", 3}}, "cortex-m7", ""},
    {"unscheduled_depthwise_conv_int8", "depthwise_conv_int8", {{"H", 4}, {"W", 5}, {"C", 3}}, "cortex-m7", ""},
    {"unscheduled_pointwise_conv_int8", "pointwise_conv_int8", {{"H", 3}, {"W", 4}, {"C", 5}, {"K", 2}}, "cortex-m7", ""},
    {"unscheduled_dwsep_conv", "dwsep_conv", {{"H", 4}, {"W", 5}, {"C", 2}, {"K", 3}}, "cortex-m7", ""},
    {"unscheduled_dense_int8", "dense_int8", {{"B", 2}, {"IN", 9}, {"OUT", 5}}, "cortex-m7", ""},
    {"unscheduled_scaled_matmul", "scaled_matmul", {}, "cortex-m7", ""},
    {"unscheduled_conv2d_int8_tflite", "conv2d_int8_tflite", {{"H", 4}, {"W", 5}, {"C", 2}, {"K", 3}}, "cortex-m7", ""},
    {"unscheduled_conv2d_s2_int8_tflite", "conv2d_s2_int8_tflite", {{"H", 7}, {"W", 6}, {"C", 2}, {"K", 3}}, "cortex-m7", ""},
    {"unscheduled_depthwise_conv_int8_tflite", "depthwise_conv_int8_tflite", {{"H", 4}, {"W", 5}, {"C", 3}}, "cortex-m7", ""},
    {"unscheduled_pointwise_conv_int8_tflite", "pointwise_conv_int8_tflite", {{"H", 3}, {"W", 4}, {"C", 5}, {"K", 2}}, "cortex-m7", ""},
    {"unscheduled_depthwise_conv_int8_mult_tflite", "depthwise_conv_int8_mult_tflite", {{"H", 3}, {"W", 4}, {"C", 2}, {"M", 3}}, "cortex-m7", ""},
    // The per-channel parameters of a depthwise convolution with channel multiplier, cached per
    // block of input channels: the bias and multipliers c*M + m of the block.
    {"requantize_channel_multiplier_cached", "depthwise_conv_int8_mult_tflite", {{"H", 3}, {"W", 4}, {"C", 4}, {"M", 2}}, "cortex-m7",
     "  - split: {loop: c, factor: 2}\n"
     "  - reorder: {loops: [c.outer, n, h, w, c.inner, m]}\n"
     "  - cache_read: {tensor: mult, level: SRAM, at: c.outer}\n"
     "  - cache_read: {tensor: bias, level: SRAM, at: c.outer}\n"},
    {"cache_read_widened", "conv2d_int8_tflite", {{"H", 3}, {"W", 4}, {"C", 4}, {"K", 2}}, "cortex-m7",
     "  - split: {loop: c, factor: 2}\n"
     "  - vectorize: {loop: c.inner}\n"
     "  - cache_read: {tensor: I, level: SRAM, at: oh, dtype: int16}\n"
     "  - cache_read: {tensor: F, level: SRAM, at: root, dtype: int16}\n"},

    // ---- loop transformations -----------------------------------------------------------
    {"split", "matmul_f32", kMatmul, "cortex-m7",
     "  - split: {loop: i, factor: 4}\n"},
    {"split_partial_tile", "matmul_f32", {{"M", 10}, {"N", 8}, {"K", 8}}, "cortex-m7",
     "  - split: {loop: i, factor: 4}\n"},
    {"split_nparts", "matmul_f32", kMatmul, "cortex-m7",
     "  - split: {loop: j, nparts: 3}\n"},
    {"tile", "matmul_f32", kMatmul, "cortex-m7",
     "  - tile: {loops: [i, j], factors: [4, 2]}\n"},
    {"reorder", "matmul_f32", kMatmul, "cortex-m7",
     "  - reorder: {loops: [k, i]}\n"},
    {"reorder_spatial_inside_reduction", "matmul_f32", {{"M", 4}, {"N", 8}, {"K", 3}}, "cortex-m7",
     "  - reorder: {loops: [j, k, i]}\n"},
    {"fuse", "matmul_f32", {{"M", 4}, {"N", 3}, {"K", 2}}, "cortex-m7",
     "  - fuse: {loops: [i, j]}\n"},
    {"unroll", "matmul_f32", kMatmul, "cortex-m7",
     "  - split: {loop: k, factor: 4}\n"
     "  - unroll: {loop: k.inner}\n"},
    {"vectorize", "matmul_f32", kMatmul, "cortex-m7",
     "  - split: {loop: j, factor: 4}\n"
     "  - reorder: {loops: [k, j.inner]}\n"
     "  - vectorize: {loop: j.inner}\n"},
    {"parallel", "matmul_f32", kMatmul, "cortex-m7",
     "  - parallel: {loop: i}\n"},

    // ---- caches ---------------------------------------------------------------------------
    {"cache_read_root", "matmul_f32", kMatmul, "cortex-m7",
     "  - cache_read: {tensor: A, level: SRAM, at: root}\n"},
    {"cache_read_at_loop", "matmul_f32", {{"M", 8}, {"N", 8}, {"K", 6}}, "cortex-m7",
     "  - split: {loop: i, factor: 4}\n"
     "  - split: {loop: j, factor: 4}\n"
     "  - reorder: {loops: [i.outer, j.outer, i.inner, j.inner, k]}\n"
     "  - cache_read: {tensor: A, level: SRAM, at: j.outer}\n"
     "  - cache_read: {tensor: B, level: SRAM, at: j.outer}\n"},
    {"cache_read_partial_tile", "matmul_f32", {{"M", 6}, {"N", 4}, {"K", 5}}, "cortex-m7",
     "  - split: {loop: i, factor: 4}\n"
     "  - cache_read: {tensor: A, level: SRAM, at: i.outer}\n"},
    {"cache_write", "matmul_f32", kMatmul, "cortex-m7",
     "  - tile: {loops: [i, j], factors: [4, 4]}\n"
     "  - cache_write: {tensor: C, level: SRAM, at: j.outer}\n"},
    {"compute_at_cache", "matmul_f32", kMatmul, "cortex-m7",
     "  - cache_read: {tensor: B, level: SRAM, at: root}\n"
     "  - split: {loop: j, factor: 4}\n"
     "  - compute_at: {tensor: B, level: SRAM, at: j.outer}\n"},
    {"double_buffer", "matmul_f32", kMatmul, "cortex-m7",
     "  - split: {loop: k, factor: 4}\n"
     "  - cache_read: {tensor: A, level: SRAM, at: k.outer}\n"
     "  - double_buffer: {tensor: A, level: SRAM}\n"},

    // ---- pipelines ------------------------------------------------------------------------
    {"compute_at_producer", "dwsep_conv", {{"H", 4}, {"W", 5}, {"C", 2}, {"K", 3}}, "cortex-m7",
     "  - split: {stage: O, loop: h, factor: 2}\n"
     "  - compute_at: {stage: O, producer: D, at: h.outer}\n"},
    {"compute_at_producer_partial_tile", "dwsep_conv", {{"H", 5}, {"W", 3}, {"C", 2}, {"K", 2}}, "cortex-m7",
     "  - split: {stage: O, loop: h, factor: 2}\n"
     "  - compute_at: {stage: O, producer: D, level: SRAM, at: h.outer}\n"},
    {"compute_inline", "scaled_matmul", {}, "cortex-m7",
     "  - compute_inline: {producer: T}\n"},

    // ---- int8 kernels -------------------------------------------------------------------
    {"conv2d_padded_cache", "conv2d_int8", {{"H", 5}, {"W", 4}, {"C", 2}, {"K", 3}}, "cortex-m7",
     "  - split: {loop: oh, factor: 2}\n"
     "  - cache_read: {tensor: I, level: SRAM, at: oh.outer}\n"},
    {"dense_requantize", "dense_int8", {{"B", 2}, {"IN", 8}, {"OUT", 6}}, "cortex-m7",
     "  - split: {loop: o, factor: 4}\n"
     "  - cache_read: {tensor: bias, level: SRAM, at: o.outer}\n"
     "  - cache_write: {tensor: Y, level: SRAM, at: o.outer}\n"},
    {"gemmini_two_level", "matmul_int8", {{"M", 32}, {"N", 32}, {"K", 48}}, "gemmini-16x16",
     "  - tile: {loops: [i, j], factors: [16, 16]}\n"
     "  - split: {loop: k, factor: 16}\n"
     "  - cache_read: {tensor: A, level: scratchpad, at: i.outer}\n"
     "  - cache_read: {tensor: B, level: scratchpad, at: j.outer}\n"
     "  - cache_write: {tensor: C, level: accumulator, at: j.outer}\n"
     "  - cache_read: {tensor: A, level: accumulator, at: k.outer}\n"},
    // Tensorized: one matmul instruction per block, printed with its operands' first rows
    // (those the exported gemmini.h code addresses), the partial last column of blocks.
    {"gemmini_tensorize_ws_double_buffer", "matmul_int8", {{"M", 32}, {"N", 24}, {"K", 32}}, "gemmini-16x16",
     "  - split: {loop: i, factor: 16}\n"
     "  - split: {loop: j, factor: 16}\n"
     "  - split: {loop: k, factor: 16}\n"
     "  - reorder: {loops: [j.outer, k.outer, i.outer, i.inner, j.inner, k.inner]}\n"
     "  - cache_read: {tensor: A, level: scratchpad, at: root}\n"
     "  - cache_read: {tensor: B, level: scratchpad, at: j.outer}\n"
     "  - cache_write: {tensor: C, level: accumulator, at: j.outer}\n"
     "  - double_buffer: {tensor: B, level: scratchpad}\n"
     "  - double_buffer: {tensor: C, level: accumulator}\n"
     "  - tensorize: {loops: [i.inner, j.inner, k.inner], intrinsic: gemmini_matmul, dataflow: weight_stationary}\n"},
    {"gemmini_tensorize_conv_os", "conv2d_int8", {{"H", 4}, {"W", 4}, {"C", 16}, {"K", 16}}, "gemmini-16x16",
     "  - reorder: {loops: [n, oh, r, s, ow, k, c]}\n"
     "  - cache_read: {tensor: I, level: scratchpad, at: oh}\n"
     "  - cache_read: {tensor: F, level: scratchpad, at: root}\n"
     "  - cache_write: {tensor: O, level: accumulator, at: oh}\n"
     "  - tensorize: {loops: [ow, k, c], intrinsic: gemmini_matmul, dataflow: output_stationary}\n"},
};

INSTANTIATE_TEST_SUITE_P(Schedules, LowerGolden, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<GoldenCase>& info) { return std::string(info.param.name); });

// Every golden file belongs to a case (a stale file would silently stop being checked).
TEST(LowerGoldenFiles, NoOrphans)
{
    namespace fs = std::filesystem;
    std::vector<std::string> names;
    for (const auto& c : kCases)
        names.push_back(c.name);
    const fs::path dir = test::sourceDir() + "/tests/golden/lower";
    ASSERT_TRUE(fs::is_directory(dir)) << dir;
    for (const auto& e : fs::directory_iterator(dir)) {
        if (e.path().extension() != ".txt")
            continue;
        const std::string stem = e.path().stem().string();
        EXPECT_NE(std::find(names.begin(), names.end(), stem), names.end()) << "orphan golden file " << e.path();
    }
}

} // namespace
