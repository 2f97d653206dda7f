// The issue model (issue_model.h): units per kind of event, the width, the stalls.
#include "analysis/issue_model.h"

#include <algorithm>
#include <array>

namespace loopscope::analysis {

namespace {

/// Where the instructions of one event of a feature go: `branches` of them are branches, which
/// take `taken` taken branches (a call: its BL and the callee's return), `macs` use the multiplier,
/// `loads` are loads whose result is awaited; the rest occupy `unit`.
struct EventIssue {
    IssueUnit unit = IssueUnit::Alu;
    double branches = 0;
    double taken = 0;
    double macs = 0;
    double loads = 0;
};

EventIssue eventIssue(InsnFeature f)
{
    switch (f) {
    case InsnFeature::Function: return {IssueUnit::Alu, 1, 1, 0, 0};          // the return
    case InsnFeature::Load: return {IssueUnit::Memory, 0, 0, 0, 1};
    case InsnFeature::Store: return {IssueUnit::Memory, 0, 0, 0, 0};
    case InsnFeature::Mla: return {IssueUnit::Mac, 0, 0, 0, 0};
    case InsnFeature::FpuOp: return {IssueUnit::Fpu, 0, 0, 0, 0};
    case InsnFeature::LoopIteration: return {IssueUnit::Alu, 1, 1, 0, 0};     // the back edge (the exit: LoopEntry)
    case InsnFeature::IndexOp: return {IssueUnit::Alu, 0, 0, 1, 0};           // x / c as UMULL and a shift
    case InsnFeature::Guard: return {IssueUnit::Alu, 1, 0, 0, 0};             // compare, branch not taken
    case InsnFeature::GuardFlag: return {IssueUnit::Branch, 0, 0, 0, 0};
    case InsnFeature::Requantize: return {IssueUnit::Alu, 0, 0, 1, 0};        // the doubling high multiply (SMULL)
    case InsnFeature::DspWord: return {IssueUnit::Memory, 0, 0, 0, 1};
    case InsnFeature::Smlad: return {IssueUnit::Mac, 0, 0, 0, 0};
    case InsnFeature::LibraryCall:
    case InsnFeature::CopyCall:
    case InsnFeature::WaitCall: return {IssueUnit::Alu, 1, 2, 0, 0};          // BL, and the callee's return
    case InsnFeature::Spill: return {IssueUnit::Memory, 0, 0, 0, 0.5};        // a store and a reload
    default: return {IssueUnit::Alu, 0, 0, 0, 0};
    }
}

double unitCycles(IssueUnit u, const hw::IssueModel& m)
{
    switch (u) {
    case IssueUnit::Memory: return m.memoryCycles;
    case IssueUnit::Mac: return m.macCycles;
    case IssueUnit::Fpu: return m.fpuCycles;
    default: return 1;
    }
}

/// eventIssue() of every feature, and whether it is a copy's: looked up, not switched on, for
/// every feature of every kept loop.
struct FeatureIssue {
    std::array<EventIssue, kInsnFeatureCount> event;
    std::array<bool, kInsnFeatureCount> copy;
};

const FeatureIssue& featureIssue()
{
    static const FeatureIssue table = [] {
        FeatureIssue t;
        for (int i = 0; i < kInsnFeatureCount; ++i) {
            t.event[i] = eventIssue(static_cast<InsnFeature>(i));
            t.copy[i] = insnFeatureIsCopy(static_cast<InsnFeature>(i));
        }
        return t;
    }();
    return table;
}

} // namespace

IssueCycles& IssueCycles::operator+=(const IssueCycles& o)
{
    cycles += o.cycles;
    issue += o.issue;
    taken += o.taken;
    exits += o.exits;
    loadUse += o.loadUse;
    for (int u = 0; u < kIssueUnitCount; ++u)
        unit[u] += o.unit[u];
    return *this;
}

const char* issueUnitName(IssueUnit u)
{
    switch (u) {
    case IssueUnit::Alu: return "alu";
    case IssueUnit::Memory: return "memory";
    case IssueUnit::Mac: return "mac";
    case IssueUnit::Fpu: return "fpu";
    case IssueUnit::Branch: return "branch";
    case IssueUnit::Count: break;
    }
    return "?";
}

IssueCycles issueCycles(const InsnFeatures& features, const std::array<double, kInsnFeatureCount>& coefficients,
                        const hw::IssueModel& model)
{
    IssueCycles c;
    double taken = 0, loads = 0;
    const FeatureIssue& table = featureIssue();
    for (int i = 0; i < kInsnFeatureCount; ++i) {
        const double n = std::max(0.0, features.count[i]);
        if (n == 0 || table.copy[i])
            continue;
        const EventIssue& e = table.event[i];
        double left = coefficients[i];
        // The branches and multiplies an event has, as far as its instructions go.
        const double branches = std::min(left, e.branches);
        left -= branches;
        const double macs = std::min(left, e.macs);
        left -= macs;
        c.unit[static_cast<int>(IssueUnit::Branch)] += n * branches;
        c.unit[static_cast<int>(IssueUnit::Mac)] += n * macs * model.macCycles;
        c.unit[static_cast<int>(e.unit)] += n * left * unitCycles(e.unit, model);
        if (branches > 0)
            taken += n * e.taken;
        if (coefficients[i] > 0)
            loads += n * e.loads;
    }
    // Every loop entered is left once: its last iteration falls through instead of branching back.
    taken -= std::max(0.0, features[InsnFeature::LoopEntry]) * std::min(1.0, coefficients[static_cast<int>(InsnFeature::LoopIteration)]);
    double slots = 0, busiest = 0;
    for (int u = 0; u < kIssueUnitCount; ++u) {
        slots += c.unit[u];
        // Integer ALU work is limited by the width alone (a dual-issue core has two ALUs).
        if (static_cast<IssueUnit>(u) != IssueUnit::Alu)
            busiest = std::max(busiest, c.unit[u]);
    }
    c.issue = std::max(slots / model.width, busiest);
    c.taken = std::max(0.0, taken) * model.takenBranchCycles;
    c.exits = std::max(0.0, features[InsnFeature::LoopEntry]) * model.loopExitCycles;
    c.loadUse = loads * model.loadUseCycles;
    c.cycles = c.issue + c.taken + c.exits + c.loadUse;
    return c;
}

IssueCycles kernelIssueCycles(const InsnFeatures& total, const std::vector<LoopFeatures>& loops,
                              const std::array<double, kInsnFeatureCount>& coefficients, const hw::IssueModel& model)
{
    // Each stretch's own events: a loop's less its children's; the outside: the total less the
    // outermost loops'.
    std::vector<InsnFeatures> own;  // copied, not value-initialised and then overwritten
    own.reserve(loops.size());
    InsnFeatures outside = total;
    for (const LoopFeatures& l : loops)
        own.push_back(l.features);
    for (size_t i = 0; i < loops.size(); ++i) {
        InsnFeatures& from = loops[i].parent >= 0 ? own[static_cast<size_t>(loops[i].parent)] : outside;
        for (int k = 0; k < kInsnFeatureCount; ++k)
            from.count[k] -= loops[i].features.count[k];
    }
    IssueCycles c = issueCycles(outside, coefficients, model);
    for (const InsnFeatures& f : own)
        c += issueCycles(f, coefficients, model);
    return c;
}

} // namespace loopscope::analysis
