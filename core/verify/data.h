// Tensor contents for the reference evaluator and the interpreter.
#pragma once

#include "ir/kernel.h"

#include <cstdint>
#include <string>
#include <vector>

namespace loopscope::verify {

/// Contents of one tensor, row-major. Integer tensors use `ints` (values already wrapped to
/// their dtype), float32 tensors use `floats`.
struct TensorData {
    ir::DType dtype = ir::DType::Float32;
    std::vector<int64_t> shape;
    std::vector<int64_t> ints;
    std::vector<float> floats;

    int64_t size() const;
    /// Row-major flat offset of an in-bounds index.
    int64_t offset(const int64_t* index) const;
};

/// One TensorData per kernel tensor, in Kernel::tensors order.
using Dataset = std::vector<TensorData>;

/// Deterministic pseudo-random inputs for every input tensor (same seed, same data on every
/// machine); intermediates and outputs are allocated and zeroed. Requantize parameters get
/// values in their valid ranges (multiplier in [2^30, 2^31), shift in [-12, 2], bias small).
Dataset makeInputs(const ir::Kernel& kernel, uint64_t seed);

/// Runs every stage of the kernel in order with plain nested loops, straight from the
/// kernel IR (independent of scheduling and lowering).
void runReference(const ir::Kernel& kernel, Dataset& data);

/// Wraps an integer to the range of an integer dtype (two's complement, like a C cast).
int64_t wrapTo(ir::DType t, int64_t v);

/// TFLite's MultiplyByQuantizedMultiplier: SaturatingRoundingDoublingHighMul followed by
/// RoundingDivideByPOT, bit-exact with tflite::MultiplyByQuantizedMultiplier.
int32_t multiplyByQuantizedMultiplier(int32_t x, int32_t multiplier, int shift);

/// The whole epilogue on an accumulator that already includes the bias:
/// clamp(multiplyByQuantizedMultiplier(acc, m, s) + outputOffset, actMin, actMax).
int64_t requantizeValue(int64_t acc, int32_t multiplier, int shift, int64_t outputOffset,
                        int64_t actMin, int64_t actMax);

/// Float results may differ from the reference by reassociation of sums; two values agree
/// when |a - b| <= kFloatAbsTol + kFloatRelTol * |b|.
inline constexpr double kFloatAbsTol = 1e-3;
inline constexpr double kFloatRelTol = 1e-4;

/// First element where two datasets differ for a tensor; -1 when equal (floats: within tolerance).
int64_t firstMismatch(const TensorData& got, const TensorData& want);
/// "C[3, 4]" for a flat offset.
std::string indexString(const std::string& name, const TensorData& t, int64_t flat);
/// Value at a flat offset as text.
std::string valueString(const TensorData& t, int64_t flat);

} // namespace loopscope::verify
