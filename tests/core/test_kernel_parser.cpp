// Kernel files -> kernel IR: the shipped examples, affine indices, every error with its location.
#include "ir/kernel.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

using namespace loopscope;
using namespace loopscope::ir;

namespace {

const std::string kSourceDir = LOOPSCOPE_SOURCE_DIR;

std::string examplePath(const std::string& name)
{
    return kSourceDir + "/examples/kernels/" + name + ".kernel.yaml";
}

std::string readFile(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

Kernel loadExample(const std::string& name, const std::map<std::string, int64_t>& overrides = {})
{
    Result<Kernel> r = loadKernelFile(examplePath(name), overrides);
    EXPECT_TRUE(r.ok()) << r.errorText();
    return r.ok() ? r.value() : Kernel{};
}

/// "name=extent" for spatial axes and "name=extent/r" for reduction axes, in stage order.
std::string axesOf(const Stage& s)
{
    std::string out;
    for (const Axis& a : s.axes)
        out += (out.empty() ? "" : " ") + a.name + "=" + std::to_string(a.extent) + (a.reduction ? "/r" : "");
    return out;
}

std::string shapeOf(const Kernel& k, const std::string& tensor)
{
    int t = k.findTensor(tensor);
    if (t < 0)
        return "missing";
    std::string out = dtypeName(k.tensors[t].dtype) + std::string("[");
    for (size_t d = 0; d < k.tensors[t].shape.size(); ++d)
        out += (d ? ", " : "") + std::to_string(k.tensors[t].shape[d]);
    return out + "]";
}

/// The first diagnostic of a parse that must fail, as "file:line:column: error: message".
std::string firstError(const std::string& text, const std::map<std::string, int64_t>& overrides = {})
{
    Result<Kernel> r = parseKernel(text, "k.yaml", overrides);
    if (r.ok())
        return "parsed without error";
    return r.errors().front().str();
}

// ---------------------------------------------------------------------------------------------
// Shipped examples

const char* const kExamples[] = {"matmul_f32",         "matmul_int8",         "conv2d_int8", "conv2d_s2_int8",
                                 "depthwise_conv_int8", "pointwise_conv_int8", "dwsep_conv",  "dense_int8",
                                 "dense_int16"};

class ExampleKernel : public ::testing::TestWithParam<const char*> {};

TEST_P(ExampleKernel, LoadsWithItsFileName)
{
    const std::string name = GetParam();
    Result<Kernel> r = loadKernelFile(examplePath(name));
    ASSERT_TRUE(r.ok()) << r.errorText();
    EXPECT_EQ(r->name, name);
    EXPECT_EQ(r->path, examplePath(name));
    EXPECT_FALSE(r->stages.empty());
    for (const Stage& s : r->stages) {
        EXPECT_TRUE(s.loc.known());
        EXPECT_FALSE(s.source.empty());
        for (const Axis& a : s.axes)
            EXPECT_GT(a.extent, 0) << a.name;
        // The printed expression parses back to the same printed text.
        EXPECT_FALSE(exprToString(*r, s, *s.value).empty());
    }
    for (const Tensor& t : r->tensors)
        EXPECT_TRUE(t.loc.known()) << t.name;
    EXPECT_GT(r->macs(), 0);
}

TEST_P(ExampleKernel, EveryShapeComesFromParams)
{
    // Shrinking every parameter to 1..4 must still give a valid kernel: no size is hard-coded
    // in a way that breaks under overrides.
    Kernel k = loadExample(GetParam());
    std::map<std::string, int64_t> small;
    for (const auto& [name, value] : k.params)
        small[name] = value == 3 ? 3 : 4;  // keep 3x3 filters 3x3
    Result<Kernel> r = loadKernelFile(examplePath(GetParam()), small);
    ASSERT_TRUE(r.ok()) << r.errorText();
    for (const Tensor& t : r->tensors) {
        for (int64_t d : t.shape)
            EXPECT_LE(d, 4) << t.name;
    }
}

INSTANTIATE_TEST_SUITE_P(Examples, ExampleKernel, ::testing::ValuesIn(kExamples));

TEST(ExampleKernels, MatmulF32)
{
    Kernel k = loadExample("matmul_f32");
    ASSERT_EQ(k.stages.size(), 1u);
    const Stage& s = k.stages[0];
    EXPECT_EQ(axesOf(s), "i=64 j=64 k=64/r");
    EXPECT_TRUE(s.accumulate);
    EXPECT_EQ(s.name, "C");
    EXPECT_EQ(exprToString(k, s, *s.value), "A[i, k] * B[k, j]");
    EXPECT_EQ(shapeOf(k, "A"), "float32[64, 64]");
    EXPECT_TRUE(k.isFloatKernel());
    EXPECT_TRUE(k.isInput(k.findTensor("A")));
    EXPECT_TRUE(k.isInput(k.findTensor("B")));
    EXPECT_TRUE(k.isOutput(k.findTensor("C")));
    EXPECT_FALSE(k.isIntermediate(k.findTensor("C")));
    EXPECT_EQ(k.macs(), 64 * 64 * 64);
    EXPECT_EQ(k.findStage("C"), 0);
    EXPECT_EQ(k.producerOf(k.findTensor("C")), 0);
    EXPECT_EQ(k.producerOf(k.findTensor("A")), -1);
}

TEST(ExampleKernels, MatmulInt8)
{
    Kernel k = loadExample("matmul_int8");
    const Stage& s = k.stages.at(0);
    EXPECT_EQ(axesOf(s), "i=64 j=64 k=64/r");
    EXPECT_EQ(exprToString(k, s, *s.value), "(A[i, k] + 128) * B[k, j]");
    EXPECT_EQ(shapeOf(k, "C"), "int32[64, 64]");
    EXPECT_FALSE(k.isFloatKernel());
    EXPECT_FALSE(s.requant.has_value());
}

TEST(ExampleKernels, Conv2dInt8)
{
    Kernel k = loadExample("conv2d_int8");
    const Stage& s = k.stages.at(0);
    EXPECT_EQ(axesOf(s), "n=1 oh=16 ow=16 k=16 r=3/r s=3/r c=16/r");
    EXPECT_TRUE(s.padZero);
    EXPECT_EQ(s.spatialCount(), 4);
    ASSERT_TRUE(s.requant.has_value());
    const Requantize& q = *s.requant;
    EXPECT_EQ(q.channel->plainAxis(), s.findAxis("k"));
    EXPECT_EQ(q.bias, k.findTensor("bias"));
    EXPECT_EQ(q.multiplier.tensor, k.findTensor("mult"));
    EXPECT_EQ(q.shift.tensor, k.findTensor("shift"));
    EXPECT_EQ(q.outputOffset, -3);
    EXPECT_EQ(q.actMin, -128);
    EXPECT_EQ(q.actMax, 127);
    for (const char* t : {"I", "F", "bias", "mult", "shift"})
        EXPECT_TRUE(k.isInput(k.findTensor(t))) << t;
    EXPECT_TRUE(k.isOutput(k.findTensor("O")));
    EXPECT_EQ(k.macs(), 16 * 16 * 16 * 3 * 3 * 16);
    ASSERT_EQ(s.loads().size(), 2u);
    EXPECT_EQ(affineToString(s, s.loads()[0].index[1]), "oh + r - 1");
}

TEST(ExampleKernels, Conv2dStride2DerivesTheOutputSize)
{
    Kernel k = loadExample("conv2d_s2_int8");
    EXPECT_EQ(shapeOf(k, "I"), "int8[1, 32, 32, 8]");
    EXPECT_EQ(shapeOf(k, "O"), "int8[1, 16, 16, 16]");
    const Stage& s = k.stages.at(0);
    EXPECT_EQ(axesOf(s), "n=1 oh=16 ow=16 k=16 r=3/r s=3/r c=8/r");
    const AffineExpr h = s.loads().at(0).index.at(1);  // loads() returns a copy
    EXPECT_EQ(h.coeffOf(s.findAxis("oh")), 2);
    EXPECT_EQ(h.coeffOf(s.findAxis("r")), 1);
    EXPECT_EQ(h.coeffOf(s.findAxis("ow")), 0);
    EXPECT_EQ(h.constant, -1);
    EXPECT_EQ(affineToString(s, h), "oh*2 + r - 1");

    // Overrides go in before shapes are resolved: OH = (H + 2 - 3)/2 + 1.
    Kernel small = loadExample("conv2d_s2_int8", {{"H", 7}, {"W", 8}, {"C", 2}, {"K", 3}});
    EXPECT_EQ(shapeOf(small, "O"), "int8[1, 4, 4, 3]");
    EXPECT_EQ(small.params.at("H"), 7);
}

TEST(ExampleKernels, DepthwiseKeepsTheChannelSpatial)
{
    Kernel k = loadExample("depthwise_conv_int8");
    const Stage& s = k.stages.at(0);
    EXPECT_EQ(axesOf(s), "n=1 h=32 w=32 c=32 r=3/r s=3/r");
    EXPECT_EQ(s.requant->channel->plainAxis(), s.findAxis("c"));
    EXPECT_TRUE(s.padZero);
}

TEST(ExampleKernels, PointwiseConv)
{
    Kernel k = loadExample("pointwise_conv_int8");
    const Stage& s = k.stages.at(0);
    EXPECT_EQ(axesOf(s), "n=1 h=16 w=16 k=32 c=32/r");
    EXPECT_FALSE(s.padZero);
    EXPECT_EQ(s.requant->outputOffset, -6);
}

TEST(ExampleKernels, DepthwiseSeparablePipeline)
{
    Kernel k = loadExample("dwsep_conv");
    ASSERT_EQ(k.stages.size(), 2u);
    EXPECT_EQ(axesOf(k.stages[0]), "h=112 w=112 c=32 r=3/r s=3/r");
    EXPECT_EQ(axesOf(k.stages[1]), "h=112 w=112 k=64 c=32/r");
    EXPECT_EQ(shapeOf(k, "I"), "float32[112, 112, 32]");
    EXPECT_EQ(shapeOf(k, "O"), "float32[112, 112, 64]");
    const int d = k.findTensor("D");
    EXPECT_TRUE(k.isIntermediate(d));
    EXPECT_FALSE(k.isInput(d));
    EXPECT_FALSE(k.isOutput(d));
    EXPECT_TRUE(k.isOutput(k.findTensor("O")));
    EXPECT_FALSE(k.isIntermediate(k.findTensor("O")));
    EXPECT_TRUE(k.isInput(k.findTensor("PW")));
    EXPECT_EQ(k.producerOf(d), 0);
    EXPECT_EQ(k.findStage("O"), 1);
    EXPECT_EQ(k.macs(), 112 * 112 * 32 * 9 + 112 * 112 * 64 * 32);
    EXPECT_TRUE(k.isFloatKernel());
}

TEST(ExampleKernels, DenseWithPerTensorRequantize)
{
    Kernel k = loadExample("dense_int8");
    const Stage& s = k.stages.at(0);
    EXPECT_EQ(axesOf(s), "b=4 o=64 i=256/r");
    const Requantize& q = *s.requant;
    EXPECT_EQ(q.multiplier.tensor, -1);
    EXPECT_EQ(q.multiplier.value, 1518500250);
    EXPECT_EQ(q.shift.tensor, -1);
    EXPECT_EQ(q.shift.value, -12);
    EXPECT_EQ(q.bias, k.findTensor("bias"));
    EXPECT_EQ(q.channel->plainAxis(), s.findAxis("o"));
}

TEST(ExampleKernels, OverrideOfAnUnknownParameterIsAnError)
{
    Result<Kernel> r = loadKernelFile(examplePath("matmul_f32"), {{"Q", 3}});
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.errors().front().str(),
              examplePath("matmul_f32")
                  + ":4:1: error: override of unknown parameter 'Q' (the kernel's parameters are: K, M, N)");
}

TEST(ExampleKernels, TheDocumentedExampleLoads)
{
    // The first yaml block of docs/kernels.md is a complete kernel file.
    const std::string doc = readFile(kSourceDir + "/docs/kernels.md");
    const size_t begin = doc.find("```yaml\n");
    ASSERT_NE(begin, std::string::npos);
    const size_t end = doc.find("```", begin + 8);
    Result<Kernel> r = parseKernel(doc.substr(begin + 8, end - begin - 8), "docs/kernels.md");
    ASSERT_TRUE(r.ok()) << r.errorText();
    EXPECT_EQ(axesOf(r->stages.at(0)), "n=1 oh=16 ow=16 k=16 r=3/r s=3/r c=8/r");
    EXPECT_EQ(r->stages[0].requant->outputOffset, 5);
}

TEST(ExampleKernels, MissingFile)
{
    Result<Kernel> r = loadKernelFile(kSourceDir + "/examples/kernels/no_such.kernel.yaml");
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.errorText().find("cannot open"), std::string::npos) << r.errorText();
}

// ---------------------------------------------------------------------------------------------
// Affine indices and the expression tree

/// A one-stage kernel over 1-D to 3-D tensors of generous size, for index tests.
Result<Kernel> parseStage(const std::string& compute, const std::string& extra = "")
{
    std::string text = "name: t\n"
                       "params: {N: 8, S: 3, Z: -2}\n"
                       "tensors:\n"
                       "  A: {shape: [64, 64], dtype: int32}\n"
                       "  B: {shape: [8, 8], dtype: int32}\n"
                       "  V: {shape: [64], dtype: int32}\n"
                       "  C: {shape: [N, N], dtype: int32}\n"
                       "  F: {shape: [N, N], dtype: float32}\n"
                       "  G: {shape: [64, 64], dtype: float32}\n"
                       "stages:\n"
                       "  - compute: \"" + compute + "\"\n" + extra;
    return parseKernel(text, "t.yaml");
}

TEST(AffineIndex, CoefficientsConstantsAndNegativeTerms)
{
    Result<Kernel> r = parseStage("C[i, j] += A[2*i + j - 3 + 10, 3*k - k + 1] * B[k, j]");
    ASSERT_TRUE(r.ok()) << r.errorText();
    const Stage& s = r->stages[0];
    EXPECT_EQ(axesOf(s), "i=8 j=8 k=8/r");
    const Access a = s.loads().at(0);
    ASSERT_EQ(a.index.size(), 2u);
    EXPECT_EQ(a.index[0].coeffOf(0), 2);
    EXPECT_EQ(a.index[0].coeffOf(1), 1);
    EXPECT_EQ(a.index[0].coeffOf(2), 0);
    EXPECT_EQ(a.index[0].constant, 7);
    EXPECT_EQ(a.index[1].coeffOf(2), 2);
    EXPECT_EQ(a.index[1].constant, 1);
    EXPECT_EQ(affineToString(s, a.index[0]), "i*2 + j + 7");
    EXPECT_EQ(affineToString(s, a.index[1]), "k*2 + 1");
}

TEST(AffineIndex, NegationParenthesesAndParams)
{
    // -(i - 7) = -i + 7; S*j uses the parameter S = 3 as a coefficient; Z = -2 is a constant.
    Result<Kernel> r = parseStage("C[i, j] = A[-(i - 7) + 8, S*j + 2*(i + 1) - Z] + V[N - 1]");
    ASSERT_TRUE(r.ok()) << r.errorText();
    const Stage& s = r->stages[0];
    EXPECT_EQ(axesOf(s), "i=8 j=8");
    const Access a = s.loads().at(0);
    EXPECT_EQ(a.index[0].coeffOf(0), -1);
    EXPECT_EQ(a.index[0].constant, 15);
    EXPECT_EQ(affineToString(s, a.index[0]), "-i + 15");
    EXPECT_EQ(a.index[1].coeffOf(1), 3);
    EXPECT_EQ(a.index[1].coeffOf(0), 2);
    EXPECT_EQ(a.index[1].constant, 4);
    EXPECT_EQ(affineToString(s, a.index[1]), "j*3 + i*2 + 4");
    const Access v = s.loads().at(1);
    EXPECT_TRUE(v.index[0].terms.empty());
    EXPECT_EQ(v.index[0].constant, 7);
    EXPECT_EQ(affineToString(s, v.index[0]), "7");
}

TEST(AffineIndex, CancelledTermsDisappear)
{
    Result<Kernel> r = parseStage("C[i, j] = B[i + j - j, j*1*1]");
    ASSERT_TRUE(r.ok()) << r.errorText();
    const Access a = r->stages[0].loads().at(0);
    ASSERT_EQ(a.index[0].terms.size(), 1u);
    EXPECT_EQ(a.index[0].terms[0].axis, 0);
    EXPECT_EQ(a.index[1].terms.size(), 1u);
    EXPECT_EQ(a.index[1].coeffOf(1), 1);
}

TEST(AffineIndex, ReductionAxesInOrderOfFirstAppearance)
{
    Result<Kernel> r = parseStage("C[i, j] += A[i*8 + q, p] * B[q, j] + V[p]");
    ASSERT_TRUE(r.ok()) << r.errorText();
    EXPECT_EQ(axesOf(r->stages[0]), "i=8 j=8 q=8/r p=64/r");
}

TEST(AffineIndex, ExplicitExtentForAnAxisThatNeverAppearsAlone)
{
    Result<Kernel> r = parseStage("C[i, j] += A[i + r, j + 2*r]", "    axes: {r: S}\n");
    ASSERT_TRUE(r.ok()) << r.errorText();
    EXPECT_EQ(axesOf(r->stages[0]), "i=8 j=8 r=3/r");
}

TEST(ExpressionTree, ShapeAndPrinting)
{
    Result<Kernel> r = parseStage("F[i, j] = -G[i, j] * 0.5 - (G[j, i] - 2) * -(1.25e1 + N)");
    ASSERT_TRUE(r.ok()) << r.errorText();
    const Stage& s = r->stages[0];
    const Expr& e = *s.value;
    ASSERT_EQ(e.kind, Expr::Kind::Sub);
    EXPECT_EQ(e.a->kind, Expr::Kind::Mul);
    EXPECT_EQ(e.a->a->kind, Expr::Kind::Neg);
    EXPECT_EQ(e.a->b->kind, Expr::Kind::Const);
    EXPECT_TRUE(e.a->b->isFloatConst);
    EXPECT_DOUBLE_EQ(e.a->b->floatValue, 0.5);
    EXPECT_EQ(e.b->kind, Expr::Kind::Mul);
    EXPECT_EQ(exprToString(*r, s, e), "-G[i, j] * 0.5 - (G[j, i] - 2) * -(12.5 + 8)");
    EXPECT_EQ(s.loads().size(), 2u);
    EXPECT_FALSE(s.accumulate);
    EXPECT_EQ(s.source, "F[i, j] = -G[i, j] * 0.5 - (G[j, i] - 2) * -(1.25e1 + N)");
}

TEST(ExpressionTree, PrintedTextParsesBackToTheSameTree)
{
    for (const char* compute : {"C[i, j] = A[i, j] - (B[i, j] - V[i]) * -Z", "C[i, j] = A[i, j] * (B[i, j] * V[j])",
                                "C[i, j] = -(-A[i, j]) - -3", "C[i, j] = (A[i, j] + B[i, j]) * (A[j, i] - 1)"}) {
        Result<Kernel> r = parseStage(compute);
        ASSERT_TRUE(r.ok()) << compute << ": " << r.errorText();
        std::string printed = "C[i, j] = " + exprToString(*r, r->stages[0], *r->stages[0].value);
        Result<Kernel> again = parseStage(printed);
        ASSERT_TRUE(again.ok()) << printed << ": " << again.errorText();
        EXPECT_EQ("C[i, j] = " + exprToString(*again, again->stages[0], *again->stages[0].value), printed);
    }
}

TEST(ExpressionTree, ColumnsAreExactForEveryScalarStyle)
{
    const std::string head = "name: t\n"
                             "tensors:\n"
                             "  A: {shape: [4], dtype: int8}\n"
                             "  C: {shape: [4], dtype: int8}\n"
                             "stages:\n";
    // The offending token is 'i + 1' (index of A out of bounds).
    EXPECT_EQ(firstError(head + "  - compute: C[i] = A[i + 1]\n").substr(0, 12), "k.yaml:6:23:");
    EXPECT_EQ(firstError(head + "  - compute: \"C[i] = A[i + 1]\"\n").substr(0, 12), "k.yaml:6:24:");
    EXPECT_EQ(firstError(head + "  - compute: 'C[i] = A[i + 1]'\n").substr(0, 12), "k.yaml:6:24:");
    // Escapes and doubled quotes before the token shift it in the file, not in the value.
    EXPECT_EQ(firstError(head + "  - compute: \"C[i] = \\x41[i + 1]\"\n").substr(0, 12), "k.yaml:6:27:");
    EXPECT_EQ(firstError(head + "  - compute: \"C[i] =\n      A[i + 1]\"\n").substr(0, 11), "k.yaml:7:9:");
    EXPECT_EQ(firstError(head + "  - compute: >\n      C[i] =\n      A[i + 1]\n").substr(0, 11), "k.yaml:8:9:");
    EXPECT_EQ(firstError(head + "  - {compute: \"C[i] = A[i + 1]\"}\n").substr(0, 12), "k.yaml:6:25:");
    EXPECT_EQ(firstError(head + "  - compute: !!str \"C[i] = A[i + 1]\"\n").substr(0, 12), "k.yaml:6:30:");
}

// ---------------------------------------------------------------------------------------------
// Errors inside stage expressions: line 11, the opening quote in column 14.

const char* const kHeader = "name: t\n"
                            "params: {M: 4, N: 3, K: 5}\n"
                            "tensors:\n"
                            "  A: {shape: [M, K], dtype: int8}\n"
                            "  B: {shape: [K, N], dtype: int8}\n"
                            "  C: {shape: [M, N], dtype: int32}\n"
                            "  F: {shape: [M, N], dtype: float32}\n"
                            "  Q: {shape: [M, N], dtype: int8}\n"
                            "  bias: {shape: [N], dtype: int32}\n"
                            "stages:\n";

struct ExprCase {
    const char* name;
    const char* compute;
    const char* expected;
};

// Columns computed independently as 15 + the offset of the offending token in the expression.
const ExprCase kExprCases[] = {
    {"syntax_missing_comma", "C[i, j] += A[i k] * B[k, j]", "k.yaml:11:30: error: expected ',' or ']' in the index of 'A', found name 'k'"},
    {"syntax_missing_bracket", "C[i, j] += A[i, k * B[k, j]", "k.yaml:11:42: error: expected ',' or ']' in the index of 'A', found end of expression"},
    {"bad_character", "C[i, j] += A[i, k] % B[k, j]", "k.yaml:11:34: error: unexpected character '%'"},
    {"empty_expression", "", "k.yaml:11:15: error: empty expression; expected e.g. 'C[i, j] += A[i, k] * B[k, j]'"},
    {"lhs_not_indexed", "C = A[i, k]", "k.yaml:11:17: error: expected '[' after 'C': the left-hand side is an indexed tensor"},
    {"missing_assign", "C[i, j] A[i, j]", "k.yaml:11:23: error: expected '=' or '+=' after the left-hand side, found name 'A'"},
    {"trailing_tokens", "C[i, j] += A[i, k] * B[k, j] )", "k.yaml:11:44: error: unexpected ')' after the expression"},
    {"unknown_output", "X[i, j] += A[i, k] * B[k, j]", "k.yaml:11:15: error: unknown tensor 'X'"},
    {"lhs_rank", "C[i] += A[i, k] * B[k, 0]", "k.yaml:11:15: error: 'C' has 2 dimensions but the left-hand side gives 1 index"},
    {"lhs_not_plain", "C[i + 1, j] += A[i, k] * B[k, j]", "k.yaml:11:17: error: the left-hand side must index 'C' with plain axis names, e.g. C[i, j]"},
    {"lhs_repeated_axis", "C[i, i] += A[i, k] * B[k, i]", "k.yaml:11:20: error: axis 'i' appears twice on the left-hand side"},
    {"lhs_param", "C[M, j] += A[0, k] * B[k, j]", "k.yaml:11:17: error: 'M' is a parameter; the left-hand side needs axis names"},
    {"unknown_input", "C[i, j] += A[i, k] * Z[k, j]", "k.yaml:11:36: error: unknown tensor 'Z'"},
    {"unknown_name", "C[i, j] += A[i, k] * B[k, j] * alpha", "k.yaml:11:46: error: unknown name 'alpha': not a tensor or parameter (axes appear only inside tensor indices)"},
    {"axis_as_value", "C[i, j] += A[i, k] * j", "k.yaml:11:36: error: axis 'j' can only appear inside a tensor index"},
    {"tensor_without_index", "C[i, j] += A[i, k] * B", "k.yaml:11:36: error: tensor 'B' needs an index, e.g. B[i]"},
    {"load_rank", "C[i, j] += A[i] * B[i, j]", "k.yaml:11:26: error: 'A' has 2 dimensions but is indexed with 1"},
    {"not_affine", "C[i, j] += A[i, j*k] * B[k, j]", "k.yaml:11:32: error: index is not affine: it multiplies two axis expressions (coefficients must be constant integers)"},
    {"float_literal_int_stage", "C[i, j] += A[i, k] * B[k, j] * 0.5", "k.yaml:11:46: error: float literal '0.5' in an integer stage (output 'C' is int32)"},
    {"float_index", "C[i, j] += A[i, 1.5] * B[k, j]", "k.yaml:11:31: error: index '1.5' must be an integer"},
    {"division", "C[i, j] += A[i, k] / B[k, j]", "k.yaml:11:34: error: division is not supported in stage expressions"},
    {"load_in_index", "C[i, j] += A[i, B[0, j]] * B[k, j]", "k.yaml:11:31: error: an index cannot read a tensor ('B')"},
    {"reduction_in_assign", "C[i, j] = A[i, k] * B[k, j]", "k.yaml:11:30: error: axis 'k' is not on the left-hand side; only a '+=' stage may reduce over it"},
    {"accumulate_without_reduction", "C[i, j] += A[i, j] * B[j, j]", "k.yaml:11:23: error: '+=' needs a reduction axis (an axis on the right-hand side that is not on the left-hand side); use '=' for an elementwise stage"},
    {"out_of_bounds_high", "C[i, j] += A[i + 1, k] * B[k, j]", "k.yaml:11:28: error: index 'i + 1' of 'A' dimension 0 reaches 4, outside [0, 4) (use 'padding: zero' to skip out-of-bounds terms)"},
    {"out_of_bounds_low", "C[i, j] += A[i, k] * B[k - 2, j]", "k.yaml:11:38: error: index 'k - 2' of 'B' dimension 0 reaches -2, outside [0, 5) (use 'padding: zero' to skip out-of-bounds terms)"},
    {"out_of_bounds_stride", "C[i, j] += A[i, k] * B[k, 2*j - 1]", "k.yaml:11:41: error: index '2*j - 1' of 'B' dimension 1 reaches -1, outside [0, 3) (use 'padding: zero' to skip out-of-bounds terms)"},
    {"inconsistent_extent", "C[i, j] += A[i, k] * B[j, k]", "k.yaml:11:41: error: reduction axis 'k' has inconsistent extents: 5 from 'A' dimension 1 but 3 from 'B' dimension 1"},
    {"extent_not_inferable", "C[i, j] += A[i, k + 1] * B[k + 1, j]", "k.yaml:11:31: error: cannot infer the extent of reduction axis 'k': it never indexes a dimension alone; give it with 'axes: {k: N}'"},
    {"mixed_float", "C[i, j] += A[i, k] * F[i, j] + B[k, j]", "k.yaml:11:36: error: stage mixes float32 and integer tensors: 'F' is float32 but the output 'C' is int32"},
    {"reads_own_output", "C[i, j] += A[i, k] * B[k, j] + C[i, j]", "k.yaml:11:46: error: stage 1 reads its own output 'C'"},
    {"integer_too_large", "C[i, j] += A[i, k] * 99999999999999999999", "k.yaml:11:36: error: integer '99999999999999999999' is too large"},
    {"malformed_number", "C[i, j] += A[i, k] * 3x", "k.yaml:11:36: error: malformed number '3x'"},
    {"unclosed_paren", "C[i, j] += (A[i, k] * B[k, j]", "k.yaml:11:44: error: expected ')' to match '(', found end of expression"},
};

class ExpressionError : public ::testing::TestWithParam<ExprCase> {};

TEST_P(ExpressionError, ReportsTheTokenPosition)
{
    const ExprCase& c = GetParam();
    std::string text = std::string(kHeader) + "  - compute: \"" + c.compute + "\"\n";
    EXPECT_EQ(firstError(text), c.expected);
}

INSTANTIATE_TEST_SUITE_P(Stage, ExpressionError, ::testing::ValuesIn(kExprCases),
                         [](const ::testing::TestParamInfo<ExprCase>& info) { return std::string(info.param.name); });

// ---------------------------------------------------------------------------------------------
// Errors in the file structure, stage options and pipelines

struct FileCase {
    const char* name;
    std::string text;
    const char* expected;
};

std::string withStages(const std::string& stages)
{
    return std::string(kHeader) + stages;
}

const std::string kOkStage = "  - compute: \"C[i, j] += A[i, k] * B[k, j]\"\n";
const std::string kOkQ = "  - compute: \"Q[i, j] += A[i, k] * B[k, j]\"\n    requantize: {bias: bias, multiplier: 1073741824, shift: 0, channel: j}\n";
// A depthwise-like stage with channel multiplier 2: output channel c*2 + m of 3*2.
const char* const kMultHeader = "name: t\n"
                                "tensors:\n"
                                "  X: {shape: [3, 4], dtype: int8}\n"
                                "  W: {shape: [6], dtype: int8}\n"
                                "  b: {shape: [6], dtype: int32}\n"
                                "  O: {shape: [3, 2], dtype: int8}\n"
                                "stages:\n";

std::vector<FileCase> fileCases()
{
    return {
        {"yaml_syntax", "name: t\ntensors: {A: [1, 2}\n", "k.yaml:2:19: error: invalid YAML: illegal flow end"},
        {"empty_file", "# nothing here\n", "k.yaml:1:1: error: empty kernel file: expected name, params, tensors and stages"},
        {"not_a_mapping", "- name: t\n", "k.yaml:1:1: error: a kernel file must be a mapping with name, params, tensors and stages"},
        {"unknown_top_key", "name: t\nstagez: []\n", "k.yaml:2:1: error: unknown key 'stagez' in the kernel file (expected one of: name, description, params, tensors, stages)"},
        {"duplicate_top_key", "name: t\nname: u\n", "k.yaml:2:1: error: duplicate key 'name' in the kernel file (first given on line 1)"},
        {"missing_name", "tensors: {A: {shape: [2], dtype: int8}}\nstages: []\n", "k.yaml:1:1: error: the kernel file has no 'name'"},
        {"name_not_identifier", "name: my kernel\n", "k.yaml:1:7: error: kernel name must be an identifier (letters, digits, '_')"},
        {"param_not_integer", "name: t\nparams: {M: 4, N: x}\n", "k.yaml:2:19: error: parameter 'N' must be an integer"},
        {"param_empty", "name: t\nparams:\n  M:\n", "k.yaml:3:3: error: 'M' needs a value (an integer)"},
        {"missing_tensors", "name: t\nparams: {M: 4}\n", "k.yaml:1:1: error: the kernel file has no 'tensors'"},
        {"tensors_empty", "name: t\ntensors: {}\n", "k.yaml:2:10: error: 'tensors' must be a non-empty mapping of names to {shape, dtype}"},
        {"unknown_dtype", "name: t\ntensors:\n  A: {shape: [2], dtype: int4}\n", "k.yaml:3:26: error: unknown dtype 'int4' (expected int8, int16, int32 or float32)"},
        {"missing_dtype", "name: t\ntensors:\n  A: {shape: [2]}\n", "k.yaml:3:6: error: tensor 'A' needs a 'dtype'"},
        {"unknown_tensor_key", "name: t\ntensors:\n  A: {shape: [2], type: int8}\n", "k.yaml:3:19: error: unknown key 'type' in tensor 'A' (expected one of: shape, dtype)"},
        {"shape_unknown_param", "name: t\nparams: {M: 4}\ntensors:\n  A: {shape: [M, 2*Q + 1], dtype: int8}\n", "k.yaml:4:20: error: unknown parameter 'Q'"},
        {"shape_not_positive", "name: t\nparams: {H: 2}\ntensors:\n  A: {shape: [(H - 3)/2 + 1], dtype: int8}\n", "k.yaml:4:15: error: dimension 0 of 'A' is 0; sizes must be positive"},
        {"shape_division_by_zero", "name: t\nparams: {H: 2}\ntensors:\n  A: {shape: [\"H / (H - 2)\"], dtype: int8}\n", "k.yaml:4:18: error: division by zero"},
        {"shape_float", "name: t\ntensors:\n  A: {shape: [2.5], dtype: int8}\n", "k.yaml:3:15: error: size '2.5' must be an integer"},
        {"shape_empty", "name: t\ntensors:\n  A: {shape: [], dtype: int8}\n", "k.yaml:3:14: error: shape of 'A' must be a non-empty list of sizes, e.g. [M, K]"},
        {"tensor_named_like_param", "name: t\nparams: {M: 4}\ntensors:\n  M: {shape: [M], dtype: int8}\n", "k.yaml:4:3: error: tensor 'M' has the name of a parameter"},
        {"tensor_too_large", "name: t\ntensors:\n  A: {shape: [1048576, 1048576, 2], dtype: int8}\n", "k.yaml:3:33: error: tensor 'A' is too large"},
        {"stages_not_a_list", withStages("  compute: x\n"), "k.yaml:11:3: error: 'stages' must be a non-empty list of stages (- compute: ...)"},
        {"missing_stages", std::string(kHeader).substr(0, std::string(kHeader).size() - 8), "k.yaml:1:1: error: the kernel file has no 'stages'"},
        {"stage_without_compute", withStages("  - padding: zero\n"), "k.yaml:11:5: error: stage 1 has no 'compute' expression"},
        {"stage_unknown_key", withStages(kOkStage + "    pading: zero\n"), "k.yaml:12:5: error: unknown key 'pading' in stage 1 (expected one of: compute, padding, requantize, axes)"},
        {"compute_not_a_string", withStages("  - compute: [C, A]\n"), "k.yaml:11:14: error: 'compute' must be a string such as 'C[i, j] += A[i, k] * B[k, j]'"},
        {"bad_padding", withStages(kOkStage + "    padding: same\n"), "k.yaml:12:14: error: padding must be 'zero' or 'none'"},
        {"padding_on_assign", withStages("  - compute: \"Q[i, j] = A[i, j - 1]\"\n    padding: zero\n"), "k.yaml:12:14: error: padding: zero applies to '+=' stages only (it skips out-of-bounds terms of a sum)"},
        {"padding_never_in_bounds", withStages("  - compute: \"C[i, j] += A[i + 10, k] * B[k, j]\"\n    padding: zero\n"), "k.yaml:11:28: error: index 'i + 10' of 'A' dimension 0 is never inside [0, 4) (it spans [10, 13])"},
        {"axes_unknown_axis", withStages(kOkStage + "    axes: {k: 5, x: 2}\n"), "k.yaml:12:18: error: 'x' is not an axis of stage 1 (its axes: i, j, k)"},
        {"axes_spatial_mismatch", withStages(kOkStage + "    axes: {i: 3}\n"), "k.yaml:12:15: error: axis 'i' is given extent 3 but the output 'C' gives it 4"},
        {"axes_explicit_too_large", withStages(kOkStage + "    axes: {k: K + 1}\n"), "k.yaml:11:31: error: index 'k' of 'A' dimension 1 reaches 5, outside [0, 5) (use 'padding: zero' to skip out-of-bounds terms)"},
        {"requantize_int32_output", withStages(kOkStage + "    requantize: {multiplier: 1073741824, shift: 0}\n"), "k.yaml:12:5: error: requantize needs an int8 or int16 output; 'C' is int32"},
        {"requantize_on_assign", withStages("  - compute: \"Q[i, j] = A[i, j - 1 + 1]\"\n    requantize: {multiplier: 1073741824, shift: 0}\n"), "k.yaml:12:5: error: requantize needs a '+=' stage (it is the epilogue of a sum)"},
        {"requantize_without_channel", withStages("  - compute: \"Q[i, j] += A[i, k] * B[k, j]\"\n    requantize: {bias: bias, multiplier: 1073741824, shift: 0}\n"), "k.yaml:12:24: error: per-channel 'bias' tensor 'bias' needs 'channel: <axis>' in 'requantize'"},
        {"requantize_bias_dtype", withStages("  - compute: \"Q[i, j] += A[i, k] * B[k, j]\"\n    requantize: {bias: B, multiplier: 1073741824, shift: 0, channel: j}\n"), "k.yaml:12:24: error: 'bias' tensor 'B' must be a one-dimensional int32 tensor, not int8 with 2 dimensions"},
        {"requantize_channel_not_last", withStages("  - compute: \"Q[j, i] += A[j, k] * B[k, i]\"\n    requantize: {bias: bias, multiplier: 1073741824, shift: 0, channel: j}\n"), "k.yaml:12:73: error: 'channel: j' is not the output channel of Q[j, i]: it must be the row-major index of the output's last dimensions, here i (its last dimension) or j*3 + i (its last two)"},
        {"requantize_bias_too_long", std::string(kHeader).replace(std::string(kHeader).find("bias: {shape: [N]"), 17, "bias: {shape: [5]") + kOkQ, "k.yaml:12:24: error: 'bias' tensor 'bias' has 5 entries but the output has 3 channels (channel 'j')"},
        {"requantize_bias_too_short", std::string(kHeader).replace(std::string(kHeader).find("bias: {shape: [N]"), 17, "bias: {shape: [2]") + kOkQ, "k.yaml:12:24: error: 'bias' tensor 'bias' has 2 entries but the output has 3 channels (channel 'j')"},
        {"requantize_channel_strides", std::string(kMultHeader) + "  - compute: \"O[c, m] += X[c, z] * W[c*2 + m]\"\n    requantize: {bias: b, multiplier: 1073741824, shift: 0, channel: m*3 + c}\n", "k.yaml:9:70: error: 'channel: m*3 + c' is not the output channel of O[c, m]: it must be the row-major index of the output's last dimensions, here m (its last dimension) or c*2 + m (its last two)"},
        {"requantize_channel_offset", std::string(kMultHeader) + "  - compute: \"O[c, m] += X[c, z] * W[c*2 + m]\"\n    requantize: {multiplier: 1073741824, shift: 0, channel: c*2 + m + 1}\n", "k.yaml:9:61: error: 'channel: c*2 + m + 1' is not the output channel of O[c, m]: it must be the row-major index of the output's last dimensions, here m (its last dimension) or c*2 + m (its last two)"},
        {"requantize_channel_unknown", std::string(kMultHeader) + "  - compute: \"O[c, m] += X[c, z] * W[c*2 + m]\"\n    requantize: {multiplier: 1073741824, shift: 0, channel: c*2 + q}\n", "k.yaml:9:61: error: 'channel' uses 'q', which is not an axis of the left-hand side of stage 1"},
        {"requantize_channel_syntax", std::string(kMultHeader) + "  - compute: \"O[c, m] += X[c, z] * W[c*2 + m]\"\n    requantize: {multiplier: 1073741824, shift: 0, channel: \"c*2 +\"}\n", "k.yaml:9:67: error: expected a number, a name or '(', found end of expression"},
        {"requantize_multiplier_range", withStages("  - compute: \"Q[i, j] += A[i, k] * B[k, j]\"\n    requantize: {multiplier: 2147483648, shift: 0}\n"), "k.yaml:12:30: error: 'multiplier' must be in [0, 2147483647], got 2147483648"},
        {"requantize_shift_unknown", withStages("  - compute: \"Q[i, j] += A[i, k] * B[k, j]\"\n    requantize: {multiplier: 1073741824, shift: s}\n"), "k.yaml:12:49: error: 'shift' must be a tensor name or an integer; 's' is neither"},
        {"requantize_missing_shift", withStages("  - compute: \"Q[i, j] += A[i, k] * B[k, j]\"\n    requantize: {multiplier: 1073741824}\n"), "k.yaml:12:17: error: 'requantize' needs a 'shift' (a tensor name or an integer)"},
        {"requantize_act_range", withStages("  - compute: \"Q[i, j] += A[i, k] * B[k, j]\"\n    requantize: {multiplier: 1073741824, shift: 0, act_min: 10, act_max: -10}\n"), "k.yaml:12:61: error: act_min 10 is greater than act_max -10"},
        {"requantize_act_outside_dtype", withStages("  - compute: \"Q[i, j] += A[i, k] * B[k, j]\"\n    requantize: {multiplier: 1073741824, shift: 0, act_max: 255}\n"), "k.yaml:12:61: error: 'act_max' must be in [-128, 127], got 255"},
        {"requantize_channel_not_spatial", withStages("  - compute: \"Q[i, j] += A[i, k] * B[k, j]\"\n    requantize: {multiplier: 1073741824, shift: 0, channel: k}\n"), "k.yaml:12:61: error: 'channel' must use axes of the left-hand side of stage 1; 'k' is a reduction axis"},
        {"requantize_unknown_key", withStages("  - compute: \"Q[i, j] += A[i, k] * B[k, j]\"\n    requantize: {multiplier: 1073741824, shift: 0, zero_point: 3}\n"), "k.yaml:12:52: error: unknown key 'zero_point' in 'requantize' (expected one of: bias, multiplier, shift, channel, output_offset, act_min, act_max)"},
        {"two_writers", withStages(kOkStage + "  - compute: \"C[i, j] += A[i, k] * B[k, j]\"\n"), "k.yaml:12:15: error: tensor 'C' is already written by stage 1; each tensor has one producer"},
        {"read_before_write", withStages("  - compute: \"C[i, j] += A[i, k] * B[k, j] + Q[i, j]\"\n  - compute: \"Q[i, j] = A[i, j]\"\n"), "k.yaml:11:46: error: stage 1 reads 'Q' before stage 2 writes it"},
        {"float_and_int_stages", withStages(kOkStage + "  - compute: \"F[i, j] = -1.0\"\n"), "k.yaml:12:15: error: stage 2 computes in float32 but stage 1 does not; a kernel is all float32 or all integer"},
        {"nested_too_deep", withStages("  - compute: \"C[i, j] = " + std::string(300, '(') + "1" + std::string(300, ')') + "\"\n"), "k.yaml:11:225: error: expression is nested too deeply"},
    };
}

TEST(FileErrors, EachReportsFileLineColumnAndMessage)
{
    for (const FileCase& c : fileCases())
        EXPECT_EQ(firstError(c.text), c.expected) << c.name;
}

TEST(FileErrors, OverrideNamingAnUnknownParameter)
{
    EXPECT_EQ(firstError(withStages(kOkStage), {{"X", 2}}),
              "k.yaml:2:1: error: override of unknown parameter 'X' (the kernel's parameters are: K, M, N)");
    EXPECT_EQ(firstError("name: t\ntensors: {A: {shape: [2], dtype: int8}}\nstages: []\n", {{"X", 2}}),
              "k.yaml:1:1: error: override of unknown parameter 'X' (the kernel has no parameters)");
}

TEST(FileErrors, IndependentTensorErrorsAreAllReported)
{
    Result<Kernel> r = parseKernel("name: t\ntensors:\n  A: {shape: [2], dtype: int4}\n  B: {shape: [0], dtype: int8}\n",
                                   "k.yaml");
    ASSERT_FALSE(r.ok());
    ASSERT_EQ(r.errors().size(), 2u) << r.errorText();
    EXPECT_EQ(r.errors()[1].str(), "k.yaml:4:15: error: dimension 0 of 'B' is 0; sizes must be positive");
}

TEST(FileErrors, OverridesCanMakeAKernelInvalid)
{
    // The same file is fine with its own sizes and out of bounds with a smaller input.
    const std::string text = "name: t\nparams: {H: 8, OH: 6}\ntensors:\n"
                             "  I: {shape: [H], dtype: int8}\n  O: {shape: [OH], dtype: int32}\n"
                             "stages:\n  - compute: O[x] += I[x + r] * 2\n    axes: {r: 3}\n";
    EXPECT_TRUE(parseKernel(text, "k.yaml").ok());
    EXPECT_EQ(firstError(text, {{"H", 7}}),
              "k.yaml:7:24: error: index 'x + r' of 'I' dimension 0 reaches 7, outside [0, 7) (use 'padding: zero' to "
              "skip out-of-bounds terms)");
}

// ---------------------------------------------------------------------------------------------
// Malformed files under tests/data/malformed/kernels: the first line says what to expect.

TEST(MalformedKernelFiles, EachFailsWithTheExpectedMessage)
{
    namespace fs = std::filesystem;
    const fs::path dir = fs::path(kSourceDir) / "tests/data/malformed/kernels";
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(dir)) {
        if (entry.path().extension() == ".yaml")
            files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());
    ASSERT_GE(files.size(), 10u);
    for (const fs::path& f : files) {
        std::ifstream in(f);
        std::string first;
        std::getline(in, first);
        const std::string tag = "# expect: ";
        ASSERT_EQ(first.rfind(tag, 0), 0u) << f << " must start with '" << tag << "'";
        const std::string expected = first.substr(tag.size());
        Result<Kernel> r = loadKernelFile(f.string());
        ASSERT_FALSE(r.ok()) << f << " parsed without error";
        const std::string got = r.errors().front().str();
        EXPECT_NE(got.find(expected), std::string::npos) << f << "\n  expected: " << expected << "\n  got:      " << got;
        EXPECT_EQ(got.rfind(f.string() + ":", 0), 0u) << got;
    }
}

// ---------------------------------------------------------------------------------------------
// Fuzz: mutated and truncated kernel texts never crash, and every failure has a position.

class Rng {
public:
    explicit Rng(uint64_t seed) : m_s(seed) {}
    uint64_t next()
    {
        uint64_t z = (m_s += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
    }
    size_t below(size_t n) { return n ? static_cast<size_t>(next() % n) : 0; }

private:
    uint64_t m_s;
};

std::string mutate(const std::string& s, Rng& rng)
{
    static const std::string pieces[] = {"[", "]", "{", "}", ",", ":", "-", "+=", "=", "*", "(", ")", "\"", "'", "\n",
                                         "  ", "#", "0", "-1", "99999999999999999999", "k", "I", "padding: zero",
                                         "&a", "*a", "!!int", "\t", "\\", "1e400", "requantize: {}", "axes: {q: 0}"};
    std::string out = s;
    const int edits = 1 + static_cast<int>(rng.below(4));
    for (int e = 0; e < edits && !out.empty(); ++e) {
        size_t at = rng.below(out.size());
        switch (rng.below(5)) {
        case 0: out.erase(at, 1 + rng.below(8)); break;
        case 1: out.insert(at, pieces[rng.below(std::size(pieces))]); break;
        case 2: out[at] = static_cast<char>(rng.below(256)); break;
        case 3: out.resize(at); break;
        case 4: {
            size_t from = rng.below(out.size());
            out.insert(at, out.substr(from, 1 + rng.below(30)));
            break;
        }
        }
    }
    return out;
}

TEST(Fuzz, MutatedKernelsFailCleanlyWithLocations)
{
    Rng rng(20261129);
    int parsed = 0, failed = 0;
    for (const char* name : kExamples) {
        const std::string text = readFile(examplePath(name));
        ASSERT_FALSE(text.empty());
        // Every truncation of the file.
        for (size_t cut = 0; cut < text.size(); cut += 3) {
            Result<Kernel> r = parseKernel(text.substr(0, cut), "fuzz.yaml");
            if (r.ok()) {
                ++parsed;
                continue;
            }
            ++failed;
            for (const Diagnostic& d : r.errors()) {
                EXPECT_EQ(d.loc.file, "fuzz.yaml");
                EXPECT_GT(d.loc.line, 0) << d.str();
                EXPECT_GT(d.loc.column, 0) << d.str();
                EXPECT_FALSE(d.message.empty());
            }
        }
        // Random edits.
        for (int i = 0; i < 400; ++i) {
            const std::string m = mutate(text, rng);
            Result<Kernel> r = parseKernel(m, "fuzz.yaml");
            if (r.ok()) {
                ++parsed;
                // A kernel that parses is consistent: every access stays in range of its tensor.
                for (const Stage& s : r->stages) {
                    EXPECT_GE(s.output.tensor, 0);
                    for (const Access& a : s.loads())
                        EXPECT_EQ(a.index.size(), r->tensors.at(a.tensor).shape.size());
                    EXPECT_FALSE(exprToString(*r, s, *s.value).empty());
                }
                continue;
            }
            ++failed;
            const int lines = static_cast<int>(std::count(m.begin(), m.end(), '\n')) + 1;
            for (const Diagnostic& d : r.errors()) {
                EXPECT_GT(d.loc.line, 0) << d.str() << "\n--- text ---\n" << m;
                EXPECT_LE(d.loc.line, lines) << d.str();
                EXPECT_GT(d.loc.column, 0) << d.str();
                EXPECT_FALSE(d.message.empty());
            }
        }
    }
    // Both outcomes occur: the mutations are neither all harmless nor all fatal.
    EXPECT_GT(parsed, 50);
    EXPECT_GT(failed, 1000);
}

TEST(Fuzz, HostileExpressionsFailCleanly)
{
    const std::string head = std::string(kHeader) + "  - compute: \"";
    const std::vector<std::string> exprs = {
        "C[i, j] += " + std::string(5000, '-') + "A[i, k] * B[k, j]",
        "C[i, j] += A[i, k] * B[k, j]" + std::string(3000, '+'),
        "C[i, j] += A[i, k*9223372036854775807] * B[k, j]",
        "C[i, j] += A[i, 9223372036854775807 + 1] * B[k, j]",
        "C[i, j] += A[i, -9223372036854775807 - 1 - k] * B[k, j]",
        "C[i, j] += A[i, k] * B[k, j]" + std::string(1000, ']'),
        "C[" + std::string(1000, '[') + "i, j] += A[i, k] * B[k, j]",
        "C[i, j] += A[i, k] * B[k, j] * 1e999",
        "C[i, j] += A[i, k] * B[k, j] * .",
        "C[i, j] +=",
        "C[i, j]",
        "[",
    };
    for (const std::string& e : exprs) {
        Result<Kernel> r = parseKernel(head + e + "\"\n", "k.yaml");
        ASSERT_FALSE(r.ok()) << e.substr(0, 80);
        EXPECT_EQ(r.errors().front().loc.line, 11) << r.errorText();
        EXPECT_GE(r.errors().front().loc.column, 15) << r.errorText();
    }
}

} // namespace
