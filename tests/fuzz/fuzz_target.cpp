// libFuzzer target: a target file. Parsed; an error must name its line and column. A target
// that loads runs the example schedules' traces (a tiled float matmul, a cached int8 conv2d, a
// tensorized Gemmini matmul): lowered, analysed (no negative or NaN figure, however extreme
// the bandwidths, latencies and overheads) and written as C.
#include "fuzz_support.h"

#include "sched/schedule_file.h"
#include "target_loader.h"

#include <cstddef>
#include <cstdint>
#include <memory>

using namespace loopscope;

namespace {

struct Case {
    std::shared_ptr<const ir::Kernel> kernel;
    std::vector<sched::Step> steps;
};

std::vector<Case> loadCases()
{
    std::vector<Case> cases;
    for (const char* name : {"matmul_f32_tiled", "conv2d_int8_tiled", "gemmini_matmul_int8_64", "matmul_int8_dsp"}) {
        auto o = sched::openSchedule(fuzz::sourceDir() + "/examples/schedules/" + name + ".sched.yaml",
                                     [](const std::string& n, const std::string& d) { return hw::resolveTarget(n, d); });
        if (o)
            cases.push_back({o->kernel, o->file.steps});
    }
    if (cases.empty())
        fuzz::finding("no example schedule loads");
    return cases;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    static const std::vector<Case> cases = loadCases();
    const std::string text(reinterpret_cast<const char*>(data), size);
    auto target = hw::parseTarget(text, "fuzz.target.yaml");
    if (!target) {
        fuzz::checkDiagnostics(target.errors(), "fuzz.target.yaml");
        return 0;
    }
    const auto t = std::make_shared<const hw::Target>(std::move(*target));
    for (const Case& c : cases) {
        fuzz::runPipeline(sched::Program::initial(c.kernel, t), false);
        sched::ApplyResult r = sched::replay(c.kernel, t, c.steps);
        if (r.ok())
            fuzz::runPipeline(r.program(), false);
    }
    return 0;
}
