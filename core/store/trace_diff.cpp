// Longest-common-subsequence alignment of traces and of printed loop nests.
#include "store/trace_diff.h"

#include <algorithm>
#include <functional>

namespace loopscope::store {

const char* changeKindName(ChangeKind k)
{
    switch (k) {
    case ChangeKind::Same: return "same";
    case ChangeKind::Added: return "added";
    case ChangeKind::Removed: return "removed";
    case ChangeKind::Changed: return "changed";
    }
    return "same";
}

namespace {

/// Pairs (i, j) of an LCS of sequences of lengths n and m, or -1 for the side that lacks the
/// element, in order. Traces and nests are small (tens to hundreds of elements): O(n m) is fine.
std::vector<std::pair<int, int>> align(int n, int m, const std::function<bool(int, int)>& equal)
{
    std::vector<std::vector<int>> len(n + 1, std::vector<int>(m + 1, 0));
    for (int i = n - 1; i >= 0; --i)
        for (int j = m - 1; j >= 0; --j)
            len[i][j] = equal(i, j) ? len[i + 1][j + 1] + 1 : std::max(len[i + 1][j], len[i][j + 1]);
    std::vector<std::pair<int, int>> out;
    int i = 0, j = 0;
    while (i < n || j < m) {
        if (i < n && j < m && equal(i, j)) {
            out.push_back({i++, j++});
        } else if (i < n && (j == m || len[i + 1][j] >= len[i][j + 1])) {
            out.push_back({i++, -1});  // removals first, so that a change reads "old, new"
        } else {
            out.push_back({-1, j++});
        }
    }
    return out;
}

bool sameTarget(const sched::Step& a, const sched::Step& b)
{
    if (a.primitive != b.primitive || a.stage != b.stage)
        return false;
    if (!a.tensor.empty() || !b.tensor.empty())
        return a.tensor == b.tensor;
    if (!a.producer.empty() || !b.producer.empty())
        return a.producer == b.producer;
    return !a.loops.empty() && !b.loops.empty() && a.loops.front() == b.loops.front();
}

} // namespace

std::vector<StepChange> diffSteps(const std::vector<sched::Step>& a, const std::vector<sched::Step>& b)
{
    auto pairs = align(static_cast<int>(a.size()), static_cast<int>(b.size()), [&](int i, int j) { return a[i] == b[j]; });
    std::vector<bool> used(pairs.size(), false);
    std::vector<StepChange> out;
    for (std::size_t k = 0; k < pairs.size(); ++k) {
        if (used[k])
            continue;
        auto [i, j] = pairs[k];
        if (i >= 0 && j >= 0) {
            out.push_back({ChangeKind::Same, i, j, sched::describe(a[i]), sched::describe(b[j])});
        } else if (i >= 0) {
            // A removed step followed (before the next common step) by an added step of the
            // same primitive on the same loop or tensor was changed, not replaced.
            std::size_t partner = pairs.size();
            for (std::size_t q = k + 1; q < pairs.size() && !(pairs[q].first >= 0 && pairs[q].second >= 0); ++q)
                if (!used[q] && pairs[q].first < 0 && sameTarget(a[i], b[pairs[q].second])) {
                    partner = q;
                    break;
                }
            if (partner < pairs.size()) {
                used[partner] = true;
                const int jb = pairs[partner].second;
                out.push_back({ChangeKind::Changed, i, jb, sched::describe(a[i]), sched::describe(b[jb])});
            } else {
                out.push_back({ChangeKind::Removed, i, -1, sched::describe(a[i]), ""});
            }
        } else {
            out.push_back({ChangeKind::Added, -1, j, "", sched::describe(b[j])});
        }
    }
    return out;
}

std::vector<LineChange> diffLines(const std::vector<std::string>& a, const std::vector<std::string>& b)
{
    const auto pairs = align(static_cast<int>(a.size()), static_cast<int>(b.size()), [&](int i, int j) { return a[i] == b[j]; });
    std::vector<LineChange> out;
    for (auto [i, j] : pairs) {
        if (i >= 0 && j >= 0)
            out.push_back({ChangeKind::Same, i, j, a[i]});
        else if (i >= 0)
            out.push_back({ChangeKind::Removed, i, -1, a[i]});
        else
            out.push_back({ChangeKind::Added, -1, j, b[j]});
    }
    return out;
}

std::vector<std::string> splitLines(const std::string& text)
{
    std::vector<std::string> lines;
    std::size_t start = 0;
    while (start < text.size()) {
        std::size_t nl = text.find('\n', start);
        if (nl == std::string::npos)
            nl = text.size();
        lines.push_back(text.substr(start, nl - start));
        start = nl + 1;
    }
    return lines;
}

} // namespace loopscope::store
