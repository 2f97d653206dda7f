// Opening, creating, checking and migrating a workspace file; stored kernel and target files.
#include "store/workspace.h"

#include "store/schema.h"
#include "store/workspace_impl.h"

#include <sqlite3.h>
#include <openssl/evp.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include <unistd.h>

namespace fs = std::filesystem;

namespace loopscope::store {

namespace {

Diagnostic errorAt(const std::string& path, const std::string& message) { return Diagnostic{Severity::Error, SourceLoc{path, 0, 0}, message}; }

/// The first bytes of every SQLite 3 database file.
constexpr char kSqliteMagic[] = "SQLite format 3";

/// Refuses what is plainly not a database before sqlite sees it: sqlite would take an empty
/// file for a new database and write to it.
std::optional<std::string> notADatabase(std::string_view head, std::size_t size)
{
    if (size == 0)
        return "not a Loopscope workspace: the file is empty";
    if (size < 100 || head.substr(0, 16) != std::string_view(kSqliteMagic, 16))
        return "not a Loopscope workspace: not an SQLite database (truncated or another kind of file)";
    return std::nullopt;
}

/// Checks an open connection without writing: application id, schema version, integrity.
std::optional<std::string> validate(SQLite::Database& db, int& version)
{
    const int appId = db.execAndGet("PRAGMA application_id").getInt();
    version = db.execAndGet("PRAGMA user_version").getInt();
    if (appId != detail::kApplicationId)
        return "not a Loopscope workspace: an SQLite database of another program (application id " + std::to_string(appId) + ")";
    if (version > kSchemaVersion)
        return "written by a newer Loopscope (schema version " + std::to_string(version) + "; this one reads up to " + std::to_string(kSchemaVersion)
            + "): left unchanged, open it with that version";
    if (version < 1)
        return "not a Loopscope workspace: no schema version";
    SQLite::Statement check(db, "PRAGMA integrity_check");
    std::string problems;
    int n = 0;
    while (check.executeStep()) {
        const std::string row = check.getColumn(0).getString();
        if (row == "ok")
            continue;
        if (n++ < 5)
            problems += (problems.empty() ? "" : "; ") + row;
    }
    if (n > 0)
        return "the workspace is corrupt (integrity check: " + problems + (n > 5 ? "; ..." : "") + "): left unchanged";
    return std::nullopt;
}

} // namespace

std::string Workspace::Impl::detail_describe(const SQLite::Exception& e) { return detail::describeFailure(e, "cannot read the workspace"); }

namespace detail {

/// A URI that opens `path` read-only without locks or side files (it must not change meanwhile).
std::string immutableUri(const std::string& path)
{
    std::string uri = "file:";
    for (char c : path) {
        if (c == '%' || c == '?' || c == '#') {
            char buf[4];
            std::snprintf(buf, sizeof buf, "%%%02x", static_cast<unsigned char>(c));
            uri += buf;
        } else {
            uri += c;
        }
    }
    return uri + "?immutable=1";
}

std::string hostName()
{
    char buf[256] = {};
    if (gethostname(buf, sizeof buf - 1) != 0)
        return "unknown";
    return buf;
}

std::string describeFailure(const SQLite::Exception& e, const std::string& what)
{
    const int code = e.getErrorCode() & 0xff;
    std::string why;
    switch (code) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
        why = "the workspace is locked by another program (it did not let go within the busy timeout); nothing was changed";
        break;
    case SQLITE_READONLY:
        why = "the workspace is read-only; nothing was changed";
        break;
    case SQLITE_CORRUPT:
        why = "the workspace is corrupt (" + std::string(e.what()) + "); nothing was changed";
        break;
    case SQLITE_NOTADB:
        why = "not a Loopscope workspace: not an SQLite database";
        break;
    case SQLITE_FULL:
        why = "the disk is full; nothing was changed";
        break;
    case SQLITE_CANTOPEN:
        why = "cannot open the file (" + std::string(e.what()) + ")";
        break;
    case SQLITE_CONSTRAINT:
        why = std::string(e.what());
        break;
    default:
        why = std::string(e.what());
    }
    return what.empty() ? why : what + ": " + why;
}

std::optional<int64_t> optionalInt(const SQLite::Column& c)
{
    if (c.isNull())
        return std::nullopt;
    return c.getInt64();
}

void bindOptional(SQLite::Statement& s, int index, const std::optional<int64_t>& v)
{
    if (v)
        s.bind(index, *v);
    else
        s.bind(index);
}

std::string storeFileIn(SQLite::Database& db, FileKind kind, const std::string& path, const std::string& text)
{
    const std::string hash = contentHash(text);
    SQLite::Statement q(db, "INSERT OR IGNORE INTO files(hash, kind, path, text, stored_at) VALUES (?, ?, ?, ?, ?)");
    q.bind(1, hash);
    q.bind(2, fileKindName(kind));
    q.bind(3, path);
    q.bind(4, text);
    q.bind(5, nowMillis());
    q.exec();
    return hash;
}

} // namespace detail

const char* fileKindName(FileKind k) { return k == FileKind::Kernel ? "kernel" : "target"; }

std::string projectVersion()
{
#ifdef LOOPSCOPE_VERSION
    return LOOPSCOPE_VERSION;
#else
    return "unknown";
#endif
}

Millis nowMillis()
{
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::string contentHash(std::string_view text)
{
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    EVP_Digest(text.data(), text.size(), digest, &len, EVP_sha256(), nullptr);
    static const char* hex = "0123456789abcdef";
    std::string out;
    for (unsigned int i = 0; i < len; ++i) {
        out += hex[digest[i] >> 4];
        out += hex[digest[i] & 15];
    }
    return out;
}

std::string defaultWorkspacePath(const std::string& folder)
{
    fs::path dir = fs::absolute(folder.empty() ? fs::path(".") : fs::path(folder)).lexically_normal();
    std::string name = dir.filename().string();
    if (name.empty())
        name = dir.parent_path().filename().string();
    if (name.empty())
        name = "workspace";
    return (dir / (name + kWorkspaceSuffix)).string();
}

Result<std::optional<std::string>> findWorkspaceIn(const std::string& folder)
{
    const std::string preferred = defaultWorkspacePath(folder);
    std::error_code ec;
    if (fs::is_regular_file(preferred, ec))
        return std::optional<std::string>(preferred);
    std::vector<std::string> found;
    for (const auto& e : fs::directory_iterator(folder.empty() ? "." : folder, ec))
        if (e.is_regular_file(ec) && e.path().filename().string().size() > std::string(kWorkspaceSuffix).size()
            && e.path().string().ends_with(kWorkspaceSuffix))
            found.push_back(fs::absolute(e.path()).lexically_normal().string());
    if (found.empty())
        return std::optional<std::string>();
    if (found.size() == 1)
        return std::optional<std::string>(found.front());
    std::sort(found.begin(), found.end());
    std::string names;
    for (const auto& f : found)
        names += (names.empty() ? "" : ", ") + fs::path(f).filename().string();
    return errorAt(folder, "several workspaces in this folder (" + names + "): name one with --workspace");
}

Result<Done> Workspace::Impl::write(const std::string& what, const std::function<void()>& body)
{
    if (readOnly)
        return error(what + ": the workspace is open read-only; nothing was changed");
    try {
        SQLite::Transaction t(*db, SQLite::TransactionBehavior::IMMEDIATE);
        body();
        t.commit();
        return Done{};
    } catch (const SQLite::Exception& e) {
        return error(detail::describeFailure(e, what));
    } catch (const std::exception& e) {
        return error(what + ": " + e.what());
    }
}

Workspace::Workspace(std::unique_ptr<Impl> impl) : m_d(std::move(impl)) {}
Workspace::~Workspace() = default;

const std::string& Workspace::path() const { return m_d->path; }
std::string Workspace::folder() const { return fs::path(m_d->path).parent_path().string(); }
bool Workspace::isReadOnly() const { return m_d->readOnly; }
int Workspace::schemaVersion() const { return m_d->schemaVersion; }
std::optional<int> Workspace::migratedFrom() const { return m_d->migratedFrom; }

namespace {

/// Connection settings of every read-write connection.
void configure(SQLite::Database& db)
{
    db.exec("PRAGMA foreign_keys = ON");
    // WAL: readers never block the writer, and a commit is one append to the log. NORMAL:
    // a committed transaction survives the process being killed; after a power cut the
    // file stays consistent and may lack the last transactions before the checkpoint.
    db.execAndGet("PRAGMA journal_mode = WAL");
    db.exec("PRAGMA synchronous = NORMAL");
}

void migrate(SQLite::Database& db, int from)
{
    SQLite::Transaction t(db, SQLite::TransactionBehavior::EXCLUSIVE);
    // Another process may have migrated it meanwhile.
    const int now = db.execAndGet("PRAGMA user_version").getInt();
    const auto& scripts = detail::migrations();
    for (int v = std::max(now, from); v < kSchemaVersion; ++v)
        db.exec(scripts[v]);
    db.exec("PRAGMA application_id = " + std::to_string(detail::kApplicationId));
    db.exec("PRAGMA user_version = " + std::to_string(kSchemaVersion));
    if (from == 0) {
        SQLite::Statement meta(db, "INSERT INTO meta(key, value) VALUES ('created_by', ?), ('created_at', ?)");
        meta.bind(1, "Loopscope " + projectVersion());
        meta.bind(2, std::to_string(nowMillis()));
        meta.exec();
    } else {
        SQLite::Statement meta(db, "INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)");
        meta.bind(1, "migrated_from_" + std::to_string(from));
        meta.bind(2, std::to_string(nowMillis()));
        meta.exec();
    }
    if (db.execAndGet("SELECT count(*) FROM pragma_foreign_key_check").getInt() != 0)
        throw std::runtime_error("the migrated data breaks a foreign key");
    t.commit();
}

} // namespace

Result<std::unique_ptr<Workspace>> Workspace::create(const std::string& path)
{
    std::error_code ec;
    if (fs::exists(path, ec))
        return errorAt(path, "a file of this name exists; a new workspace does not replace it");
    const fs::path dir = fs::absolute(path).parent_path();
    if (!fs::is_directory(dir, ec))
        return errorAt(path, "no such folder: " + dir.string());
    auto impl = std::make_unique<Impl>();
    impl->path = fs::absolute(path).lexically_normal().string();
    try {
        impl->db = std::make_unique<SQLite::Database>(impl->path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE, 5000);
        configure(*impl->db);
        migrate(*impl->db, 0);
    } catch (const SQLite::Exception& e) {
        impl->db.reset();
        fs::remove(impl->path, ec);
        return errorAt(path, detail::describeFailure(e, "cannot create the workspace"));
    }
    impl->schemaVersion = kSchemaVersion;
    impl->dataVersion = kSchemaVersion;
    return std::unique_ptr<Workspace>(new Workspace(std::move(impl)));
}

namespace {

/// A connection for reading only that leaves nothing behind. A file we may write (the CLI's
/// list, show, compare, export, check) is opened read-write with query_only: a read-only
/// connection cannot remove the -wal and -shm files sqlite creates for a WAL database, and
/// would leave both beside the workspace; this one, when it is the last to close, removes
/// them. A file we may not write is read as immutable when no -wal file exists (no program
/// has it open, the file is all there is; sqlite would otherwise fail to create the -shm file
/// and every reader would find nothing). With a -wal file it is read through that log, which
/// needs the -shm file to be readable.
std::unique_ptr<SQLite::Database> openForReading(const std::string& path, bool writable, int busyTimeoutMs)
{
    std::error_code ec;
    std::unique_ptr<SQLite::Database> db;
    if (writable) {
        db = std::make_unique<SQLite::Database>(path, SQLite::OPEN_READWRITE, busyTimeoutMs);
        db->exec("PRAGMA query_only = ON");
    } else if (!fs::exists(path + "-wal", ec)) {
        db = std::make_unique<SQLite::Database>(detail::immutableUri(path), SQLite::OPEN_READONLY | SQLite::OPEN_URI, busyTimeoutMs);
    } else {
        db = std::make_unique<SQLite::Database>(path, SQLite::OPEN_READONLY, busyTimeoutMs);
        try {
            (void)db->execAndGet("SELECT count(*) FROM sqlite_master").getInt();
        } catch (const SQLite::Exception& e) {
            throw std::runtime_error("the workspace is read-only for this user and has a -wal file beside it (a program has it open, or was "
                                     "stopped before closing it): sqlite cannot read it without writing; open it when that program has "
                                     "closed it, or as its owner (" + std::string(e.what()) + ")");
        }
    }
    db->exec("PRAGMA foreign_keys = ON");
    return db;
}

/// An older schema read without changing the file: the file is copied into memory and the
/// copy migrated there.
std::unique_ptr<SQLite::Database> migratedCopy(SQLite::Database& file, int version)
{
    auto mem = std::make_unique<SQLite::Database>(":memory:", SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    SQLite::Backup(*mem, file).executeStep();
    migrate(*mem, version);
    mem->exec("PRAGMA foreign_keys = ON");
    mem->exec("PRAGMA query_only = ON");
    return mem;
}

} // namespace

Result<std::unique_ptr<Workspace>> Workspace::open(const std::string& pathIn, Options options)
{
    std::error_code ec;
    const std::string path = fs::absolute(pathIn).lexically_normal().string();
    if (!fs::exists(path, ec))
        return errorAt(pathIn, "no workspace here (create one with `loopscope-cli workspace init`)");
    if (!fs::is_regular_file(path, ec))
        return errorAt(pathIn, "not a workspace file (a folder or a device)");
    {
        std::ifstream in(path, std::ios::binary);
        if (!in)
            return errorAt(pathIn, "cannot read the file");
        char head[100] = {};
        in.read(head, sizeof head);
        if (auto why = notADatabase(std::string_view(head, static_cast<std::size_t>(in.gcount())), fs::file_size(path, ec)))
            return errorAt(pathIn, *why);
    }
    // A file or folder we may not write is opened for reading (WAL needs the folder for its
    // -wal and -shm files).
    const bool writable = access(path.c_str(), W_OK) == 0 && access(fs::path(path).parent_path().c_str(), W_OK) == 0;
    auto impl = std::make_unique<Impl>();
    impl->path = path;
    impl->readOnly = options.readOnly || !writable;
    int version = 0;
    try {
        // First look without the right to write, so that nothing can change a file we refuse.
        // Without a -wal file (no other connection, no crash) the file is all there is: read it
        // as immutable, so that sqlite does not leave a -wal and -shm beside a file we refuse.
        const bool hasLog = fs::exists(path + "-wal", ec);
        SQLite::Database probe(hasLog ? path : detail::immutableUri(path), SQLite::OPEN_READONLY | (hasLog ? 0 : SQLite::OPEN_URI), options.busyTimeoutMs);
        if (auto why = validate(probe, version))
            return errorAt(pathIn, *why);
    } catch (const SQLite::Exception& e) {
        if (!writable && (e.getErrorCode() & 0xff) == SQLITE_READONLY)
            return errorAt(pathIn, "the workspace is read-only for this user and has a -wal file beside it (a program has it open, or was stopped "
                                   "before closing it): sqlite cannot read it without writing; open it when that program has closed it, or as its owner");
        return errorAt(pathIn, detail::describeFailure(e, ""));
    }
    std::string madeBackup;   // removed when the migration fails: the refused file is left as it was, alone
    auto dropBackup = [&] {
        if (!madeBackup.empty())
            fs::remove(madeBackup, ec);
    };
    try {
        if (impl->readOnly) {
            impl->db = openForReading(path, writable, options.busyTimeoutMs);
            if (version < kSchemaVersion)
                impl->db = migratedCopy(*impl->db, version);
        } else {
            impl->db = std::make_unique<SQLite::Database>(path, SQLite::OPEN_READWRITE, options.busyTimeoutMs);
            configure(*impl->db);
            if (version < kSchemaVersion) {
                // A copy first: an older Loopscope cannot read the migrated file.
                const std::string backup = path + ".schema-" + std::to_string(version) + ".bak";
                if (!fs::exists(fs::symlink_status(backup, ec))) {
                    madeBackup = backup;
                    SQLite::Database copy(backup, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
                    SQLite::Backup(copy, *impl->db).executeStep();
                }
                migrate(*impl->db, version);
                impl->migratedFrom = version;
                version = kSchemaVersion;
            }
        }
    } catch (const SQLite::Exception& e) {
        impl->db.reset();
        dropBackup();
        return errorAt(pathIn, detail::describeFailure(e, ""));
    } catch (const std::exception& e) {
        impl->db.reset();
        dropBackup();
        return errorAt(pathIn, std::string(impl->readOnly ? "cannot read the workspace: " : "cannot migrate the workspace: ") + e.what() + "; left unchanged");
    }
    impl->schemaVersion = version;
    impl->dataVersion = impl->db->execAndGet("PRAGMA user_version").getInt();
    return std::unique_ptr<Workspace>(new Workspace(std::move(impl)));
}

Result<std::unique_ptr<Workspace>> Workspace::openBytes(std::string_view bytes)
{
    const std::string name = "<bytes>";
    if (auto why = notADatabase(bytes.substr(0, std::min<std::size_t>(bytes.size(), 100)), bytes.size()))
        return errorAt(name, *why);
    auto impl = std::make_unique<Impl>();
    impl->path = name;
    impl->readOnly = true;
    try {
        impl->db = std::make_unique<SQLite::Database>(":memory:", SQLite::OPEN_READWRITE | SQLite::OPEN_MEMORY);
        auto* buf = static_cast<unsigned char*>(sqlite3_malloc64(bytes.size()));
        if (!buf)
            return errorAt(name, "out of memory");
        std::copy(bytes.begin(), bytes.end(), buf);
        // An in-memory database cannot be in WAL mode: read the file as a rollback-journal one.
        if (buf[18] == 2 && buf[19] == 2)
            buf[18] = buf[19] = 1;
        const int rc = sqlite3_deserialize(impl->db->getHandle(), "main", buf, static_cast<sqlite3_int64>(bytes.size()),
                                           static_cast<sqlite3_int64>(bytes.size()), SQLITE_DESERIALIZE_FREEONCLOSE | SQLITE_DESERIALIZE_READONLY);
        if (rc != SQLITE_OK)
            return errorAt(name, std::string("cannot read the bytes: ") + sqlite3_errstr(rc));
        int version = 0;
        if (auto why = validate(*impl->db, version))
            return errorAt(name, *why);
        impl->db->exec("PRAGMA foreign_keys = ON");
        impl->schemaVersion = version;
        impl->dataVersion = version;
    } catch (const SQLite::Exception& e) {
        return errorAt(name, detail::describeFailure(e, ""));
    }
    return std::unique_ptr<Workspace>(new Workspace(std::move(impl)));
}

std::vector<std::string> Workspace::integrityProblems() const
{
    std::vector<std::string> problems;
    try {
        SQLite::Statement check(*m_d->db, "PRAGMA integrity_check");
        while (check.executeStep())
            if (check.getColumn(0).getString() != "ok")
                problems.push_back(check.getColumn(0).getString());
        SQLite::Statement fk(*m_d->db, "SELECT \"table\", rowid, parent FROM pragma_foreign_key_check");
        while (fk.executeStep())
            problems.push_back("row " + fk.getColumn(1).getString() + " of " + fk.getColumn(0).getString() + " refers to a missing row of "
                               + fk.getColumn(2).getString());
    } catch (const SQLite::Exception& e) {
        problems.push_back(detail::describeFailure(e, "integrity check"));
    }
    return problems;
}

Result<WorkspaceSummary> Workspace::summary() const
{
    try {
        WorkspaceSummary s;
        s.schemaVersion = m_d->schemaVersion;
        auto count = [this](const char* table) -> int64_t {
            if (!m_d->db->tableExists(table))
                return 0;
            return m_d->db->execAndGet(std::string("SELECT count(*) FROM ") + table).getInt64();
        };
        s.files = count("files");
        s.variants = count("variants");
        s.figures = count("figures");
        s.measurements = count("measurements");
        s.journalSessions = count("journal_sessions");
        s.journalEntries = count("journal_entries");
        s.searchRuns = count("search_runs");
        s.searchPoints = count("search_points");
        return s;
    } catch (const SQLite::Exception& e) {
        return m_d->error(detail::describeFailure(e, "cannot read the workspace"));
    }
}

Result<WorkspaceSummary> Workspace::readEverything() const
{
    auto s = summary();
    if (!s)
        return s;
    if (m_d->dataVersion < kSchemaVersion)
        return s;  // the readers below know the current schema only
    m_d->lastError.clear();
    for (const auto& v : variants()) {
        (void)file(v.kernelHash);
        (void)file(v.targetHash);
    }
    for (const auto& j : journalSessions())
        (void)journalEntries(j.id);
    for (const auto& r : searchRuns())
        (void)searchPoints(r.id);
    (void)recoverable(true);
    if (!m_d->lastError.empty())
        return m_d->error(m_d->lastError);
    return s;
}

Result<std::string> Workspace::storeFile(FileKind kind, const std::string& path, const std::string& text)
{
    return m_d->writeReturning<std::string>("cannot store " + path, [&] { return detail::storeFileIn(*m_d->db, kind, path, text); });
}

std::optional<StoredFile> Workspace::file(const std::string& hash) const
{
    return m_d->read<std::optional<StoredFile>>([&]() -> std::optional<StoredFile> {
    SQLite::Statement q(*m_d->db, "SELECT hash, kind, path, text, stored_at FROM files WHERE hash = ?");
    q.bind(1, hash);
    if (!q.executeStep())
        return std::nullopt;
    StoredFile f;
    f.hash = q.getColumn(0).getString();
    f.kind = q.getColumn(1).getString() == "target" ? FileKind::Target : FileKind::Kernel;
    f.path = q.getColumn(2).getString();
    f.text = q.getColumn(3).getString();
    f.storedAt = q.getColumn(4).getInt64();
    return f;
    });
}

std::string Workspace::lastError() const { return m_d->lastError; }

} // namespace loopscope::store
