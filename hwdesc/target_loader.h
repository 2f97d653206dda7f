// Loads hardware targets from YAML (hwdesc/targets/*.yaml or a user file).
#pragma once

#include "common/diagnostic.h"
#include "hw/target.h"

#include <string>
#include <vector>

namespace loopscope::hw {

/// Loads a target file; every error names file:line:column and the field.
Result<Target> loadTargetFile(const std::string& path);
/// Same from text; `path` is used in messages only.
Result<Target> parseTarget(const std::string& text, const std::string& path);

/// Names of the targets built into the program (hwdesc/targets/*.yaml, embedded at build time).
std::vector<std::string> builtinTargetNames();
/// Loads a built-in target by name.
Result<Target> loadBuiltinTarget(const std::string& name);
/// The YAML text of a built-in target ("" for an unknown name); the workspace stores it so that
/// a variant can be reproduced after the built-in targets change.
std::string builtinTargetText(const std::string& name);
/// A built-in name, or a path to a target file (relative paths resolved against baseDir).
Result<Target> resolveTarget(const std::string& nameOrPath, const std::string& baseDir = "");

} // namespace loopscope::hw
