// The variants table.
#include "variants_model.h"

#include "store/compare.h"

#include <QApplication>
#include <QDateTime>
#include <QFont>
#include <QLocale>
#include <QStyle>

namespace loopscope::ui {

namespace {
QString qs(const std::string& s) { return QString::fromStdString(s); }

QString fileNote(const char* what, const QString& state, const std::string& path)
{
    if (state == QLatin1String("same"))
        return QString();
    return state == QLatin1String("missing")
        ? VariantsModel::tr("The %1 file %2 is missing; the variant opens with the text stored with it.").arg(QLatin1String(what), qs(path))
        : VariantsModel::tr("The %1 file %2 changed since the variant was saved; the variant opens with the text stored with it.")
              .arg(QLatin1String(what), qs(path));
}
} // namespace

VariantsModel::VariantsModel(QObject* parent) : QAbstractTableModel(parent) {}

void VariantsModel::setRows(std::vector<VariantRow> rows)
{
    beginResetModel();
    m_rows = std::move(rows);
    endResetModel();
}

int VariantsModel::rowOf(int64_t id) const
{
    for (std::size_t i = 0; i < m_rows.size(); ++i)
        if (m_rows[i].variant.id == id)
            return static_cast<int>(i);
    return -1;
}

void VariantsModel::setCurrent(std::optional<int64_t> id)
{
    if (id == m_current)
        return;
    m_current = id;
    if (!m_rows.empty())
        emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1), {Qt::FontRole});
}

int VariantsModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : static_cast<int>(m_rows.size()); }
int VariantsModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QString VariantsModel::bytesText(int64_t bytes)
{
    return QLocale(QLocale::English).formattedDataSize(bytes, bytes < 1024 ? 0 : 1, QLocale::DataSizeIecFormat);
}

QVariant VariantsModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const VariantRow& r = m_rows[static_cast<std::size_t>(index.row())];
    const store::Variant& v = r.variant;
    const auto& f = v.figures;
    const auto measured = store::measuredInstructions(v);
    const QLocale l(QLocale::English);
    if (role == IdRole)
        return QVariant::fromValue<qint64>(v.id);
    if (role == Qt::DisplayRole || role == Qt::EditRole) {
        switch (index.column()) {
        case Name: return qs(v.name);
        case Cycles: return f ? l.toString(static_cast<qlonglong>(f->cycles)) : QStringLiteral("-");
        case Latency: return f ? QString::number(f->latencyMs, 'f', f->latencyMs < 10 ? 3 : 1) : QStringLiteral("-");
        case SramPeak: return f && !f->innerLevelName().empty() ? bytesText(f->innerPeakBytes()) : QStringLiteral("-");
        case Energy: return f ? QString::number(f->energyUj, 'f', 1) : QStringLiteral("-");
        case DramTraffic: return f ? bytesText(f->homeTrafficBytes()) : QStringLiteral("-");
        case Measured: return measured ? l.toString(static_cast<qlonglong>(*measured)) : QStringLiteral("-");
        case Modified: return QDateTime::fromMSecsSinceEpoch(v.modifiedAt).toString(QStringLiteral("yyyy-MM-dd HH:mm"));
        case DerivedFrom: return r.parentName;
        }
    }
    if (role == SortRole) {
        // Numbers sort as numbers; a variant without a figure sorts last.
        const double none = 1e300;
        switch (index.column()) {
        case Name: return qs(v.name).toLower();
        case Cycles: return f ? double(f->cycles) : none;
        case Latency: return f ? f->latencyMs : none;
        case SramPeak: return f ? double(f->innerPeakBytes()) : none;
        case Energy: return f ? f->energyUj : none;
        case DramTraffic: return f ? double(f->homeTrafficBytes()) : none;
        case Measured: return measured ? double(*measured) : none;
        case Modified: return QVariant::fromValue<qint64>(v.modifiedAt);
        case DerivedFrom: return r.parentName.toLower();
        }
    }
    if (role == Qt::TextAlignmentRole && index.column() >= Cycles && index.column() <= Measured)
        return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::FontRole && m_current && *m_current == v.id) {
        QFont font;
        font.setBold(true);
        return font;
    }
    if (role == Qt::DecorationRole && index.column() == Name && r.filesDiffer())
        return QApplication::style()->standardIcon(QStyle::SP_MessageBoxWarning);
    if (role == Qt::ToolTipRole) {
        QStringList lines;
        if (index.column() == Name) {
            lines << tr("<b>%1</b>").arg(qs(v.name).toHtmlEscaped());
            if (!v.notes.empty())
                lines << qs(v.notes).toHtmlEscaped().replace(QLatin1Char('\n'), QStringLiteral("<br>"));
            if (!v.tags.empty()) {
                QStringList tags;
                for (const auto& t : v.tags)
                    tags << qs(t);
                lines << tr("tags: %1").arg(tags.join(QStringLiteral(", ")).toHtmlEscaped());
            }
            for (const QString& note : {fileNote("kernel", r.kernelOnDisk, v.kernelPath), fileNote("target", r.targetOnDisk, v.target)})
                if (!note.isEmpty())
                    lines << QStringLiteral("<span style='color:#b35900'>%1</span>").arg(note.toHtmlEscaped());
        } else if (index.column() == SramPeak && f) {
            lines << tr("peak occupancy of %1").arg(qs(f->innerLevelName()));
        } else if (index.column() == DramTraffic && f && !f->levels.empty()) {
            lines << tr("bytes read and written in %1").arg(qs(f->levels.front().name));
        } else if (index.column() == Measured && !v.measurements.empty()) {
            const auto& m = v.measurements.front();
            lines << tr("%1 instructions on %2 (%3 %4)").arg(l.toString(static_cast<qlonglong>(m.instructions)), qs(m.machine), qs(m.compiler), qs(m.compilerVersion));
        }
        return lines.isEmpty() ? QVariant() : QVariant(lines.join(QStringLiteral("<br>")));
    }
    return {};
}

QVariant VariantsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return {};
    if (role == Qt::DisplayRole) {
        switch (section) {
        case Name: return tr("name");
        case Cycles: return tr("cycles");
        case Latency: return tr("latency ms");
        case SramPeak: return tr("SRAM peak");
        case Energy: return tr("energy uJ");
        case DramTraffic: return tr("DRAM traffic");
        case Measured: return tr("measured instr.");
        case Modified: return tr("modified");
        case DerivedFrom: return tr("derived from");
        }
    }
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case SramPeak: return tr("Peak occupancy of the first level inside the home level (SRAM on the Cortex-M targets)");
        case DramTraffic: return tr("Bytes read and written in the home level (DRAM on the Cortex-M targets)");
        case Measured: return tr("Instructions of the exported kernel counted on an emulated core (Schedule > Measure, or workspace add --measure)");
        case DerivedFrom: return tr("The variant this one was derived from (saved from it, duplicated, or a search point's base)");
        }
    }
    return {};
}

Qt::ItemFlags VariantsModel::flags(const QModelIndex& index) const
{
    Qt::ItemFlags f = QAbstractTableModel::flags(index);
    if (index.isValid() && index.column() == Name)
        f |= Qt::ItemIsEditable;
    return f;
}

bool VariantsModel::setData(const QModelIndex& index, const QVariant& value, int role)
{
    if (role != Qt::EditRole || !index.isValid() || index.column() != Name)
        return false;
    const QString name = value.toString().trimmed();
    const store::Variant& v = m_rows[static_cast<std::size_t>(index.row())].variant;
    if (name.isEmpty() || name == qs(v.name))
        return false;
    emit renameRequested(v.id, name);
    return true;
}

} // namespace loopscope::ui
