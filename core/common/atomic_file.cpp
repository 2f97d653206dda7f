// Atomic, link-safe file writing with POSIX *at calls (see atomic_file.h). Every name is
// resolved relative to an open folder descriptor with O_NOFOLLOW, so no path component can be
// swapped for a link between a check and a write.
#include "common/atomic_file.h"

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <random>
#include <sys/stat.h>
#include <unistd.h>

namespace loopscope {

namespace {

std::string reason() { return std::strerror(errno); }

std::string joined(const std::string& dir, const std::string& name)
{
    return dir.empty() ? name : dir.back() == '/' ? dir + name : dir + "/" + name;
}

/// A name no other writer picks: 64 random bits and a per-process counter.
std::string uniqueSuffix()
{
    static std::atomic<uint64_t> counter{0};
    thread_local std::mt19937_64 rng{std::random_device{}() ^ (static_cast<uint64_t>(::getpid()) << 32)};
    char buf[48];
    std::snprintf(buf, sizeof buf, "%016llx-%llu", static_cast<unsigned long long>(rng()),
                  static_cast<unsigned long long>(counter.fetch_add(1)));
    return buf;
}

bool oneComponent(const std::string& name)
{
    return !name.empty() && name != "." && name != ".." && name.find('/') == std::string::npos;
}

DirHandle::Kind kindOf(mode_t mode)
{
    if (S_ISREG(mode))
        return DirHandle::Kind::File;
    if (S_ISDIR(mode))
        return DirHandle::Kind::Directory;
    if (S_ISLNK(mode))
        return DirHandle::Kind::Link;
    return DirHandle::Kind::Other;
}

/// The atomic write of `name` inside the open folder `dirFd` (see writeFileAtomically).
bool writeAt(int dirFd, const std::string& dirPath, const std::string& name, const std::string& text, std::string& error)
{
    const std::string shown = joined(dirPath, name);
    if (!oneComponent(name)) {
        error = "cannot write '" + shown + "': not a file name";
        return false;
    }
    struct stat old {};
    const bool replacing = ::fstatat(dirFd, name.c_str(), &old, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(old.st_mode);
    // Hidden, beside the file (a rename within one folder is atomic), short enough for NAME_MAX.
    const std::string base = "." + name.substr(0, 180) + ".tmp-";
    std::string tmp;
    int fd = -1;
    for (int attempt = 0; attempt < 64 && fd < 0; ++attempt) {
        tmp = base + uniqueSuffix();
        fd = ::openat(dirFd, tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (fd < 0 && errno != EEXIST) {
            error = "cannot write '" + shown + "': cannot create a temporary file beside it: " + reason();
            return false;
        }
    }
    if (fd < 0) {
        error = "cannot write '" + shown + "': no free temporary name beside it";
        return false;
    }
    auto fail = [&](const std::string& what) {
        error = "cannot write '" + shown + "': " + what;
        if (fd >= 0)
            ::close(fd);
        ::unlinkat(dirFd, tmp.c_str(), 0);
        return false;
    };
    const char* p = text.data();
    size_t left = text.size();
    while (left > 0) {
        const ssize_t n = ::write(fd, p, left);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return fail(reason());
        }
        p += n;
        left -= static_cast<size_t>(n);
    }
    // The replaced file's permissions (a new one keeps 0666 less the umask, as open gave it).
    if (replacing && ::fchmod(fd, old.st_mode & 07777) != 0)
        return fail("cannot keep its permissions: " + reason());
    if (::fsync(fd) != 0)
        return fail("cannot sync it to disk: " + reason());
    const int closed = ::close(fd);
    fd = -1;
    if (closed != 0)
        return fail(reason());
    if (::renameat(dirFd, tmp.c_str(), dirFd, name.c_str()) != 0)
        return fail("cannot rename the temporary file over it: " + reason());
    // The rename is in the folder: sync it too, or a power cut may forget the new file.
    ::fsync(dirFd);
    return true;
}

/// `path` with every symbolic link of its last component followed (at most 40, as the kernel).
bool followLinks(std::string& path, std::string& error)
{
    for (int hops = 0; hops < 40; ++hops) {
        struct stat st {};
        if (::lstat(path.c_str(), &st) != 0 || !S_ISLNK(st.st_mode))
            return true;  // missing (a new file) or not a link: write here
        char buf[4096];
        const ssize_t n = ::readlink(path.c_str(), buf, sizeof buf - 1);
        if (n < 0) {
            error = "cannot write '" + path + "': cannot read the link: " + reason();
            return false;
        }
        const std::string target(buf, static_cast<size_t>(n));
        const size_t slash = path.find_last_of('/');
        path = target.empty() || target[0] == '/' || slash == std::string::npos ? target : path.substr(0, slash + 1) + target;
    }
    error = "cannot write '" + path + "': too many symbolic links";
    return false;
}

} // namespace

bool writeFileAtomically(const std::string& pathIn, const std::string& text, std::string& error, LinkPolicy links)
{
    std::string path = pathIn;
    if (links == LinkPolicy::FollowLink && !followLinks(path, error))
        return false;
    const size_t slash = path.find_last_of('/');
    const std::string dir = slash == std::string::npos ? std::string(".") : slash == 0 ? std::string("/") : path.substr(0, slash);
    const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
    if (!oneComponent(name)) {
        error = "cannot write '" + pathIn + "': not a file name";
        return false;
    }
    std::string why;
    DirHandle d = DirHandle::open(dir, why);
    if (!d.valid()) {
        error = "cannot write '" + pathIn + "': " + why;
        return false;
    }
    return d.write(name, text, error);
}

DirHandle DirHandle::open(const std::string& path, std::string& error)
{
    DirHandle d;
    d.m_fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (d.m_fd < 0)
        error = "cannot open the folder '" + path + "': " + reason();
    d.m_path = path == "." ? std::string() : path;  // messages name files in the current folder bare
    return d;
}

DirHandle::~DirHandle()
{
    if (m_fd >= 0)
        ::close(m_fd);
}

DirHandle::DirHandle(DirHandle&& other) noexcept : m_fd(other.m_fd), m_path(std::move(other.m_path)) { other.m_fd = -1; }

DirHandle& DirHandle::operator=(DirHandle&& other) noexcept
{
    if (this != &other) {
        if (m_fd >= 0)
            ::close(m_fd);
        m_fd = other.m_fd;
        m_path = std::move(other.m_path);
        other.m_fd = -1;
    }
    return *this;
}

DirHandle::Kind DirHandle::kind(const std::string& name) const
{
    struct stat st {};
    if (!oneComponent(name) || ::fstatat(m_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0)
        return Kind::Missing;
    return kindOf(st.st_mode);
}

DirHandle DirHandle::sub(const std::string& name, bool create, std::string& error) const
{
    DirHandle d;
    d.m_path = joined(m_path, name);
    if (!oneComponent(name)) {
        error = "'" + d.m_path + "' is not a folder name";
        return d;
    }
    d.m_fd = ::openat(m_fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (d.m_fd < 0 && errno == ENOENT && create) {
        if (::mkdirat(m_fd, name.c_str(), 0777) != 0 && errno != EEXIST) {
            error = "cannot create the folder '" + d.m_path + "': " + reason();
            return d;
        }
        d.m_fd = ::openat(m_fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    }
    if (d.m_fd < 0) {
        const Kind k = kind(name);
        error = k == Kind::Missing ? "cannot open the folder '" + d.m_path + "': " + reason()
                                   : "'" + d.m_path + "' is " + describeKind(k) + ", not a folder";
    }
    return d;
}

std::string DirHandle::read(const std::string& name, std::string& out, int64_t maxBytes) const
{
    out.clear();
    if (!oneComponent(name))
        return "not a file name";
    const int fd = ::openat(m_fd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        const Kind k = kind(name);
        return k == Kind::Link ? "it is a symbolic link" : reason();
    }
    struct stat st {};
    std::string why;
    if (::fstat(fd, &st) != 0)
        why = reason();
    else if (!S_ISREG(st.st_mode))
        why = std::string("it is ") + describeKind(kindOf(st.st_mode));
    else if (st.st_size > maxBytes)
        why = "it is larger than " + std::to_string(maxBytes) + " bytes";
    char buf[65536];
    while (why.empty()) {
        const ssize_t n = ::read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            why = reason();
        else if (n == 0)
            break;
        else if (static_cast<int64_t>(out.size()) + n > maxBytes)
            why = "it is larger than " + std::to_string(maxBytes) + " bytes";
        else
            out.append(buf, static_cast<size_t>(n));
    }
    ::close(fd);
    if (!why.empty())
        out.clear();
    return why;
}

bool DirHandle::write(const std::string& name, const std::string& text, std::string& error) const
{
    return writeAt(m_fd, m_path, name, text, error);
}

bool DirHandle::probeWritable(std::string& error) const
{
    for (int attempt = 0; attempt < 64; ++attempt) {
        const std::string probe = ".loopscope-probe-" + uniqueSuffix();
        const int fd = ::openat(m_fd, probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd >= 0) {
            ::close(fd);
            if (::unlinkat(m_fd, probe.c_str(), 0) == 0)
                return true;
            error = "cannot write into '" + m_path + "': cannot remove the file '" + probe + "' it tried: " + reason();
            return false;
        }
        if (errno != EEXIST)
            break;
    }
    error = "cannot write into '" + m_path + "': " + reason();
    return false;
}

const char* describeKind(DirHandle::Kind kind)
{
    switch (kind) {
    case DirHandle::Kind::Missing: return "missing";
    case DirHandle::Kind::File: return "a file";
    case DirHandle::Kind::Directory: return "a folder";
    case DirHandle::Kind::Link: return "a symbolic link";
    case DirHandle::Kind::Other: return "a special file (a FIFO, device or socket)";
    }
    return "unknown";
}

namespace {

/// `path`, a file the user named for output, made absolute and normal ("a/../b/x" is "b/x",
/// so no folder "a" is made on the way); false with why when it names no file.
bool outputFile(const std::string& path, std::filesystem::path& out, std::string& why)
{
    namespace fs = std::filesystem;
    const fs::path p(path);
    if (path.empty() || !p.has_filename() || p.filename() == "." || p.filename() == "..") {
        why = path.empty() ? std::string("no file named") : "'" + path + "' names a folder, not a file";
        return false;
    }
    std::error_code ec;
    out = fs::absolute(p, ec).lexically_normal();
    if (ec) {
        why = "cannot write '" + path + "': " + ec.message();
        return false;
    }
    // A '..' is resolved by the system, through the folders before it: those must be there
    // (a/../b with no a is refused, as opening it would be; no a is made to get there).
    fs::path throughUp, prefix;
    for (const auto& part : p) {
        prefix /= part;
        if (part == "..")
            throughUp = prefix;
    }
    if (!throughUp.empty() && !fs::is_directory(throughUp, ec)) {
        why = "cannot write '" + path + "': it goes up from '" + throughUp.parent_path().string() + "', which is not a folder";
        return false;
    }
    return true;
}

/// The nearest of `dir` and the folders above it that is there (a link counts, even one that
/// leads nowhere: the walk stops at it, and it is no folder).
std::filesystem::path nearestPresent(std::filesystem::path dir)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    while (!dir.empty() && dir != dir.parent_path() && fs::symlink_status(dir, ec).type() == fs::file_type::not_found)
        dir = dir.parent_path();
    return dir;
}

/// Whether the nearest of `dir` and the folders above it that is there is a folder one can
/// write into: "" or why not, after `what` ("cannot write 'x'").
std::string nearestFolderWritable(const std::filesystem::path& dir, const std::string& what)
{
    std::error_code ec;
    const std::filesystem::path at = nearestPresent(dir);
    if (!std::filesystem::is_directory(at, ec))
        return what + ": '" + at.string() + "' is not a folder";
    if (::access(at.c_str(), W_OK | X_OK) != 0)
        return what + ": the folder '" + at.string() + "' is not writable (" + reason() + ")";
    return "";
}

} // namespace

std::string makeFolderFor(const std::string& path)
{
    namespace fs = std::filesystem;
    fs::path file;
    std::string why;
    if (!outputFile(path, file, why))
        return why;
    const fs::path dir = file.parent_path();
    std::error_code ec;
    if (fs::is_directory(dir, ec))
        return "";
    const std::string shown = fs::path(path).parent_path().string();
    const fs::path at = nearestPresent(dir);
    if (!fs::is_directory(at, ec))
        return "cannot create the folder '" + shown + "': '" + at.string() + "' is not a folder";
    fs::create_directories(dir, ec);
    if (ec || !fs::is_directory(dir, ec))
        return "cannot create the folder '" + shown + "'" + (ec ? ": " + ec.message() : "");
    return "";
}

std::string checkWritable(const std::string& path, bool replace)
{
    namespace fs = std::filesystem;
    fs::path file;
    std::string why;
    if (!outputFile(path, file, why))
        return why;
    std::error_code ec;
    // A link in its place, even one to nothing, is in the way: the file replaces it, beside it
    // (LinkPolicy::ReplaceLink), and never writes where it points.
    const fs::file_status st = fs::symlink_status(file, ec);
    if (fs::is_directory(st) || (fs::is_symlink(st) && fs::is_directory(file, ec)))
        return "'" + path + "' is a folder";
    if (fs::exists(st) && !replace)
        return path + " exists; pass --force to replace it";
    return nearestFolderWritable(file.parent_path(), "cannot write '" + path + "'");
}

std::string checkWritableFolder(const std::string& dir)
{
    namespace fs = std::filesystem;
    if (dir.empty())
        return "no folder named";
    std::error_code ec;
    const fs::path abs = fs::absolute(fs::path(dir), ec).lexically_normal();
    if (ec)
        return "cannot write into '" + dir + "': " + ec.message();
    // A '..' is resolved by the system, through the folders before it: those must be there (as
    // for a file, outputFile), or the writer would make a folder the path only passes through.
    fs::path prefix;
    for (const auto& part : fs::path(dir)) {
        if (part == ".." && !prefix.empty() && !fs::is_directory(prefix, ec))
            return "cannot write into '" + dir + "': it goes up from '" + prefix.string() + "', which is not a folder";
        prefix /= part;
    }
    if (fs::is_directory(abs, ec)) {
        if (::access(abs.c_str(), W_OK | X_OK) != 0)
            return "the folder '" + dir + "' is not writable (" + reason() + ")";
        return "";
    }
    if (fs::symlink_status(abs, ec).type() != fs::file_type::not_found)
        return "'" + dir + "' is not a folder";
    return nearestFolderWritable(abs.parent_path(), "cannot create the folder '" + dir + "'");
}

} // namespace loopscope
