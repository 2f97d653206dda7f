// Bounded reading of user-named files: open without blocking, check the kind and size, read at
// most the limit (a file that grows while read, or a /proc file that stat calls empty, is still
// refused past it).
#include "common/text_file.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace loopscope {

namespace {

const char* kindOf(mode_t mode)
{
    if (S_ISDIR(mode))
        return "a directory";
    if (S_ISFIFO(mode))
        return "a FIFO (named pipe)";
    if (S_ISCHR(mode))
        return "a character device";
    if (S_ISBLK(mode))
        return "a block device";
    if (S_ISSOCK(mode))
        return "a socket";
    return "not a regular file";
}

/// Closes the descriptor on every way out.
struct Fd {
    int fd = -1;
    ~Fd()
    {
        if (fd >= 0)
            ::close(fd);
    }
};

} // namespace

std::string describeBytes(int64_t bytes)
{
    if (bytes >= (int64_t(1) << 20) && bytes % (int64_t(1) << 20) == 0)
        return std::to_string(bytes >> 20) + " MiB";
    if (bytes >= (int64_t(1) << 10) && bytes % (int64_t(1) << 10) == 0)
        return std::to_string(bytes >> 10) + " KiB";
    return std::to_string(bytes) + (bytes == 1 ? " byte" : " bytes");
}

std::string groupDigits(int64_t value)
{
    // Digits of the magnitude (INT64_MIN's too, as unsigned), a comma every three from the right.
    const uint64_t magnitude = value < 0 ? uint64_t(0) - static_cast<uint64_t>(value) : static_cast<uint64_t>(value);
    const std::string digits = std::to_string(magnitude);
    std::string out = value < 0 ? "-" : "";
    for (size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0)
            out += ',';
        out += digits[i];
    }
    return out;
}

std::string readRegularFile(const std::string& path, std::string& out, int64_t maxBytes)
{
    out.clear();
    // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer forever.
    Fd f{::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)};
    if (f.fd < 0)
        return std::strerror(errno);
    struct stat st {};
    if (::fstat(f.fd, &st) != 0)
        return std::strerror(errno);
    if (!S_ISREG(st.st_mode))
        return std::string("it is ") + kindOf(st.st_mode) + ", not a regular file";
    const std::string tooLarge = "it is larger than " + describeBytes(maxBytes) + ", the most a kernel, target or schedule file may hold";
    if (st.st_size > maxBytes)
        return tooLarge;
    out.reserve(static_cast<size_t>(st.st_size));
    char buf[65536];
    for (;;) {
        const ssize_t n = ::read(f.fd, buf, sizeof buf);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            out.clear();
            return std::strerror(errno);
        }
        if (n == 0)
            return {};
        if (static_cast<int64_t>(out.size()) + n > maxBytes) {
            out.clear();
            return tooLarge;
        }
        out.append(buf, static_cast<size_t>(n));
    }
}

bool isFileOfKind(const std::vector<std::string>& topKeys, const std::vector<std::string>& known)
{
    size_t hits = 0;
    for (const std::string& k : topKeys)
        hits += std::find(known.begin(), known.end(), k) != known.end() ? 1 : 0;
    return hits > 0 && hits >= topKeys.size() - hits;
}

bool readTextFile(const std::string& path, std::string& out, std::string& error, int64_t maxBytes)
{
    const std::string why = readRegularFile(path, out, maxBytes);
    if (why.empty())
        return true;
    error = "cannot open '" + path + "': " + why;
    return false;
}

int countLines(std::string_view text)
{
    int lines = 0;
    for (const char *p = text.data(), *end = p + text.size(); (p = static_cast<const char*>(std::memchr(p, '\n', end - p))); ++p)
        ++lines;
    return lines;
}

} // namespace loopscope
