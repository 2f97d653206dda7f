// The subcommands of loopscope-cli, callable from tests without spawning a process.
#pragma once

#include "common/diagnostic.h"
#include "sched/program.h"

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>

namespace CLI {
class App;
}

namespace loopscope::cli {

/// Exit codes: 0 success, 1 verification failed, 2 bad input; a search stopped by Ctrl-C or
/// SIGTERM, after printing what it found, 130 or 143 (128 + the signal, as a shell reports it).
inline constexpr int kExitOk = 0;
inline constexpr int kExitMismatch = 1;
inline constexpr int kExitBadInput = 2;

int runLower(const std::string& file, const std::string& target, std::ostream& out, std::ostream& err);
int runVerify(const std::string& schedule, uint64_t seed, std::ostream& out, std::ostream& err);
int runCounts(const std::string& schedule, bool json, uint64_t seed, std::ostream& out, std::ostream& err);
int runAnalyze(const std::string& schedule, const std::string& target, bool json, std::ostream& out, std::ostream& err, bool measure = false,
               bool loops = false);
/// Refuses (exit 2, nothing written) a schedule with error diagnostics (it does not fit the target),
/// naming them, and refuses to overwrite files in `outDir` that an earlier export did not
/// write or that were edited since, unless `force`.
int runExport(const std::string& schedule, const std::string& outDir, bool harness, uint64_t seed, std::ostream& out, std::ostream& err,
              bool force = false, bool gemminiAccScale = false);
int runTargets(std::ostream& out, std::ostream& err);

/// The program of a schedule (or of an unscheduled kernel), replayed on `target` if not empty.
/// Warnings about the schedule (an absolute kernel path, ...) go to `warnings` when given.
Result<sched::Program> programFor(const std::string& file, const std::string& target, std::ostream* warnings = nullptr);
/// "1.5 KiB".
std::string humanBytes(int64_t bytes);

/// A subcommand defined in a file of its own: it adds itself to the parser and says how to
/// run once parsed. runCli registers each with one line.
struct Subcommand {
    CLI::App* command = nullptr;
    std::function<int()> run;
};
/// `tiles SCHEDULE [--json]`: the output tile and the resident input regions of every
/// iteration of the outer loops (tiles_command.cpp).
Subcommand addTilesCommand(CLI::App& app, std::ostream& out, std::ostream& err);
int runTiles(const std::string& schedule, bool json, int64_t maxSteps, std::ostream& out, std::ostream& err);
/// `calibrate TARGET`: measures example and random schedules on qemu and fits the instruction
/// model's coefficients for the target (calibrate_command.cpp).
Subcommand addCalibrateCommand(CLI::App& app, std::ostream& out, std::ostream& err);

/// Runs a subcommand and turns any exception it throws into a message on `err` and exit code 2
/// (bad input): a bug or an exhausted resource ends the command, never the process with an
/// abort. runCli runs every subcommand through it.
int runGuarded(std::ostream& err, const std::function<int()>& command);

/// Parses argv and dispatches (what main() does).
int runCli(int argc, char** argv, std::ostream& out, std::ostream& err);

} // namespace loopscope::cli
