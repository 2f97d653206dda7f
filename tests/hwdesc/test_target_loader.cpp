// Tests of the hardware-target loader: built-in targets, every schema error with its location, and robustness.
#include "target_loader.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <regex>
#include <set>
#include <sstream>

#if __has_include(<sys/resource.h>)
#include <sys/resource.h>
#define LOOPSCOPE_HAS_RLIMIT 1
#endif

namespace fs = std::filesystem;
using namespace loopscope;
using namespace loopscope::hw;

namespace {

const std::string kSourceDir = LOOPSCOPE_SOURCE_DIR;

std::string readFile(const fs::path& p)
{
    std::ifstream in(p, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

std::string builtinText(const std::string& name)
{
    return readFile(fs::path(kSourceDir) / "hwdesc" / "targets" / (name + ".yaml"));
}

/// A small valid target; error tests change one line of it. Line numbers are 1-based.
const char* kMinimal = "name: tiny\n"                          // 1
                       "clock_mhz: 100\n"                      // 2
                       "compute:\n"                            // 3
                       "  macs_per_cycle: {int8: 2}\n"         // 4
                       "memory:\n"                             // 5
                       "  - name: DRAM\n"                      // 6
                       "    size: 8 MiB\n"                     // 7
                       "    bandwidth_bytes_per_cycle: 1\n"    // 8
                       "  - name: SRAM\n"                      // 9
                       "    size: 512 KiB\n"                   // 10
                       "    bandwidth_bytes_per_cycle: 4\n";   // 11

std::string replaced(std::string text, const std::string& from, const std::string& to)
{
    const auto at = text.find(from);
    EXPECT_NE(at, std::string::npos) << "test bug: '" << from << "' not in the text";
    if (at != std::string::npos)
        text.replace(at, from.size(), to);
    return text;
}

/// Every diagnostic of a failed load names the file and a real line and column.
void expectLocatedErrors(const Result<Target>& r, const std::string& path, const std::string& context)
{
    ASSERT_FALSE(r.ok());
    ASSERT_FALSE(r.errors().empty()) << context;
    for (const auto& d : r.errors()) {
        EXPECT_EQ(d.severity, Severity::Error) << context;
        EXPECT_EQ(d.loc.file, path) << context;
        EXPECT_GE(d.loc.line, 1) << context << "\n" << d.str();
        EXPECT_GE(d.loc.column, 1) << context << "\n" << d.str();
        EXPECT_FALSE(d.message.empty()) << context;
        EXPECT_EQ(d.str().rfind(path + ":" + std::to_string(d.loc.line) + ":" + std::to_string(d.loc.column) +
                                    ": error: ",
                                0),
                  0u)
            << d.str();
    }
}

/// What an accepted target must satisfy, whatever text it came from.
void expectValidTarget(const Target& t, const std::string& context)
{
    EXPECT_FALSE(t.name.empty()) << context;
    EXPECT_TRUE(t.kind == "mcu" || t.kind == "accelerator") << context;
    EXPECT_GT(t.clockMhz, 0) << context;
    EXPECT_FALSE(t.compute.macsPerCycle.empty()) << context;
    for (const auto& [dtype, macs] : t.compute.macsPerCycle)
        EXPECT_GT(macs, 0) << context << " " << dtype;
    EXPECT_GE(t.compute.simdLanes, 1) << context;
    EXPECT_GE(t.compute.registers, 1) << context;
    EXPECT_GE(t.compute.energyPjPerMac, 0) << context;
    if (t.compute.peArray) {
        EXPECT_GE(t.compute.peArray->rows, 1) << context;
        EXPECT_GE(t.compute.peArray->cols, 1) << context;
        EXPECT_FALSE(t.compute.peArray->dataflows.empty()) << context;
    }
    ASSERT_FALSE(t.levels.empty()) << context;
    std::set<std::string> names;
    for (const auto& l : t.levels) {
        EXPECT_TRUE(names.insert(l.name).second) << context << " duplicate " << l.name;
        EXPECT_GT(l.sizeBytes, 0) << context;
        EXPECT_GT(l.bandwidthBytesPerCycle, 0) << context;
        EXPECT_GE(l.latencyCycles, 0) << context;
        EXPECT_GE(l.energyPjPerByte, 0) << context;
        EXPECT_GE(l.bufferCount, 1) << context;
        EXPECT_TRUE(l.loc.known()) << context;
    }
    EXPECT_GE(t.constraints.maxTileSize, 0) << context;
    EXPECT_GE(t.constraints.alignmentBytes, 1) << context;
    EXPECT_EQ(t.constraints.alignmentBytes & (t.constraints.alignmentBytes - 1), 0) << context;
    EXPECT_GE(t.loopOverheadCycles, 0) << context;
}

constexpr int64_t KiB = 1024;
constexpr int64_t MiB = 1024 * 1024;

} // namespace

// ---------------------------------------------------------------------------------------------
// Built-in targets

TEST(BuiltinTargets, NamesAreTheThreeShippedTargets)
{
    EXPECT_EQ(builtinTargetNames(), (std::vector<std::string>{"cortex-m4", "cortex-m7", "gemmini-16x16"}));
}

TEST(BuiltinTargets, CortexM7HasTheSeedFigures)
{
    const auto r = loadBuiltinTarget("cortex-m7");
    ASSERT_TRUE(r.ok()) << r.errorText();
    const Target& t = *r;
    EXPECT_EQ(t.name, "cortex-m7");
    EXPECT_EQ(t.kind, "mcu");
    EXPECT_EQ(t.path, "hwdesc/targets/cortex-m7.yaml");
    EXPECT_FALSE(t.description.empty());
    EXPECT_DOUBLE_EQ(t.clockMhz, 400);

    EXPECT_EQ(t.compute.macsPerCycle, (std::map<std::string, double>{
                                          {"int8", 2}, {"int16", 2}, {"int32", 1}, {"float32", 1}}));
    EXPECT_EQ(t.compute.simdLanes, 4);
    EXPECT_TRUE(t.compute.dsp);
    EXPECT_TRUE(t.compute.fpu);
    EXPECT_EQ(t.compute.registers, 8);
    EXPECT_GT(t.compute.energyPjPerMac, 0);
    EXPECT_FALSE(t.compute.peArray.has_value());

    ASSERT_EQ(t.levels.size(), 2u);
    const MemoryLevel& dram = t.levels[0];
    const MemoryLevel& sram = t.levels[1];
    EXPECT_EQ(dram.name, "DRAM");
    EXPECT_EQ(sram.name, "SRAM");
    EXPECT_EQ(t.findLevel("DRAM"), 0);
    EXPECT_EQ(t.findLevel("SRAM"), 1);
    EXPECT_EQ(t.innermostLevel(), 1);
    EXPECT_EQ(dram.sizeBytes, 8 * MiB);
    EXPECT_EQ(sram.sizeBytes, 512 * KiB);
    EXPECT_DOUBLE_EQ(dram.bandwidthBytesPerCycle, 1);
    EXPECT_DOUBLE_EQ(sram.bandwidthBytesPerCycle, 4);
    // The seed's ratios: DRAM ~20x SRAM energy per byte, 10x or more its latency.
    EXPECT_DOUBLE_EQ(dram.energyPjPerByte, 20 * sram.energyPjPerByte);
    EXPECT_GE(dram.latencyCycles, 10 * sram.latencyCycles);
    EXPECT_GT(sram.latencyCycles, 0);
    EXPECT_EQ(sram.bufferCount, 2);
    EXPECT_TRUE(sram.dma);
    EXPECT_EQ(dram.bufferCount, 1);
    EXPECT_FALSE(dram.dma);
    EXPECT_EQ(dram.loc.file, "hwdesc/targets/cortex-m7.yaml");
    EXPECT_TRUE(dram.loc.known());
    EXPECT_LT(dram.loc.line, sram.loc.line);

    EXPECT_EQ(t.constraints.maxTileSize, 0);
    EXPECT_EQ(t.constraints.alignmentBytes, 32);
    EXPECT_DOUBLE_EQ(t.loopOverheadCycles, 2);
}

TEST(BuiltinTargets, CortexM4IsAnStm32F4ClassPart)
{
    const auto r = loadBuiltinTarget("cortex-m4");
    ASSERT_TRUE(r.ok()) << r.errorText();
    const Target& t = *r;
    EXPECT_EQ(t.name, "cortex-m4");
    EXPECT_EQ(t.kind, "mcu");
    EXPECT_DOUBLE_EQ(t.clockMhz, 168);
    EXPECT_EQ(t.compute.macsPerCycle, (std::map<std::string, double>{
                                          {"int8", 2}, {"int16", 2}, {"int32", 1}, {"float32", 1}}));
    EXPECT_EQ(t.compute.simdLanes, 4);
    EXPECT_TRUE(t.compute.dsp);
    EXPECT_TRUE(t.compute.fpu);
    EXPECT_EQ(t.compute.registers, 8);
    EXPECT_FALSE(t.compute.peArray.has_value());

    ASSERT_EQ(t.levels.size(), 2u);
    EXPECT_EQ(t.levels[0].name, "DRAM");
    EXPECT_EQ(t.levels[1].name, "SRAM");
    EXPECT_EQ(t.levels[0].sizeBytes, 8 * MiB);    // 64-Mbit SDRAM on the FMC
    EXPECT_EQ(t.levels[1].sizeBytes, 192 * KiB);  // SRAM1 + SRAM2 + SRAM3, no CCM
    EXPECT_DOUBLE_EQ(t.levels[0].bandwidthBytesPerCycle, 1);
    EXPECT_DOUBLE_EQ(t.levels[1].bandwidthBytesPerCycle, 4);
    EXPECT_GE(t.levels[0].latencyCycles, 10 * t.levels[1].latencyCycles);
    EXPECT_GT(t.levels[0].energyPjPerByte, t.levels[1].energyPjPerByte);
    EXPECT_TRUE(t.levels[1].dma);
    EXPECT_EQ(t.levels[1].bufferCount, 2);
    EXPECT_EQ(t.constraints.alignmentBytes, 4);
    EXPECT_DOUBLE_EQ(t.loopOverheadCycles, 4);
}

TEST(BuiltinTargets, Gemmini16x16MatchesItsGeneratorParameters)
{
    const auto r = loadBuiltinTarget("gemmini-16x16");
    ASSERT_TRUE(r.ok()) << r.errorText();
    const Target& t = *r;
    EXPECT_EQ(t.name, "gemmini-16x16");
    EXPECT_EQ(t.kind, "accelerator");
    EXPECT_DOUBLE_EQ(t.clockMhz, 1000);

    ASSERT_TRUE(t.compute.peArray.has_value());
    EXPECT_EQ(t.compute.peArray->rows, 16);
    EXPECT_EQ(t.compute.peArray->cols, 16);
    EXPECT_EQ(t.compute.peArray->dataflows,
              (std::vector<std::string>{"weight_stationary", "output_stationary"}));
    // A 16x16 array does at most 256 MACs per cycle.
    EXPECT_EQ(t.compute.macsPerCycle, (std::map<std::string, double>{{"int8", 256}}));
    EXPECT_EQ(t.compute.simdLanes, 16);
    EXPECT_FALSE(t.compute.dsp);

    ASSERT_EQ(t.levels.size(), 3u);
    EXPECT_EQ(t.levels[0].name, "DRAM");
    EXPECT_EQ(t.levels[1].name, "scratchpad");
    EXPECT_EQ(t.levels[2].name, "accumulator");
    EXPECT_EQ(t.levels[1].sizeBytes, 4 * 4096 * 16);      // 4 banks x 4096 rows x DIM int8
    EXPECT_EQ(t.levels[1].sizeBytes, 256 * KiB);
    EXPECT_EQ(t.levels[2].sizeBytes, 1024 * 16 * 4);      // 1024 rows x DIM int32
    EXPECT_EQ(t.levels[2].sizeBytes, 64 * KiB);
    EXPECT_GT(t.levels[0].sizeBytes, t.levels[1].sizeBytes);
    EXPECT_DOUBLE_EQ(t.levels[0].bandwidthBytesPerCycle, 16);  // 128-bit DMA bus
    EXPECT_DOUBLE_EQ(t.levels[1].bandwidthBytesPerCycle, 16);
    EXPECT_DOUBLE_EQ(t.levels[2].bandwidthBytesPerCycle, 64);
    EXPECT_TRUE(t.levels[1].dma);
    EXPECT_TRUE(t.levels[2].dma);
    // Row-addressed: 4 banks x 4096 rows of 16 int8; 1024 rows of 16 int32.
    EXPECT_EQ(t.levels[1].banks, 4);
    EXPECT_EQ(t.levels[1].rowBytes, 16);
    EXPECT_EQ(t.levels[1].rows(), 4 * 4096);
    EXPECT_EQ(t.levels[2].rowBytes, 64);
    EXPECT_EQ(t.levels[2].rows(), 1024);
    EXPECT_EQ(t.levels[0].rows(), 0);
    // Instruction timing and the DMA's row limit.
    EXPECT_EQ(t.compute.peArray->computeCycles, 16);
    EXPECT_EQ(t.compute.peArray->preloadCycles, 16);
    EXPECT_EQ(t.compute.peArray->dmaMaxBytes, 64);
    EXPECT_DOUBLE_EQ(t.compute.peArray->hostIssueCycles, 2);
    EXPECT_DOUBLE_EQ(t.compute.peArray->hostRequantizeCycles, 12);
    EXPECT_FALSE(t.levels[0].dma);
    EXPECT_EQ(t.constraints.alignmentBytes, 16);
}

class EachBuiltin : public ::testing::TestWithParam<std::string> {};

TEST_P(EachBuiltin, LoadsAndIsValid)
{
    const auto r = loadBuiltinTarget(GetParam());
    ASSERT_TRUE(r.ok()) << r.errorText();
    EXPECT_EQ(r->name, GetParam());
    EXPECT_EQ(r->path, "hwdesc/targets/" + GetParam() + ".yaml");
    expectValidTarget(*r, GetParam());
}

TEST_P(EachBuiltin, EmbeddedTextMatchesTheSourceFile)
{
    const std::string path = kSourceDir + "/hwdesc/targets/" + GetParam() + ".yaml";
    const auto fromFile = loadTargetFile(path);
    const auto embedded = loadBuiltinTarget(GetParam());
    ASSERT_TRUE(fromFile.ok()) << fromFile.errorText();
    ASSERT_TRUE(embedded.ok()) << embedded.errorText();
    EXPECT_EQ(fromFile->path, path);
    EXPECT_EQ(fromFile->clockMhz, embedded->clockMhz);
    EXPECT_EQ(fromFile->compute.macsPerCycle, embedded->compute.macsPerCycle);
    EXPECT_EQ(fromFile->description, embedded->description);
    ASSERT_EQ(fromFile->levels.size(), embedded->levels.size());
    for (size_t i = 0; i < fromFile->levels.size(); ++i) {
        EXPECT_EQ(fromFile->levels[i].name, embedded->levels[i].name);
        EXPECT_EQ(fromFile->levels[i].sizeBytes, embedded->levels[i].sizeBytes);
        EXPECT_EQ(fromFile->levels[i].loc.line, embedded->levels[i].loc.line);
    }
}

TEST_P(EachBuiltin, CrlfLineEndingsGiveTheSameTarget)
{
    std::string text = builtinText(GetParam());
    std::string crlf;
    for (char c : text) {
        if (c == '\n')
            crlf += '\r';
        crlf += c;
    }
    const auto a = parseTarget(text, "a.yaml");
    const auto b = parseTarget(crlf, "b.yaml");
    ASSERT_TRUE(a.ok()) << a.errorText();
    ASSERT_TRUE(b.ok()) << b.errorText();
    ASSERT_EQ(a->levels.size(), b->levels.size());
    for (size_t i = 0; i < a->levels.size(); ++i) {
        EXPECT_EQ(a->levels[i].name, b->levels[i].name);
        EXPECT_EQ(a->levels[i].sizeBytes, b->levels[i].sizeBytes);
    }
}

TEST_P(EachBuiltin, ResolvesByNameAndByPath)
{
    const auto byName = resolveTarget(GetParam());
    ASSERT_TRUE(byName.ok()) << byName.errorText();
    EXPECT_EQ(byName->path, "hwdesc/targets/" + GetParam() + ".yaml");

    const auto relative = resolveTarget("hwdesc/targets/" + GetParam() + ".yaml", kSourceDir);
    ASSERT_TRUE(relative.ok()) << relative.errorText();
    EXPECT_EQ(relative->name, GetParam());
    EXPECT_EQ(fs::path(relative->path), fs::path(kSourceDir) / "hwdesc/targets" / (GetParam() + ".yaml"));

    const std::string absolute = kSourceDir + "/hwdesc/targets/" + GetParam() + ".yaml";
    const auto byAbsolute = resolveTarget(absolute, "/nonexistent/base");
    ASSERT_TRUE(byAbsolute.ok()) << byAbsolute.errorText();
    EXPECT_EQ(byAbsolute->path, absolute);
}

INSTANTIATE_TEST_SUITE_P(Targets, EachBuiltin, ::testing::Values("cortex-m4", "cortex-m7", "gemmini-16x16"),
                         [](const auto& info) {
                             std::string s = info.param;
                             std::replace(s.begin(), s.end(), '-', '_');
                             return s;
                         });

TEST(Documentation, ExampleTargetInDocsLoads)
{
    // The first ```yaml block of docs/hwdesc.md is a complete target; keep it loadable.
    const std::string doc = readFile(fs::path(kSourceDir) / "docs/hwdesc.md");
    const std::string open = "```yaml\n";
    const auto begin = doc.find(open);
    ASSERT_NE(begin, std::string::npos);
    const auto end = doc.find("```", begin + open.size());
    ASSERT_NE(end, std::string::npos);
    const auto r = parseTarget(doc.substr(begin + open.size(), end - begin - open.size()), "docs/hwdesc.md");
    ASSERT_TRUE(r.ok()) << r.errorText();
    EXPECT_EQ(r->name, "my-board");
    ASSERT_EQ(r->levels.size(), 2u);
    EXPECT_EQ(r->levels[1].sizeBytes, 512 * KiB);
    expectValidTarget(*r, "docs example");
}

// ---------------------------------------------------------------------------------------------
// Resolution and files

TEST(ResolveTarget, UnknownNameListsTheBuiltins)
{
    const auto r = resolveTarget("cortex-m99", "/tmp");
    ASSERT_FALSE(r.ok());
    const std::string text = r.errorText();
    EXPECT_NE(text.find("unknown target 'cortex-m99'"), std::string::npos) << text;
    EXPECT_NE(text.find("cortex-m4, cortex-m7, gemmini-16x16"), std::string::npos) << text;
    EXPECT_NE(text.find("/tmp/cortex-m99"), std::string::npos) << text;
}

TEST(ResolveTarget, EmptyNameIsAnError)
{
    const auto r = resolveTarget("");
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.errorText().find("cortex-m7"), std::string::npos) << r.errorText();
}

TEST(ResolveTarget, FileErrorsKeepTheirLocation)
{
    const std::string dir = kSourceDir + "/tests/data/malformed/targets";
    const auto r = resolveTarget("negative-size.yaml", dir);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.errorText().find("negative-size.yaml:11:11: error: memory[1].size: expected a positive size in "
                                 "bytes, got '-4'"),
              std::string::npos)
        << r.errorText();
}

TEST(LoadBuiltinTarget, UnknownNameListsTheBuiltins)
{
    const auto r = loadBuiltinTarget("tpu");
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.errorText(), "error: unknown built-in target 'tpu'; built-in targets: cortex-m4, cortex-m7, "
                             "gemmini-16x16");
}

TEST(LoadTargetFile, MissingFileNamesThePath)
{
    const auto r = loadTargetFile("/nonexistent/dir/target.yaml");
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.errorText(), "/nonexistent/dir/target.yaml: error: cannot read the target file: No such file or directory");
}

TEST(LoadTargetFile, DirectoryIsRejected)
{
    const auto r = loadTargetFile(kSourceDir + "/hwdesc/targets");
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.errorText().find("is a directory"), std::string::npos) << r.errorText();
}

// ---------------------------------------------------------------------------------------------
// The schema: defaults, sizes, and every error with its exact location

TEST(TargetSchema, MinimalTargetGetsTheDocumentedDefaults)
{
    const auto r = parseTarget(kMinimal, "tiny.yaml");
    ASSERT_TRUE(r.ok()) << r.errorText();
    const Target& t = *r;
    EXPECT_EQ(t.name, "tiny");
    EXPECT_EQ(t.kind, "mcu");
    EXPECT_EQ(t.description, "");
    EXPECT_EQ(t.path, "tiny.yaml");
    EXPECT_EQ(t.compute.simdLanes, 1);
    EXPECT_FALSE(t.compute.dsp);
    EXPECT_FALSE(t.compute.fpu);
    EXPECT_EQ(t.compute.registers, 8);
    EXPECT_EQ(t.compute.energyPjPerMac, 0);
    EXPECT_FALSE(t.compute.peArray.has_value());
    ASSERT_EQ(t.levels.size(), 2u);
    EXPECT_EQ(t.levels[1].latencyCycles, 0);
    EXPECT_EQ(t.levels[1].energyPjPerByte, 0);
    EXPECT_EQ(t.levels[1].bufferCount, 1);
    EXPECT_FALSE(t.levels[1].dma);
    EXPECT_EQ(t.levels[0].loc.str(), "tiny.yaml:6:5");
    EXPECT_EQ(t.levels[1].loc.str(), "tiny.yaml:9:5");
    EXPECT_EQ(t.constraints.maxTileSize, 0);
    EXPECT_EQ(t.constraints.alignmentBytes, 1);
    EXPECT_EQ(t.loopOverheadCycles, 0);
}

struct SizeCase {
    const char* text;
    int64_t bytes;  ///< 0 = must be rejected
};

class SizeValues : public ::testing::TestWithParam<SizeCase> {};

TEST_P(SizeValues, ParseOrReject)
{
    const SizeCase c = GetParam();
    const auto r = parseTarget(replaced(kMinimal, "size: 512 KiB", std::string("size: ") + c.text), "s.yaml");
    if (c.bytes > 0) {
        ASSERT_TRUE(r.ok()) << c.text << ": " << r.errorText();
        EXPECT_EQ(r->levels[1].sizeBytes, c.bytes) << c.text;
    } else {
        ASSERT_FALSE(r.ok()) << c.text;
        expectLocatedErrors(r, "s.yaml", c.text);
        EXPECT_EQ(r.errors().size(), 1u) << r.errorText();
        // An empty value is reported at its key; yaml-cpp marks it at the next token.
        EXPECT_EQ(r.errors()[0].loc.str(), std::string(c.text) == "~" ? "s.yaml:10:5" : "s.yaml:10:11")
            << r.errorText();
        EXPECT_EQ(r.errors()[0].message.rfind("memory[1].size: ", 0), 0u) << r.errorText();
    }
}

INSTANTIATE_TEST_SUITE_P(
    Sizes, SizeValues,
    ::testing::Values(SizeCase{"524288", 524288}, SizeCase{"512 KiB", 512 * KiB}, SizeCase{"512KiB", 512 * KiB},
                      SizeCase{"\"512 KiB\"", 512 * KiB}, SizeCase{"8 MiB", 8 * MiB}, SizeCase{"1 GiB", 1024 * MiB},
                      SizeCase{"2 kib", 2 * KiB}, SizeCase{"64 B", 64}, SizeCase{"1.5 KiB", 1536},
                      SizeCase{"0x40000", 0x40000}, SizeCase{"0x1F", 31}, SizeCase{"+0x1F", 31}, SizeCase{"+16", 16}, SizeCase{"1e3", 1000},
                      SizeCase{"-4", 0}, SizeCase{"0", 0}, SizeCase{"0 KiB", 0}, SizeCase{"-1 MiB", 0},
                      SizeCase{"512 KB", 0}, SizeCase{"8 MB", 0}, SizeCase{"1 k", 0}, SizeCase{"1.5", 0},
                      SizeCase{"0.5 B", 0}, SizeCase{"lots", 0}, SizeCase{"KiB", 0}, SizeCase{"12 parsecs", 0},
                      SizeCase{"999999999 GiB", 0}, SizeCase{"99999999999999999999", 0}, SizeCase{"nan", 0},
                      SizeCase{"inf KiB", 0}, SizeCase{"[1, 2]", 0}, SizeCase{"{a: 1}", 0}, SizeCase{"~", 0},
                      SizeCase{"\"\"", 0}));

/// One defect in kMinimal and the one, complete diagnostic it must produce.
struct ErrorCase {
    const char* label;
    const char* from;   ///< text in kMinimal to replace (the whole text if empty)
    const char* to;
    const char* expected;  ///< the complete errorText()
};

class SchemaErrors : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(SchemaErrors, ExactMessageAndLocation)
{
    const ErrorCase c = GetParam();
    const std::string text = std::string(c.from).empty() ? std::string(c.to) : replaced(kMinimal, c.from, c.to);
    const auto r = parseTarget(text, "cortex-m7.yaml");
    ASSERT_FALSE(r.ok()) << c.label;
    expectLocatedErrors(r, "cortex-m7.yaml", c.label);
    EXPECT_EQ(r.errorText(), c.expected) << c.label << "\n--- text:\n" << text;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, SchemaErrors,
    ::testing::Values(
        ErrorCase{"syntax", "{int8: 2}", "{int8: 2",
                  "cortex-m7.yaml:5:7: error: YAML syntax error: end of map flow not found"},
        ErrorCase{"syntax_tab_indent", "  - name: SRAM\n", "  - name: SRAM\n\t",
                  "cortex-m7.yaml:10:1: error: YAML syntax error: illegal tab when looking for indentation"},
        ErrorCase{"unknown_top_key", "clock_mhz: 100", "clock_mhz: 100\nclock: 3",
                  "cortex-m7.yaml:3:1: error: clock: unknown key 'clock' (did you mean 'clock_mhz'?); allowed keys "
                  "at top level: name, kind, description, clock_mhz, compute, memory, constraints, "
                  "loop_overhead_cycles, issue, calibration"},
        ErrorCase{"unknown_level_key", "    size: 512 KiB", "    size: 512 KiB\n    speed: 3",
                  "cortex-m7.yaml:11:5: error: memory[1].speed: unknown key 'speed'; allowed keys in memory[1]: name, "
                  "size, bandwidth_bytes_per_cycle, latency_cycles, energy_pj_per_byte, buffer_count, dma, banks, row_bytes"},
        ErrorCase{"unknown_compute_key", "  macs_per_cycle", "  simd_lane: 4\n  macs_per_cycle",
                  "cortex-m7.yaml:4:3: error: compute.simd_lane: unknown key 'simd_lane' (did you mean "
                  "'simd_lanes'?); allowed keys in compute: macs_per_cycle, simd_lanes, dsp, fpu, registers, "
                  "energy_pj_per_mac, pe_array, cores"},
        ErrorCase{"non_scalar_key", "clock_mhz: 100", "clock_mhz: 100\n[a, b]: 1",
                  "cortex-m7.yaml:3:1: error: top level: keys must be plain names, got a sequence as a key"},
        ErrorCase{"duplicate_key", "clock_mhz: 100", "clock_mhz: 100\nclock_mhz: 200",
                  "cortex-m7.yaml:3:1: error: clock_mhz: duplicate key (first given on line 2)"},
        ErrorCase{"clock_not_number", "clock_mhz: 100", "clock_mhz: fast",
                  "cortex-m7.yaml:2:12: error: clock_mhz: expected a number, got 'fast'"},
        ErrorCase{"clock_quoted", "clock_mhz: 100", "clock_mhz: \"100\"",
                  "cortex-m7.yaml:2:12: error: clock_mhz: expected a number, got the quoted string '100'"},
        ErrorCase{"clock_zero", "clock_mhz: 100", "clock_mhz: 0",
                  "cortex-m7.yaml:2:12: error: clock_mhz: expected a number > 0, got '0'"},
        ErrorCase{"clock_empty", "clock_mhz: 100", "clock_mhz:",
                  "cortex-m7.yaml:2:1: error: clock_mhz: expected a number, got nothing"},
        ErrorCase{"name_list", "name: tiny", "name: [a]",
                  "cortex-m7.yaml:1:7: error: name: expected a non-empty string, got a sequence"},
        ErrorCase{"name_chars", "name: tiny", "name: tiny target",
                  "cortex-m7.yaml:1:7: error: name: expected letters, digits, '-', '_' or '.', got 'tiny target'"},
        ErrorCase{"kind_unknown", "name: tiny", "name: tiny\nkind: gpu",
                  "cortex-m7.yaml:2:7: error: kind: expected one of mcu, accelerator, got 'gpu'"},
        ErrorCase{"compute_not_map", "compute:\n  macs_per_cycle: {int8: 2}", "compute: 3",
                  "cortex-m7.yaml:3:10: error: compute: expected a mapping, got '3'"},
        ErrorCase{"macs_missing", "macs_per_cycle: {int8: 2}", "simd_lanes: 4",
                  "cortex-m7.yaml:3:1: error: compute.macs_per_cycle: required field is missing"},
        ErrorCase{"macs_empty", "{int8: 2}", "{}",
                  "cortex-m7.yaml:4:19: error: compute.macs_per_cycle: expected at least one dtype (int8, int16, "
                  "int32, float32)"},
        ErrorCase{"macs_zero", "{int8: 2}", "{int8: 0}",
                  "cortex-m7.yaml:4:26: error: compute.macs_per_cycle.int8: expected a number > 0 (leave the dtype "
                  "out if the target has no unit for it), got '0'"},
        ErrorCase{"macs_unknown_dtype", "{int8: 2}", "{int8: 2, bfloat16: 4}",
                  "cortex-m7.yaml:4:29: error: compute.macs_per_cycle.bfloat16: unknown dtype 'bfloat16'; allowed "
                  "dtypes in compute.macs_per_cycle: int8, int16, int32, float32"},
        ErrorCase{"simd_zero", "{int8: 2}", "{int8: 2}\n  simd_lanes: 0",
                  "cortex-m7.yaml:5:15: error: compute.simd_lanes: expected an integer >= 1, got '0'"},
        ErrorCase{"registers_huge", "{int8: 2}", "{int8: 2}\n  registers: 99999999999",
                  "cortex-m7.yaml:5:14: error: compute.registers: expected an integer <= 1048576, got "
                  "'99999999999'"},
        ErrorCase{"dsp_not_bool", "{int8: 2}", "{int8: 2}\n  dsp: 1",
                  "cortex-m7.yaml:5:8: error: compute.dsp: expected true or false, got '1'"},
        ErrorCase{"energy_negative", "{int8: 2}", "{int8: 2}\n  energy_pj_per_mac: -1",
                  "cortex-m7.yaml:5:22: error: compute.energy_pj_per_mac: expected a number >= 0, got '-1'"},
        ErrorCase{"pe_rows_zero", "{int8: 2}", "{int8: 2}\n  pe_array: {rows: 0, cols: 4, dataflows: [weight_stationary]}",
                  "cortex-m7.yaml:5:20: error: compute.pe_array.rows: expected an integer >= 1, got '0'"},
        ErrorCase{"pe_cols_negative", "{int8: 2}",
                  "{int8: 2}\n  pe_array:\n    rows: 4\n    cols: -4\n    dataflows: [output_stationary]",
                  "cortex-m7.yaml:7:11: error: compute.pe_array.cols: expected an integer >= 1, got '-4'"},
        ErrorCase{"pe_missing_dataflows", "{int8: 2}", "{int8: 2}\n  pe_array: {rows: 4, cols: 4}",
                  "cortex-m7.yaml:5:3: error: compute.pe_array.dataflows: required field is missing"},
        ErrorCase{"pe_empty_dataflows", "{int8: 2}", "{int8: 2}\n  pe_array: {rows: 4, cols: 4, dataflows: []}",
                  "cortex-m7.yaml:5:43: error: compute.pe_array.dataflows: expected a non-empty list of dataflows "
                  "(weight_stationary, output_stationary), got an empty sequence"},
        ErrorCase{"pe_unknown_dataflow", "{int8: 2}",
                  "{int8: 2}\n  pe_array: {rows: 4, cols: 4, dataflows: [weight_stationery]}",
                  "cortex-m7.yaml:5:44: error: compute.pe_array.dataflows[0]: unknown dataflow 'weight_stationery' "
                  "(did you mean 'weight_stationary'?); allowed: weight_stationary, output_stationary"},
        ErrorCase{"pe_duplicate_dataflow", "{int8: 2}",
                  "{int8: 2}\n  pe_array: {rows: 4, cols: 4, dataflows: [output_stationary, output_stationary]}",
                  "cortex-m7.yaml:5:63: error: compute.pe_array.dataflows[1]: dataflow 'output_stationary' is "
                  "listed twice"},
        ErrorCase{"pe_compute_cycles_zero", "{int8: 2}",
                  "{int8: 2}\n  pe_array: {rows: 4, cols: 4, dataflows: [weight_stationary], compute_cycles: 0}",
                  "cortex-m7.yaml:5:80: error: compute.pe_array.compute_cycles: expected an integer >= 1, got '0'"},
        ErrorCase{"pe_host_cycles_negative", "{int8: 2}",
                  "{int8: 2}\n  pe_array: {rows: 4, cols: 4, dataflows: [weight_stationary], host_requantize_cycles: -2}",
                  "cortex-m7.yaml:5:88: error: compute.pe_array.host_requantize_cycles: expected a number >= 0, got '-2'"},
        ErrorCase{"row_bytes_not_dividing", "    size: 512 KiB", "    size: 512 KiB\n    row_bytes: 48",
                  "cortex-m7.yaml:11:16: error: memory[1].row_bytes: expected a row size that divides the level into whole rows, the same number in "
                  "each of its 1 banks; 524288 bytes do not split into rows of '48' bytes"},
        ErrorCase{"banks_zero", "    size: 512 KiB", "    size: 512 KiB\n    banks: 0",
                  "cortex-m7.yaml:11:12: error: memory[1].banks: expected an integer >= 1, got '0'"},
        ErrorCase{"macs_beat_pe_array", "{int8: 2}",
                  "{int8: 17}\n  pe_array: {rows: 4, cols: 4, dataflows: [weight_stationary]}",
                  "cortex-m7.yaml:4:26: error: compute.macs_per_cycle.int8: exceeds the 4x4 PE array (at most 16 "
                  "MACs per cycle), got '17'"},
        ErrorCase{"memory_missing", "memory:", "memories:",
                  "cortex-m7.yaml:1:1: error: memory: required field is missing (list the memory levels, outermost "
                  "first)\n"
                  "cortex-m7.yaml:5:1: error: memories: unknown key 'memories'; allowed keys "
                  "at top level: name, kind, description, clock_mhz, compute, memory, constraints, "
                  "loop_overhead_cycles, issue, calibration"},
        ErrorCase{"memory_empty", "", "name: t\nclock_mhz: 1\ncompute: {macs_per_cycle: {int8: 1}}\nmemory: []\n",
                  "cortex-m7.yaml:4:9: error: memory: expected a list of at least one memory level (outermost first), "
                  "got an empty sequence"},
        ErrorCase{"memory_scalar", "", "name: t\nclock_mhz: 1\ncompute: {macs_per_cycle: {int8: 1}}\nmemory: SRAM\n",
                  "cortex-m7.yaml:4:9: error: memory: expected a list of at least one memory level (outermost first), "
                  "got 'SRAM'"},
        ErrorCase{"level_not_map", "  - name: SRAM\n    size: 512 KiB\n    bandwidth_bytes_per_cycle: 4\n",
                  "  - SRAM\n",
                  "cortex-m7.yaml:9:5: error: memory[1]: expected a mapping (name, size, bandwidth_bytes_per_cycle, "
                  "...), got 'SRAM'"},
        ErrorCase{"level_duplicate_name", "  - name: SRAM", "  - name: DRAM",
                  "cortex-m7.yaml:9:11: error: memory[1].name: duplicate level name 'DRAM' (also memory[0])"},
        ErrorCase{"level_bad_name", "  - name: SRAM", "  - name: L1 cache",
                  "cortex-m7.yaml:9:11: error: memory[1].name: expected a name of letters, digits and '_' (not "
                  "starting with a digit), got 'L1 cache'"},
        ErrorCase{"level_missing_name", "  - name: SRAM\n    size", "  - size",
                  "cortex-m7.yaml:9:5: error: memory[1].name: required field is missing"},
        ErrorCase{"level_negative_size", "size: 512 KiB", "size: -4",
                  "cortex-m7.yaml:10:11: error: memory[1].size: expected a positive size in bytes, got '-4'"},
        ErrorCase{"level_missing_size", "    size: 512 KiB\n", "",
                  "cortex-m7.yaml:9:5: error: memory[1].size: required field is missing"},
        ErrorCase{"level_zero_bandwidth", "bandwidth_bytes_per_cycle: 4", "bandwidth_bytes_per_cycle: 0",
                  "cortex-m7.yaml:11:32: error: memory[1].bandwidth_bytes_per_cycle: expected a number > 0, got '0'"},
        ErrorCase{"level_negative_bandwidth", "bandwidth_bytes_per_cycle: 1", "bandwidth_bytes_per_cycle: -1",
                  "cortex-m7.yaml:8:32: error: memory[0].bandwidth_bytes_per_cycle: expected a number > 0, got '-1'"},
        ErrorCase{"level_missing_bandwidth", "    bandwidth_bytes_per_cycle: 4\n", "",
                  "cortex-m7.yaml:9:5: error: memory[1].bandwidth_bytes_per_cycle: required field is missing"},
        ErrorCase{"level_latency_fraction", "bandwidth_bytes_per_cycle: 4", "bandwidth_bytes_per_cycle: 4\n    latency_cycles: 2.5",
                  "cortex-m7.yaml:12:21: error: memory[1].latency_cycles: expected an integer, got '2.5'"},
        ErrorCase{"level_energy_negative", "bandwidth_bytes_per_cycle: 4", "bandwidth_bytes_per_cycle: 4\n    energy_pj_per_byte: -3",
                  "cortex-m7.yaml:12:25: error: memory[1].energy_pj_per_byte: expected a number >= 0, got '-3'"},
        ErrorCase{"level_buffer_count_zero", "bandwidth_bytes_per_cycle: 4", "bandwidth_bytes_per_cycle: 4\n    buffer_count: 0",
                  "cortex-m7.yaml:12:19: error: memory[1].buffer_count: expected an integer >= 1, got '0'"},
        ErrorCase{"level_dma_string", "bandwidth_bytes_per_cycle: 4", "bandwidth_bytes_per_cycle: 4\n    dma: \"true\"",
                  "cortex-m7.yaml:12:10: error: memory[1].dma: expected true or false, got the quoted string 'true'"},
        ErrorCase{"constraints_not_map", "name: tiny", "name: tiny\nconstraints: [1]",
                  "cortex-m7.yaml:2:14: error: constraints: expected a mapping, got a sequence"},
        ErrorCase{"alignment_not_power_of_two", "name: tiny", "name: tiny\nconstraints: {alignment_bytes: 12}",
                  "cortex-m7.yaml:2:32: error: constraints.alignment_bytes: expected a power of two, got '12'"},
        ErrorCase{"max_tile_negative", "name: tiny", "name: tiny\nconstraints: {max_tile_size: -8}",
                  "cortex-m7.yaml:2:30: error: constraints.max_tile_size: expected an integer >= 0, got '-8'"},
        ErrorCase{"loop_overhead_negative", "name: tiny", "name: tiny\nloop_overhead_cycles: -2",
                  "cortex-m7.yaml:2:23: error: loop_overhead_cycles: expected a number >= 0, got '-2'"},
        ErrorCase{"not_a_mapping", "", "- 1\n- 2\n",
                  "cortex-m7.yaml:1:1: error: not a target file: expected a mapping of target fields (name, clock_mhz, "
                  "compute, memory, ...)"},
        ErrorCase{"empty", "", "",
                  "cortex-m7.yaml:1:1: error: the file is empty; expected a target mapping with name, clock_mhz, "
                  "compute and memory"},
        ErrorCase{"comments_only", "", "# nothing here\n",
                  "cortex-m7.yaml:1:1: error: the file is empty; expected a target mapping with name, clock_mhz, "
                  "compute and memory"},
        ErrorCase{"two_documents", "", "name: a\n---\nname: b\n",
                  "cortex-m7.yaml:2:1: error: a target file holds one YAML document; a second one starts here"},
        // yaml-cpp 0.7's LoadAll loops forever, allocating, on a stray ',' (jbeder/yaml-cpp#1040).
        ErrorCase{"stray_comma", "", ",\n", "cortex-m7.yaml:1:1: error: YAML syntax error: unexpected ','"},
        ErrorCase{"stray_comma_after_comment", "", "# header\n, 8\n",
                  "cortex-m7.yaml:2:1: error: YAML syntax error: unexpected ','"},
        ErrorCase{"stray_comma_in_target", "bandwidth_bytes_per_cycle: 1\n", "bandwidth_bytes_per_cycle: 1\n,\n",
                  "cortex-m7.yaml:9:1: error: YAML syntax error: end of map not found"}),
    [](const auto& info) { return std::string(info.param.label); });

TEST(TargetSchema, SeveralErrorsAreReportedTogetherInFileOrder)
{
    const std::string text = "name: multi\n"                              // 1
                             "clock_mhz: -1\n"                            // 2
                             "compute:\n"                                 // 3
                             "  macs_per_cycle: {int8: 2}\n"              // 4
                             "  dsp: maybe\n"                             // 5
                             "memory:\n"                                  // 6
                             "  - name: DRAM\n"                           // 7
                             "    size: -4\n"                             // 8
                             "    bandwidth_bytes_per_cycle: 0\n"         // 9
                             "  - name: DRAM\n"                           // 10
                             "    size: 1 KiB\n"                          // 11
                             "    bandwidth_bytes_per_cycle: 1\n"         // 12
                             "    buffer_count: 0\n";                     // 13
    const auto r = parseTarget(text, "multi.yaml");
    ASSERT_FALSE(r.ok());
    expectLocatedErrors(r, "multi.yaml", "multi");
    std::vector<std::string> where;
    for (const auto& d : r.errors())
        where.push_back(d.loc.str() + " " + d.message.substr(0, d.message.find(':')));
    EXPECT_EQ(where, (std::vector<std::string>{
                         "multi.yaml:2:12 clock_mhz",
                         "multi.yaml:5:8 compute.dsp",
                         "multi.yaml:8:11 memory[0].size",
                         "multi.yaml:9:32 memory[0].bandwidth_bytes_per_cycle",
                         "multi.yaml:10:11 memory[1].name",
                         "multi.yaml:13:19 memory[1].buffer_count",
                     }))
        << r.errorText();
}

TEST(TargetSchema, SelfReferentialAnchorsAreRejectedNotFollowed)
{
    const std::string text = "name: loop\nclock_mhz: 1\n"
                             "compute: &c {macs_per_cycle: {int8: 1}, pe_array: *c}\n"
                             "memory: &m [*m]\n";
    const auto r = parseTarget(text, "loop.yaml");
    expectLocatedErrors(r, "loop.yaml", "anchors");
    EXPECT_NE(r.errorText().find("memory[0]: expected a mapping"), std::string::npos) << r.errorText();
    EXPECT_NE(r.errorText().find("compute.pe_array.pe_array: unknown key"), std::string::npos) << r.errorText();
}

TEST(TargetSchema, DeepNestingIsAnErrorNotACrash)
{
    for (const char* open : {"[", "{a: ", "- "}) {
        std::string text = "name: ";
        for (int i = 0; i < 5000; ++i)
            text += open;
        const auto r = parseTarget(text, "deep.yaml");
        expectLocatedErrors(r, "deep.yaml", open);
    }
}

// ---------------------------------------------------------------------------------------------
// tests/data/malformed/targets: each file's first line is "# expect: <substring of the error>"

TEST(MalformedTargetFiles, EachProducesItsExpectedLocatedError)
{
    const fs::path dir = fs::path(kSourceDir) / "tests/data/malformed/targets";
    ASSERT_TRUE(fs::is_directory(dir)) << dir;
    const std::regex located(R"(^:\d+:\d+: error: .+)");
    int count = 0;
    for (const auto& entry : fs::directory_iterator(dir)) {
        if (entry.path().extension() != ".yaml")
            continue;
        ++count;
        const std::string text = readFile(entry.path());
        const std::string header = text.substr(0, text.find('\n'));
        const std::string prefix = "# expect: ";
        ASSERT_EQ(header.rfind(prefix, 0), 0u) << entry.path() << " does not start with '# expect: '";
        const std::string expected = header.substr(prefix.size());
        EXPECT_TRUE(std::regex_match(expected, located)) << entry.path() << ": '" << expected << "'";

        const auto r = loadTargetFile(entry.path().string());
        ASSERT_FALSE(r.ok()) << entry.path() << " loaded without error";
        expectLocatedErrors(r, entry.path().string(), entry.path().filename().string());
        EXPECT_NE(r.errorText().find(entry.path().filename().string() + expected), std::string::npos)
            << "expected: " << expected << "\ngot:\n"
            << r.errorText();
    }
    EXPECT_GE(count, 30);
}

// ---------------------------------------------------------------------------------------------
// Property: no input crashes the loader; each result is a valid target or located errors.

namespace {

void checkAnyInput(const std::string& text, const std::string& context)
{
    const std::string path = "hwdesc/targets/fuzz.yaml";
    Result<Target> r = Diagnostic{};
    ASSERT_NO_THROW(r = parseTarget(text, path)) << context;
    if (r.ok()) {
        expectValidTarget(*r, context);
    } else {
        expectLocatedErrors(r, path, context);
        // parseTarget turns stray exceptions (bad_alloc from a runaway parser) into "internal error".
        EXPECT_EQ(r.errorText().find("internal error"), std::string::npos) << context << "\n" << r.errorText();
    }
}

std::vector<std::string> splitLines(const std::string& text)
{
    std::vector<std::string> lines;
    std::string line;
    std::istringstream in(text);
    while (std::getline(in, line))
        lines.push_back(line);
    return lines;
}

std::string joinLines(const std::vector<std::string>& lines)
{
    std::string out;
    for (const auto& l : lines)
        out += l + "\n";
    return out;
}

} // namespace

class MutatedBuiltin : public ::testing::TestWithParam<std::string> {
protected:
#if defined(LOOPSCOPE_HAS_RLIMIT) && !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
    // A parser that allocates without bound (yaml-cpp 0.7's LoadAll on a stray ',' did) must fail
    // this test with bad_alloc, not exhaust the machine. Sanitizers reserve huge address ranges,
    // so they run without the cap.
    static void SetUpTestSuite()
    {
        if (getrlimit(RLIMIT_AS, &s_saved) != 0)
            return;
        s_capped = true;
        rlimit capped = s_saved;
        const rlim_t cap = rlim_t(4) << 30;
        if (capped.rlim_cur == RLIM_INFINITY || capped.rlim_cur > cap) {
            capped.rlim_cur = cap;
            setrlimit(RLIMIT_AS, &capped);
        }
    }
    static void TearDownTestSuite()
    {
        if (s_capped)
            setrlimit(RLIMIT_AS, &s_saved);
    }
    static inline rlimit s_saved{};
    static inline bool s_capped = false;
#endif
};

TEST_P(MutatedBuiltin, EveryTruncationIsHandled)
{
    const std::string text = builtinText(GetParam());
    ASSERT_FALSE(text.empty());
    for (size_t n = 0; n <= text.size(); ++n) {
        checkAnyInput(text.substr(0, n), GetParam() + " truncated at " + std::to_string(n));
        if (HasFailure())
            return;
    }
}

TEST_P(MutatedBuiltin, LineDeletionsDuplicationsAndReindentsAreHandled)
{
    const auto lines = splitLines(builtinText(GetParam()));
    int accepted = 0;
    for (size_t i = 0; i < lines.size(); ++i) {
        auto dropped = lines;
        dropped.erase(dropped.begin() + i);
        checkAnyInput(joinLines(dropped), GetParam() + " without line " + std::to_string(i + 1));

        auto doubled = lines;
        doubled.insert(doubled.begin() + i, lines[i]);
        checkAnyInput(joinLines(doubled), GetParam() + " with line " + std::to_string(i + 1) + " twice");

        for (const char* indent : {" ", "  ", "\t", "- "}) {
            auto shifted = lines;
            shifted[i] = indent + shifted[i];
            checkAnyInput(joinLines(shifted), GetParam() + " line " + std::to_string(i + 1) + " indented");
        }
        auto dedented = lines;
        dedented[i].erase(0, dedented[i].find_first_not_of(' '));
        const auto r = parseTarget(joinLines(dedented), "x.yaml");
        accepted += r.ok();
        checkAnyInput(joinLines(dedented), GetParam() + " line " + std::to_string(i + 1) + " dedented");
        if (HasFailure())
            return;
    }
    // Comment and blank lines survive dedenting, so some variants must still load.
    EXPECT_GT(accepted, 0);
}

TEST_P(MutatedBuiltin, RandomByteEditsAreHandled)
{
    const std::string text = builtinText(GetParam());
    // YAML-significant characters, digits, signs and junk: the edits most likely to reach odd paths.
    const std::string alphabet = ":-[]{},#&*!|>'\"%@`?\t\r\n 0123456789.+-eExKMGiB~\\\x01\xff";
    std::mt19937 rng(12345);  // fixed seed: failures must reproduce
    for (int round = 0; round < 3000; ++round) {
        std::string mutated = text;
        const int edits = 1 + static_cast<int>(rng() % 4);
        for (int e = 0; e < edits && !mutated.empty(); ++e) {
            const size_t at = rng() % mutated.size();
            switch (rng() % 4) {
            case 0: mutated[at] = alphabet[rng() % alphabet.size()]; break;
            case 1: mutated.insert(mutated.begin() + at, alphabet[rng() % alphabet.size()]); break;
            case 2: mutated.erase(at, 1 + rng() % 8); break;
            default: mutated.insert(at, mutated.substr(rng() % mutated.size(), 1 + rng() % 24)); break;
            }
        }
        checkAnyInput(mutated, GetParam() + " random round " + std::to_string(round));
        if (HasFailure())
            return;
    }
}

INSTANTIATE_TEST_SUITE_P(Targets, MutatedBuiltin, ::testing::Values("cortex-m4", "cortex-m7", "gemmini-16x16"),
                         [](const auto& info) {
                             std::string s = info.param;
                             std::replace(s.begin(), s.end(), '-', '_');
                             return s;
                         });

// ---------------------------------------------------------------------------------------------
// calibration: the instruction model's coefficients (written by loopscope-cli calibrate)

TEST(Calibration, SectionGivesTheCoefficientsAndWhatTheyWereFittedFor)
{
    const std::string text = std::string(kMinimal) +
                             "calibration:\n"
                             "  compiler: \"arm-none-eabi-gcc 12.2.1, -O2 -mcpu=cortex-m7\"\n"
                             "  emulator: \"QEMU 7.2, mps2-an500\"\n"
                             "  date: 2026-12-01\n"
                             "  schedules: 166\n"
                             "  coefficients:\n"
                             "    load: 0.921\n"
                             "    loop_iteration: 2.006\n";
    const auto r = parseTarget(text, "cal.yaml");
    ASSERT_TRUE(r.ok()) << r.errorText();
    EXPECT_EQ(r->calibration.compiler, "arm-none-eabi-gcc 12.2.1, -O2 -mcpu=cortex-m7");
    EXPECT_EQ(r->calibration.schedules, 166);
    EXPECT_EQ(r->calibration.coefficients.size(), 2u);
    EXPECT_DOUBLE_EQ(r->calibration.coefficients.at("load"), 0.921);
    EXPECT_EQ(r->calibration.loc.line, 12);
}

TEST(Calibration, UnknownOrNegativeCoefficientsAreLocatedErrors)
{
    const std::string base = std::string(kMinimal) + "calibration:\n  coefficients:\n    load: 1\n";
    const auto unknown = parseTarget(replaced(base, "    load: 1", "    loads: 1"), "cal.yaml");
    expectLocatedErrors(unknown, "cal.yaml", "unknown coefficient");
    EXPECT_NE(unknown.errorText().find("did you mean 'load'"), std::string::npos) << unknown.errorText();
    EXPECT_NE(unknown.errorText().find("cal.yaml:14:5"), std::string::npos) << unknown.errorText();
    const auto negative = parseTarget(replaced(base, "load: 1", "load: -0.5"), "cal.yaml");
    expectLocatedErrors(negative, "cal.yaml", "negative coefficient");
    EXPECT_NE(negative.errorText().find("calibration.coefficients.load"), std::string::npos) << negative.errorText();
    // The copies are counted exactly (newlib's memcpy): they take no coefficient.
    expectLocatedErrors(parseTarget(replaced(base, "load: 1", "memcpy: 1"), "cal.yaml"), "cal.yaml", "copy feature");
}

// ---------------------------------------------------------------------------------------------
// issue: how a CPU target's instructions become cycles (docs/cost-model.md, "Cycles from instructions")

TEST(IssueSection, GivesThePipelineFiguresAndDefaultsTheRest)
{
    const std::string text = std::string(kMinimal) +
                             "issue:\n"
                             "  width: 2\n"
                             "  memory_cycles: 1.5\n"
                             "  loop_exit_cycles: 4\n";
    const auto r = parseTarget(text, "issue.yaml");
    ASSERT_TRUE(r.ok()) << r.errorText();
    EXPECT_TRUE(r->issue.present);
    EXPECT_DOUBLE_EQ(r->issue.width, 2);
    EXPECT_DOUBLE_EQ(r->issue.memoryCycles, 1.5);
    EXPECT_DOUBLE_EQ(r->issue.loopExitCycles, 4);
    EXPECT_DOUBLE_EQ(r->issue.macCycles, 1);
    EXPECT_DOUBLE_EQ(r->issue.takenBranchCycles, 0);
    EXPECT_FALSE(parseTarget(kMinimal, "plain.yaml")->issue.present);
}

TEST(IssueSection, TheShippedCpuTargetsStateTheirPipelines)
{
    const auto m7 = loadBuiltinTarget("cortex-m7");
    const auto m4 = loadBuiltinTarget("cortex-m4");
    ASSERT_TRUE(m7.ok() && m4.ok());
    EXPECT_TRUE(m7->issue.present);
    EXPECT_DOUBLE_EQ(m7->issue.width, 2);     // dual issue
    EXPECT_DOUBLE_EQ(m4->issue.width, 1);     // single issue
    EXPECT_GT(m4->issue.takenBranchCycles, m7->issue.takenBranchCycles);  // no branch predictor on the M4
    EXPECT_FALSE(loadBuiltinTarget("gemmini-16x16")->issue.present);
}

TEST(IssueSection, BadFiguresAndUnknownKeysAreLocatedErrors)
{
    const std::string base = std::string(kMinimal) + "issue:\n  width: 2\n";
    const auto zero = parseTarget(replaced(base, "width: 2", "width: 0"), "issue.yaml");
    expectLocatedErrors(zero, "issue.yaml", "zero width");
    EXPECT_NE(zero.errorText().find("issue.width: expected a number > 0"), std::string::npos) << zero.errorText();
    const auto negative = parseTarget(replaced(base, "width: 2", "load_use_cycles: -1"), "issue.yaml");
    expectLocatedErrors(negative, "issue.yaml", "negative stall");
    EXPECT_NE(negative.errorText().find("issue.load_use_cycles"), std::string::npos) << negative.errorText();
    const auto unknown = parseTarget(replaced(base, "width: 2", "widht: 2"), "issue.yaml");
    expectLocatedErrors(unknown, "issue.yaml", "unknown key");
    EXPECT_NE(unknown.errorText().find("did you mean 'width'"), std::string::npos) << unknown.errorText();
}

TEST(IssueSection, AnAcceleratorHasNone)
{
    std::string text = builtinText("gemmini-16x16") + "\nissue:\n  width: 2\n";
    const auto r = parseTarget(text, "g.yaml");
    expectLocatedErrors(r, "g.yaml", "issue on an accelerator");
    EXPECT_NE(r.errorText().find("only a CPU target"), std::string::npos) << r.errorText();
}
