// Copies between memory levels as calls of the DMA hooks: one call per contiguous run (the
// trailing dimensions that are contiguous in both buffers merge into one row), the rows of a
// strided dimension in the same call, C loops around it for the dimensions outside; and the
// ping-pong of double buffers (copyShape in c_decisions.h decides the calls).
#include "codegen/c_writer.h"

namespace loopscope::codegen::detail {

using lower::Buffer;
using lower::IndexId;
using lower::Stmt;

void CWriter::copyRegion(int id, const Stmt& s, int transfer, const std::string& dstSelect)
{
    const CopyShape shape = copyShape(m_n, m_n.stmts[id]);
    const size_t dims = s.region.min.size();
    const int64_t esize = shape.elementBytes;
    line("{");
    ++m_indent;
    std::string nonEmpty;
    std::vector<IndexId> mins(dims);
    for (size_t d = 0; d < dims; ++d) {
        line("const int n" + std::to_string(d) + " = " + strip(ix(s.region.count[d])) + ";");
        nonEmpty += (d ? " && " : "") + std::string("n") + std::to_string(d) + " > 0";
        mins[d] = s.region.min[d];
        if (!m_ix.isPureLinear(mins[d])) {
            int slot = newTemp("m" + std::to_string(d));
            line("const int " + m_temp[slot] + " = " + strip(ix(mins[d])) + ";");
            mins[d] = m_ix.slot(slot);
        }
    }
    // A widening copy (an int8 tensor into an int16 cache) runs on the core: counts and strides
    // in elements, and the offset the cache holds.
    const bool widen = m_n.buffers[s.buffer].dtype != m_n.buffers[s.src].dtype;
    const int64_t unit = widen ? 1 : esize;
    const std::string rowBytes = shape.rowContiguous
        ? "(size_t)n" + std::to_string(shape.runStart) + " * " + std::to_string(shape.runInnerElements * unit)
        : std::to_string(unit);
    const std::string rows = shape.hasRowDim ? "(size_t)n" + std::to_string(shape.rowDim) : "1";
    const std::string dstStride = shape.hasRowDim ? std::to_string(shape.dstRowStride * unit) : "0";
    const std::string srcStride = shape.hasRowDim ? std::to_string(shape.srcRowStride * unit) : "0";
    line("if (" + nonEmpty + ") {");
    ++m_indent;
    std::vector<IndexId> g(mins);
    for (size_t d = 0; d < shape.outerDims; ++d) {
        int tslot = newTemp("t" + std::to_string(d));
        const std::string& t = m_temp[tslot];
        line("for (int " + t + " = 0; " + t + " < n" + std::to_string(d) + "; ++" + t + ") {");
        ++m_indent;
        g[d] = m_ix.add(mins[d], m_ix.mul(m_ix.slot(tslot), s.region.step[d]));
    }
    const std::string dstExpr = "&" + m_bufName[s.buffer] + dstSelect + "[" + strip(ix(flat(s.buffer, g))) + "]";
    const std::string srcExpr = "&" + m_bufName[s.src] + select(s.src) + "[" + strip(ix(flat(s.src, g))) + "]";
    if (widen)
        line("loopscope_widen_copy(" + dstExpr + ", " + srcExpr + ", " + rowBytes + ", " + rows + ", " + dstStride + ", " + srcStride + ", "
             + std::to_string(m_n.buffers[s.buffer].valueOffset - m_n.buffers[s.src].valueOffset) + ", " + std::to_string(transfer) + ");");
    else
        line("loopscope_dma_copy(" + dstExpr + ", " + srcExpr + ", " + rowBytes + ", " + rows + ", " + dstStride + ", " + srcStride + ", "
             + std::to_string(transfer) + ");");
    for (size_t i = 0; i < shape.outerDims; ++i) {
        --m_indent;
        line("}");
    }
    --m_indent;
    line("}");
    --m_indent;
    line("}");
}

void CWriter::copy(int id, const Stmt& s)
{
    const Buffer& src = m_n.buffers[s.src];
    const Buffer& dst = m_n.buffers[s.buffer];
    int transfer = 0;
    for (size_t i = 0; i < m_transfers.size(); ++i)
        if (m_transfers[i].tensor == src.tensor && m_transfers[i].from == src.level && m_transfers[i].to == dst.level)
            transfer = static_cast<int>(i);
    std::string what = "/* " + m_k.tensors[src.tensor].name + ": " + levelName(src.level) + " -> " + levelName(dst.level);
    // A double-buffered read: fetch the first tile, wait, start the next one, compute.
    auto dbRead = m_db.find(s.buffer);
    if (dbRead != m_db.end() && !dst.write) {
        const Stmt& loop = m_n.stmts[dbRead->second.loop];
        const std::string x = m_slot[loop.slot];
        // `ready` says whether the previous iteration prefetched this tile (it did not on the
        // first iteration, nor when guards skipped the previous one).
        const std::string ready = m_bufName[s.buffer] + "_ready";
        line(what + ", ping-pong over " + loop.name + " */");
        line("if (!" + ready + ") {");
        ++m_indent;
        copyRegion(id, s, transfer, "[" + m_dbSelect[s.buffer] + "]");
        --m_indent;
        line("}");
        line("loopscope_dma_wait();");
        m_override[loop.slot] = "(" + x + " + 1)";
        std::string next = conds(dbRead->second.guards);
        line(ready + " = " + x + " + 1 < " + std::to_string(loop.extent) + (next == "1" ? "" : " && " + next) + ";");
        line("if (" + ready + ") {");
        ++m_indent;
        for (const auto& [key, slot] : m_originSlot)
            if (key.first == s.buffer) {
                int nextSlot = newTemp(m_temp[slot] + "_next");
                line("const int " + m_temp[nextSlot] + " = " + strip(ix(dst.origin[key.second])) + ";");
                m_nextOriginSlot[key] = nextSlot;
            }
        copyRegion(id, s, transfer, "[(" + x + " + 1) & 1]");
        m_nextOriginSlot.clear();
        --m_indent;
        line("}");
        m_override.clear();
        return;
    }
    auto dbWrite = m_db.find(s.src);
    if (dbWrite != m_db.end() && src.write) {
        // Write-back of a double buffer: wait for the previous tile's, then start this one.
        line(what + ", ping-pong write-back */");
        line("loopscope_dma_wait();");
        copyRegion(id, s, transfer, select(s.buffer));
        return;
    }
    if (dst.dtype != src.dtype) {
        line(what + ", widened to " + ir::dtypeName(dst.dtype) + " by the core */");
        copyRegion(id, s, transfer, select(s.buffer));
        return;
    }
    line(what + " */");
    copyRegion(id, s, transfer, select(s.buffer));
    line("loopscope_dma_wait();");
}

} // namespace loopscope::codegen::detail
