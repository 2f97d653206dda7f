// Random hand-style schedules (see random_tiling.h).
#include "sched/random_tiling.h"

#include "ir/kernel.h"

#include <algorithm>
#include <map>

namespace loopscope::sched {

const std::vector<TilingKernel>& tilingKernels()
{
    static const std::vector<TilingKernel> kernels = {
        {"matmul_int8", {{"M", {8, 12, 16, 24}}, {"N", {8, 12, 16, 20}}, {"K", {16, 24, 32}}}},
        {"matmul_f32", {{"M", {8, 12, 16}}, {"N", {8, 12, 16}}, {"K", {8, 16, 24}}}},
        {"conv2d_int8", {{"H", {6, 8, 10}}, {"W", {6, 8}}, {"C", {4, 8, 16}}, {"K", {4, 8}}}},
        {"conv2d_s2_int8", {{"H", {8, 12}}, {"W", {8, 10}}, {"C", {4, 8}}, {"K", {4, 8}}}},
        {"depthwise_conv_int8", {{"H", {6, 8, 12}}, {"W", {6, 8}}, {"C", {4, 8, 16}}}},
        {"pointwise_conv_int8", {{"H", {4, 6, 8}}, {"W", {4, 8}}, {"C", {8, 16, 32}}, {"K", {4, 8, 16}}}},
        {"dense_int8", {{"B", {1, 2, 4}}, {"IN", {32, 64, 128}}, {"OUT", {8, 16, 24}}}},
        {"dense_int16", {{"B", {1, 2, 4}}, {"IN", {32, 64, 128}}, {"OUT", {8, 16, 24}}}},
        {"dwsep_conv", {{"H", {6, 8}}, {"W", {6, 8}}, {"C", {4, 8}}, {"K", {4, 8}}}},
    };
    return kernels;
}

namespace {

bool tryApply(Program& p, const Step& st)
{
    ApplyResult r = apply(p, st);
    if (!r.ok())
        return false;
    p = std::move(r.program());
    return true;
}

template <typename T>
void shuffle(std::vector<T>& v, Rng& rng)
{
    for (size_t i = v.size(); i > 1; --i)
        std::swap(v[i - 1], v[static_cast<size_t>(rng.below(static_cast<int64_t>(i)))]);
}

} // namespace

std::optional<Program> vectorizeAReduction(const Program& p, Rng& rng)
{
    const int s = static_cast<int>(p.stages.size()) - 1;
    const StageSchedule& ss = p.stages[s];
    std::vector<std::string> reductions;
    for (int v : ss.order)
        if (ss.vars[v].reduction && ss.vars[v].extent % 4 == 0)
            reductions.push_back(ss.vars[v].name);
    if (reductions.empty())
        return std::nullopt;
    const std::string r = reductions[static_cast<size_t>(rng.below(static_cast<int64_t>(reductions.size())))];
    Step split;
    split.primitive = Primitive::Split;
    split.stage = p.kernel->stages[s].name;
    split.loops = {r};
    split.factor = rng.chance(70) ? 4 : 8;
    Program q = p;
    if (!tryApply(q, split))
        return std::nullopt;
    Step reorder;
    reorder.primitive = Primitive::Reorder;
    reorder.stage = split.stage;
    for (int v : q.stages[s].order)
        if (q.stages[s].vars[v].name != r + ".inner")
            reorder.loops.push_back(q.stages[s].vars[v].name);
    reorder.loops.push_back(r + ".inner");
    Step vec;
    vec.primitive = Primitive::Vectorize;
    vec.stage = split.stage;
    vec.loops = {r + ".inner"};
    if (!tryApply(q, reorder) || !tryApply(q, vec))
        return std::nullopt;
    return q;
}

std::optional<Program> randomTiling(uint64_t n, const std::string& kernelDir, std::shared_ptr<const hw::Target> target, RandomTilingSource* source)
{
    Rng rng(0x7117 + n * 7919ull);
    const auto& kernels = tilingKernels();
    const TilingKernel& k = kernels[static_cast<size_t>(rng.below(static_cast<int64_t>(kernels.size())))];
    std::map<std::string, int64_t> params;
    for (const auto& [name, choices] : k.params)
        params[name] = choices[static_cast<size_t>(rng.below(static_cast<int64_t>(choices.size())))];
    auto kernel = ir::loadKernelFile(kernelDir + "/" + k.name + ".kernel.yaml", params);
    if (!kernel.ok())
        return std::nullopt;
    if (source)
        *source = {kernelDir + "/" + k.name + ".kernel.yaml", params};
    Program p = Program::initial(std::make_shared<const ir::Kernel>(*kernel), std::move(target));
    const int s = static_cast<int>(p.stages.size()) - 1;
    const std::string stage = p.kernel->stages.size() > 1 ? p.kernel->stages[s].name : "";
    auto step = [&](Primitive prim) {
        Step st;
        st.primitive = prim;
        st.stage = stage;
        return st;
    };
    // Tiles: split most spatial loops and some reductions, by a factor that may not divide.
    std::vector<std::string> outers, inners, names;
    for (int v : p.stages[s].order)
        names.push_back(p.stages[s].vars[v].name);
    for (const auto& name : names) {
        const LoopVar* lv = nullptr;
        for (const auto& x : p.stages[s].vars)
            if (x.name == name)
                lv = &x;
        if (!lv || lv->extent < 4 || !rng.chance(lv->reduction ? 35 : 60)) {
            inners.push_back(name);
            continue;
        }
        static const int64_t factors[] = {2, 3, 4, 5, 8};
        int64_t f = factors[rng.below(5)];
        if (f >= lv->extent)
            f = 2;
        Step st = step(Primitive::Split);
        st.loops = {name};
        st.factor = f;
        if (tryApply(p, st)) {
            outers.push_back(name + ".outer");
            inners.push_back(name + ".inner");
        } else {
            inners.push_back(name);
        }
    }
    // The tile loops outermost, then the loops inside them, each in a random order.
    shuffle(outers, rng);
    shuffle(inners, rng);
    Step reorder = step(Primitive::Reorder);
    reorder.loops = outers;
    reorder.loops.insert(reorder.loops.end(), inners.begin(), inners.end());
    tryApply(p, reorder);
    if (rng.chance(35))
        if (std::optional<Program> v = vectorizeAReduction(p, rng))
            p = std::move(*v);
    // Unroll one or two small loops near the innermost.
    for (int u = 0; u < 2; ++u) {
        if (!rng.chance(u == 0 ? 50 : 25))
            continue;
        const auto& ss = p.stages[s];
        std::vector<std::string> candidates;
        for (size_t i = ss.order.size() >= 3 ? ss.order.size() - 3 : 0; i < ss.order.size(); ++i) {
            const LoopVar& lv = ss.vars[ss.order[i]];
            if (lv.extent <= 4 && lv.kind == LoopKind::Serial)
                candidates.push_back(lv.name);
        }
        if (candidates.empty())
            continue;
        Step st = step(Primitive::Unroll);
        st.loops = {candidates[static_cast<size_t>(rng.below(static_cast<int64_t>(candidates.size())))]};
        tryApply(p, st);
    }
    // Caches in the innermost memory level at a loop of the outer half (or the root).
    auto outerLoop = [&]() -> std::string {
        const auto& ss = p.stages[s];
        if (rng.chance(25) || ss.order.empty())
            return "root";
        const size_t half = std::max<size_t>(1, ss.order.size() / 2);
        return ss.vars[ss.order[static_cast<size_t>(rng.below(static_cast<int64_t>(half)))]].name;
    };
    std::vector<int> reads;
    for (const auto& a : effectiveLoads(p, s))
        if (std::find(reads.begin(), reads.end(), a.tensor) == reads.end())
            reads.push_back(a.tensor);
    const std::string onChip = p.target->levels.back().name;
    for (int c = 0; c < 2 && !reads.empty(); ++c) {
        if (!rng.chance(c == 0 ? 55 : 30))
            continue;
        Step st = step(Primitive::CacheRead);
        st.tensor = p.kernel->tensors[reads[static_cast<size_t>(rng.below(static_cast<int64_t>(reads.size())))]].name;
        st.level = onChip;
        st.at = outerLoop();
        if (rng.chance(15)) {
            const size_t rank = p.kernel->tensors[p.kernel->findTensor(st.tensor)].shape.size();
            for (size_t d = 0; d < rank; ++d)
                st.layout.push_back(static_cast<int64_t>(d));
            shuffle(st.layout, rng);
        }
        tryApply(p, st);
    }
    if (rng.chance(20)) {
        Step st = step(Primitive::CacheWrite);
        st.tensor = p.kernel->tensors[p.kernel->stages[s].output.tensor].name;
        st.level = onChip;
        st.at = outerLoop();
        tryApply(p, st);
    }
    if (!p.caches.empty() && rng.chance(25)) {
        const CacheStage& c = p.caches[static_cast<size_t>(rng.below(static_cast<int64_t>(p.caches.size())))];
        Step st = step(Primitive::DoubleBuffer);
        st.tensor = p.kernel->tensors[c.tensor].name;
        st.level = p.target->levels[c.level].name;
        tryApply(p, st);
    }
    // Two stages: sometimes the producer computed at a consumer loop.
    if (p.stages.size() > 1 && rng.chance(50)) {
        Step st = step(Primitive::ComputeAt);
        st.producer = p.kernel->stages[0].name;
        st.at = outerLoop();
        if (rng.chance(50))
            st.level = onChip;
        tryApply(p, st);
    }
    return p;
}

} // namespace loopscope::sched
