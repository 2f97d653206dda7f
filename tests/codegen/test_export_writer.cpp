// codegen::writeExport: an export replaces only what an earlier export wrote and nobody changed
// since; anything else in the way stops it before it writes a single file.
#include "codegen/export_writer.h"

#include "support/test_paths.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include <grp.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace loopscope::codegen;
namespace fs = std::filesystem;

namespace {

struct ScratchDir {
    fs::path path = fs::temp_directory_path() / ("loopscope-export-writer-" + std::to_string(::getpid()) + "-"
                                                 + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    ScratchDir() { fs::remove_all(path); }
    ~ScratchDir() { fs::remove_all(path); }
};

const std::vector<GeneratedFile> kV1{{"k.h", "header v1\n"}, {"k.c", "source v1\n"}, {"sub/extra.txt", "extra v1\n"}};
const std::vector<GeneratedFile> kV2{{"k.h", "header v2\n"}, {"k.c", "source v2\n"}};

} // namespace

TEST(ExportWriter, WritesIntoANewDirectoryWithAManifest)
{
    ScratchDir d;
    ExportWriteResult r = writeExport(d.path, kV1, false);
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_EQ(r.written.size(), 3u);
    EXPECT_EQ(loopscope::test::readText(d.path / "sub/extra.txt"), "extra v1\n");
    const std::string manifest = loopscope::test::readText(d.path / kExportManifest);
    EXPECT_NE(manifest.find("  k.c\n"), std::string::npos) << manifest;
    EXPECT_NE(manifest.find("  sub/extra.txt\n"), std::string::npos) << manifest;
}

TEST(ExportWriter, ReplacesItsOwnUnchangedFilesAndKeepsTheOthersInTheManifest)
{
    ScratchDir d;
    ASSERT_TRUE(writeExport(d.path, kV1, false).ok);
    ExportWriteResult r = writeExport(d.path, kV2, false);
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_EQ(loopscope::test::readText(d.path / "k.c"), "source v2\n");
    // extra.txt was not part of this export: untouched, still known as ours.
    EXPECT_EQ(loopscope::test::readText(d.path / "sub/extra.txt"), "extra v1\n");
    EXPECT_TRUE(exportConflicts(d.path, kV1).empty());
}

TEST(ExportWriter, AForeignFileStopsEverything)
{
    ScratchDir d;
    fs::create_directories(d.path);
    std::ofstream(d.path / "k.c") << "the user's own k.c\n";
    EXPECT_EQ(exportConflicts(d.path, kV1), std::vector<std::string>{"k.c"});
    ExportWriteResult r = writeExport(d.path, kV1, false);
    EXPECT_FALSE(r.ok);
    EXPECT_EQ(r.conflicts, std::vector<std::string>{"k.c"});
    EXPECT_FALSE(fs::exists(d.path / "k.h"));
    EXPECT_FALSE(fs::exists(d.path / kExportManifest));
    EXPECT_EQ(loopscope::test::readText(d.path / "k.c"), "the user's own k.c\n");
    EXPECT_EQ(r.error, "not exporting into '" + d.path.string() + "': k.c exists and would be overwritten (not written by an earlier "
                       "export, or edited since). Nothing was written.");
    // A foreign file that happens to hold exactly the new text is not in the way.
    std::ofstream(d.path / "k.c", std::ios::trunc) << "source v1\n";
    EXPECT_TRUE(exportConflicts(d.path, kV1).empty());
}

TEST(ExportWriter, AnEditedExportIsTheUsersWork)
{
    ScratchDir d;
    ASSERT_TRUE(writeExport(d.path, kV1, false).ok);
    std::ofstream(d.path / "k.h", std::ios::app) << "// edited\n";
    std::ofstream(d.path / "k.c", std::ios::app) << "// edited\n";
    ExportWriteResult r = writeExport(d.path, kV2, false);
    EXPECT_FALSE(r.ok);
    EXPECT_EQ(r.conflicts, (std::vector<std::string>{"k.h", "k.c"}));
    EXPECT_EQ(loopscope::test::readText(d.path / "k.c"), "source v1\n// edited\n");
    EXPECT_NE(conflictMessage(d.path, r.conflicts, "Use --force to replace").find("k.h, k.c exist and would be overwritten"),
              std::string::npos);
    EXPECT_NE(conflictMessage(d.path, r.conflicts, "Use --force to replace").find("Use --force to replace them."), std::string::npos);
    // Forced: replaced, and known as ours again.
    ASSERT_TRUE(writeExport(d.path, kV2, true).ok);
    EXPECT_EQ(loopscope::test::readText(d.path / "k.c"), "source v2\n");
    EXPECT_TRUE(exportConflicts(d.path, kV1).empty());
}

namespace {

/// Every entry under `dir`, as "path" (folders end in '/', links show "-> target").
std::string listing(const fs::path& dir)
{
    std::vector<std::string> out;
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(dir, ec); it != fs::recursive_directory_iterator(); ++it) {
        const fs::path rel = it->path().lexically_relative(dir);
        if (it->is_symlink())
            out.push_back(rel.string() + " -> " + fs::read_symlink(it->path()).string());
        else
            out.push_back(rel.string() + (it->is_directory() ? "/" : ""));
    }
    std::sort(out.begin(), out.end());
    std::string text;
    for (const auto& o : out)
        text += o + "\n";
    return text;
}

} // namespace

// Issue 16, item 6: the export's own manifest is checked like every other file.
TEST(ExportWriter, AUsersFileNamedLikeTheManifestIsAConflict)
{
    ScratchDir d;
    fs::create_directories(d.path);
    std::ofstream(d.path / kExportManifest) << "my notes\n";
    ExportWriteResult r = writeExport(d.path, kV1, false);
    EXPECT_FALSE(r.ok);
    EXPECT_EQ(r.conflicts, std::vector<std::string>{kExportManifest});
    EXPECT_EQ(loopscope::test::readText(d.path / kExportManifest), "my notes\n");
    EXPECT_EQ(listing(d.path), std::string(kExportManifest) + "\n");  // nothing written
    // A manifest of garbage lines is not an export's either: its files are not known as ours.
    fs::remove(d.path / kExportManifest);
    std::ofstream(d.path / kExportManifest) << "garbage\n#  k.c\n0123456789abcdef k.c\n";
    std::ofstream(d.path / "k.c") << "mine\n";
    EXPECT_EQ(exportConflicts(d.path, kV1), (std::vector<std::string>{kExportManifest, "k.c"}));
}

TEST(ExportWriter, AManifestThatIsALinkOutOfTheFolderIsNeverWrittenThrough)
{
    ScratchDir d;
    const fs::path outside = d.path / "outside.txt";
    fs::create_directories(d.path / "out");
    std::ofstream(outside) << "precious\n";
    fs::create_symlink(outside, d.path / "out" / kExportManifest);
    ExportWriteResult r = writeExport(d.path / "out", kV1, false);
    EXPECT_FALSE(r.ok);
    EXPECT_EQ(r.conflicts, std::vector<std::string>{kExportManifest});
    // Forced: the link is replaced by the manifest; the file it pointed to is untouched.
    r = writeExport(d.path / "out", kV1, true);
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_EQ(loopscope::test::readText(outside), "precious\n");
    EXPECT_FALSE(fs::is_symlink(d.path / "out" / kExportManifest));
    EXPECT_NE(loopscope::test::readText(d.path / "out" / kExportManifest).find("  k.c\n"), std::string::npos);
}

TEST(ExportWriter, AFileWhereAFolderIsNeededStopsEverythingBeforeAnythingIsWritten)
{
    ScratchDir d;
    fs::create_directories(d.path);
    std::ofstream(d.path / "sub") << "a file named sub\n";
    for (bool force : {false, true}) {
        ExportWriteResult r = writeExport(d.path, kV1, force);
        EXPECT_FALSE(r.ok);
        EXPECT_NE(r.error.find("'" + (d.path / "sub/").string() + "' is a file where the export needs a folder"), std::string::npos) << r.error;
        EXPECT_NE(r.error.find("Nothing was written"), std::string::npos) << r.error;
        EXPECT_EQ(listing(d.path), "sub\n") << "force " << force;
    }
}

TEST(ExportWriter, AFolderThatCannotBeWrittenStopsEverythingBeforeAnythingIsWritten)
{
    // The export's folder can be written, its sub-folder cannot (mode 555): every folder is
    // tried before any file is written, so none is (before, k.c and k.h were, and no manifest),
    // and the folders made on the way are removed.
    // As root (which file modes do not stop) the export runs in a child as nobody.
    ScratchDir d;
    fs::create_directories(d.path / "sub");
    fs::permissions(d.path, fs::perms::all);
    fs::permissions(d.path / "sub", fs::perms::owner_read | fs::perms::owner_exec | fs::perms::group_read | fs::perms::group_exec
                                        | fs::perms::others_read | fs::perms::others_exec);
    // A folder the export makes (zz/inner) before it finds sub/ unwritable is removed again.
    std::vector<GeneratedFile> files = kV1;
    files.push_back({"zz/inner/x.txt", "x\n"});
    auto attempt = [&]() -> std::string {
        ExportWriteResult r = writeExport(d.path, files, false);
        return r.ok ? std::string("written") : r.error;
    };
    std::string error;
    if (::geteuid() != 0) {
        error = attempt();
    } else {
        int pipeFds[2];
        ASSERT_EQ(::pipe(pipeFds), 0);
        const pid_t child = ::fork();
        ASSERT_GE(child, 0);
        if (child == 0) {
            // Nothing of the test framework runs here: every way out is an _exit.
            ::close(pipeFds[0]);
            if (::setgroups(0, nullptr) != 0 || ::setgid(65534) != 0 || ::setuid(65534) != 0)
                ::_exit(3);  // no user nobody here (a container without it)
            if (::access(d.path.c_str(), W_OK | X_OK) != 0)
                ::_exit(6);  // the scratch folder is not reachable as nobody (TMPDIR private)
            std::string e;
            try {
                e = attempt();
            } catch (...) {
                ::_exit(5);
            }
            const ssize_t n = ::write(pipeFds[1], e.data(), e.size());
            ::_exit(n == static_cast<ssize_t>(e.size()) ? 0 : 4);
        }
        ::close(pipeFds[1]);
        char buf[4096];
        for (ssize_t n; (n = ::read(pipeFds[0], buf, sizeof buf)) > 0;)
            error.append(buf, static_cast<size_t>(n));
        ::close(pipeFds[0]);
        int status = 0;
        ::waitpid(child, &status, 0);
        fs::permissions(d.path / "sub", fs::perms::owner_all);
        if (WIFEXITED(status) && (WEXITSTATUS(status) == 3 || WEXITSTATUS(status) == 6))
            GTEST_SKIP() << "root, and no unprivileged user that can reach " << d.path << " (exit " << WEXITSTATUS(status) << ")";
        ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "the child as nobody: status " << status;
    }
    EXPECT_NE(error.find("cannot write into '" + (d.path / "sub").string() + "'"), std::string::npos) << error;
    EXPECT_NE(error.find("Nothing was written"), std::string::npos) << error;
    EXPECT_EQ(listing(d.path), "sub/\n");
    fs::permissions(d.path / "sub", fs::perms::owner_all);
}

TEST(ExportWriter, AFolderInTheWayIsNeverDeletedEvenWithForce)
{
    ScratchDir d;
    fs::create_directories(d.path / "k.c");
    std::ofstream(d.path / "k.c" / "notes.txt") << "the user's\n";
    for (bool force : {false, true}) {
        ExportWriteResult r = writeExport(d.path, kV1, force);
        EXPECT_FALSE(r.ok);
        EXPECT_NE(r.error.find("k.c' is a folder; an export never deletes a folder"), std::string::npos) << r.error;
        EXPECT_EQ(listing(d.path), "k.c/\nk.c/notes.txt\n") << "force " << force;
    }
}

TEST(ExportWriter, LinksInTheFolderAreReplacedNeverFollowed)
{
    ScratchDir d;
    const fs::path outside = d.path / "elsewhere";
    fs::create_directories(outside / "dir");
    fs::create_directories(d.path / "out");
    std::ofstream(outside / "target.c") << "not yours\n";
    // A link named like a generated file: a conflict; with force the link itself is replaced.
    fs::create_symlink(outside / "target.c", d.path / "out/k.c");
    ExportWriteResult r = writeExport(d.path / "out", kV1, false);
    EXPECT_FALSE(r.ok);
    EXPECT_EQ(r.conflicts, std::vector<std::string>{"k.c"});
    r = writeExport(d.path / "out", kV1, true);
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_EQ(loopscope::test::readText(outside / "target.c"), "not yours\n");
    EXPECT_FALSE(fs::is_symlink(d.path / "out/k.c"));
    EXPECT_EQ(loopscope::test::readText(d.path / "out/k.c"), "source v1\n");
    // A link where the export needs a folder: refused, forced or not; nothing written outside.
    const fs::path second = d.path / "second";
    fs::create_directories(second);
    fs::create_symlink(outside / "dir", second / "sub");
    for (bool force : {false, true}) {
        r = writeExport(second, kV1, force);
        EXPECT_FALSE(r.ok);
        EXPECT_NE(r.error.find("is a symbolic link where the export needs a folder"), std::string::npos) << r.error;
        EXPECT_TRUE(fs::is_empty(outside / "dir"));
        EXPECT_EQ(listing(second), "sub -> " + (outside / "dir").string() + "\n");
    }
}

TEST(ExportWriter, FilesAreWrittenAtomicallyWithoutLeftovers)
{
    ScratchDir d;
    ASSERT_TRUE(writeExport(d.path, kV1, false).ok);
    ASSERT_TRUE(writeExport(d.path, kV2, false).ok);
    // Only the files and the manifest: no temporary file stays behind.
    EXPECT_EQ(listing(d.path), std::string(kExportManifest) + "\nk.c\nk.h\nsub/\nsub/extra.txt\n");
    // A read-only folder: the export fails with a message and leaves the old files whole.
    fs::permissions(d.path, fs::perms::owner_write, fs::perm_options::remove);
    if (::access(d.path.c_str(), W_OK) != 0) {  // (root may write anyway)
        ExportWriteResult r = writeExport(d.path, kV1, false);
        EXPECT_FALSE(r.ok);
        EXPECT_NE(r.error.find("cannot write"), std::string::npos) << r.error;
        EXPECT_EQ(loopscope::test::readText(d.path / "k.c"), "source v2\n");
    }
    fs::permissions(d.path, fs::perms::owner_write, fs::perm_options::add);
    EXPECT_EQ(listing(d.path), std::string(kExportManifest) + "\nk.c\nk.h\nsub/\nsub/extra.txt\n");
}

// A link in the way of the folder to make (a loop, or one pointing nowhere) is the user's: the
// stopped export removes only folders it made. It took a link it could not follow for a folder
// not there yet, and removed the link with the folders it had not made.
TEST(ExportWriter, ALinkOnTheWayToTheFolderIsNeverRemoved)
{
    ScratchDir d;
    fs::create_directories(d.path);
    fs::create_symlink("loop", d.path / "loop");             // loop -> loop
    fs::create_symlink("nowhere/deep", d.path / "dangling");  // to a folder that is not there
    for (const char* link : {"loop", "dangling"}) {
        ExportWriteResult r = writeExport(d.path / link / "out", kV1, false);
        EXPECT_FALSE(r.ok) << link;
        EXPECT_FALSE(r.error.empty()) << link;
        EXPECT_TRUE(fs::is_symlink(fs::symlink_status(d.path / link))) << link << " was removed";
    }
    EXPECT_EQ(listing(d.path), "dangling -> nowhere/deep\nloop -> loop\n");   // nothing made, nothing removed
}
