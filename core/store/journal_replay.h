// The undo history an edit-journal session describes, rebuilt after a crash so that the
// restored document can be undone and redone as it could before.
#pragma once

#include "store/records.h"

#include <string>
#include <vector>

namespace loopscope::store {

/// How the app names undo and redo in the journal ("undo: split j by 16"); any other action is
/// an edit that became (or merged into) the command at its undo index.
inline constexpr const char* kJournalUndo = "undo: ";
inline constexpr const char* kJournalRedo = "redo: ";

/// An undo stack: one command per edit (its action and the document's state after it).
struct JournalHistory {
    struct Command {
        std::string action;
        std::string state;
    };
    std::vector<Command> commands;
    int index = 0;        ///< commands[0, index) are done; the others can be redone
    /// False when the entries do not describe a stack built from the session's base (an undo
    /// past the point where the session started, or entries missing): then the history is
    /// one command from the base to the last state.
    bool exact = true;
    /// The state the history ends in (the base when nothing is done).
    std::string state(const std::string& base) const { return index == 0 ? base : commands[static_cast<std::size_t>(index) - 1].state; }
};

/// Replays a session's entries (in seq order) on an empty stack whose state is `base`. Every
/// entry's state is checked against the state the stack reaches; the last entry's state is
/// always the one the history ends in.
JournalHistory replayJournal(const std::string& base, const std::vector<JournalEntry>& entries);

} // namespace loopscope::store
