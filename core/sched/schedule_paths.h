// The files a schedule names (kernel:, target:): where relative paths start from, and what a
// path may be (docs/schedules.md, "Paths a schedule may name").
#pragma once

#include "common/diagnostic.h"

#include <optional>
#include <string>

namespace loopscope::sched {

/// The folder a schedule file's relative paths start from: the folder of the file itself, and of
/// its target when the file is a symbolic link (so that a saved file and a link to it read the
/// same kernel). "" for a bare file name in the current folder.
std::string scheduleFolder(const std::string& schedulePath);

/// A kernel or target path as a schedule wrote it, resolved.
struct NamedFile {
    std::string path;                   ///< to open: a relative path joined to the schedule's folder
    std::optional<Diagnostic> warning;  ///< an absolute path: the schedule works on this machine only
};

/// Resolves the kernel or target path `written` at `where` in a schedule whose relative paths
/// start from `folder`. Relative paths may leave the folder (`../kernels/...`, as the examples
/// do); an absolute path is accepted with a warning. What the file may be (a regular file of at
/// most kMaxTextFileBytes) and what its messages may quote are the readers' business.
NamedFile resolveNamedFile(const std::string& folder, const std::string& written, const SourceLoc& where, const std::string& what);

} // namespace loopscope::sched
