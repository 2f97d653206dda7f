// Reading the files a user or a schedule names (kernels, targets, schedules, imports): only
// regular files, only up to a documented size, never blocking on a FIFO or reading a device.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace loopscope {

/// The largest kernel, target or schedule file read: 4 MiB. The shipped files are a few KiB; a
/// schedule of 16,000 steps is under 1 MiB. Past this a YAML parse takes seconds and hundreds of
/// MiB (docs/schedules.md, "Limits").
inline constexpr int64_t kMaxTextFileBytes = int64_t(4) << 20;

/// The newline characters in `text` (memchr: a tenth of the instructions of std::count on
/// the thousands of lines of C the app counts after every edit).
int countLines(std::string_view text);

/// Reads a whole regular file of at most `maxBytes` (a symbolic link is followed to one). False
/// with a message that names the path and never quotes the content when the file is missing, is
/// not a regular file (a directory, FIFO, device or socket: opened without blocking, never read),
/// is larger than the limit, or cannot be read.
bool readTextFile(const std::string& path, std::string& out, std::string& error, int64_t maxBytes = kMaxTextFileBytes);

/// The same without composing the message: "" when `out` holds the file, otherwise only why
/// not ("No such file or directory", "it is a FIFO (named pipe), not a regular file", ...), for
/// callers that phrase their own message around it.
std::string readRegularFile(const std::string& path, std::string& out, int64_t maxBytes = kMaxTextFileBytes);

/// Whether a YAML mapping with these top-level keys is a file of the kind whose keys are
/// `known`: at least one of its keys is known and no more are unknown than known. Readers quote
/// a file's content (an unknown key, a bad value) only in files of their kind, so that a schedule
/// naming /etc/passwd as its kernel learns nothing of it (docs/schedules.md, "Paths").
bool isFileOfKind(const std::vector<std::string>& topKeys, const std::vector<std::string>& known);

/// "4 MiB", "100 MiB", "512 bytes": a size for messages.
std::string describeBytes(int64_t bytes);

/// "3,964,406": a count for messages, in groups of three digits as the app and the tables show
/// counts.
std::string groupDigits(int64_t value);

} // namespace loopscope
