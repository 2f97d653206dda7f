// Schedule files round-trip: format -> parse -> format is byte-identical, the steps survive
// parse(format(x)), save/load keeps the bytes, and every example schedule opens and verifies.
#include "support/random_schedule.h"
#include "support/step_text.h"
#include "support/test_paths.h"

#include "ir/kernel.h"
#include "sched/schedule_file.h"
#include "target_loader.h"
#include "verify/interpreter.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

using namespace loopscope;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> exampleSchedules()
{
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(test::sourceDir() + "/examples/schedules"))
        if (e.path().string().ends_with(".sched.yaml"))
            out.push_back(e.path().string());
    std::sort(out.begin(), out.end());
    return out;
}

std::string stepsText(const std::vector<sched::Step>& steps)
{
    std::string out;
    for (const auto& s : steps)
        out += "  " + sched::describe(s) + (s.stage.empty() ? "" : " [stage " + s.stage + "]") + "\n";
    return out;
}

/// Checks the three round-trip properties of one schedule file value; returns false (with
/// failures recorded) when one does not hold.
bool roundTrips(const sched::ScheduleFile& x, const std::string& what)
{
    const std::string text = sched::formatScheduleFile(x);
    auto parsed = sched::parseScheduleFile(text, "roundtrip.sched.yaml");
    EXPECT_TRUE(parsed.ok()) << what << ": formatted text does not parse: " << parsed.errorText() << "\n" << text;
    if (!parsed)
        return false;
    EXPECT_EQ(parsed->steps, x.steps) << what << "\n" << text;
    EXPECT_EQ(parsed->kernel, x.kernel) << what;
    EXPECT_EQ(parsed->target, x.target) << what;
    EXPECT_EQ(parsed->description, x.description) << what;
    EXPECT_EQ(parsed->params, x.params) << what;
    const std::string again = sched::formatScheduleFile(*parsed);
    EXPECT_EQ(again, text) << what << ": format(parse(format(x))) != format(x)";
    return !::testing::Test::HasFailure();
}

// ---- example schedules ------------------------------------------------------------------

TEST(ExampleSchedules, DirectoryIsNotEmpty)
{
    EXPECT_FALSE(exampleSchedules().empty());
}

TEST(ExampleSchedules, FormatParseFormatIsByteIdentical)
{
    for (const std::string& path : exampleSchedules()) {
        SCOPED_TRACE(path);
        auto f = sched::loadScheduleFile(path);
        ASSERT_TRUE(f.ok()) << f.errorText();
        roundTrips(*f, path);
    }
}

TEST(ExampleSchedules, StepsKeepTheirSourcePositions)
{
    for (const std::string& path : exampleSchedules()) {
        SCOPED_TRACE(path);
        auto f = sched::loadScheduleFile(path);
        ASSERT_TRUE(f.ok()) << f.errorText();
        for (const auto& s : f->steps) {
            EXPECT_EQ(s.loc.file, path);
            EXPECT_GT(s.loc.line, 0);
            EXPECT_GT(s.loc.column, 0);
        }
    }
}

TEST(ExampleSchedules, SaveThenLoadKeepsTheBytes)
{
    const fs::path dir = fs::temp_directory_path() / ("loopscope_roundtrip_" + std::to_string(::getpid()));
    fs::create_directories(dir);
    for (const std::string& path : exampleSchedules()) {
        SCOPED_TRACE(path);
        auto f = sched::loadScheduleFile(path);
        ASSERT_TRUE(f.ok()) << f.errorText();
        const std::string out = (dir / fs::path(path).filename()).string();
        std::string err;
        ASSERT_TRUE(sched::saveScheduleFile(*f, out, err)) << err;
        const std::string bytes = test::readText(out);
        EXPECT_EQ(bytes, sched::formatScheduleFile(*f));
        EXPECT_FALSE(fs::exists(out + ".tmp")) << "temporary file left behind";
        auto back = sched::loadScheduleFile(out);
        ASSERT_TRUE(back.ok()) << back.errorText();
        EXPECT_EQ(back->steps, f->steps);
        EXPECT_EQ(back->path, out);
        // Saving what was loaded gives the same bytes again.
        ASSERT_TRUE(sched::saveScheduleFile(*back, out, err)) << err;
        EXPECT_EQ(test::readText(out), bytes);
    }
    fs::remove_all(dir);
}

TEST(ExampleSchedules, OpenReplaysAndVerifies)
{
    for (const std::string& path : exampleSchedules()) {
        SCOPED_TRACE(path);
        auto o = sched::openSchedule(path, [](const std::string& n, const std::string& dir) {
            return hw::resolveTarget(n, dir);
        });
        ASSERT_TRUE(o.ok()) << o.errorText();
        EXPECT_EQ(o->program.trace, o->file.steps);
        EXPECT_EQ(o->program.kernel, o->kernel);
        verify::VerifyResult r = verify::verifyProgram(o->program, 1);
        EXPECT_TRUE(r.ok) << r.message;
    }
}

// ---- random schedules -------------------------------------------------------------------

struct KernelCase {
    const char* kernel;
    std::map<std::string, int64_t> params;
    const char* target;
};

void PrintTo(const KernelCase& c, std::ostream* os) { *os << c.kernel; }

class RandomTraceRoundTrip : public ::testing::TestWithParam<KernelCase> {};

constexpr int kRandomSchedules = 500;

TEST_P(RandomTraceRoundTrip, FormatParseFormat)
{
    const KernelCase& c = GetParam();
    const std::string kpath = test::kernelPath(c.kernel);
    auto kernel = ir::loadKernelFile(kpath, c.params);
    ASSERT_TRUE(kernel.ok()) << kernel.errorText();
    auto target = test::builtinTarget(c.target);
    ASSERT_TRUE(target);
    auto k = std::make_shared<const ir::Kernel>(*kernel);
    const sched::Program initial = sched::Program::initial(k, target);
    int nonEmpty = 0;
    for (int i = 0; i < kRandomSchedules; ++i) {
        test::Rng rng(0x5eed + i * 104729);
        sched::Program p = test::randomSchedule(initial, rng, 1 + static_cast<int>(rng.below(12)));
        nonEmpty += p.trace.empty() ? 0 : 1;
        sched::ScheduleFile f;
        f.kernel = kpath;
        f.target = c.target;
        f.params = c.params;
        f.description = "random schedule #" + std::to_string(i);
        f.steps = p.trace;
        ASSERT_TRUE(roundTrips(f, std::string(c.kernel) + " #" + std::to_string(i) + "\n" + stepsText(p.trace)));
        // The parsed steps replay to the same program (same trace, same lowered nest).
        auto parsed = sched::parseScheduleFile(sched::formatScheduleFile(f), "r.sched.yaml");
        auto r = sched::replay(k, target, parsed->steps);
        ASSERT_TRUE(r.ok()) << r.error().str();
        EXPECT_EQ(r.program().trace, p.trace);
    }
    EXPECT_GT(nonEmpty, kRandomSchedules * 9 / 10);
}

INSTANTIATE_TEST_SUITE_P(
    Examples, RandomTraceRoundTrip,
    ::testing::Values(KernelCase{"matmul_f32", {{"M", 5}, {"N", 6}, {"K", 7}}, "cortex-m7"},
                      KernelCase{"matmul_int8", {{"M", 6}, {"N", 5}, {"K", 9}}, "gemmini-16x16"},
                      KernelCase{"conv2d_int8", {{"H", 5}, {"W", 6}, {"C", 3}, {"K", 4}}, "cortex-m7"},
                      KernelCase{"conv2d_s2_int8", {{"H", 7}, {"W", 6}, {"C", 2}, {"K", 3}}, "cortex-m4"},
                      KernelCase{"depthwise_conv_int8", {{"H", 5}, {"W", 6}, {"C", 4}}, "cortex-m7"},
                      KernelCase{"pointwise_conv_int8", {{"H", 4}, {"W", 5}, {"C", 6}, {"K", 3}}, "cortex-m7"},
                      KernelCase{"dwsep_conv", {{"H", 5}, {"W", 6}, {"C", 3}, {"K", 4}}, "cortex-m7"},
                      KernelCase{"dense_int8", {{"B", 2}, {"IN", 9}, {"OUT", 5}}, "cortex-m7"},
                      KernelCase{"dense_int16", {{"B", 2}, {"IN", 8}, {"OUT", 5}}, "cortex-m7"},
                      KernelCase{"scaled_matmul", {}, "cortex-m7"}),
    [](const ::testing::TestParamInfo<KernelCase>& info) { return std::string(info.param.kernel); });

// ---- hand-written edge cases ------------------------------------------------------------

TEST(ScheduleFileRoundTrip, EmptySteps)
{
    sched::ScheduleFile f;
    f.kernel = "k.kernel.yaml";
    f.target = "cortex-m7";
    const std::string text = sched::formatScheduleFile(f);
    EXPECT_EQ(text, "kernel: k.kernel.yaml\ntarget: cortex-m7\nsteps: []\n");
    roundTrips(f, "empty steps");
    // "steps:" with nothing after it and no steps key at all mean the same.
    for (const char* t : {"kernel: k.kernel.yaml\ntarget: cortex-m7\nsteps:\n",
                          "kernel: k.kernel.yaml\ntarget: cortex-m7\n"}) {
        auto p = sched::parseScheduleFile(t, "e.sched.yaml");
        ASSERT_TRUE(p.ok()) << p.errorText();
        EXPECT_TRUE(p->steps.empty());
        EXPECT_EQ(sched::formatScheduleFile(*p), text);
    }
}

TEST(ScheduleFileRoundTrip, CanonicalTextOfEveryPrimitive)
{
    sched::ScheduleFile f;
    f.kernel = "../kernels/matmul_f32.kernel.yaml";
    f.target = "cortex-m7";
    f.description = "every primitive";
    f.params = {{"N", 32}, {"M", 16}};
    auto split = test::loopStep(sched::Primitive::Split);
    split.loops = {"i"};
    split.factor = 16;
    auto nparts = test::loopStep(sched::Primitive::Split);
    nparts.loops = {"j"};
    nparts.nparts = 3;
    auto tile = test::loopStep(sched::Primitive::Tile);
    tile.loops = {"i.inner", "j.inner"};
    tile.factors = {4, 2};
    auto reorder = test::loopStep(sched::Primitive::Reorder);
    reorder.loops = {"k", "i.outer"};
    auto fuse = test::loopStep(sched::Primitive::Fuse);
    fuse.stage = "C";
    fuse.loops = {"i.outer", "j.outer"};
    auto unroll = test::loopStep(sched::Primitive::Unroll);
    unroll.loops = {"k"};
    auto vec = test::loopStep(sched::Primitive::Vectorize);
    vec.loops = {"j.inner.inner"};
    auto par = test::loopStep(sched::Primitive::Parallel);
    par.loops = {"i.outer.j.outer.fused"};
    auto cr = test::loopStep(sched::Primitive::CacheRead);
    cr.tensor = "A";
    cr.level = "SRAM";
    cr.at = "root";
    auto cw = test::loopStep(sched::Primitive::CacheWrite);
    cw.tensor = "C";
    cw.level = "SRAM";
    cw.at = "i.outer";
    auto ca = test::loopStep(sched::Primitive::ComputeAt);
    ca.stage = "O";
    ca.producer = "D";
    ca.at = "h.outer";
    ca.level = "SRAM";
    auto ci = test::loopStep(sched::Primitive::ComputeInline);
    ci.producer = "T";
    auto db = test::loopStep(sched::Primitive::DoubleBuffer);
    db.tensor = "A";
    db.level = "SRAM";
    f.steps = {split, nparts, tile, reorder, fuse, unroll, vec, par, cr, cw, ca, ci, db};
    const std::string expected =
        "description: \"every primitive\"\n"
        "kernel: ../kernels/matmul_f32.kernel.yaml\n"
        "target: cortex-m7\n"
        "params: {M: 16, N: 32}\n"
        "steps:\n"
        "  - split: {loop: i, factor: 16}\n"
        "  - split: {loop: j, nparts: 3}\n"
        "  - tile: {loops: [i.inner, j.inner], factors: [4, 2]}\n"
        "  - reorder: {loops: [k, i.outer]}\n"
        "  - fuse: {stage: C, loops: [i.outer, j.outer]}\n"
        "  - unroll: {loop: k}\n"
        "  - vectorize: {loop: j.inner.inner}\n"
        "  - parallel: {loop: i.outer.j.outer.fused}\n"
        "  - cache_read: {tensor: A, level: SRAM, at: root}\n"
        "  - cache_write: {tensor: C, level: SRAM, at: i.outer}\n"
        "  - compute_at: {stage: O, producer: D, level: SRAM, at: h.outer}\n"
        "  - compute_inline: {producer: T}\n"
        "  - double_buffer: {tensor: A, level: SRAM}\n";
    EXPECT_EQ(sched::formatScheduleFile(f), expected);
    roundTrips(f, "every primitive");
}

TEST(ScheduleFileRoundTrip, NonCanonicalInputBecomesCanonical)
{
    // Block style, other key order, comments, extra spaces: the same steps, canonical output.
    const char* text =
        "# a comment\n"
        "target:   cortex-m7   # trailing comment\n"
        "kernel: '../kernels/matmul_f32.kernel.yaml'\n"
        "steps:\n"
        "  - split:\n"
        "      factor: 16\n"
        "      loop: i\n"
        "  - reorder: {loops: [\"k\", i.inner]}\n";
    auto f = sched::parseScheduleFile(text, "n.sched.yaml");
    ASSERT_TRUE(f.ok()) << f.errorText();
    ASSERT_EQ(f->steps.size(), 2u);
    EXPECT_EQ(f->steps[0].loops, std::vector<std::string>{"i"});
    EXPECT_EQ(f->steps[0].factor, 16);
    EXPECT_EQ(f->steps[0].loc.line, 5);
    EXPECT_EQ(f->steps[0].loc.column, 5);
    EXPECT_EQ(f->steps[1].loc.line, 8);
    EXPECT_EQ(sched::formatScheduleFile(*f),
              "kernel: ../kernels/matmul_f32.kernel.yaml\n"
              "target: cortex-m7\n"
              "steps:\n"
              "  - split: {loop: i, factor: 16}\n"
              "  - reorder: {loops: [k, i.inner]}\n");
    roundTrips(*f, "non-canonical");
}

TEST(ScheduleFileRoundTrip, OddNamesAreQuoted)
{
    // Names that YAML would read as something else (null, booleans, numbers, flow syntax,
    // comments, leading dashes) or that contain quotes and backslashes.
    const std::vector<std::string> names = {
        "a b", "x:y", "x: y", "[z]", "{w}", "#c", "c#d", "a,b", "-lead", "-", "null", "true", "false", "~",
        "quote\"d", "back\\slash", "it's", "tab\there", "123", "1.5", "0x10", "&anchor", "*alias", "!tag", "%pct",
        "@at", "`tick", "|pipe", ">gt", "?q", "", " lead space", "trail space ", "ünïcode", "a/b/c.yaml"};
    for (const std::string& n : names) {
        SCOPED_TRACE("name '" + n + "'");
        sched::ScheduleFile f;
        f.kernel = n.empty() ? "k.kernel.yaml" : n;
        f.target = n.empty() ? "cortex-m7" : n;
        f.description = n;
        auto split = test::loopStep(sched::Primitive::Split);
        split.stage = n;
        split.loops = {n};
        split.factor = 2;
        auto reorder = test::loopStep(sched::Primitive::Reorder);
        reorder.loops = {n, n + "2"};
        auto cr = test::loopStep(sched::Primitive::CacheRead);
        cr.tensor = n;
        cr.level = n;
        cr.at = n;
        auto ca = test::loopStep(sched::Primitive::ComputeAt);
        ca.producer = n;
        ca.at = n;
        f.steps = {split, reorder, cr, ca};
        // An empty stage/tensor/... is "not given" and is not written; drop those fields so
        // the comparison is about quoting only.
        if (n.empty())
            f.steps = {reorder};
        roundTrips(f, "odd name");
    }
}

// YAML reads Null, NULL and ~ as null, like null; a name spelled that way must be quoted.
TEST(ScheduleFileRoundTrip, NullSpellingsAreQuoted)
{
    for (const std::string n : {"Null", "NULL"}) {
        SCOPED_TRACE("name '" + n + "'");
        sched::ScheduleFile f;
        f.kernel = "k.kernel.yaml";
        f.target = "cortex-m7";
        auto split = test::loopStep(sched::Primitive::Split);
        split.loops = {n};
        split.factor = 2;
        f.steps = {split};
        roundTrips(f, "null spelling");
    }
}

// A description is free text: line breaks and control characters must survive.
TEST(ScheduleFileRoundTrip, MultiLineDescription)
{
    sched::ScheduleFile f;
    f.kernel = "k.kernel.yaml";
    f.target = "cortex-m7";
    f.description = "first line\nsecond line";
    roundTrips(f, "multi-line description");
}

TEST(ScheduleFileRoundTrip, SaveFailsCleanlyForAMissingDirectory)
{
    sched::ScheduleFile f;
    f.kernel = "k.kernel.yaml";
    f.target = "cortex-m7";
    std::string err;
    const std::string path = "/nonexistent-dir-loopscope/x.sched.yaml";
    EXPECT_FALSE(sched::saveScheduleFile(f, path, err));
    EXPECT_NE(err.find("/nonexistent-dir-loopscope/x.sched.yaml"), std::string::npos) << err;
}

} // namespace
