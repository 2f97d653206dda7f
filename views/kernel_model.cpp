// Kernel and target tree model.
#include "kernel_model.h"

#include <QLocale>

#include "loop_nest_model.h"

#include <QBrush>
#include <QColor>
#include <QFont>

#include <map>

namespace loopscope::ui {

namespace {
QString qs(const std::string& s) { return QString::fromStdString(s); }

QString shapeText(const std::vector<int64_t>& shape)
{
    QStringList parts;
    for (int64_t d : shape)
        parts << QString::number(d);
    return QLatin1Char('[') + parts.join(QStringLiteral(", ")) + QLatin1Char(']');
}

QString number(double v)
{
    return v == static_cast<double>(static_cast<int64_t>(v)) ? QString::number(static_cast<qint64>(v)) : QString::number(v, 'g', 4);
}
} // namespace

KernelModel::KernelModel(QObject* parent) : QAbstractItemModel(parent) {}

int KernelModel::add(int parent, Info info)
{
    Node n;
    static_cast<Info&>(n) = std::move(info);
    n.parent = parent;
    const int id = static_cast<int>(m_nodes.size());
    if (parent >= 0)
        m_nodes[parent].children.push_back(id);
    else
        m_top.push_back(id);
    m_nodes.push_back(std::move(n));
    return id;
}

bool KernelModel::setSnapshot(const Snapshot& snapshot)
{
    // Build aside; most edits change nothing here (only placements and targets do).
    std::vector<Node> oldNodes;
    std::vector<int> oldTop;
    oldNodes.swap(m_nodes);
    oldTop.swap(m_top);
    if (!snapshot.empty()) {
        const auto& p = *snapshot.program;
        const auto& k = *p.kernel;
        const auto& t = *p.target;

        // The MACs executed (the Cost panel's figure) first, and where taps fall in the padding
        // the iteration space's beside them, so that the two are not read as one (the narrow
        // panel elides the end). A stage recomputed under compute_at executes more than its
        // iteration space: then the executed alone.
        const QLocale locale(QLocale::English);  // as the Cost panel writes them
        const int64_t executed = snapshot.report ? snapshot.report->macs : k.macs();
        QString macs = tr("%1 MACs").arg(locale.toString(static_cast<qlonglong>(k.macs())));
        if (executed < k.macs())  // (a stage recomputed at compute_at executes more: then only the executed)
            macs = tr("%1 MACs, %2 with the padding").arg(locale.toString(static_cast<qlonglong>(executed)), locale.toString(static_cast<qlonglong>(k.macs())));
        const int stages = add(-1, {tr("Stages"), (k.stages.size() == 1 ? tr("1 stage, %1").arg(macs) : tr("%1 stages, %2").arg(k.stages.size()).arg(macs)),
                                    tr("The MACs the schedule executes (the Cost panel's MACs), which skip the taps that fall in the "
                                       "padding, and beside them those of the whole iteration space, padding included, where that is more."),
                                    {}, true});
        for (size_t s = 0; s < k.stages.size(); ++s) {
            const auto& st = k.stages[s];
            QString where = tr("own nest");
            if (p.stages[s].inlined)
                where = tr("inlined into its readers");
            else if (!p.stages[s].computeAt.isRoot())
                where = tr("computed at %1").arg(p.loopLabel(p.stages[s].computeAt.stage, p.stages[s].computeAt.var).c_str());
            Info n{qs(st.name), qs(st.source), tr("Stage %1: %2\n%3%4").arg(qs(st.name), qs(st.source), where,
                                                                         st.requant ? tr("\nends in a requantize epilogue") : QString()),
                   qs(st.name), false};
            const int id = add(stages, n);
            for (const auto& a : st.axes)
                add(id, {qs(a.name), tr("0..%1 %2").arg(a.extent).arg(a.reduction ? tr("reduction") : tr("spatial")), {}, {}, false});
            add(id, {tr("placement"), where, {}, {}, false});
        }

        const int tensors = add(-1, {tr("Tensors"), (k.tensors.size() == 1 ? tr("1 tensor") : tr("%1 tensors").arg(k.tensors.size())), {}, {}, true});
        for (size_t i = 0; i < k.tensors.size(); ++i) {
            const auto& tn = k.tensors[i];
            const int ti = static_cast<int>(i);
            const QString role = k.isInput(ti) ? tr("input") : k.isIntermediate(ti) ? tr("intermediate") : k.isOutput(ti) ? tr("output") : tr("tensor");
            add(tensors, {qs(tn.name),
                          QStringLiteral("%1%2  %3  %4").arg(QString::fromLatin1(ir::dtypeName(tn.dtype)), shapeText(tn.shape), role, humanBytes(tn.bytes())),
                          tr("%1: %2 %3%4, %5, %6").arg(qs(tn.name), role, QString::fromLatin1(ir::dtypeName(tn.dtype)), shapeText(tn.shape)).arg(humanBytes(tn.bytes())).arg(tr("home in %1").arg(qs(t.levels.front().name))),
                          qs(tn.name), false});
        }

        if (!k.params.empty()) {
            const int params = add(-1, {tr("Sizes"), QString(), {}, {}, true});
            for (const auto& [name, value] : k.params)
                add(params, {qs(name), QString::number(value), {}, {}, false});
        }

        const int target = add(-1, {tr("Target"), tr("%1, %2 MHz").arg(qs(t.name)).arg(number(t.clockMhz)), qs(t.description), {}, true});
        for (const auto& l : t.levels)
            add(target, {qs(l.name),
                         tr("%1, %2 B/cycle, %3 cycles latency, %4 pJ/B%5%6")
                             .arg(humanBytes(l.sizeBytes), number(l.bandwidthBytesPerCycle))
                             .arg(l.latencyCycles)
                             .arg(number(l.energyPjPerByte))
                             .arg(l.dma ? tr(", DMA") : QString(), l.bufferCount >= 2 ? tr(", double-buffering") : QString()),
                         {}, {}, false});
        QStringList rates;
        for (const auto& [dtype, rate] : t.compute.macsPerCycle)
            rates << QStringLiteral("%1 %2").arg(qs(dtype), number(rate));
        add(target, {tr("MACs/cycle"), rates.join(QStringLiteral(", ")), {}, {}, false});
        add(target, {tr("SIMD lanes"), QString::number(t.compute.simdLanes), {}, {}, false});
        if (t.compute.peArray)
            add(target, {tr("PE array"), QStringLiteral("%1 x %2").arg(t.compute.peArray->rows).arg(t.compute.peArray->cols), {}, {}, false});
        if (!t.path.empty())
            add(target, {tr("file"), qs(t.path), tr("Reloaded when the file changes on disk"), {}, false});
    }
    if (m_nodes == oldNodes && m_top == oldTop)
        return false;
    std::vector<Node> newNodes;
    std::vector<int> newTop;
    newNodes.swap(m_nodes);
    newTop.swap(m_top);
    m_nodes.swap(oldNodes);
    m_top.swap(oldTop);
    beginResetModel();
    m_nodes.swap(newNodes);
    m_top.swap(newTop);
    endResetModel();
    return true;
}

void KernelModel::setHighlightedTensors(const QStringList& tensors)
{
    QSet<QString> h(tensors.begin(), tensors.end());
    if (h == m_highlight)
        return;
    m_highlight = std::move(h);
    // One signal per parent over the rows that name a tensor: each dataChanged makes the tree
    // measure its name column anew (it sizes to its contents), which cost more per signal than
    // repainting the rows.
    std::map<int, std::pair<int, int>> rows;   // parent node -> first, last tensor row
    for (size_t i = 0; i < m_nodes.size(); ++i)
        if (!m_nodes[i].tensor.isEmpty()) {
            const int row = indexOf(static_cast<int>(i), 0).row();
            auto [it, fresh] = rows.try_emplace(m_nodes[i].parent, row, row);
            if (!fresh)
                it->second = {std::min(it->second.first, row), std::max(it->second.second, row)};
        }
    for (const auto& [parent, range] : rows) {
        const QModelIndex p = parent >= 0 ? indexOf(parent, 0) : QModelIndex();
        emit dataChanged(index(range.first, 0, p), index(range.second, DetailColumn, p), {Qt::BackgroundRole, HighlightRole});
    }
}

QModelIndex KernelModel::findTensor(const QString& tensor) const
{
    for (size_t i = 0; i < m_nodes.size(); ++i)
        if (m_nodes[i].tensor == tensor && m_nodes[i].parent >= 0 && m_nodes[m_nodes[i].parent].name == tr("Tensors"))
            return indexOf(static_cast<int>(i));
    return {};
}

QModelIndex KernelModel::indexOf(int node, int column) const
{
    if (node < 0 || node >= static_cast<int>(m_nodes.size()))
        return {};
    const int p = m_nodes[node].parent;
    const std::vector<int>& siblings = p < 0 ? m_top : m_nodes[p].children;
    for (size_t i = 0; i < siblings.size(); ++i)
        if (siblings[i] == node)
            return createIndex(static_cast<int>(i), column, static_cast<quintptr>(node));
    return {};
}

QModelIndex KernelModel::index(int row, int column, const QModelIndex& parent) const
{
    if (row < 0 || column < 0 || column >= ColumnCount)
        return {};
    const std::vector<int>* list = &m_top;
    if (parent.isValid()) {
        if (parent.column() != 0 || parent.internalId() >= m_nodes.size())
            return {};
        list = &m_nodes[parent.internalId()].children;
    }
    if (row >= static_cast<int>(list->size()))
        return {};
    return createIndex(row, column, static_cast<quintptr>((*list)[row]));
}

QModelIndex KernelModel::parent(const QModelIndex& child) const
{
    if (!child.isValid() || child.internalId() >= m_nodes.size())
        return {};
    return indexOf(m_nodes[child.internalId()].parent);
}

int KernelModel::rowCount(const QModelIndex& parent) const
{
    if (!parent.isValid())
        return static_cast<int>(m_top.size());
    if (parent.column() != 0 || parent.internalId() >= m_nodes.size())
        return 0;
    return static_cast<int>(m_nodes[parent.internalId()].children.size());
}

int KernelModel::columnCount(const QModelIndex&) const { return ColumnCount; }

QVariant KernelModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.internalId() >= m_nodes.size())
        return {};
    const Node& n = m_nodes[index.internalId()];
    switch (role) {
    case Qt::DisplayRole: return index.column() == NameColumn ? n.name : n.detail;
    case Qt::ToolTipRole: return n.tooltip.isEmpty() ? n.detail : n.tooltip;
    case Qt::FontRole:
        if (n.section) {
            QFont f;
            f.setBold(true);
            return f;
        }
        return {};
    case Qt::BackgroundRole:
        if (!n.tensor.isEmpty() && m_highlight.contains(n.tensor))
            return QBrush(QColor(0xff, 0xf3, 0xb0));
        return {};
    case TensorRole: return n.tensor;
    case HighlightRole: return !n.tensor.isEmpty() && m_highlight.contains(n.tensor);
    default: return {};
    }
}

QVariant KernelModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    return section == NameColumn ? tr("Name") : tr("Details");
}

} // namespace loopscope::ui
