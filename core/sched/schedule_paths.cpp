// Resolving the kernel and target paths of a schedule file (see schedule_paths.h).
#include "sched/schedule_paths.h"

#include "sched/schedule_file.h"

#include <filesystem>

namespace loopscope::sched {

namespace fs = std::filesystem;

std::string scheduleFolder(const std::string& schedulePath)
{
    std::error_code ec;
    if (fs::is_symlink(schedulePath, ec)) {
        const fs::path real = fs::canonical(schedulePath, ec);
        if (!ec)
            return real.parent_path().string();
    }
    return directoryOf(schedulePath);
}

NamedFile resolveNamedFile(const std::string& folder, const std::string& written, const SourceLoc& where, const std::string& what)
{
    NamedFile f;
    f.path = joinPath(folder, written);
    if (!written.empty() && written[0] == '/')
        f.warning = Diagnostic{Severity::Warning, where,
                               what + " '" + written + "' is an absolute path: the schedule reads it on this machine only "
                                   + "(a path relative to the schedule's folder travels with it)"};
    return f;
}

} // namespace loopscope::sched
