// libFuzzer target: a kernel file. Parsed; an error must name its line and column. A kernel
// that parses goes through the pipeline unscheduled and with a split and an unroll of its
// first loop (lowering, analysis, printing, the exported C, verification within a budget).
#include "fuzz_support.h"

#include "ir/kernel.h"
#include "target_loader.h"

#include <cstddef>
#include <cstdint>
#include <memory>

using namespace loopscope;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    static const auto target = std::make_shared<const hw::Target>(*hw::loadBuiltinTarget("cortex-m7"));
    const std::string text(reinterpret_cast<const char*>(data), size);
    auto kernel = ir::parseKernel(text, "fuzz.kernel.yaml");
    if (!kernel) {
        fuzz::checkDiagnostics(kernel.errors(), "fuzz.kernel.yaml");
        return 0;
    }
    const auto k = std::make_shared<const ir::Kernel>(std::move(*kernel));
    const sched::Program p = sched::Program::initial(k, target);
    fuzz::runPipeline(p);
    // The first loop of the last stage split by 3 (a partial tile when 3 does not divide it)
    // and its inner part unrolled: guards, and code written out.
    const ir::Stage& st = k->stages.back();
    sched::Step split;
    split.primitive = sched::Primitive::Split;
    split.stage = st.name;
    split.loops = {st.axes.front().name};
    split.factor = 3;
    sched::Step unroll;
    unroll.primitive = sched::Primitive::Unroll;
    unroll.stage = st.name;
    unroll.loops = {st.axes.front().name + ".inner"};
    sched::ApplyResult r = sched::replay(k, target, {split, unroll});
    if (r.ok())
        fuzz::runPipeline(r.program());
    return 0;
}
