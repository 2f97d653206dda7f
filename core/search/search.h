// The schedule search: draws candidates from a SearchSpace in batches (random samples and
// mutations of the front found so far), evaluates them on a pool of threads, and keeps the
// Pareto front over (cycles, peak on-chip bytes, energy). Deterministic for a seed: candidate
// i of batch b depends only on (seed, b, i) and the front after batch b-1, and the results of
// a batch are merged in index order, so the thread count changes nothing but the speed.
#pragma once

#include "search/pareto_front.h"
#include "search/search_space.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace loopscope::search {

/// What "best" means. Dram and Instructions also join the front as a fourth dimension (the
/// front over cycles, on-chip bytes and energy need not hold the point with the least of them).
enum class Objective { Cycles, Energy, Sram, Edp, Dram, Instructions };

const char* objectiveName(Objective o);
bool parseObjective(const std::string& name, Objective& out);
/// The value minimised for an objective (edp: energy times cycles).
double objectiveValue(Objective o, const Figures& f);
/// The front's fourth dimension for an objective (None for the three it already has and edp).
ExtraDimension frontDimension(Objective o);

struct SearchOptions {
    Objective objective = Objective::Cycles;
    double timeLimitSeconds = 0;    ///< 0: no time limit
    int64_t budget = 0;             ///< candidates drawn at most; 0: no limit (then a time limit is needed)
    int threads = 0;                ///< 0: every core
    uint64_t seed = 1;
    int batchSize = 256;            ///< candidates per batch (the unit of determinism)
    /// Also keep the best points for the objective with `distinct` different register blocks
    /// (SearchSpace::blockKey; SearchResult::distinct), on the front or not: what --measure-top
    /// measures, so that N measurements are not spent on N cache placements of one inner loop,
    /// whose model errors are alike. 0: none kept.
    int distinct = 0;
    /// Tests only: called on the worker thread before each candidate is evaluated; an exception
    /// it throws is handled as one from the evaluator (the candidate is rejected, the run goes on).
    std::function<void(const Candidate&)> beforeEvaluate;
    SpaceOptions space;
    /// The steps after the pinned ones of the schedule the search starts from (a hand schedule's
    /// unpinned steps). When the space holds what they build (SearchSpace::project) with the
    /// same figures, that point is candidate 0 and the first parent of the mutations, so the
    /// front holds the schedule or better; otherwise candidate 0 is the pinned program alone
    /// (SearchResult::start says why). Empty: start from the pinned program.
    std::vector<sched::Step> start;
};

/// Counters of a run, reported after every batch.
struct SearchProgress {
    int64_t batches = 0;
    int64_t drawn = 0;              ///< candidates generated
    int64_t evaluated = 0;          ///< lowered and analysed (distinct candidates)
    int64_t feasible = 0;           ///< analysed without an error diagnostic
    int64_t repaired = 0;           ///< made to fit by moving or dropping caches before evaluation
    int64_t pruned = 0;             ///< could not be made to fit: never lowered
    int64_t duplicates = 0;         ///< drawn again: not evaluated twice
    int64_t rejected = 0;           ///< a step did not apply, or an error diagnostic (defects; expected 0)
    size_t frontSize = 0;
    std::optional<Figures> best;    ///< best for the objective so far
    int64_t bestDrawn = 0;          ///< candidates drawn when it was found (at the end of that batch)
    double bestSeconds = 0;         ///< seconds into the run when it was found (time to the best point)
    double seconds = 0;
    double rate = 0;                ///< evaluated per second
};

/// Where a run's results go as they are found (a workspace, a window, a test).
class SearchSink {
public:
    virtual ~SearchSink() = default;
    /// A point entered the front (it may leave it later).
    virtual void pointFound(const SearchPoint& point) { (void)point; }
    /// After every batch.
    virtual void progress(const SearchProgress& progress, const std::vector<SearchPoint>& front)
    {
        (void)progress;
        (void)front;
    }
};

/// Where a run stopped: enough to resume it (the same front as a run never stopped). The run
/// continues at candidate progress.drawn, which may be inside a batch (a budget, cancel or the
/// time limit stopped it there); the candidates drawn before are not known to the resumed run
/// except for the front, so a candidate drawn again is evaluated again (the counters then
/// differ from an uninterrupted run's; the front does not).
struct SearchState {
    int64_t batches = 0;
    std::vector<SearchPoint> front;     ///< in the order the points entered it
    std::vector<SearchPoint> parents;   ///< the front when the batch stopped inside began (empty at a batch boundary)
    SearchProgress progress;
};

struct SearchResult {
    bool feasible = false;
    std::string message;            ///< "no feasible schedule: SRAM must hold ..." when not feasible
    std::vector<SearchPoint> front; ///< sorted by cycles
    int best = -1;                  ///< index into front of the best point for the objective
    SearchProgress progress;
    SearchState state;              ///< to resume
    bool cancelled = false;
    bool timedOut = false;
    bool budgetReached = false;
    std::vector<std::string> defects;  ///< reasons of rejected candidates (at most a few)
    /// Where the run started: "the schedule given" (SearchOptions::start projected into the
    /// space), or why not; empty when no start was given.
    std::string start;
    bool startedFromSchedule = false;
    /// The straight-line copies of the schedule it started from when they are more than the
    /// space's unroll limit (SpaceOptions::maxUnrollProduct), 0 otherwise: a limit that high
    /// would search among bodies that large (the CLI's --max-unroll, the panel's field).
    int64_t startUnrolledCopies = 0;
    /// SearchOptions::distinct (N): the best point for the objective of each of the N - 1 best
    /// register blocks and, beside them, of the best block whose unrolled body is small
    /// (SearchSpace::unrolledCopies at most 4; the N-th best block when that one is among the
    /// others or there is none), best first. The model's error grows with the unrolled body, so
    /// N large bodies all predicted low would leave the measurement nothing else to choose.
    /// Kept as the points are merged (deterministic like the front); a resumed run starts it
    /// from the front it resumes.
    std::vector<SearchPoint> distinct;
};

/// Runs a search over the space of `base` (the program after the pinned steps). `cancel`,
/// when set by another thread, stops it after the candidates in flight (those after the
/// first one not finished are dropped). `resume` continues a
/// stopped run of the same base, options and seed.
SearchResult runSearch(const sched::Program& base, const SearchOptions& options, SearchSink* sink = nullptr,
                       const std::atomic<bool>* cancel = nullptr, const SearchState* resume = nullptr);

} // namespace loopscope::search
