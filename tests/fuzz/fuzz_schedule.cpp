// libFuzzer target: a schedule file, read as if it lay in examples/schedules (so that
// `kernel: ../kernels/matmul_f32.kernel.yaml` finds the example kernels and params: can resize
// them). An error must name its line and column. A schedule that opens goes through the whole
// pipeline (replay, lower, analyse, print, the exported C after the Gemmini check, verification
// within a budget), and is saved and read back: the same text, the same trace.
#include "fuzz_support.h"

#include "sched/schedule_file.h"
#include "target_loader.h"

#include <cstddef>
#include <cstdint>

using namespace loopscope;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    static const std::string folder = fuzz::sourceDir() + "/examples/schedules";
    const std::string path = folder + "/fuzz.sched.yaml";
    const std::string text(reinterpret_cast<const char*>(data), size);
    auto file = sched::parseScheduleFile(text, path);
    if (!file) {
        fuzz::checkDiagnostics(file.errors(), path);
        return 0;
    }
    auto opened = sched::openScheduleFile(*file, folder, [](const std::string& n, const std::string& d) { return hw::resolveTarget(n, d); });
    if (!opened) {
        fuzz::checkDiagnostics(opened.errors(), path);
        return 0;
    }
    fuzz::runPipeline(opened->program);

    // Save and read back: the canonical text is a fixed point, and the file holds it.
    const std::string saved = sched::formatScheduleFile(opened->file);
    auto again = sched::parseScheduleFile(saved, path);
    if (!again)
        fuzz::finding("the saved schedule does not read back: " + again.errorText() + "\n" + saved);
    if (sched::formatScheduleFile(*again) != saved)
        fuzz::finding("saving the schedule read back gives other text:\n" + saved + "---\n" + sched::formatScheduleFile(*again));
    if (again->steps.size() != opened->file.steps.size())
        fuzz::finding("the saved schedule has " + std::to_string(again->steps.size()) + " steps, not " + std::to_string(opened->file.steps.size()));
    const std::string out = fuzz::scratchDir() + "/fuzz.sched.yaml";
    std::string why;
    if (!sched::saveScheduleFile(opened->file, out, why))
        fuzz::finding("cannot save: " + why);
    auto loaded = sched::loadScheduleFile(out);
    if (!loaded || sched::formatScheduleFile(*loaded) != saved)
        fuzz::finding("the saved file does not read back as written");
    auto replayed = sched::replay(opened->kernel, opened->target, loaded->steps);
    if (!replayed.ok())
        fuzz::finding("the saved trace does not replay: " + replayed.error().str());
    return 0;
}
