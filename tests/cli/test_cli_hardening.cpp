// loopscope-cli on hostile and oversized input (issue 16): every command ends with a message
// and exit 2, never an abort; kernels named main, startup or a C keyword; verify and counts
// past the interpretation budget; export of code too large to write; an absolute kernel path;
// workspace export over a link.
#include "support/temp_dir.h"
#include "support/test_paths.h"

#include "commands.h"
#include "printable_stream.h"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <unistd.h>

using namespace loopscope;
namespace fs = std::filesystem;

namespace {

struct Project {
    test::TempDir tmp{"loopscope-cli-hardening"};
    fs::path dir = tmp.path;
    std::string write(const std::string& name, const std::string& text) const
    {
        fs::create_directories((dir / name).parent_path());
        std::ofstream(dir / name) << text;
        return (dir / name).string();
    }
};

/// The CLI run in-process (as main() does), with its exit code and both streams.
struct CliRun {
    int code = -1;
    std::string out, err;
    double ms = 0;
};

CliRun runCli(std::vector<std::string> args)
{
    args.insert(args.begin(), "loopscope-cli");
    std::vector<char*> argv;
    for (auto& a : args)
        argv.push_back(a.data());
    std::ostringstream out, err;
    const auto t0 = std::chrono::steady_clock::now();
    CliRun r;
    r.code = cli::runCli(static_cast<int>(argv.size()), argv.data(), out, err);
    r.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    r.out = out.str();
    r.err = err.str();
    return r;
}

std::string describe(const CliRun& r) { return "exit " + std::to_string(r.code) + "\n--- out:\n" + r.out + "--- err:\n" + r.err; }

std::string matmulKernel(const std::string& name)
{
    return "name: " + name + "\nparams: {M: 4, N: 4, K: 4}\ntensors:\n  A: {shape: [M, K], dtype: float32}\n"
           "  B: {shape: [K, N], dtype: float32}\n  C: {shape: [M, N], dtype: float32}\nstages:\n"
           "  - compute: \"C[i, j] += A[i, k] * B[k, j]\"\n";
}

} // namespace

TEST(CliGuard, AnExceptionBecomesAMessageAndExitTwo)
{
    std::ostringstream err;
    EXPECT_EQ(cli::runGuarded(err, []() -> int { throw std::invalid_argument("harness: kernel name 'main' is used by the harness"); }), 2);
    EXPECT_EQ(err.str(), "error: internal error: harness: kernel name 'main' is used by the harness (a bug in loopscope-cli: please report it with the input)\n");
    err.str("");
    EXPECT_EQ(cli::runGuarded(err, []() -> int { throw std::bad_alloc(); }), 2);
    EXPECT_NE(err.str().find("error: out of memory"), std::string::npos) << err.str();
    err.str("");
    EXPECT_EQ(cli::runGuarded(err, []() -> int { throw 42; }), 2);
    EXPECT_NE(err.str().find("an unknown exception"), std::string::npos) << err.str();
    EXPECT_EQ(cli::runGuarded(err, [] { return 1; }), 1);
}

// Issue 16, item 2: these names made export --harness and analyze --measure abort (exit 134).
TEST(CliNames, KernelsNamedMainStartupOrAKeywordAreRefusedWithTheirLine)
{
    Project p;
    for (const char* name : {"main", "startup", "int", "for", "static"}) {
        const std::string kernel = p.write(std::string("k_") + name + ".kernel.yaml", matmulKernel(name));
        const std::string schedule = p.write(std::string("s_") + name + ".sched.yaml",
                                             std::string("kernel: k_") + name + ".kernel.yaml\ntarget: cortex-m7\nsteps: []\n");
        const std::string where = kernel + ":1:7: error: kernel name '" + name + "' ";
        const fs::path out = p.dir / (std::string("out_") + name);
        for (const std::vector<std::string>& args :
             {std::vector<std::string>{"export", schedule, "--out", out.string(), "--harness"},
              std::vector<std::string>{"export", kernel, "--out", out.string(), "--harness", "--force"},
              std::vector<std::string>{"analyze", schedule, "--measure"}, std::vector<std::string>{"analyze", kernel, "--measure"},
              std::vector<std::string>{"verify", schedule}, std::vector<std::string>{"lower", kernel}}) {
            const CliRun r = runCli(args);
            EXPECT_EQ(r.code, 2) << args[0] << " " << name << "\n" << describe(r);
            EXPECT_NE(r.err.find(where), std::string::npos) << describe(r);
        }
        EXPECT_FALSE(fs::exists(out)) << "nothing was written";
    }
}

TEST(CliLimits, VerifyAndCountsRefuseWhatTheInterpreterCannotHoldAndSayHowToShrinkIt)
{
    Project p;
    p.write("kernels/mm.kernel.yaml", test::readText(test::sourceDir() + "/examples/kernels/matmul_int8.kernel.yaml"));
    // M = N = 2^20, K = 2^8: the largest stage the kernel file accepts (2^48 points), C of 2^40 elements.
    const std::string huge = p.write("schedules/huge.sched.yaml",
                                     "kernel: ../kernels/mm.kernel.yaml\ntarget: cortex-m7\nparams: {M: 1048576, N: 1048576, K: 256}\nsteps: []\n");
    // 2^13 cubed: small tensors, 2^39 iterations.
    const std::string slow = p.write("schedules/slow.sched.yaml",
                                     "kernel: ../kernels/mm.kernel.yaml\ntarget: cortex-m7\nparams: {M: 8192, N: 8192, K: 8192}\nsteps: []\n");
    for (const std::string& s : {huge, slow})
        for (const char* cmd : {"verify", "counts"}) {
            const CliRun r = runCli({cmd, s});
            EXPECT_EQ(r.code, 2) << describe(r);
            EXPECT_NE(r.err.find(s + ": too large to interpret: the interpreter would "), std::string::npos) << describe(r);
            EXPECT_NE(r.err.find("Verify a smaller instance of the same schedule: give the kernel smaller sizes in the schedule's params:"),
                      std::string::npos)
                << describe(r);
            EXPECT_LT(r.ms, 10000) << describe(r);
        }
    EXPECT_NE(runCli({"verify", huge}).err.find("would hold 4.4e+12 values (tensors and buffers; at most 2^26 = 67108864) and run "),
              std::string::npos)
        << runCli({"verify", huge}).err;
    // M = N = K = 2^20 (2^60 points) is refused when the kernel is read, at the stage.
    const std::string larger = p.write("schedules/larger.sched.yaml",
                                       "kernel: ../kernels/mm.kernel.yaml\ntarget: cortex-m7\nparams: {M: 1048576, N: 1048576, K: 1048576}\nsteps: []\n");
    for (const char* cmd : {"verify", "counts", "analyze", "lower"}) {
        const CliRun r = runCli({cmd, larger});
        EXPECT_EQ(r.code, 2) << describe(r);
        EXPECT_NE(r.err.find("mm.kernel.yaml:11:15: error: stage C iterates over 1048576 x 1048576 x 1048576 points, more than 2^48"),
                  std::string::npos)
            << describe(r);
    }
    EXPECT_NE(runCli({"verify", slow}).err.find("and run 1.65e+12 statements (at most 2^30 = 1073741824)"), std::string::npos)
        << runCli({"verify", slow}).err;
    // The same schedule at a size within the budget verifies.
    const std::string small = p.write("schedules/small.sched.yaml", "kernel: ../kernels/mm.kernel.yaml\ntarget: cortex-m7\nparams: {M: 8, N: 8, K: 8}\nsteps: []\n");
    EXPECT_EQ(runCli({"verify", small}).code, 0);
}

TEST(CliLimits, ExportRefusesCodeTooLargeToWriteAtOnce)
{
    Project p;
    const std::string s = p.write("s.sched.yaml", "kernel: " + test::sourceDir() + "/examples/kernels/matmul_f32.kernel.yaml\n"
                                  "target: cortex-m7\nparams: {M: 256, N: 256, K: 256}\nsteps:\n"
                                  "  - unroll: {loop: i}\n  - unroll: {loop: j}\n  - unroll: {loop: k}\n");
    const fs::path out = p.dir / "out";
    const CliRun r = runCli({"export", s, "--out", out.string()});
    EXPECT_EQ(r.code, 2) << describe(r);
    EXPECT_NE(r.err.find("error: the C of this schedule would hold 50594050 statements, more than the 65536 the exporter writes: "
                         "the written-out (unrolled) loops i (256), j (256), k (256) copy their bodies"),
              std::string::npos)
        << describe(r);
    EXPECT_NE(r.err.find("nothing was written"), std::string::npos) << describe(r);
    EXPECT_FALSE(fs::exists(out));
    EXPECT_LT(r.ms, 10000) << describe(r);
    // --force exports a schedule with error diagnostics, never C past the limit: the same reason.
    const CliRun forced = runCli({"export", s, "--out", out.string(), "--force"});
    EXPECT_EQ(forced.code, 2) << describe(forced);
    EXPECT_NE(forced.err.find("error: the C of this schedule would hold 50594050 statements"), std::string::npos) << describe(forced);
    EXPECT_EQ(forced.err.find("Use --force"), std::string::npos) << describe(forced);
    EXPECT_FALSE(fs::exists(out));
    // analyze and lower still work on it, quickly; analyze says its instructions are those of C
    // that is not written.
    const CliRun a = runCli({"analyze", s});
    EXPECT_EQ(a.code, 0) << describe(a);
    EXPECT_NE(a.out.find("error [code-too-large]: the C of this schedule would hold 50594050 statements"), std::string::npos) << describe(a);
    EXPECT_NE(a.out.find("the instructions predicted are those of C that is not written"), std::string::npos) << describe(a);
    EXPECT_LT(a.ms, 10000);
}

TEST(CliPaths, AnAbsoluteKernelPathIsReadWithAWarning)
{
    Project p;
    const std::string kernel = test::sourceDir() + "/examples/kernels/matmul_f32.kernel.yaml";
    const std::string s = p.write("s.sched.yaml", "kernel: " + kernel + "\ntarget: cortex-m7\nsteps: []\n");
    const CliRun r = runCli({"lower", s});
    EXPECT_EQ(r.code, 0) << describe(r);
    EXPECT_EQ(r.err, s + ":1:9: warning: kernel '" + kernel
                         + "' is an absolute path: the schedule reads it on this machine only (a path relative to the schedule's folder travels with it)\n");
}

TEST(CliWorkspaceExport, ALinkInTheWayIsReplacedNeverWrittenThrough)
{
    Project p;
    fs::create_directories(p.dir / "proj");
    const std::string cliPath = LOOPSCOPE_CLI;
    auto run = [&](const std::string& args) { return test::run("cd '" + (p.dir / "proj").string() + "' && '" + cliPath + "' " + args); };
    ASSERT_EQ(run("workspace init").exitCode, 0);
    ASSERT_EQ(run("workspace add " + test::sourceDir() + "/examples/schedules/matmul_f32_tiled.sched.yaml --name tiled").exitCode, 0);
    const std::string theirs = p.write("theirs.txt", "someone else's file\n");
    fs::create_symlink(theirs, p.dir / "proj/out.sched.yaml");
    auto refused = run("workspace export tiled --out out.sched.yaml");
    EXPECT_EQ(refused.exitCode, 2) << refused.output;
    auto forced = run("workspace export tiled --out out.sched.yaml --force");
    EXPECT_EQ(forced.exitCode, 0) << forced.output;
    EXPECT_EQ(test::readText(theirs), "someone else's file\n");
    EXPECT_FALSE(fs::is_symlink(p.dir / "proj/out.sched.yaml"));
    EXPECT_NE(test::readText((p.dir / "proj/out.sched.yaml").string()).find("split"), std::string::npos);
}

TEST(CliTerminal, ControlCharactersFromAFileOrAnArgumentAreShownAsHex)
{
    Project p;
    // A key, a tensor's name and a parameter's name written with YAML escapes: the messages
    // quote them, and a terminal would obey ESC [ 31 m (red), BEL and the C1 CSI (U+009B).
    std::string kernel = matmulKernel("mm");
    const std::string badKey = p.write("key.kernel.yaml", "\"bad\\e[31mkey\\a\": 3\n" + kernel);
    std::string tensor = kernel;
    tensor.replace(tensor.find("  A: {"), 3, "  \"A\\e]0;title\\a\\u009b\"");
    const std::string badTensor = p.write("tensor.kernel.yaml", tensor);
    for (const auto& [file, shown] : {std::pair{badKey, std::string("'bad\\x1b[31mkey\\x07'")},
                                      std::pair{badTensor, std::string("'A\\x1b]0;title\\x07\\xc2\\x9b'")}}) {
        const CliRun r = runCli({"analyze", file});
        EXPECT_EQ(r.code, 2) << describe(r);
        EXPECT_NE(r.err.find(shown), std::string::npos) << describe(r);
        for (char c : r.err + r.out)
            EXPECT_TRUE(static_cast<unsigned char>(c) >= 0x20 || c == '\n') << describe(r);
        EXPECT_EQ(r.err.find("\xc2\x9b"), std::string::npos) << describe(r);
    }
    // A path typed with a control character, in a message the CLI writes itself.
    const CliRun missing = runCli({"lower", (p.dir / "no\x1b[2Jsuch.sched.yaml").string()});
    EXPECT_EQ(missing.code, 2) << describe(missing);
    EXPECT_NE(missing.err.find("no\\x1b[2Jsuch.sched.yaml"), std::string::npos) << describe(missing);
    EXPECT_EQ(missing.err.find('\x1b'), std::string::npos) << describe(missing);
    // UTF-8 text, line breaks and JSON pass as they are.
    const std::string named = p.write("caf\xc3\xa9.kernel.yaml", kernel);
    const CliRun ok = runCli({"analyze", named, "--json"});
    EXPECT_EQ(ok.code, 0) << describe(ok);
    EXPECT_EQ(ok.out.find("\\x"), std::string::npos) << describe(ok);
}

TEST(CliTerminal, ACharacterCutByAFlushIsWrittenWhole)
{
    std::ostringstream target;
    {
        cli::PrintableStreambuf buf(target);
        std::ostream s(&buf);
        s << "caf\xc3" << std::flush;
        EXPECT_EQ(target.str(), "caf");
        s << "\xa9 \xe2\x80" << std::flush << "\x94\tok\x1b" << std::flush;
        EXPECT_EQ(target.str(), "caf\xc3\xa9 \xe2\x80\x94\tok\\x1b");
        s << "\nend \xe2";   // cut off at the end: written as bytes when the buffer goes
    }
    EXPECT_EQ(target.str(), "caf\xc3\xa9 \xe2\x80\x94\tok\\x1b\nend \\xe2");
}
