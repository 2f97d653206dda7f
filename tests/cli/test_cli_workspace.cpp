// `loopscope-cli workspace ...` as a user runs it: init, add, list, show, compare, export,
// import, check, with --json and --workspace, and exit 2 (files left unchanged) on bad input.
#include "support/test_paths.h"

#include <SQLiteCpp/SQLiteCpp.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <map>

#include <unistd.h>

using namespace loopscope;
namespace fs = std::filesystem;

namespace {

class CliWorkspace : public ::testing::Test {
protected:
    void SetUp() override
    {
        m_dir = fs::temp_directory_path() / ("loopscope-cliws-" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + "-"
                                             + std::to_string(getpid()));
        fs::remove_all(m_dir);
        fs::create_directories(m_dir / "proj");
    }
    void TearDown() override { fs::remove_all(m_dir); }

    /// Runs the CLI in the project folder; stdout and stderr together.
    test::RunResult cli(const std::string& args) const { return test::run("cd '" + (m_dir / "proj").string() + "' && " LOOPSCOPE_CLI " " + args); }
    nlohmann::json json(const std::string& args) const
    {
        auto r = test::run("cd '" + (m_dir / "proj").string() + "' && " LOOPSCOPE_CLI " " + args + " 2>/dev/null");
        EXPECT_EQ(r.exitCode, 0) << args << "\n" << r.output;
        return nlohmann::json::parse(r.output, nullptr, false);
    }
    std::string example(const std::string& name) const { return test::sourceDir() + "/examples/schedules/" + name + ".sched.yaml"; }
    std::string path(const std::string& rel) const { return (m_dir / rel).string(); }
    /// The files of a folder (names and bytes).
    std::map<std::string, std::string> folder(const std::string& rel) const
    {
        std::map<std::string, std::string> out;
        for (const auto& e : fs::directory_iterator(m_dir / rel))
            if (e.is_regular_file())
                out[e.path().filename().string()] = test::readText(e.path().string());
        return out;
    }

    fs::path m_dir;
};

} // namespace

TEST_F(CliWorkspace, InitAddListShowCompareExportCheck)
{
    auto init = cli("workspace init");
    ASSERT_EQ(init.exitCode, 0) << init.output;
    EXPECT_TRUE(fs::exists(path("proj/proj.loopscope-workspace")));
    EXPECT_EQ(cli("workspace init").exitCode, 2) << "init never replaces a workspace";

    ASSERT_EQ(cli("workspace add " + example("matmul_f32_naive") + " --tag baseline").exitCode, 0);
    auto add = cli("workspace add " + example("matmul_f32_tiled") + " --name tiled --parent matmul_f32_naive --notes 'A and B in SRAM'");
    ASSERT_EQ(add.exitCode, 0) << add.output;
    EXPECT_NE(add.output.find("added variant tiled"), std::string::npos) << add.output;
    auto again = cli("workspace add " + example("matmul_f32_tiled") + " --name tiled");
    EXPECT_EQ(again.exitCode, 2);
    EXPECT_NE(again.output.find("'tiled' exists"), std::string::npos) << again.output;

    auto list = json("workspace list --json --sort cycles");
    ASSERT_EQ(list.size(), 2u);
    EXPECT_EQ(list[0]["name"], "tiled") << "sorted by cycles, the tiled one first";
    EXPECT_EQ(list[0]["parent"], "matmul_f32_naive");
    EXPECT_EQ(list[1]["tags"], nlohmann::json::array({"baseline"}));
    // The stored figures are what `analyze --json` says.
    auto analyzed = nlohmann::json::parse(test::run(LOOPSCOPE_CLI " analyze --json " + example("matmul_f32_tiled")).output);
    EXPECT_EQ(list[0]["figures"]["cycles"], analyzed["cycles"]["total"]);
    EXPECT_EQ(list[0]["figures"]["levels"][1]["peak_bytes"], analyzed["levels"][1]["used_bytes"]);
    auto table = cli("workspace list");
    ASSERT_EQ(table.exitCode, 0);
    for (const char* column : {"cycles", "latency ms", "SRAM peak", "DRAM traffic", "measured", "modified", "derived from"})
        EXPECT_NE(table.output.find(column), std::string::npos) << column << "\n" << table.output;

    auto show = json("workspace show tiled --json");
    EXPECT_EQ(show["notes"], "A and B in SRAM");
    EXPECT_EQ(show["kernel_file"]["on_disk"], "same");
    EXPECT_EQ(show["trace"], test::readText(example("matmul_f32_tiled")));
    EXPECT_EQ(show["report"], analyzed) << "the whole analyze --json document is kept";
    auto showText = cli("workspace show tiled");
    EXPECT_NE(showText.output.find("cache_read: {tensor: A"), std::string::npos) << showText.output;

    auto cmp = json("workspace compare matmul_f32_naive tiled --json");
    ASSERT_FALSE(cmp["figures"].empty());
    EXPECT_EQ(cmp["figures"][0]["name"], "cycles");
    EXPECT_DOUBLE_EQ(cmp["figures"][0]["ratio"].get<double>(), cmp["figures"][0]["b"].get<double>() / cmp["figures"][0]["a"].get<double>());
    int added = 0;
    for (const auto& s : cmp["steps"])
        added += s["change"] == "added";
    EXPECT_EQ(added, 5) << "the naive schedule has no steps; the tiled one five";
    auto cmpText = cli("workspace compare matmul_f32_naive tiled");
    EXPECT_NE(cmpText.output.find("+ split i by 16"), std::string::npos) << cmpText.output;
    EXPECT_NE(cmpText.output.find("B/A"), std::string::npos);

    // Export back: loads and analyses the same; a second export refuses to overwrite.
    fs::create_directories(path("out"));
    auto ex = cli("workspace export tiled --out " + path("out/tiled.sched.yaml"));
    ASSERT_EQ(ex.exitCode, 0) << ex.output;
    auto reanalyzed = nlohmann::json::parse(test::run(LOOPSCOPE_CLI " analyze --json " + path("out/tiled.sched.yaml")).output);
    EXPECT_EQ(reanalyzed, analyzed);
    const std::string exported = test::readText(path("out/tiled.sched.yaml"));
    auto over = cli("workspace export tiled --out " + path("out/tiled.sched.yaml"));
    EXPECT_EQ(over.exitCode, 2);
    EXPECT_NE(over.output.find("--force"), std::string::npos);
    EXPECT_EQ(cli("workspace export tiled --out " + path("out/tiled.sched.yaml") + " --force").exitCode, 0);
    EXPECT_EQ(test::readText(path("out/tiled.sched.yaml")), exported);
    // Into a folder that does not exist yet: made, as export --out makes its folder (it was
    // refused with "no such folder"); under a file: refused, the file named.
    auto made = cli("workspace export tiled --out " + path("new/sub/tiled.sched.yaml"));
    ASSERT_EQ(made.exitCode, 0) << made.output;
    EXPECT_EQ(nlohmann::json::parse(test::run(LOOPSCOPE_CLI " analyze --json " + path("new/sub/tiled.sched.yaml")).output), analyzed);
    auto underFile = cli("workspace export tiled --out " + path("out/tiled.sched.yaml/x.sched.yaml"));
    EXPECT_EQ(underFile.exitCode, 2);
    EXPECT_NE(underFile.output.find("tiled.sched.yaml' is not a folder"), std::string::npos) << underFile.output;

    auto check = cli("workspace check");
    EXPECT_EQ(check.exitCode, 0) << check.output;
    EXPECT_NE(check.output.find("integrity check passed"), std::string::npos);
    EXPECT_EQ(json("workspace check --json")["counts"]["variants"], 2);

    auto unknown = cli("workspace show nosuch");
    EXPECT_EQ(unknown.exitCode, 2);
    EXPECT_NE(unknown.output.find("no variant named 'nosuch'"), std::string::npos);
}

TEST_F(CliWorkspace, ImportAFolderAllOrNothing)
{
    ASSERT_EQ(cli("workspace init --workspace " + path("w.loopscope-workspace")).exitCode, 0);
    const std::string ws = " --workspace " + path("w.loopscope-workspace");
    int schedules = 0;
    for (const auto& e : fs::directory_iterator(test::sourceDir() + "/examples/schedules"))
        schedules += e.path().string().ends_with(".sched.yaml");
    auto imp = json("workspace import " + test::sourceDir() + "/examples/schedules --json" + ws);
    EXPECT_EQ(imp["added"], schedules);
    auto again = json("workspace import " + test::sourceDir() + "/examples/schedules --json" + ws);
    EXPECT_EQ(again["added"], 0);
    EXPECT_EQ(again["unchanged"], schedules);

    // A folder with one broken schedule: nothing is added unless --skip-bad.
    fs::create_directories(path("mixed"));
    std::ofstream(path("mixed/broken.sched.yaml")) << "kernel: " << test::sourceDir() << "/examples/kernels/matmul_f32.kernel.yaml\ntarget: cortex-m7\nsteps:\n  - split: {loop: nosuch, factor: 4}\n";
    std::ofstream(path("mixed/good.sched.yaml")) << "kernel: " << test::sourceDir() << "/examples/kernels/matmul_f32.kernel.yaml\ntarget: cortex-m7\nsteps:\n  - split: {loop: i, factor: 8}\n";
    auto bad = cli("workspace import " + path("mixed") + ws);
    EXPECT_EQ(bad.exitCode, 2);
    EXPECT_NE(bad.output.find("broken.sched.yaml:4:5: error: step 1 (split): "), std::string::npos) << bad.output;   // its place once
    // A link loop named like a schedule is no schedule: skipped (an internal error stopped the import).
    fs::create_symlink("loop.sched.yaml", path("mixed/loop.sched.yaml"));
    EXPECT_NE(bad.output.find("nothing imported"), std::string::npos) << bad.output;
    EXPECT_EQ(json("workspace list --json" + ws).size(), static_cast<std::size_t>(schedules));
    auto skip = cli("workspace import " + path("mixed") + " --skip-bad" + ws);
    EXPECT_EQ(skip.exitCode, 0) << skip.output;
    EXPECT_EQ(skip.output.find("internal error"), std::string::npos) << skip.output;
    EXPECT_EQ(json("workspace list --json" + ws).size(), static_cast<std::size_t>(schedules + 1));
}

TEST_F(CliWorkspace, BadWorkspacesGiveExit2AndStayByteForByteUnchanged)
{
    auto none = cli("workspace list");
    EXPECT_EQ(none.exitCode, 2);
    EXPECT_NE(none.output.find("workspace init"), std::string::npos) << none.output;

    ASSERT_EQ(cli("workspace init --workspace " + path("good.loopscope-workspace")).exitCode, 0);
    for (const char* s : {"matmul_f32_naive", "matmul_f32_tiled", "conv2d_int8_tiled"})
        ASSERT_EQ(cli("workspace add " + example(s) + " --workspace " + path("good.loopscope-workspace")).exitCode, 0);
    const std::string good = test::readText(path("good.loopscope-workspace"));
    const std::vector<std::pair<std::string, std::string>> files = {
        {"truncated", good.substr(0, good.size() / 2)},
        {"header-only", good.substr(0, 100)},
        {"garbage", std::string(3000, 'x')},
        {"empty", ""},
    };
    for (const auto& [name, bytes] : files) {
        const std::string p = path(name + ".loopscope-workspace");
        std::ofstream(p, std::ios::binary) << bytes;
        for (const char* cmd : {"list", "list --json", "check", "check --json", "show x", "compare x y", "export x --out x.sched.yaml",
                                "add " LOOPSCOPE_SOURCE_DIR "/examples/schedules/matmul_f32_naive.sched.yaml",
                                "import " LOOPSCOPE_SOURCE_DIR "/examples/schedules"}) {
            auto r = cli(std::string("workspace ") + cmd + " --workspace " + p);
            EXPECT_EQ(r.exitCode, 2) << name << " " << cmd << "\n" << r.output;
            EXPECT_NE(r.output.find(p), std::string::npos) << "the message names the file: " << r.output;
            EXPECT_EQ(test::readText(p), bytes) << name << " changed by " << cmd;
        }
    }
}

TEST_F(CliWorkspace, ReadOnlyCommandsLeaveTheFolderAsItWas)
{
    ASSERT_EQ(cli("workspace init").exitCode, 0);
    ASSERT_EQ(cli("workspace add " + example("matmul_f32_naive")).exitCode, 0);
    ASSERT_EQ(cli("workspace add " + example("matmul_f32_tiled") + " --parent matmul_f32_naive").exitCode, 0);
    fs::create_directories(path("out"));
    const auto before = folder("proj");
    ASSERT_EQ(before.size(), 1u) << "a writer that closed leaves no -wal or -shm file";
    for (const std::string& cmd : std::vector<std::string>{"list", "list --json", "show matmul_f32_tiled", "show matmul_f32_tiled --json", "compare matmul_f32_naive matmul_f32_tiled",
                                  "compare matmul_f32_naive matmul_f32_tiled --json", "check", "check --json",
                                  "export matmul_f32_tiled --out " + path("out/t.sched.yaml") + " --force"}) {
        auto r = cli("workspace " + cmd);
        EXPECT_EQ(r.exitCode, 0) << cmd << "\n" << r.output;
        EXPECT_EQ(folder("proj"), before) << cmd << " changed the workspace or left files beside it";
    }
}

TEST_F(CliWorkspace, AnOlderWorkspaceIsReadAsItIsAndMigratedOnlyByAWrite)
{
    const std::string ws = path("proj/old.loopscope-workspace");
    {
        SQLite::Database db(ws, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
        db.exec(test::readText(test::sourceDir() + "/tests/data/store/schema-v1.sql"));
    }
    const auto before = folder("proj");
    auto list = json("workspace list --json");
    ASSERT_EQ(list.size(), 2u);
    EXPECT_EQ(list[0]["name"], "tiled");
    EXPECT_EQ(list[0]["tags"], nlohmann::json::array({"fast", "sram", "tiled"}));
    EXPECT_EQ(list[1]["parent"], "tiled");
    // (The frozen file's traces are placeholders that do not rebuild: check reports them.)
    auto check = nlohmann::json::parse(cli("workspace check --json").output);
    EXPECT_EQ(check["schema_version"], 1);
    EXPECT_EQ(check["counts"]["variants"], 2);
    EXPECT_EQ(folder("proj"), before) << "reading migrates a copy in memory, never the file";

    auto add = cli("workspace add " + example("matmul_f32_naive"));
    ASSERT_EQ(add.exitCode, 0) << add.output;
    EXPECT_NE(add.output.find("migrated from schema version 1"), std::string::npos) << add.output;
    EXPECT_EQ(test::readText(ws + ".schema-1.bak").size(), before.at("old.loopscope-workspace").size()) << "the old file is kept";
    const auto current = json("workspace init --json --workspace " + path("new.loopscope-workspace"))["schema_version"];
    EXPECT_EQ(nlohmann::json::parse(cli("workspace check --json").output)["schema_version"], current);
}

TEST_F(CliWorkspace, ANewerOrLockedWorkspaceGivesExit2AndStaysUnchanged)
{
    ASSERT_EQ(cli("workspace init").exitCode, 0);
    ASSERT_EQ(cli("workspace add " + example("matmul_f32_naive")).exitCode, 0);
    const std::string ws = path("proj/proj.loopscope-workspace");
    {
        SQLite::Database db(ws, SQLite::OPEN_READWRITE);
        db.exec("PRAGMA user_version = 99");
    }
    const auto before = folder("proj");
    for (const std::string& cmd : std::vector<std::string>{"list", "show matmul_f32_naive", "compare matmul_f32_naive matmul_f32_naive", "check",
                                  "export matmul_f32_naive --out " + path("x.sched.yaml"), "add " + example("matmul_f32_tiled")}) {
        auto r = cli("workspace " + cmd);
        EXPECT_EQ(r.exitCode, 2) << cmd << "\n" << r.output;
        EXPECT_NE(r.output.find(ws + ": error: written by a newer Loopscope (schema version 99"), std::string::npos) << cmd << "\n" << r.output;
        EXPECT_EQ(folder("proj"), before) << cmd;
    }
    {
        SQLite::Database db(ws, SQLite::OPEN_READWRITE);
        db.exec("PRAGMA user_version = 2");
    }
    // Another program holds the file (as sqlite3 with locking_mode=EXCLUSIVE does): the CLI
    // waits its busy timeout (5 s), then says so.
    SQLite::Database other(ws, SQLite::OPEN_READWRITE);
    other.exec("PRAGMA locking_mode = EXCLUSIVE");
    other.exec("BEGIN EXCLUSIVE");
    other.exec("CREATE TABLE scratch(x)");
    auto locked = cli("workspace list");
    EXPECT_EQ(locked.exitCode, 2) << locked.output;
    EXPECT_NE(locked.output.find("locked by another program"), std::string::npos) << locked.output;
    other.exec("ROLLBACK");
}

// Names and notes are bytes the user typed or a folder held: one that is not UTF-8 (a Latin-1
// terminal, a file named café.sched.yaml in Latin-1) is kept as given and shown as U+FFFD in
// JSON. `list --json` and `show --json` had stopped with an internal error (nlohmann refuses
// such a byte).
TEST_F(CliWorkspace, ANameThatIsNotUtf8IsListedInJson)
{
    ASSERT_EQ(cli("workspace init").exitCode, 0);
    auto add = cli("workspace add " + example("matmul_f32_tiled") + " --name \"$(printf 'caf\\351')\" --notes \"$(printf 'n\\265')\"");
    ASSERT_EQ(add.exitCode, 0) << add.output;
    fs::copy_file(example("matmul_f32_naive"), path("proj/na\xefve.sched.yaml"));
    fs::create_directories(path("kernels"));   // where the example's kernel path leads from proj/
    fs::copy_file(test::sourceDir() + "/examples/kernels/matmul_f32.kernel.yaml", path("kernels/matmul_f32.kernel.yaml"));
    auto import = cli("workspace import . --json");
    ASSERT_EQ(import.exitCode, 0) << import.output;
    auto list = json("workspace list --json");
    ASSERT_EQ(list.size(), 2u) << list;
    EXPECT_EQ(list[0]["name"], "caf\xef\xbf\xbd");
    EXPECT_EQ(list[1]["name"], "na\xef\xbf\xbdve");
    auto show = json("workspace show \"$(printf 'caf\\351')\" --json");
    EXPECT_EQ(show["notes"], "n\xef\xbf\xbd") << show;
}

// A name with characters a terminal obeys (DEL, the C1 CSI, a right-to-left override): the
// table shows them as \xNN, and the JSON as \uXXXX, which parses back to the name (the table's
// escaping made the JSON invalid).
TEST_F(CliWorkspace, ANameWithControlCharactersIsEscapedInTablesAndJson)
{
    ASSERT_EQ(cli("workspace init").exitCode, 0);
    auto add = cli("workspace add " + example("matmul_f32_tiled") + " --name \"$(printf 'v\177\302\233\342\200\256x')\"");
    ASSERT_EQ(add.exitCode, 0) << add.output;
    auto table = cli("workspace list");
    EXPECT_NE(table.output.find("v\\x7f\\xc2\\x9b\\xe2\\x80\\xaex"), std::string::npos) << table.output;
    auto raw = test::run("cd '" + (m_dir / "proj").string() + "' && " LOOPSCOPE_CLI " workspace list --json");
    EXPECT_NE(raw.output.find("v\\u007f\\u009b\\u202ex"), std::string::npos) << raw.output;
    auto list = json("workspace list --json");
    ASSERT_EQ(list.size(), 1u) << raw.output;
    EXPECT_EQ(list[0]["name"], "v\x7f\xc2\x9b\xe2\x80\xaex");
}

// A stored report that does not parse (a workspace changed outside Loopscope): `show --json`
// printed nlohmann's "<discarded>", no JSON, with exit 0; now the report is null and said, and
// `check` names the variant.
TEST_F(CliWorkspace, AStoredReportThatIsNotJsonIsSaidNotPrinted)
{
    ASSERT_EQ(cli("workspace init").exitCode, 0);
    ASSERT_EQ(cli("workspace add " + example("matmul_f32_naive")).exitCode, 0);
    const auto files = folder("proj");
    ASSERT_EQ(files.size(), 1u);
    {
        SQLite::Database db((m_dir / "proj" / files.begin()->first).string(), SQLite::OPEN_READWRITE);
        db.exec("UPDATE figures SET report_json = '{'");
    }
    auto shown = test::run("cd '" + (m_dir / "proj").string() + "' && " LOOPSCOPE_CLI " workspace show matmul_f32_naive --json 2>/dev/null");
    EXPECT_EQ(shown.exitCode, 0) << shown.output;
    const nlohmann::json j = nlohmann::json::parse(shown.output, nullptr, false);
    ASSERT_FALSE(j.is_discarded()) << shown.output;
    EXPECT_TRUE(j["report"].is_null());
    EXPECT_NE(j["report_error"].get<std::string>().find("not JSON"), std::string::npos);
    auto check = cli("workspace check");
    EXPECT_EQ(check.exitCode, 2) << check.output;
    EXPECT_NE(check.output.find("variant 'matmul_f32_naive': its stored report is not JSON"), std::string::npos) << check.output;
}
