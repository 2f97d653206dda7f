// Row layouts and row placement of buffers in row-addressed levels.
#include "lower/gemmini_layout.h"

#include <algorithm>

namespace loopscope::lower {

int64_t rowLanes(const hw::Target& t, const Buffer& b)
{
    if (b.level < 0 || b.level >= static_cast<int>(t.levels.size()) || t.levels[b.level].rowBytes <= 0)
        return 0;
    if (t.compute.peArray)
        return t.compute.peArray->cols;
    return std::max<int64_t>(1, t.levels[b.level].rowBytes / ir::dtypeBytes(b.dtype));
}

RowLayout rowLayout(const hw::Target& t, const Buffer& b)
{
    RowLayout l;
    l.lanes = std::max<int64_t>(1, rowLanes(t, b));
    const std::vector<int> order = b.storageOrder();
    if (order.empty())
        return l;
    for (size_t i = 0; i + 1 < order.size(); ++i)
        l.outerRows *= b.shape[order[i]];
    l.colBlocks = (b.shape[order.back()] + l.lanes - 1) / l.lanes;
    return l;
}

IndexId rowIndex(IndexPool& pool, const hw::Target& t, const Buffer& b, const std::vector<IndexId>& global)
{
    const RowLayout l = rowLayout(t, b);
    const std::vector<int> order = b.storageOrder();
    auto local = [&](int d) {
        const IndexId rel = b.origin[d] == kNoIndex ? global[d] : pool.sub(global[d], b.origin[d]);
        return pool.div(rel, b.step[d]);
    };
    IndexId outer = pool.constant(0);
    for (size_t i = 0; i + 1 < order.size(); ++i)
        outer = pool.add(pool.mul(outer, b.shape[order[i]]), local(order[i]));
    return pool.add(pool.mul(pool.div(local(order.back()), l.lanes), l.outerRows), outer);
}

namespace {

void place(const LoopNest& n, int id, std::vector<int64_t>& top, std::vector<int64_t>& peak, std::vector<RowPlacement>& out)
{
    const Stmt& s = n.stmts[id];
    int level = -1;
    int64_t taken = 0;
    if (s.kind == Stmt::Kind::Alloc) {
        const Buffer& b = n.buffers[s.buffer];
        if (rowLanes(*n.target, b) > 0 && b.role != Buffer::Role::Home) {
            RowPlacement& p = out[s.buffer];
            p.buffer = s.buffer;
            p.level = level = b.level;
            p.base = top[level];
            p.rows = rowLayout(*n.target, b).rows();
            p.doubled = b.doubleBuffer;
            taken = p.rows * (p.doubled ? 2 : 1);
            top[level] += taken;
            peak[level] = std::max(peak[level], top[level]);
        }
    }
    for (int c : s.body)
        place(n, c, top, peak, out);
    if (level >= 0)
        top[level] -= taken;
}

} // namespace

std::vector<RowPlacement> placeRows(const LoopNest& n, std::vector<int64_t>* peakRows)
{
    std::vector<RowPlacement> out(n.buffers.size());
    const size_t levels = n.target->levels.size();
    std::vector<int64_t> top(levels, 0), peak(levels, 0);
    if (n.root >= 0)
        place(n, n.root, top, peak, out);
    if (peakRows)
        *peakRows = peak;
    return out;
}

} // namespace loopscope::lower
