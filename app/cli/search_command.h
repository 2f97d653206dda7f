// `loopscope-cli search`: the constrained schedule search from the command line.
#pragma once

#include "commands.h"
#include "search/search_space.h"

#include <cstdint>
#include <iosfwd>
#include <string>

namespace loopscope::cli {

struct SearchArgs {
    std::string file;               ///< a *.kernel.yaml or *.sched.yaml
    std::string target;
    int pin = -1;                   ///< steps of the schedule kept; -1: all of them
    std::string objective = "cycles";
    double seconds = 10;
    int64_t budget = 0;
    int threads = 0;
    uint64_t seed = 1;
    int measureTop = 0;
    bool partialTiles = false;
    int64_t maxUnroll = search::SpaceOptions{}.maxUnrollProduct;  ///< --max-unroll
    bool json = false;
    std::string workspace;          ///< stream the run into this workspace (created if missing)
    int64_t resume = 0;             ///< continue this search run of the workspace
    std::string out;                ///< write the best schedule here
    std::string measuredOut;        ///< with --measure-top: write each measured point here (a folder)
    std::string frontOut;           ///< write every point of the front here (a folder)
    bool force = false;
};

int runSearchCommand(const SearchArgs& args, std::ostream& out, std::ostream& err);

/// `search (KERNEL | SCHEDULE [--pin K]) ...`: adds the subcommand to `app` (runCli registers it).
Subcommand addSearchCommand(CLI::App& app, std::ostream& out, std::ostream& err);

} // namespace loopscope::cli
