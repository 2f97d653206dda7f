// A Loopscope workspace: one sqlite file per project folder (NAME.loopscope-workspace, WAL
// mode) keeping kernels and targets by content hash, variants with their figures and
// measurements, the app's edit journal and search runs. Qt-free; no sqlite type appears here.
#pragma once

#include "common/diagnostic.h"
#include "store/records.h"

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace loopscope::store {

/// The value of a change that returns nothing.
struct Done {};

/// File name suffix of workspaces.
inline constexpr const char* kWorkspaceSuffix = ".loopscope-workspace";
/// The schema this build writes; files of an older schema are migrated forward on open.
inline constexpr int kSchemaVersion = 2;

/// How a column of the variants list sorts.
enum class VariantOrder { Name, Modified, Created, Cycles };

/// Counts for `workspace check` and the fuzz entry point.
struct WorkspaceSummary {
    int schemaVersion = 0;
    int64_t files = 0;
    int64_t variants = 0;
    int64_t figures = 0;
    int64_t measurements = 0;
    int64_t journalSessions = 0;
    int64_t journalEntries = 0;
    int64_t searchRuns = 0;
    int64_t searchPoints = 0;
};

/// An open workspace. Every change is one short IMMEDIATE transaction, so that the app and the
/// CLI can use one file at once (the other waits up to the busy timeout). A file that is
/// corrupt, locked, of a newer schema or not a workspace is refused with a message naming it,
/// and is never modified. Errors are values (Diagnostic with the file as location).
class Workspace {
public:
    struct Options {
        bool readOnly = false;      ///< open for reading only (also chosen when the file is read-only)
        int busyTimeoutMs = 5000;   ///< how long to wait for another process's transaction
    };

    /// Creates a new workspace (refuses to replace any existing file).
    static Result<std::unique_ptr<Workspace>> create(const std::string& path);
    /// Opens an existing workspace: checks that it is an sqlite database of ours, runs
    /// `PRAGMA integrity_check`, refuses newer schemas, and migrates older ones forward (after
    /// copying the file to PATH.schema-N.bak). Opened for reading only, nothing in the folder
    /// changes and no -wal or -shm file stays behind: an older schema is migrated in a copy in
    /// memory, and a file this user may not write is read as sqlite's immutable file.
    static Result<std::unique_ptr<Workspace>> open(const std::string& path, Options options);
    static Result<std::unique_ptr<Workspace>> open(const std::string& path) { return open(path, Options{}); }
    /// Opens the bytes of a workspace file in memory, read-only, with the same checks as open()
    /// (no migration: an older schema is read as it is). For fuzzing and inspection.
    static Result<std::unique_ptr<Workspace>> openBytes(std::string_view bytes);

    ~Workspace();
    Workspace(const Workspace&) = delete;
    Workspace& operator=(const Workspace&) = delete;

    const std::string& path() const;
    /// The folder the workspace belongs to (relative paths of the CLI are relative to it).
    std::string folder() const;
    bool isReadOnly() const;
    int schemaVersion() const;
    /// The schema version the file had before this open migrated it, if it did.
    std::optional<int> migratedFrom() const;
    /// Why the last reader returned nothing ("" when it did not fail). Readers do not throw.
    std::string lastError() const;

    // ---- Integrity ---------------------------------------------------------------------------
    /// `PRAGMA integrity_check` and foreign-key check; the problems found (empty when sound).
    std::vector<std::string> integrityProblems() const;
    Result<WorkspaceSummary> summary() const;
    /// Reads every record of every table through the readers below (what the fuzz target does).
    Result<WorkspaceSummary> readEverything() const;

    // ---- Files ---------------------------------------------------------------------------------
    /// Stores a kernel or target text (once per content); returns its hash.
    Result<std::string> storeFile(FileKind kind, const std::string& path, const std::string& text);
    std::optional<StoredFile> file(const std::string& hash) const;

    // ---- Variants ------------------------------------------------------------------------------
    /// Adds a variant, its files and its figures in one transaction; returns its id. Refuses
    /// an empty name or a name in use.
    Result<int64_t> addVariant(const NewVariant& v);
    std::vector<Variant> variants(VariantOrder order = VariantOrder::Name) const;
    /// Changes when a variant, its figures or its measurements are added, changed or removed
    /// (by any connection): a cheap test of whether variants() would read something new.
    /// Edit-journal and search-progress writes leave it as it is.
    std::string variantsStamp() const;
    std::optional<Variant> variant(int64_t id) const;
    std::optional<Variant> variantByName(const std::string& name) const;
    /// A variant by name, or by id when `nameOrId` is a number that is no variant's name.
    std::optional<Variant> findVariant(const std::string& nameOrId) const;
    Result<Done> renameVariant(int64_t id, const std::string& name);
    Result<Done> setNotes(int64_t id, const std::string& notes);
    Result<Done> setTags(int64_t id, const std::vector<std::string>& tags);
    /// Replaces a variant's trace (and figures, when given); the modified time moves on.
    Result<Done> updateTrace(int64_t id, const std::string& trace, const std::optional<Figures>& figures);
    /// Adds figures computed by a project version (replacing that version's earlier figures).
    Result<Done> addFigures(int64_t id, const Figures& figures);
    /// Copies a variant (trace, files, figures, tags, notes) under a new name; its parent is the original.
    Result<int64_t> duplicateVariant(int64_t id, const std::string& name);
    /// Deletes a variant with its figures and measurements; variants derived from it keep no parent.
    Result<Done> deleteVariant(int64_t id);
    /// A name not yet used: `base`, else `base-2`, `base-3`, ...
    std::string uniqueName(const std::string& base) const;
    Result<int64_t> addMeasurement(const Measurement& m);

    // ---- Edit journal --------------------------------------------------------------------------
    /// Starts a session (pid and host of this process are filled in); returns its id.
    Result<int64_t> beginJournal(const JournalSession& session);
    /// Appends one entry in its own transaction (seq is assigned: the next of the session).
    Result<int64_t> appendJournal(int64_t sessionId, const JournalEntry& entry);
    /// The document was closed normally: the session and its entries are removed.
    Result<Done> closeJournal(int64_t sessionId);
    std::vector<JournalSession> journalSessions() const;
    std::vector<JournalEntry> journalEntries(int64_t sessionId) const;
    /// Sessions not closed normally, whose process is gone (another host's count as gone only
    /// when `otherHosts`), and whose newest entry is not clean: what a crash left to restore.
    std::vector<Recoverable> recoverable(bool otherHosts = false) const;

    // ---- Search runs (filled by the schedule search) ------------------------------------------
    Result<int64_t> beginSearchRun(const SearchRun& run);
    Result<Done> updateSearchProgress(int64_t runId, int64_t evaluated, int64_t total, int64_t feasible);
    /// Adds a Pareto point: a new variant (tagged "search") linked to the run, and its objectives.
    Result<int64_t> addSearchPoint(int64_t runId, const NewVariant& v, const std::string& objectivesJson);
    /// Marks a point as dominated by a later one (it stays as a variant).
    Result<Done> setOnFront(int64_t runId, int64_t variantId, bool onFront);
    Result<Done> finishSearchRun(int64_t runId, SearchStatus status, const std::string& message = {});
    std::vector<SearchRun> searchRuns() const;
    std::optional<SearchRun> searchRun(int64_t runId) const;
    std::vector<SearchPoint> searchPoints(int64_t runId, bool frontOnly = false) const;

    struct Impl;

private:
    explicit Workspace(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> m_d;
};

/// The version of Loopscope that writes figures and measurements ("0.2.0": compute cycles of CPU targets from instructions).
std::string projectVersion();
/// Milliseconds since the Unix epoch, now.
Millis nowMillis();
/// SHA-256 of a text, hexadecimal.
std::string contentHash(std::string_view text);

/// The workspace of a folder: FOLDER/<folder name>.loopscope-workspace if it exists, else the
/// only *.loopscope-workspace in it. None: nullopt; several without the folder's name: an error
/// naming them.
Result<std::optional<std::string>> findWorkspaceIn(const std::string& folder);
/// The name `init` gives a folder's workspace: FOLDER/<folder name>.loopscope-workspace.
std::string defaultWorkspacePath(const std::string& folder);

} // namespace loopscope::store
