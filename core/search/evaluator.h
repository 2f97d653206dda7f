// Turns a candidate into a scored schedule: applies its steps to the base program, repairs
// it until the closed-form occupancy bound fits every level (so nothing over capacity is ever
// lowered or analysed), then lowers and analyses it with analysis::analyze, exactly.
#pragma once

#include "analysis/cost_report.h"
#include "search/search_space.h"

#include <cstdint>
#include <string>
#include <vector>

namespace loopscope::search {

/// The figures the search optimises, as analysis::analyze reports them.
struct Figures {
    int64_t cycles = 0;
    double energyUj = 0;
    int64_t onChipBytes = 0;    ///< peak bytes held at once in every level but the outermost
    int64_t dramBytes = 0;      ///< bytes read and written in the outermost level
    double latencyMs = 0;
    int64_t instructions = 0;   ///< predicted instructions of the exported code, copies included (0: not a CPU target)
    bool operator==(const Figures&) const = default;
};

/// The figures of a cost report.
Figures figuresOf(const analysis::CostReport& report);

struct Evaluation {
    enum class Status {
        Ok,         ///< analysed without an error diagnostic
        Pruned,     ///< over capacity whatever the caches (an accumulator the loop order makes too large): not analysed
        Rejected,   ///< a step did not apply (a defect of the space: counted, never returned)
        Diagnosed,  ///< the analysis reported an error (a defect of the bound: counted, never returned)
    };
    Status status = Status::Ok;
    std::string reason;
    Candidate candidate;        ///< after repair
    std::vector<sched::Step> steps;  ///< the whole trace: pinned steps, then the candidate's
    Figures figures;
    int repairs = 0;            ///< caches moved inward, un-doubled or dropped to fit
};

class Evaluator {
public:
    explicit Evaluator(const SearchSpace& space) : m_space(space) {}

    /// Repairs `c` to fit (see the file comment) without lowering anything.
    /// Returns the program with every step applied, or an error text (`pruned` set when
    /// the candidate cannot fit, as opposed to a step that did not apply).
    Result<sched::Program> build(Candidate& c, int* repairs = nullptr, bool* pruned = nullptr) const;
    /// build(), then lower and analyse.
    Evaluation evaluate(const Candidate& c) const;
    /// Lowers and analyses a program as it is (no candidate, no repair): a schedule the search
    /// starts from, to compare with its projection into the space.
    Evaluation evaluateProgram(sched::Program program) const;

private:
    static void analyse(sched::Program&& program, Evaluation& e);
    const SearchSpace& m_space;
};

} // namespace loopscope::search
