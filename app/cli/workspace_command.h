// `loopscope-cli workspace init|add|list|show|compare|export|import|check`: the sqlite
// workspace of a project folder from the command line (core/store).
#pragma once

#include <iosfwd>
#include <memory>

namespace CLI {
class App;
}

namespace loopscope::cli {

/// Registers the `workspace` subcommand and its subcommands on `app`; after app.parse(),
/// parsed() tells whether it was chosen and run() carries it out (exit code as elsewhere:
/// 0 ok, 2 bad input naming the file or variant).
class WorkspaceCommand {
public:
    WorkspaceCommand(CLI::App& app, std::ostream& out, std::ostream& err);
    ~WorkspaceCommand();
    bool parsed() const;
    int run();

    struct Options;

private:
    std::unique_ptr<Options> m_o;
    std::ostream& m_out;
    std::ostream& m_err;
};

} // namespace loopscope::cli
