// Rebuilding an undo stack from the journal's entries.
#include "store/journal_replay.h"

namespace loopscope::store {

JournalHistory replayJournal(const std::string& base, const std::vector<JournalEntry>& entries)
{
    JournalHistory h;
    if (entries.empty())
        return h;
    bool ok = true;
    for (const JournalEntry& e : entries) {
        const int n = static_cast<int>(h.commands.size());
        if (e.action.starts_with(kJournalUndo) || e.action.starts_with(kJournalRedo)) {
            // Undo and redo move the index over commands the stack already has.
            if (e.undoIndex < 0 || e.undoIndex > n) {
                ok = false;
                break;
            }
            h.index = e.undoIndex;
        } else {
            // A push drops the commands that could be redone and adds one; a merge replaces the
            // command at the index (QUndoStack::push).
            if (e.undoIndex < 0 || e.undoIndex > h.index + 1) {
                ok = false;
                break;
            }
            h.commands.resize(static_cast<std::size_t>(e.undoIndex));
            if (e.undoIndex > 0)  // else: the only command merged back into nothing (obsolete)
                h.commands.back() = {e.action, e.state};
            h.index = e.undoIndex;
        }
        if (h.state(base) != e.state) {
            ok = false;
            break;
        }
    }
    if (ok)
        return h;
    JournalHistory flat;
    flat.exact = false;
    flat.commands.push_back({"restore the unsaved changes", entries.back().state});
    flat.index = 1;
    if (entries.back().state == base) {
        flat.commands.clear();
        flat.index = 0;
    }
    return flat;
}

} // namespace loopscope::store
