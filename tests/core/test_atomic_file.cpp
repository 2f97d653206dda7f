// Saving schedules (issue 16, item 8): atomic replacement through a uniquely named temporary
// file (a user's own x.sched.yaml.tmp survives; two savers never tear a file), the file's
// permissions kept, a symbolic link kept and its target written, nothing left behind.
#include "support/temp_dir.h"
#include "support/test_paths.h"

#include "common/atomic_file.h"
#include "sched/schedule_file.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sys/stat.h>
#include <thread>
#include <sys/wait.h>
#include <unistd.h>

using namespace loopscope;
namespace fs = std::filesystem;

namespace {

struct TempDir : test::TempDir {
    TempDir() : test::TempDir("loopscope-atomic") {}
};

std::vector<std::string> names(const fs::path& dir)
{
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(dir))
        out.push_back(e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
}

sched::ScheduleFile scheduleWith(const std::string& description)
{
    sched::ScheduleFile f;
    f.kernel = "../kernels/matmul_f32.kernel.yaml";
    f.target = "cortex-m7";
    f.description = description;
    return f;
}

mode_t modeOf(const fs::path& p)
{
    struct stat st {};
    ::stat(p.c_str(), &st);
    return st.st_mode & 07777;
}

} // namespace

TEST(AtomicSave, KeepsAUsersTmpFileThePermissionsAndLeavesNothingBehind)
{
    TempDir d;
    const fs::path file = d.path / "x.sched.yaml";
    std::ofstream(d.path / "x.sched.yaml.tmp") << "the user's own notes\n";
    std::string error;
    ASSERT_TRUE(sched::saveScheduleFile(scheduleWith("one"), file.string(), error)) << error;
    ASSERT_EQ(::chmod(file.c_str(), 0640), 0);
    ASSERT_TRUE(sched::saveScheduleFile(scheduleWith("two"), file.string(), error)) << error;
    EXPECT_EQ(test::readText(d.path / "x.sched.yaml.tmp"), "the user's own notes\n");
    EXPECT_EQ(modeOf(file), 0640u);
    EXPECT_EQ(test::readText(file), sched::formatScheduleFile(scheduleWith("two")));
    EXPECT_EQ(names(d.path), (std::vector<std::string>{"x.sched.yaml", "x.sched.yaml.tmp"}));
    // A new file gets 0666 less the umask, as any editor would create it.
    const mode_t mask = ::umask(022);
    ASSERT_TRUE(sched::saveScheduleFile(scheduleWith("new"), (d.path / "new.sched.yaml").string(), error)) << error;
    ::umask(mask);
    EXPECT_EQ(modeOf(d.path / "new.sched.yaml"), 0644u);
}

TEST(AtomicSave, SavesThroughASymbolicLinkToItsTarget)
{
    TempDir d;
    fs::create_directories(d.path / "real");
    const fs::path target = d.path / "real/x.sched.yaml";
    std::string error;
    ASSERT_TRUE(sched::saveScheduleFile(scheduleWith("one"), target.string(), error)) << error;
    fs::create_symlink("real/x.sched.yaml", d.path / "link.sched.yaml");
    ASSERT_TRUE(sched::saveScheduleFile(scheduleWith("two"), (d.path / "link.sched.yaml").string(), error)) << error;
    EXPECT_TRUE(fs::is_symlink(d.path / "link.sched.yaml"));
    EXPECT_EQ(fs::read_symlink(d.path / "link.sched.yaml"), fs::path("real/x.sched.yaml"));
    EXPECT_EQ(test::readText(target), sched::formatScheduleFile(scheduleWith("two")));
    EXPECT_EQ(names(d.path / "real"), std::vector<std::string>{"x.sched.yaml"});
    // A dangling link: the file it names is created.
    fs::create_symlink("real/new.sched.yaml", d.path / "dangling.sched.yaml");
    ASSERT_TRUE(sched::saveScheduleFile(scheduleWith("three"), (d.path / "dangling.sched.yaml").string(), error)) << error;
    EXPECT_EQ(test::readText(d.path / "real/new.sched.yaml"), sched::formatScheduleFile(scheduleWith("three")));
}

TEST(AtomicSave, AFailedSaveLeavesWhatWasThereAndNoTemporaryFile)
{
    TempDir d;
    std::string error;
    // A folder where the file should go: the rename fails (also for root); the folder stays.
    fs::create_directories(d.path / "x.sched.yaml");
    std::ofstream(d.path / "x.sched.yaml" / "inside") << "kept\n";
    EXPECT_FALSE(sched::saveScheduleFile(scheduleWith("one"), (d.path / "x.sched.yaml").string(), error));
    EXPECT_NE(error.find("cannot write '" + (d.path / "x.sched.yaml").string() + "'"), std::string::npos) << error;
    EXPECT_EQ(names(d.path), std::vector<std::string>{"x.sched.yaml"});
    EXPECT_EQ(test::readText(d.path / "x.sched.yaml" / "inside"), "kept\n");
    // A folder that does not exist.
    EXPECT_FALSE(sched::saveScheduleFile(scheduleWith("one"), (d.path / "missing/x.sched.yaml").string(), error));
    EXPECT_NE(error.find("No such file or directory"), std::string::npos) << error;
}

// Two windows saving one file: each save is whole; a reader never sees a mixture, and no
// temporary file survives.
TEST(AtomicSave, TwoSaversNeverTearTheFile)
{
    TempDir d;
    const fs::path file = d.path / "x.sched.yaml";
    const std::string a = sched::formatScheduleFile(scheduleWith(std::string(3000, 'a')));
    const std::string b = sched::formatScheduleFile(scheduleWith(std::string(5000, 'b')));
    std::atomic<int> failures{0};
    std::atomic<bool> done{false};
    auto saver = [&](const std::string& text) {
        for (int i = 0; i < 150; ++i) {
            std::string error;
            if (!writeFileAtomically(file.string(), text, error))
                ++failures;
        }
    };
    std::thread reader([&] {
        while (!done) {
            const std::string now = test::readText(file);
            if (!now.empty() && now != a && now != b)
                ++failures;
        }
    });
    std::thread s1(saver, a), s2(saver, b);
    s1.join();
    s2.join();
    done = true;
    reader.join();
    EXPECT_EQ(failures, 0);
    EXPECT_EQ(names(d.path), std::vector<std::string>{"x.sched.yaml"});
}

TEST(AtomicSave, ReplaceLinkReplacesTheLinkNotItsTarget)
{
    TempDir d;
    std::ofstream(d.path / "theirs.txt") << "theirs\n";
    fs::create_symlink(d.path / "theirs.txt", d.path / "out.sched.yaml");
    std::string error;
    ASSERT_TRUE(writeFileAtomically((d.path / "out.sched.yaml").string(), "mine\n", error, LinkPolicy::ReplaceLink)) << error;
    EXPECT_FALSE(fs::is_symlink(d.path / "out.sched.yaml"));
    EXPECT_EQ(test::readText(d.path / "out.sched.yaml"), "mine\n");
    EXPECT_EQ(test::readText(d.path / "theirs.txt"), "theirs\n");
}

// The tests' own scratch folders (tests/support/temp_dir.h): a folder made per process is gone
// when that process exits, and a forked child that exits leaves its parent's folder alone. Until
// session 16 every ctest run left 31 folders named by process id in /tmp.
TEST(TestScratch, AProcessFolderIsRemovedWhenItsProcessExitsAndOnlyThen)
{
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        ::close(fds[0]);
        const fs::path& dir = test::processTempDir("loopscope-scratch-child");
        std::ofstream(dir / "file") << "x\n";
        const std::string p = dir.string();
        const bool written = ::write(fds[1], p.data(), p.size()) == static_cast<ssize_t>(p.size());
        ::close(fds[1]);
        std::exit(written ? 0 : 1);  // a normal exit: static objects are destroyed
    }
    ::close(fds[1]);
    std::string path;
    char buf[256];
    for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;)
        path.append(buf, static_cast<size_t>(n));
    ::close(fds[0]);
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    ASSERT_NE(path.find("loopscope-scratch-child-"), std::string::npos) << path;
    EXPECT_FALSE(fs::exists(path)) << path << " was left behind";

    // This process's folder, made before a child that exits: still there, and the same one.
    const fs::path mine = test::processTempDir("loopscope-scratch-parent");
    std::ofstream(mine / "file") << "x\n";
    const pid_t second = ::fork();
    ASSERT_GE(second, 0);
    if (second == 0)
        std::exit(test::processTempDir("loopscope-scratch-parent") == mine ? 0 : 1);
    ASSERT_EQ(::waitpid(second, &status, 0), second);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    EXPECT_TRUE(fs::exists(mine / "file"));
    EXPECT_EQ(test::processTempDir("loopscope-scratch-parent"), mine);
}

// Files the user names for output (search --out, workspace export --out): the folder is made
// when missing, and what cannot be written is said before the work (a search of minutes).
TEST(OutputFiles, AFolderIsMadeForAFileNamedAndWhatCannotBeWrittenIsSaidFirst)
{
    TempDir d;
    const std::string dir = d.path.string();
    // Made with the folders above it; nothing to do when it is there.
    EXPECT_EQ(checkWritable(dir + "/new/sub/x.sched.yaml", false), "");
    EXPECT_EQ(makeFolderFor(dir + "/new/sub/x.sched.yaml"), "");
    EXPECT_TRUE(fs::is_directory(d.path / "new" / "sub"));
    EXPECT_EQ(makeFolderFor(dir + "/new/sub/x.sched.yaml"), "");
    // No file named: empty, a trailing slash, '.' or '..' (it threw, or wrote a folder's name).
    EXPECT_EQ(checkWritable("", false), "no file named");
    EXPECT_EQ(makeFolderFor(""), "no file named");
    for (const std::string& p : {dir + "/results/", dir + "/.", dir + "/new/.."}) {
        EXPECT_NE(checkWritable(p, true).find("names a folder, not a file"), std::string::npos) << p;
        EXPECT_NE(makeFolderFor(p).find("names a folder, not a file"), std::string::npos) << p;
    }
    EXPECT_FALSE(fs::exists(d.path / "results"));
    // A folder named as the file; a file there without replace; with it, fine.
    EXPECT_NE(checkWritable(dir + "/new", true).find("is a folder"), std::string::npos);
    std::ofstream(d.path / "new" / "sub" / "x.sched.yaml") << "x\n";
    EXPECT_NE(checkWritable(dir + "/new/sub/x.sched.yaml", false).find("exists; pass --force"), std::string::npos);
    EXPECT_EQ(checkWritable(dir + "/new/sub/x.sched.yaml", true), "");
    // A file, or a link that leads nowhere, where a folder must be.
    std::ofstream(d.path / "afile") << "x\n";
    fs::create_symlink(d.path / "nowhere", d.path / "dangling");
    for (const std::string& p : {dir + "/afile/x.sched.yaml", dir + "/afile/deeper/x.sched.yaml", dir + "/dangling/x.sched.yaml"}) {
        EXPECT_NE(checkWritable(p, true).find("is not a folder"), std::string::npos) << p << ": " << checkWritable(p, true);
        EXPECT_NE(makeFolderFor(p).find("is not a folder"), std::string::npos) << p;
    }
    EXPECT_FALSE(fs::exists(d.path / "nowhere"));
    // Through '..': the folders before it must be there, as opening the path needs them; no
    // folder is made on the way ('a/../b' made a and b).
    EXPECT_NE(checkWritable(dir + "/a/../b/x.sched.yaml", true).find("it goes up from"), std::string::npos);
    EXPECT_NE(makeFolderFor(dir + "/a/../b/x.sched.yaml").find("it goes up from"), std::string::npos);
    EXPECT_FALSE(fs::exists(d.path / "a"));
    EXPECT_FALSE(fs::exists(d.path / "b"));
    EXPECT_EQ(makeFolderFor(dir + "/new/../c/x.sched.yaml"), "");
    EXPECT_TRUE(fs::is_directory(d.path / "c"));
}
