// Gemmini exports: every example schedule and 120 random tensorized schedules compile with the
// export's gemmini.h (-std=gnu99 -Werror) and run bit-exact on the host functional model; the
// bytes every mvin and mvout moves, and the instructions issued, equal the cost model's; a
// subset also runs bare-metal on qemu-system-riscv64 (custom-3 instructions trapped into the
// same model) with the same checksum. Golden copies of two exports; the functional model
// rejects what is out of range; the optional acc_scale path; exports that cannot be Gemmini.
#include "support/random_tensorize.h"
#include "support/temp_dir.h"
#include "support/test_paths.h"

#include "analysis/cost_report.h"
#include "codegen/c_codegen.h"
#include "codegen/export_writer.h"
#include "codegen/gemmini_codegen.h"
#include "sched/schedule_file.h"
#include "target_loader.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>


using namespace loopscope;
namespace fs = std::filesystem;

namespace {

using test::run;
using test::RunResult;

fs::path scratch(const std::string& name)
{
    return test::processTempDir("loopscope-gemmini") / name;
}

std::string traceText(const sched::Program& p)
{
    std::string out;
    for (const auto& s : p.trace)
        out += "  " + sched::describe(s) + "\n";
    return out;
}

/// Writes the export with its harness into `dir`.
void exportTo(const lower::LoopNest& nest, const fs::path& dir, bool accScale = false)
{
    fs::remove_all(dir);
    codegen::ExportOptions o;
    o.harness = true;
    o.seed = 5;
    o.gemminiAccScale = accScale;
    codegen::ExportWriteResult w = codegen::writeExport(dir, codegen::exportFiles(nest, o), false);
    ASSERT_TRUE(w.ok) << w.error;
}

/// What the harness printed.
struct Printed {
    std::string checksum;   ///< "checksum 0x... mismatches N" line
    long mismatches = -1;
    std::map<std::string, int64_t> transfers;
    std::map<std::string, int64_t> instructions;
};

Printed parse(const std::string& output)
{
    Printed p;
    std::smatch m;
    std::istringstream lines(output);
    std::string line;
    const std::regex checksum("checksum 0x[0-9a-f]+ mismatches (\\d+)");
    const std::regex transfer("transfer (\\S+) (\\S+) (\\S+) bytes (\\d+)");
    const std::regex insns("gemmini instructions config (\\d+) mvin (\\d+) mvout (\\d+) preload (\\d+) compute (\\d+) flush (\\d+)");
    while (std::getline(lines, line)) {
        if (std::regex_match(line, m, checksum)) {
            p.checksum = line;
            p.mismatches = std::stol(m[1].str());
        } else if (std::regex_match(line, m, transfer)) {
            p.transfers[m[1].str() + " " + m[2].str() + " " + m[3].str()] = std::stoll(m[4].str());
        } else if (std::regex_match(line, m, insns)) {
            const char* names[] = {"config", "mvin", "mvout", "preload", "compute", "flush"};
            for (int i = 0; i < 6; ++i)
                p.instructions[names[i]] = std::stoll(m[i + 1].str());
        }
    }
    return p;
}

/// The model's figures in the same form.
Printed model(const lower::LoopNest& nest)
{
    analysis::CostReport r = analysis::analyze(nest, *nest.target);
    Printed p;
    for (const auto& t : r.transfers)
        p.transfers[t.tensor + " " + t.from + " " + t.to] = t.bytes;
    if (r.array) {
        const auto& i = r.array->instructions;
        p.instructions = {{"config", i.config}, {"mvin", i.mvin}, {"mvout", i.mvout}, {"preload", i.preload}, {"compute", i.compute}, {"flush", i.flush}};
    }
    return p;
}

std::string compare(const Printed& got, const Printed& want)
{
    std::ostringstream out;
    if (got.mismatches != 0)
        out << "mismatches: " << got.mismatches << " (" << got.checksum << ")\n";
    if (got.transfers != want.transfers) {
        out << "mvin/mvout bytes differ from the model:\n";
        for (const auto& [k, v] : want.transfers)
            out << "  model   " << k << " " << v << "\n";
        for (const auto& [k, v] : got.transfers)
            out << "  harness " << k << " " << v << "\n";
    }
    if (got.instructions != want.instructions) {
        out << "instructions differ from the model:";
        for (const auto& [k, v] : want.instructions)
            out << " " << k << " " << v << "/" << (got.instructions.count(k) ? got.instructions.at(k) : -1);
        out << "\n";
    }
    return out.str();
}

/// The functional model, compiled once per test program.
std::string modelObject()
{
    static std::string object;
    if (!object.empty())
        return object;
    const fs::path dir = scratch("model");
    fs::create_directories(dir);
    for (const auto& f : codegen::gemminiSupportFiles("k")) {
        fs::create_directories((dir / f.path).parent_path());
        std::ofstream(dir / f.path, std::ios::binary) << f.text;
    }
    RunResult cc = run("cc -std=gnu99 -Wall -Wextra -Werror -Wmissing-prototypes -O1 -c -o " + (dir / "gemmini_model.o").string() + " " + (dir / "gemmini_model.c").string());
    EXPECT_EQ(cc.exitCode, 0) << cc.output;
    object = (dir / "gemmini_model.o").string();
    return object;
}

/// Compiles and runs the host build of an export directory; "" and the output, or the problem.
std::pair<std::string, std::string> runHost(const fs::path& dir, const std::string& kid, bool sanitize)
{
    const std::string flags = "-std=gnu99 -Wall -Wextra -Werror -Wshadow -Wmissing-prototypes -Wstrict-prototypes -O1"
        + std::string(sanitize ? " -fsanitize=address,undefined -fno-sanitize-recover=all" : "");
    const std::string exe = (dir / "k").string();
    const std::string model = sanitize ? (dir / "gemmini_model.c").string() : modelObject();
    RunResult cc = run("cc " + flags + " -I" + dir.string() + " -o " + exe + " " + (dir / (kid + ".c")).string() + " " + (dir / "main.c").string() + " " + model + " -lm");
    if (cc.exitCode != 0)
        return {"compile failed:\n" + cc.output, ""};
    RunResult r = run(exe);
    if (r.exitCode != 0)
        return {"run failed (" + std::to_string(r.exitCode) + "):\n" + r.output, r.output};
    return {"", r.output};
}

sched::Program openExample(const std::string& path)
{
    auto o = sched::openSchedule(path, [](const std::string& n, const std::string& d) { return hw::resolveTarget(n, d); });
    EXPECT_TRUE(o.ok()) << o.errorText();
    return o->program;
}

std::vector<fs::path> gemminiExamples()
{
    std::vector<fs::path> out;
    for (const auto& e : fs::directory_iterator(test::sourceDir() + "/examples/schedules"))
        if (e.path().filename().string().rfind("gemmini_", 0) == 0)
            out.push_back(e.path());
    std::sort(out.begin(), out.end());
    return out;
}

} // namespace

TEST(GemminiExport, EveryExampleRunsBitExactAndMovesTheModelsBytes)
{
    const auto examples = gemminiExamples();
    ASSERT_GE(examples.size(), 6u);
    for (const auto& path : examples) {
        sched::Program p = openExample(path.string());
        lower::LoopNest nest = lower::lower(p);
        ASSERT_TRUE(codegen::isGemminiNest(nest)) << path;
        ASSERT_EQ(codegen::gemminiExportError(nest), "") << path;
        const fs::path dir = scratch(path.stem().stem().string());
        exportTo(nest, dir);
        auto [problem, output] = runHost(dir, codegen::cIdentifier(p.kernel->name), true);
        ASSERT_EQ(problem, "") << path;
        EXPECT_EQ(compare(parse(output), model(nest)), "") << path;
        fs::remove_all(dir);
    }
}

class GemminiRandom : public ::testing::TestWithParam<int> {};

constexpr int kShards = 4;
constexpr int kPerShard = 30;  // 120 random tensorized schedules on the host model
constexpr int kQemuEvery = 10; // and every tenth of them on qemu-system-riscv64 as well

TEST_P(GemminiRandom, RandomTensorizedSchedulesRunBitExact)
{
    auto target = test::builtinTarget("gemmini-16x16");
    for (int i = 0; i < kPerShard; ++i) {
        const int n = GetParam() * kPerShard + i;
        test::Rng rng(0x6E33 + 48611 * n);
        sched::Program p = test::randomTensorized(n, rng, target);
        ASSERT_TRUE(p.kernel);
        lower::LoopNest nest = lower::lower(p);
        const fs::path dir = scratch("random-" + std::to_string(n));
        exportTo(nest, dir);
        const std::string kid = codegen::cIdentifier(p.kernel->name);
        auto [problem, output] = runHost(dir, kid, n % 8 == 0);
        ASSERT_EQ(problem, "") << p.kernel->name << " schedule #" << n << "\n" << traceText(p);
        const Printed host = parse(output);
        ASSERT_EQ(compare(host, model(nest)), "") << p.kernel->name << " schedule #" << n << "\n" << traceText(p);
        if (n % kQemuEvery == 0) {
            RunResult rv = run("make -s -C " + dir.string() + " run-rv64 RUN_TIMEOUT='timeout --foreground 120'");
            ASSERT_EQ(rv.exitCode, 0) << rv.output << "\nschedule #" << n << "\n" << traceText(p);
            const Printed rv64 = parse(rv.output);
            EXPECT_EQ(rv64.checksum, host.checksum) << "schedule #" << n;
            EXPECT_EQ(rv64.transfers, host.transfers);
            EXPECT_EQ(rv64.instructions, host.instructions);
        }
        fs::remove_all(dir);
    }
}

INSTANTIATE_TEST_SUITE_P(Shards, GemminiRandom, ::testing::Range(0, kShards));

// ---- golden exports ----------------------------------------------------------------------------

class GemminiGolden : public ::testing::TestWithParam<std::string> {};

TEST_P(GemminiGolden, MatchesGoldenFiles)
{
    const std::string name = GetParam();
    lower::LoopNest nest = lower::lower(openExample(test::sourceDir() + "/examples/schedules/" + name + ".sched.yaml"));
    const bool update = std::getenv("LOOPSCOPE_UPDATE_GOLDEN") != nullptr;
    for (const auto& [ext, text] : {std::pair<std::string, std::string>{".h", codegen::generateGemminiHeader(nest)},
                                    std::pair<std::string, std::string>{".c", codegen::generateGemminiSource(nest)}}) {
        const std::string path = test::sourceDir() + "/tests/golden/export/" + name + ext;
        if (update) {
            std::ofstream(path, std::ios::binary) << text;
            continue;
        }
        const std::string want = test::readText(path);
        ASSERT_FALSE(want.empty()) << path << " is missing; run with LOOPSCOPE_UPDATE_GOLDEN=1";
        EXPECT_EQ(want, text) << path;
    }
}

INSTANTIATE_TEST_SUITE_P(Examples, GemminiGolden, ::testing::Values("gemmini_matmul_sym_hand", "gemmini_conv2d_int8"));

// ---- what is not a Gemmini export ---------------------------------------------------------------

TEST(GemminiExport, RefusesWhatItCannotWrite)
{
    auto target = test::builtinTarget("gemmini-16x16");
    // Per-channel requantization cannot use acc_scale, which is one float per configuration.
    lower::LoopNest conv = lower::lower(openExample(test::sourceDir() + "/examples/schedules/gemmini_conv2d_int8.sched.yaml"));
    EXPECT_EQ(codegen::gemminiExportError(conv, {true}),
              "--gemmini-acc-scale: Gemmini's acc_scale is one float per configuration, but stage O requantizes per channel (TFLite's per-channel multipliers and "
              "shifts)");
    // The CLI says so and writes nothing.
    const fs::path out = scratch("refused");
    RunResult r = run(std::string(LOOPSCOPE_CLI) + " export " + test::sourceDir() + "/examples/schedules/gemmini_conv2d_int8.sched.yaml --out " + out.string()
                      + " --gemmini-acc-scale 2>&1");
    EXPECT_EQ(r.exitCode, 2) << r.output;
    EXPECT_NE(r.output.find("error: --gemmini-acc-scale: Gemmini's acc_scale is one float per configuration"), std::string::npos) << r.output;
    EXPECT_FALSE(fs::exists(out));
    // A schedule without tensorize on the Gemmini target stays the portable C export.
    sched::Program plain = sched::Program::initial(conv.kernel, target);
    EXPECT_FALSE(codegen::isGemminiNest(lower::lower(plain)));
}

TEST(GemminiExport, AccScaleRequantizesOnTheArrayWithinOne)
{
    // Per-tensor requantization without output offset: acc_scale can do it (rounding to nearest
    // even in float, not TFLite's fixed point: results within 1).
    auto k = ir::loadKernelFile(test::kernelPath("gemmini_requant_pertensor"));
    ASSERT_TRUE(k.ok()) << k.errorText();
    auto f = sched::parseScheduleFile(R"(kernel: k.kernel.yaml
target: gemmini-16x16
steps:
  - split: {loop: j, factor: 16}
  - reorder: {loops: [j.outer, i, j.inner, k]}
  - cache_read: {tensor: A, level: scratchpad, at: root}
  - cache_read: {tensor: B, level: scratchpad, at: j.outer}
  - cache_write: {tensor: C, level: accumulator, at: j.outer}
  - tensorize: {loops: [i, j.inner, k], intrinsic: gemmini_matmul, dataflow: weight_stationary}
)",
                                      "a.sched.yaml");
    ASSERT_TRUE(f.ok()) << f.errorText();
    auto r = sched::replay(std::make_shared<const ir::Kernel>(*k), test::builtinTarget("gemmini-16x16"), f->steps);
    ASSERT_TRUE(r.ok()) << r.error().str();
    lower::LoopNest nest = lower::lower(r.program());
    ASSERT_EQ(codegen::gemminiExportError(nest, {true}), "");
    const fs::path dir = scratch("acc-scale");
    exportTo(nest, dir, true);
    const std::string source = test::readText((dir / "gemmini_requant_pertensor.c").string());
    EXPECT_NE(source.find("gemmini_extended_config_ex(WEIGHT_STATIONARY, NO_ACTIVATION, 0, 0.00"), std::string::npos) << source;
    EXPECT_EQ(source.find("ls_requantize"), std::string::npos) << "the host requantizes although acc_scale was asked for";
    auto [problem, output] = runHost(dir, "gemmini_requant_pertensor", true);
    ASSERT_EQ(problem, "");
    EXPECT_EQ(parse(output).mismatches, 0) << output;
    // Without the option the host requantizes bit-exactly.
    exportTo(nest, dir, false);
    auto [exact, exactOutput] = runHost(dir, "gemmini_requant_pertensor", false);
    ASSERT_EQ(exact, "");
    EXPECT_EQ(parse(exactOutput).mismatches, 0);
    fs::remove_all(dir);
}

// ---- the functional model rejects what is out of range -----------------------------------------

TEST(GemminiModel, RejectsOutOfRangeInstructions)
{
    const fs::path dir = scratch("reject");
    fs::create_directories(dir);
    for (const auto& f : codegen::gemminiSupportFiles("k")) {
        fs::create_directories((dir / f.path).parent_path());
        std::ofstream(dir / f.path, std::ios::binary) << f.text;
    }
    struct Case {
        const char* name;
        const char* code;      ///< statements of main after a valid configuration
        const char* message;   ///< what the model prints
    };
    const Case cases[] = {
        {"rows", "gemmini_extended_mvin(row, 0, 16, 17);", "mvin (funct 2, rs1 0x"},
        {"row_bytes", "gemmini_extended3_config_ld(64, MVIN_SCALE_IDENTITY, false, 2); gemmini_extended_mvin3(acc, (1u << 31), 32, 1);",
         "a row of more than MAX_BYTES bytes"},
        {"past_scratchpad", "gemmini_extended_mvin(row, BANK_NUM * BANK_ROWS - 8, 16, 16);", "rows past the end of the scratchpad"},
        {"past_accumulator", "gemmini_extended_mvout(acc, (1u << 31) | (1u << 29) | (ACC_ROWS - 1), 16, 2);", "rows past the end of the accumulator"},
        {"preload_from_accumulator", "gemmini_extended_preload((1u << 31), GARBAGE_ADDR, 16, 16, 16, 16);", "a preload from the accumulator"},
        {"unknown_funct", "loopscope_gemmini_execute(9, 0, 0);", "an instruction the model does not know"},
    };
    for (const Case& c : cases) {
        const fs::path src = dir / (std::string(c.name) + ".c");
        std::ofstream(src) << "#include \"gemmini.h\"\nstatic elem_t row[16 * 64];\nstatic acc_t acc[16 * 64];\n"
                           << "int main(void)\n{\n    gemmini_extended3_config_ld(16, MVIN_SCALE_IDENTITY, false, 0);\n    " << c.code << "\n    (void)row; (void)acc;\n    return 0;\n}\n";
        RunResult cc = run("cc -std=gnu99 -Wall -Werror -I" + dir.string() + " -o " + (dir / c.name).string() + " " + src.string() + " " + (dir / "gemmini_model.c").string() + " -lm");
        ASSERT_EQ(cc.exitCode, 0) << c.name << "\n" << cc.output;
        RunResult r = run((dir / c.name).string() + " 2>&1");
        EXPECT_EQ(r.exitCode, 3) << c.name << ": " << r.output;
        EXPECT_NE(r.output.find("gemmini model: "), std::string::npos) << c.name << ": " << r.output;
        EXPECT_NE(r.output.find(c.message), std::string::npos) << c.name << ": " << r.output;
    }
    fs::remove_all(dir);
}

// ---- the encodings, call by call (LOOPSCOPE_GEMMINI_TRACE) -----------------------------------------

TEST(GemminiHeader, EveryMacroEncodesAsTheIsaSays)
{
    const fs::path dir = scratch("encodings");
    fs::create_directories(dir);
    for (const auto& f : codegen::gemminiSupportFiles("k"))
        if (f.path == "gemmini.h")
            std::ofstream(dir / f.path, std::ios::binary) << f.text;
    const std::string exe = (dir / "encodings").string();
    RunResult cc = run("cc -std=gnu99 -Wall -Wextra -Werror -I" + dir.string() + " -o " + exe + " " + test::sourceDir() + "/tests/codegen/gemmini_encodings.c");
    ASSERT_EQ(cc.exitCode, 0) << cc.output;
    RunResult r = run(exe + " 2>&1");
    EXPECT_EQ(r.exitCode, 0) << r.output;
    EXPECT_NE(r.output.find("19 instructions as expected, gemmini_fence emits none"), std::string::npos) << r.output;
    fs::remove_all(dir);
}

// ---- the real gemmini.h -----------------------------------------------------------------------

TEST(GemminiExport, CompilesAgainstTheRealHeaderWhenGiven)
{
    const char* include = std::getenv("GEMMINI_INCLUDE_DIR");
    if (!include)
        GTEST_SKIP() << "GEMMINI_INCLUDE_DIR is not set: point it at a gemmini-rocc-tests checkout (the directory holding include/gemmini.h and "
                        "rocc-software/) to compile the exports against Gemmini's own header";
    for (const auto& path : gemminiExamples()) {
        sched::Program p = openExample(path.string());
        lower::LoopNest nest = lower::lower(p);
        const fs::path dir = scratch("real-" + path.stem().stem().string());
        fs::remove_all(dir);
        fs::create_directories(dir);
        const std::string kid = codegen::cIdentifier(p.kernel->name);
        std::ofstream(dir / (kid + ".h")) << codegen::generateGemminiHeader(nest);
        std::ofstream(dir / (kid + ".c")) << codegen::generateGemminiSource(nest);
        RunResult cc = run("riscv64-unknown-elf-gcc -std=gnu99 -O2 -c -I" + std::string(include) + "/include -I" + std::string(include) + " -I" + dir.string() + " -o "
                           + (dir / "k.o").string() + " " + (dir / (kid + ".c")).string());
        EXPECT_EQ(cc.exitCode, 0) << path << "\n" << cc.output;
        fs::remove_all(dir);
    }
}
