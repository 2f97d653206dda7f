// Random tensorized schedules (see random_tensorize.h).
#include "support/random_tensorize.h"
#include "support/step_text.h"

#include "support/test_paths.h"

#include "ir/kernel.h"
#include "sched/tensorize.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>

namespace loopscope::test {

namespace {

using sched::Primitive;
using sched::Program;
using sched::Step;

struct Shape {
    std::string kernel;
    std::map<std::string, int64_t> params;
    std::string i, j, k;  ///< the axes of the block's rows, columns and depth
};

Shape randomShape(int n, Rng& rng)
{
    auto pick = [&](int64_t lo, int64_t hi) { return lo + rng.below(hi - lo + 1); };
    switch (n % 4) {
    case 0: return {"matmul_int8", {{"M", pick(1, 40)}, {"N", pick(1, 40)}, {"K", pick(1, 40)}}, "i", "j", "k"};
    case 1: return {"conv2d_int8", {{"H", pick(1, 7)}, {"W", pick(1, 20)}, {"C", pick(1, 34)}, {"K", pick(1, 34)}}, "ow", "k", "c"};
    case 2: return {"conv2d_s2_int8", {{"H", pick(2, 9)}, {"W", pick(2, 24)}, {"C", pick(1, 20)}, {"K", pick(1, 20)}}, "ow", "k", "c"};
    default: return {"pointwise_conv_int8", {{"H", pick(1, 5)}, {"W", pick(1, 20)}, {"C", pick(1, 40)}, {"K", pick(1, 40)}}, "w", "k", "c"};
    }
}

/// Applies `s` to `p`; false (p unchanged) when it does not apply.
bool tryApply(Program& p, const Step& s)
{
    sched::ApplyResult r = sched::apply(p, s);
    if (!r.ok())
        return false;
    p = std::move(r.program());
    return true;
}

std::optional<Program> attempt(const Program& initial, const Shape& shape, Rng& rng, int dim)
{
    Program p = initial;
    const auto& ss0 = p.stages[0];
    // Blocks: the lanes (j, k) split by DIM when wider, the rows (i) by any factor up to DIM.
    std::string bi = shape.i, bj = shape.j, bk = shape.k;
    auto split = [&](const std::string& loop, int64_t factor) {
        Step s = loopStep(Primitive::Split);
        s.loops = {loop};
        s.factor = factor;
        return tryApply(p, s);
    };
    const int64_t ei = ss0.vars[ss0.findVar(shape.i)].extent, ej = ss0.vars[ss0.findVar(shape.j)].extent,
                  ek = ss0.vars[ss0.findVar(shape.k)].extent;
    std::vector<std::string> outer;
    if (ei > dim || rng.chance(30)) {
        if (!split(shape.i, 1 + rng.below(std::min<int64_t>(ei, dim))))
            return std::nullopt;
        bi = shape.i + ".inner";
        outer.push_back(shape.i + ".outer");
    }
    for (auto* axis : {&shape.j, &shape.k}) {
        const int64_t e = axis == &shape.j ? ej : ek;
        std::string& b = axis == &shape.j ? bj : bk;
        if (e > dim) {
            if (!split(*axis, dim))
                return std::nullopt;
            b = *axis + ".inner";
            outer.push_back(*axis + ".outer");
        }
    }
    // The other loops of the stage stay outside the block.
    for (int v : p.stages[0].order) {
        const std::string& name = p.stages[0].vars[v].name;
        if (name != bi && name != bj && name != bk && std::find(outer.begin(), outer.end(), name) == outer.end())
            outer.push_back(name);
    }
    for (size_t i = outer.size(); i > 1; --i)
        std::swap(outer[i - 1], outer[rng.below(static_cast<int64_t>(i))]);
    Step order = loopStep(Primitive::Reorder);
    order.loops = outer;
    order.loops.insert(order.loops.end(), {bi, bj, bk});
    if (order.loops.size() >= 2 && !tryApply(p, order))
        return std::nullopt;
    // Caches: A and B at a random loop outside the block, the output at a spatial loop outside
    // every reduction loop (or root); sometimes double-buffered.
    const sched::StageSchedule ss = p.stages[0];
    const int n = static_cast<int>(ss.order.size());
    auto loopAt = [&](int pos) { return pos < 0 ? std::string("root") : ss.vars[ss.order[pos]].name; };
    int firstReduction = n - 3;
    for (int q = 0; q < n - 3; ++q)
        if (ss.vars[ss.order[q]].reduction) {
            firstReduction = q;
            break;
        }
    const ir::Stage& st = p.kernel->stages[0];
    auto loadsOf = st.loads();
    const std::string a = p.kernel->tensors[loadsOf[0].tensor].name, b = p.kernel->tensors[loadsOf[1].tensor].name;
    const std::string out = p.kernel->tensors[st.output.tensor].name;
    std::vector<std::pair<std::string, bool>> placed;
    for (const auto& [tensor, write] : {std::pair{a, false}, std::pair{b, false}, std::pair{out, true}}) {
        Step c = loopStep(write ? Primitive::CacheWrite : Primitive::CacheRead);
        c.tensor = tensor;
        c.level = write ? sched::kAccumulatorLevel : sched::kScratchpadLevel;
        const int limit = write ? firstReduction : n - 3;  // positions allowed: -1 .. limit - 1
        c.at = loopAt(static_cast<int>(rng.below(limit + 1)) - 1);
        if (!tryApply(p, c))
            return std::nullopt;
        placed.push_back({tensor, c.at != "root"});
    }
    for (const auto& [tensor, atLoop] : placed)
        if (atLoop && rng.chance(40)) {
            Step d = loopStep(Primitive::DoubleBuffer);
            d.tensor = tensor;
            tryApply(p, d);
        }
    Step tz = loopStep(Primitive::Tensorize);
    tz.loops = {bi, bj, bk};
    tz.intrinsic = sched::kGemminiMatmul;
    tz.dataflow = rng.chance(50) ? "weight_stationary" : "output_stationary";
    if (!tryApply(p, tz))
        return std::nullopt;
    return p;
}

} // namespace

const std::vector<std::string>& tensorizedKernels()
{
    static const std::vector<std::string> names = {"matmul_int8", "conv2d_int8", "conv2d_s2_int8", "pointwise_conv_int8"};
    return names;
}

sched::Program randomTensorized(int n, Rng& rng, std::shared_ptr<const hw::Target> target, int* tried)
{
    const int dim = target->compute.peArray ? target->compute.peArray->rows : 16;
    for (int t = 1; t <= 1000; ++t) {
        Shape shape = randomShape(n, rng);
        auto k = ir::loadKernelFile(kernelPath(shape.kernel), shape.params);
        if (!k.ok()) {
            ADD_FAILURE() << k.errorText();
            return {};
        }
        Program initial = Program::initial(std::make_shared<const ir::Kernel>(*k), target);
        if (auto p = attempt(initial, shape, rng, dim)) {
            if (tried)
                *tried = t;
            return *p;
        }
    }
    ADD_FAILURE() << "no tensorized schedule of " << tensorizedKernels()[n % 4] << " in 1000 attempts";
    return {};
}

} // namespace loopscope::test
