// Fitting the instruction model's coefficients (see calibration.h).
#include "analysis/calibration.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace loopscope::analysis {

namespace {

/// Solves the square system a x = b (Gauss-Jordan with partial pivoting); a singular column
/// keeps its x at 0.
std::vector<double> solve(std::vector<std::vector<double>> a, std::vector<double> b)
{
    const size_t k = b.size();
    for (size_t c = 0; c < k; ++c) {
        size_t p = c;
        for (size_t r = c + 1; r < k; ++r)
            if (std::fabs(a[r][c]) > std::fabs(a[p][c]))
                p = r;
        std::swap(a[c], a[p]);
        std::swap(b[c], b[p]);
        const double d = a[c][c];
        if (std::fabs(d) < 1e-300)
            continue;
        for (size_t j = c; j < k; ++j)
            a[c][j] /= d;
        b[c] /= d;
        for (size_t r = 0; r < k; ++r)
            if (r != c && a[r][c] != 0) {
                const double f = a[r][c];
                for (size_t j = c; j < k; ++j)
                    a[r][j] -= f * a[c][j];
                b[r] -= f * b[c];
            }
    }
    return b;
}

std::vector<double> ranks(const std::vector<double>& v)
{
    std::vector<size_t> idx(v.size());
    std::iota(idx.begin(), idx.end(), 0);
    std::sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return v[a] < v[b]; });
    std::vector<double> r(v.size());
    for (size_t i = 0; i < idx.size();) {
        size_t j = i;
        while (j + 1 < idx.size() && v[idx[j + 1]] == v[idx[i]])
            ++j;
        for (size_t t = i; t <= j; ++t)
            r[idx[t]] = (static_cast<double>(i) + static_cast<double>(j)) / 2 + 1;
        i = j + 1;
    }
    return r;
}

double kernelPrediction(const InsnFeatures& f, const std::array<double, kInsnFeatureCount>& c)
{
    double v = 0;
    for (int i = 0; i < kInsnFeatureCount; ++i)
        if (!insnFeatureIsCopy(static_cast<InsnFeature>(i)))
            v += f.count[i] * c[i];
    return v;
}

double copyPrediction(const InsnFeatures& f, const std::array<double, kInsnFeatureCount>& c)
{
    double v = 0;
    for (int i = 0; i < kInsnFeatureCount; ++i)
        if (insnFeatureIsCopy(static_cast<InsnFeature>(i)))
            v += f.count[i] * c[i];
    return v;
}

PredictionStats totals(const std::vector<CalibrationSample>& samples, const std::array<double, kInsnFeatureCount>& c)
{
    std::vector<double> predicted, measured;
    for (const auto& s : samples) {
        predicted.push_back(kernelPrediction(s.features, c) + copyPrediction(s.features, c));
        measured.push_back(static_cast<double>(s.kernel + s.copies));
    }
    return predictionStats(predicted, measured);
}

} // namespace

double spearmanCorrelation(const std::vector<double>& a, const std::vector<double>& b)
{
    if (a.size() < 2 || a.size() != b.size())
        return 0;
    const std::vector<double> ra = ranks(a), rb = ranks(b);
    const double n = static_cast<double>(a.size());
    const double ma = std::accumulate(ra.begin(), ra.end(), 0.0) / n, mb = std::accumulate(rb.begin(), rb.end(), 0.0) / n;
    double cov = 0, va = 0, vb = 0;
    for (size_t i = 0; i < ra.size(); ++i) {
        cov += (ra[i] - ma) * (rb[i] - mb);
        va += (ra[i] - ma) * (ra[i] - ma);
        vb += (rb[i] - mb) * (rb[i] - mb);
    }
    return va > 0 && vb > 0 ? cov / std::sqrt(va * vb) : 0;
}

PredictionStats predictionStats(const std::vector<double>& predicted, const std::vector<double>& measured)
{
    PredictionStats s;
    std::vector<double> errors;
    for (size_t i = 0; i < predicted.size() && i < measured.size(); ++i)
        if (measured[i] > 0)
            errors.push_back(std::fabs(predicted[i] - measured[i]) / measured[i]);
    s.count = static_cast<int>(errors.size());
    if (errors.empty())
        return s;
    std::sort(errors.begin(), errors.end());
    auto quantile = [&](double q) {
        // Nearest rank: the smallest error at least a share q of the errors do not exceed.
        const size_t rank = static_cast<size_t>(std::ceil(q * static_cast<double>(errors.size())));
        return errors[std::min(errors.size() - 1, rank == 0 ? 0 : rank - 1)];
    };
    s.median = quantile(0.5);
    s.p95 = quantile(0.95);
    s.worst = errors.back();
    s.spearman = spearmanCorrelation(predicted, measured);
    return s;
}

CalibrationFit fitInstructionCoefficients(const std::vector<CalibrationSample>& samples, const hw::Target& target)
{
    const std::array<double, kInsnFeatureCount> start = insnCoefficients(target);
    CalibrationFit fit;
    fit.before = totals(samples, start);
    std::vector<int> free;  // the kernel's features the fit moves
    std::vector<int> held;  // those it keeps at the target's values
    for (int i = 0; i < kInsnFeatureCount; ++i)
        if (!insnFeatureIsCopy(static_cast<InsnFeature>(i)))
            (insnFeatureIsExact(static_cast<InsnFeature>(i)) ? held : free).push_back(i);
    const size_t k = free.size();
    // Ridge towards the defaults, in units of relative error: a feature's coefficient moves
    // only as far as the schedules that exercise it ask.
    constexpr double kRidge = 0.003;
    constexpr double kHuber = 0.05;  // relative errors beyond 5% count linearly, not squared
    std::array<double, kInsnFeatureCount> c = start;
    std::vector<double> weight(samples.size(), 1.0);
    for (int round = 0; round < 25; ++round) {
        std::vector<std::vector<double>> a(k, std::vector<double>(k, 0));
        std::vector<double> b(k, 0);
        for (size_t s = 0; s < samples.size(); ++s) {
            const double measured = static_cast<double>(samples[s].kernel);
            if (measured <= 0)
                continue;
            const double w = weight[s] / (measured * measured);
            double y = measured;  // what the fitted features must explain
            for (int h : held)
                y -= c[h] * samples[s].features.count[h];
            for (size_t i = 0; i < k; ++i) {
                const double xi = samples[s].features.count[free[i]];
                if (xi == 0)
                    continue;
                for (size_t j = 0; j < k; ++j)
                    a[i][j] += w * xi * samples[s].features.count[free[j]];
                b[i] += w * xi * y;
            }
        }
        for (size_t i = 0; i < k; ++i) {
            const double prior = defaultInsnCoefficient(static_cast<InsnFeature>(free[i]));
            a[i][i] += kRidge;
            b[i] += kRidge * prior;
        }
        const std::vector<double> x = solve(a, b);
        // Instructions per event cannot be negative (target files refuse it): a feature the
        // least squares would weigh below zero keeps zero.
        for (size_t i = 0; i < k; ++i)
            c[free[i]] = std::max(0.0, x[i]);
        for (size_t s = 0; s < samples.size(); ++s) {
            const double y = static_cast<double>(samples[s].kernel);
            const double e = y > 0 ? std::fabs(kernelPrediction(samples[s].features, c) - y) / y : 0;
            weight[s] = e <= kHuber ? 1.0 : kHuber / e;
        }
    }
    for (int i = 0; i < kInsnFeatureCount; ++i)
        if (!insnFeatureIsCopy(static_cast<InsnFeature>(i)))
            fit.coefficients[insnFeatureName(static_cast<InsnFeature>(i))] = std::round(c[i] * 1000) / 1000;
    std::array<double, kInsnFeatureCount> rounded = start;
    for (const auto& [name, v] : fit.coefficients)
        for (int i = 0; i < kInsnFeatureCount; ++i)
            if (name == insnFeatureName(static_cast<InsnFeature>(i)))
                rounded[i] = v;
    fit.after = totals(samples, rounded);
    return fit;
}

} // namespace loopscope::analysis
