// Kernel IR helpers: dtypes, queries on stages and kernels, and printing expressions.
#include "ir/kernel.h"

#include <charconv>
#include <cmath>
#include <limits>

namespace loopscope::ir {

int dtypeBytes(DType t)
{
    switch (t) {
    case DType::Int8: return 1;
    case DType::Int16: return 2;
    case DType::Int32: return 4;
    case DType::Float32: return 4;
    }
    return 4;
}

const char* dtypeName(DType t)
{
    switch (t) {
    case DType::Int8: return "int8";
    case DType::Int16: return "int16";
    case DType::Int32: return "int32";
    case DType::Float32: return "float32";
    }
    return "?";
}

bool parseDType(const std::string& name, DType& out)
{
    static const DType all[] = {DType::Int8, DType::Int16, DType::Int32, DType::Float32};
    for (DType t : all) {
        if (name == dtypeName(t)) {
            out = t;
            return true;
        }
    }
    return false;
}

bool isFloat(DType t)
{
    return t == DType::Float32;
}

int64_t dtypeMin(DType t)
{
    switch (t) {
    case DType::Int8: return std::numeric_limits<int8_t>::min();
    case DType::Int16: return std::numeric_limits<int16_t>::min();
    case DType::Int32: return std::numeric_limits<int32_t>::min();
    case DType::Float32: return 0;
    }
    return 0;
}

int64_t dtypeMax(DType t)
{
    switch (t) {
    case DType::Int8: return std::numeric_limits<int8_t>::max();
    case DType::Int16: return std::numeric_limits<int16_t>::max();
    case DType::Int32: return std::numeric_limits<int32_t>::max();
    case DType::Float32: return 0;
    }
    return 0;
}

int64_t Tensor::elements() const
{
    int64_t n = 1;
    for (int64_t d : shape)
        n *= d;
    return n;
}

int64_t AffineExpr::eval(const int64_t* x) const
{
    int64_t v = constant;
    for (const Term& t : terms)
        v += t.coeff * x[t.axis];
    return v;
}

int AffineExpr::plainAxis() const
{
    return terms.size() == 1 && terms[0].coeff == 1 && constant == 0 ? terms[0].axis : -1;
}

int64_t AffineExpr::coeffOf(int axis) const
{
    int64_t c = 0;
    for (const Term& t : terms) {
        if (t.axis == axis)
            c += t.coeff;
    }
    return c;
}

ExprPtr Expr::makeConst(int64_t v)
{
    auto e = std::make_shared<Expr>();
    e->kind = Kind::Const;
    e->intValue = v;
    e->floatValue = static_cast<double>(v);
    return e;
}

ExprPtr Expr::makeFloatConst(double v)
{
    auto e = std::make_shared<Expr>();
    e->kind = Kind::Const;
    e->floatValue = v;
    e->isFloatConst = true;
    return e;
}

ExprPtr Expr::makeLoad(Access acc)
{
    auto e = std::make_shared<Expr>();
    e->kind = Kind::Load;
    e->access = std::move(acc);
    return e;
}

ExprPtr Expr::makeBinary(Kind k, ExprPtr a, ExprPtr b)
{
    auto e = std::make_shared<Expr>();
    e->kind = k;
    e->a = std::move(a);
    e->b = std::move(b);
    return e;
}

ExprPtr Expr::makeNeg(ExprPtr a)
{
    auto e = std::make_shared<Expr>();
    e->kind = Kind::Neg;
    e->a = std::move(a);
    return e;
}

int Stage::spatialCount() const
{
    int n = 0;
    for (const Axis& a : axes) {
        if (!a.reduction)
            ++n;
    }
    return n;
}

int Stage::findAxis(const std::string& axisName) const
{
    for (size_t i = 0; i < axes.size(); ++i) {
        if (axes[i].name == axisName)
            return static_cast<int>(i);
    }
    return -1;
}

void visitLoads(const Expr* e, const std::function<void(const Access&)>& f)
{
    if (!e)
        return;
    if (e->kind == Expr::Kind::Load) {
        f(e->access);
        return;
    }
    visitLoads(e->a.get(), f);
    visitLoads(e->b.get(), f);
}

std::vector<Access> Stage::loads() const
{
    std::vector<Access> out;
    visitLoads(value.get(), [&](const Access& a) { out.push_back(a); });
    return out;
}

int Kernel::findTensor(const std::string& tensorName) const
{
    for (size_t i = 0; i < tensors.size(); ++i) {
        if (tensors[i].name == tensorName)
            return static_cast<int>(i);
    }
    return -1;
}

int Kernel::findStage(const std::string& stageName) const
{
    for (size_t i = 0; i < stages.size(); ++i) {
        if (stages[i].name == stageName)
            return static_cast<int>(i);
    }
    return -1;
}

int Kernel::producerOf(int tensor) const
{
    for (size_t i = 0; i < stages.size(); ++i) {
        if (stages[i].output.tensor == tensor)
            return static_cast<int>(i);
    }
    return -1;
}

namespace {

/// Whether a stage reads a tensor, through its value or its requantize parameters.
bool stageReads(const Stage& s, int tensor)
{
    bool reads = false;
    visitLoads(s.value.get(), [&](const Access& a) { reads = reads || a.tensor == tensor; });
    if (reads)
        return true;
    if (s.requant) {
        const Requantize& q = *s.requant;
        if (q.bias == tensor || q.multiplier.tensor == tensor || q.shift.tensor == tensor)
            return true;
    }
    return false;
}

} // namespace

bool Kernel::isIntermediate(int tensor) const
{
    int p = producerOf(tensor);
    if (p < 0)
        return false;
    for (size_t i = static_cast<size_t>(p) + 1; i < stages.size(); ++i) {
        if (stageReads(stages[i], tensor))
            return true;
    }
    return false;
}

bool Kernel::isInput(int tensor) const
{
    if (producerOf(tensor) >= 0)
        return false;
    for (const Stage& s : stages) {
        if (stageReads(s, tensor))
            return true;
    }
    return false;
}

bool Kernel::isOutput(int tensor) const
{
    return producerOf(tensor) >= 0 && !isIntermediate(tensor);
}

bool Kernel::isFloatKernel() const
{
    // The parser rejects kernels that mix float32 and integer stages, so the first stage decides.
    if (!stages.empty() && stages.front().output.tensor >= 0
        && stages.front().output.tensor < static_cast<int>(tensors.size()))
        return isFloat(tensors[stages.front().output.tensor].dtype);
    for (const Tensor& t : tensors) {
        if (isFloat(t.dtype))
            return true;
    }
    return false;
}

int64_t Kernel::macs() const
{
    int64_t total = 0;
    for (const Stage& s : stages) {
        if (!s.accumulate)
            continue;
        int64_t n = 1;
        for (const Axis& a : s.axes)
            n *= a.extent;
        total += n;
    }
    return total;
}

namespace {

int precedence(Expr::Kind k)
{
    switch (k) {
    case Expr::Kind::Add:
    case Expr::Kind::Sub: return 1;
    case Expr::Kind::Mul: return 2;
    case Expr::Kind::Neg: return 3;
    case Expr::Kind::Const:
    case Expr::Kind::Load: return 4;
    }
    return 4;
}

std::string floatLiteral(double v)
{
    char buf[64];
    auto r = std::to_chars(buf, buf + sizeof buf, v);
    std::string s(buf, r.ptr);
    // Keep the literal a float when read back: "2" would parse as an integer.
    if (std::isfinite(v) && s.find_first_of(".eEn") == std::string::npos)
        s += ".0";
    return s;
}

std::string constString(const Expr& e)
{
    if (e.isFloatConst)
        return floatLiteral(e.floatValue);
    return std::to_string(e.intValue);
}

std::string printExpr(const Kernel& k, const Stage& s, const Expr& e);

std::string operand(const Kernel& k, const Stage& s, const ExprPtr& p, int minPrec)
{
    if (!p)
        return "?";
    std::string text = printExpr(k, s, *p);
    int prec = precedence(p->kind);
    // A negative constant (a substituted parameter) reads back as unary minus.
    if (p->kind == Expr::Kind::Const && !text.empty() && text[0] == '-')
        prec = precedence(Expr::Kind::Neg);
    if (prec < minPrec)
        return "(" + text + ")";
    return text;
}

std::string printExpr(const Kernel& k, const Stage& s, const Expr& e)
{
    switch (e.kind) {
    case Expr::Kind::Const: return constString(e);
    case Expr::Kind::Load: {
        std::string name = e.access.tensor >= 0 && e.access.tensor < static_cast<int>(k.tensors.size())
                               ? k.tensors[e.access.tensor].name
                               : std::string("?");
        std::string out = name + "[";
        for (size_t i = 0; i < e.access.index.size(); ++i) {
            if (i)
                out += ", ";
            out += affineToString(s, e.access.index[i]);
        }
        return out + "]";
    }
    case Expr::Kind::Neg: {
        std::string inner = operand(k, s, e.a, 3);
        // "--x" would read fine, but "-(-x)" is what a person writes.
        return !inner.empty() && inner[0] == '-' ? "-(" + inner + ")" : "-" + inner;
    }
    case Expr::Kind::Add:
    case Expr::Kind::Sub:
    case Expr::Kind::Mul: {
        int prec = precedence(e.kind);
        const char* op = e.kind == Expr::Kind::Add ? " + " : e.kind == Expr::Kind::Sub ? " - " : " * ";
        // Left-associative: the right operand needs parentheses at equal precedence, so that
        // the printed text parses back to the same tree (float sums are not associative).
        return operand(k, s, e.a, prec) + op + operand(k, s, e.b, prec + 1);
    }
    }
    return "?";
}

} // namespace

std::string exprToString(const Kernel& k, const Stage& s, const Expr& e)
{
    return printExpr(k, s, e);
}

std::string affineToString(const Stage& s, const AffineExpr& e)
{
    std::string out;
    for (const AffineExpr::Term& t : e.terms) {
        if (t.coeff == 0)
            continue;
        std::string name = t.axis >= 0 && t.axis < static_cast<int>(s.axes.size()) ? s.axes[t.axis].name
                                                                                    : std::string("?");
        // Unsigned magnitude: -INT64_MIN would overflow.
        uint64_t mag = t.coeff < 0 ? 0 - static_cast<uint64_t>(t.coeff) : static_cast<uint64_t>(t.coeff);
        std::string term = mag == 1 ? name : name + "*" + std::to_string(mag);
        if (out.empty())
            out = t.coeff < 0 ? "-" + term : term;
        else
            out += (t.coeff < 0 ? " - " : " + ") + term;
    }
    if (e.constant != 0 || out.empty()) {
        if (out.empty()) {
            out = std::to_string(e.constant);
        } else {
            uint64_t mag = e.constant < 0 ? 0 - static_cast<uint64_t>(e.constant) : static_cast<uint64_t>(e.constant);
            out += (e.constant < 0 ? " - " : " + ") + std::to_string(mag);
        }
    }
    return out;
}

} // namespace loopscope::ir
