// The subcommands of loopscope-cli, callable from tests without spawning a process.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>

namespace loopscope::cli {

/// Exit codes: 0 success, 1 verification failed, 2 bad input.
inline constexpr int kExitOk = 0;
inline constexpr int kExitMismatch = 1;
inline constexpr int kExitBadInput = 2;

int runLower(const std::string& file, const std::string& target, std::ostream& out, std::ostream& err);
int runVerify(const std::string& schedule, uint64_t seed, std::ostream& out, std::ostream& err);
int runCounts(const std::string& schedule, bool json, uint64_t seed, std::ostream& out, std::ostream& err);
int runAnalyze(const std::string& schedule, const std::string& target, bool json, std::ostream& out, std::ostream& err, bool measure = false);
/// Refuses (exit 2, nothing written) to overwrite files in `outDir` that an earlier export did not
/// write or that were edited since, unless `force`.
int runExport(const std::string& schedule, const std::string& outDir, bool harness, uint64_t seed, std::ostream& out, std::ostream& err,
              bool force = false);
int runTargets(std::ostream& out, std::ostream& err);

/// Parses argv and dispatches (what main() does).
int runCli(int argc, char** argv, std::ostream& out, std::ostream& err);

} // namespace loopscope::cli
