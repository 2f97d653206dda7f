// The tile model: output tiles per iteration of the outer loops and the input regions resident
// meanwhile, by interval evaluation of the loop nest's index expressions (IndexPool::range).
#include "analysis/tiles.h"

#include <algorithm>
#include <climits>
#include <numeric>
#include <set>

namespace loopscope::analysis {

using lower::Buffer;
using lower::IndexId;
using lower::kNoIndex;
using lower::LoopNest;
using lower::Stmt;

TileModel TileModel::build(std::shared_ptr<const LoopNest> nestPtr)
{
    TileModel m;
    if (!nestPtr || !nestPtr->kernel || !nestPtr->target) {
        m.m_message = "No loop nest to show tiles of.";
        return m;
    }
    m.m_nest = std::move(nestPtr);
    const LoopNest& n = *m.m_nest;
    const ir::Kernel& k = *n.kernel;
    if (k.stages.empty() || n.root < 0 || static_cast<size_t>(n.root) >= n.stmts.size()) {
        m.m_message = "The kernel has no stage to show.";
        return m;
    }
    const ir::Stage& last = k.stages.back();
    const int outTensor = last.output.tensor;
    if (outTensor < 0 || static_cast<size_t>(outTensor) >= k.tensors.size()) {
        m.m_message = "The last stage has no output tensor.";
        return m;
    }
    const ir::Tensor& out = k.tensors[outTensor];
    m.m_output.tensor = outTensor;
    m.m_output.name = out.name;
    m.m_output.shape = out.shape;
    for (size_t d = 0; d < out.shape.size(); ++d) {
        std::string name = "dim " + std::to_string(d);
        if (d < last.output.index.size() && last.output.index[d].terms.size() == 1) {
            const int axis = last.output.index[d].terms[0].axis;
            if (axis >= 0 && static_cast<size_t>(axis) < last.axes.size())
                name = last.axes[axis].name;
        }
        m.m_output.dimNames.push_back(name);
    }

    // Parents of every statement reachable from the root, in preorder.
    m.m_parent.assign(n.stmts.size(), -1);
    m.m_reachable.assign(n.stmts.size(), false);
    std::vector<int> stack = {n.root};
    m.m_reachable[n.root] = true;
    std::vector<int> preorder;
    while (!stack.empty()) {
        const int id = stack.back();
        stack.pop_back();
        preorder.push_back(id);
        const Stmt& s = n.stmts[id];
        for (auto it = s.body.rbegin(); it != s.body.rend(); ++it) {
            const int c = *it;
            if (c < 0 || static_cast<size_t>(c) >= n.stmts.size() || m.m_reachable[c])
                continue;
            m.m_reachable[c] = true;
            m.m_parent[c] = id;
            stack.push_back(c);
        }
    }
    auto validBuffer = [&](int b) { return b >= 0 && static_cast<size_t>(b) < n.buffers.size(); };
    for (int id : preorder) {
        const Stmt& s = n.stmts[id];
        // Helpers (tensorize's initial accumulator row on the host) are not the output's computation.
        if ((s.kind == Stmt::Kind::Compute || s.kind == Stmt::Kind::AccStore) && !s.helper && validBuffer(s.buffer)
            && n.buffers[s.buffer].tensor == outTensor && n.buffers[s.buffer].role != Buffer::Role::Accumulator)
            m.m_writers.push_back(id);
    }
    if (m.m_writers.empty()) {
        m.m_message = "Nothing in the loop nest writes " + out.name + ".";
        return m;
    }

    // The tile: what one iteration of the loops outside the innermost on-chip buffer around
    // the last stage's update writes; without one, the loops outside its accumulator. Slots
    // belong to loop variables, so the store's index, evaluated with the outer loops fixed and
    // the others free, is that iteration's tile even when the store runs in loops of its own
    // after the reduction.
    const int lastStage = static_cast<int>(k.stages.size()) - 1;
    int anchor = -1;
    for (int id : preorder)
        if ((n.stmts[id].kind == Stmt::Kind::Compute || n.stmts[id].kind == Stmt::Kind::Matmul) && !n.stmts[id].helper
            && n.stmts[id].stage == lastStage) {
            anchor = id;
            break;
        }
    if (anchor < 0)
        anchor = m.m_writers.front();
    std::vector<int> chain;
    for (int x = anchor; x >= 0; x = m.m_parent[x])
        chain.push_back(x);
    std::reverse(chain.begin(), chain.end());
    auto nearestFor = [&](int id) {
        for (int x = m.m_parent[id]; x >= 0; x = m.m_parent[x])
            if (n.stmts[x].kind == Stmt::Kind::For)
                return x;
        return -1;
    };
    int onChip = -1, accumulator = -1;
    for (size_t i = 0; i < chain.size(); ++i) {
        const Stmt& s = n.stmts[chain[i]];
        if (s.kind != Stmt::Kind::Alloc || !validBuffer(s.buffer))
            continue;
        const Buffer& b = n.buffers[s.buffer];
        if (b.rollDim >= 0) {
            // A sliding cache is allocated outside its loop but refilled (in part) by each of
            // its iterations: that loop steps its tiles.
            for (size_t j = i + 1; j < chain.size(); ++j)
                if (n.stmts[chain[j]].kind == Stmt::Kind::For && n.stmts[chain[j]].stage == b.atStage && n.stmts[chain[j]].var == b.atVar)
                    onChip = chain[j];
            continue;
        }
        if (nearestFor(chain[i]) < 0)
            continue;
        if (b.role == Buffer::Role::Accumulator)
            accumulator = nearestFor(chain[i]);
        if (b.role != Buffer::Role::Home && b.level >= 0)
            onChip = nearestFor(chain[i]);
    }
    m.m_tilePoint = onChip >= 0 ? onChip : accumulator >= 0 ? accumulator : nearestFor(anchor);
    if (m.m_tilePoint < 0)
        m.m_tilePoint = n.root;
    for (int x = m.m_tilePoint; x >= 0; x = m.m_parent[x]) {
        const Stmt& s = n.stmts[x];
        if (s.kind == Stmt::Kind::For)
            m.m_outer.push_back({s.name, s.slot, std::max<int64_t>(1, s.extent), s.reduction});
    }
    std::reverse(m.m_outer.begin(), m.m_outer.end());
    m.m_positions = 1;
    for (const TileLoop& l : m.m_outer) {
        if (m.m_positions > INT_MAX / l.extent) {
            m.m_positions = INT_MAX;
            m.m_truncated = true;
            break;
        }
        m.m_positions *= l.extent;
    }
    if (m.m_positions <= kMaxPrecomputed) {
        m.m_tiles.reserve(m.m_positions);
        for (int64_t p = 0; p < m.m_positions; ++p)
            m.m_tiles.push_back(m.computeTile(p));
    }

    // The accelerator's instructions that compute the output inside one position.
    for (int id : preorder) {
        const Stmt& s = n.stmts[id];
        if (s.kind != Stmt::Kind::Matmul || s.op < 0 || static_cast<size_t>(s.op) >= n.matmuls.size() || !m.isAncestor(m.m_tilePoint, id))
            continue;
        const lower::MatmulOp& op = n.matmuls[s.op];
        if (!validBuffer(op.c) || n.buffers[op.c].tensor != outTensor || op.cIndex.size() != out.shape.size())
            continue;
        m.m_matmuls.push_back(id);
        m.m_weightStationary = op.dataflow == sched::Dataflow::WeightStationary;
    }

    // Inputs: what the last stage reads first, then the others.
    std::vector<int> order;
    auto addTensor = [&](int t) {
        if (t >= 0 && t != outTensor && std::find(order.begin(), order.end(), t) == order.end())
            order.push_back(t);
    };
    for (const ir::Access& a : last.loads())
        addTensor(a.tensor);
    for (const ir::Stage& st : k.stages)
        for (const ir::Access& a : st.loads())
            addTensor(a.tensor);
    for (int t : order) {
        TileInput in;
        in.tensor = t;
        in.name = k.tensors[t].name;
        in.shape = k.tensors[t].shape;
        m.buildInput(in);
        m.m_inputs.push_back(std::move(in));
    }
    return m;
}

void TileModel::buildInput(TileInput& in) const
{
    const LoopNest& n = *m_nest;
    const ir::Kernel& k = *n.kernel;
    const int t = in.tensor;
    in.dimNames.assign(in.shape.size(), std::string());
    for (const ir::Stage& st : k.stages)
        for (const ir::Access& a : st.loads())
            if (a.tensor == t)
                for (size_t d = 0; d < a.index.size() && d < in.dimNames.size(); ++d)
                    if (in.dimNames[d].empty()) {
                        const std::string s = ir::affineToString(st, a.index[d]);
                        if (!s.empty() && s.size() <= 14)
                            in.dimNames[d] = s;
                    }
    for (size_t d = 0; d < in.dimNames.size(); ++d)
        if (in.dimNames[d].empty())
            in.dimNames[d] = "dim " + std::to_string(d);

    std::set<int> outerSlots;
    for (const TileLoop& l : m_outer)
        outerSlots.insert(l.slot);
    for (size_t id = 0; id < n.stmts.size(); ++id) {
        const Stmt& s = n.stmts[id];
        if (!m_reachable[id] || s.buffer < 0 || static_cast<size_t>(s.buffer) >= n.buffers.size())
            continue;
        const Buffer& b = n.buffers[s.buffer];
        if (b.tensor != t || b.role == Buffer::Role::Home)
            continue;
        if (s.kind != Stmt::Kind::Alloc || b.level < 0 || static_cast<size_t>(b.level) >= n.target->levels.size()
            || b.shape.size() != in.shape.size())
            continue;
        TileBuffer a;
        a.stmt = static_cast<int>(id);
        a.buffer = s.buffer;
        const bool ancestor = isAncestor(a.stmt, m_tilePoint) && a.stmt != m_tilePoint;
        const bool inside = isAncestor(m_tilePoint, a.stmt);
        if (!ancestor && !inside)
            continue;  // lives in another branch: not while this tile is computed
        // A cache's copy that fills it (or writes it back) gives its exact region; an
        // intermediate has none (copies out of it are its readers' caches, a part of it).
        std::vector<int> todo;
        if (b.role == Buffer::Role::Cache)
            todo.assign(s.body.begin(), s.body.end());
        for (size_t next = 0; next < todo.size() && a.copy < 0; ++next) {
            const int c = todo[next];
            if (c < 0 || static_cast<size_t>(c) >= n.stmts.size())
                continue;
            const Stmt& cs = n.stmts[c];
            if (cs.kind == Stmt::Kind::Copy && (b.write ? cs.src == s.buffer && cs.buffer != s.buffer : cs.buffer == s.buffer && cs.src != s.buffer))
                a.copy = c;
            else if (cs.kind != Stmt::Kind::Alloc || cs.buffer != s.buffer)
                todo.insert(todo.end(), cs.body.begin(), cs.body.end());
        }
        if (b.rollDim >= 0) {
            // A sliding cache: it holds its window; its copies are the whole first tile and the new parts.
            a.copy = -1;
            for (size_t c = 0; c < n.stmts.size(); ++c)
                if (n.stmts[c].kind == Stmt::Kind::Copy && n.stmts[c].buffer == s.buffer && n.stmts[c].slidePart == 1)
                    a.slideCopy = static_cast<int>(c);
            for (const Stmt& f : n.stmts)
                if (f.kind == Stmt::Kind::For && f.stage == b.atStage && f.var == b.atVar)
                    for (size_t i = 0; i < m_outer.size(); ++i)
                        if (m_outer[i].slot == f.slot && m_outer[i].name == f.name)
                            a.slideLoop = static_cast<int>(i);
        }
        std::vector<int> used;
        if (b.rollDim >= 0) {
            for (IndexId e : b.window.min)
                n.index.slotsOf(e, used);
            for (IndexId e : b.window.count)
                n.index.slotsOf(e, used);
        } else if (a.copy >= 0) {
            for (IndexId e : n.stmts[a.copy].region.min)
                n.index.slotsOf(e, used);
            for (IndexId e : n.stmts[a.copy].region.count)
                n.index.slotsOf(e, used);
        } else {
            for (IndexId e : b.origin)
                if (e != kNoIndex)
                    n.index.slotsOf(e, used);
        }
        a.exact = std::all_of(used.begin(), used.end(), [&](int slot) { return outerSlots.count(slot) > 0; });
        for (int x = m_parent[a.stmt]; x >= 0 && a.innermostOuter < 0; x = m_parent[x])
            if (n.stmts[x].kind == Stmt::Kind::For)
                for (size_t i = 0; i < m_outer.size(); ++i)
                    if (m_outer[i].slot == n.stmts[x].slot && n.stmts[x].name == m_outer[i].name)
                        a.innermostOuter = static_cast<int>(i);
        in.buffers.push_back(a);
    }
    for (const Buffer& b : n.buffers)
        if (b.tensor == t && b.role == Buffer::Role::Home && b.level >= 0 && static_cast<size_t>(b.level) < n.target->levels.size())
            in.homeLevel = n.target->levels[b.level].name;
}

std::vector<int64_t> TileModel::loopValues(int64_t position) const
{
    std::vector<int64_t> v(m_outer.size(), 0);
    for (size_t i = m_outer.size(); i-- > 0;) {
        const int64_t e = std::max<int64_t>(1, m_outer[i].extent);
        v[i] = position % e;
        position /= e;
    }
    return v;
}

std::vector<Interval> TileModel::slotRanges(const std::vector<int64_t>& values) const
{
    // An outer loop at one value, every other loop over its whole range.
    const LoopNest& n = *m_nest;
    std::vector<Interval> slots(n.slotNames.size());
    for (size_t s = 0; s < slots.size(); ++s)
        slots[s] = {0, s < n.slotExtents.size() ? std::max<int64_t>(0, n.slotExtents[s] - 1) : 0};
    for (size_t i = 0; i < m_outer.size() && i < values.size(); ++i)
        if (m_outer[i].slot >= 0 && static_cast<size_t>(m_outer[i].slot) < slots.size())
            slots[m_outer[i].slot] = Interval::point(values[i]);
    return slots;
}

Box TileModel::computeTile(int64_t position) const
{
    const LoopNest& n = *m_nest;
    const std::vector<Interval> slots = slotRanges(loopValues(position));
    Box box = Box::none(m_output.shape.size());
    for (int w : m_writers) {
        const Stmt& s = n.stmts[w];
        if (s.index.size() != m_output.shape.size() || !mayRun(w, slots))
            continue;  // e.g. the rest of a partial tile of an inner split
        for (size_t d = 0; d < s.index.size(); ++d)
            box.dims[d] = box.dims[d].hull(n.index.range(s.index[d], slots));
    }
    return box.clipped(m_output.shape);
}

Box TileModel::outputTile(int64_t position) const
{
    if (!ok())
        return {};
    if (position >= 0 && position < static_cast<int64_t>(m_tiles.size()))
        return m_tiles[position];
    return computeTile(position);
}

const TileInput* TileModel::input(const std::string& name) const
{
    for (const TileInput& in : m_inputs)
        if (in.name == name)
            return &in;
    return nullptr;
}

bool TileModel::mayRun(int stmt, const std::vector<Interval>& slots) const
{
    const LoopNest& n = *m_nest;
    for (int x = m_parent[stmt]; x >= 0; x = m_parent[x]) {
        if (n.stmts[x].kind != Stmt::Kind::If)
            continue;
        for (const lower::Cond& c : n.stmts[x].conds) {
            const Interval e = n.index.range(c.expr, slots);
            if (c.lo != kNoIndex && e.hi < n.index.range(c.lo, slots).lo)
                return false;
            if (c.hi != kNoIndex && e.lo > n.index.range(c.hi, slots).hi)
                return false;
        }
    }
    return true;
}

bool TileModel::isAncestor(int a, int b) const
{
    for (int x = b; x >= 0; x = m_parent[x])
        if (x == a)
            return true;
    return false;
}

Box TileModel::regionOf(const TileInput& in, const TileBuffer& a, const std::vector<Interval>& slots) const
{
    const LoopNest& n = *m_nest;
    const Buffer& b = n.buffers[a.buffer];
    const size_t dims = in.shape.size();
    Box box;
    box.dims.assign(dims, Interval{0, -1});
    if (a.copy >= 0 && !mayRun(a.copy, slots))
        return box;  // the copy does not run at this step: nothing is held
    const lower::Region* region = b.rollDim >= 0 ? &b.window : a.copy >= 0 ? &n.stmts[a.copy].region : nullptr;
    if (region && region->min.size() == dims)
        return boxOf(in, *region, slots);
    if (b.shape.size() == dims) {
        for (size_t d = 0; d < dims; ++d) {
            const Interval origin = d < b.origin.size() && b.origin[d] != kNoIndex ? n.index.range(b.origin[d], slots) : Interval::point(0);
            const int64_t step = d < b.step.size() ? std::max<int64_t>(1, b.step[d]) : 1;
            box.dims[d] = {origin.lo, origin.hi + (b.shape[d] - 1) * step, std::gcd(step, origin.step())};
        }
    }
    return box.clipped(in.shape);
}

Box TileModel::boxOf(const TileInput& in, const lower::Region& r, const std::vector<Interval>& slots) const
{
    const LoopNest& n = *m_nest;
    const size_t dims = in.shape.size();
    Box box;
    box.dims.assign(dims, Interval{0, -1});
    // min + (count - 1) * step, per dimension, over every value the loops can take.
    for (size_t d = 0; d < dims && d < r.min.size(); ++d) {
        const Interval lo = n.index.range(r.min[d], slots);
        const Interval count = d < r.count.size() ? n.index.range(r.count[d], slots) : Interval::point(1);
        const int64_t step = d < r.step.size() ? std::max<int64_t>(1, r.step[d]) : 1;
        if (count.hi <= 0)
            return box;
        box.dims[d] = {lo.lo, lo.hi + (count.hi - 1) * step, std::gcd(step, lo.step())};
    }
    return box.clipped(in.shape);
}

std::vector<ResidentRegion> TileModel::residents(const TileInput& in, int64_t position) const
{
    std::vector<ResidentRegion> out;
    if (!ok())
        return out;
    const LoopNest& n = *m_nest;
    const std::vector<int64_t> values = loopValues(position);
    const std::vector<Interval> slots = slotRanges(values);
    for (const TileBuffer& a : in.buffers) {
        const Buffer& b = n.buffers[a.buffer];
        ResidentRegion r;
        r.levelIndex = b.level;
        r.level = n.target->levels[b.level].name;
        r.buffer = b.name;
        r.box = regionOf(in, a, slots);
        r.exact = a.exact;
        r.bytes = b.bytes();
        if (a.slideCopy >= 0) {
            // Its fills run once per iteration of its loop, before the loops inside it: the
            // first iteration fetches the whole window, a later one the new part (the rest is
            // kept), and the positions inside one iteration fetch nothing. A position spanning
            // several iterations fetched all it holds.
            r.slides = true;
            r.fetched = r.box;
            if (a.slideLoop >= 0) {
                bool first = true;
                for (size_t i = a.slideLoop + 1; i < values.size(); ++i)
                    first = first && values[i] == 0;
                if (!first)
                    r.fetched = Box::none(in.shape.size());
                else if (values[a.slideLoop] >= 1)
                    r.fetched = mayRun(a.slideCopy, slots) ? boxOf(in, n.stmts[a.slideCopy].region, slots) : Box::none(in.shape.size());
            }
        }
        if (b.doubleBuffer && a.innermostOuter >= 0) {
            // The iteration after this one of the loops the buffer sits in, carrying.
            std::vector<int64_t> next = values;
            int i = a.innermostOuter;
            while (i >= 0) {
                if (++next[i] < m_outer[i].extent)
                    break;
                next[i] = 0;
                --i;
            }
            if (i >= 0) {
                r.prefetches = true;
                r.next = regionOf(in, a, slotRanges(next));
            }
        }
        out.push_back(std::move(r));
    }
    std::stable_sort(out.begin(), out.end(), [](const ResidentRegion& x, const ResidentRegion& y) { return x.levelIndex < y.levelIndex; });
    return out;
}

} // namespace loopscope::analysis

namespace loopscope::analysis {

int64_t TileModel::arrayDim() const
{
    if (m_matmuls.empty() || !m_nest->target->compute.peArray)
        return 0;
    return m_nest->target->compute.peArray->rows;
}

std::vector<ArrayBlock> TileModel::arrayBlocks(int64_t position) const
{
    std::vector<ArrayBlock> out;
    if (!ok() || m_matmuls.empty())
        return out;
    const LoopNest& n = *m_nest;
    const size_t slotCount = n.slotNames.size();
    std::vector<int64_t> values(slotCount, 0);
    const std::vector<int64_t> outer = loopValues(position);
    for (size_t i = 0; i < m_outer.size(); ++i)
        if (m_outer[i].slot >= 0 && static_cast<size_t>(m_outer[i].slot) < slotCount)
            values[m_outer[i].slot] = outer[i];
    int64_t budget = kMaxInstructions;
    for (int id : m_matmuls) {
        const lower::MatmulOp& op = n.matmuls[n.stmts[id].op];
        // The loops between the tile point and the instruction, outermost first.
        std::vector<int> loops;
        for (int x = m_parent[id]; x >= 0 && x != m_tilePoint; x = m_parent[x])
            if (n.stmts[x].kind == Stmt::Kind::For)
                loops.push_back(x);
        std::reverse(loops.begin(), loops.end());
        std::vector<int64_t> counter(loops.size(), 0);
        while (budget-- > 0) {
            for (size_t i = 0; i < loops.size(); ++i)
                values[n.stmts[loops[i]].slot] = counter[i];
            for (int sl : {op.slotI, op.slotJ, op.slotK})
                if (sl >= 0 && static_cast<size_t>(sl) < slotCount)
                    values[sl] = 0;
            std::vector<Interval> slots(slotCount);
            for (size_t sl = 0; sl < slotCount; ++sl)
                slots[sl] = Interval::point(values[sl]);
            if (mayRun(id, slots)) {
                auto valid = [&](IndexId e, int64_t whole) { return e == kNoIndex ? whole : std::clamp<int64_t>(n.index.eval(e, values.data()), 0, whole); };
                ArrayBlock b;
                b.rows = valid(op.rows, op.extentI);
                b.cols = valid(op.cols, op.extentJ);
                b.depth = valid(op.depth, op.extentK);
                b.peRows = m_weightStationary ? b.depth : b.rows;
                b.peCols = b.cols;
                b.instructions = 1;
                auto span = [&](int sl, int64_t count) {
                    if (sl >= 0 && static_cast<size_t>(sl) < slotCount)
                        slots[sl] = {0, std::max<int64_t>(0, count - 1)};
                };
                span(op.slotI, b.rows);
                span(op.slotJ, b.cols);
                span(op.slotK, b.depth);
                b.out = Box::none(op.cIndex.size());
                for (size_t d = 0; d < op.cIndex.size(); ++d)
                    b.out.dims[d] = n.index.range(op.cIndex[d], slots);
                b.out = b.out.clipped(m_output.shape);
                auto same = [&](const ArrayBlock& o) { return o.out == b.out && o.peRows == b.peRows && o.peCols == b.peCols; };
                auto it = std::find_if(out.begin(), out.end(), same);
                if (it != out.end())
                    ++it->instructions;
                else if (b.rows > 0 && b.cols > 0 && b.depth > 0 && !b.out.empty())
                    out.push_back(std::move(b));
            }
            // Next values of the loops (the innermost fastest).
            size_t i = loops.size();
            while (i-- > 0) {
                if (++counter[i] < std::max<int64_t>(1, n.stmts[loops[i]].extent))
                    break;
                counter[i] = 0;
            }
            if (i == static_cast<size_t>(-1))
                break;
        }
    }
    return out;
}

} // namespace loopscope::analysis
