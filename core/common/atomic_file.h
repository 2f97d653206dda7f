// Writing files so that nobody's work is lost: a reader, a crash or a second writer sees the
// old file or the new one, never a mixture, and never a file the writer did not mean to touch.
// Saving schedules, exports and workspace exports go through here (docs/export.md, "How files
// are written").
#pragma once

#include <cstdint>
#include <string>

namespace loopscope {

/// What a symbolic link where the file goes means.
enum class LinkPolicy {
    FollowLink,   ///< write the file the link points to; the link stays (saving a schedule)
    ReplaceLink,  ///< replace the link itself; what it points to is never touched (exports)
};

/// Writes `text` to `path` atomically: into a temporary file beside it with a unique name
/// (created exclusively, so a user's own "x.tmp" is never touched and two writers never share
/// one), synced to disk, given the permissions of the file it replaces (a new file gets 0666
/// less the umask), renamed over `path`, and the folder synced so that the rename survives a
/// power cut. False with a message naming the path when it cannot; the old file is then as it
/// was and no temporary file is left.
bool writeFileAtomically(const std::string& path, const std::string& text, std::string& error,
                         LinkPolicy links = LinkPolicy::FollowLink);

/// The folder of `path`, a file the user named for output, made (with the folders above it)
/// when it is missing, as `export --out DIR` makes DIR: "" when it exists or was made, else why
/// not ("cannot create the folder 'out': Permission denied").
std::string makeFolderFor(const std::string& path);

/// Whether `path` could be written, checked before work whose result goes there (a search of
/// minutes), for a writer that replaces a link in its place (LinkPolicy::ReplaceLink): "" or why
/// not — it exists (a link, even to nothing, counts) and `replace` is false, it is a folder (or a
/// link to one), a folder on its way is a file, or the nearest existing folder is not writable.
/// Nothing is created.
std::string checkWritable(const std::string& path, bool replace);

/// Whether files could be written into the folder `dir`, checked before work whose results go
/// there: "" or why not — it is a file (or a link to one), a folder on its way is a file, or it
/// (or, when missing, the nearest existing folder above it) is not writable. Nothing is created.
std::string checkWritableFolder(const std::string& dir);

/// A folder opened once, in which files are checked, read and written by name without following
/// symbolic links: what an export writes stays inside the folder the user chose, whatever links
/// the folder holds (and even if one appears while it writes). Move-only; closes on destruction.
class DirHandle {
public:
    DirHandle() = default;
    /// Opens `path` (a symbolic link to a folder is fine: the user named it); invalid on error.
    static DirHandle open(const std::string& path, std::string& error);
    ~DirHandle();
    DirHandle(DirHandle&& other) noexcept;
    DirHandle& operator=(DirHandle&& other) noexcept;
    DirHandle(const DirHandle&) = delete;
    DirHandle& operator=(const DirHandle&) = delete;

    bool valid() const { return m_fd >= 0; }
    const std::string& path() const { return m_path; }

    /// What is at `name` (one path component), without following a link.
    enum class Kind { Missing, File, Directory, Link, Other };
    Kind kind(const std::string& name) const;

    /// The sub-folder `name`, created if missing (when `create`); fails, with a message, on a
    /// link, a file or anything else in its place.
    DirHandle sub(const std::string& name, bool create, std::string& error) const;

    /// Reads the regular file `name` of at most `maxBytes` (not through a link, never a FIFO or
    /// a device); "" when read, else why not.
    std::string read(const std::string& name, std::string& out, int64_t maxBytes) const;

    /// Writes the file `name` atomically (as writeFileAtomically); a link at `name` is replaced,
    /// never followed. False with a message when it cannot.
    bool write(const std::string& name, const std::string& text, std::string& error) const;

    /// Whether a file can be created in the folder: one is, hidden, and removed at once (the
    /// only sure test: permissions, ACLs, a read-only mount and root all answer it). False with a
    /// message when it cannot.
    bool probeWritable(std::string& error) const;

private:
    int m_fd = -1;
    std::string m_path;
};

/// "the kind of file at `path`" for messages: "a folder", "a symbolic link", "a FIFO", ...
const char* describeKind(DirHandle::Kind kind);

} // namespace loopscope
