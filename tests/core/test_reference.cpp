// Reference evaluator and verify data: hand-computed results, TFLite requantization, inputs.
#include "ir/kernel.h"
#include "verify/data.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <limits>

using namespace loopscope;
using namespace loopscope::verify;
using ir::DType;
using ir::Kernel;

namespace {

const std::string kSourceDir = LOOPSCOPE_SOURCE_DIR;

Kernel parse(const std::string& text)
{
    Result<Kernel> r = ir::parseKernel(text, "test.yaml");
    EXPECT_TRUE(r.ok()) << r.errorText();
    return r.ok() ? r.value() : Kernel{};
}

Kernel example(const std::string& name, const std::map<std::string, int64_t>& overrides = {})
{
    Result<Kernel> r = ir::loadKernelFile(kSourceDir + "/examples/kernels/" + name + ".kernel.yaml", overrides);
    EXPECT_TRUE(r.ok()) << r.errorText();
    return r.ok() ? r.value() : Kernel{};
}

TensorData& tensor(const Kernel& k, Dataset& d, const std::string& name)
{
    int t = k.findTensor(name);
    EXPECT_GE(t, 0) << name;
    return d.at(static_cast<size_t>(t));
}

/// A dataset of zeros, then the given tensors set by hand.
Dataset zeros(const Kernel& k)
{
    Dataset d = makeInputs(k, 0);
    for (TensorData& t : d) {
        std::fill(t.ints.begin(), t.ints.end(), 0);
        std::fill(t.floats.begin(), t.floats.end(), 0.0f);
    }
    return d;
}

// ---------------------------------------------------------------------------------------------
// Reference results against values computed by hand

TEST(Reference, TinyIntegerMatmulWithInputOffset)
{
    Kernel k = parse("name: mm\nparams: {M: 2, N: 2, K: 3}\ntensors:\n"
                     "  A: {shape: [M, K], dtype: int8}\n  B: {shape: [K, N], dtype: int8}\n"
                     "  C: {shape: [M, N], dtype: int32}\n"
                     "stages:\n  - compute: \"C[i, j] += (A[i, k] + 1) * B[k, j]\"\n");
    Dataset d = zeros(k);
    tensor(k, d, "A").ints = {1, 2, 3, 4, 5, 6};
    tensor(k, d, "B").ints = {1, 0, 0, 1, -1, 2};
    runReference(k, d);
    // (A + 1) = [[2, 3, 4], [5, 6, 7]]; C = (A + 1) * B.
    EXPECT_EQ(tensor(k, d, "C").ints, (std::vector<int64_t>{2 - 4, 3 + 8, 5 - 7, 6 + 14}));
}

TEST(Reference, TinyFloatMatmul)
{
    Kernel k = example("matmul_f32", {{"M", 2}, {"N", 2}, {"K", 2}});
    Dataset d = zeros(k);
    tensor(k, d, "A").floats = {0.5f, -1.0f, 2.0f, 0.25f};
    tensor(k, d, "B").floats = {1.0f, 2.0f, 3.0f, 4.0f};
    runReference(k, d);
    EXPECT_EQ(tensor(k, d, "C").floats, (std::vector<float>{-2.5f, -3.0f, 2.75f, 5.0f}));
}

TEST(Reference, FloatSumsInAxisOrderFromZero)
{
    // 0 + 1e8 + 1 + (-1e8) is 0 in float (the 1 is lost), 1 in exact arithmetic.
    Kernel k = parse("name: s\ntensors:\n  A: {shape: [3], dtype: float32}\n  C: {shape: [1], dtype: float32}\n"
                     "stages:\n  - compute: \"C[i] += A[k] * 1.0 + A[k + i] * 0.0\"\n");
    Dataset d = zeros(k);
    tensor(k, d, "A").floats = {1e8f, 1.0f, -1e8f};
    runReference(k, d);
    EXPECT_EQ(tensor(k, d, "C").floats.at(0), 0.0f);
}

TEST(Reference, ConvWithZeroPaddingSkipsWholeTerms)
{
    // With the input offset +10 inside the term, skipping matters: a zero-valued pad would
    // still contribute (0 + 10) * 1 at the borders.
    Kernel k = parse("name: c\nparams: {H: 3, W: 3}\ntensors:\n"
                     "  I: {shape: [H, W], dtype: int8}\n  F: {shape: [3, 3], dtype: int8}\n"
                     "  O: {shape: [H, W], dtype: int32}\n"
                     "stages:\n  - compute: \"O[y, x] += (I[y + r - 1, x + s - 1] + 10) * F[r, s]\"\n"
                     "    padding: zero\n");
    Dataset d = zeros(k);
    tensor(k, d, "I").ints = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    tensor(k, d, "F").ints = std::vector<int64_t>(9, 1);
    runReference(k, d);
    // Each output: sum of the in-bounds neighbours plus 10 per in-bounds neighbour.
    EXPECT_EQ(tensor(k, d, "O").ints, (std::vector<int64_t>{12 + 40, 21 + 60, 16 + 40,  //
                                                           27 + 60, 45 + 90, 33 + 60,  //
                                                           24 + 40, 39 + 60, 28 + 40}));
}

TEST(Reference, StrideTwoWithPadding)
{
    Kernel k = parse("name: s2\nparams: {N: 8}\ntensors:\n"
                     "  I: {shape: [N], dtype: int16}\n  F: {shape: [3], dtype: int16}\n"
                     "  O: {shape: [(N + 2 - 3)/2 + 1], dtype: int32}\n"
                     "stages:\n  - compute: O[x] += I[2*x + r - 1] * F[r]\n    padding: zero\n");
    ASSERT_EQ(k.tensors.at(2).shape, (std::vector<int64_t>{4}));
    Dataset d = zeros(k);
    tensor(k, d, "I").ints = {1, 2, 3, 4, 5, 6, 7, 8};
    tensor(k, d, "F").ints = {1, 10, 100};
    runReference(k, d);
    // O[0] skips I[-1]; O[x] = I[2x-1] + 10 I[2x] + 100 I[2x+1].
    EXPECT_EQ(tensor(k, d, "O").ints, (std::vector<int64_t>{10 + 200, 2 + 30 + 400, 4 + 50 + 600, 6 + 70 + 800}));
}

TEST(Reference, TwoStagePipelineThroughAnIntermediate)
{
    Kernel k = parse("name: p\nparams: {M: 2, N: 2, K: 2}\ntensors:\n"
                     "  A: {shape: [M, K], dtype: int8}\n  D: {shape: [M, K], dtype: int16}\n"
                     "  B: {shape: [K, N], dtype: int8}\n  C: {shape: [M, N], dtype: int32}\n"
                     "stages:\n  - compute: \"D[i, k] = A[i, k] * 3 - 1\"\n"
                     "  - compute: \"C[i, j] += D[i, k] * B[k, j]\"\n");
    EXPECT_TRUE(k.isIntermediate(k.findTensor("D")));
    Dataset d = zeros(k);
    tensor(k, d, "A").ints = {1, 2, 3, 4};
    tensor(k, d, "B").ints = {1, -1, 2, 0};
    runReference(k, d);
    EXPECT_EQ(tensor(k, d, "D").ints, (std::vector<int64_t>{2, 5, 8, 11}));
    EXPECT_EQ(tensor(k, d, "C").ints, (std::vector<int64_t>{2 + 10, -2, 8 + 22, -8}));
}

TEST(Reference, DepthwiseSeparableMatchesIndependentLoops)
{
    Kernel k = example("dwsep_conv", {{"H", 4}, {"W", 5}, {"C", 3}, {"K", 2}});
    Dataset d = makeInputs(k, 7);
    Dataset in = d;
    runReference(k, d);
    const auto& I = tensor(k, in, "I").floats;
    const auto& DW = tensor(k, in, "DW").floats;
    const auto& PW = tensor(k, in, "PW").floats;
    const int H = 4, W = 5, C = 3, K = 2;
    std::vector<float> D(H * W * C, 0.0f);
    for (int h = 0; h < H; ++h)
        for (int w = 0; w < W; ++w)
            for (int c = 0; c < C; ++c) {
                float acc = 0.0f;
                for (int r = 0; r < 3; ++r)
                    for (int s = 0; s < 3; ++s) {
                        int y = h + r - 1, x = w + s - 1;
                        if (y >= 0 && y < H && x >= 0 && x < W)
                            acc += I[(y * W + x) * C + c] * DW[(r * 3 + s) * C + c];
                    }
                D[(h * W + w) * C + c] = acc;
            }
    std::vector<float> O(H * W * K, 0.0f);
    for (int h = 0; h < H; ++h)
        for (int w = 0; w < W; ++w)
            for (int kk = 0; kk < K; ++kk) {
                float acc = 0.0f;
                for (int c = 0; c < C; ++c)
                    acc += D[(h * W + w) * C + c] * PW[c * K + kk];
                O[(h * W + w) * K + kk] = acc;
            }
    // Same operations in the same order: bit-exact, not merely within tolerance.
    EXPECT_EQ(tensor(k, d, "D").floats, D);
    EXPECT_EQ(tensor(k, d, "O").floats, O);
}

TEST(Reference, AssignmentWrapsToTheOutputType)
{
    Kernel k = parse("name: w\ntensors:\n  A: {shape: [4], dtype: int8}\n  C: {shape: [4], dtype: int8}\n"
                     "  S: {shape: [4], dtype: int16}\n"
                     "stages:\n  - compute: C[i] = A[i] * 2\n  - compute: S[i] = A[i] * 400\n");
    Dataset d = zeros(k);
    tensor(k, d, "A").ints = {100, -100, 64, -64};
    runReference(k, d);
    EXPECT_EQ(tensor(k, d, "C").ints, (std::vector<int64_t>{-56, 56, -128, -128}));
    // 40000 -> -25536, -40000 -> 25536, 25600, -25600.
    EXPECT_EQ(tensor(k, d, "S").ints, (std::vector<int64_t>{-25536, 25536, 25600, -25600}));
}

TEST(Reference, SumWithoutRequantizeWrapsOnce)
{
    Kernel k = parse("name: w\ntensors:\n  A: {shape: [3], dtype: int8}\n  C: {shape: [1], dtype: int8}\n"
                     "stages:\n  - compute: C[i] += A[k + i] * 1\n    axes: {k: 3}\n");
    Dataset d = zeros(k);
    tensor(k, d, "A").ints = {100, 100, -90};
    runReference(k, d);
    EXPECT_EQ(tensor(k, d, "C").ints.at(0), 110);  // the int64 sum 110 fits; no wrap of partial sums
}

const char* const kDense = "name: d\nparams: {IN: 3, OUT: 2}\ntensors:\n"
                           "  X: {shape: [1, IN], dtype: int8}\n  Wt: {shape: [OUT, IN], dtype: int8}\n"
                           "  bias: {shape: [OUT], dtype: int32}\n  mult: {shape: [OUT], dtype: int32}\n"
                           "  shift: {shape: [OUT], dtype: int32}\n  Y: {shape: [1, OUT], dtype: int8}\n"
                           "stages:\n  - compute: \"Y[b, o] += X[b, i] * Wt[o, i]\"\n";

TEST(Reference, PerTensorRequantize)
{
    Kernel k = parse(std::string(kDense)
                     + "    requantize: {bias: bias, multiplier: 1073741824, shift: -1, channel: o, output_offset: 3}\n");
    Dataset d = zeros(k);
    tensor(k, d, "X").ints = {1, 2, 3};
    tensor(k, d, "Wt").ints = {10, 20, 30, -40, 50, -60};
    tensor(k, d, "bias").ints = {10, -10};
    runReference(k, d);
    // acc0 = 10 + 140 = 150: 150 * 0.5 = 75, 75 / 2 = 37.5 -> 38, + 3 = 41.
    // acc1 = -10 - 120 = -130: -65, -32.5 -> -33 (ties away from zero), + 3 = -30.
    EXPECT_EQ(tensor(k, d, "Y").ints, (std::vector<int64_t>{41, -30}));
}

TEST(Reference, PerChannelRequantizeClampsAfterTheOffset)
{
    Kernel k = parse(std::string(kDense)
                     + "    requantize: {bias: bias, multiplier: mult, shift: shift, channel: o, output_offset: 3,"
                       " act_min: -20, act_max: 127}\n");
    Dataset d = zeros(k);
    tensor(k, d, "X").ints = {1, 2, 3};
    tensor(k, d, "Wt").ints = {10, 20, 30, -40, 50, -60};
    tensor(k, d, "bias").ints = {10, -10};
    tensor(k, d, "mult").ints = {1073741824, 2147483647};
    tensor(k, d, "shift").ints = {1, -2};
    runReference(k, d);
    // Channel 0: (150 << 1) * 0.5 = 150, + 3 = 153 -> 127.
    // Channel 1: -130 * (1 - 2^-31) -> -130, / 4 = -32.5 -> -33, + 3 = -30 -> -20.
    EXPECT_EQ(tensor(k, d, "Y").ints, (std::vector<int64_t>{127, -20}));
}

TEST(Reference, RequantizeAccumulatorIsInt32)
{
    Kernel k = parse(std::string(kDense)
                     + "    requantize: {bias: bias, multiplier: 1073741824, shift: 0, channel: o}\n");
    Dataset d = zeros(k);
    tensor(k, d, "X").ints = {1, 0, 0};
    tensor(k, d, "Wt").ints = {1, 0, 0, 0, 0, 0};
    tensor(k, d, "bias").ints = {2147483647, 0};
    runReference(k, d);
    // 2^31 - 1 + 1 wraps to -2^31 as in C int32; * 0.5 = -2^30 -> clamp -128 (not +127).
    EXPECT_EQ(tensor(k, d, "Y").ints, (std::vector<int64_t>{-128, 0}));
}

TEST(Reference, ExampleKernelsRunAtSmallSizes)
{
    const std::map<std::string, std::map<std::string, int64_t>> small = {
        {"matmul_f32", {{"M", 5}, {"N", 3}, {"K", 7}}},
        {"matmul_int8", {{"M", 5}, {"N", 3}, {"K", 7}}},
        {"conv2d_int8", {{"H", 5}, {"W", 4}, {"C", 3}, {"K", 2}}},
        {"conv2d_s2_int8", {{"H", 7}, {"W", 6}, {"C", 3}, {"K", 2}}},
        {"depthwise_conv_int8", {{"H", 5}, {"W", 4}, {"C", 3}}},
        {"pointwise_conv_int8", {{"H", 3}, {"W", 4}, {"C", 5}, {"K", 2}}},
        {"dwsep_conv", {{"H", 5}, {"W", 4}, {"C", 3}, {"K", 2}}},
        {"dense_int8", {{"B", 2}, {"IN", 9}, {"OUT", 4}}},
        {"dense_int16", {{"B", 2}, {"IN", 8}, {"OUT", 4}}},
    };
    for (const auto& [name, overrides] : small) {
        Kernel k = example(name, overrides);
        Dataset a = makeInputs(k, 3);
        Dataset b = makeInputs(k, 3);
        runReference(k, a);
        runReference(k, b);
        for (size_t t = 0; t < a.size(); ++t) {
            EXPECT_EQ(firstMismatch(a[t], b[t]), -1) << name;
            if (!ir::isFloat(a[t].dtype)) {
                for (int64_t v : a[t].ints) {
                    ASSERT_GE(v, ir::dtypeMin(a[t].dtype)) << name;
                    ASSERT_LE(v, ir::dtypeMax(a[t].dtype)) << name;
                }
            }
        }
        // The output is not left all zero.
        const TensorData& out = a[k.stages.back().output.tensor];
        bool nonzero = ir::isFloat(out.dtype) ? std::any_of(out.floats.begin(), out.floats.end(), [](float v) { return v != 0; })
                                              : std::any_of(out.ints.begin(), out.ints.end(), [](int64_t v) { return v != 0; });
        EXPECT_TRUE(nonzero) << name;
    }
}

TEST(Reference, MismatchedDatasetIsLeftUntouched)
{
    Kernel k = example("matmul_f32", {{"M", 2}, {"N", 2}, {"K", 2}});
    Kernel other = example("matmul_f32", {{"M", 3}, {"N", 2}, {"K", 2}});
    Dataset d = makeInputs(other, 1);
    const Dataset before = d;
    runReference(k, d);
    for (size_t t = 0; t < d.size(); ++t)
        EXPECT_EQ(d[t].floats, before[t].floats);
    Dataset empty;
    runReference(k, empty);
    EXPECT_TRUE(empty.empty());
}

// ---------------------------------------------------------------------------------------------
// TFLite arithmetic

TEST(Quantization, WrapTo)
{
    EXPECT_EQ(wrapTo(DType::Int8, 127), 127);
    EXPECT_EQ(wrapTo(DType::Int8, 128), -128);
    EXPECT_EQ(wrapTo(DType::Int8, 255), -1);
    EXPECT_EQ(wrapTo(DType::Int8, -129), 127);
    EXPECT_EQ(wrapTo(DType::Int16, 40000), -25536);
    EXPECT_EQ(wrapTo(DType::Int16, -32769), 32767);
    EXPECT_EQ(wrapTo(DType::Int32, int64_t(1) << 31), std::numeric_limits<int32_t>::min());
    EXPECT_EQ(wrapTo(DType::Int32, (int64_t(1) << 32) + 5), 5);
    EXPECT_EQ(wrapTo(DType::Int32, std::numeric_limits<int64_t>::min()), 0);
}

struct MbqmCase {
    int32_t x;
    int32_t multiplier;
    int shift;
    int32_t expected;
};

// Worked from the definitions in gemmlowp/fixedpoint.h as used by
// tflite::MultiplyByQuantizedMultiplier (double rounding):
//   SRDHM(a, b) = (a*b + (a*b >= 0 ? 2^30 : 1 - 2^30)) / 2^31, truncating; INT32_MIN^2 -> INT32_MAX
//   RDBP(x, e)  = (x >> e) + ((x & mask) > (mask >> 1) + (x < 0)),  mask = 2^e - 1
const MbqmCase kMbqmCases[] = {
    {100, 1 << 30, 0, 50},          // 100 * 0.5 exactly
    {101, 1 << 30, 0, 51},          // 50.5: SRDHM rounds a positive tie up
    {-101, 1 << 30, 0, -50},        // -50.5: the 1 - 2^30 nudge rounds a negative tie toward zero
    {1, 1 << 30, 0, 1},             // 0.5 -> 1
    {-1, 1 << 30, 0, 0},            // -0.5 -> 0
    {6, 1 << 30, -1, 2},            // 3 / 2 = 1.5 -> 2 (RDBP: ties away from zero)
    {-6, 1 << 30, -1, -2},          // -3 / 2 = -1.5 -> -2
    {10, 1 << 30, -2, 1},           // 5 / 4 = 1.25 -> 1
    {-10, 1 << 30, -2, -1},         // -1.25 -> -1
    {14, 1 << 30, -2, 2},           // 7 / 4 = 1.75 -> 2
    {-14, 1 << 30, -2, -2},         // -1.75 -> -2
    {5, 2147483647, -1, 3},         // SRDHM 4.9999999977 -> 5; 2.5 -> 3
    {-5, 2147483647, -1, -3},       // SRDHM -5.4999999977 truncates to -5; -2.5 -> -3
    {1000, 1518500250, -7, 6},      // 1000 / sqrt(2) = 707.1 -> 707; 707 / 128 = 5.52 -> 6
    {-1000, 1518500250, -7, -6},
    {123456, 1518500250, -12, 21},  // 87296.6 -> 87297; / 4096 = 21.3 -> 21
    {-123456, 1518500250, -12, -21},
    {3, 1 << 30, 2, 6},             // (3 << 2) * 0.5
    {-3, 1 << 30, 2, -6},
    {0, 1 << 30, -5, 0},
    {2147483647, 2147483647, 0, 2147483646},
    {-2147483647 - 1, 2147483647, 0, -2147483647},
    {7, 1 << 30, -31, 0},           // the largest right shift
    {-2147483647 - 1, 1 << 30, -31, -1},  // -2^30 / 2^31 = -0.5 -> -1 (away from zero)
    {2147483647, 1 << 30, -31, 1},  // SRDHM 2^30 (rounded up from 2^30 - 0.5); / 2^31 = 0.5 -> 1
};

TEST(Quantization, MultiplyByQuantizedMultiplierMatchesTflite)
{
    for (const MbqmCase& c : kMbqmCases)
        EXPECT_EQ(multiplyByQuantizedMultiplier(c.x, c.multiplier, c.shift), c.expected)
            << "x=" << c.x << " m=" << c.multiplier << " shift=" << c.shift;
}

TEST(Quantization, SaturationCase)
{
    const int32_t kMin = std::numeric_limits<int32_t>::min();
    const int32_t kMax = std::numeric_limits<int32_t>::max();
    // SaturatingRoundingDoublingHighMul(INT32_MIN, INT32_MIN) is the one product that overflows.
    EXPECT_EQ(multiplyByQuantizedMultiplier(kMin, kMin, 0), kMax);
    // Reached through the left shift, too: -2^30 << 1 = INT32_MIN.
    EXPECT_EQ(multiplyByQuantizedMultiplier(-(1 << 30), kMin, 1), kMax);
    // Then divided: INT32_MAX / 2 = 1073741823.5 -> 1073741824.
    EXPECT_EQ(multiplyByQuantizedMultiplier(kMin, kMin, -1), 1073741824);
    // Not saturated: INT32_MIN * (INT32_MIN + 1) fits.
    EXPECT_EQ(multiplyByQuantizedMultiplier(kMin, kMin + 1, 0), kMax);
}

TEST(Quantization, LeftShiftWrapsLikeInt32)
{
    // TFLite computes x * (1 << left_shift) in int32; out-of-range products wrap here instead of
    // being undefined: 2^30 << 1 = INT32_MIN.
    EXPECT_EQ(multiplyByQuantizedMultiplier(1 << 30, 2147483647, 1), -2147483647);
    // Shifts beyond TFLite's range are clamped to 31 rather than undefined.
    EXPECT_EQ(multiplyByQuantizedMultiplier(7, 1 << 30, -40), multiplyByQuantizedMultiplier(7, 1 << 30, -31));
}

TEST(Quantization, RequantizeValueAddsTheOffsetThenClamps)
{
    EXPECT_EQ(requantizeValue(100, 1 << 30, 0, 0, -128, 127), 50);
    EXPECT_EQ(requantizeValue(100, 1 << 30, 0, 80, -128, 127), 127);
    EXPECT_EQ(requantizeValue(100, 1 << 30, 0, -200, -128, 127), -128);
    // -300 -> -150, + 100 = -50: the clamp comes after the offset (else -128 + 100 = -28).
    EXPECT_EQ(requantizeValue(-300, 1 << 30, 0, 100, -128, 127), -50);
    EXPECT_EQ(requantizeValue(1000, 1518500250, -7, -3, -5, 5), 3);
    // The accumulator is taken as an int32.
    EXPECT_EQ(requantizeValue((int64_t(1) << 32) + 100, 1 << 30, 0, 0, -128, 127), 50);
    EXPECT_EQ(requantizeValue(40000, 1 << 30, 0, 0, -32768, 32767), 20000);
}

// ---------------------------------------------------------------------------------------------
// Inputs

/// FNV-1a over every value of every tensor (float bit patterns for float32).
uint64_t checksum(const Dataset& d)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    auto mix = [&](uint64_t v) {
        for (int i = 0; i < 8; ++i) {
            h ^= (v >> (8 * i)) & 0xff;
            h *= 0x100000001b3ULL;
        }
    };
    for (const TensorData& t : d) {
        for (int64_t v : t.ints)
            mix(static_cast<uint64_t>(v));
        for (float f : t.floats) {
            uint32_t bits;
            std::memcpy(&bits, &f, sizeof bits);
            mix(bits);
        }
    }
    return h;
}

TEST(Inputs, DeterministicWithRecordedChecksums)
{
    // Recorded once; a change means every stored result and golden count changes too.
    Kernel conv = example("conv2d_int8", {{"H", 6}, {"W", 5}, {"C", 4}, {"K", 3}});
    EXPECT_EQ(checksum(makeInputs(conv, 42)), 997293089065725418ULL);
    Kernel mm = example("matmul_f32", {{"M", 4}, {"N", 5}, {"K", 6}});
    EXPECT_EQ(checksum(makeInputs(mm, 42)), 1998124323929699616ULL);
    EXPECT_EQ(checksum(makeInputs(mm, 42)), checksum(makeInputs(mm, 42)));
    EXPECT_NE(checksum(makeInputs(mm, 42)), checksum(makeInputs(mm, 43)));
    // A few values spelled out, so a failure shows what changed.
    Dataset d = makeInputs(mm, 1);
    EXPECT_EQ(valueString(d[0], 0) + " " + valueString(d[0], 1), "-0.62494266 0.4129945");
}

TEST(Inputs, RangesFollowTheRoles)
{
    Kernel k = example("conv2d_int8", {{"H", 6}, {"W", 6}, {"C", 8}, {"K", 64}});
    Dataset d = makeInputs(k, 5);
    auto range = [&](const std::string& name) {
        const TensorData& t = tensor(k, d, name);
        auto [lo, hi] = std::minmax_element(t.ints.begin(), t.ints.end());
        return std::make_pair(*lo, *hi);
    };
    auto [iLo, iHi] = range("I");
    EXPECT_GE(iLo, -128);
    EXPECT_LE(iHi, 127);
    EXPECT_LT(iLo, -100);  // 2304 draws cover the range
    EXPECT_GT(iHi, 100);
    auto [bLo, bHi] = range("bias");
    EXPECT_GE(bLo, -5000);
    EXPECT_LE(bHi, 5000);
    EXPECT_GT(bHi - bLo, 1000);
    auto [mLo, mHi] = range("mult");
    EXPECT_GE(mLo, int64_t(1) << 30);
    EXPECT_LE(mHi, std::numeric_limits<int32_t>::max());
    auto [sLo, sHi] = range("shift");
    EXPECT_GE(sLo, -12);
    EXPECT_LE(sHi, 2);
    const TensorData& out = tensor(k, d, "O");
    EXPECT_EQ(out.size(), 6 * 6 * 64);
    EXPECT_EQ(static_cast<int64_t>(out.ints.size()), out.size());
    EXPECT_TRUE(std::all_of(out.ints.begin(), out.ints.end(), [](int64_t v) { return v == 0; }));
}

TEST(Inputs, WiderIntegersAndFloats)
{
    Kernel k = parse("name: w\ntensors:\n  A: {shape: [500], dtype: int16}\n  B: {shape: [500], dtype: int32}\n"
                     "  T: {shape: [500], dtype: int32}\n  C: {shape: [500], dtype: int32}\n"
                     "stages:\n  - compute: T[i] = A[i] + B[i]\n  - compute: C[i] = T[i] * 2\n");
    Dataset d = makeInputs(k, 9);
    for (const char* name : {"A", "B"}) {
        const auto& v = tensor(k, d, name).ints;
        EXPECT_GE(*std::min_element(v.begin(), v.end()), -1000) << name;
        EXPECT_LE(*std::max_element(v.begin(), v.end()), 1000) << name;
        EXPECT_GT(*std::max_element(v.begin(), v.end()), 900) << name;
    }
    // The intermediate is zero-filled, like the output.
    const auto& t = tensor(k, d, "T").ints;
    EXPECT_TRUE(std::all_of(t.begin(), t.end(), [](int64_t v) { return v == 0; }));

    Kernel f = example("dwsep_conv", {{"H", 8}, {"W", 8}, {"C", 4}, {"K", 4}});
    Dataset fd = makeInputs(f, 9);
    const auto& in = tensor(f, fd, "I").floats;
    EXPECT_EQ(in.size(), 8u * 8 * 4);
    EXPECT_GE(*std::min_element(in.begin(), in.end()), -1.0f);
    EXPECT_LT(*std::max_element(in.begin(), in.end()), 1.0f);
    EXPECT_LT(*std::min_element(in.begin(), in.end()), -0.9f);
    EXPECT_TRUE(tensor(f, fd, "I").ints.empty());
    const auto& inter = tensor(f, fd, "D").floats;
    EXPECT_EQ(inter.size(), 8u * 8 * 4);
    EXPECT_TRUE(std::all_of(inter.begin(), inter.end(), [](float v) { return v == 0.0f; }));
}

TEST(Inputs, EachTensorHasItsOwnStream)
{
    // Adding a tensor to a kernel does not change the data of the others.
    Kernel a = parse("name: a\ntensors:\n  X: {shape: [16], dtype: int8}\n  Y: {shape: [16], dtype: int8}\n"
                     "stages:\n  - compute: Y[i] = X[i]\n");
    Kernel b = parse("name: b\ntensors:\n  Q: {shape: [16], dtype: int8}\n  X: {shape: [16], dtype: int8}\n"
                     "  Y: {shape: [16], dtype: int8}\nstages:\n  - compute: Y[i] = X[i] + Q[i]\n");
    Dataset da = makeInputs(a, 11);
    Dataset db = makeInputs(b, 11);
    EXPECT_EQ(tensor(a, da, "X").ints, tensor(b, db, "X").ints);
    EXPECT_NE(tensor(b, db, "Q").ints, tensor(b, db, "X").ints);
}

// ---------------------------------------------------------------------------------------------
// Comparison and printing

TEST(Compare, IntegersExactFloatsWithinTolerance)
{
    TensorData a;
    a.dtype = DType::Int32;
    a.shape = {2, 3};
    a.ints = {1, 2, 3, 4, 5, 6};
    TensorData b = a;
    EXPECT_EQ(firstMismatch(a, b), -1);
    b.ints[4] = 7;
    EXPECT_EQ(firstMismatch(a, b), 4);
    EXPECT_EQ(indexString("C", a, 4), "C[1, 1]");
    EXPECT_EQ(valueString(b, 4), "7");

    TensorData f;
    f.dtype = DType::Float32;
    f.shape = {5, 6};
    f.floats.assign(30, 100.0f);
    TensorData g = f;
    g.floats[3] = 100.0f + 0.0105f;  // within 1e-3 + 1e-4 * 100 = 0.011
    EXPECT_EQ(firstMismatch(g, f), -1);
    g.floats[27] = 100.0f + 0.0115f;
    EXPECT_EQ(firstMismatch(g, f), 27);
    EXPECT_EQ(indexString("C", f, 27), "C[4, 3]");
    g.floats[27] = 100.0f;
    g.floats[2] = std::numeric_limits<float>::quiet_NaN();
    EXPECT_EQ(firstMismatch(g, f), 2);
    f.floats[2] = std::numeric_limits<float>::quiet_NaN();
    EXPECT_EQ(firstMismatch(g, f), -1);
    EXPECT_EQ(valueString(f, 0), "100");
    f.floats[0] = 0.1f;
    EXPECT_EQ(valueString(f, 0), "0.1");
}

TEST(Compare, ShapeAndTypeDifferences)
{
    TensorData a;
    a.dtype = DType::Int8;
    a.shape = {3};
    a.ints = {1, 2, 3};
    TensorData b = a;
    b.ints.pop_back();
    b.shape = {2};
    EXPECT_EQ(firstMismatch(a, b), 2);
    b = a;
    b.dtype = DType::Int16;
    EXPECT_EQ(firstMismatch(a, b), 0);
    EXPECT_EQ(indexString("A", a, 7), "A[offset 7]");
    EXPECT_EQ(valueString(a, 9), "?");
    const int64_t idx[] = {2};
    EXPECT_EQ(a.offset(idx), 2);
    EXPECT_EQ(a.size(), 3);
}

// TFLite's depthwise channel multiplier: output channel c*M + m of [N, H, W, C*M] filters input
// channel c, and takes bias, multiplier and shift c*M + m. Every output element is worked out
// here by hand from the inputs; a reference that indexed the parameters by c alone (as a
// one-axis channel did) would take the wrong multipliers for m > 0.
TEST(Reference, DepthwiseChannelMultiplierIndexesTheParametersByTheOutputChannel)
{
    auto k = ir::loadKernelFile(std::string(LOOPSCOPE_SOURCE_DIR) + "/examples/kernels/depthwise_conv_int8_mult_tflite.kernel.yaml",
                                {{"H", 3}, {"W", 4}, {"C", 3}, {"M", 2}});
    ASSERT_TRUE(k.ok()) << k.errorText();
    const auto& rq = *k->stages[0].requant;
    ASSERT_TRUE(rq.channel);
    EXPECT_EQ(rq.channels, 6);
    Dataset d = makeInputs(*k, 11);
    runReference(*k, d);
    auto tensor = [&](const char* name) -> const TensorData& { return d[k->findTensor(name)]; };
    const TensorData &in = tensor("I"), &f = tensor("F"), &bias = tensor("bias"), &mult = tensor("mult"), &shift = tensor("shift"),
                     &out = tensor("O");
    int checked = 0, differentFromChannelC = 0;
    for (int64_t h = 0; h < 3; ++h)
        for (int64_t w = 0; w < 4; ++w)
            for (int64_t c = 0; c < 3; ++c)
                for (int64_t m = 0; m < 2; ++m) {
                    const int64_t ch = c * 2 + m;
                    int64_t acc = bias.ints[ch];
                    for (int64_t r = 0; r < 3; ++r)
                        for (int64_t s = 0; s < 3; ++s) {
                            const int64_t y = h + r - 1, x = w + s - 1;
                            if (y < 0 || y >= 3 || x < 0 || x >= 4)
                                continue;
                            const int64_t ii[] = {0, y, x, c}, fi[] = {0, r, s, ch};
                            acc += (in.ints[in.offset(ii)] + 128) * f.ints[f.offset(fi)];
                        }
                    const int64_t want = requantizeValue(acc, static_cast<int32_t>(mult.ints[ch]), static_cast<int>(shift.ints[ch]), rq.outputOffset,
                                                         rq.actMin, rq.actMax);
                    const int64_t oi[] = {0, h, w, c, m};
                    EXPECT_EQ(out.ints[out.offset(oi)], want) << "O[0, " << h << ", " << w << ", " << c << ", " << m << "]";
                    ++checked;
                    if (want != requantizeValue(acc - bias.ints[ch] + bias.ints[c], static_cast<int32_t>(mult.ints[c]), static_cast<int>(shift.ints[c]),
                                                rq.outputOffset, rq.actMin, rq.actMax))
                        ++differentFromChannelC;
                }
    EXPECT_EQ(checked, 3 * 4 * 3 * 2);
    EXPECT_GT(differentFromChannelC, checked / 4) << "the data do not tell the two indexings apart";
}

} // namespace
