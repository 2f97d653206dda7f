// Fitting the instruction model's per-target coefficients to instructions measured on the
// emulator, and the statistics that say how well a prediction matches a measurement (relative
// error median, 95th percentile and worst; Spearman rank correlation).
#pragma once

#include "analysis/instructions.h"

#include <map>
#include <string>
#include <vector>

namespace loopscope::analysis {

/// One measured schedule: its event counts and qemu's counts.
struct CalibrationSample {
    std::string name;
    InsnFeatures features;
    long long kernel = 0;   ///< measured kernel instructions
    long long copies = 0;   ///< measured instructions of the default DMA hooks' copies
};

/// How predicted totals compare with measured ones.
struct PredictionStats {
    int count = 0;
    double median = 0;      ///< of |predicted - measured| / measured
    double p95 = 0;
    double worst = 0;
    double spearman = 0;    ///< rank correlation of predicted and measured
};

PredictionStats predictionStats(const std::vector<double>& predicted, const std::vector<double>& measured);

/// Spearman's rank correlation (average ranks for ties); 0 for fewer than two values.
double spearmanCorrelation(const std::vector<double>& a, const std::vector<double>& b);

struct CalibrationFit {
    std::map<std::string, double> coefficients;  ///< feature name -> instructions per event
    PredictionStats before;                     ///< with the coefficients the target had
    PredictionStats after;                      ///< with the fitted ones
};

/// Fits the coefficients of the kernel's features to the measured kernel counts: least squares
/// on the relative error, made robust (Huber weights) so that a few schedules the compiler
/// treats unusually do not pull every coefficient, and kept near the defaults (a small ridge
/// term) so that a feature few schedules exercise keeps a sensible value. The copies' features
/// follow exactly from newlib's memcpy and the hooks' code and are not fitted; nor are the
/// features that are one instruction each (insnFeatureIsExact): they keep the target's values and
/// the fit moves the overheads around them.
CalibrationFit fitInstructionCoefficients(const std::vector<CalibrationSample>& samples, const hw::Target& target);

} // namespace loopscope::analysis
