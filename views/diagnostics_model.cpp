// Diagnostics table model.
#include "diagnostics_model.h"

#include <QApplication>
#include <QBrush>
#include <QColor>
#include <QIcon>
#include <QRegularExpression>
#include <QStyle>

namespace loopscope::ui {

namespace {
QString qs(const std::string& s) { return QString::fromStdString(s); }
QStringList qsl(const std::vector<std::string>& v)
{
    QStringList out;
    for (const auto& s : v)
        out << qs(s);
    return out;
}
} // namespace

DiagnosticsModel::DiagnosticsModel(QObject* parent) : QAbstractTableModel(parent) {}

void DiagnosticsModel::setDiagnostics(const Snapshot& snapshot, const std::optional<sched::ScheduleError>& refused,
                                      const QString& refusedStep)
{
    std::vector<DiagnosticRow> rows;
    if (refused) {
        DiagnosticRow r;
        r.code = QStringLiteral("refused-step");
        r.message = tr("%1 was not applied: %2").arg(refusedStep.isEmpty() ? QString::fromLatin1(sched::primitiveName(refused->primitive)) : refusedStep,
                                                     qs(refused->message));
        r.detail = qs(refused->detail);
        r.loops = qsl(refused->loops);
        r.tensors = qsl(refused->tensors);
        rows.push_back(std::move(r));
    }
    if (snapshot.failedStep) {
        const auto& e = *snapshot.failedStep;
        DiagnosticRow r;
        r.code = QStringLiteral("failing-step");
        r.message = tr("step %1 (%2) fails: %3").arg(e.stepIndex + 1).arg(QString::fromLatin1(sched::primitiveName(e.primitive)), qs(e.message));
        r.detail = qs(e.detail);
        r.step = e.stepIndex;
        r.loops = qsl(e.loops);
        r.tensors = qsl(e.tensors);
        rows.push_back(std::move(r));
    }
    if (snapshot.report)
        for (const auto& d : snapshot.report->diagnostics) {
            DiagnosticRow r;
            r.severity = d.severity;
            r.code = qs(d.code);
            r.message = qs(d.message);
            r.step = d.step ? *d.step : -1;
            r.loops = qsl(d.loops);
            r.tensors = qsl(d.tensors);
            r.suggestion = suggestionIn(r.message);
            rows.push_back(std::move(r));
        }
    // Most edits change no diagnostic: a reset would lay the word-wrapped rows out again.
    if (rows == m_rows)
        return;
    beginResetModel();
    m_rows = std::move(rows);
    endResetModel();
}

QString DiagnosticsModel::suggestionIn(const QString& message)
{
    static const QRegularExpression step(QStringLiteral(
        "\\b(split|tile|reorder|fuse|unroll|vectorize|parallel|cache_read|cache_write|compute_at|compute_inline|double_buffer) (\\{[^{}]*\\})"));
    const auto m = step.match(message);
    return m.hasMatch() ? m.captured(0) : QString();
}

int DiagnosticsModel::count(Severity s) const
{
    int n = 0;
    for (const auto& r : m_rows)
        n += r.severity == s ? 1 : 0;
    return n;
}

int DiagnosticsModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : static_cast<int>(m_rows.size()); }
int DiagnosticsModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant DiagnosticsModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount)
        return {};
    const DiagnosticRow& r = m_rows[index.row()];
    const char* sev = r.severity == Severity::Error ? "error" : r.severity == Severity::Warning ? "warning" : "hint";
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case SeverityColumn: return tr(sev);
        case MessageColumn: return r.message;
        case StepColumn: return r.step >= 0 ? QVariant(r.step + 1) : QVariant(QString());
        case WhereColumn: {
            QStringList parts = r.loops;
            parts << r.tensors;
            return parts.join(QStringLiteral(", "));
        }
        }
        return {};
    case Qt::DecorationRole:
        if (index.column() != SeverityColumn)
            return {};
    {
        const int k = r.severity == Severity::Error ? 0 : r.severity == Severity::Warning ? 1 : 2;
        if (m_icons[k].isNull())
            m_icons[k] = QApplication::style()->standardIcon(k == 0   ? QStyle::SP_MessageBoxCritical
                                                             : k == 1 ? QStyle::SP_MessageBoxWarning
                                                                      : QStyle::SP_MessageBoxInformation);
        return m_icons[k];
    }
    case Qt::ForegroundRole:
        if (index.column() == SeverityColumn)
            return QBrush(r.severity == Severity::Error ? QColor(0xb0, 0, 0) : r.severity == Severity::Warning ? QColor(0x9e, 0x6a, 0) : QColor(0x15, 0x65, 0xc0));
        return {};
    case Qt::ToolTipRole: {
        QString tip = QStringLiteral("[%1] %2").arg(r.code, r.message);
        if (!r.detail.isEmpty())
            tip += QLatin1Char('\n') + r.detail;
        if (r.step >= 0 || !r.loops.isEmpty())
            tip += tr("\nDouble-click to jump to the step and the loop.");
        if (!r.suggestion.isEmpty())
            tip += tr("\n'Apply suggestion' adds: %1").arg(r.suggestion);
        return tip;
    }
    case StepRole: return r.step;
    case LoopsRole: return r.loops;
    case TensorsRole: return r.tensors;
    case SeverityRole: return static_cast<int>(r.severity);
    case CodeRole: return r.code;
    case SuggestionRole: return r.suggestion;
    default: return {};
    }
}

QVariant DiagnosticsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case SeverityColumn: return tr("Severity");
    case MessageColumn: return tr("Message");
    case StepColumn: return tr("Step");
    case WhereColumn: return tr("Loops / tensors");
    }
    return {};
}

} // namespace loopscope::ui
