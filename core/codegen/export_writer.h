// Writing an export into a directory without destroying anybody's work. Next to the files it
// writes, an export keeps a manifest, `.loopscope-export`, with a hash of each file as written.
// A file already in the directory may be replaced when it is byte-identical to the new one or
// still exactly as an earlier export wrote it (its hash matches the manifest). Any other file
// in the way (the user's own main.c, a generated file edited since) is a conflict: unless
// forced, nothing at all is written.
#pragma once

#include "codegen/generated_file.h"

#include <filesystem>
#include <string>
#include <vector>

namespace loopscope::codegen {

/// File name of the manifest in an export directory.
inline constexpr const char* kExportManifest = ".loopscope-export";

/// Paths (relative, as in `files`) that writing `files` into `dir` would overwrite although they
/// are neither identical nor unchanged since an earlier export.
std::vector<std::string> exportConflicts(const std::filesystem::path& dir, const std::vector<GeneratedFile>& files);

struct ExportWriteResult {
    bool ok = false;
    std::vector<std::string> conflicts;  ///< set when refused because of them (nothing written)
    std::vector<std::filesystem::path> written;
    std::string error;                   ///< what went wrong, for the user
};

/// Creates `dir` if needed and writes `files` and the manifest, unless there are conflicts and
/// `force` is false (then it writes nothing and reports them).
ExportWriteResult writeExport(const std::filesystem::path& dir, const std::vector<GeneratedFile>& files, bool force);

/// The message for a refused export: which files, why, and (`forceHint`, e.g. "Use --force to
/// replace", completed with "it." or "them.") how to go on.
std::string conflictMessage(const std::filesystem::path& dir, const std::vector<std::string>& conflicts, const std::string& forceHint);

} // namespace loopscope::codegen
