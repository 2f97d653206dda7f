// The kernel IR: tensors, axes and stages written as affine index expressions.
#pragma once

#include "common/diagnostic.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace loopscope::ir {

enum class DType { Int8, Int16, Int32, Float32 };

/// The most elements a tensor may hold: 2^40 (nothing this tool runs on could allocate more).
inline constexpr int64_t kMaxTensorElements = int64_t(1) << 40;
/// The most points a stage may iterate over: 2^48. The cost model counts every execution in 64
/// bits, and a point may move several elements across several levels (docs/kernels.md, "Limits").
inline constexpr int64_t kMaxStagePoints = int64_t(1) << 48;
/// The most dimensions a tensor may have: 16, what the interpreter that verifies schedules holds.
inline constexpr size_t kMaxTensorRank = 16;

/// Size of one element in bytes.
int dtypeBytes(DType t);
/// "int8", "int16", "int32", "float32".
const char* dtypeName(DType t);
/// Parses a dtype name; false if unknown.
bool parseDType(const std::string& name, DType& out);
bool isFloat(DType t);
/// Smallest and largest value of an integer dtype.
int64_t dtypeMin(DType t);
int64_t dtypeMax(DType t);

/// A tensor named in a kernel file. Shapes are fully resolved numbers.
struct Tensor {
    std::string name;
    DType dtype = DType::Float32;
    std::vector<int64_t> shape;
    SourceLoc loc;

    int64_t elements() const;
    int64_t bytes() const { return elements() * dtypeBytes(dtype); }
};

/// One iteration axis of a stage. Spatial axes come from the left-hand side in order,
/// reduction axes from the right-hand side in order of first appearance.
struct Axis {
    std::string name;
    int64_t extent = 1;
    bool reduction = false;
};

/// sum(coeff * axis) + constant, over the axes of one stage.
struct AffineExpr {
    struct Term {
        int axis = 0;  ///< index into Stage::axes
        int64_t coeff = 1;
    };
    std::vector<Term> terms;
    int64_t constant = 0;

    /// Coefficient of an axis (0 when absent).
    int64_t coeffOf(int axis) const;
    /// Value for the axis values x (indexed by axis).
    int64_t eval(const int64_t* x) const;
    /// The single axis when the expression is exactly one axis with coefficient 1, else -1.
    int plainAxis() const;
};

/// A reference to a tensor element: T[e0, e1, ...].
struct Access {
    int tensor = -1;  ///< index into Kernel::tensors
    std::vector<AffineExpr> index;
};

/// A right-hand-side expression. Small, immutable, shared.
struct Expr;
using ExprPtr = std::shared_ptr<const Expr>;

struct Expr {
    enum class Kind { Const, Load, Add, Sub, Mul, Neg };
    Kind kind = Kind::Const;
    int64_t intValue = 0;    ///< Const in integer kernels
    double floatValue = 0;   ///< Const in float kernels (also set for integer constants)
    bool isFloatConst = false;
    Access access;           ///< Load
    ExprPtr a, b;            ///< operands (b unused for Neg)

    static ExprPtr makeConst(int64_t v);
    static ExprPtr makeFloatConst(double v);
    static ExprPtr makeLoad(Access acc);
    static ExprPtr makeBinary(Kind k, ExprPtr a, ExprPtr b);
    static ExprPtr makeNeg(ExprPtr a);
};

/// A per-tensor or per-channel int32 value of the requantize epilogue.
struct QuantParam {
    int tensor = -1;        ///< per-channel tensor indexed by the channel, or -1
    int64_t value = 0;      ///< per-tensor value when tensor < 0
};

/// TFLite Micro / CMSIS-NN requantize: acc (+bias) -> MultiplyByQuantizedMultiplier
/// (SaturatingRoundingDoublingHighMul + RoundingDivideByPOT) -> + output_offset -> clamp.
struct Requantize {
    int bias = -1;          ///< int32 tensor indexed by the channel, or -1
    QuantParam multiplier;
    QuantParam shift;       ///< > 0 left shift, < 0 right shift (TFLite convention)
    /// The output channel that indexes bias/multiplier/shift: an affine expression of spatial
    /// axes, the row-major flat index of the output's last dimensions (`k`, or `c*M + m` for a
    /// depthwise convolution with channel multiplier M writing [N, H, W, C, M]); absent without
    /// per-channel parameters.
    std::optional<AffineExpr> channel;
    int64_t channels = 0;   ///< number of channels: the product of those output dimensions
    int64_t outputOffset = 0;
    int64_t actMin = -128;
    int64_t actMax = 127;
};

/// out[spatial axes] (= | +=) value. With "+=" the stage is a reduction over its reduction
/// axes, starting from zero (or from the bias when it requantizes).
struct Stage {
    std::string name;       ///< name of the output tensor
    Access output;          ///< index is one plain spatial axis per dimension
    bool accumulate = false;
    ExprPtr value;
    std::vector<Axis> axes;
    std::optional<Requantize> requant;
    /// Inputs read outside their bounds contribute nothing (zero padding, as TFLite skips them).
    bool padZero = false;
    std::string source;     ///< the expression as written
    SourceLoc loc;

    int spatialCount() const;
    int findAxis(const std::string& name) const;
    /// All loads of the value expression, in evaluation order.
    std::vector<Access> loads() const;
};

/// Calls `f` on every load of `e`, depth-first, left to right (Stage::loads' order), without
/// copying them: a copied access allocates its index expressions, which the search paid for at
/// every step applied and every stage lowered.
void visitLoads(const Expr* e, const std::function<void(const Access&)>& f);

/// A kernel: named sizes, tensors and an ordered list of stages (a pipeline).
struct Kernel {
    std::string name;
    std::string path;       ///< the file it came from ("" if built in memory)
    std::map<std::string, int64_t> params;
    std::vector<Tensor> tensors;
    std::vector<Stage> stages;

    int findTensor(const std::string& name) const;
    int findStage(const std::string& name) const;
    /// Stage that writes a tensor, or -1 for inputs.
    int producerOf(int tensor) const;
    /// Produced by one stage and read by a later one.
    bool isIntermediate(int tensor) const;
    /// Read by some stage and produced by none.
    bool isInput(int tensor) const;
    /// Written by the last stage that writes it and not read later.
    bool isOutput(int tensor) const;
    bool isFloatKernel() const;
    /// Total multiply-accumulates (product of all axis extents of reduction stages).
    int64_t macs() const;
};

/// Loads a kernel file. `overrides` replace size parameters before shapes are resolved.
Result<Kernel> loadKernelFile(const std::string& path,
                              const std::map<std::string, int64_t>& overrides = {});
/// Same from text; `path` is used in messages only.
Result<Kernel> parseKernel(const std::string& text, const std::string& path,
                           const std::map<std::string, int64_t>& overrides = {});

/// Prints an expression as written in kernel files (for printers and messages).
std::string exprToString(const Kernel& k, const Stage& s, const Expr& e);
std::string affineToString(const Stage& s, const AffineExpr& e);

} // namespace loopscope::ir
