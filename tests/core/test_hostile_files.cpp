// Files a schedule or a user may name that are not what they claim (issue 16, items 3 and 5):
// devices, FIFOs, huge files, other people's files. Each is refused at once with a message that
// names the path and its line in the schedule, and quotes nothing of a file that is not a
// kernel, target or schedule. Also where a schedule's relative paths start from.
#include "support/temp_dir.h"
#include "support/test_paths.h"

#include "common/text_file.h"
#include "ir/kernel.h"
#include "sched/schedule_file.h"
#include "sched/schedule_paths.h"
#include "target_loader.h"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sys/stat.h>
#include <unistd.h>

using namespace loopscope;
namespace fs = std::filesystem;

namespace {

/// A fresh folder, removed afterwards, that writes files into itself.
struct TempDir : test::TempDir {
    TempDir() : test::TempDir("loopscope-hostile") {}
    std::string write(const std::string& name, const std::string& text) const
    {
        std::ofstream(path / name, std::ios::binary) << text;
        return (path / name).string();
    }
};

Result<sched::OpenedSchedule> open(const std::string& path)
{
    return sched::openSchedule(path, [](const std::string& n, const std::string& d) { return hw::resolveTarget(n, d); });
}

std::string matmulKernel() { return test::sourceDir() + "/examples/kernels/matmul_f32.kernel.yaml"; }

/// Milliseconds `f` takes: the hostile files must be refused at once, not after reading them.
template <typename F>
double millis(F&& f)
{
    const auto t0 = std::chrono::steady_clock::now();
    f();
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

} // namespace

TEST(ReadTextFile, RefusesDevicesFifosFoldersAndLargeFiles)
{
    TempDir d;
    const std::string fifo = (d.path / "pipe").string();
    ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
    fs::create_symlink("/dev/zero", d.path / "zero");
    const std::string big = (d.path / "big.kernel.yaml").string();
    {
        std::ofstream(big) << "name: k\n";
        fs::resize_file(big, 100 << 20);  // 100 MB, sparse
    }
    struct Case {
        std::string path;
        std::string why;
    };
    for (const Case& c : {Case{fifo, "a FIFO (named pipe), not a regular file"},
                          Case{(d.path / "zero").string(), "a character device, not a regular file"},
                          Case{"/dev/urandom", "a character device, not a regular file"},
                          Case{d.path.string(), "a directory, not a regular file"},
                          Case{big, "larger than 4 MiB, the most a kernel, target or schedule file may hold"},
                          Case{(d.path / "missing").string(), "No such file or directory"}}) {
        std::string text = "x", error;
        EXPECT_FALSE(readTextFile(c.path, text, error)) << c.path;
        EXPECT_EQ(error, "cannot open '" + c.path + "': " + (c.why.find("No such") == 0 ? c.why : "it is " + c.why)) << c.path;
        EXPECT_TRUE(text.empty());
    }
    // Exactly the limit is read; one byte more is not.
    const std::string edge = (d.path / "edge").string();
    std::ofstream(edge) << std::string(kMaxTextFileBytes, 'x');
    std::string text, error;
    EXPECT_TRUE(readTextFile(edge, text, error)) << error;
    EXPECT_EQ(static_cast<int64_t>(text.size()), kMaxTextFileBytes);
    std::ofstream(edge, std::ios::app) << "y";
    EXPECT_FALSE(readTextFile(edge, text, error));
}

TEST(HostileSchedules, SpecialFilesAsKernelOrTargetAreRefusedAtOnceWithTheirLine)
{
    TempDir d;
    const std::string fifo = (d.path / "kernel.fifo").string();
    ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
    fs::create_symlink("/dev/zero", d.path / "zero.kernel.yaml");
    const std::string big = d.write("big.kernel.yaml", "name: k\n");
    fs::resize_file(big, 100 << 20);
    struct Case {
        std::string kernel, target, message;
    };
    for (const Case& c : {Case{"kernel.fifo", "cortex-m7", ":1:9: error: cannot open '" + fifo + "': it is a FIFO"},
                          Case{"zero.kernel.yaml", "cortex-m7", ":1:9: error: cannot open '" + (d.path / "zero.kernel.yaml").string() + "': it is a character device"},
                          Case{"big.kernel.yaml", "cortex-m7", ":1:9: error: cannot open '" + big + "': it is larger than 4 MiB"},
                          Case{matmulKernel(), "/dev/urandom", ":2:9: error: /dev/urandom: cannot read the target file: it is a character device"},
                          Case{matmulKernel(), "kernel.fifo", ":2:9: error: " + fifo + ": cannot read the target file: it is a FIFO"}}) {
        const std::string s = d.write("s.sched.yaml", "kernel: " + c.kernel + "\ntarget: " + c.target + "\nsteps: []\n");
        Result<sched::OpenedSchedule> o = Diagnostic{};
        const double ms = millis([&] { o = open(s); });
        ASSERT_FALSE(o.ok()) << c.kernel << " " << c.target;
        EXPECT_NE(o.errorText().find(c.message), std::string::npos) << o.errorText();
        EXPECT_LT(ms, 5000) << "refusing " << c.kernel << " took " << ms << " ms";
    }
}

TEST(HostileSchedules, FilesThatAreNotKernelsOrTargetsAreNeverQuoted)
{
    TempDir d;
    // What /etc/shadow and /etc/passwd look like: YAML reads them as mappings of odd keys.
    const std::string secret = "root:*:19000:0:99999:7:::\ndaemon:*:19000:0:99999:7:::\nalice:$6$s3cr3t$hash:19000:0:99999:7:::\n";
    const std::string shadow = d.write("shadow", secret);
    const std::string passwd = d.write("passwd", "root:x:0:0:root:/root:/bin/bash\nalice:x:1000:1000:Alice Secret,,,:/home/alice:/bin/bash\n");
    const std::string scalar = d.write("note.txt", "the password is hunter2\n");
    for (const std::string& kernel : {shadow, passwd, scalar}) {
        const std::string s = d.write("k.sched.yaml", "kernel: " + kernel + "\ntarget: cortex-m7\nsteps: []\n");
        auto o = open(s);
        ASSERT_FALSE(o.ok());
        const std::string text = o.errorText();
        const bool refusedAsKernel = text.find(": error: not a kernel file") != std::string::npos
            || text.find(": error: a kernel file must be a mapping") != std::string::npos;
        EXPECT_TRUE(refusedAsKernel) << text;
        for (const char* leaked : {"root", "alice", "s3cr3t", "hunter2", "/bin/bash", "19000"})
            EXPECT_EQ(text.find(leaked), std::string::npos) << "quotes '" << leaked << "': " << text;
    }
    for (const std::string& target : {shadow, passwd, scalar}) {
        const std::string s = d.write("t.sched.yaml", "kernel: " + matmulKernel() + "\ntarget: " + target + "\nsteps: []\n");
        auto o = open(s);
        ASSERT_FALSE(o.ok());
        const std::string text = o.errorText();
        EXPECT_NE(text.find("not a target file"), std::string::npos) << text;
        for (const char* leaked : {"root", "alice", "s3cr3t", "hunter2", "/bin/bash", "19000"})
            EXPECT_EQ(text.find(leaked), std::string::npos) << "quotes '" << leaked << "': " << text;
    }
    // Given as the schedule itself, such a file is not quoted either.
    auto o = open(shadow);
    ASSERT_FALSE(o.ok());
    EXPECT_NE(o.errorText().find("not a schedule file"), std::string::npos) << o.errorText();
    EXPECT_EQ(o.errorText().find("root"), std::string::npos) << o.errorText();
    // A kernel with a misspelt key is still a kernel: its own mistakes are quoted.
    const std::string typo = d.write("typo.kernel.yaml", "name: k\ntensors: {A: {shape: [2], dtype: int8}}\nstagse: []\n");
    auto k = ir::loadKernelFile(typo);
    ASSERT_FALSE(k.ok());
    EXPECT_NE(k.errorText().find("unknown key 'stagse'"), std::string::npos) << k.errorText();
}

TEST(SchedulePaths, RelativePathsStartFromTheSchedulesFolderAndAbsoluteOnesWarn)
{
    TempDir d;
    fs::create_directories(d.path / "project/schedules");
    fs::create_directories(d.path / "project/kernels");
    fs::copy_file(matmulKernel(), d.path / "project/kernels/mm.kernel.yaml");
    const std::string rel = d.write("project/schedules/rel.sched.yaml", "kernel: ../kernels/mm.kernel.yaml\ntarget: cortex-m7\nsteps: []\n");
    auto o = open(rel);
    ASSERT_TRUE(o.ok()) << o.errorText();
    EXPECT_TRUE(o->warnings.empty());

    const std::string abs = d.write("project/schedules/abs.sched.yaml",
                                    "kernel: " + (d.path / "project/kernels/mm.kernel.yaml").string() + "\ntarget: cortex-m7\nsteps: []\n");
    o = open(abs);
    ASSERT_TRUE(o.ok()) << o.errorText();
    ASSERT_EQ(o->warnings.size(), 1u);
    EXPECT_EQ(o->warnings[0].str(), abs + ":1:9: warning: kernel '" + (d.path / "project/kernels/mm.kernel.yaml").string()
                                         + "' is an absolute path: the schedule reads it on this machine only (a path relative to the schedule's folder travels with it)");

    // A link to a schedule reads the files its target names, relative to the target's folder.
    fs::create_symlink(rel, d.path / "link.sched.yaml");
    EXPECT_EQ(sched::scheduleFolder((d.path / "link.sched.yaml").string()), fs::canonical(d.path / "project/schedules").string());
    o = open((d.path / "link.sched.yaml").string());
    EXPECT_TRUE(o.ok()) << o.errorText();
}

TEST(TextLines, CountsNewlinesWhereverTheyAre)
{
    EXPECT_EQ(countLines(""), 0);
    EXPECT_EQ(countLines("no newline"), 0);
    EXPECT_EQ(countLines("a\nb\n"), 2);
    EXPECT_EQ(countLines("\n\n\nx"), 3);
    std::string big;
    for (int i = 0; i < 5000; ++i)
        big += "int x" + std::to_string(i) + " = 0;\n";
    EXPECT_EQ(countLines(big), 5000);
    EXPECT_EQ(countLines(std::string_view(big).substr(0, big.size() - 1)), 4999);
}

// The set-up scripts' check of room for the build (scripts/packages.sh, loopscope_check_space):
// a build on a nearly full disk stopped half-way in the compiler with "No space left on device"
// (CI, session 15); now run.sh and test.sh say first how little room there is, and go on. `df`
// is replaced by a shell function that reports the free kilobytes given.
TEST(SetUpScripts, SayWhenTheDiskHasLessRoomThanABuildTakes)
{
    TempDir d;
    const std::string fresh = (d.path / "build").string();  // no build there yet: all 4 GB to come
    auto check = [&](const std::string& freeKb) {
        const std::string script = ". '" + test::sourceDir() + "/scripts/packages.sh'; df() { echo 'Filesystem 1024-blocks Used Available Capacity Mounted'; echo 'fs 1 1 "
                                   + freeKb + " 1% /'; }; loopscope_check_space '" + fresh + "' && echo checked";
        return test::run("bash -c \"" + script + "\" 2>&1");
    };
    const test::RunResult tight = check("102400");
    EXPECT_EQ(tight.exitCode, 0) << tight.output;
    EXPECT_NE(tight.output.find("warning: 100 MB free on the file system of "), std::string::npos) << tight.output;
    EXPECT_NE(tight.output.find("a full build takes about 4 GB there"), std::string::npos) << tight.output;
    EXPECT_NE(tight.output.find("warning: 100 MB free in "), std::string::npos) << tight.output;  // TMPDIR too
    EXPECT_NE(tight.output.find("checked"), std::string::npos) << tight.output;                  // and it goes on
    const test::RunResult roomy = check("20000000");
    EXPECT_EQ(roomy.exitCode, 0) << roomy.output;
    EXPECT_EQ(roomy.output.find("warning"), std::string::npos) << roomy.output;
    EXPECT_NE(roomy.output.find("checked"), std::string::npos) << roomy.output;
    // A build there already holds most of what it needs: 100 MB more is enough for a 3.95 GB one.
    fs::create_directories(fresh);
    {
        std::ofstream big(fresh + "/objects", std::ios::binary);
        big.seekp(static_cast<std::streamoff>(4100) * 1024 * 1024 - 1);
        big.put('\0');
    }
    const test::RunResult rebuilt = check("102400");
    EXPECT_EQ(rebuilt.output.find("on the file system of"), std::string::npos) << rebuilt.output;
    // A df that prints no number is no figure (it printed "integer expression expected").
    const test::RunResult odd = check("n/a");
    EXPECT_EQ(odd.output.find("warning"), std::string::npos) << odd.output;
    EXPECT_EQ(odd.output.find("expected"), std::string::npos) << odd.output;
    EXPECT_NE(odd.output.find("checked"), std::string::npos) << odd.output;
}
