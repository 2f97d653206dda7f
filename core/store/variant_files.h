// Between variants and files: a variant from a *.sched.yaml, a variant's program rebuilt from
// the kernel and target texts stored with it, whether the files on disk still match, whether a
// schedule is the one a variant stores, and a variant written back as a *.sched.yaml.
#pragma once

#include "common/diagnostic.h"
#include "sched/schedule_file.h"
#include "store/records.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace loopscope::store {

class Workspace;

/// Parses a target from its text (hw::parseTarget; supplied by hwdesc, which core cannot use).
using TargetParser = std::function<Result<hw::Target>(const std::string& text, const std::string& path)>;
/// The text of a built-in target by name ("" when unknown; hw::builtinTargetText).
using BuiltinTargetText = std::function<std::string(const std::string& name)>;

/// "builtin:<name>" (how a built-in target's StoredFile is named).
std::string builtinPath(const std::string& name);

/// A variant from a schedule file as it is on disk: its text, its kernel's and target's texts,
/// and the figures of its analysis (when the trace replays). A file that does not load is an
/// error naming file:line:column.
Result<NewVariant> variantFromScheduleFile(const std::string& schedulePath, const TargetParser& parseTarget,
                                           const BuiltinTargetText& builtinText);
/// The same from a trace text whose kernel is `kernelPath` (absolute) on `target`.
Result<NewVariant> variantFromTrace(const std::string& trace, const std::string& kernelPath, const std::string& target,
                                    const TargetParser& parseTarget, const BuiltinTargetText& builtinText);

/// A variant's program, rebuilt from the stored texts (not the files on disk).
struct VariantProgram {
    sched::ScheduleFile file;
    std::shared_ptr<const ir::Kernel> kernel;
    std::shared_ptr<const hw::Target> target;
    sched::Program program;                       ///< the steps up to the first failing one
    std::optional<sched::ScheduleError> failedStep;
};
Result<VariantProgram> rebuildVariant(const Workspace& ws, const Variant& v, const TargetParser& parseTarget);

enum class DiskState { Same, Changed, Missing };
const char* diskStateName(DiskState s);
/// Whether the file a StoredFile was read from still has the same text (a built-in target is
/// compared with this build's).
DiskState diskState(const StoredFile& f, const BuiltinTargetText& builtinText);

/// Whether a schedule (its steps and kernel parameters) on a kernel and target read from these
/// texts is the one stored as `v`: a figure or measurement of it then describes `v`. The
/// description, notes and file names do not matter; a trace that does not parse is never `v`.
bool isStoredSchedule(const Variant& v, const sched::ScheduleFile& schedule, const std::string& kernelText, const std::string& targetText);

/// A variant as a *.sched.yaml text to be written at `schedulePath`: the kernel is referenced
/// relative to it. When the kernel (or target) file on disk differs from the stored text or is
/// missing, the stored text is to be written beside the schedule: `extraFiles` lists
/// (path, text) pairs for that, and `notes` says why.
struct ExportedVariant {
    std::string text;
    std::vector<std::pair<std::string, std::string>> extraFiles;
    std::vector<std::string> notes;
};
Result<ExportedVariant> exportVariant(const Workspace& ws, const Variant& v, const std::string& schedulePath,
                                      const BuiltinTargetText& builtinText);

} // namespace loopscope::store
