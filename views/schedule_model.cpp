// The trace as a table model; edits become intents, never direct changes.
#include "schedule_model.h"

#include "step_text.h"

#include <algorithm>

#include <QBrush>
#include <QColor>
#include <QFont>

namespace loopscope::ui {

namespace {
QString qs(const std::string& s) { return QString::fromStdString(s); }
} // namespace

ScheduleModel::ScheduleModel(QObject* parent) : QAbstractTableModel(parent) {}

void ScheduleModel::setTrace(const std::vector<sched::Step>& steps, const Snapshot& snapshot)
{
    const bool named = snapshot.program ? snapshot.program->kernel->stages.size() > 1 : m_namedStages;
    const std::optional<sched::ScheduleError>& failed = snapshot.failedStep;
    // What a row shows besides its step: its status, and the failure its tooltip quotes.
    auto statusOf = [](const std::optional<sched::ScheduleError>& f, int row) {
        return !f || row < f->stepIndex ? Status::Applied : row == f->stepIndex ? Status::Failing : Status::NotApplied;
    };
    auto sameRow = [&](int row) {
        const Status before = statusOf(m_failed, row);
        if (!(m_steps[row] == steps[row]) || before != statusOf(failed, row))
            return false;
        if (before == Status::Failing)
            return m_failed->message == failed->message && m_failed->detail == failed->detail;
        return before != Status::NotApplied || m_failed->stepIndex == failed->stepIndex;
    };
    if (named != m_namedStages) {   // every step reads differently (another kernel)
        beginResetModel();
        m_namedStages = named;
        m_steps = steps;
        m_failed = failed;
        endResetModel();
        return;
    }
    // Only the rows that show something new: the rows before the first difference keep
    // their cells (an edit of one step repaints one row); steps added or removed at the end
    // are inserted or removed, so that the current row and an open editor stay.
    const int before = static_cast<int>(m_steps.size());
    const int after = static_cast<int>(steps.size());
    const int common = std::min(before, after);
    std::vector<int> changed;
    for (int r = 0; r < common; ++r)
        if (!sameRow(r))
            changed.push_back(r);
    if (after < before) {
        beginRemoveRows(QModelIndex(), after, before - 1);
        m_steps = steps;
        m_failed = failed;
        endRemoveRows();
    } else if (after > before) {
        beginInsertRows(QModelIndex(), before, after - 1);
        m_steps = steps;
        m_failed = failed;
        endInsertRows();
    } else {
        m_steps = steps;
        m_failed = failed;
    }
    for (size_t i = 0; i < changed.size();) {
        size_t j = i;
        while (j + 1 < changed.size() && changed[j + 1] == changed[j] + 1)
            ++j;
        emit dataChanged(index(changed[i], 0), index(changed[j], ColumnCount - 1));
        i = j + 1;
    }
}

void ScheduleModel::setHighlight(const QString& loop, const QStringList& tensors)
{
    QSet<QString> t(tensors.begin(), tensors.end());
    if (loop == m_hlLoop && t == m_hlTensors)
        return;
    m_hlLoop = loop;
    m_hlTensors = std::move(t);
    if (!m_steps.empty())
        emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1), {HighlightRole, Qt::BackgroundRole});
}

ScheduleModel::Status ScheduleModel::status(int row) const
{
    if (!m_failed || row < m_failed->stepIndex)
        return Status::Applied;
    return row == m_failed->stepIndex ? Status::Failing : Status::NotApplied;
}

bool ScheduleModel::mentions(const sched::Step& s) const
{
    if (!m_hlLoop.isEmpty()) {
        // "O:h.outer" names loop h.outer of stage O.
        const int colon = m_hlLoop.indexOf(QLatin1Char(':'));
        const QString stage = colon >= 0 ? m_hlLoop.left(colon) : QString();
        const QString name = colon >= 0 ? m_hlLoop.mid(colon + 1) : m_hlLoop;
        const bool stageOk = stage.isEmpty() || s.stage.empty() || qs(s.stage) == stage;
        auto matches = [&](const std::string& n) {
            const QString q = qs(n);
            // the loop itself, or a loop it came from by split or fuse
            return !q.isEmpty() && (q == name || name.startsWith(q + QLatin1Char('.')) || q.startsWith(name + QLatin1Char('.')));
        };
        if (stageOk) {
            for (const auto& l : s.loops)
                if (matches(l))
                    return true;
            if (matches(s.at))
                return true;
        }
    }
    return !s.tensor.empty() && m_hlTensors.contains(qs(s.tensor));
}

int ScheduleModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_steps.size());
}

int ScheduleModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant ScheduleModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount)
        return {};
    const sched::Step& s = m_steps[index.row()];
    const Status st = status(index.row());
    switch (role) {
    case Qt::DisplayRole:
    case Qt::EditRole:
        switch (index.column()) {
        case NumberColumn: return index.row() + 1;
        case PrimitiveColumn: return QString::fromLatin1(sched::primitiveName(s.primitive));
        case ParametersColumn: return role == Qt::EditRole ? stepParameters(s) : stepText(s, m_namedStages);
        case StatusColumn:
            if (st == Status::Applied)
                return QStringLiteral("\u2713");
            if (st == Status::Failing)
                return tr("\u2717 fails");
            return tr("skipped");
        }
        return {};
    case Qt::ToolTipRole: {
        QString tip = stepText(s, m_namedStages) + QStringLiteral("\n") + stepParameters(s);
        if (st == Status::Failing) {
            tip += QLatin1Char('\n') + qs(m_failed->message);
            if (!m_failed->detail.empty())
                tip += QLatin1Char('\n') + qs(m_failed->detail);
        } else if (st == Status::NotApplied) {
            tip += tr("\nNot applied: the trace stops at the failing step %1.").arg(m_failed->stepIndex + 1);
        }
        if (index.column() == ParametersColumn)
            tip += s.primitive == sched::Primitive::Split
                ? tr("\nDouble-click to change the factor: every view follows while you turn it.")
                : tr("\nDouble-click to edit the parameters as written in the schedule file.");
        return tip;
    }
    case Qt::ForegroundRole:
        if (st == Status::Failing)
            return QBrush(QColor(0xb0, 0x00, 0x00));
        if (st == Status::NotApplied)
            return QBrush(QColor(0x90, 0x90, 0x90));
        if (index.column() == StatusColumn)
            return QBrush(QColor(0x2e, 0x7d, 0x32));
        return {};
    case Qt::BackgroundRole:
        if (st == Status::Failing)
            return QBrush(QColor(0xff, 0xe0, 0xe0));
        if (mentions(s))
            return QBrush(QColor(0xff, 0xf3, 0xb0));
        return {};
    case Qt::FontRole:
        if (index.column() == PrimitiveColumn || st == Status::Failing) {
            QFont f;
            f.setBold(true);
            return f;
        }
        return {};
    case StepRole: return static_cast<int>(st);
    case FactorRole:
        if (s.primitive != sched::Primitive::Split)
            return qint64(0);
        return qint64(s.nparts > 0 ? s.nparts : s.factor);
    case EditableFactorRole: return s.primitive == sched::Primitive::Split;
    case HighlightRole: return mentions(s);
    default: return {};
    }
}

QVariant ScheduleModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case NumberColumn: return tr("#");
    case PrimitiveColumn: return tr("Step");
    case ParametersColumn: return tr("Step");
    case StatusColumn: return tr("Status");
    }
    return {};
}

Qt::ItemFlags ScheduleModel::flags(const QModelIndex& index) const
{
    if (!index.isValid())
        return Qt::NoItemFlags;
    Qt::ItemFlags f = Qt::ItemIsEnabled | Qt::ItemIsSelectable;
    if (index.column() == ParametersColumn)
        f |= Qt::ItemIsEditable;
    return f;
}

bool ScheduleModel::setData(const QModelIndex& index, const QVariant& value, int role)
{
    if (!index.isValid() || index.column() != ParametersColumn || index.row() >= rowCount())
        return false;
    sched::Step s = m_steps[index.row()];
    if (role == FactorRole) {
        if (s.primitive != sched::Primitive::Split)
            return false;
        const qint64 v = value.toLongLong();
        if (v <= 0)
            return false;
        if (s.nparts > 0)
            s.nparts = v;
        else
            s.factor = v;
    } else if (role == Qt::EditRole) {
        QString error;
        auto parsed = parseStepParameters(s.primitive, value.toString(), &error);
        if (!parsed) {
            emit editRejected(index.row(), error);
            return false;
        }
        s = *parsed;
    } else {
        return false;
    }
    if (s == m_steps[index.row()])
        return true;
    emit stepEdited(index.row(), s, m_session);
    return true;
}

} // namespace loopscope::ui
