// Test helpers: example kernels and steps from text.
#include "support/step_text.h"

#include "sched/schedule_file.h"
#include "support/test_paths.h"

#include <gtest/gtest.h>

namespace loopscope::test {

std::shared_ptr<const ir::Kernel> exampleKernel(const std::string& name, const std::map<std::string, int64_t>& params)
{
    auto k = ir::loadKernelFile(kernelPath(name), params);
    EXPECT_TRUE(k.ok()) << k.errorText();
    return k.ok() ? std::make_shared<const ir::Kernel>(*k) : nullptr;
}

sched::Step loopStep(sched::Primitive p, std::vector<std::string> loops, int64_t factor, std::string stage)
{
    sched::Step s;
    s.primitive = p;
    s.loops = std::move(loops);
    s.factor = factor;
    s.stage = std::move(stage);
    return s;
}

sched::Step cacheStep(sched::Primitive p, std::string tensor, std::string level, std::string at, std::string stage)
{
    sched::Step s;
    s.primitive = p;
    s.tensor = std::move(tensor);
    s.level = std::move(level);
    s.at = std::move(at);
    s.stage = std::move(stage);
    return s;
}

std::vector<sched::Step> steps(const std::string& text)
{
    auto f = sched::parseScheduleFile("kernel: k.kernel.yaml\ntarget: cortex-m7\nsteps:\n" + text, "s.sched.yaml");
    EXPECT_TRUE(f.ok()) << f.errorText();
    return f.ok() ? f->steps : std::vector<sched::Step>{};
}

sched::ApplyResult replay(const std::shared_ptr<const ir::Kernel>& k, const std::string& stepText)
{
    return sched::replay(k, builtinTarget("cortex-m7"), steps(stepText));
}

RoundTrip roundTrip(const std::vector<sched::Step>& steps)
{
    sched::ScheduleFile file;
    file.kernel = "k.kernel.yaml";
    file.target = "cortex-m7";
    file.steps = steps;
    RoundTrip r;
    r.text = sched::formatScheduleFile(file);
    auto again = sched::parseScheduleFile(r.text, "again.sched.yaml");
    EXPECT_TRUE(again.ok()) << again.errorText();
    if (again.ok())
        r.steps = again->steps;
    return r;
}

} // namespace loopscope::test
