// Schedule files (*.sched.yaml): kernel path, target, optional size overrides and the trace.
#pragma once

#include "common/diagnostic.h"
#include "hw/target.h"
#include "sched/program.h"

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace loopscope::sched {

/// A schedule file as written: paths are kept as the user wrote them.
struct ScheduleFile {
    std::string path;                       ///< where it was read from / will be written
    std::string kernel;                     ///< kernel path, relative to the schedule file
    std::string target;                     ///< built-in target name or target file path
    std::string description;
    std::map<std::string, int64_t> params;  ///< size overrides applied to the kernel
    std::vector<Step> steps;
    // Where the values were written (for messages about them).
    SourceLoc kernelLoc;
    SourceLoc targetLoc;
    std::map<std::string, SourceLoc> paramLocs;
};

Result<ScheduleFile> parseScheduleFile(const std::string& text, const std::string& path);
Result<ScheduleFile> loadScheduleFile(const std::string& path);

/// Canonical text of a schedule; save, load, save gives the same bytes.
std::string formatScheduleFile(const ScheduleFile& file);
/// Writes formatScheduleFile(file) to `path` atomically (common/atomic_file.h): a uniquely named
/// temporary file, synced, renamed over it, the folder synced; the file keeps its permissions,
/// and a symbolic link at `path` stays and its target is written.
bool saveScheduleFile(const ScheduleFile& file, const std::string& path, std::string& error);

/// Resolves a target name or path (relative to baseDir). Supplied by hwdesc's loader.
using TargetResolver = std::function<Result<hw::Target>(const std::string& nameOrPath, const std::string& baseDir)>;

/// A loaded schedule: the file, its kernel and target, and the replayed program.
struct OpenedSchedule {
    ScheduleFile file;
    std::shared_ptr<const ir::Kernel> kernel;
    std::shared_ptr<const hw::Target> target;
    Program program;
    std::vector<Diagnostic> warnings;  ///< e.g. an absolute kernel or target path (sched/schedule_paths.h)
};

/// Loads a schedule file, its kernel and target, and replays the trace. A failing step
/// becomes an error naming the step, its file:line:column, and the loops/tensors involved.
Result<OpenedSchedule> openSchedule(const std::string& path, const TargetResolver& resolveTarget);
/// The same for a schedule already read (file.path is used in messages only): its kernel and
/// target paths are resolved against `folder` (sched::scheduleFolder of where it came from).
Result<OpenedSchedule> openScheduleFile(const ScheduleFile& file, const std::string& folder, const TargetResolver& resolveTarget);

/// Directory part of a path ("" for a bare file name).
std::string directoryOf(const std::string& path);
/// Joins a directory and a relative path (absolute paths are returned as they are).
std::string joinPath(const std::string& dir, const std::string& rel);

} // namespace loopscope::sched
