// codegen::writeExport: an export replaces only what an earlier export wrote and nobody changed
// since; anything else in the way stops it before it writes a single file.
#include "codegen/export_writer.h"

#include "support/test_paths.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

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

TEST(ExportWriter, ADirectoryInTheWayIsAConflictAndAManifestLineOfGarbageIsIgnored)
{
    ScratchDir d;
    fs::create_directories(d.path / "k.c");
    EXPECT_EQ(exportConflicts(d.path, kV1), std::vector<std::string>{"k.c"});
    fs::remove_all(d.path / "k.c");
    std::ofstream(d.path / kExportManifest) << "garbage\n#  k.c\n0123456789abcdef k.c\n";
    std::ofstream(d.path / "k.c") << "mine\n";
    EXPECT_EQ(exportConflicts(d.path, kV1), std::vector<std::string>{"k.c"});
}
