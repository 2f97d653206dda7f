// The workspace under abuse: child processes killed with SIGKILL in the middle of a stream of
// journal writes (the file opens, passes integrity_check and holds every committed entry), and
// several processes writing one workspace at once (every write lands).
#include "store_test_support.h"

#include <chrono>
#include <csignal>
#include <random>
#include <thread>

#include <poll.h>
#include <sys/wait.h>

using namespace loopscope;
using namespace loopscope::test;

namespace {

/// The state text of journal entry `seq`: sizes from a few bytes to 24 KiB, so that entries
/// span pages and the log is checkpointed into the file now and then.
std::string stateFor(int64_t seq)
{
    std::mt19937 rng(static_cast<unsigned>(seq));
    const std::size_t size = seq % 7 == 0 ? 24 * 1024 : 16 + rng() % 3000;
    std::string s = "state " + std::to_string(seq) + ":";
    while (s.size() < size)
        s += static_cast<char>('a' + rng() % 26);
    return s;
}

/// The child: opens the workspace, starts a session and appends entries as fast as it can,
/// writing each committed seq to `fd`. Never returns.
[[noreturn]] void journalWriter(const std::string& path, int fd)
{
    auto ws = store::Workspace::open(path);
    if (!ws)
        _exit(3);
    store::JournalSession s;
    s.document = "/p/doc.sched.yaml";
    s.base = "base";
    auto id = (*ws)->beginJournal(s);
    if (!id)
        _exit(4);
    for (int64_t seq = 1;; ++seq) {
        store::JournalEntry e;
        e.action = "edit " + std::to_string(seq);
        e.undoIndex = static_cast<int>(seq);
        e.state = stateFor(seq);
        auto r = (*ws)->appendJournal(*id, e);
        if (!r || *r != seq)
            _exit(5);
        const int64_t msg = seq;
        if (write(fd, &msg, sizeof msg) != sizeof msg)
            _exit(6);
    }
}

} // namespace

TEST(StoreCrash, SigkillDuringJournalWritesLosesNoCommittedEntry)
{
    ScratchDir dir("crash");
    const std::string path = dir / "w.loopscope-workspace";
    ASSERT_TRUE(store::Workspace::create(path).ok());
    std::mt19937 rng(20240611);
    constexpr int kRounds = 60;
    int64_t totalCommitted = 0;
    for (int round = 0; round < kRounds; ++round) {
        int fds[2];
        ASSERT_EQ(pipe(fds), 0);
        const pid_t child = fork();
        ASSERT_GE(child, 0);
        if (child == 0) {
            close(fds[0]);
            journalWriter(path, fds[1]);
        }
        close(fds[1]);
        // Let it commit some entries (1 to 40), then kill it at a random moment.
        const int64_t wanted = 1 + rng() % 40;
        int64_t acked = 0;
        while (acked < wanted) {
            pollfd p{fds[0], POLLIN, 0};
            ASSERT_GT(poll(&p, 1, 10000), 0) << "the writer stopped (round " << round << ")";
            int64_t seq = 0;
            if (read(fds[0], &seq, sizeof seq) != sizeof seq)
                break;
            acked = seq;
        }
        ASSERT_EQ(acked, wanted) << "round " << round;
        std::this_thread::sleep_for(std::chrono::microseconds(rng() % 1500));
        kill(child, SIGKILL);
        int status = 0;
        waitpid(child, &status, 0);
        ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "round " << round << ": the writer ended by itself, status " << status;
        // Entries it reported after the moment we stopped reading count as committed too.
        int64_t seq = 0;
        while (read(fds[0], &seq, sizeof seq) == sizeof seq)
            acked = seq;
        close(fds[0]);

        auto ws = store::Workspace::open(path);
        ASSERT_TRUE(ws.ok()) << "round " << round << ": " << ws.errorText();
        ASSERT_TRUE((*ws)->integrityProblems().empty()) << "round " << round;
        auto sessions = (*ws)->journalSessions();
        ASSERT_FALSE(sessions.empty());
        const auto& s = sessions.back();
        EXPECT_EQ(s.pid, child);
        auto entries = (*ws)->journalEntries(s.id);
        // Every committed entry is there, in order and intact; at most the one being written
        // when the kill came is there too.
        ASSERT_GE(static_cast<int64_t>(entries.size()), acked) << "round " << round;
        ASSERT_LE(static_cast<int64_t>(entries.size()), acked + 1) << "round " << round;
        for (std::size_t i = 0; i < entries.size(); ++i) {
            ASSERT_EQ(entries[i].seq, static_cast<int64_t>(i + 1));
            ASSERT_EQ(entries[i].state, stateFor(entries[i].seq)) << "round " << round << " entry " << i + 1;
        }
        // The killed session is what the app would offer to restore.
        auto rec = (*ws)->recoverable();
        ASSERT_FALSE(rec.empty());
        EXPECT_EQ(rec.back().session.id, s.id);
        EXPECT_EQ(rec.back().last.seq, static_cast<int64_t>(entries.size()));
        totalCommitted += acked;
        // As the app does once it has restored (or discarded) it: the file stays small.
        ASSERT_TRUE((*ws)->closeJournal(s.id).ok());
    }
    RecordProperty("committed_entries", std::to_string(totalCommitted));
}

TEST(StoreCrash, ConcurrentWritersInSeveralProcessesAllLand)
{
    ScratchDir dir("crash");
    const std::string path = dir / "w.loopscope-workspace";
    ASSERT_TRUE(store::Workspace::create(path).ok());
    const store::NewVariant tiled = exampleVariant("matmul_f32_tiled");
    constexpr int kWriters = 4;
    constexpr int kEach = 25;
    std::vector<pid_t> children;
    for (int w = 0; w < kWriters; ++w) {
        const pid_t child = fork();
        ASSERT_GE(child, 0);
        if (child == 0) {
            auto ws = store::Workspace::open(path);
            if (!ws)
                _exit(3);
            auto session = (*ws)->beginJournal({});
            if (!session)
                _exit(4);
            for (int i = 0; i < kEach; ++i) {
                store::NewVariant v = tiled;
                v.name = "w" + std::to_string(w) + "-" + std::to_string(i);
                if (!(*ws)->addVariant(v))
                    _exit(5);
                store::JournalEntry e;
                e.action = v.name;
                e.state = v.trace;
                if (!(*ws)->appendJournal(*session, e))
                    _exit(6);
                // A reader in the middle of the writes sees a consistent list.
                if ((*ws)->variants().empty())
                    _exit(7);
            }
            _exit(0);
        }
        children.push_back(child);
    }
    // This process reads while they write.
    {
        auto reader = store::Workspace::open(path);
        ASSERT_TRUE(reader.ok()) << reader.errorText();
        for (int i = 0; i < 20; ++i) {
            (void)(*reader)->variants();
            EXPECT_TRUE((*reader)->lastError().empty()) << (*reader)->lastError();
        }
    }
    for (pid_t c : children) {
        int status = 0;
        waitpid(c, &status, 0);
        EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "a writer failed with status " << status;
    }
    auto ws = store::Workspace::open(path);
    ASSERT_TRUE(ws.ok());
    EXPECT_TRUE((*ws)->integrityProblems().empty());
    EXPECT_EQ((*ws)->variants().size(), static_cast<std::size_t>(kWriters * kEach));
    EXPECT_EQ((*ws)->summary()->journalEntries, kWriters * kEach);
    EXPECT_EQ((*ws)->summary()->files, 2) << "the same kernel and target are stored once";
}
