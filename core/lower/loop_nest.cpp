// Index expression pool, buffer helpers and ping-pong analysis of the loop-nest IR.
#include "lower/loop_nest.h"

#include <algorithm>
#include <tuple>
#include <sstream>

namespace loopscope::lower {


IndexId IndexPool::linear(std::vector<Term> terms, int64_t c)
{
    // Sorted by atom, equal atoms merged and zero coefficients dropped, in place: every Linear
    // node is in this normal form, which the fast paths of add() and mul() rely on.
    // Insertion sort: a node has a handful of terms, and std::sort's call overhead was a tenth
    // of a lowering. Equal atoms are merged below, so their order among themselves is immaterial.
    if (terms.size() > 32)
        std::sort(terms.begin(), terms.end(), [](const Term& x, const Term& y) { return x.atom < y.atom; });
    else
        for (size_t i = 1; i < terms.size(); ++i)
            for (size_t j = i; j > 0 && terms[j].atom < terms[j - 1].atom; --j)
                std::swap(terms[j], terms[j - 1]);
    size_t kept = 0;
    for (size_t i = 0; i < terms.size(); ++i) {
        if (kept > 0 && terms[kept - 1].atom == terms[i].atom)
            terms[kept - 1].coeff += terms[i].coeff;
        else
            terms[kept++] = terms[i];
    }
    terms.resize(kept);
    std::erase_if(terms, [](const Term& t) { return t.coeff == 0; });
    // A single non-linear atom with coefficient 1 and no constant is that node itself.
    if (terms.size() == 1 && terms[0].coeff == 1 && c == 0 && terms[0].atom < 0)
        return -terms[0].atom - 1;
    Node n;
    n.op = Node::Op::Linear;
    n.slotsOnly = std::all_of(terms.begin(), terms.end(), [](const Term& t) { return t.atom >= 0; });
    n.terms = std::move(terms);
    n.constant = c;
    m_nodes.push_back(std::move(n));
    return static_cast<IndexId>(m_nodes.size() - 1);
}

void IndexPool::linearize(IndexId id, int64_t scale, std::vector<Term>& terms, int64_t& c) const
{
    const Node& n = m_nodes[id];
    if (n.op == Node::Op::Linear) {
        for (const Term& t : n.terms)
            terms.push_back({t.atom, t.coeff * scale});
        c += n.constant * scale;
    } else {
        terms.push_back({-id - 1, scale});
    }
}

IndexId IndexPool::constant(int64_t v)
{
    // Nodes never change once made: the small constants and the slots are made once per pool
    // and shared (a lowering asked for hundreds, each a node and an allocation).
    if (v >= kSharedConstantMin && v <= kSharedConstantMax) {
        IndexId& id = m_constants[static_cast<size_t>(v - kSharedConstantMin)];
        if (id == kNoIndex)
            id = linear({}, v);
        return id;
    }
    return linear({}, v);
}

IndexId IndexPool::slot(int s)
{
    if (s < 0)
        return linear({{s, 1}}, 0);
    if (static_cast<size_t>(s) >= m_slots.size())
        m_slots.resize(static_cast<size_t>(s) + 1, kNoIndex);
    if (m_slots[static_cast<size_t>(s)] == kNoIndex) {
        const IndexId id = linear({{s, 1}}, 0);
        m_slots[static_cast<size_t>(s)] = id;
    }
    return m_slots[static_cast<size_t>(s)];
}

IndexId IndexPool::substitute(IndexId id, int s, IndexId with)
{
    const Node n = m_nodes[id];  // a copy: the pool grows below
    switch (n.op) {
    case Node::Op::Linear: {
        IndexId out = constant(n.constant);
        for (const Term& t : n.terms) {
            const IndexId atom = t.atom >= 0 ? (t.atom == s ? with : slot(t.atom)) : substitute(-t.atom - 1, s, with);
            out = add(out, mul(atom, t.coeff));
        }
        return out;
    }
    case Node::Op::Div: return div(substitute(n.a, s, with), n.constant);
    case Node::Op::Mod: return mod(substitute(n.a, s, with), n.constant);
    case Node::Op::Min: return min(substitute(n.a, s, with), substitute(n.b, s, with));
    case Node::Op::Max: return max(substitute(n.a, s, with), substitute(n.b, s, with));
    }
    return id;
}

IndexId rollingIndex(IndexPool& index, IndexId global, int64_t extent, const std::vector<int64_t>& slotExtents)
{
    // A multiple of the extent keeps the operand non-negative (a padded access's index can
    // be below 0 where its guard skips it), so C's % is the floor modulo.
    const int64_t lo = index.bounds(global, slotExtents).first;
    const int64_t lift = lo < 0 ? (-lo + extent - 1) / extent * extent : 0;
    return index.mod(index.addConst(global, lift), extent);
}

bool IndexPool::isPureLinear(IndexId id) const
{
    const Node& n = m_nodes[id];
    return n.op == Node::Op::Linear && std::all_of(n.terms.begin(), n.terms.end(), [](const Term& t) { return t.atom >= 0; });
}

IndexId IndexPool::add(IndexId a, IndexId b)
{
    // x + 0 is x: nodes are in normal form already (see linear()), so nothing to redo.
    int64_t v = 0;
    if (isConst(b, &v) && v == 0)
        return a;
    if (isConst(a, &v) && v == 0)
        return b;
    // min(x, y) + e = min(x + e, y + e) for affine e: bounds stay flat and simplify.
    for (int pass = 0; pass < 2; ++pass) {
        IndexId mm = pass == 0 ? a : b;
        IndexId other = pass == 0 ? b : a;
        const Node& n = m_nodes[mm];
        if ((n.op == Node::Op::Min || n.op == Node::Op::Max) && isPureLinear(other)) {
            const Node copy = n;
            IndexId x = add(copy.a, other), y = add(copy.b, other);
            return copy.op == Node::Op::Min ? min(x, y) : max(x, y);
        }
    }
    std::vector<Term> t;
    t.reserve(termsOf(a) + termsOf(b));  // one allocation, not one per doubling
    int64_t c = 0;
    linearize(a, 1, t, c);
    linearize(b, 1, t, c);
    return linear(std::move(t), c);
}

IndexId IndexPool::sub(IndexId a, IndexId b)
{
    if (m_nodes[a].op == Node::Op::Min || m_nodes[a].op == Node::Op::Max || m_nodes[b].op == Node::Op::Min || m_nodes[b].op == Node::Op::Max)
        return add(a, mul(b, -1));
    std::vector<Term> t;
    t.reserve(termsOf(a) + termsOf(b));
    int64_t c = 0;
    linearize(a, 1, t, c);
    linearize(b, -1, t, c);
    return linear(std::move(t), c);
}

IndexId IndexPool::mul(IndexId a, int64_t k)
{
    if (k == 1)
        return a;
    if (k != 0 && (m_nodes[a].op == Node::Op::Min || m_nodes[a].op == Node::Op::Max)) {
        const Node copy = m_nodes[a];
        IndexId x = mul(copy.a, k), y = mul(copy.b, k);
        bool isMin = (copy.op == Node::Op::Min) == (k > 0);
        return isMin ? min(x, y) : max(x, y);
    }
    std::vector<Term> t;
    t.reserve(termsOf(a));
    int64_t c = 0;
    linearize(a, k, t, c);
    return linear(std::move(t), c);
}

IndexId IndexPool::addConst(IndexId a, int64_t k)
{
    if (k == 0)
        return a;  // x + 0 is x (nodes are in normal form already)
    // min(x, c) + k = min(x + k, c + k), and the same for max: keeps bounds flat. Copies of
    // the operands, not a reference to the node: the recursive calls append to m_nodes, which
    // may reallocate.
    const Node::Op op = m_nodes[a].op;
    const IndexId na = m_nodes[a].a, nb = m_nodes[a].b;
    if ((op == Node::Op::Min || op == Node::Op::Max) && (isConst(na) || isConst(nb))) {
        IndexId x = addConst(na, k), y = addConst(nb, k);
        return op == Node::Op::Min ? min(x, y) : max(x, y);
    }
    std::vector<Term> t;
    t.reserve(termsOf(a));
    int64_t c = k;
    linearize(a, 1, t, c);
    return linear(std::move(t), c);
}

IndexId IndexPool::div(IndexId a, int64_t k)
{
    int64_t v;
    if (k == 1)
        return a;
    if (isConst(a, &v))
        return constant(floorDiv(v, k));
    const Node& n = m_nodes[a];
    if (n.op == Node::Op::Linear) {
        bool exact = std::all_of(n.terms.begin(), n.terms.end(), [k](const Term& t) { return t.coeff % k == 0; });
        if (exact) {
            std::vector<Term> t;
            for (const Term& x : n.terms)
                t.push_back({x.atom, x.coeff / k});
            return linear(std::move(t), floorDiv(n.constant, k));
        }
    }
    Node d;
    d.op = Node::Op::Div;
    d.a = a;
    d.constant = k;
    m_nodes.push_back(d);
    return static_cast<IndexId>(m_nodes.size() - 1);
}

IndexId IndexPool::mod(IndexId a, int64_t k)
{
    int64_t v;
    if (k == 1)
        return constant(0);
    if (isConst(a, &v))
        return constant(floorMod(v, k));
    Node d;
    d.op = Node::Op::Mod;
    d.a = a;
    d.constant = k;
    m_nodes.push_back(d);
    return static_cast<IndexId>(m_nodes.size() - 1);
}

bool IndexPool::same(IndexId a, IndexId b) const
{
    if (a == b)
        return true;
    const Node& x = m_nodes[a];
    const Node& y = m_nodes[b];
    if (x.op != y.op || x.constant != y.constant)
        return false;
    if (x.op == Node::Op::Linear) {
        if (x.terms.size() != y.terms.size())
            return false;
        for (size_t i = 0; i < x.terms.size(); ++i) {
            const Term& p = x.terms[i];
            const Term& q = y.terms[i];
            if (p.coeff != q.coeff)
                return false;
            if (p.atom != q.atom && !(p.atom < 0 && q.atom < 0 && same(-p.atom - 1, -q.atom - 1)))
                return false;
        }
        return true;
    }
    return same(x.a, y.a) && (x.b == kNoIndex ? y.b == kNoIndex : (y.b != kNoIndex && same(x.b, y.b)));
}

IndexId IndexPool::min(IndexId a, IndexId b)
{
    int64_t x, y;
    if (isConst(a, &x) && isConst(b, &y))
        return constant(std::min(x, y));
    if (same(a, b))
        return a;
    // min(min(e, c1), c2) = min(e, min(c1, c2))
    if (isConst(b, &y) && m_nodes[a].op == Node::Op::Min) {
        const Node n = m_nodes[a];
        if (isConst(n.b, &x))
            return min(n.a, constant(std::min(x, y)));
        if (isConst(n.a, &x))
            return min(n.b, constant(std::min(x, y)));
    }
    Node d;
    d.op = Node::Op::Min;
    d.a = a;
    d.b = b;
    m_nodes.push_back(d);
    return static_cast<IndexId>(m_nodes.size() - 1);
}

IndexId IndexPool::max(IndexId a, IndexId b)
{
    int64_t x, y;
    if (isConst(a, &x) && isConst(b, &y))
        return constant(std::max(x, y));
    if (same(a, b))
        return a;
    Node d;
    d.op = Node::Op::Max;
    d.a = a;
    d.b = b;
    m_nodes.push_back(d);
    return static_cast<IndexId>(m_nodes.size() - 1);
}

bool IndexPool::isConst(IndexId id, int64_t* value) const
{
    const Node& n = m_nodes[id];
    if (n.op != Node::Op::Linear || !n.terms.empty())
        return false;
    if (value)
        *value = n.constant;
    return true;
}

int64_t IndexPool::evalNode(IndexId id, const int64_t* slots) const
{
    // The operands of min, max, division and modulo are mostly linear: evaluated here rather
    // than by a call each (the instruction model's counts evaluate these millions of times).
    const auto operand = [&](IndexId x) {
        const Node& m = m_nodes[x];
        if (m.op != Node::Op::Linear)
            return eval(x, slots);
        int64_t v = m.constant;
        for (const Term& t : m.terms)
            v += t.coeff * (t.atom >= 0 ? slots[t.atom] : eval(-t.atom - 1, slots));
        return v;
    };
    const Node& n = m_nodes[id];
    switch (n.op) {
    case Node::Op::Linear: return operand(id);
    case Node::Op::Div: return floorDiv(operand(n.a), n.constant);
    case Node::Op::Mod: return floorMod(operand(n.a), n.constant);
    case Node::Op::Min: return std::min(operand(n.a), operand(n.b));
    case Node::Op::Max: return std::max(operand(n.a), operand(n.b));
    }
    return 0;
}

namespace {
/// Interval evaluation of an index expression; `slot(s)` gives the interval of slot s.
template <typename SlotRange>
Interval rangeOf(const IndexPool& pool, IndexId id, const SlotRange& slot)
{
    const IndexPool::Node& n = pool.node(id);
    switch (n.op) {
    case IndexPool::Node::Op::Linear: {
        Interval r = Interval::point(n.constant);
        for (const IndexPool::Term& t : n.terms)
            r = r + (t.atom >= 0 ? slot(t.atom) : rangeOf(pool, -t.atom - 1, slot)).scaled(t.coeff);
        return r;
    }
    case IndexPool::Node::Op::Div: return rangeOf(pool, n.a, slot).divided(n.constant);
    case IndexPool::Node::Op::Mod: return rangeOf(pool, n.a, slot).modulo(n.constant);
    case IndexPool::Node::Op::Min: return rangeOf(pool, n.a, slot).min(rangeOf(pool, n.b, slot));
    case IndexPool::Node::Op::Max: return rangeOf(pool, n.a, slot).max(rangeOf(pool, n.b, slot));
    }
    return Interval::point(0);
}
} // namespace

Interval IndexPool::range(IndexId id, const std::vector<Interval>& slots) const
{
    return rangeOf(*this, id, [&](int s) { return s < static_cast<int>(slots.size()) ? slots[s] : Interval::point(0); });
}

std::pair<int64_t, int64_t> IndexPool::bounds(IndexId id, const std::vector<int64_t>& slotExtent) const
{
    const Interval r = rangeOf(*this, id, [&](int s) {
        return s < static_cast<int>(slotExtent.size()) ? Interval{0, slotExtent[s] - 1} : Interval::point(0);
    });
    return {r.lo, r.hi};
}

void IndexPool::slotsOf(IndexId id, std::vector<int>& out) const
{
    const Node& n = m_nodes[id];
    if (n.op == Node::Op::Linear) {
        for (const Term& t : n.terms) {
            if (t.atom >= 0)
                out.push_back(t.atom);
            else
                slotsOf(-t.atom - 1, out);
        }
        return;
    }
    if (n.a != kNoIndex)
        slotsOf(n.a, out);
    if (n.b != kNoIndex)
        slotsOf(n.b, out);
}

std::string IndexPool::str(IndexId id, const std::vector<std::string>& names) const
{
    const Node& n = m_nodes[id];
    auto atomStr = [&](int atom) {
        if (atom >= 0)
            return atom < static_cast<int>(names.size()) ? names[atom] : "s" + std::to_string(atom);
        return str(-atom - 1, names);
    };
    auto wrapped = [&](IndexId x) {
        const Node& m = m_nodes[x];
        std::string s = str(x, names);
        bool simple = m.op != Node::Op::Linear || (m.terms.size() <= 1 && (m.terms.empty() || m.constant == 0) && (m.terms.empty() || m.terms[0].coeff == 1));
        return simple ? s : "(" + s + ")";
    };
    switch (n.op) {
    case Node::Op::Linear: {
        std::ostringstream os;
        bool first = true;
        std::vector<Term> ordered;
        for (const Term& t : n.terms)
            if (t.atom >= 0)
                ordered.push_back(t);
        for (const Term& t : n.terms)
            if (t.atom < 0)
                ordered.push_back(t);
        for (const Term& t : ordered) {
            int64_t c = t.coeff;
            if (first) {
                if (c < 0) {
                    os << '-';
                    c = -c;
                }
            } else {
                os << (c < 0 ? " - " : " + ");
                c = c < 0 ? -c : c;
            }
            os << atomStr(t.atom);
            if (c != 1)
                os << '*' << c;
            first = false;
        }
        if (first)
            os << n.constant;
        else if (n.constant > 0)
            os << " + " << n.constant;
        else if (n.constant < 0)
            os << " - " << -n.constant;
        return os.str();
    }
    case Node::Op::Div: return wrapped(n.a) + " / " + std::to_string(n.constant);
    case Node::Op::Mod: return wrapped(n.a) + " % " + std::to_string(n.constant);
    case Node::Op::Min: return "min(" + str(n.a, names) + ", " + str(n.b, names) + ")";
    case Node::Op::Max: return "max(" + str(n.a, names) + ", " + str(n.b, names) + ")";
    }
    return "?";
}

int64_t Buffer::elements() const
{
    int64_t n = 1;
    for (int64_t s : shape)
        n *= s;
    return n;
}

std::vector<int> Buffer::storageOrder() const
{
    if (!order.empty())
        return order;
    std::vector<int> out(shape.size());
    for (size_t d = 0; d < out.size(); ++d)
        out[d] = static_cast<int>(d);
    return out;
}

std::string slideLoopName(const LoopNest& nest, const Buffer& buffer)
{
    for (const Stmt& s : nest.stmts)
        if (s.kind == Stmt::Kind::For && s.stage == buffer.atStage && s.var == buffer.atVar)
            return s.name;
    return "?";
}

IndexId LoopNest::localIndex(const Buffer& b, int dim, IndexId global)
{
    if (dim == b.rollDim)
        return rollingIndex(index, global, b.shape[dim], slotExtents);
    IndexId rel = b.origin[dim] == kNoIndex ? global : index.sub(global, b.origin[dim]);
    return index.div(rel, b.step[dim]);
}

namespace {

bool allocatedInside(const LoopNest& n, int buffer, int stmt)
{
    std::vector<int> pending{stmt};
    while (!pending.empty()) {
        const Stmt& s = n.stmts[pending.back()];
        pending.pop_back();
        if (s.kind == Stmt::Kind::Alloc && s.buffer == buffer)
            return true;
        pending.insert(pending.end(), s.body.begin(), s.body.end());
    }
    return false;
}

void findPingPongs(const LoopNest& n, int id, int loop, std::vector<bool>& out)
{
    const Stmt& s = n.stmts[id];
    if (s.kind == Stmt::Kind::For)
        loop = id;
    if (s.kind == Stmt::Kind::Alloc && n.buffers[s.buffer].doubleBuffer && loop >= 0) {
        const Buffer& b = n.buffers[s.buffer];
        bool sourceBefore = true;
        for (int c : s.body)
            if (n.stmts[c].kind == Stmt::Kind::Copy && !b.write) {
                const int src = n.stmts[c].src;
                sourceBefore = n.buffers[src].role == Buffer::Role::Home || !allocatedInside(n, src, loop);
            }
        out[s.buffer] = sourceBefore;
    }
    for (int c : s.body)
        findPingPongs(n, c, loop, out);
}

} // namespace

std::vector<bool> pingPongBuffers(const LoopNest& nest)
{
    std::vector<bool> out(nest.buffers.size(), false);
    // Only a double-buffered buffer can ping-pong: most nests have none, and need no walk.
    if (nest.root >= 0 && std::any_of(nest.buffers.begin(), nest.buffers.end(), [](const Buffer& b) { return b.doubleBuffer; }))
        findPingPongs(nest, nest.root, -1, out);
    return out;
}

} // namespace loopscope::lower
