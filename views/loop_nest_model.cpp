// Builds the rows of the loop-nest view by walking the statements in the printer's order and
// pairing each with its printed line, so the view reads exactly like `loopscope-cli lower`.
#include "loop_nest_model.h"

#include "analysis/cost_report.h"
#include "analysis/instructions.h"
#include "lower/gemmini_layout.h"
#include "lower/loop_nest.h"

#include <cmath>

#include <QBrush>
#include <QColor>
#include <QFont>
#include <QFontDatabase>

namespace loopscope::ui {

QString humanBytes(int64_t bytes)
{
    const char* units[] = {"B", "KiB", "MiB", "GiB"};
    double v = static_cast<double>(bytes);
    int u = 0;
    while (u < 3 && v >= 1024) {
        v /= 1024;
        ++u;
    }
    if (v == static_cast<double>(static_cast<int64_t>(v)))
        return QStringLiteral("%1 %2").arg(static_cast<qint64>(v)).arg(units[u]);
    return QStringLiteral("%1 %2").arg(v, 0, 'f', 1).arg(units[u]);
}

namespace {

QString qs(const std::string& s) { return QString::fromStdString(s); }

QString shapeText(const std::vector<int64_t>& shape)
{
    QStringList parts;
    for (int64_t d : shape)
        parts << QString::number(d);
    return parts.join(QStringLiteral(" x "));
}

/// Pairs statements with printed lines while walking the nest like the printer does.
class RowBuilder {
public:
    RowBuilder(const lower::LoopNest& nest, const sched::Program& program,
               std::vector<NestRow>& rows, std::vector<int>& top, bool cpu)
        : m_n(nest), m_p(program), m_rows(rows), m_top(top)
    {
        // What GCC -O2 is expected to make of each loop of the exported C (the instruction
        // model's decisions; a CPU target only).
        if (cpu) {
            m_decisions = analysis::loopDecisions(nest, *program.target);
            m_decisionOf.assign(nest.stmts.size(), -1);
            for (size_t i = 0; i < m_decisions.size(); ++i)
                m_decisionOf[static_cast<size_t>(m_decisions[i].stmt)] = static_cast<int>(i);
        }
        const std::string text = lower::print(nest);
        size_t start = 0;
        while (start < text.size()) {
            size_t end = text.find('\n', start);
            if (end == std::string::npos)
                end = text.size();
            m_lines.push_back(qs(text.substr(start, end - start)));
            start = end + 1;
        }
        m_cursor = 1;  // "// kernel on target"
    }

    void run()
    {
        for (const auto& b : m_n.buffers)
            if (b.role == lower::Buffer::Role::Home) {
                NestRow r = next(NestRow::Kind::Tensor, -1, 0, -1);
                r.tensor = tensorName(b);
                r.buffer = qs(b.name);
                r.level = levelName(b.level);
                r.touched = {r.tensor};
                const auto& k = *m_n.kernel;
                const char* role = k.isInput(b.tensor) ? "an input" : k.isIntermediate(b.tensor) ? "an intermediate" : "an output";
                r.badges << humanBytes(b.bytes());
                r.tooltip = QObject::tr("%1 is %2 of the kernel: %3 %4 (%5), stored in %6.\n"
                                        "Right-click to cache it in a faster level.")
                                .arg(r.tensor, QString::fromLatin1(role), shapeText(b.shape),
                                     QString::fromLatin1(ir::dtypeName(b.dtype)), humanBytes(b.bytes()), r.level);
                add(std::move(r));
            }
        walk(m_n.root, -1, 0, -1);
        // A row touches what its body touches.
        for (int i = static_cast<int>(m_rows.size()) - 1; i >= 0; --i) {
            const int p = m_rows[i].parent;
            if (p < 0)
                continue;
            for (const QString& t : m_rows[i].touched)
                if (!m_rows[p].touched.contains(t))
                    m_rows[p].touched << t;
        }
    }

private:
    QString levelName(int l) const { return l < 0 ? QStringLiteral("registers") : qs(m_n.target->levels[l].name); }
    QString tensorName(const lower::Buffer& b) const
    {
        return b.tensor >= 0 ? qs(m_n.kernel->tensors[b.tensor].name) : QString();
    }

    /// A row for the next printed line: code and badges from the line's comment.
    NestRow next(NestRow::Kind kind, int parent, int depth, int enclosing)
    {
        NestRow r;
        r.kind = kind;
        r.parent = parent;
        r.depth = depth;
        r.enclosingLoop = enclosing;
        QString line = m_cursor < m_lines.size() ? m_lines[m_cursor] : QStringLiteral("?");
        ++m_cursor;
        line = line.trimmed();
        const QStringList parts = line.split(QStringLiteral("  // "));
        r.code = parts.front();
        m_firstRows.clear();
        for (int i = 1; i < parts.size(); ++i) {
            // Local addresses (rows of a row-addressed level) go to the tooltip, not the badges.
            if (parts[i].startsWith(QLatin1String("rows: "))) {
                m_firstRows = parts[i].mid(6);
                continue;
            }
            for (const QString& b : parts[i].split(QStringLiteral(", ")))
                if (!b.startsWith(QLatin1String("rows ")) && !b.startsWith(QLatin1String("row ")))
                    r.badges << b.trimmed();
        }
        return r;
    }

    /// A badge and a tooltip line for what the compiler makes of loop statement `id`.
    void aboutCompiledLoop(NestRow& r, int id)
    {
        if (id < 0 || static_cast<size_t>(id) >= m_decisionOf.size() || m_decisionOf[static_cast<size_t>(id)] < 0)
            return;
        const analysis::LoopDecision& d = m_decisions[static_cast<size_t>(m_decisionOf[static_cast<size_t>(id)])];
        using C = analysis::LoopDecision::Compiled;
        auto say = [&r](const QString& badge, const QString& line) {
            r.badges << badge;
            r.tooltip += QStringLiteral("\nIn the exported C: ") + line;
        };
        switch (d.compiled) {
        case C::UnrolledByCompiler:
            say(QObject::tr("GCC unrolls"), QObject::tr("two iterations around little code, which GCC -O2 unrolls\n"
                                                        "completely (no loop control is counted for it; analyze --loops lists every loop)."));
            break;
        case C::Memset:
            say(QObject::tr("memset"), QObject::tr("it only zeroes an accumulator in memory, which GCC -O2 makes calls of memset\n"
                                                   "(one per contiguous run of 32 bytes or more)."));
            break;
        case C::Memcpy:
            say(QObject::tr("memcpy"), QObject::tr("it only copies elements unchanged to or from an accumulator in memory,\n"
                                                   "which GCC -O2 makes calls of memcpy (one per contiguous run of more than 64 bytes)."));
            break;
        case C::ZeroedInLine:
            say(QObject::tr("in line"), QObject::tr("it only zeroes an accumulator in memory, in runs too short for memset:\n"
                                                    "GCC -O2 stores the zeroes in line."));
            break;
        case C::CopiedInLine:
            say(QObject::tr("in line"), QObject::tr("it only copies elements unchanged, in runs too short for memcpy:\n"
                                                    "GCC -O2 copies them in line (loads and STMs)."));
            break;
        case C::Loop: {
            QString line = QObject::tr("\nIn the exported C: a loop, about %L1 instructions predicted inside it").arg(std::llround(d.instructions));
            if (d.registers >= 0) {
                line += QObject::tr("; %1 values live across an iteration for %2 registers").arg(std::llround(d.registers)).arg(std::llround(analysis::kAllocatableRegisters));
                if (d.registers > analysis::kAllocatableRegisters)
                    line += QObject::tr(" (%1 spilled to the stack)").arg(std::llround(d.registers - analysis::kAllocatableRegisters));
            }
            r.tooltip += line + QLatin1Char('.');
            break;
        }
        case C::UnrolledBySchedule:
        case C::OneIteration: break;
        }
    }

    int add(NestRow r)
    {
        const int id = static_cast<int>(m_rows.size());
        if (r.parent >= 0)
            m_rows[r.parent].children.push_back(id);
        else
            m_top.push_back(id);
        m_rows.push_back(std::move(r));
        return id;
    }

    void aboutBuffer(NestRow& r, int buffer)
    {
        const lower::Buffer& b = m_n.buffers[buffer];
        r.buffer = qs(b.name);
        r.tensor = tensorName(b);
        r.level = levelName(b.level);
        if (!r.tensor.isEmpty() && !r.touched.contains(r.tensor))
            r.touched << r.tensor;
    }

    /// Where the operands of an instruction live: rows of the scratchpad and the accumulator.
    QString addresses(const lower::MatmulOp& op)
    {
        if (m_rowPlacement.empty())
            m_rowPlacement = lower::placeRows(m_n);
        QStringList parts;
        for (int b : {op.a, op.b, op.c}) {
            if (b < 0 || b >= static_cast<int>(m_rowPlacement.size()) || m_rowPlacement[b].level < 0)
                continue;
            const lower::RowPlacement& pl = m_rowPlacement[b];
            QString text = QObject::tr("%1: %2 rows %3-%4").arg(qs(m_n.buffers[b].name), levelName(pl.level)).arg(pl.base).arg(pl.base + pl.rows - 1);
            if (pl.doubled)
                text += QObject::tr(" and %1-%2 (double buffer)").arg(pl.base + pl.rows).arg(pl.base + 2 * pl.rows - 1);
            parts << text;
        }
        if (parts.isEmpty())
            return QString();
        return QObject::tr("Local addresses: %1.").arg(parts.join(QStringLiteral("; ")))
            + (m_firstRows.isEmpty() ? QString() : QObject::tr("\nFirst rows of the operands of this block: %1.").arg(m_firstRows));
    }

    QString loopLabelOf(int row) const { return row < 0 ? QObject::tr("the whole program") : m_rows[row].label; }

    void walk(int id, int parent, int depth, int enclosing)
    {
        const lower::Stmt& s = m_n.stmts[id];
        using K = lower::Stmt::Kind;
        switch (s.kind) {
        case K::Block:
            for (int c : s.body)
                walk(c, parent, depth, enclosing);
            return;
        case K::For: {
            NestRow r = next(NestRow::Kind::Loop, parent, depth, enclosing);
            r.stage = s.stage;
            r.var = s.var;
            r.stageName = qs(m_n.kernel->stages[s.stage].name);
            r.loopName = s.var >= 0 && s.stage < static_cast<int>(m_p.stages.size())
                ? qs(m_p.stages[s.stage].vars[s.var].name) : qs(s.name);
            r.label = qs(s.name);
            r.extent = s.extent;
            r.loopKind = s.loopKind;
            r.reduction = s.reduction;
            QString kind = s.loopKind == sched::LoopKind::Serial ? QObject::tr("serial") : QString::fromLatin1(sched::loopKindName(s.loopKind));
            r.tooltip = QObject::tr("Loop %1 of stage %2: %3 iterations, %4%5.\n"
                                    "Right-click for the schedule primitives. Keys: S split, T tile, F fuse,\n"
                                    "U unroll, V vectorize, P parallel, Alt+Up/Alt+Down move out/in.")
                            .arg(r.label, r.stageName)
                            .arg(s.extent)
                            .arg(kind, s.reduction ? QObject::tr(", a reduction") : QString());
            aboutCompiledLoop(r, id);
            const int row = add(std::move(r));
            for (int c : s.body)
                walk(c, row, depth + 1, row);
            return;
        }
        case K::If: {
            NestRow r = next(NestRow::Kind::Guard, parent, depth, enclosing);
            const auto why = s.conds.empty() ? lower::Cond::Why::PartialTile : s.conds.front().why;
            r.tooltip = why == lower::Cond::Why::Padding
                ? QObject::tr("Padding guard: reads outside the input are zero and skipped.")
                : why == lower::Cond::Why::Region
                ? QObject::tr("Region guard: only the part of the tile that exists is computed.")
                : why == lower::Cond::Why::Slide
                ? QObject::tr("Sliding window: the first iteration fetches the whole tile, later ones\n"
                              "only the part the previous tile did not hold (the rest stays in place).")
                : QObject::tr("Partial tile: the split factor does not divide the extent, so the last\n"
                              "tile is smaller and this guard skips the missing iterations.");
            const int row = add(std::move(r));
            for (int c : s.body)
                walk(c, row, depth + 1, enclosing);
            return;
        }
        case K::Alloc: {
            NestRow r = next(NestRow::Kind::Alloc, parent, depth, enclosing);
            aboutBuffer(r, s.buffer);
            const lower::Buffer& b = m_n.buffers[s.buffer];
            r.badges << humanBytes(b.footprintBytes());
            QString role = b.role == lower::Buffer::Role::Accumulator ? QObject::tr("the accumulator")
                : b.role == lower::Buffer::Role::Intermediate ? QObject::tr("the intermediate result")
                : b.write ? QObject::tr("a write cache (cache_write)") : QObject::tr("a read cache (cache_read)");
            r.tooltip = QObject::tr("%1: %2 of %3 in %4, %5 %6 = %7%8.\nAllocated once per iteration of %9.")
                            .arg(r.buffer, role, r.tensor, r.level, shapeText(b.shape),
                                 QString::fromLatin1(ir::dtypeName(b.dtype)), humanBytes(b.footprintBytes()),
                                 b.doubleBuffer ? QObject::tr(" (two buffers: double-buffered)") : QString(),
                                 loopLabelOf(enclosing));
            add(std::move(r));
            for (int c : s.body)
                walk(c, parent, depth, enclosing);
            return;
        }
        case K::Copy: {
            NestRow r = next(NestRow::Kind::Copy, parent, depth, enclosing);
            aboutBuffer(r, s.buffer);
            const lower::Buffer& src = m_n.buffers[s.src];
            const lower::Buffer& dst = m_n.buffers[s.buffer];
            r.tensor = tensorName(src);
            r.touched = {r.tensor};
            r.tooltip = QObject::tr("Copies a tile of %1 from %2 to %3 (%4 -> %5), once per iteration of %6%7.")
                            .arg(r.tensor, qs(src.name), qs(dst.name), levelName(src.level), levelName(dst.level),
                                 loopLabelOf(enclosing),
                                 s.doubleBuffer ? QObject::tr(";\nprefetched during the previous iteration (double buffer)") : QString());
            add(std::move(r));
            return;
        }
        case K::Matmul: {
            NestRow r = next(NestRow::Kind::Matmul, parent, depth, enclosing);
            const lower::MatmulOp& op = m_n.matmuls[s.op];
            aboutBuffer(r, op.c);
            for (int b : {op.a, op.b}) {
                const QString t = tensorName(m_n.buffers[b]);
                if (!t.isEmpty() && !r.touched.contains(t))
                    r.touched << t;
            }
            const bool ws = op.dataflow == sched::Dataflow::WeightStationary;
            r.tooltip = QObject::tr("One accelerator instruction per block (gemmini_matmul, %1x%2x%3 at most): a preload, then a compute\n"
                                    "on the PE array in %4. %5 += %6 x %7.\n%8\n%9%10")
                            .arg(op.extentI).arg(op.extentJ).arg(op.extentK)
                            .arg(ws ? QObject::tr("weight-stationary dataflow (the block of %1 stays in the PEs)").arg(tensorName(m_n.buffers[op.b]))
                                    : QObject::tr("output-stationary dataflow (the partial sums stay in the PEs)"))
                            .arg(qs(m_n.buffers[op.c].name), qs(m_n.buffers[op.a].name), qs(m_n.buffers[op.b].name))
                            .arg(addresses(op))
                            .arg(op.reuseSlot >= 0 ? QObject::tr("Consecutive instructions over %1 (%2 of them) keep the %3 in the PEs.")
                                                         .arg(qs(m_n.slotNames.size() > size_t(op.reuseSlot) ? m_n.slotNames[op.reuseSlot] : std::string("?")))
                                                         .arg(op.reuseExtent)
                                                         .arg(ws ? QObject::tr("weights") : QObject::tr("partial sums"))
                                                   : QObject::tr("Every instruction loads its block into the PEs."))
                            .arg(op.offsetA != 0 ? QObject::tr("\nThe offset %1 on %2 is folded into the initial accumulator row.")
                                                       .arg(op.offsetA).arg(tensorName(m_n.buffers[op.a]))
                                                 : QString());
            add(std::move(r));
            return;
        }
        case K::Fill: {
            NestRow r = next(NestRow::Kind::Fill, parent, depth, enclosing);
            aboutBuffer(r, s.buffer);
            r.tooltip = QObject::tr("Writes %1 into the padding halo of %2 in %3 (%4): the array reads every row of the block,\n"
                                    "so the rows outside the input hold the value that makes their products zero.")
                            .arg(s.fillValue).arg(r.tensor, r.buffer, r.level);
            add(std::move(r));
            return;
        }
        case K::AccInit:
        case K::Load:
        case K::Compute:
        case K::AccStore: {
            const NestRow::Kind kind = s.kind == K::AccInit ? NestRow::Kind::Init
                : s.kind == K::Load ? NestRow::Kind::Load
                : s.kind == K::Compute ? NestRow::Kind::Compute : NestRow::Kind::Store;
            NestRow r = next(kind, parent, depth, enclosing);
            aboutBuffer(r, s.buffer);
            if (s.src >= 0) {
                const QString other = tensorName(m_n.buffers[s.src]);
                if (!other.isEmpty() && !r.touched.contains(other))
                    r.touched << other;
            }
            r.tooltip = kind == NestRow::Kind::Load
                ? QObject::tr("Loads an element of %1 from %2 (%3) into a register.").arg(r.tensor, r.buffer, r.level)
                : kind == NestRow::Kind::Store ? QObject::tr("Stores the finished value into %1 (%2).").arg(r.buffer, r.level)
                : kind == NestRow::Kind::Init ? QObject::tr("Starts the accumulator of %1.").arg(r.tensor)
                : QObject::tr("The computation of %1.").arg(r.tensor);
            add(std::move(r));
            return;
        }
        }
    }

    const lower::LoopNest& m_n;
    const sched::Program& m_p;
    std::vector<NestRow>& m_rows;
    std::vector<int>& m_top;
    QStringList m_lines;
    std::vector<analysis::LoopDecision> m_decisions;
    std::vector<int> m_decisionOf;  ///< per statement: its index in m_decisions, or -1
    int m_cursor = 0;
    std::vector<lower::RowPlacement> m_rowPlacement;  ///< of the row-addressed levels, computed on the first instruction
    QString m_firstRows;  ///< the printed first rows of the last line's operands ("A_scratchpad i.outer*16; ...")
};

} // namespace

LoopNestModel::LoopNestModel(QObject* parent)
    : QAbstractItemModel(parent), m_font(QFontDatabase::systemFont(QFontDatabase::FixedFont)), m_boldFont(m_font)
{
    m_boldFont.setBold(true);
}

bool LoopNestModel::setSnapshot(const Snapshot& snapshot)
{
    // A failing step's loops and tensors are marked until the trace is repaired; other
    // highlights belong to the previous rows.
    QSet<QString> hlLoops;
    QSet<QString> hlTensors;
    if (snapshot.failedStep) {
        for (const auto& l : snapshot.failedStep->loops)
            hlLoops.insert(QString::fromStdString(l));
        for (const auto& t : snapshot.failedStep->tensors)
            hlTensors.insert(QString::fromStdString(t));
    }
    std::vector<NestRow> rows;
    std::vector<int> top;
    if (!snapshot.empty() && snapshot.nest)
        RowBuilder(*snapshot.nest, *snapshot.program, rows, top, snapshot.report && snapshot.report->instructions.available).run();

    bool sameShape = top == m_top && rows.size() == m_rows.size();
    for (size_t i = 0; sameShape && i < rows.size(); ++i)
        sameShape = rows[i].parent == m_rows[i].parent && rows[i].children == m_rows[i].children;
    if (!sameShape) {
        beginResetModel();
        m_hlLoops = std::move(hlLoops);
        m_hlTensors = std::move(hlTensors);
        m_hlError = snapshot.failedStep.has_value();
        m_snapshot = snapshot;
        m_rows = std::move(rows);
        m_top = std::move(top);
        endResetModel();
        return true;
    }
    std::vector<int> oldHighlight(m_rows.size());
    for (size_t i = 0; i < m_rows.size(); ++i)
        oldHighlight[i] = highlightOf(m_rows[i]);
    m_hlLoops = std::move(hlLoops);
    m_hlTensors = std::move(hlTensors);
    m_hlError = snapshot.failedStep.has_value();
    m_snapshot = snapshot;
    std::vector<int> changed;
    for (size_t i = 0; i < rows.size(); ++i)
        if (!(rows[i] == m_rows[i]) || highlightOf(rows[i]) != oldHighlight[i])
            changed.push_back(static_cast<int>(i));
    m_rows = std::move(rows);
    for (int i : changed) {
        const QModelIndex idx = indexOfRow(i);
        emit dataChanged(idx, idx);
    }
    return false;
}

void LoopNestModel::setHighlight(const QStringList& loops, const QStringList& tensors, bool error)
{
    QSet<QString> l(loops.begin(), loops.end());
    QSet<QString> t(tensors.begin(), tensors.end());
    if (l == m_hlLoops && t == m_hlTensors && error == m_hlError)
        return;
    m_hlLoops = std::move(l);
    m_hlTensors = std::move(t);
    m_hlError = error;
    if (m_top.empty())
        return;
    const QList<int> roles{HighlightRole, Qt::BackgroundRole};
    emit dataChanged(index(0, 0), index(static_cast<int>(m_top.size()) - 1, 0), roles);
    for (size_t i = 0; i < m_rows.size(); ++i)
        if (!m_rows[i].children.empty()) {
            const QModelIndex p = indexOfRow(static_cast<int>(i));
            emit dataChanged(index(0, 0, p), index(static_cast<int>(m_rows[i].children.size()) - 1, 0, p), roles);
        }
}

int LoopNestModel::highlightOf(const NestRow& r) const
{
    bool hit = false;
    if (r.kind == NestRow::Kind::Loop)
        hit = m_hlLoops.contains(r.label) || m_hlLoops.contains(r.loopName);
    else if (r.kind != NestRow::Kind::Guard && r.kind != NestRow::Kind::Init)
        hit = (!r.tensor.isEmpty() && m_hlTensors.contains(r.tensor));
    if (!hit)
        return 0;
    return m_hlError ? 2 : 1;
}

const NestRow* LoopNestModel::row(const QModelIndex& index) const
{
    if (!index.isValid() || index.internalId() >= m_rows.size())
        return nullptr;
    return &m_rows[index.internalId()];
}

QModelIndex LoopNestModel::indexOfRow(int rowId) const
{
    if (rowId < 0 || rowId >= static_cast<int>(m_rows.size()))
        return {};
    const int p = m_rows[rowId].parent;
    const std::vector<int>& siblings = p < 0 ? m_top : m_rows[p].children;
    for (size_t i = 0; i < siblings.size(); ++i)
        if (siblings[i] == rowId)
            return createIndex(static_cast<int>(i), 0, static_cast<quintptr>(rowId));
    return {};
}

QModelIndex LoopNestModel::findLoop(const QString& loop, const QString& stage) const
{
    for (size_t i = 0; i < m_rows.size(); ++i) {
        const NestRow& r = m_rows[i];
        if (r.kind == NestRow::Kind::Loop && (r.label == loop || r.loopName == loop)
            && (stage.isEmpty() || r.stageName == stage))
            return indexOfRow(static_cast<int>(i));
    }
    return {};
}

QModelIndex LoopNestModel::index(int row, int column, const QModelIndex& parent) const
{
    if (column != 0 || row < 0)
        return {};
    const std::vector<int>* list = &m_top;
    if (parent.isValid()) {
        if (parent.column() != 0 || parent.internalId() >= m_rows.size())
            return {};
        list = &m_rows[parent.internalId()].children;
    }
    if (row >= static_cast<int>(list->size()))
        return {};
    return createIndex(row, 0, static_cast<quintptr>((*list)[row]));
}

QModelIndex LoopNestModel::parent(const QModelIndex& child) const
{
    const NestRow* r = row(child);
    if (!r || r->parent < 0)
        return {};
    return indexOfRow(r->parent);
}

int LoopNestModel::rowCount(const QModelIndex& parent) const
{
    if (!parent.isValid())
        return static_cast<int>(m_top.size());
    if (parent.column() != 0)
        return 0;
    const NestRow* r = row(parent);
    return r ? static_cast<int>(r->children.size()) : 0;
}

int LoopNestModel::columnCount(const QModelIndex&) const { return 1; }

QVariant LoopNestModel::data(const QModelIndex& index, int role) const
{
    const NestRow* r = row(index);
    if (!r)
        return {};
    switch (role) {
    case Qt::DisplayRole:
        return r->code;
    case Qt::ToolTipRole:
        return r->tooltip;
    case Qt::FontRole:
        return r->kind == NestRow::Kind::Loop || r->kind == NestRow::Kind::Matmul ? m_boldFont : m_font;
    case Qt::ForegroundRole:
        switch (r->kind) {
        case NestRow::Kind::Loop: return QBrush(QColor(0x1f, 0x3a, 0x93));
        case NestRow::Kind::Alloc: return QBrush(QColor(0x6a, 0x1b, 0x9a));
        case NestRow::Kind::Copy: return QBrush(QColor(0xb3, 0x4d, 0x00));
        case NestRow::Kind::Guard: return QBrush(QColor(0x8d, 0x6e, 0x00));
        case NestRow::Kind::Tensor: return QBrush(QColor(0x45, 0x5a, 0x64));
        case NestRow::Kind::Matmul: return QBrush(QColor(0x00, 0x69, 0x5c));
        case NestRow::Kind::Fill: return QBrush(QColor(0x8d, 0x6e, 0x00));
        default: return {};
        }
    case Qt::BackgroundRole: {
        const int h = highlightOf(*r);
        if (h == 2)
            return QBrush(QColor(0xff, 0xd6, 0xd6));
        if (h == 1)
            return QBrush(QColor(0xff, 0xf3, 0xb0));
        return {};
    }
    case KindRole: return static_cast<int>(r->kind);
    case BadgesRole: return r->badges;
    case LoopRole: return r->loopName;
    case LabelRole: return r->label;
    case StageRole: return r->stageName;
    case TensorRole: return r->tensor;
    case TouchedRole: return r->touched;
    case HighlightRole: return highlightOf(*r);
    case RowIdRole: return static_cast<int>(index.internalId());
    default: return {};
    }
}

Qt::ItemFlags LoopNestModel::flags(const QModelIndex& index) const
{
    const NestRow* r = row(index);
    if (!r)
        return Qt::NoItemFlags;
    Qt::ItemFlags f = Qt::ItemIsEnabled | Qt::ItemIsSelectable;
    if (r->kind == NestRow::Kind::Loop)
        f |= Qt::ItemIsDragEnabled | Qt::ItemIsDropEnabled;
    return f;
}

QVariant LoopNestModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (section == 0 && orientation == Qt::Horizontal && role == Qt::DisplayRole)
        return tr("Loop nest");
    return {};
}

} // namespace loopscope::ui
