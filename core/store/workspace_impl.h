// Private to core/store: the connection behind a Workspace and helpers shared by the files that
// implement it (workspace.cpp, variants.cpp, journal.cpp, search_runs.cpp).
#pragma once

#include "store/workspace.h"

#include <SQLiteCpp/Backup.h>
#include <SQLiteCpp/SQLiteCpp.h>

#include <functional>
#include <optional>
#include <string>

namespace loopscope::store {

struct Workspace::Impl {
    std::string path;
    std::unique_ptr<SQLite::Database> db;
    bool readOnly = false;
    int schemaVersion = 0;           ///< the file's schema (after a migration: the new one)
    int dataVersion = 0;             ///< the schema of the connection's data (an older file read only is migrated in memory)
    std::optional<int> migratedFrom;
    mutable std::string lastError;   ///< the last failure of a reader (readers return empty then)

    Diagnostic error(const std::string& message) const { return Diagnostic{Severity::Error, SourceLoc{path, 0, 0}, message}; }
    /// Runs `body` in one IMMEDIATE transaction; a failure rolls back and becomes an error.
    Result<Done> write(const std::string& what, const std::function<void()>& body);
    template <typename T>
    Result<T> writeReturning(const std::string& what, const std::function<T()>& body)
    {
        std::optional<T> value;
        auto r = write(what, [&] { value = body(); });
        if (!r)
            return r.errors();
        return std::move(*value);
    }
    /// Runs a reader; a failure is recorded in lastError and gives `fallback`.
    template <typename T>
    T read(const std::function<T()>& body, T fallback = T()) const
    {
        try {
            return body();
        } catch (const SQLite::Exception& e) {
            lastError = detail_describe(e);
        } catch (const std::exception& e) {
            lastError = e.what();
        }
        return fallback;
    }
    static std::string detail_describe(const SQLite::Exception& e);
};

namespace detail {

/// A message for a failed sqlite call, with the reasons users can act on spelled out.
std::string describeFailure(const SQLite::Exception& e, const std::string& what);

std::optional<int64_t> optionalInt(const SQLite::Column& c);
void bindOptional(SQLite::Statement& s, int index, const std::optional<int64_t>& v);

/// Stores a kernel or target text unless a file of the same hash is there (inside a transaction).
/// This machine's host name (journal sessions record it).
std::string hostName();

std::string storeFileIn(SQLite::Database& db, FileKind kind, const std::string& path, const std::string& text);

/// Inserts a variant with its files, tags and figures (inside a transaction); returns its id.
int64_t insertVariant(SQLite::Database& db, const NewVariant& v, std::optional<int64_t> searchRunId);

} // namespace detail

} // namespace loopscope::store
