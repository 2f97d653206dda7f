// Measuring many kernels in one firmware image counts, for each, what measuring it alone with
// its own harness counts: kernel instructions and, apart, the copies of the default DMA hooks.
// Needs arm-none-eabi-gcc and qemu-system-arm (./test.sh installs them); installs nothing.
#include "support/test_paths.h"

#include "codegen/measure.h"
#include "codegen/measure_batch.h"
#include "lower/loop_nest.h"
#include "sched/schedule_file.h"
#include "target_loader.h"

#include <gtest/gtest.h>

using namespace loopscope;

namespace {

lower::LoopNest nestOf(const std::string& schedule)
{
    auto o = sched::openSchedule(test::sourceDir() + "/examples/schedules/" + schedule + ".sched.yaml",
                                 [](const std::string& n, const std::string& d) { return hw::resolveTarget(n, d); });
    EXPECT_TRUE(o.ok()) << o.errorText();
    return lower::lower(o->program);
}

} // namespace

TEST(MeasureBatch, CountsWhatEachKernelCountsAlone)
{
    // A cached int8 matmul (copies by rows), the DSP path with requantization, and a float
    // kernel without caches (no copies); the first twice, to check that the kernels of one
    // image do not disturb each other.
    const std::vector<std::string> schedules = {"matmul_int8_tiled", "dense_int16_dsp", "matmul_f32_naive", "matmul_int8_tiled"};
    std::vector<lower::LoopNest> nests;
    for (const auto& s : schedules)
        nests.push_back(nestOf(s));
    std::vector<const lower::LoopNest*> batch;
    for (const auto& n : nests)
        batch.push_back(&n);
    for (const char* target : {"cortex-m7", "cortex-m4"}) {
        const std::vector<codegen::Measurement> many = codegen::measureBatchOnQemu(batch, target);
        ASSERT_EQ(many.size(), schedules.size());
        for (size_t i = 0; i < schedules.size(); ++i) {
            ASSERT_TRUE(many[i].ok) << schedules[i] << ": " << many[i].error;
            if (i == 3) {
                EXPECT_EQ(many[i].kernelInstructions, many[0].kernelInstructions);
                EXPECT_EQ(many[i].copyInstructions, many[0].copyInstructions);
                continue;
            }
            const codegen::Measurement one = codegen::measureOnQemu(nests[i], target);
            ASSERT_TRUE(one.ok) << one.error;
            EXPECT_EQ(many[i].kernelInstructions, one.kernelInstructions) << schedules[i] << " on " << target;
            EXPECT_EQ(many[i].copyInstructions, one.copyInstructions) << schedules[i] << " on " << target;
            EXPECT_EQ(many[i].machine, one.machine);
        }
        EXPECT_GT(many[0].copyInstructions, 0);
        EXPECT_EQ(many[2].copyInstructions, 0);
    }
    // Not a Cortex-M target: every kernel says why.
    const auto refused = codegen::measureBatchOnQemu(batch, "gemmini-16x16");
    ASSERT_EQ(refused.size(), schedules.size());
    EXPECT_FALSE(refused[0].ok);
    EXPECT_NE(refused[0].error.find("Cortex-M7 or Cortex-M4"), std::string::npos) << refused[0].error;
}
