// The export harness's support files (harnessSupportFiles): the file list and the kernel name
// substitution, then the files at work: with the hand-written smoke kernel of
// tests/codegen/harness_smoke, tests/codegen/run_harness.sh must build and run them on the
// host, the Cortex-M7, M4 and M3 (qemu) with GCC and on the host and the Cortex-M7 with clang,
// with identical checksum lines; a main.c that returns 1 must fail on all six; and the
// qemu instruction count must be deterministic and agree with qemu's execution trace.
#include "support/test_paths.h"

#include "analysis/instructions.h"
#include "codegen/generated_file.h"
#include "codegen/harness_files.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

using loopscope::codegen::GeneratedFile;
using loopscope::codegen::harnessKernelNameError;
using loopscope::codegen::harnessSupportFiles;
namespace fs = std::filesystem;

namespace {

void writeBytes(const fs::path& p, const std::string& text)
{
    fs::create_directories(p.parent_path());
    std::ofstream out(p, std::ios::binary);
    out << text;
    ASSERT_TRUE(out.good()) << "cannot write " << p;
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

const GeneratedFile* findFile(const std::vector<GeneratedFile>& files, const std::string& path)
{
    for (const auto& f : files)
        if (f.path == path)
            return &f;
    return nullptr;
}

struct CommandRun {
    int exitCode = -1;
    std::string output; // stdout and stderr
};

/// Runs a shell command with stdin from /dev/null, stdout and stderr captured to a file.
CommandRun runShell(const std::string& command, const fs::path& outputFile)
{
    std::string full = "( " + command + " ) </dev/null >" + shellQuote(outputFile.string()) + " 2>&1";
    int raw = std::system(full.c_str());
    CommandRun r;
    r.exitCode = (raw != -1 && WIFEXITED(raw)) ? WEXITSTATUS(raw) : -1;
    r.output = loopscope::test::readText(outputFile);
    return r;
}

/// A fresh export directory: harnessSupportFiles("smoke") plus the smoke kernel and main.c.
/// Removed at the end of the test unless the test failed (then its path is printed).
class HarnessDir {
public:
    HarnessDir()
    {
        std::string templ = (fs::temp_directory_path() / "loopscope_harness_XXXXXX").string();
        std::vector<char> buf(templ.begin(), templ.end());
        buf.push_back('\0');
        if (::mkdtemp(buf.data()) == nullptr)
            throw std::runtime_error("mkdtemp failed");
        m_dir = fs::path(buf.data()) / "export";
        fs::create_directories(m_dir);

        for (const auto& f : harnessSupportFiles("smoke"))
            writeBytes(m_dir / f.path, f.text);
        const fs::path smoke = fs::path(loopscope::test::sourceDir()) / "tests/codegen/harness_smoke";
        for (const char* name : {"smoke.h", "smoke.c", "main.c"})
            fs::copy_file(smoke / name, m_dir / name);
    }

    ~HarnessDir()
    {
        if (::testing::Test::HasFailure())
            std::cerr << "kept export directory: " << m_dir << "\n";
        else
            fs::remove_all(m_dir.parent_path());
    }

    const fs::path& path() const { return m_dir; }
    /// A file next to (not inside) the export directory, for captured output.
    fs::path scratch(const std::string& name) const { return m_dir.parent_path() / name; }

    CommandRun runHarnessScript() const
    {
        const fs::path script = fs::path(loopscope::test::sourceDir()) / "tests/codegen/run_harness.sh";
        return runShell(shellQuote(script.string()) + " " + shellQuote(m_dir.string()), scratch("run_harness.txt"));
    }

    CommandRun make(const std::string& target) const
    {
        return runShell("make -s --no-print-directory -C " + shellQuote(m_dir.string()) + " " + target,
                        scratch("make-" + target + ".txt"));
    }

private:
    fs::path m_dir;
};

const std::vector<std::string> kExpectedPaths = {
    "Makefile",
    "README.md",
    "cortex-m/mps2-an386.ld",
    "cortex-m/mps2-an500.ld",
    "cortex-m/sections.ld",
    "cortex-m/startup.c",
    "qemu/insn_count.c",
};

} // namespace

TEST(HarnessFiles, FileListIsFixedAndSorted)
{
    auto files = harnessSupportFiles("smoke");
    std::vector<std::string> paths;
    for (const auto& f : files)
        paths.push_back(f.path);
    EXPECT_EQ(paths, kExpectedPaths);
    for (const auto& f : files) {
        EXPECT_FALSE(f.text.empty()) << f.path;
        EXPECT_FALSE(fs::path(f.path).is_absolute()) << f.path;
        EXPECT_EQ(f.path.find(".."), std::string::npos) << f.path;
        EXPECT_EQ(f.path.find('\\'), std::string::npos) << f.path;
    }
    // The C generator's files are not among them.
    for (const char* p : {"smoke.c", "smoke.h", "main.c"})
        EXPECT_EQ(findFile(files, p), nullptr) << p;
}

TEST(HarnessFiles, KernelNameIsSubstitutedEverywhere)
{
    auto files = harnessSupportFiles("conv2d_q8");
    for (const auto& f : files)
        EXPECT_EQ(f.text.find("@LOOPSCOPE_"), std::string::npos) << f.path << " keeps a placeholder";

    const GeneratedFile* makefile = findFile(files, "Makefile");
    ASSERT_NE(makefile, nullptr);
    EXPECT_NE(makefile->text.find("\nKERNEL := conv2d_q8\n"), std::string::npos);
    // Recipes start with a tab: the embedding kept the bytes.
    EXPECT_NE(makefile->text.find("\n\t$(HOST_CC) $(HOST_CFLAGS) -o $@ $(SRCS)"), std::string::npos);
    EXPECT_NE(makefile->text.find("-fsanitize=address,undefined -fno-sanitize-recover=all"), std::string::npos);
    EXPECT_NE(makefile->text.find("-M mps2-an500"), std::string::npos);
    EXPECT_NE(makefile->text.find("-M mps2-an386"), std::string::npos);
    EXPECT_NE(makefile->text.find("--specs=rdimon.specs"), std::string::npos);

    const GeneratedFile* sections = findFile(files, "cortex-m/sections.ld");
    ASSERT_NE(sections, nullptr);
    EXPECT_NE(sections->text.find("*/conv2d_q8.o(.text .text.*)"), std::string::npos);

    const GeneratedFile* readme = findFile(files, "README.md");
    ASSERT_NE(readme, nullptr);
    EXPECT_NE(readme->text.find("# Loopscope export: kernel `conv2d_q8`"), std::string::npos);

    // Nothing refers back to the Loopscope source tree.
    for (const auto& f : files) {
        EXPECT_EQ(f.text.find("LOOPSCOPE_SOURCE_DIR"), std::string::npos) << f.path;
        EXPECT_EQ(f.text.find("resources/firmware"), std::string::npos) << f.path;
    }

    // Deterministic, and only the kernel name differs between two kernels.
    auto again = harnessSupportFiles("conv2d_q8");
    ASSERT_EQ(again.size(), files.size());
    for (size_t i = 0; i < files.size(); ++i)
        EXPECT_EQ(again[i].text, files[i].text) << files[i].path;
}

TEST(HarnessFiles, StartupEnablesTheFpuBeforeTheCLibrary)
{
    const GeneratedFile* startup = findFile(harnessSupportFiles("k"), "cortex-m/startup.c");
    ASSERT_NE(startup, nullptr);
    const std::string& t = startup->text;
    // In the code, from the reset vector on (the file's header comment names them too).
    size_t reset = t.find("void Reset_Handler(void)\n{");
    ASSERT_NE(reset, std::string::npos);
    size_t cpacr = t.find("ldr r0, =0xE000ED88", reset);
    size_t isb = t.find("\"isb\\n\\t\"", reset);
    size_t dataCopy = t.find("*dst++ = *src++", reset);
    size_t monitor = t.find("initialise_monitor_handles();", reset);
    size_t initArray = t.find("__libc_init_array();", reset);
    size_t callMain = t.find("exit(main(", reset);
    ASSERT_NE(cpacr, std::string::npos);
    ASSERT_NE(isb, std::string::npos);
    ASSERT_NE(dataCopy, std::string::npos);
    ASSERT_NE(monitor, std::string::npos);
    ASSERT_NE(initArray, std::string::npos);
    ASSERT_NE(callMain, std::string::npos);
    EXPECT_LT(cpacr, isb);
    EXPECT_LT(isb, dataCopy);
    EXPECT_LT(dataCopy, monitor);
    EXPECT_LT(monitor, initArray);
    EXPECT_LT(initArray, callMain);
}

TEST(HarnessFiles, RejectsNamesThatCannotNameTheKernel)
{
    for (const char* bad : {"", "1conv", "conv-2d", "conv 2d", "conv.c", "int", "static", "main", "startup",
                            "../x", "caf\xc3\xa9", "_k", "printf", "memcpy", "fill_inputs", "gemmini", "ls_kernel", "size_t"}) {
        EXPECT_FALSE(harnessKernelNameError(bad).empty()) << bad;
        EXPECT_THROW(harnessSupportFiles(bad), std::invalid_argument) << bad;
    }
    for (const char* good : {"k", "matmul_f32", "Conv2D_3x3", "main2", "startup_"}) {
        EXPECT_EQ(harnessKernelNameError(good), "") << good;
        EXPECT_NO_THROW(harnessSupportFiles(good)) << good;
    }
}

TEST(HarnessFiles, SmokeKernelRunsOnHostM7AndM4WithGccAndClangWithTheSameChecksum)
{
    HarnessDir dir;
    CommandRun r = dir.runHarnessScript();
    EXPECT_EQ(r.exitCode, 0) << r.output;
    EXPECT_NE(r.output.find("run_harness: PASS"), std::string::npos) << r.output;
    for (const char* p : {"host", "m7", "m4", "m3", "host-clang", "m7-clang"}) {
        std::regex line(std::string("\n  ") + p + " +exit status 0  checksum 0x[0-9a-f]{8} mismatches 0\n");
        EXPECT_TRUE(std::regex_search(r.output, line)) << p << "\n" << r.output;
    }
    EXPECT_NE(r.output.find("checksum lines: identical on host, m7, m4, m3, host-clang, m7-clang"), std::string::npos) << r.output;
}

TEST(HarnessFiles, NonZeroExitFromMainFailsOnEveryPlatform)
{
    HarnessDir dir;
    const fs::path mainC = dir.path() / "main.c";
    std::string text = loopscope::test::readText(mainC);
    const std::string marker = "unsigned long mismatches = 0;";
    size_t at = text.find(marker);
    ASSERT_NE(at, std::string::npos) << "harness_smoke/main.c lost its marker line";
    text.replace(at, marker.size(), "unsigned long mismatches = 1;");
    writeBytes(mainC, text);

    CommandRun r = dir.runHarnessScript();
    EXPECT_EQ(r.exitCode, 1) << r.output;
    EXPECT_NE(r.output.find("run_harness: FAIL"), std::string::npos) << r.output;
    // Each platform built, ran, and reported main's status 1 (not a crash, not a timeout).
    for (const char* p : {"host", "m7", "m4", "m3", "host-clang", "m7-clang"}) {
        std::regex line(std::string("\n  ") + p + " +exit status 1  checksum 0x[0-9a-f]{8} mismatches 1\n");
        EXPECT_TRUE(std::regex_search(r.output, line)) << p << "\n" << r.output;
    }
}

TEST(HarnessFiles, InstructionCountIsDeterministicAndMatchesTheTrace)
{
    HarnessDir dir;
    const std::regex countLine("insns total=([0-9]+) kernel=([0-9]+) range=0x([0-9a-f]+)-0x([0-9a-f]+) copies=([0-9]+) dma=0x[0-9a-f]+-0x[0-9a-f]+");
    std::string first;
    for (int attempt = 0; attempt < 2; ++attempt) {
        CommandRun r = dir.make("insns-m7");
        ASSERT_EQ(r.exitCode, 0) << r.output;
        EXPECT_NE(r.output.find("mismatches 0"), std::string::npos) << r.output;
        std::smatch m;
        ASSERT_TRUE(std::regex_search(r.output, m, countLine)) << r.output;
        unsigned long long total = std::stoull(m[1].str());
        unsigned long long kernel = std::stoull(m[2].str());
        EXPECT_GT(kernel, 0u) << r.output;
        EXPECT_GT(total, kernel) << r.output;
        // The smoke kernel makes no transfers: no DMA hooks, no copies.
        EXPECT_EQ(m[5].str(), "0") << r.output;
        EXPECT_LT(std::stoull(m[3].str(), nullptr, 16), std::stoull(m[4].str(), nullptr, 16)) << r.output;
        // The smoke kernel clears its accumulators with memset once per row of the output
        // (SMOKE_M calls): library code the kernel calls counts as the kernel's (calls=), and
        // what main runs after the kernel returns does not.
        std::smatch c;
        ASSERT_TRUE(std::regex_search(r.output, c, std::regex(" calls=([0-9]+)"))) << r.output;
        const unsigned long long calls = std::stoull(c[1].str());
        EXPECT_EQ(calls, static_cast<unsigned long long>(16 * loopscope::analysis::memsetInstructions(24 * 4, 0))) << r.output;
        EXPECT_LT(calls, kernel) << r.output;
        if (attempt == 0)
            first = m[0].str();
        else
            EXPECT_EQ(m[0].str(), first) << "instruction count changed between two runs";
    }

    // The execution trace (one log line per instruction) counts the same total.
    CommandRun trace = dir.make("insns-trace-m7");
    ASSERT_EQ(trace.exitCode, 0) << trace.output;
    std::smatch t;
    ASSERT_TRUE(std::regex_search(trace.output, t, std::regex("insns-trace total=([0-9]+)"))) << trace.output;
    std::smatch m;
    ASSERT_TRUE(std::regex_search(first, m, countLine));
    EXPECT_EQ(t[1].str(), m[1].str()) << "plugin and trace disagree";

    CommandRun m4 = dir.make("insns-m4");
    ASSERT_EQ(m4.exitCode, 0) << m4.output;
    EXPECT_TRUE(std::regex_search(m4.output, countLine)) << m4.output;
}
