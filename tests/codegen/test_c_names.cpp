// Names in kernel files and the C they become (issue 16, item 7): a kernel, tensor or axis name
// the exported C cannot take (a C keyword, a type of <stdint.h>, one of the export's own macros,
// a name of the harness) is refused in the kernel file with file:line:column; every name that
// is accepted exports C that compiles with the harness's -Werror flags (also as C++ for the
// header) and computes the reference's result, for the Cortex-M generator and the Gemmini one.
#include "support/temp_dir.h"
#include "support/step_text.h"
#include "support/test_paths.h"

#include "codegen/c_codegen.h"
#include "codegen/export_writer.h"
#include "common/c_names.h"
#include "common/rng.h"
#include "ir/kernel.h"
#include "lower/loop_nest.h"
#include "target_loader.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <set>

using namespace loopscope;
namespace fs = std::filesystem;

namespace {

/// A float32 (or int8, int32 result) matmul kernel file with these names.
std::string kernelText(const std::string& kernel, const std::string& a, const std::string& b, const std::string& c,
                       const std::string& i, const std::string& j, const std::string& k, bool int8, int m = 5, int n = 4, int kk = 3)
{
    return "name: " + kernel + "\nparams: {M: " + std::to_string(m) + ", N: " + std::to_string(n) + ", K: " + std::to_string(kk)
        + "}\ntensors:\n  " + a + ": {shape: [M, K], dtype: " + (int8 ? "int8" : "float32") + "}\n  " + b
        + ": {shape: [K, N], dtype: " + (int8 ? "int8" : "float32") + "}\n  " + c + ": {shape: [M, N], dtype: "
        + (int8 ? "int32" : "float32") + "}\nstages:\n  - compute: \"" + c + "[" + i + ", " + j + "] += " + a + "[" + i + ", " + k
        + "] * " + b + "[" + k + ", " + j + "]\"\n";
}

std::string parseError(const std::string& text)
{
    auto k = ir::parseKernel(text, "k.kernel.yaml");
    return k ? std::string() : k.errorText();
}

fs::path scratch(const std::string& name)
{
    return test::processTempDir("loopscope-names") / name;
}

} // namespace

TEST(CNames, TheRulesOfCNameProblem)
{
    for (const char* bad : {"int", "for", "do", "static", "restrict", "bool", "true", "typeof", "class", "new", "int8_t",
                            "uint32_t", "int_fast16_t", "uintptr_t", "INT8_MAX", "UINT_LEAST64_MAX", "INTMAX_C", "size_t", "NULL",
                            "FILE", "stdout", "EOF", "errno", "INFINITY", "LOOPSCOPE_RESTRICT", "LOOPSCOPE_SRAM", "loopscope_x",
                            "ls_tmp", "LS_MIN", "Ls_x", "gemmini_mvin", "gemmini_flush", "DIM", "elem_t", "k_MVIN", "__x", "_X", "memcpy", "memset",
                            "printf", "abs", "exp", "expf", "logl", "index", "y0", "isdigit", "cabs"})
        for (CNameUse use : {CNameUse::Kernel, CNameUse::Tensor, CNameUse::Axis})
            EXPECT_NE(cNameProblem(bad, use), "") << bad;
    for (const char* kernelOnly : {"main", "startup", "fill_inputs", "reference", "check_requantize", "gemmini", "_k",
                                   "Reset_Handler"}) {
        EXPECT_NE(cNameProblem(kernelOnly, CNameUse::Kernel), "") << kernelOnly;
        EXPECT_EQ(cNameProblem(kernelOnly, CNameUse::Tensor), "") << kernelOnly;
    }
    for (const char* good : {"A", "B", "C", "x", "i", "t", "mismatches", "checksum", "k_outer", "k_x", "acc", "Int", "FOR", "intx", "int8", "sizet", "mainloop",
                             "lsx", "gemmini2", "gemmini_sum", "D1M", "expo", "matmul_f32"})
        for (CNameUse use : {CNameUse::Kernel, CNameUse::Tensor, CNameUse::Axis})
            EXPECT_EQ(cNameProblem(good, use), "") << good;
    EXPECT_NE(derivedNameClash("mm_transfers", "mm"), "");
    EXPECT_NE(derivedNameClash("mm_prepare", "mm"), "");
    EXPECT_NE(derivedNameClash("MM_TRANSFER_COUNT", "mm"), "");
    EXPECT_NE(derivedNameClash("A", "t_A"), "");
    EXPECT_EQ(derivedNameClash("transfers", "mm"), "");
    EXPECT_NE(levelMacroClash("aligned"), "");
    EXPECT_NE(levelMacroClash("USE-DSP"), "");
    EXPECT_EQ(levelMacroClash("SRAM"), "");
}

// The names of the issue, each refused where it is written.
TEST(CNames, KernelFilesRefuseNamesTheExportCannotTake)
{
    struct Case {
        std::string text, error;
    };
    const std::string mm = kernelText("mm", "A", "B", "C", "i", "j", "k", false);
    std::vector<Case> cases;
    for (const char* kernel : {"main", "startup", "int", "static", "printf"})
        cases.push_back({kernelText(kernel, "A", "B", "C", "i", "j", "k", false),
                         "k.kernel.yaml:1:7: error: kernel name '" + std::string(kernel) + "' "});
    for (const char* tensor : {"int", "for", "static", "int8_t", "size_t", "uint32_t", "LOOPSCOPE_RESTRICT"})
        cases.push_back({kernelText("mm", tensor, "B", "C", "i", "j", "k", false),
                         "k.kernel.yaml:4:3: error: tensor name '" + std::string(tensor) + "' "});
    // Axes: on the left-hand side (column 13 of the compute line is i's) and in a reduction.
    for (const char* axis : {"int", "for", "do"}) {
        cases.push_back({kernelText("mm", "A", "B", "C", axis, "j", "k", false), "k.kernel.yaml:8:17: error: axis name '" + std::string(axis) + "' "});
        cases.push_back({kernelText("mm", "A", "B", "C", "i", "j", axis, false), ": error: axis name '" + std::string(axis) + "' "});
    }
    cases.push_back({kernelText("mm", "A", "mm_transfers", "C", "i", "j", "k", false), "k.kernel.yaml:5:3: error: tensor name 'mm_transfers' is the name of"});
    cases.push_back({kernelText("mm", "A", "B", "C", "i", "MM_TRANSFER_COUNT", "k", false), "error: axis name 'MM_TRANSFER_COUNT' is the macro"});
    for (const Case& c : cases) {
        const std::string e = parseError(c.text);
        EXPECT_NE(e.find(c.error), std::string::npos) << "want: " << c.error << "\ngot:  " << e << "\n" << c.text;
    }
    EXPECT_EQ(parseError(mm), "");
}

// Random kernels whose names are the ones the generated C also uses for its own locals,
// buffers and helpers, or differ from them only by a suffix: the export must rename its own
// where they meet, compile with -Werror and compute the reference's result.
TEST(CNames, EveryAcceptedNameExportsCodeThatCompilesAndRuns)
{
    const std::vector<std::string> tensorNames = {"A", "r", "t", "x0", "acc", "acc_C", "C_acc", "C_sram", "A_SRAM", "r_A", "t_A", "ref_A",
                                                  "checksum", "mismatches", "reference", "fill_inputs", "transfer", "dst", "src",
                                                  "rows", "row_bytes", "bits", "d", "w", "b", "DSP", "SRAM", "DRAM", "o0", "A_o0",
                                                  "C_ready", "lo", "hi", "mask", "high", "left", "right", "nudge", "s", "m2", "mm"};
    const std::vector<std::string> axisNames = {"i", "j", "k", "x", "q", "u", "i_outer", "i_inner", "j_outer_2", "ready", "v0",
                                                "k_inner", "A_sram_o0", "acc_C_2", "C_acc_2", "r_A", "n", "kk", "oh", "z", "e"};
    Rng rng(2026);
    const auto target = test::builtinTarget("cortex-m7");
    int compiled = 0;
    for (int round = 0; round < 6; ++round) {
        std::vector<std::string> t, a;
        std::set<std::string> used;
        auto draw = [&](const std::vector<std::string>& pool, std::vector<std::string>& out, size_t n) {
            while (out.size() < n) {
                const std::string& s = pool[static_cast<size_t>(rng.below(static_cast<int64_t>(pool.size())))];
                if (used.insert(s).second)
                    out.push_back(s);
            }
        };
        draw(tensorNames, t, 3);
        draw(axisNames, a, 3);
        const bool int8 = round % 2 == 0;
        // Kernel names that are the harness's own locals and arrays' stems.
        const std::string kname = std::vector<std::string>{"t", "i", "mismatches", "checksum", "d", "bits"}[static_cast<size_t>(round)];
        const std::string text = kernelText(kname, t[0], t[1], t[2], a[0], a[1], a[2], int8);
        auto kernel = ir::parseKernel(text, "k.kernel.yaml");
        ASSERT_TRUE(kernel.ok()) << kernel.errorText() << "\n" << text;
        // Splits with partial tiles, caches in SRAM (one double-buffered), an unrolled loop.
        const std::vector<sched::Step> steps = {
            test::loopStep(sched::Primitive::Split, {a[0]}, 2),
            test::loopStep(sched::Primitive::Split, {a[1]}, 3),
            test::loopStep(sched::Primitive::Reorder, {a[0] + ".outer", a[1] + ".outer", a[0] + ".inner", a[2], a[1] + ".inner"}),
            test::cacheStep(sched::Primitive::CacheRead, t[0], "SRAM", a[0] + ".outer"),
            test::cacheStep(sched::Primitive::CacheRead, t[1], "SRAM", a[1] + ".outer"),
            test::cacheStep(sched::Primitive::CacheWrite, t[2], "SRAM", a[1] + ".outer"),
            test::loopStep(sched::Primitive::Unroll, {a[1] + ".inner"}),
        };
        auto r = sched::replay(std::make_shared<const ir::Kernel>(std::move(*kernel)), target, steps);
        ASSERT_TRUE(r.ok()) << r.error().str() << "\n" << text;
        const lower::LoopNest nest = lower::lower(r.program());
        codegen::ExportOptions o;
        o.harness = true;
        ASSERT_EQ(codegen::exportError(nest, o), "");
        const fs::path dir = scratch("c" + std::to_string(round));
        fs::remove_all(dir);
        auto w = codegen::writeExport(dir, codegen::exportFiles(nest, o), false);
        ASSERT_TRUE(w.ok) << w.error;
        const test::RunResult run = test::run("make -s -C '" + dir.string() + "' run-host");
        EXPECT_EQ(run.exitCode, 0) << text << run.output;
        EXPECT_NE(run.output.find("mismatches 0"), std::string::npos) << text << run.output;
        const test::RunResult cpp = test::run("g++ -std=c++17 -Wall -Wextra -Werror -fsyntax-only -x c++ '" + (dir / (kname + ".h")).string() + "'");
        EXPECT_EQ(cpp.exitCode, 0) << "the header as C++:\n" << cpp.output;
        compiled += run.exitCode == 0;
    }
    EXPECT_EQ(compiled, 6);
}

TEST(CNames, GemminiExportsOfAcceptedNamesCompileAndRun)
{
    const auto target = test::builtinTarget("gemmini-16x16");
    struct Names {
        std::string a, b, c, i, j, k;
    };
    int round = 0;
    for (const Names& n : {Names{"acc", "rows", "t_A", "i", "j", "k"}, Names{"x0", "A_o0", "C_ready", "q", "ready", "z"},
                           Names{"checksum", "reference", "mm", "i_outer", "j_inner", "kk"}}) {
        const std::string kname = "g" + std::to_string(round);
        const std::string text = kernelText(kname, n.a, n.b, n.c, n.i, n.j, n.k, true, 20, 16, 16);
        auto kernel = ir::parseKernel(text, "k.kernel.yaml");
        ASSERT_TRUE(kernel.ok()) << kernel.errorText();
        const std::vector<sched::Step> steps = {
            test::loopStep(sched::Primitive::Split, {n.i}, 16),
            test::loopStep(sched::Primitive::Split, {n.j}, 16),
            test::loopStep(sched::Primitive::Split, {n.k}, 16),
            test::loopStep(sched::Primitive::Reorder, {n.j + ".outer", n.k + ".outer", n.i + ".outer", n.i + ".inner", n.j + ".inner", n.k + ".inner"}),
            test::cacheStep(sched::Primitive::CacheRead, n.a, "scratchpad", "root"),
            test::cacheStep(sched::Primitive::CacheRead, n.b, "scratchpad", n.j + ".outer"),
            test::cacheStep(sched::Primitive::CacheWrite, n.c, "accumulator", n.j + ".outer"),
            [&] {
                sched::Step s = test::loopStep(sched::Primitive::Tensorize, {n.i + ".inner", n.j + ".inner", n.k + ".inner"});
                s.intrinsic = "gemmini_matmul";
                s.dataflow = "weight_stationary";
                return s;
            }(),
        };
        auto r = sched::replay(std::make_shared<const ir::Kernel>(std::move(*kernel)), target, steps);
        ASSERT_TRUE(r.ok()) << r.error().str() << "\n" << text;
        const lower::LoopNest nest = lower::lower(r.program());
        codegen::ExportOptions o;
        o.harness = true;
        ASSERT_EQ(codegen::exportError(nest, o), "") << text;
        const fs::path dir = scratch("g" + std::to_string(round));
        fs::remove_all(dir);
        auto w = codegen::writeExport(dir, codegen::exportFiles(nest, o), false);
        ASSERT_TRUE(w.ok) << w.error;
        const test::RunResult run = test::run("make -s -C '" + dir.string() + "' run-host");
        EXPECT_EQ(run.exitCode, 0) << text << run.output;
        EXPECT_NE(run.output.find("mismatches 0"), std::string::npos) << text << run.output;
        ++round;
    }
}
