// The search driver: batches, a thread per core, index-ordered merging, progress and cancel.
#include "search/search.h"

#include "search/occupancy_bound.h"

#include <algorithm>
#include <chrono>
#include <optional>
#include <thread>
#include <unordered_set>

namespace loopscope::search {

namespace {

/// The largest unrolled body (straight-line copies of the innermost body) counted as small for
/// --measure-top: dense_int8's 2x2 blocks (4 copies) are predicted within 2-6 %, its 2x4 and 4x2
/// blocks 15-35 % low (docs/search.md, "Measuring the best").
constexpr int64_t kSmallBody = 4;

uint64_t splitmix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

int bestIndex(Objective o, const std::vector<SearchPoint>& pts)
{
    int best = -1;
    for (size_t i = 0; i < pts.size(); ++i) {
        if (best < 0) {
            best = static_cast<int>(i);
            continue;
        }
        const Figures& a = pts[i].figures;
        const Figures& b = pts[static_cast<size_t>(best)].figures;
        double va = objectiveValue(o, a), vb = objectiveValue(o, b);
        if (va < vb || (va == vb && std::tie(a.cycles, a.onChipBytes, a.energyUj, pts[i].index)
                                        < std::tie(b.cycles, b.onChipBytes, b.energyUj, pts[static_cast<size_t>(best)].index)))
            best = static_cast<int>(i);
    }
    return best;
}

struct Slot {
    bool done = false;
    bool duplicate = false;
    uint64_t drawnHash = 0;
    Evaluation eval;
};

} // namespace

const char* objectiveName(Objective o)
{
    switch (o) {
    case Objective::Cycles: return "cycles";
    case Objective::Energy: return "energy";
    case Objective::Sram: return "sram";
    case Objective::Edp: return "edp";
    case Objective::Dram: return "dram";
    case Objective::Instructions: return "instructions";
    }
    return "cycles";
}

bool parseObjective(const std::string& name, Objective& out)
{
    for (Objective o : {Objective::Cycles, Objective::Energy, Objective::Sram, Objective::Edp, Objective::Dram, Objective::Instructions})
        if (name == objectiveName(o)) {
            out = o;
            return true;
        }
    return false;
}

ExtraDimension frontDimension(Objective o)
{
    return o == Objective::Dram ? ExtraDimension::Dram : o == Objective::Instructions ? ExtraDimension::Instructions : ExtraDimension::None;
}

double objectiveValue(Objective o, const Figures& f)
{
    switch (o) {
    case Objective::Cycles: return static_cast<double>(f.cycles);
    case Objective::Energy: return f.energyUj;
    case Objective::Sram: return static_cast<double>(f.onChipBytes);
    case Objective::Edp: return f.energyUj * static_cast<double>(f.cycles);
    case Objective::Dram: return static_cast<double>(f.dramBytes);
    case Objective::Instructions: return static_cast<double>(f.instructions);
    }
    return 0;
}

namespace {

std::string startHead(const std::vector<sched::Step>& steps)
{
    return "started from the pinned steps: the schedule's " + std::to_string(steps.size()) + " other steps ";
}

/// The program the search starts from: the pinned program with SearchOptions::start applied
/// (nothing, and `res.start` says why, when a step does not apply).
std::optional<sched::Program> startProgram(const sched::Program& base, const std::vector<sched::Step>& steps, SearchResult& res)
{
    if (steps.empty())
        return std::nullopt;
    sched::Program scheduled = base;
    for (const sched::Step& step : steps) {
        sched::ApplyResult r = sched::apply(std::move(scheduled), step);
        if (!r.ok()) {
            res.start = startHead(steps) + "do not apply: " + r.error().message;
            return std::nullopt;
        }
        scheduled = std::move(r.program());
    }
    return scheduled;
}

/// The most straight-line copies the unrolled loops of one stage of `p` make that `base` does
/// not: beyond the space's unroll limit (SpaceOptions::maxUnrollProduct), `p` is not a point
/// of the space.
int64_t unrolledProduct(const sched::Program& p, const sched::Program& base)
{
    int64_t most = 1;
    for (size_t s = 0; s < p.stages.size(); ++s) {
        int64_t product = 1;
        for (int v : p.stages[s].order) {
            const sched::LoopVar& lv = p.stages[s].vars[static_cast<size_t>(v)];
            const auto& before = base.stages[s].vars;
            const bool pinned = v < static_cast<int>(before.size()) && before[static_cast<size_t>(v)].active && before[static_cast<size_t>(v)].kind == lv.kind;
            if (lv.kind == sched::LoopKind::Unrolled && !pinned)
                product *= lv.extent;
        }
        most = std::max(most, product);
    }
    return most;
}

/// Candidate 0: the program the search starts from when the space holds it (projected, with
/// the same figures as the program itself: the space may write a schedule's loops and caches
/// in steps that lower differently), else the identity. A schedule that unrolls more copies
/// than the space's limit (SpaceOptions::maxUnrollProduct) but is otherwise a point of it is
/// projected into `wider` (the same space with the limit raised to the schedule's own) and
/// set there: runSearch evaluates candidate 0 in that space, while the candidates drawn keep to
/// the limit.
Candidate startCandidate(const SearchSpace& space, const Evaluator& evaluator, std::optional<sched::Program> scheduled,
                         const std::vector<sched::Step>& steps, std::optional<SearchSpace>& wider, SearchResult& res)
{
    if (!scheduled)
        return space.identity();
    // The limit is not raised to the schedule's own for the whole search: the model
    // under-counts the stack traffic of large unrolled bodies (docs/cost-model.md), and a space
    // of them is where the search's picks then measure worse than the schedule it started from.
    const int64_t copies = unrolledProduct(*scheduled, space.base());
    const SearchSpace* in = &space;
    std::optional<Evaluator> widerEvaluator;
    if (copies > space.options().maxUnrollProduct) {
        SpaceOptions o = space.options();
        o.maxUnrollProduct = copies;
        wider.emplace(space.base(), o);
        widerEvaluator.emplace(*wider);
        in = &*wider;
    }
    auto outside = [&] {
        widerEvaluator.reset();  // before the space it refers to
        wider.reset();
    };
    std::string why;
    std::optional<Candidate> c = in->project(*scheduled, why);
    if (!c) {
        outside();
        res.start = startHead(steps) + "are outside the search's space: " + why;
        return space.identity();
    }
    const Evaluator& ev = widerEvaluator ? *widerEvaluator : evaluator;
    const Evaluation own = ev.evaluateProgram(std::move(*scheduled));
    const Evaluation projected = ev.evaluate(*c);
    if (own.status != Evaluation::Status::Ok || projected.status != Evaluation::Status::Ok || projected.repairs > 0
        || !(own.figures == projected.figures)) {
        outside();
        res.start = startHead(steps) + (own.status != Evaluation::Status::Ok ? "do not make a feasible schedule: " + own.reason
                                        : projected.repairs > 0           ? "need more on-chip memory than the target has"
                                                                          : "are written by the space in steps whose figures differ");
        return space.identity();
    }
    res.start = "started from the schedule given (its " + std::to_string(steps.size()) + " unpinned steps as a point of the space"
                + (wider ? "; they unroll " + std::to_string(copies) + " straight-line copies, beyond the space's limit of "
                               + std::to_string(space.options().maxUnrollProduct) + ": the candidates drawn keep to it)"
                         : std::string(")"));
    res.startedFromSchedule = true;
    res.startUnrolledCopies = wider ? copies : 0;
    return *c;
}

} // namespace

SearchResult runSearch(const sched::Program& base, const SearchOptions& opt, SearchSink* sink,
                       const std::atomic<bool>* cancel, const SearchState* resume)
{
    using Clock = std::chrono::steady_clock;
    const auto t0 = Clock::now();
    SearchResult res;
    // Nothing the search adds can make room for what the pinned steps (or the tensors'
    // home) already need.
    if (opt.objective == Objective::Instructions && base.target->kind == "accelerator") {
        res.message = "the instructions objective needs a CPU target: " + base.target->name
                      + " is an accelerator, whose code the instruction model does not predict (use cycles)";
        return res;
    }
    OccupancyBound b0 = boundOccupancy(base);
    int over = b0.overCapacity(*base.target);
    if (over >= 0) {
        res.message = "no feasible schedule on " + base.target->name + ": " + describeOverCapacity(base, b0, over)
                      + (base.trace.empty() ? "" : " (with the " + std::to_string(base.trace.size()) + " pinned steps)");
        return res;
    }
    std::optional<sched::Program> scheduled = startProgram(base, opt.start, res);
    SearchSpace space(base, opt.space);
    Evaluator evaluator(space);
    std::optional<SearchSpace> wider;  // the space candidate 0 lies in, when beyond the unroll limit
    const Candidate startPoint = startCandidate(space, evaluator, std::move(scheduled), opt.start, wider, res);
    std::optional<Evaluator> widerEvaluator;
    if (wider)
        widerEvaluator.emplace(*wider);
    ParetoFront front(frontDimension(opt.objective));
    std::unordered_set<uint64_t> seen;
    SearchProgress prog;
    // The front when the current batch began: the parents of its candidates.
    std::vector<SearchPoint> parents;
    if (resume) {
        prog = resume->progress;
        for (const auto& p : resume->front) {
            front.insert(p);
            seen.insert(p.candidate.hash());
        }
        parents = resume->parents;
        for (const auto& p : parents)
            seen.insert(p.candidate.hash());
    }
    // The best points of the best register blocks (SearchOptions::distinct), by the objective.
    struct Block {
        uint64_t key;
        double value;
        SearchPoint point;
    };
    std::vector<Block> blocks;
    // And the best point of a small unrolled body (SearchSpace::unrolledCopies at most
    // kSmallBody): the model's error grows with the body (spills it does not foresee), so the
    // N best blocks are often N large bodies all predicted low; one small one is measured beside
    // them (SearchResult::distinct).
    std::optional<Block> small;
    auto offer = [&](const SearchPoint& p) {
        if (opt.distinct <= 0)
            return;
        const uint64_t key = space.blockKey(p.candidate);
        const double v = objectiveValue(opt.objective, p.figures);
        if ((!small || v < small->value) && space.unrolledCopies(p.candidate) <= kSmallBody)
            small = Block{key, v, p};
        // Equal figures in every dimension: the same schedule written two ways (a loop of one
        // iteration split or unrolled), one block whatever the keys say.
        auto same = std::find_if(blocks.begin(), blocks.end(), [&](const Block& b) { return b.key == key || b.point.figures == p.figures; });
        if (same != blocks.end()) {
            if (v < same->value)
                *same = {key, v, p};
        } else if (blocks.size() < static_cast<size_t>(opt.distinct)) {
            blocks.push_back({key, v, p});
        } else {
            auto worst = std::max_element(blocks.begin(), blocks.end(), [](const Block& a, const Block& b) { return a.value < b.value; });
            if (v < worst->value)
                *worst = {key, v, p};
        }
    };
    if (resume)
        for (const auto& p : resume->front)
            offer(p);
    const int64_t evaluatedBefore = prog.evaluated;
    const int threads = opt.threads > 0 ? opt.threads : std::max(1u, std::thread::hardware_concurrency());
    const int batchSize = std::max(1, opt.batchSize);
    auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - t0).count(); };
    auto stopRequested = [&] {
        if (cancel && cancel->load(std::memory_order_relaxed))
            return true;
        return opt.timeLimitSeconds > 0 && elapsed() >= opt.timeLimitSeconds;
    };

    bool oneBatch = opt.budget <= 0 && opt.timeLimitSeconds <= 0 && !cancel;  // neither a budget nor a limit
    for (;;) {
        if (opt.budget > 0 && prog.drawn >= opt.budget) {
            res.budgetReached = true;
            break;
        }
        if (oneBatch && prog.drawn >= batchSize) {
            res.budgetReached = true;
            break;
        }
        if (stopRequested())
            break;
        // Candidate i of batch b is drawn from (seed, b, i) and the front when batch b began.
        // A run stopped inside a batch (a budget, cancel or the time limit) continues there.
        const int64_t b = prog.drawn / batchSize;
        const int first = static_cast<int>(prog.drawn % batchSize);
        if (first == 0)
            parents = front.points();
        const int n = static_cast<int>(opt.budget > 0 ? std::min<int64_t>(batchSize - first, opt.budget - prog.drawn) : batchSize - first);
        const int best = bestIndex(opt.objective, parents);
        std::vector<Slot> slots(static_cast<size_t>(n));
        std::atomic<int> next{0};
        auto work = [&] {
            for (;;) {
                int j = next.fetch_add(1);
                if (j >= n || stopRequested())
                    return;
                const int i = first + j;
                std::mt19937_64 rng(splitmix(opt.seed ^ splitmix(static_cast<uint64_t>(b) * 0x100000001b3ull + static_cast<uint64_t>(i))));
                Candidate c;
                int r = static_cast<int>(rng() % 10);
                if (b == 0 && i == 0)
                    c = startPoint;
                else if (parents.empty() || r < 4)
                    c = space.sample(rng);
                else if (r < 7)
                    c = space.mutate(parents[static_cast<size_t>(best)].candidate, rng);
                else
                    c = space.mutate(parents[rng() % parents.size()].candidate, rng);
                Slot& s = slots[static_cast<size_t>(j)];
                s.drawnHash = c.hash();
                if (seen.count(s.drawnHash)) {
                    s.duplicate = true;
                } else {
                    // An exception must not end a pool thread (std::terminate): the candidate
                    // counts as rejected, with the reason among the run's defects.
                    try {
                        if (opt.beforeEvaluate)
                            opt.beforeEvaluate(c);
                        s.eval = (b == 0 && i == 0 && widerEvaluator ? *widerEvaluator : evaluator).evaluate(c);
                    } catch (const std::exception& e) {
                        s.eval = Evaluation{};
                        s.eval.status = Evaluation::Status::Rejected;
                        s.eval.reason = std::string("internal error: ") + e.what();
                        s.eval.candidate = c;
                    } catch (...) {
                        s.eval = Evaluation{};
                        s.eval.status = Evaluation::Status::Rejected;
                        s.eval.reason = "internal error: an unknown exception";
                        s.eval.candidate = c;
                    }
                }
                s.done = true;
            }
        };
        if (threads == 1) {
            work();
        } else {
            std::vector<std::thread> pool;
            for (int t = 0; t < std::min(threads, n); ++t)
                pool.emplace_back(work);
            for (auto& t : pool)
                t.join();
        }
        // Merge the candidates done, in index order, up to the first one not done (stopped
        // by cancel or the time limit): the same result whatever the number of threads, and
        // a stopped run ends just after the last candidate merged.
        int merged = 0;
        while (merged < n && slots[static_cast<size_t>(merged)].done)
            ++merged;
        for (int j = 0; j < merged; ++j) {
            Slot& s = slots[static_cast<size_t>(j)];
            ++prog.drawn;
            if (s.duplicate) {
                ++prog.duplicates;
                continue;
            }
            uint64_t h = s.eval.candidate.hash();
            bool again = !seen.insert(s.drawnHash).second;
            again = !seen.insert(h).second && h != s.drawnHash ? true : again;
            if (again) {
                ++prog.duplicates;
                continue;
            }
            if (s.eval.status == Evaluation::Status::Pruned) {
                ++prog.pruned;
                continue;
            }
            ++prog.evaluated;
            if (s.eval.repairs > 0)
                ++prog.repaired;
            if (s.eval.status != Evaluation::Status::Ok) {
                ++prog.rejected;
                if (res.defects.size() < 8)
                    res.defects.push_back(s.eval.reason);
                continue;
            }
            ++prog.feasible;
            SearchPoint p;
            p.index = b * batchSize + first + j;
            p.candidate = std::move(s.eval.candidate);
            p.trace = std::move(s.eval.steps);
            p.figures = s.eval.figures;
            offer(p);
            if (front.insert(p) && sink)
                sink->pointFound(p);
        }
        prog.batches = prog.drawn / batchSize;
        prog.frontSize = front.size();
        int bi = bestIndex(opt.objective, front.points());
        prog.seconds = elapsed() + (resume ? resume->progress.seconds : 0);
        if (bi >= 0) {
            const Figures& now = front.points()[static_cast<size_t>(bi)].figures;
            if (!prog.best || objectiveValue(opt.objective, now) < objectiveValue(opt.objective, *prog.best)) {
                prog.bestDrawn = prog.drawn;
                prog.bestSeconds = prog.seconds;
            }
            prog.best = now;
        }
        double runSeconds = elapsed();
        prog.rate = runSeconds > 0 ? static_cast<double>(prog.evaluated - evaluatedBefore) / runSeconds : 0;
        if (sink && merged > 0)
            sink->progress(prog, front.points());
        if (merged < n)
            break;
    }
    res.cancelled = cancel && cancel->load();
    res.timedOut = !res.cancelled && opt.timeLimitSeconds > 0 && elapsed() >= opt.timeLimitSeconds && !res.budgetReached;
    res.feasible = !front.empty();
    if (!res.feasible)
        res.message = prog.drawn == 0 ? "the search was stopped before it evaluated a candidate"
                                      : "no feasible schedule among " + std::to_string(prog.drawn) + " candidates";
    res.front = front.sorted();
    res.best = bestIndex(opt.objective, res.front);
    // The N - 1 best blocks and the best small body beside them (the N-th best block when the
    // small body is among the N - 1, or there is none).
    std::stable_sort(blocks.begin(), blocks.end(), [](const Block& a, const Block& b) { return a.value < b.value; });
    const size_t n = static_cast<size_t>(std::max(0, opt.distinct));
    std::vector<Block> chosen;
    auto taken = [&](const Block& b) {
        return std::any_of(chosen.begin(), chosen.end(), [&](const Block& c) { return c.key == b.key || c.point.figures == b.point.figures; });
    };
    for (const Block& b : blocks)
        if (chosen.size() + 1 < n)
            chosen.push_back(b);
    if (n > 0 && small && !taken(*small))
        chosen.push_back(*small);
    for (const Block& b : blocks)
        if (chosen.size() < n && !taken(b))
            chosen.push_back(b);
    std::stable_sort(chosen.begin(), chosen.end(), [](const Block& a, const Block& b) { return a.value < b.value; });
    for (auto& b : chosen)
        res.distinct.push_back(std::move(b.point));
    res.progress = prog;
    res.state.batches = prog.batches;
    res.state.front = front.points();
    if (prog.drawn % batchSize != 0)
        res.state.parents = parents;
    res.state.progress = prog;
    return res;
}

} // namespace loopscope::search
