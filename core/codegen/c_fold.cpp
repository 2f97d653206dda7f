// <kernel>_prepare: the bias with the input offset folded in, once per set of weights (see
// c_fold.h and lower::OffsetFold).
#include "codegen/c_fold.h"

#include "codegen/c_codegen.h"

#include <algorithm>
#include <set>
#include <sstream>

namespace loopscope::codegen {

using lower::LoopNest;
using lower::OffsetFold;

namespace {

std::string param(const ir::Kernel& k, int t)
{
    const ir::Tensor& ten = k.tensors[t];
    return std::string("const ") + cType(ten.dtype) + " *LOOPSCOPE_RESTRICT " + cIdentifier(ten.name);
}

/// C names of the stage's axes, kept apart from the tensors' and the kernel's names.
std::vector<std::string> axisNames(const ir::Kernel& k, const ir::Stage& st)
{
    std::set<std::string> taken{cIdentifier(k.name), cIdentifier(k.name) + "_prepare", "sum"};
    for (const ir::Tensor& t : k.tensors) {
        taken.insert(cIdentifier(t.name));
        taken.insert(cIdentifier(t.name) + "_folded");
    }
    std::vector<std::string> out;
    for (const ir::Axis& a : st.axes) {
        std::string name = cIdentifier(a.name);
        while (taken.count(name))
            name += "_";
        taken.insert(name);
        out.push_back(name);
    }
    return out;
}

std::string affineC(const ir::AffineExpr& e, const std::vector<std::string>& names)
{
    std::string s;
    for (const auto& t : e.terms) {
        if (t.coeff == 0)
            continue;
        const std::string term = t.coeff == 1 ? names[t.axis] : std::to_string(t.coeff) + " * " + names[t.axis];
        s += s.empty() ? term : " + " + term;
    }
    if (e.constant != 0 || s.empty())
        s += s.empty() ? std::to_string(e.constant) : " + " + std::to_string(e.constant);
    return s;
}

} // namespace

std::string foldedBiasName(const LoopNest& nest, const OffsetFold& fold)
{
    return cIdentifier(nest.kernel->tensors[fold.bias].name) + "_folded";
}

std::vector<int> prepareInputs(const LoopNest& nest)
{
    std::set<int> in;
    for (const OffsetFold& f : nest.offsetFolds) {
        in.insert(f.weights);
        in.insert(f.bias);
    }
    return {in.begin(), in.end()};
}

std::string prepareSignatureC(const LoopNest& nest)
{
    const ir::Kernel& k = *nest.kernel;
    std::string s = "void " + cIdentifier(k.name) + "_prepare(";
    bool first = true;
    for (int t : prepareInputs(nest)) {
        s += (first ? "" : ", ") + param(k, t);
        first = false;
    }
    for (const OffsetFold& f : nest.offsetFolds)
        s += ", int32_t *LOOPSCOPE_RESTRICT " + foldedBiasName(nest, f);
    return s + ")";
}

std::string prepareFunctionC(const LoopNest& nest)
{
    if (nest.offsetFolds.empty())
        return "";
    const ir::Kernel& k = *nest.kernel;
    std::ostringstream os;
    os << "/* The biases with the input offsets folded in (docs/export.md): per output channel, bias + offset x the sum\n"
       << "   of the weights over the reduction, so that the kernel multiplies the raw inputs. Run once per set of\n"
       << "   weights; its instructions are not the kernel's. */\n"
       << prepareSignatureC(nest) << "\n{\n";
    for (const OffsetFold& f : nest.offsetFolds) {
        const ir::Stage& st = k.stages[f.stage];
        const ir::Tensor& w = k.tensors[f.weights];
        const std::vector<std::string> names = axisNames(k, st);
        // The stage's load of the weights (the fold's form guarantees one).
        ir::Access wAccess;
        for (const ir::Access& a : st.loads())
            if (a.tensor == f.weights)
                wAccess = a;
        std::string flat;
        for (size_t d = 0; d < wAccess.index.size(); ++d) {
            int64_t stride = 1;
            for (size_t e = d + 1; e < w.shape.size(); ++e)
                stride *= w.shape[e];
            const std::string e = affineC(wAccess.index[d], names);
            if (e == "0")
                continue;
            const bool sum = wAccess.index[d].terms.size() + (wAccess.index[d].constant != 0) > 1;
            const std::string term = stride == 1 ? e : (sum ? "(" + e + ")" : e) + " * " + std::to_string(stride);
            flat += flat.empty() ? term : " + " + term;
        }
        if (flat.empty())
            flat = "0";
        const std::string channel = affineC(*st.requant->channel, names);
        std::set<int> channelAxes;
        for (const auto& t : st.requant->channel->terms)
            channelAxes.insert(t.axis);
        std::string indent = "    ";
        std::vector<std::string> closes;
        os << indent << "/* " << st.name << ": " << foldedBiasName(nest, f) << "[" << channel << "] = " << k.tensors[f.bias].name << "[" << channel
           << "] + " << f.offset << " * (the sum of " << w.name << " over the reduction) */\n";
        auto open = [&](size_t a) {
            os << indent << "for (int " << names[a] << " = 0; " << names[a] << " < " << st.axes[a].extent << "; ++" << names[a] << ") {\n";
            indent += "    ";
        };
        size_t opened = 0;
        for (size_t a = 0; a < st.axes.size(); ++a)
            if (!st.axes[a].reduction && channelAxes.count(static_cast<int>(a))) {
                open(a);
                ++opened;
            }
        os << indent << "int32_t sum = 0;\n";
        const size_t outer = opened;
        for (size_t a = 0; a < st.axes.size(); ++a)
            if (st.axes[a].reduction) {
                open(a);
                ++opened;
            }
        os << indent << "sum += " << cIdentifier(w.name) << "[" << flat << "];\n";
        for (; opened > outer; --opened) {
            indent.resize(indent.size() - 4);
            os << indent << "}\n";
        }
        os << indent << foldedBiasName(nest, f) << "[" << channel << "] = " << cIdentifier(k.tensors[f.bias].name) << "[" << channel << "] + ("
           << f.offset << ") * sum;\n";
        for (; opened > 0; --opened) {
            indent.resize(indent.size() - 4);
            os << indent << "}\n";
        }
    }
    os << "}\n\n";
    return os.str();
}

std::string prepareNoteC(const LoopNest& nest)
{
    if (nest.offsetFolds.empty())
        return "";
    const ir::Kernel& k = *nest.kernel;
    const std::string kid = cIdentifier(k.name);
    std::ostringstream os;
    for (const OffsetFold& f : nest.offsetFolds) {
        const ir::Stage& st = k.stages[f.stage];
        os << " * Input offset folded into the bias (docs/export.md): " << st.name << " multiplies the raw " << k.tensors[f.input].name
           << " and takes as `" << cIdentifier(k.tensors[f.bias].name) << "` the output " << foldedBiasName(nest, f) << " of " << kid
           << "_prepare,\n *   " << k.tensors[f.bias].name << " + " << f.offset << " * (the sum of " << k.tensors[f.weights].name
           << " over the reduction) per channel: call it once per set of weights, and pass its result, not the model's bias.\n";
    }
    return os.str();
}

} // namespace loopscope::codegen
