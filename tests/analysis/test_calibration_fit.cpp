// calibrate's fit (analysis::fitInstructionCoefficients) on synthetic samples: it recovers the
// overheads that produced the counts, and keeps the one-instruction features (loads, MLAs,
// SMLADs, ...) at the target's values, so that a calibrated breakdown still counts real loads
// and multiplies (a free fit had put SMLAD at 1.41 instructions and a DSP word load at 0.61,
// trading one for the other where they always come together).
#include "analysis/calibration.h"
#include "analysis/instructions.h"
#include "target_loader.h"

#include <gtest/gtest.h>

#include <cstdint>

using namespace loopscope;
using analysis::InsnFeature;

namespace {

/// 60 synthetic kernels: what the "compiler" does is 1.5 instructions per loop iteration (not 2),
/// 3 per guard (not 2), every load, MLA, SMLAD and DSP word load one instruction each, and
/// `hidden` instructions per DSP word that no feature counts (as spills of unpacked halves would).
std::vector<analysis::CalibrationSample> synthetic(double hidden)
{
    std::vector<analysis::CalibrationSample> samples;
    uint64_t state = 12345;
    auto draw = [&](int hi) {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        return static_cast<double>((state >> 33) % static_cast<uint64_t>(hi));
    };
    for (int i = 0; i < 60; ++i) {
        analysis::CalibrationSample s;
        s.name = "synthetic " + std::to_string(i);
        s.features[InsnFeature::Function] = 1;
        s.features[InsnFeature::Load] = 1000 + draw(5000);
        s.features[InsnFeature::Mla] = draw(3000);
        s.features[InsnFeature::Smlad] = draw(2000);
        // DSP words come with the SMLADs, in a nearly fixed ratio.
        s.features[InsnFeature::DspWord] = s.features[InsnFeature::Smlad] * (1 + draw(3) / 10);
        s.features[InsnFeature::LoopIteration] = 100 + draw(2000);
        s.features[InsnFeature::Guard] = draw(800);
        const double kernel = 20 + s.features[InsnFeature::Load] + s.features[InsnFeature::Mla] + s.features[InsnFeature::Smlad]
            + (1 + hidden) * s.features[InsnFeature::DspWord] + 1.5 * s.features[InsnFeature::LoopIteration] + 3 * s.features[InsnFeature::Guard];
        s.kernel = static_cast<long long>(kernel);
        samples.push_back(s);
    }
    return samples;
}

const char* const kExact[] = {"load", "store", "mla", "fpu_op", "smlad", "dsp_word", "dsp_unpack", "dsp_pack"};

} // namespace

TEST(CalibrationFit, RecoversTheOverheadsThatProducedTheCounts)
{
    auto target = hw::resolveTarget("cortex-m7", "");
    ASSERT_TRUE(target.ok()) << target.errorText();
    const analysis::CalibrationFit fit = analysis::fitInstructionCoefficients(synthetic(0), *target);
    for (const char* exact : kExact)
        EXPECT_EQ(fit.coefficients.at(exact), 1.0) << exact;
    EXPECT_NEAR(fit.coefficients.at("loop_iteration"), 1.5, 0.02);
    EXPECT_NEAR(fit.coefficients.at("guard"), 3.0, 0.05);
    EXPECT_LT(fit.after.median, 0.002);
    EXPECT_GT(fit.before.median, 0.02);
}

TEST(CalibrationFit, KeepsTheOneInstructionFeaturesWhatTheyAre)
{
    // 0.4 instructions per DSP word that no feature counts: a free fit charges them to dsp_word
    // (1.4 a word, as a real fit put SMLAD at 1.41 and a DSP word at 0.61); this one leaves the
    // word one instruction and spreads the rest over the overheads.
    auto target = hw::resolveTarget("cortex-m7", "");
    ASSERT_TRUE(target.ok()) << target.errorText();
    const analysis::CalibrationFit fit = analysis::fitInstructionCoefficients(synthetic(0.4), *target);
    for (const char* exact : kExact)
        EXPECT_EQ(fit.coefficients.at(exact), 1.0) << exact;
    EXPECT_LT(fit.after.median, fit.before.median);
}
