// Golden files of exported C: a change to the generated code shows up in review. Set
// LOOPSCOPE_UPDATE_GOLDEN=1 to rewrite tests/golden/export/*.
#include "support/test_paths.h"

#include "codegen/c_codegen.h"
#include "sched/schedule_file.h"
#include "target_loader.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using namespace loopscope;

namespace {

/// First differing line with a little context, for a readable failure.
std::string firstDifference(const std::string& want, const std::string& got)
{
    std::istringstream a(want), b(got);
    std::string la, lb;
    for (int line = 1;; ++line) {
        bool ea = !std::getline(a, la), eb = !std::getline(b, lb);
        if (ea && eb)
            return "";
        if (ea || eb || la != lb)
            return "line " + std::to_string(line) + ":\n  golden: " + (ea ? "<end>" : la) + "\n  now:    " + (eb ? "<end>" : lb);
    }
}

class ExportGolden : public ::testing::TestWithParam<std::string> {};

TEST_P(ExportGolden, MatchesGoldenFiles)
{
    const std::string name = GetParam();
    auto o = sched::openSchedule(test::sourceDir() + "/examples/schedules/" + name + ".sched.yaml",
                                 [](const std::string& n, const std::string& d) { return hw::resolveTarget(n, d); });
    ASSERT_TRUE(o.ok()) << o.errorText();
    lower::LoopNest nest = lower::lower(o->program);
    const bool update = std::getenv("LOOPSCOPE_UPDATE_GOLDEN") != nullptr;
    for (const auto& [ext, text] : {std::pair<std::string, std::string>{".h", codegen::generateHeader(nest)},
                                    std::pair<std::string, std::string>{".c", codegen::generateSource(nest)}}) {
        const std::string path = test::sourceDir() + "/tests/golden/export/" + name + ext;
        if (update) {
            std::ofstream(path, std::ios::binary) << text;
            continue;
        }
        std::string want = test::readText(path);
        ASSERT_FALSE(want.empty()) << path << " is missing; run with LOOPSCOPE_UPDATE_GOLDEN=1";
        EXPECT_EQ(firstDifference(want, text), "") << path;
    }
}

INSTANTIATE_TEST_SUITE_P(Examples, ExportGolden,
                         ::testing::Values("matmul_f32_tiled", "conv2d_int8_tiled", "dense_int8_blocked", "dwsep_conv_fused"));

/// A guard whose block holds a `for` statement is written `if (LS_LIKELY(...))`, any other guard
/// plainly (docs/export.md): without the hint GCC spilled the guarded loop's registers
/// (conv2d_int8_tiled: 23% more instructions), with it around straight-line taps two depthwise
/// examples ran 3-4% slower.
TEST(ExportGuards, OnlyGuardsAroundLoopsAreMarkedLikely)
{
    int likely = 0, plain = 0;
    for (const char* name : {"conv2d_int8_tiled", "dwsep_conv_fused", "depthwise_conv_int8_tflite_dsp", "conv2d_s2_int8_tflite_small"}) {
        auto o = sched::openSchedule(test::sourceDir() + "/examples/schedules/" + name + ".sched.yaml",
                                     [](const std::string& n, const std::string& d) { return hw::resolveTarget(n, d); });
        ASSERT_TRUE(o.ok()) << o.errorText();
        std::vector<std::string> lines;
        std::istringstream in(codegen::generateSource(lower::lower(o->program)));
        for (std::string l; std::getline(in, l);)
            lines.push_back(l);
        for (size_t i = 0; i < lines.size(); ++i) {
            const size_t indent = lines[i].find_first_not_of(' ');
            if (indent == std::string::npos || lines[i].compare(indent, 4, "if (") != 0 || lines[i].back() != '{')
                continue;
            bool loop = false;
            size_t j = i + 1;
            for (; j < lines.size() && lines[j] != std::string(indent, ' ') + "}"; ++j)
                loop = loop || lines[j].find("for (int ") != std::string::npos;
            ASSERT_LT(j, lines.size()) << name << ": no end for line " << i + 1;
            const bool marked = lines[i].compare(indent, 14, "if (LS_LIKELY(") == 0;
            EXPECT_EQ(marked, loop) << name << " line " << i + 1 << ": " << lines[i];
            (marked ? likely : plain) += 1;
        }
    }
    EXPECT_GT(likely, 10);
    EXPECT_GT(plain, 10);
}

} // namespace
