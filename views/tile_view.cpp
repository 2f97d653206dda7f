// Tile view: derives the output tiles and the resident input regions from the loop nest (its
// index expressions evaluated over ranges of the loop counters) and draws them as 2-D grids.
#include "tile_view.h"

#include "memory_view.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QPainter>
#include <QSlider>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <climits>
#include <cmath>
#include <set>
#include <tuple>

namespace loopscope::ui {

using lower::Buffer;
using lower::IndexId;
using lower::IndexPool;
using lower::kNoIndex;
using lower::LoopNest;
using lower::Stmt;

namespace {

/// Positions whose tiles are computed up front (for the grid and the tiles already done).
constexpr int64_t kMaxPrecomputed = 20000;
/// Distinct tile outlines drawn at most.
constexpr size_t kMaxOutlines = 4096;
constexpr int kPlayIntervalMs = 450;

int64_t floorDiv(int64_t a, int64_t b)
{
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0)))
        --q;
    return q;
}

int64_t floorMod(int64_t a, int64_t b)
{
    return a - floorDiv(a, b) * b;
}

struct Range {
    int64_t lo = 0;
    int64_t hi = 0;
};

/// Values of the loop counters: one value for an outer loop, the whole range for the others.
struct Env {
    std::vector<int64_t> lo, hi;
};

/// Smallest and largest value of an index expression over the ranges of an Env.
Range evalRange(const IndexPool& pool, IndexId id, const Env& env, int depth = 0)
{
    if (id == kNoIndex || id < 0 || static_cast<size_t>(id) >= pool.size() || depth > 256)
        return {};
    const IndexPool::Node& n = pool.node(id);
    switch (n.op) {
    case IndexPool::Node::Op::Linear: {
        Range r{n.constant, n.constant};
        for (const auto& t : n.terms) {
            Range a;
            if (t.atom >= 0) {
                if (static_cast<size_t>(t.atom) < env.lo.size())
                    a = {env.lo[t.atom], env.hi[t.atom]};
            } else {
                a = evalRange(pool, -t.atom - 1, env, depth + 1);
            }
            int64_t x = a.lo * t.coeff, y = a.hi * t.coeff;
            r.lo += std::min(x, y);
            r.hi += std::max(x, y);
        }
        return r;
    }
    case IndexPool::Node::Op::Div: {
        Range a = evalRange(pool, n.a, env, depth + 1);
        int64_t c = std::max<int64_t>(1, n.constant);
        return {floorDiv(a.lo, c), floorDiv(a.hi, c)};
    }
    case IndexPool::Node::Op::Mod: {
        Range a = evalRange(pool, n.a, env, depth + 1);
        int64_t c = std::max<int64_t>(1, n.constant);
        if (floorDiv(a.lo, c) == floorDiv(a.hi, c))
            return {floorMod(a.lo, c), floorMod(a.hi, c)};
        return {0, c - 1};
    }
    case IndexPool::Node::Op::Min: {
        Range a = evalRange(pool, n.a, env, depth + 1), b = evalRange(pool, n.b, env, depth + 1);
        return {std::min(a.lo, b.lo), std::min(a.hi, b.hi)};
    }
    case IndexPool::Node::Op::Max: {
        Range a = evalRange(pool, n.a, env, depth + 1), b = evalRange(pool, n.b, env, depth + 1);
        return {std::max(a.lo, b.lo), std::max(a.hi, b.hi)};
    }
    }
    return {};
}

/// A box of a tensor: inclusive bounds per dimension.
struct Box {
    std::vector<int64_t> lo, hi;
    int64_t step = 1;   ///< largest stride of the region (> 1: every step-th element)

    bool empty() const
    {
        if (lo.size() != hi.size())
            return true;
        for (size_t d = 0; d < lo.size(); ++d)
            if (hi[d] < lo[d])
                return true;
        return false;
    }
    bool operator==(const Box& o) const { return lo == o.lo && hi == o.hi; }
};

Box clipped(Box b, const std::vector<int64_t>& shape)
{
    for (size_t d = 0; d < b.lo.size() && d < shape.size(); ++d) {
        b.lo[d] = std::max<int64_t>(b.lo[d], 0);
        b.hi[d] = std::min<int64_t>(b.hi[d], shape[d] - 1);
    }
    return b;
}

QString boxText(const QString& tensor, const Box& b)
{
    if (b.empty())
        return tensor + QStringLiteral(" (nothing)");
    QStringList parts;
    for (size_t d = 0; d < b.lo.size(); ++d)
        parts << (b.lo[d] == b.hi[d] ? QString::number(b.lo[d])
                                     : QStringLiteral("%1:%2").arg(b.lo[d]).arg(b.hi[d] + 1));
    return tensor + QLatin1Char('[') + parts.join(QStringLiteral(", ")) + QLatin1Char(']');
}

/// "1,024 elements".
QString extentText(const Box& b)
{
    int64_t n = 1;
    for (size_t d = 0; d < b.lo.size(); ++d)
        n *= b.hi[d] - b.lo[d] + 1;
    return n == 1 ? QStringLiteral("1 element") : QStringLiteral("%1 elements").arg(QLocale(QLocale::English).toString(qlonglong(n)));
}

QString bytesText(int64_t b)
{
    if (b < 1024)
        return QStringLiteral("%1 B").arg(b);
    auto number = [](double v) { return QString::number(v, 'f', v == std::floor(v) ? 0 : (v < 10 ? 2 : 1)); };
    double v = b / 1024.0;
    if (v < 1024)
        return QStringLiteral("%1 KiB").arg(number(v));
    return QStringLiteral("%1 MiB").arg(number(v / 1024.0));
}

/// Two dimensions to draw: the ones the tiles cut first, then the largest, then the last.
/// Returns (row, column); row is -1 for a 1-D picture, both -1 for a scalar.
std::pair<int, int> chooseDims(const std::vector<int64_t>& shape, const std::vector<bool>& cut)
{
    std::vector<int> dims;
    for (size_t d = 0; d < shape.size(); ++d)
        if (shape[d] > 1)
            dims.push_back(static_cast<int>(d));
    if (dims.empty())
        for (size_t d = 0; d < shape.size(); ++d)
            dims.push_back(static_cast<int>(d));
    std::sort(dims.begin(), dims.end(), [&](int a, int b) {
        bool ca = a < static_cast<int>(cut.size()) && cut[a], cb = b < static_cast<int>(cut.size()) && cut[b];
        return std::make_tuple(ca, shape[a], a) > std::make_tuple(cb, shape[b], b);
    });
    if (dims.empty())
        return {-1, -1};
    if (dims.size() == 1)
        return {-1, dims[0]};
    return {std::min(dims[0], dims[1]), std::max(dims[0], dims[1])};
}

// ---- the model: what to draw for one snapshot -----------------------------------------------

struct OuterLoop {
    int slot = -1;
    int64_t extent = 1;
    QString name;
    bool reduction = false;
};

/// A buffer of the chosen input that can be live while a tile is computed.
struct AllocInfo {
    int stmt = -1;
    int buffer = -1;
    int copy = -1;              ///< the copy filling or writing it back (its region), or -1
    bool ancestor = false;      ///< allocated outside the tile's loop body (else inside it)
    bool exact = true;          ///< the region depends on outer loops only
    int innermostOuter = -1;    ///< index in TileModel::outer of the loop that refills it
};

struct Resident {
    QString level;
    int levelIndex = 0;
    QString buffer;
    Box box;
    bool exact = true;
    bool hasNext = false;
    Box next;                   ///< the region a double buffer prefetches meanwhile
    int64_t bytes = 0;
};

struct InputModel {
    int tensor = -1;
    QString name;
    std::vector<int64_t> shape;
    std::vector<QString> dimNames;
    bool home = false;
    QString homeLevel;
    std::vector<AllocInfo> allocs;
    int rowDim = -1, colDim = -1;
};

} // namespace

struct TileModel {
    QString message;            ///< non-empty: nothing can be drawn, and why
    std::shared_ptr<const LoopNest> nest;
    std::shared_ptr<const ir::Kernel> kernel;
    int outTensor = -1;
    QString outName;
    std::vector<int64_t> outShape;
    std::vector<QString> outDimNames;
    std::vector<OuterLoop> outer;
    int64_t positions = 0;
    bool truncated = false;     ///< more positions than a slider holds
    int tilePoint = -1;         ///< the innermost outer For (or the root when there is none)
    std::vector<int> parent;
    std::vector<bool> reachable;
    std::vector<int> writers;
    int rowDim = -1, colDim = -1;
    std::vector<Box> tiles;     ///< per position, when there are at most kMaxPrecomputed
    QStringList inputNames;
    InputModel input;

    std::vector<int64_t> digits(int64_t position) const
    {
        std::vector<int64_t> d(outer.size(), 0);
        for (size_t i = outer.size(); i-- > 0;) {
            int64_t e = std::max<int64_t>(1, outer[i].extent);
            d[i] = position % e;
            position /= e;
        }
        return d;
    }

    Env envOf(const std::vector<int64_t>& digits) const
    {
        Env env;
        size_t slotCount = nest->slotNames.size();
        env.lo.assign(slotCount, 0);
        env.hi.assign(slotCount, 0);
        for (size_t s = 0; s < slotCount; ++s)
            env.hi[s] = s < nest->slotExtents.size() ? std::max<int64_t>(0, nest->slotExtents[s] - 1) : 0;
        for (size_t i = 0; i < outer.size() && i < digits.size(); ++i)
            if (outer[i].slot >= 0 && static_cast<size_t>(outer[i].slot) < slotCount)
                env.lo[outer[i].slot] = env.hi[outer[i].slot] = digits[i];
        return env;
    }

    Box computeTile(int64_t position) const
    {
        Env env = envOf(digits(position));
        Box box;
        box.lo.assign(outShape.size(), INT64_MAX);
        box.hi.assign(outShape.size(), INT64_MIN);
        for (int w : writers) {
            const Stmt& s = nest->stmts[w];
            if (s.index.size() != outShape.size())
                continue;
            for (size_t d = 0; d < s.index.size(); ++d) {
                Range r = evalRange(nest->index, s.index[d], env);
                box.lo[d] = std::min(box.lo[d], r.lo);
                box.hi[d] = std::max(box.hi[d], r.hi);
            }
        }
        return clipped(box, outShape);
    }

    Box tileAt(int64_t position) const
    {
        if (position >= 0 && position < static_cast<int64_t>(tiles.size()))
            return tiles[position];
        return computeTile(position);
    }

    bool isAncestor(int a, int b) const
    {
        for (int x = b; x >= 0; x = parent[x])
            if (x == a)
                return true;
        return false;
    }

    Box regionOf(const AllocInfo& a, const Env& env) const
    {
        const Buffer& b = nest->buffers[a.buffer];
        const size_t dims = input.shape.size();
        Box box;
        box.lo.assign(dims, 0);
        box.hi.assign(dims, -1);
        if (a.copy >= 0 && nest->stmts[a.copy].region.min.size() == dims) {
            const lower::Region& r = nest->stmts[a.copy].region;
            for (size_t d = 0; d < dims; ++d) {
                Range m = evalRange(nest->index, r.min[d], env);
                Range n = d < r.count.size() ? evalRange(nest->index, r.count[d], env) : Range{1, 1};
                int64_t step = d < r.step.size() ? std::max<int64_t>(1, r.step[d]) : 1;
                box.step = std::max(box.step, step);
                if (n.hi <= 0)
                    return box;
                box.lo[d] = m.lo;
                box.hi[d] = m.hi + (n.hi - 1) * step;
            }
        } else if (b.shape.size() == dims) {
            for (size_t d = 0; d < dims; ++d) {
                Range o = d < b.origin.size() && b.origin[d] != kNoIndex ? evalRange(nest->index, b.origin[d], env) : Range{};
                int64_t step = d < b.step.size() ? std::max<int64_t>(1, b.step[d]) : 1;
                box.step = std::max(box.step, step);
                box.lo[d] = o.lo;
                box.hi[d] = o.hi + (b.shape[d] - 1) * step;
            }
        }
        return clipped(box, input.shape);
    }

    std::vector<Resident> residents(int64_t position) const
    {
        std::vector<Resident> out;
        if (input.tensor < 0)
            return out;
        std::vector<int64_t> dg = digits(position);
        Env env = envOf(dg);
        for (const AllocInfo& a : input.allocs) {
            const Buffer& b = nest->buffers[a.buffer];
            Resident r;
            r.levelIndex = b.level;
            r.level = QString::fromStdString(nest->target->levels[b.level].name);
            r.buffer = QString::fromStdString(b.name);
            r.box = regionOf(a, env);
            r.exact = a.exact;
            r.bytes = b.bytes();
            if (b.doubleBuffer && a.innermostOuter >= 0) {
                // The iteration after this one of the loops the buffer sits in, carrying.
                std::vector<int64_t> next = dg;
                int i = a.innermostOuter;
                while (i >= 0) {
                    if (++next[i] < outer[i].extent)
                        break;
                    next[i] = 0;
                    --i;
                }
                if (i >= 0) {
                    r.hasNext = true;
                    r.next = regionOf(a, envOf(next));
                }
            }
            out.push_back(r);
        }
        std::stable_sort(out.begin(), out.end(), [](const Resident& x, const Resident& y) { return x.levelIndex < y.levelIndex; });
        return out;
    }
};

namespace {

std::shared_ptr<TileModel> buildModel(const Snapshot& snap)
{
    auto m = std::make_shared<TileModel>();
    if (snap.empty()) {
        m->message = QObject::tr("No schedule is open.");
        return m;
    }
    if (!snap.nest || !snap.nest->kernel || !snap.nest->target) {
        m->message = snap.failedStep ? QObject::tr("No tiles: %1").arg(QString::fromStdString(snap.failedStep->str()))
                                     : QObject::tr("No loop nest to show tiles of.");
        return m;
    }
    m->nest = snap.nest;
    m->kernel = snap.nest->kernel;
    const LoopNest& n = *m->nest;
    const ir::Kernel& k = *m->kernel;
    if (k.stages.empty() || n.root < 0 || static_cast<size_t>(n.root) >= n.stmts.size()) {
        m->message = QObject::tr("The kernel has no stage to show.");
        return m;
    }
    const ir::Stage& last = k.stages.back();
    m->outTensor = last.output.tensor;
    if (m->outTensor < 0 || static_cast<size_t>(m->outTensor) >= k.tensors.size()) {
        m->message = QObject::tr("The last stage has no output tensor.");
        return m;
    }
    const ir::Tensor& out = k.tensors[m->outTensor];
    m->outName = QString::fromStdString(out.name);
    m->outShape = out.shape;
    for (size_t d = 0; d < out.shape.size(); ++d) {
        QString name = QStringLiteral("dim %1").arg(d);
        if (d < last.output.index.size() && last.output.index[d].terms.size() == 1) {
            int axis = last.output.index[d].terms[0].axis;
            if (axis >= 0 && static_cast<size_t>(axis) < last.axes.size())
                name = QString::fromStdString(last.axes[axis].name);
        }
        m->outDimNames.push_back(name);
    }

    // Parents of every statement reachable from the root.
    m->parent.assign(n.stmts.size(), -1);
    m->reachable.assign(n.stmts.size(), false);
    std::vector<int> stack = {n.root};
    m->reachable[n.root] = true;
    std::vector<int> preorder;
    while (!stack.empty()) {
        int id = stack.back();
        stack.pop_back();
        preorder.push_back(id);
        const Stmt& s = n.stmts[id];
        for (auto it = s.body.rbegin(); it != s.body.rend(); ++it) {
            int c = *it;
            if (c < 0 || static_cast<size_t>(c) >= n.stmts.size() || m->reachable[c])
                continue;
            m->reachable[c] = true;
            m->parent[c] = id;
            stack.push_back(c);
        }
    }
    auto validBuffer = [&](int b) { return b >= 0 && static_cast<size_t>(b) < n.buffers.size(); };

    for (int id : preorder) {
        const Stmt& s = n.stmts[id];
        if ((s.kind == Stmt::Kind::Compute || s.kind == Stmt::Kind::AccStore) && validBuffer(s.buffer)
            && n.buffers[s.buffer].tensor == m->outTensor && n.buffers[s.buffer].role != Buffer::Role::Accumulator)
            m->writers.push_back(id);
    }
    if (m->writers.empty()) {
        m->message = QObject::tr("Nothing in the loop nest writes %1.").arg(m->outName);
        return m;
    }

    // The tile: what one iteration of the loops outside the innermost on-chip buffer (cache,
    // intermediate, accumulator in memory) around the stage's update writes; without one, the
    // loops outside its accumulator. Slots belong to loop variables, so the store's index,
    // evaluated with the outer loops fixed and the others free, is that iteration's tile even
    // when the store runs in loops of its own after the reduction.
    const int lastStage = static_cast<int>(k.stages.size()) - 1;
    int anchor = -1;
    for (int id : preorder)
        if (n.stmts[id].kind == Stmt::Kind::Compute && n.stmts[id].stage == lastStage) {
            anchor = id;
            break;
        }
    if (anchor < 0)
        anchor = m->writers.front();
    std::vector<int> chain;
    for (int x = anchor; x >= 0; x = m->parent[x])
        chain.push_back(x);
    std::reverse(chain.begin(), chain.end());
    auto nearestFor = [&](int id) {
        for (int x = m->parent[id]; x >= 0; x = m->parent[x])
            if (n.stmts[x].kind == Stmt::Kind::For)
                return x;
        return -1;
    };
    int onChip = -1, accumulator = -1;
    for (int id : chain) {
        const Stmt& s = n.stmts[id];
        if (s.kind != Stmt::Kind::Alloc || !validBuffer(s.buffer) || nearestFor(id) < 0)
            continue;
        const Buffer& b = n.buffers[s.buffer];
        if (b.role == Buffer::Role::Accumulator)
            accumulator = id;
        if (b.role != Buffer::Role::Home && b.level >= 0)
            onChip = id;
    }
    if (onChip >= 0)
        m->tilePoint = nearestFor(onChip);
    else if (accumulator >= 0)
        m->tilePoint = nearestFor(accumulator);
    else
        m->tilePoint = nearestFor(anchor);
    if (m->tilePoint < 0)
        m->tilePoint = n.root;
    for (int x = m->tilePoint; x >= 0; x = m->parent[x]) {
        const Stmt& s = n.stmts[x];
        if (s.kind == Stmt::Kind::For)
            m->outer.push_back({s.slot, std::max<int64_t>(1, s.extent), QString::fromStdString(s.name), s.reduction});
    }
    std::reverse(m->outer.begin(), m->outer.end());
    m->positions = 1;
    for (const OuterLoop& l : m->outer) {
        if (m->positions > INT_MAX / l.extent) {
            m->positions = INT_MAX;
            m->truncated = true;
            break;
        }
        m->positions *= l.extent;
    }
    if (m->positions <= kMaxPrecomputed) {
        m->tiles.reserve(m->positions);
        for (int64_t p = 0; p < m->positions; ++p)
            m->tiles.push_back(m->computeTile(p));
    }
    std::vector<bool> cut(m->outShape.size(), false);
    for (int64_t p = 0; p < std::min<int64_t>(m->positions, 256); ++p) {
        Box b = m->tileAt(p);
        for (size_t d = 0; d < cut.size() && d < b.lo.size(); ++d)
            if (b.hi[d] - b.lo[d] + 1 < m->outShape[d])
                cut[d] = true;
    }
    std::tie(m->rowDim, m->colDim) = chooseDims(m->outShape, cut);

    // Inputs: what the last stage reads first, then the others.
    std::vector<int> order;
    auto addTensor = [&](int t) {
        if (t >= 0 && t != m->outTensor && std::find(order.begin(), order.end(), t) == order.end())
            order.push_back(t);
    };
    for (const ir::Access& a : last.loads())
        addTensor(a.tensor);
    for (const ir::Stage& st : k.stages)
        for (const ir::Access& a : st.loads())
            addTensor(a.tensor);
    for (int t : order)
        m->inputNames << QString::fromStdString(k.tensors[t].name);
    return m;
}

void buildInput(TileModel& m, const QString& name)
{
    m.input = InputModel();
    if (!m.message.isEmpty() || !m.nest)
        return;
    const LoopNest& n = *m.nest;
    const ir::Kernel& k = *m.kernel;
    int t = k.findTensor(name.toStdString());
    if (t < 0)
        return;
    InputModel& in = m.input;
    in.tensor = t;
    in.name = name;
    in.shape = k.tensors[t].shape;
    in.dimNames.assign(in.shape.size(), QString());
    for (const ir::Stage& st : k.stages)
        for (const ir::Access& a : st.loads())
            if (a.tensor == t)
                for (size_t d = 0; d < a.index.size() && d < in.dimNames.size(); ++d)
                    if (in.dimNames[d].isEmpty()) {
                        QString s = QString::fromStdString(ir::affineToString(st, a.index[d]));
                        if (!s.isEmpty() && s.size() <= 14)
                            in.dimNames[d] = s;
                    }
    for (size_t d = 0; d < in.dimNames.size(); ++d)
        if (in.dimNames[d].isEmpty())
            in.dimNames[d] = QStringLiteral("dim %1").arg(d);

    std::set<int> outerSlots;
    for (const OuterLoop& l : m.outer)
        outerSlots.insert(l.slot);
    for (size_t id = 0; id < n.stmts.size(); ++id) {
        const Stmt& s = n.stmts[id];
        if (!m.reachable[id] || s.buffer < 0 || static_cast<size_t>(s.buffer) >= n.buffers.size())
            continue;
        const Buffer& b = n.buffers[s.buffer];
        if (b.tensor != t || b.role == Buffer::Role::Home)
            continue;
        if (s.kind != Stmt::Kind::Alloc || b.level < 0 || static_cast<size_t>(b.level) >= n.target->levels.size()
            || b.shape.size() != in.shape.size())
            continue;
        AllocInfo a;
        a.stmt = static_cast<int>(id);
        a.buffer = s.buffer;
        a.ancestor = m.isAncestor(a.stmt, m.tilePoint) && a.stmt != m.tilePoint;
        bool inside = m.isAncestor(m.tilePoint, a.stmt);
        if (!a.ancestor && !inside)
            continue;   // lives in another branch: not while this tile is computed
        // The copy that fills it (or writes it back) gives its exact region.
        std::vector<int> todo(s.body.begin(), s.body.end());
        while (!todo.empty() && a.copy < 0) {
            int c = todo.front();
            todo.erase(todo.begin());
            if (c < 0 || static_cast<size_t>(c) >= n.stmts.size())
                continue;
            const Stmt& cs = n.stmts[c];
            if (cs.kind == Stmt::Kind::Copy && ((cs.buffer == s.buffer && cs.src != s.buffer) || (cs.src == s.buffer && cs.buffer != s.buffer)))
                a.copy = c;
            else if (cs.kind != Stmt::Kind::Alloc || cs.buffer != s.buffer)
                todo.insert(todo.end(), cs.body.begin(), cs.body.end());
        }
        std::vector<int> used;
        if (a.copy >= 0) {
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
        for (int x = m.parent[a.stmt]; x >= 0 && a.innermostOuter < 0; x = m.parent[x])
            if (n.stmts[x].kind == Stmt::Kind::For)
                for (size_t i = 0; i < m.outer.size(); ++i)
                    if (m.outer[i].slot == n.stmts[x].slot && n.stmts[x].name == m.outer[i].name.toStdString())
                        a.innermostOuter = static_cast<int>(i);
        in.allocs.push_back(a);
    }
    for (const Buffer& b : n.buffers)
        if (b.tensor == t && b.role == Buffer::Role::Home && b.level >= 0 && static_cast<size_t>(b.level) < n.target->levels.size())
            in.homeLevel = QString::fromStdString(n.target->levels[b.level].name);
    if (!in.homeLevel.isEmpty())
        in.home = true;

    std::vector<bool> cut(in.shape.size(), false);
    for (int64_t p : {int64_t(0), m.positions / 2}) {
        for (const Resident& r : m.residents(p))
            for (size_t d = 0; d < cut.size() && d < r.box.lo.size(); ++d)
                if (!r.box.empty() && r.box.hi[d] - r.box.lo[d] + 1 < in.shape[d])
                    cut[d] = true;
    }
    std::tie(in.rowDim, in.colDim) = chooseDims(in.shape, cut);
}

// ---- drawing ----------------------------------------------------------------------------------

/// A tensor's grid on screen.
struct Grid {
    QRectF rect;
    qreal cw = 1, ch = 1;   ///< cell width and height (square unless a side would be too thin)
    int64_t rows = 1, cols = 1;
    int rowDim = -1, colDim = -1;

    QRectF project(const Box& b) const
    {
        int64_t r0 = 0, r1 = rows - 1, c0 = 0, c1 = cols - 1;
        if (rowDim >= 0 && static_cast<size_t>(rowDim) < b.lo.size()) {
            r0 = b.lo[rowDim];
            r1 = b.hi[rowDim];
        }
        if (colDim >= 0 && static_cast<size_t>(colDim) < b.lo.size()) {
            c0 = b.lo[colDim];
            c1 = b.hi[colDim];
        }
        return QRectF(rect.left() + c0 * cw, rect.top() + r0 * ch, (c1 - c0 + 1) * cw, (r1 - r0 + 1) * ch);
    }
};

struct PanelText {
    QString title;
    QString rowName, colName;
    std::vector<std::pair<QColor, QString>> captions;   ///< swatch colour (invalid: none) and text
};

/// Lays out a panel: title, the grid (square cells, as large as fits), captions below.
Grid layoutPanel(const QRectF& area, const QFontMetricsF& fm, const std::vector<int64_t>& shape, int rowDim, int colDim,
                 const QString& rowName, size_t captionLines)
{
    Grid g;
    g.rowDim = rowDim;
    g.colDim = colDim;
    g.rows = rowDim >= 0 ? std::max<int64_t>(1, shape[rowDim]) : 1;
    g.cols = colDim >= 0 ? std::max<int64_t>(1, shape[colDim]) : 1;
    const qreal line = fm.height() + 2;
    const qreal top = area.top() + line + line + 2;      // title, column axis
    const qreal labels = std::max(fm.horizontalAdvance(QStringLiteral("0000")),
                                  rowName.isEmpty() ? 0.0 : fm.horizontalAdvance(rowName + QStringLiteral(" ↓")));
    const qreal left = area.left() + std::min(labels, area.width() / 3) + 6;
    const qreal bottom = area.bottom() - captionLines * line - 6;
    const qreal w = std::max<qreal>(10, area.right() - left - 4);
    const qreal h = std::max<qreal>(10, bottom - top);
    const qreal cell = std::min(w / g.cols, h / g.rows);
    g.cw = g.ch = cell;
    // A 4 x 256 tensor drawn with square cells is a hairline: give a thin side some body.
    const qreal minSide = 44;
    if (g.rows * g.ch < minSide)
        g.ch = std::min(h, minSide) / g.rows;
    if (g.cols * g.cw < minSide)
        g.cw = std::min(w, minSide) / g.cols;
    g.rect = QRectF(left, top, g.cw * g.cols, g.ch * g.rows);
    return g;
}

void drawPanelFrame(QPainter& p, const QRectF& area, const Grid& g, const PanelText& text, const QPalette& pal)
{
    QFont bold = p.font();
    bold.setBold(true);
    const QFont normal = p.font();
    const QFontMetricsF fm(normal);
    const qreal line = fm.height() + 2;
    p.setFont(bold);
    p.setPen(pal.color(QPalette::Text));
    p.drawText(QRectF(area.left(), area.top(), area.width(), line), Qt::AlignLeft | Qt::AlignVCenter,
               QFontMetricsF(bold).elidedText(text.title, Qt::ElideRight, area.width()));
    p.setFont(normal);
    // Axes: names and extents.
    const QColor dim = pal.color(QPalette::PlaceholderText);
    p.setPen(dim);
    QRectF colAxis(g.rect.left(), area.top() + line, std::max<qreal>(g.rect.width(), 60), line);
    p.drawText(colAxis, Qt::AlignLeft | Qt::AlignVCenter, QStringLiteral("%1 →").arg(text.colName));
    if (g.rect.width() > fm.horizontalAdvance(QString::number(g.cols)) + fm.horizontalAdvance(text.colName) + 40)
        p.drawText(QRectF(g.rect.left(), area.top() + line, g.rect.width(), line), Qt::AlignRight | Qt::AlignVCenter,
                   QString::number(g.cols));
    QRectF rowAxis(area.left(), g.rect.top(), g.rect.left() - area.left() - 4, line);
    p.drawText(rowAxis, Qt::AlignRight | Qt::AlignVCenter, QStringLiteral("0"));
    if (!text.rowName.isEmpty()) {
        p.drawText(QRectF(area.left(), area.top() + line, g.rect.left() - area.left() - 4, line), Qt::AlignRight | Qt::AlignVCenter,
                   fm.elidedText(text.rowName + QStringLiteral(" ↓"), Qt::ElideLeft, g.rect.left() - area.left() - 4));
        if (g.rect.height() > 2 * line)
            p.drawText(QRectF(area.left(), g.rect.bottom() - line, g.rect.left() - area.left() - 4, line),
                       Qt::AlignRight | Qt::AlignVCenter, QString::number(g.rows));
    }
    // Captions under the grid.
    qreal y = g.rect.bottom() + 6;
    for (const auto& [colour, caption] : text.captions) {
        qreal x = area.left();
        if (colour.isValid()) {
            QRectF swatch(x, y + (line - 11) / 2, 11, 11);
            p.fillRect(swatch, colour);
            p.setPen(colour.darker(160));
            p.drawRect(swatch.adjusted(0, 0, -1, -1));
            x += 16;
        }
        p.setPen(pal.color(QPalette::Text));
        p.drawText(QRectF(x, y, area.right() - x, line), Qt::AlignLeft | Qt::AlignVCenter,
                   fm.elidedText(caption, Qt::ElideRight, area.right() - x));
        y += line;
    }
}

void drawCells(QPainter& p, const Grid& g, const QColor& fill)
{
    p.fillRect(g.rect, fill);
    p.setPen(QPen(QColor(0, 0, 0, 22), 1));
    if (g.ch >= 7)
        for (int64_t r = 1; r < g.rows; ++r)
            p.drawLine(QPointF(g.rect.left(), g.rect.top() + r * g.ch), QPointF(g.rect.right(), g.rect.top() + r * g.ch));
    if (g.cw >= 7)
        for (int64_t c = 1; c < g.cols; ++c)
            p.drawLine(QPointF(g.rect.left() + c * g.cw, g.rect.top()), QPointF(g.rect.left() + c * g.cw, g.rect.bottom()));
}

/// `c` mixed with white: `share` of white.
QColor pale(const QColor& c, double share)
{
    auto mix = [share](int v) { return int(v * (1 - share) + 255 * share); };
    return QColor(mix(c.red()), mix(c.green()), mix(c.blue()));
}

QColor levelColour(const QColor& tensor, int level)
{
    // Outer levels pale, inner levels strong.
    switch (level) {
    case 0: return pale(tensor, 0.72);
    case 1: return tensor;
    default: return tensor.darker(100 + 35 * (level - 1));
    }
}

/// A region too small to see (one element of a 112 x 112 grid) gets a ring around it.
void markIfSmall(QPainter& p, const QRectF& r, const QColor& colour)
{
    if (r.width() >= 8 || r.height() >= 8)
        return;
    p.save();
    p.setRenderHint(QPainter::Antialiasing, true);
    p.setBrush(Qt::NoBrush);
    p.setPen(QPen(Qt::white, 4));
    p.drawEllipse(r.center(), 9, 9);
    p.setPen(QPen(colour, 2));
    p.drawEllipse(r.center(), 9, 9);
    p.restore();
}

} // namespace

/// The drawing surface under the controls.
class TileCanvas : public QWidget {
public:
    explicit TileCanvas(TileView* view) : QWidget(view), m_view(view)
    {
        setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
    }

protected:
    void paintEvent(QPaintEvent*) override;

private:
    void drawOutput(QPainter& p, const QRectF& area, const TileModel& m, int64_t pos);
    void drawInput(QPainter& p, const QRectF& area, const TileModel& m, int64_t pos);
    TileView* m_view;
};

void TileCanvas::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    const TileModel* m = m_view->m_model.get();
    if (!m || !m->message.isEmpty()) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(rect().adjusted(12, 12, -12, -12), Qt::AlignCenter | Qt::TextWordWrap,
                   m ? m->message : QObject::tr("No schedule is open."));
        return;
    }
    const int64_t pos = m_view->m_position;
    QRectF area = QRectF(rect()).adjusted(8, 6, -8, -6);
    if (m->input.tensor < 0) {
        drawOutput(p, area, *m, pos);
        return;
    }
    const qreal gap = 18;
    if (area.width() >= area.height() * 1.3) {
        qreal w = (area.width() - gap) / 2;
        drawOutput(p, QRectF(area.left(), area.top(), w, area.height()), *m, pos);
        drawInput(p, QRectF(area.left() + w + gap, area.top(), w, area.height()), *m, pos);
    } else {
        qreal h = (area.height() - gap) / 2;
        drawOutput(p, QRectF(area.left(), area.top(), area.width(), h), *m, pos);
        drawInput(p, QRectF(area.left(), area.top() + h + gap, area.width(), h), *m, pos);
    }
}

void TileCanvas::drawOutput(QPainter& p, const QRectF& area, const TileModel& m, int64_t pos)
{
    const QFontMetricsF fm(font());
    const QColor colour = MemoryView::tensorColor(m.outName);
    const Box tile = m.tileAt(pos);

    PanelText text;
    QStringList shape;
    for (int64_t s : m.outShape)
        shape << QString::number(s);
    text.title = QObject::tr("Output %1 [%2] cut into tiles").arg(m.outName, shape.join(QStringLiteral(" × ")));
    text.rowName = m.rowDim >= 0 ? m.outDimNames[m.rowDim] : QString();
    text.colName = m.colDim >= 0 ? m.outDimNames[m.colDim] : QString();
    QStringList values;
    std::vector<int64_t> dg = m.digits(pos);
    QStringList reductions;
    for (size_t i = 0; i < m.outer.size(); ++i) {
        values << QStringLiteral("%1 = %2").arg(m.outer[i].name).arg(dg[i]);
        if (m.outer[i].reduction)
            reductions << m.outer[i].name;
    }
    text.captions.push_back({QColor(), m.outer.empty() ? QObject::tr("one tile: no loop runs outside the on-chip buffers")
                                                      : QObject::tr("step %1 of %2: %3").arg(pos + 1).arg(m.positions).arg(values.join(QStringLiteral(", ")))});
    if (tile.empty())
        text.captions.push_back({QColor(), QObject::tr("nothing to compute: this step lies past the edge of %1 (partial tile)").arg(m.outName)});
    else
        text.captions.push_back({colour, QObject::tr("computing %1: %2").arg(boxText(m.outName, tile), extentText(tile))});
    if (!reductions.isEmpty())
        text.captions.push_back({QColor(), QObject::tr("%1: reduction, so the same tile is accumulated over several steps")
                                               .arg(reductions.join(QStringLiteral(", ")))});
    else if (!m.tiles.empty())
        text.captions.push_back({pale(colour, 0.6), QObject::tr("tiles already computed")});
    else
        text.captions.push_back({QColor(), QObject::tr("too many steps to shade the tiles already computed")});

    const Grid g = layoutPanel(area, fm, m.outShape, m.rowDim, m.colDim, text.rowName, text.captions.size());
    drawCells(p, g, QColor(250, 250, 250));

    // Tiles done, tile outlines, the current tile.
    if (!m.tiles.empty()) {
        const QColor done = pale(colour, 0.6);
        for (int64_t q = 0; q < pos && q < static_cast<int64_t>(m.tiles.size()); ++q)
            p.fillRect(g.project(m.tiles[q]), done);
        std::set<std::tuple<int, int, int, int>> outlines;
        for (const Box& b : m.tiles) {
            QRect r = g.project(b).toRect();
            outlines.insert({r.x(), r.y(), r.width(), r.height()});
            if (outlines.size() > kMaxOutlines)
                break;
        }
        if (outlines.size() <= kMaxOutlines) {
            p.setPen(QPen(QColor(90, 90, 90), 1));
            p.setBrush(Qt::NoBrush);
            for (const auto& [x, y, w, h] : outlines)
                if (w >= 3 && h >= 3)
                    p.drawRect(QRectF(x, y, w, h));
        }
    }
    if (!tile.empty()) {
        QRectF r = g.project(tile);
        p.fillRect(r, colour);
        p.setRenderHint(QPainter::Antialiasing, true);
        p.setPen(QPen(colour.darker(220), 2.5));
        p.setBrush(Qt::NoBrush);
        p.drawRect(r.adjusted(1, 1, -1, -1));
        p.setRenderHint(QPainter::Antialiasing, false);
        markIfSmall(p, r, colour.darker(220));
    }
    p.setPen(QPen(QColor(60, 60, 60), 1));
    p.drawRect(g.rect);
    drawPanelFrame(p, area, g, text, palette());
}

void TileCanvas::drawInput(QPainter& p, const QRectF& area, const TileModel& m, int64_t pos)
{
    const QFontMetricsF fm(font());
    const InputModel& in = m.input;
    const QColor colour = MemoryView::tensorColor(in.name);
    const std::vector<Resident> residents = m.residents(pos);

    PanelText text;
    QStringList shape;
    for (int64_t s : in.shape)
        shape << QString::number(s);
    text.title = QObject::tr("Input %1 [%2] resident now").arg(in.name, shape.join(QStringLiteral(" × ")));
    text.rowName = in.rowDim >= 0 ? in.dimNames[in.rowDim] : QString();
    text.colName = in.colDim >= 0 ? in.dimNames[in.colDim] : QString();
    if (in.home)
        text.captions.push_back({levelColour(colour, 0), QObject::tr("%1: all of %2 (its home)").arg(in.homeLevel, in.name)});
    else
        text.captions.push_back({QColor(), QObject::tr("%1 is never stored whole (computed in pieces where it is read)").arg(in.name)});
    for (const Resident& r : residents) {
        if (r.box.empty()) {
            text.captions.push_back({QColor(), QObject::tr("%1: %2 holds nothing of %3 at this step (past the edge)").arg(r.level, r.buffer, in.name)});
            continue;
        }
        QString what = QObject::tr("%1: %2 in %3 (%4)").arg(r.level, boxText(in.name, r.box), r.buffer, bytesText(r.bytes));
        if (r.box.step > 1)
            what += QObject::tr(", stride %1").arg(r.box.step);
        if (!r.exact)
            what += QObject::tr(", refilled inside this step (outline: all it covers)");
        text.captions.push_back({levelColour(colour, r.levelIndex), what});
        if (r.hasNext && !r.next.empty())
            text.captions.push_back({QColor(), QObject::tr("   %1 second buffer prefetches %2").arg(r.level, boxText(in.name, r.next))});
    }
    if (residents.empty())
        text.captions.push_back({QColor(), QObject::tr("no on-chip buffer of %1 is live during this step").arg(in.name)});

    const Grid g = layoutPanel(area, fm, in.shape, in.rowDim, in.colDim, text.rowName, text.captions.size());
    if (in.home) {
        drawCells(p, g, levelColour(colour, 0));
    } else {
        drawCells(p, g, QColor(245, 245, 245));
        p.fillRect(g.rect, QBrush(QColor(0, 0, 0, 30), Qt::BDiagPattern));
    }
    QFont small = font();
    small.setPointSizeF(std::max(6.0, small.pointSizeF() * 0.85));
    const QFontMetricsF sfm(small);
    for (const Resident& r : residents) {
        if (r.box.empty())
            continue;
        QRectF rr = g.project(r.box);
        QColor fill = levelColour(colour, r.levelIndex);
        if (r.exact) {
            p.fillRect(rr, fill);
        } else {
            QColor translucent = fill;
            translucent.setAlpha(110);
            p.fillRect(rr, translucent);
        }
        p.setRenderHint(QPainter::Antialiasing, true);
        p.setPen(QPen(fill.darker(200), 2, r.exact ? Qt::SolidLine : Qt::DashLine));
        p.setBrush(Qt::NoBrush);
        p.drawRect(rr.adjusted(1, 1, -1, -1));
        p.setRenderHint(QPainter::Antialiasing, false);
        markIfSmall(p, rr, fill.darker(200));
        if (rr.width() > sfm.horizontalAdvance(r.level) + 6 && rr.height() > sfm.height() + 2) {
            p.setFont(small);
            p.setPen(fill.lightness() > 140 ? QColor(20, 20, 20) : QColor(Qt::white));
            p.drawText(rr.adjusted(3, 1, -3, -1), Qt::AlignLeft | Qt::AlignTop, r.level);
            p.setFont(font());
        }
        if (r.hasNext && !r.next.empty()) {
            QRectF nr = g.project(r.next);
            p.setRenderHint(QPainter::Antialiasing, true);
            p.setPen(QPen(fill.darker(250), 1.5, Qt::DotLine));
            p.drawRect(nr.adjusted(3, 3, -3, -3));
            p.setRenderHint(QPainter::Antialiasing, false);
        }
    }
    p.setPen(QPen(QColor(60, 60, 60), 1));
    p.drawRect(g.rect);
    drawPanelFrame(p, area, g, text, palette());
}

// ---- the widget ---------------------------------------------------------------------------------

TileView::TileView(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->setSpacing(4);
    auto* controls = new QHBoxLayout;
    m_play = new QToolButton(this);
    m_play->setText(tr("▶ Play"));
    m_play->setToolTip(tr("Step through the tiles"));
    m_slider = new QSlider(Qt::Horizontal, this);
    m_positionLabel = new QLabel(this);
    m_positionLabel->setMinimumWidth(m_positionLabel->fontMetrics().horizontalAdvance(QStringLiteral("00000 / 00000")));
    m_inputBox = new QComboBox(this);
    m_inputBox->setToolTip(tr("Input tensor whose resident regions are shown"));
    m_inputBox->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    controls->addWidget(m_play);
    controls->addWidget(m_slider, 1);
    controls->addWidget(m_positionLabel);
    controls->addWidget(new QLabel(tr("input:"), this));
    controls->addWidget(m_inputBox);
    layout->addLayout(controls);
    m_canvas = new TileCanvas(this);
    layout->addWidget(m_canvas, 1);
    m_timer = new QTimer(this);
    m_timer->setInterval(kPlayIntervalMs);

    connect(m_slider, &QSlider::valueChanged, this, [this](int v) { setPosition(v); });
    connect(m_play, &QToolButton::clicked, this, [this] { setPlaying(!isPlaying()); });
    connect(m_inputBox, &QComboBox::currentTextChanged, this, [this](const QString& t) {
        if (!t.isEmpty())
            setInputTensor(t);
    });
    connect(m_timer, &QTimer::timeout, this, &TileView::advance);
    m_model = buildModel(m_snapshot);
    syncControls();
}

QSize TileView::sizeHint() const
{
    return QSize(760, 440);
}

QSize TileView::minimumSizeHint() const
{
    return QSize(320, 240);
}

void TileView::setSnapshot(const Snapshot& snapshot)
{
    m_snapshot = snapshot;
    const QStringList oldLoops = outerLoops();
    m_model = buildModel(snapshot);
    if (outerLoops() != oldLoops)
        m_position = 0;   // other tiles: start again
    m_position = std::clamp(m_position, 0, std::max(0, positionCount() - 1));
    if (!m_model->inputNames.contains(m_input))
        m_input = m_model->inputNames.isEmpty() ? QString() : m_model->inputNames.front();
    rebuildInput();
    if (positionCount() <= 1)
        setPlaying(false);
    syncControls();
    m_canvas->update();
}

void TileView::rebuildInput()
{
    if (m_model)
        buildInput(*m_model, m_input);
}

void TileView::syncControls()
{
    const int count = positionCount();
    const bool drawable = m_model && m_model->message.isEmpty();
    {
        QSignalBlocker block(m_slider);
        m_slider->setRange(0, std::max(0, count - 1));
        m_slider->setValue(m_position);
        m_slider->setPageStep(std::max(1, count / 16));
        m_slider->setEnabled(count > 1);
    }
    m_positionLabel->setText(drawable ? QStringLiteral("%1 / %2").arg(m_position + 1).arg(count) : QString());
    m_play->setEnabled(count > 1);
    m_play->setText(isPlaying() ? tr("❚❚ Pause") : tr("▶ Play"));
    {
        QSignalBlocker block(m_inputBox);
        QStringList names = m_model ? m_model->inputNames : QStringList();
        QStringList current;
        for (int i = 0; i < m_inputBox->count(); ++i)
            current << m_inputBox->itemText(i);
        if (current != names) {
            m_inputBox->clear();
            m_inputBox->addItems(names);
        }
        m_inputBox->setCurrentIndex(names.indexOf(m_input));
        m_inputBox->setEnabled(drawable && !names.isEmpty());
    }
}

int TileView::position() const
{
    return m_position;
}

void TileView::setPosition(int position)
{
    position = std::clamp(position, 0, std::max(0, positionCount() - 1));
    if (position == m_position)
        return;
    m_position = position;
    syncControls();
    m_canvas->update();
    emit positionChanged(m_position);
}

int TileView::positionCount() const
{
    if (!m_model || !m_model->message.isEmpty())
        return 0;
    return static_cast<int>(std::min<int64_t>(m_model->positions, INT_MAX));
}

QString TileView::inputTensor() const
{
    return m_input;
}

void TileView::setInputTensor(const QString& tensor)
{
    if (tensor == m_input || !m_model || !m_model->inputNames.contains(tensor))
        return;
    m_input = tensor;
    rebuildInput();
    syncControls();
    m_canvas->update();
}

QStringList TileView::inputTensors() const
{
    return m_model ? m_model->inputNames : QStringList();
}

QString TileView::message() const
{
    return m_model ? m_model->message : QString();
}

QStringList TileView::outerLoops() const
{
    QStringList out;
    if (m_model)
        for (const OuterLoop& l : m_model->outer)
            out << l.name;
    return out;
}

QString TileView::tileText() const
{
    if (!m_model || !m_model->message.isEmpty())
        return QString();
    return boxText(m_model->outName, m_model->tileAt(m_position));
}

QStringList TileView::residentText() const
{
    QStringList out;
    if (!m_model || !m_model->message.isEmpty())
        return out;
    for (const Resident& r : m_model->residents(m_position))
        out << QStringLiteral("%1: %2").arg(r.level, boxText(m_model->input.name, r.box));
    return out;
}

bool TileView::isPlaying() const
{
    return m_timer->isActive();
}

void TileView::setPlaying(bool playing)
{
    if (playing && positionCount() > 1) {
        if (m_position + 1 >= positionCount())
            setPosition(0);
        m_timer->start();
    } else {
        m_timer->stop();
    }
    syncControls();
}

void TileView::advance()
{
    if (m_position + 1 >= positionCount()) {
        setPlaying(false);
        return;
    }
    setPosition(m_position + 1);
}

} // namespace loopscope::ui
