// The workspace store: every field round-trips, migrations from a version-1 file, refusals of
// files that are not sound workspaces (left byte-for-byte unchanged), search runs, trace
// differences, variants rebuilt from their stored texts and written back.
#include "store_test_support.h"

#include "store/figures.h"
#include "store/journal_replay.h"
#include "store/schema.h"
#include "store/trace_diff.h"

#include <SQLiteCpp/SQLiteCpp.h>
#include <nlohmann/json.hpp>

#include <functional>
#include <map>

#include <grp.h>
#include <pwd.h>
#include <sys/stat.h>
#include <sys/wait.h>

using namespace loopscope;
using namespace loopscope::test;
namespace fs = std::filesystem;

namespace {

std::unique_ptr<store::Workspace> createWs(const std::string& path)
{
    auto ws = store::Workspace::create(path);
    EXPECT_TRUE(ws.ok()) << ws.errorText();
    return ws.ok() ? std::move(*ws) : nullptr;
}

std::unique_ptr<store::Workspace> openWs(const std::string& path)
{
    auto ws = store::Workspace::open(path);
    EXPECT_TRUE(ws.ok()) << ws.errorText();
    return ws.ok() ? std::move(*ws) : nullptr;
}

} // namespace

TEST(Store, CreateRefusesAnExistingFileAndOpenChecksIt)
{
    ScratchDir dir("store");
    const std::string path = dir / "p.loopscope-workspace";
    {
        auto ws = createWs(path);
        ASSERT_TRUE(ws);
        EXPECT_EQ(ws->schemaVersion(), store::kSchemaVersion);
        EXPECT_TRUE(ws->integrityProblems().empty());
    }
    const std::string before = fileBytes(path);
    auto again = store::Workspace::create(path);
    ASSERT_FALSE(again.ok());
    EXPECT_NE(again.errorText().find("exists"), std::string::npos) << again.errorText();
    EXPECT_EQ(fileBytes(path), before);
    auto ws = openWs(path);
    ASSERT_TRUE(ws);
    EXPECT_FALSE(ws->migratedFrom());
    auto missing = store::Workspace::open(dir / "none.loopscope-workspace");
    ASSERT_FALSE(missing.ok());
    EXPECT_NE(missing.errorText().find("none.loopscope-workspace"), std::string::npos);
    EXPECT_NE(missing.errorText().find("workspace init"), std::string::npos);
}

TEST(Store, VariantRoundTripsEveryField)
{
    ScratchDir dir("store");
    auto ws = createWs(dir / "w.loopscope-workspace");
    ASSERT_TRUE(ws);
    store::NewVariant nv = exampleVariant("matmul_f32_tiled");
    ASSERT_TRUE(nv.figures);
    nv.name = "tiled";
    nv.notes = "16x16 tiles\nline two, with 'quotes' and ünïcode";
    nv.tags = {"seed", "sram"};
    auto id = ws->addVariant(nv);
    ASSERT_TRUE(id.ok()) << id.errorText();
    store::NewVariant child = exampleVariant("matmul_f32_naive");
    child.name = "naive";
    child.parentId = *id;
    auto childId = ws->addVariant(child);
    ASSERT_TRUE(childId.ok()) << childId.errorText();

    store::Measurement m;
    m.variantId = *id;
    m.machine = "qemu mps2-an500 (Cortex-M7)";
    m.compiler = "arm-none-eabi-gcc";
    m.compilerVersion = "12.2.1";
    m.instructions = 123456789012LL;
    ASSERT_TRUE(ws->addMeasurement(m).ok());
    ws.reset();

    ws = openWs(dir / "w.loopscope-workspace");
    ASSERT_TRUE(ws);
    auto v = ws->variantByName("tiled");
    ASSERT_TRUE(v);
    EXPECT_EQ(v->id, *id);
    EXPECT_EQ(v->notes, nv.notes);
    EXPECT_EQ(v->trace, nv.trace);
    EXPECT_EQ(v->trace, readText(sourceDir() + "/examples/schedules/matmul_f32_tiled.sched.yaml"));
    EXPECT_EQ(v->kernelPath, fs::canonical(sourceDir() + "/examples/kernels/matmul_f32.kernel.yaml").string());
    EXPECT_EQ(v->target, "cortex-m7");
    EXPECT_EQ(v->tags, (std::vector<std::string>{"seed", "sram"}));
    EXPECT_FALSE(v->parentId);
    EXPECT_GT(v->createdAt, 0);
    EXPECT_EQ(v->createdAt, v->modifiedAt);
    auto kernel = ws->file(v->kernelHash);
    ASSERT_TRUE(kernel);
    EXPECT_EQ(kernel->text, nv.kernelText);
    EXPECT_EQ(kernel->hash, store::contentHash(nv.kernelText));
    EXPECT_EQ(kernel->kind, store::FileKind::Kernel);
    auto target = ws->file(v->targetHash);
    ASSERT_TRUE(target);
    EXPECT_EQ(target->text, hw::builtinTargetText("cortex-m7"));
    EXPECT_EQ(target->kind, store::FileKind::Target);
    EXPECT_EQ(target->path, "builtin:cortex-m7");
    EXPECT_EQ(store::diskState(*target, builtinText()), store::DiskState::Same);

    ASSERT_TRUE(v->figures);
    const store::Figures& f = *v->figures;
    const store::Figures& g = *nv.figures;
    EXPECT_EQ(f.projectVersion, store::projectVersion());
    EXPECT_EQ(f.macs, g.macs);
    EXPECT_EQ(f.cycles, g.cycles);
    EXPECT_EQ(f.computeCycles, g.computeCycles);
    EXPECT_EQ(f.transferCycles, g.transferCycles);
    EXPECT_DOUBLE_EQ(f.overlapRatio, g.overlapRatio);
    EXPECT_DOUBLE_EQ(f.latencyMs, g.latencyMs);
    EXPECT_DOUBLE_EQ(f.energyUj, g.energyUj);
    EXPECT_EQ(f.boundComputeCycles, g.boundComputeCycles);
    EXPECT_EQ(f.compulsoryBytes, g.compulsoryBytes);
    EXPECT_EQ(f.ioLowerBoundBytes, g.ioLowerBoundBytes);
    EXPECT_EQ(f.predictedInstructions, g.predictedInstructions);
    EXPECT_EQ(f.errors, g.errors);
    EXPECT_EQ(f.warnings, g.warnings);
    EXPECT_EQ(f.reportJson, g.reportJson);
    ASSERT_EQ(f.levels.size(), g.levels.size());
    for (std::size_t i = 0; i < f.levels.size(); ++i) {
        EXPECT_EQ(f.levels[i].name, g.levels[i].name);
        EXPECT_EQ(f.levels[i].capacityBytes, g.levels[i].capacityBytes);
        EXPECT_EQ(f.levels[i].peakBytes, g.levels[i].peakBytes);
        EXPECT_EQ(f.levels[i].readBytes, g.levels[i].readBytes);
        EXPECT_EQ(f.levels[i].writeBytes, g.levels[i].writeBytes);
    }
    EXPECT_EQ(f.innerLevelName(), "SRAM");
    // The key columns are the report's own figures.
    auto doc = nlohmann::json::parse(f.reportJson);
    EXPECT_EQ(doc["cycles"]["total"].get<int64_t>(), f.cycles);
    EXPECT_EQ(doc["levels"][0]["read_bytes"].get<int64_t>() + doc["levels"][0]["write_bytes"].get<int64_t>(), f.homeTrafficBytes());
    EXPECT_EQ(doc["levels"][1]["used_bytes"].get<int64_t>(), f.innerPeakBytes());

    ASSERT_EQ(v->measurements.size(), 1u);
    EXPECT_EQ(v->measurements[0].machine, m.machine);
    EXPECT_EQ(v->measurements[0].compiler, m.compiler);
    EXPECT_EQ(v->measurements[0].compilerVersion, m.compilerVersion);
    EXPECT_EQ(v->measurements[0].instructions, m.instructions);
    EXPECT_EQ(v->measurements[0].projectVersion, store::projectVersion());
    EXPECT_GT(v->measurements[0].measuredAt, 0);

    auto c = ws->variantByName("naive");
    ASSERT_TRUE(c);
    EXPECT_EQ(c->parentId, std::optional<int64_t>(*id));
    EXPECT_EQ(c->kernelHash, v->kernelHash) << "one stored file per content";
    EXPECT_EQ(ws->summary()->files, 2);
    EXPECT_EQ(ws->findVariant(std::to_string(*childId))->name, "naive");
}

TEST(Store, EditsRenameDuplicateDeleteAndOrder)
{
    ScratchDir dir("store");
    auto ws = createWs(dir / "w.loopscope-workspace");
    ASSERT_TRUE(ws);
    store::NewVariant a = exampleVariant("matmul_f32_naive");
    a.name = "a";
    const int64_t ida = *ws->addVariant(a);
    store::NewVariant b = exampleVariant("matmul_f32_tiled");
    b.name = "b";
    const int64_t idb = *ws->addVariant(b);

    auto dup = ws->addVariant(a);
    ASSERT_FALSE(dup.ok());
    EXPECT_NE(dup.errorText().find("'a' exists"), std::string::npos) << dup.errorText();
    store::NewVariant unnamed = a;
    unnamed.name.clear();
    EXPECT_FALSE(ws->addVariant(unnamed).ok());
    EXPECT_EQ(ws->uniqueName("a"), "a-2");
    EXPECT_EQ(ws->uniqueName("c"), "c");

    const auto before = ws->variant(ida)->modifiedAt;
    ASSERT_TRUE(ws->renameVariant(ida, "naive").ok());
    EXPECT_FALSE(ws->renameVariant(ida, "b").ok()) << "names are unique";
    EXPECT_FALSE(ws->renameVariant(ida, "").ok());
    EXPECT_GT(ws->variant(ida)->modifiedAt, before);
    ASSERT_TRUE(ws->setNotes(ida, "slow").ok());
    ASSERT_TRUE(ws->setTags(ida, {"x", "y", "x"}).ok());
    EXPECT_EQ(ws->variant(ida)->tags, (std::vector<std::string>{"x", "y"}));

    auto copy = ws->duplicateVariant(idb, "b-copy");
    ASSERT_TRUE(copy.ok()) << copy.errorText();
    auto c = ws->variant(*copy);
    EXPECT_EQ(c->parentId, std::optional<int64_t>(idb));
    EXPECT_EQ(c->trace, b.trace);
    EXPECT_EQ(c->figures->cycles, b.figures->cycles);

    // Sorting: by name, by cycles (the tiled schedule is faster than the naive one).
    auto byName = ws->variants(store::VariantOrder::Name);
    ASSERT_EQ(byName.size(), 3u);
    EXPECT_EQ(byName[0].name, "b");
    EXPECT_EQ(byName[2].name, "naive");
    auto byCycles = ws->variants(store::VariantOrder::Cycles);
    EXPECT_EQ(byCycles.back().name, "naive");

    // Updating the trace replaces the figures.
    store::NewVariant tiled = exampleVariant("matmul_f32_tiled");
    ASSERT_TRUE(ws->updateTrace(ida, tiled.trace, tiled.figures).ok());
    EXPECT_EQ(ws->variant(ida)->figures->cycles, tiled.figures->cycles);

    // Deleting a parent keeps the child, without a parent.
    ASSERT_TRUE(ws->deleteVariant(idb).ok());
    EXPECT_FALSE(ws->variant(idb));
    EXPECT_FALSE(ws->variant(*copy)->parentId);
    EXPECT_FALSE(ws->deleteVariant(idb).ok());
    EXPECT_TRUE(ws->integrityProblems().empty());
    EXPECT_EQ(ws->summary()->figures, 2);
}

TEST(Store, MigratesAVersion1FileForwardKeepingEverything)
{
    ScratchDir dir("store");
    const std::string path = dir / "old.loopscope-workspace";
    {
        SQLite::Database db(path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
        db.exec(readText(sourceDir() + "/tests/data/store/schema-v1.sql"));
    }
    const std::string v1Bytes = fileBytes(path);
    auto ws = openWs(path);
    ASSERT_TRUE(ws);
    EXPECT_EQ(ws->migratedFrom(), std::optional<int>(1));
    EXPECT_EQ(ws->schemaVersion(), store::kSchemaVersion);
    EXPECT_TRUE(ws->integrityProblems().empty());
    // The version-1 file is kept beside it, as it was.
    EXPECT_EQ(fileBytes(path + ".schema-1.bak").size(), v1Bytes.size());
    {
        auto backup = store::Workspace::openBytes(fileBytes(path + ".schema-1.bak"));
        ASSERT_TRUE(backup.ok()) << backup.errorText();
        EXPECT_EQ((*backup)->schemaVersion(), 1);
    }

    auto tiled = ws->variantByName("tiled");
    ASSERT_TRUE(tiled);
    EXPECT_EQ(tiled->notes, "first try");
    EXPECT_EQ(tiled->trace, "trace one");
    EXPECT_EQ(tiled->tags, (std::vector<std::string>{"fast", "sram", "tiled"})) << "comma-separated tags move to their table";
    EXPECT_EQ(tiled->createdAt, 1700000000001);
    EXPECT_EQ(tiled->modifiedAt, 1700000000002);
    ASSERT_TRUE(tiled->figures);
    EXPECT_EQ(tiled->figures->projectVersion, "0.0.9");
    EXPECT_EQ(tiled->figures->cycles, 5000);
    EXPECT_EQ(tiled->figures->ioLowerBoundBytes, std::optional<int64_t>(2500));
    EXPECT_EQ(tiled->figures->reportJson, "") << "version 1 kept no report document";
    EXPECT_FALSE(tiled->figures->predictedInstructions);
    ASSERT_EQ(tiled->figures->levels.size(), 2u);
    EXPECT_EQ(tiled->figures->innerPeakBytes(), 1024);
    EXPECT_EQ(ws->file("k1")->text, "kernel text");
    auto derived = ws->variantByName("tiled-2");
    ASSERT_TRUE(derived);
    EXPECT_EQ(derived->parentId, std::optional<int64_t>(1));
    EXPECT_TRUE(derived->tags.empty());
    auto sessions = ws->journalSessions();
    ASSERT_EQ(sessions.size(), 1u);
    EXPECT_EQ(ws->journalEntries(sessions[0].id).at(0).state, "state one");

    // What version 2 added works on the migrated file.
    store::Measurement m;
    m.variantId = tiled->id;
    m.machine = "qemu";
    m.compiler = "gcc";
    m.compilerVersion = "12";
    m.instructions = 7;
    EXPECT_TRUE(ws->addMeasurement(m).ok());
    store::SearchRun run;
    run.kernelHash = "k1";
    run.targetHash = "t1";
    EXPECT_TRUE(ws->beginSearchRun(run).ok());
    ws.reset();
    ws = openWs(path);
    ASSERT_TRUE(ws);
    EXPECT_FALSE(ws->migratedFrom()) << "migrated once";
}

TEST(Store, RefusesGarbageTruncatedAndForeignFilesLeavingThemUnchanged)
{
    ScratchDir dir("store");
    // A real workspace with data, to truncate.
    const std::string good = dir / "good.loopscope-workspace";
    {
        auto ws = createWs(good);
        ASSERT_TRUE(ws);
        for (int i = 0; i < 20; ++i) {
            store::NewVariant v = exampleVariant("matmul_f32_tiled");
            v.name = "v" + std::to_string(i);
            ASSERT_TRUE(ws->addVariant(v).ok());
        }
    }
    const std::string goodBytes = fileBytes(good);
    ASSERT_GT(goodBytes.size(), 8192u);
    struct Case {
        std::string name;
        std::string bytes;
        std::string expect;
    };
    // B-tree page headers overwritten (integrity_check finds broken structure; it does not
    // read the meaning of the values inside intact pages).
    std::string flipped = goodBytes;
    for (std::size_t page = 1; page * 4096 < flipped.size(); ++page)
        for (std::size_t i = 0; i < 12; ++i)
            flipped[page * 4096 + i] = '\x77';
    std::vector<Case> cases = {
        {"empty", "", "empty"},
        {"garbage", std::string(5000, '\x7f') + "not a database", "not an SQLite database"},
        {"text", "description: not a workspace\n", "not an SQLite database"},
        {"truncated-header", goodBytes.substr(0, 60), "not an SQLite database"},
        {"truncated-half", goodBytes.substr(0, goodBytes.size() / 2), "corrupt"},
        {"flipped", flipped, "corrupt"},
    };
    for (const Case& c : cases) {
        const std::string path = dir / (c.name + ".loopscope-workspace");
        writeBytes(path, c.bytes);
        auto ws = store::Workspace::open(path);
        EXPECT_FALSE(ws.ok()) << c.name;
        if (!ws.ok()) {
            EXPECT_NE(ws.errorText().find(path), std::string::npos) << ws.errorText();
            EXPECT_NE(ws.errorText().find(c.expect), std::string::npos) << c.name << ": " << ws.errorText();
        }
        EXPECT_EQ(fileBytes(path), c.bytes) << c.name << " was modified";
        EXPECT_FALSE(fs::exists(path + "-wal")) << c.name;
        auto mem = store::Workspace::openBytes(c.bytes);
        EXPECT_FALSE(mem.ok()) << c.name;
    }
    // An sqlite database of another program.
    const std::string foreign = dir / "foreign.loopscope-workspace";
    {
        SQLite::Database db(foreign, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
        db.exec("CREATE TABLE t(x); INSERT INTO t VALUES (1);");
    }
    const std::string foreignBytes = fileBytes(foreign);
    auto f = store::Workspace::open(foreign);
    ASSERT_FALSE(f.ok());
    EXPECT_NE(f.errorText().find("another program"), std::string::npos) << f.errorText();
    EXPECT_EQ(fileBytes(foreign), foreignBytes);
}

namespace {

/// The names of the files in a folder with their bytes.
std::map<std::string, std::string> folderBytes(const fs::path& dir)
{
    std::map<std::string, std::string> out;
    for (const auto& e : fs::directory_iterator(dir))
        if (e.is_regular_file())
            out[e.path().filename().string()] = fileBytes(e.path().string());
    return out;
}

/// Runs `body` in a child process as a user who may not write the test's files: user nobody
/// when the tests run as root (root may write any file, so a read-only file cannot be made
/// for it), else this user. Returns what `body` reported ("" when all went well); `skip` says
/// why it could not run.
std::string asReader(const std::function<std::string()>& body, std::string& skip)
{
    int fds[2];
    if (pipe(fds) != 0)
        return "pipe failed";
    const pid_t child = fork();
    if (child < 0)
        return "fork failed";
    if (child == 0) {
        close(fds[0]);
        if (geteuid() == 0) {
            const passwd* nobody = getpwnam("nobody");
            if (!nobody || setgroups(0, nullptr) != 0 || setgid(nobody->pw_gid) != 0 || setuid(nobody->pw_uid) != 0)
                _exit(77);
        }
        const std::string problems = body();
        (void)!write(fds[1], problems.data(), problems.size());
        _exit(0);
    }
    close(fds[1]);
    std::string out;
    char buf[4096];
    for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;)
        out.append(buf, static_cast<std::size_t>(n));
    close(fds[0]);
    int status = 0;
    waitpid(child, &status, 0);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 77)
        skip = "running as root and cannot become user nobody to make a file read-only for the reader";
    else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        out += "the reader ended with status " + std::to_string(status);
    return out;
}

/// What a reader of a workspace it may not write checks: it opens read-only, lists `variants`
/// variants without an error, and refuses a change with a message.
std::string readOnlyChecks(const std::string& path, std::size_t variants, const store::NewVariant& extra)
{
    std::string problems;
    auto ws = store::Workspace::open(path);
    if (!ws)
        return path + ": " + ws.errorText();
    if (!(*ws)->isReadOnly())
        problems += path + ": not opened read-only; ";
    const auto all = (*ws)->variants();
    if (all.size() != variants)
        problems += path + ": " + std::to_string(all.size()) + " variants listed instead of " + std::to_string(variants) + " (" + (*ws)->lastError() + "); ";
    if (!(*ws)->lastError().empty())
        problems += path + ": " + (*ws)->lastError() + "; ";
    if (!(*ws)->integrityProblems().empty())
        problems += path + ": integrity check failed; ";
    auto add = (*ws)->addVariant(extra);
    if (add.ok() || add.errorText().find("read-only") == std::string::npos)
        problems += path + ": a change was not refused as read-only (" + (add.ok() ? std::string("it was made") : add.errorText()) + "); ";
    return problems;
}

} // namespace

TEST(Store, RefusesANewerSchemaAndOpensReadOnlyFilesForReading)
{
    ScratchDir dir("store");
    const std::string path = dir / "w.loopscope-workspace";
    {
        auto ws = createWs(path);
        store::NewVariant v = exampleVariant("matmul_f32_tiled");
        v.name = "t";
        ASSERT_TRUE(ws->addVariant(v).ok());
    }
    // Newer schema.
    const std::string newer = dir / "newer.loopscope-workspace";
    fs::copy_file(path, newer);
    {
        SQLite::Database db(newer, SQLite::OPEN_READWRITE);
        db.exec("PRAGMA user_version = " + std::to_string(store::kSchemaVersion + 1));
        db.exec("PRAGMA journal_mode = DELETE");
    }
    const std::string newerBytes = fileBytes(newer);
    auto n = store::Workspace::open(newer);
    ASSERT_FALSE(n.ok());
    EXPECT_NE(n.errorText().find("newer Loopscope"), std::string::npos) << n.errorText();
    EXPECT_EQ(fileBytes(newer), newerBytes);

    // Read-only workspaces: readable, every change refused with a message, nothing changed.
    store::NewVariant tiled = exampleVariant("matmul_f32_tiled");
    store::NewVariant naive = exampleVariant("matmul_f32_naive");
    tiled.name = "t";
    naive.name = "n";
    auto make = [&](const fs::path& folder) {
        fs::create_directories(folder);
        const std::string path = (folder / "w.loopscope-workspace").string();
        auto ws = createWs(path);
        EXPECT_TRUE(ws && ws->addVariant(tiled).ok());
        return path;
    };
    // (a) a folder the reader may not write; (b) a read-only file in a folder it may write
    // (sqlite would leave a -wal and -shm there); (c) a workspace another process has open,
    // with a variant only in its -wal file; (d) a schema-1 file, migrated in memory only.
    const std::string a = make(dir.path() / "a");
    const std::string b = make(dir.path() / "b");
    const std::string c = make(dir.path() / "c");
    fs::create_directories(dir.path() / "d");
    const std::string d = (dir.path() / "d" / "old.loopscope-workspace").string();
    {
        SQLite::Database db(d, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
        db.exec(readText(sourceDir() + "/tests/data/store/schema-v1.sql"));
    }
    // The writer of (c) is a process of its own: a reader forked from a process with an open
    // connection would share that connection's memory-mapped -shm (sqlite's rule: no open
    // database across a fork).
    int ready[2], hold[2];
    ASSERT_EQ(pipe(ready), 0);
    ASSERT_EQ(pipe(hold), 0);
    const pid_t holder = fork();
    ASSERT_GE(holder, 0);
    if (holder == 0) {
        close(ready[0]);
        close(hold[1]);
        {
            auto ws = store::Workspace::open(c);
            const char ok = ws && (*ws)->addVariant(naive).ok() ? 'y' : 'n';
            (void)!write(ready[1], &ok, 1);
            char any;
            (void)!read(hold[0], &any, 1);  // until the parent lets go
        }
        _exit(0);
    }
    close(ready[1]);
    close(hold[0]);
    char ok = 0;
    ASSERT_EQ(read(ready[0], &ok, 1), 1);
    ASSERT_EQ(ok, 'y');
    ASSERT_TRUE(fs::exists(c + "-wal"));
    // Writable again at the end, so that the folders can be removed (also when a check fails).
    struct Restore {
        fs::path root;
        ~Restore()
        {
            std::error_code ec;
            for (const char* folder : {"a", "b", "c", "d"})
                fs::permissions(root / folder, fs::perms::owner_all, fs::perm_options::add, ec);
        }
    } restore{dir.path()};
    for (const char* folder : {"a", "c", "d"})
        fs::permissions(dir.path() / folder, fs::perms::owner_read | fs::perms::owner_exec | fs::perms::group_read | fs::perms::group_exec
                                                 | fs::perms::others_read | fs::perms::others_exec);
    fs::permissions(dir.path() / "b", fs::perms::all);
    fs::permissions(b, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
    fs::permissions(dir.path(), fs::perms::all);

    std::map<std::string, std::map<std::string, std::string>> before;
    for (const char* folder : {"a", "b", "c", "d"})
        before[folder] = folderBytes(dir.path() / folder);
    std::string skip;
    const std::string problems = asReader(
        [&] {
            std::string p = readOnlyChecks(a, 1, naive) + readOnlyChecks(b, 1, naive) + readOnlyChecks(c, 2, naive) + readOnlyChecks(d, 2, naive);
            auto old = store::Workspace::open(d);
            if (old && ((*old)->schemaVersion() != 1 || !(*old)->variantByName("tiled") || (*old)->variantByName("tiled")->tags.size() != 3))
                p += "the schema-1 file does not read as it was migrated; ";
            return p;
        },
        skip);
    if (!skip.empty())
        GTEST_SKIP() << skip;
    EXPECT_EQ(problems, "");
    for (const char* folder : {"a", "b", "c", "d"}) {
        const auto after = folderBytes(dir.path() / folder);
        std::string changed;
        for (const auto& [name, bytes] : after)
            if (!before[folder].count(name) || before[folder][name] != bytes)
                changed += " " + name;
        for (const auto& [name, bytes] : before[folder])
            if (!after.count(name))
                changed += " -" + name;
        EXPECT_EQ(changed, "") << folder << ": the reader changed, added or removed these files";
    }
    close(hold[1]);
    close(ready[0]);
    int status = 0;
    waitpid(holder, &status, 0);
    EXPECT_EQ(openWs(c)->variants().size(), 2u);
}

TEST(Store, ExplicitReadOnlyOpenRefusesChanges)
{
    ScratchDir dir("store");
    const std::string path = dir / "w.loopscope-workspace";
    createWs(path);
    auto ro = store::Workspace::open(path, {true, 1000});
    ASSERT_TRUE(ro.ok());
    auto r = (*ro)->beginJournal({});
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.errorText().find("read-only"), std::string::npos);
}

TEST(Store, ALockedWorkspaceGivesAClearMessageAfterTheBusyTimeout)
{
    ScratchDir dir("store");
    const std::string path = dir / "w.loopscope-workspace";
    createWs(path);
    // Another program holds the file exclusively (as `sqlite3` with locking_mode=EXCLUSIVE does).
    SQLite::Database other(path, SQLite::OPEN_READWRITE);
    other.exec("PRAGMA locking_mode = EXCLUSIVE");
    other.exec("BEGIN EXCLUSIVE");
    other.exec("CREATE TABLE scratch(x)");
    auto ws = store::Workspace::open(path, {false, 200});
    ASSERT_FALSE(ws.ok());
    EXPECT_NE(ws.errorText().find("locked by another program"), std::string::npos) << ws.errorText();
    other.exec("ROLLBACK");
}

TEST(Store, SearchRunsStreamProgressAndParetoPoints)
{
    ScratchDir dir("store");
    auto ws = createWs(dir / "w.loopscope-workspace");
    ASSERT_TRUE(ws);
    store::NewVariant base = exampleVariant("matmul_f32_naive");
    base.name = "base";
    const int64_t baseId = *ws->addVariant(base);
    store::SearchRun run;
    run.kernelHash = ws->variant(baseId)->kernelHash;
    run.targetHash = ws->variant(baseId)->targetHash;
    run.baseVariantId = baseId;
    run.parametersJson = R"({"objectives":["cycles","sram_bytes"],"budget":500})";
    run.total = 500;
    auto runId = ws->beginSearchRun(run);
    ASSERT_TRUE(runId.ok()) << runId.errorText();
    EXPECT_EQ(ws->searchRun(*runId)->status, store::SearchStatus::Running);

    std::vector<int64_t> points;
    for (int i = 0; i < 5; ++i) {
        store::NewVariant p = exampleVariant(i % 2 ? "matmul_f32_tiled" : "matmul_f32_naive");
        p.name = "search-" + std::to_string(*runId) + "/" + std::to_string(i);
        p.parentId = baseId;
        auto id = ws->addSearchPoint(*runId, p, R"({"cycles":)" + std::to_string(p.figures->cycles) + "}");
        ASSERT_TRUE(id.ok()) << id.errorText();
        points.push_back(*id);
        ASSERT_TRUE(ws->updateSearchProgress(*runId, 100 * (i + 1), 500, 20 * (i + 1)).ok());
    }
    ASSERT_TRUE(ws->setOnFront(*runId, points[0], false).ok());
    EXPECT_FALSE(ws->setOnFront(*runId, baseId, false).ok()) << "the base is no point of the run";
    auto mid = ws->searchRun(*runId);
    EXPECT_EQ(mid->evaluated, 500);
    EXPECT_EQ(mid->feasible, 100);
    EXPECT_FALSE(mid->finishedAt);
    ASSERT_TRUE(ws->finishSearchRun(*runId, store::SearchStatus::Finished).ok());
    EXPECT_FALSE(ws->updateSearchProgress(*runId, 1, 1, 1).ok()) << "a finished run takes no progress";
    ws.reset();

    ws = openWs(dir / "w.loopscope-workspace");
    auto done = ws->searchRun(*runId);
    ASSERT_TRUE(done);
    EXPECT_EQ(done->status, store::SearchStatus::Finished);
    EXPECT_TRUE(done->finishedAt);
    EXPECT_EQ(done->parametersJson, run.parametersJson);
    EXPECT_EQ(done->baseVariantId, std::optional<int64_t>(baseId));
    EXPECT_EQ(done->projectVersion, store::projectVersion());
    EXPECT_EQ(ws->searchPoints(*runId).size(), 5u);
    EXPECT_EQ(ws->searchPoints(*runId, true).size(), 4u);
    auto p = ws->variant(points[1]);
    ASSERT_TRUE(p);
    EXPECT_EQ(p->searchRunId, std::optional<int64_t>(*runId));
    EXPECT_EQ(p->parentId, std::optional<int64_t>(baseId));
    EXPECT_NE(std::find(p->tags.begin(), p->tags.end(), "search"), p->tags.end());
    EXPECT_EQ(nlohmann::json::parse(ws->searchPoints(*runId)[1].objectivesJson)["cycles"].get<int64_t>(), p->figures->cycles);
    // Deleting a point's variant removes the point.
    ASSERT_TRUE(ws->deleteVariant(points[2]).ok());
    EXPECT_EQ(ws->searchPoints(*runId).size(), 4u);
    EXPECT_TRUE(ws->integrityProblems().empty());
}

TEST(Store, JournalSessionsAndWhatIsRecoverable)
{
    ScratchDir dir("store");
    auto ws = createWs(dir / "w.loopscope-workspace");
    store::JournalSession s;
    s.document = "/p/a.sched.yaml";
    s.base = "base text";
    auto id = ws->beginJournal(s);
    ASSERT_TRUE(id.ok());
    for (int i = 1; i <= 3; ++i) {
        store::JournalEntry e;
        e.action = "edit " + std::to_string(i);
        e.undoIndex = i;
        e.state = "state " + std::to_string(i);
        EXPECT_EQ(*ws->appendJournal(*id, e), i);
    }
    auto entries = ws->journalEntries(*id);
    ASSERT_EQ(entries.size(), 3u);
    EXPECT_EQ(entries[2].state, "state 3");
    EXPECT_EQ(entries[2].undoIndex, 3);
    EXPECT_TRUE(ws->recoverable().empty()) << "this process is alive";
    auto sessions = ws->journalSessions();
    ASSERT_EQ(sessions.size(), 1u);
    EXPECT_EQ(sessions[0].pid, getpid());
    EXPECT_EQ(sessions[0].entries, 3);
    ASSERT_TRUE(ws->closeJournal(*id).ok());
    EXPECT_TRUE(ws->journalSessions().empty());
    EXPECT_EQ(ws->summary()->journalEntries, 0);
}

TEST(Store, JournalRoundTripsEveryField)
{
    ScratchDir dir("store");
    const std::string path = dir / "w.loopscope-workspace";
    int64_t variantId = 0;
    int64_t sessionId = 0;
    {
        auto ws = createWs(path);
        store::NewVariant v = exampleVariant("matmul_f32_tiled");
        v.name = "t";
        variantId = *ws->addVariant(v);
        store::JournalSession s;
        s.document = "/p/ünïcode 'quoted'.sched.yaml";
        s.base = "kernel: k\ntarget: cortex-m7\nsteps: []\n";
        s.variantId = variantId;
        s.startedAt = 1700000000123;
        sessionId = *ws->beginJournal(s);
        store::JournalEntry e;
        e.at = 1700000000456;
        e.action = "undo: split j by 16";
        e.undoIndex = -2;  // after a save, an undo goes below the session's start
        e.clean = true;
        e.state = std::string(70000, 'x') + "\nend";  // bigger than a page
        ASSERT_EQ(*ws->appendJournal(sessionId, e), 1);
    }
    auto ws = openWs(path);
    auto sessions = ws->journalSessions();
    ASSERT_EQ(sessions.size(), 1u);
    const store::JournalSession& s = sessions[0];
    EXPECT_EQ(s.id, sessionId);
    EXPECT_EQ(s.document, "/p/ünïcode 'quoted'.sched.yaml");
    EXPECT_EQ(s.base, "kernel: k\ntarget: cortex-m7\nsteps: []\n");
    EXPECT_EQ(s.variantId, std::optional<int64_t>(variantId));
    EXPECT_EQ(s.pid, getpid());
    EXPECT_FALSE(s.host.empty());
    EXPECT_EQ(s.startedAt, 1700000000123);
    EXPECT_FALSE(s.closedAt);
    EXPECT_EQ(s.entries, 1);
    auto entries = ws->journalEntries(sessionId);
    ASSERT_EQ(entries.size(), 1u);
    const store::JournalEntry& e = entries[0];
    EXPECT_EQ(e.sessionId, sessionId);
    EXPECT_EQ(e.seq, 1);
    EXPECT_EQ(e.at, 1700000000456);
    EXPECT_EQ(e.action, "undo: split j by 16");
    EXPECT_EQ(e.undoIndex, -2);
    EXPECT_TRUE(e.clean);
    EXPECT_EQ(e.state, std::string(70000, 'x') + "\nend");
    // Deleting the variant a session was opened from keeps the session, without it.
    ASSERT_TRUE(ws->deleteVariant(variantId).ok());
    EXPECT_FALSE(ws->journalSessions()[0].variantId);
    EXPECT_TRUE(ws->integrityProblems().empty());
}

TEST(Store, TheVariantsStampChangesWithTheVariantsOnly)
{
    ScratchDir dir("store");
    const std::string path = dir / "w.loopscope-workspace";
    auto ws = createWs(path);
    auto other = openWs(path);  // another program's connection
    std::string stamp = ws->variantsStamp();
    EXPECT_FALSE(stamp.empty());
    auto changed = [&] {
        const std::string now = ws->variantsStamp();
        const bool c = now != stamp;
        stamp = now;
        return c;
    };
    store::NewVariant v = exampleVariant("matmul_f32_tiled");
    v.name = "t";
    const int64_t id = *other->addVariant(v);
    EXPECT_TRUE(changed()) << "added";
    auto session = *other->beginJournal({});
    store::JournalEntry e;
    e.state = "s";
    ASSERT_TRUE(other->appendJournal(session, e).ok());
    EXPECT_FALSE(changed()) << "a journal entry";
    ASSERT_TRUE(other->renameVariant(id, "u").ok());
    EXPECT_TRUE(changed()) << "renamed";
    ASSERT_TRUE(other->setNotes(id, "n").ok());
    EXPECT_TRUE(changed()) << "notes";
    store::Measurement m;
    m.variantId = id;
    m.instructions = 5;
    ASSERT_TRUE(other->addMeasurement(m).ok());
    EXPECT_TRUE(changed()) << "measured";
    store::Figures f = *v.figures;
    f.projectVersion = "9.9.9";
    f.analyzedAt = store::nowMillis() + 1000;
    ASSERT_TRUE(other->addFigures(id, f).ok());
    EXPECT_TRUE(changed()) << "figures";
    ASSERT_TRUE(other->deleteVariant(id).ok());
    EXPECT_TRUE(changed()) << "deleted";
    EXPECT_FALSE(changed()) << "nothing happened";
}

TEST(Store, OpenBytesReadsAWorkspaceInMemory)
{
    ScratchDir dir("store");
    const std::string path = dir / "w.loopscope-workspace";
    {
        auto ws = createWs(path);
        store::NewVariant v = exampleVariant("matmul_f32_tiled");
        v.name = "t";
        ASSERT_TRUE(ws->addVariant(v).ok());
    }
    auto mem = store::Workspace::openBytes(fileBytes(path));
    ASSERT_TRUE(mem.ok()) << mem.errorText();
    EXPECT_TRUE((*mem)->isReadOnly());
    auto all = (*mem)->readEverything();
    ASSERT_TRUE(all.ok()) << all.errorText();
    EXPECT_EQ(all->variants, 1);
    EXPECT_EQ((*mem)->variantByName("t")->figures->levels.size(), 2u);
    EXPECT_FALSE((*mem)->setNotes(1, "x").ok());
}

TEST(Store, FindsTheWorkspaceOfAFolder)
{
    ScratchDir dir("store");
    EXPECT_FALSE(*store::findWorkspaceIn(dir.path().string()));
    const std::string preferred = store::defaultWorkspacePath(dir.path().string());
    EXPECT_EQ(fs::path(preferred).filename().string(), dir.path().filename().string() + ".loopscope-workspace");
    createWs(dir / "other.loopscope-workspace");
    EXPECT_EQ(**store::findWorkspaceIn(dir.path().string()), dir / "other.loopscope-workspace");
    createWs(dir / "third.loopscope-workspace");
    auto several = store::findWorkspaceIn(dir.path().string());
    ASSERT_FALSE(several.ok());
    EXPECT_NE(several.errorText().find("other.loopscope-workspace, third.loopscope-workspace"), std::string::npos);
    createWs(preferred);
    EXPECT_EQ(**store::findWorkspaceIn(dir.path().string()), preferred) << "the folder's own name wins";
}

TEST(Store, RebuildsAVariantFromItsStoredTextsAfterTheFilesChange)
{
    ScratchDir dir("store");
    // A project of its own: kernel, target file and schedule, later edited.
    fs::copy_file(sourceDir() + "/examples/kernels/matmul_f32.kernel.yaml", dir / "mm.kernel.yaml");
    fs::copy_file(sourceDir() + "/tests/data/targets/tiny-sram.target.yaml", dir / "t.target.yaml");
    std::string sched = readText(sourceDir() + "/examples/schedules/matmul_f32_naive.sched.yaml");
    writeBytes(dir / "mm.sched.yaml", "kernel: mm.kernel.yaml\ntarget: t.target.yaml\nsteps:\n  - split: {loop: i, factor: 4}\n");
    auto nv = store::variantFromScheduleFile(dir / "mm.sched.yaml", targetParser(), builtinText());
    ASSERT_TRUE(nv.ok()) << nv.errorText();
    EXPECT_EQ(nv->name, "mm");
    auto ws = createWs(dir / "w.loopscope-workspace");
    const int64_t id = *ws->addVariant(*nv);
    auto v = *ws->variant(id);
    EXPECT_EQ(store::diskState(*ws->file(v.kernelHash), builtinText()), store::DiskState::Same);

    // The kernel on disk changes (a size): the variant still rebuilds as it was saved.
    std::string kernel = readText(dir / "mm.kernel.yaml");
    writeBytes(dir / "mm.kernel.yaml", kernel + "\n# edited\n");
    EXPECT_EQ(store::diskState(*ws->file(v.kernelHash), builtinText()), store::DiskState::Changed);
    fs::remove(dir / "t.target.yaml");
    EXPECT_EQ(store::diskState(*ws->file(v.targetHash), builtinText()), store::DiskState::Missing);
    auto p = store::rebuildVariant(*ws, v, targetParser());
    ASSERT_TRUE(p.ok()) << p.errorText();
    EXPECT_FALSE(p->failedStep);
    EXPECT_EQ(store::analyzeFigures(p->program).cycles, v.figures->cycles);

    // Written back: the stored kernel and target are written beside the schedule, which
    // references them, and the result loads and gives the same figures.
    fs::create_directories(dir / "out");
    auto ex = store::exportVariant(*ws, v, dir / "out/mm.sched.yaml", builtinText());
    ASSERT_TRUE(ex.ok()) << ex.errorText();
    ASSERT_EQ(ex->extraFiles.size(), 2u);
    EXPECT_EQ(ex->notes.size(), 2u);
    for (const auto& [path, text] : ex->extraFiles)
        writeBytes(path, text);
    writeBytes(dir / "out/mm.sched.yaml", ex->text);
    auto back = store::variantFromScheduleFile(dir / "out/mm.sched.yaml", targetParser(), builtinText());
    ASSERT_TRUE(back.ok()) << back.errorText();
    EXPECT_EQ(back->figures->cycles, v.figures->cycles);
    EXPECT_EQ(back->kernelText, kernel);
}

TEST(Store, AScheduleIsTheStoredOneWithItsStepsParametersKernelAndTarget)
{
    // What the app checks before it keeps a measurement with the variant the document came from.
    ScratchDir dir("store");
    fs::copy_file(sourceDir() + "/examples/kernels/matmul_f32.kernel.yaml", dir / "mm.kernel.yaml");
    writeBytes(dir / "mm.sched.yaml", "kernel: mm.kernel.yaml\ntarget: cortex-m7\nparams: {M: 32}\ndescription: first\n"
                                      "steps:\n  - split: {loop: i, factor: 4}\n");
    auto nv = store::variantFromScheduleFile(dir / "mm.sched.yaml", targetParser(), builtinText());
    ASSERT_TRUE(nv.ok()) << nv.errorText();
    auto ws = createWs(dir / "w.loopscope-workspace");
    const store::Variant v = *ws->variant(*ws->addVariant(*nv));
    // The schedule as another program holds it: steps written elsewhere (other locations),
    // another description and path.
    auto same = sched::parseScheduleFile("# moved\nkernel: /elsewhere/mm.kernel.yaml\ntarget: cortex-m7\ndescription: other\n"
                                         "params: {M: 32}\nsteps: [{split: {loop: i, factor: 4}}]\n", "copy");
    ASSERT_TRUE(same.ok()) << same.errorText();
    const std::string kernel = readText(dir / "mm.kernel.yaml");
    const std::string target = builtinText()("cortex-m7");
    EXPECT_TRUE(store::isStoredSchedule(v, *same, kernel, target));
    // Another step, factor, parameter, kernel text or target is not the stored schedule.
    auto other = *same;
    other.steps[0].factor = 8;
    EXPECT_FALSE(store::isStoredSchedule(v, other, kernel, target));
    other = *same;
    other.steps.push_back(other.steps[0]);
    EXPECT_FALSE(store::isStoredSchedule(v, other, kernel, target));
    other = *same;
    other.params["M"] = 64;
    EXPECT_FALSE(store::isStoredSchedule(v, other, kernel, target));
    EXPECT_FALSE(store::isStoredSchedule(v, *same, kernel + "\n", target));
    EXPECT_FALSE(store::isStoredSchedule(v, *same, kernel, builtinText()("cortex-m4")));
    // A stored trace that does not parse describes nothing.
    store::Variant broken = v;
    broken.trace = "steps: [";
    EXPECT_FALSE(store::isStoredSchedule(broken, *same, kernel, target));

    // A measurement keeps its machine, compiler and version and the kernel's own instructions.
    codegen::Measurement m;
    m.ok = true;
    m.machine = "qemu mps2-an500 (Cortex-M7)";
    m.kernelInstructions = 1234;
    m.copyInstructions = 99;
    m.compiler = "arm-none-eabi-gcc";
    m.compilerVersion = "12.2.1";
    const store::Measurement sm = store::measurementOf(m, v.id);
    EXPECT_EQ(sm.variantId, v.id);
    EXPECT_EQ(sm.machine, m.machine);
    EXPECT_EQ(sm.compiler, "arm-none-eabi-gcc");
    EXPECT_EQ(sm.compilerVersion, "12.2.1");
    EXPECT_EQ(sm.instructions, 1234);
    EXPECT_EQ(sm.projectVersion, store::projectVersion());
}

TEST(Store, AScheduleThatDoesNotReplayIsRefusedWithItsStep)
{
    auto nv = store::variantFromScheduleFile(sourceDir() + "/docs/tutorial/matmul_broken.sched.yaml", targetParser(), builtinText());
    ASSERT_FALSE(nv.ok());
    EXPECT_NE(nv.errorText().find("matmul_broken.sched.yaml:"), std::string::npos) << nv.errorText();
    EXPECT_NE(nv.errorText().find("step"), std::string::npos) << nv.errorText();
}

TEST(TraceDiff, AddedRemovedAndChangedSteps)
{
    auto a = sched::parseScheduleFile(readText(sourceDir() + "/examples/schedules/matmul_f32_tiled.sched.yaml"), "a");
    ASSERT_TRUE(a.ok());
    std::vector<sched::Step> b = a->steps;
    b[1].factor = 8;                 // split j by 8 instead of 16: changed
    b.erase(b.begin() + 4);          // cache_read B removed
    sched::Step u;
    u.primitive = sched::Primitive::Unroll;
    u.loops = {"j.inner"};
    b.push_back(u);                  // unroll added
    auto d = store::diffSteps(a->steps, b);
    int same = 0, added = 0, removed = 0, changed = 0;
    for (const auto& c : d) {
        same += c.kind == store::ChangeKind::Same;
        added += c.kind == store::ChangeKind::Added;
        removed += c.kind == store::ChangeKind::Removed;
        changed += c.kind == store::ChangeKind::Changed;
    }
    EXPECT_EQ(same, 3);
    EXPECT_EQ(added, 1);
    EXPECT_EQ(removed, 1);
    EXPECT_EQ(changed, 1);
    auto ch = std::find_if(d.begin(), d.end(), [](const auto& c) { return c.kind == store::ChangeKind::Changed; });
    EXPECT_EQ(ch->indexA, 1);
    EXPECT_EQ(ch->before, "split j by 16");
    EXPECT_EQ(ch->after, "split j by 8");
    EXPECT_TRUE(store::diffSteps(a->steps, a->steps).size() == a->steps.size());

    auto lines = store::diffLines(store::splitLines("a\nb\nc\n"), store::splitLines("a\nx\nc"));
    ASSERT_EQ(lines.size(), 4u);
    EXPECT_EQ(lines[1].kind, store::ChangeKind::Removed);
    EXPECT_EQ(lines[1].text, "b");
    EXPECT_EQ(lines[2].kind, store::ChangeKind::Added);
    EXPECT_EQ(lines[2].text, "x");
}

TEST(JournalReplay, RebuildsTheUndoStackFromPushesMergesUndosAndRedos)
{
    auto edit = [](int index, const std::string& state) {
        store::JournalEntry e;
        e.action = "edit to " + state;
        e.undoIndex = index;
        e.state = state;
        return e;
    };
    auto undo = [](int index, const std::string& state) {
        store::JournalEntry e;
        e.action = std::string(store::kJournalUndo) + "x";
        e.undoIndex = index;
        e.state = state;
        return e;
    };
    auto redo = [](int index, const std::string& state) {
        store::JournalEntry e;
        e.action = std::string(store::kJournalRedo) + "x";
        e.undoIndex = index;
        e.state = state;
        return e;
    };
    // s1, s2; undo, redo, undo; a new edit drops s2; a merge replaces it; undo.
    const std::vector<store::JournalEntry> entries = {edit(1, "s1"), edit(2, "s2"), undo(1, "s1"), redo(2, "s2"), undo(1, "s1"),
                                                      edit(2, "s3"), edit(2, "s3b"), undo(1, "s1")};
    auto h = store::replayJournal("base", entries);
    EXPECT_TRUE(h.exact);
    ASSERT_EQ(h.commands.size(), 2u);
    EXPECT_EQ(h.commands[0].state, "s1");
    EXPECT_EQ(h.commands[1].state, "s3b");
    EXPECT_EQ(h.commands[1].action, "edit to s3b");
    EXPECT_EQ(h.index, 1);
    EXPECT_EQ(h.state("base"), "s1");
    // Everything undone: the base; a command merged into nothing.
    auto back = store::replayJournal("base", {edit(1, "s1"), undo(0, "base")});
    EXPECT_TRUE(back.exact);
    EXPECT_EQ(back.index, 0);
    EXPECT_EQ(back.commands.size(), 1u) << "it can be redone";
    auto gone = store::replayJournal("base", {edit(1, "s1"), edit(0, "base")});
    EXPECT_TRUE(gone.exact);
    EXPECT_TRUE(gone.commands.empty());
    // An undo past where the session began (after a save), or a state that does not follow:
    // one command to the last state.
    for (const auto& odd : {std::vector<store::JournalEntry>{edit(1, "s1"), undo(-1, "older")},
                            std::vector<store::JournalEntry>{edit(1, "s1"), edit(2, "s2"), undo(1, "not s1")},
                            std::vector<store::JournalEntry>{edit(1, "s1"), edit(3, "s3")}}) {
        auto flat = store::replayJournal("base", odd);
        EXPECT_FALSE(flat.exact);
        ASSERT_EQ(flat.commands.size(), 1u);
        EXPECT_EQ(flat.index, 1);
        EXPECT_EQ(flat.state("base"), odd.back().state);
    }
}
