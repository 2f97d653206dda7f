// The search's results streamed into a workspace (core/store): a search run with its
// parameters and progress, each point that enters the front as a variant (tagged "search")
// with its objectives and candidate, points that leave the front marked; and a stopped run
// read back to be resumed.
#pragma once

#include "search/search.h"

#include <map>
#include <memory>
#include <string>

namespace loopscope::store {
class Workspace;
}

namespace loopscope::cli {

/// What a run needs to be resumed (kept as the run's parameters).
struct SearchRunParameters {
    std::string kernelPath;     ///< absolute
    std::string target;         ///< built-in name or absolute path
    std::string baseTrace;      ///< the pinned steps as a *.sched.yaml text
    std::string objective;
    uint64_t seed = 1;
    int batchSize = 256;
    bool partialTiles = false;
    int64_t budget = 0;
    /// The space's unroll limit (--max-unroll); runs stored before it was kept: the default.
    int64_t maxUnrollProduct = search::SpaceOptions{}.maxUnrollProduct;
};

std::string parametersToJson(const SearchRunParameters& p);
Result<SearchRunParameters> parametersFromJson(const std::string& json);

/// Streams a run into `ws` (which must outlive it). Progress is written after every batch; the
/// number recorded as evaluated is the number of candidates drawn (those evaluated plus those
/// recognised as drawn before), which is where a resumed run continues.
class WorkspaceSink : public search::SearchSink {
public:
    WorkspaceSink(store::Workspace& ws, int64_t runId, SearchRunParameters params);
    void pointFound(const search::SearchPoint& point) override;
    void progress(const search::SearchProgress& progress, const std::vector<search::SearchPoint>& front) override;
    /// The first error writing to the workspace ("" when none).
    const std::string& error() const { return m_error; }
    int64_t pointsWritten() const { return m_written; }
    /// Variant id of a point by its index in the run.
    std::map<int64_t, int64_t> variants() const { return m_variants; }
    /// Points already on the front of a resumed run (index -> variant id).
    void adopt(const std::map<int64_t, int64_t>& variants) { m_variants = variants; }

private:
    store::Workspace& m_ws;
    int64_t m_run;
    SearchRunParameters m_params;
    std::map<int64_t, int64_t> m_variants;  ///< point index -> variant id, on the front
    std::string m_error;
    int64_t m_written = 0;
};

/// Starts a run in `ws`; returns its id.
Result<int64_t> beginRun(store::Workspace& ws, const SearchRunParameters& params);

/// A stopped run read back: its parameters, the program after its pinned steps (from the
/// kernel and target texts stored with it) and the state to resume from.
struct StoredRun {
    SearchRunParameters params;
    sched::Program base;
    search::SearchState state;
    std::map<int64_t, int64_t> variants;  ///< front point index -> variant id
    std::vector<int64_t> stale;           ///< variants marked on the front that are not (to be marked off)
};
Result<StoredRun> loadRun(const store::Workspace& ws, int64_t runId);

} // namespace loopscope::cli
