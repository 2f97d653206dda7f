// Step parameters as text: formatted and parsed by the schedule-file code itself, so the
// schedule view edits exactly what a file would hold.
#include "step_text.h"

#include "sched/schedule_file.h"

#include <QObject>
#include <QRegularExpression>

namespace loopscope::ui {

namespace {
QString qstr(const std::string& s) { return QString::fromStdString(s); }
std::string str(const QString& s) { return s.toStdString(); }
void setError(QString* out, const QString& message)
{
    if (out)
        *out = message;
}
} // namespace

QString stepText(const sched::Step& step, bool namedStages)
{
    sched::Step s = step;
    if (namedStages && !s.stage.empty()) {
        for (std::string& l : s.loops)
            l = s.stage + ":" + l;
        if (!s.at.empty() && s.at != "root")
            s.at = s.stage + ":" + s.at;
    }
    return qstr(sched::describe(s));
}

QString stepParameters(const sched::Step& step)
{
    sched::ScheduleFile f;
    f.kernel = "k";
    f.target = "t";
    f.steps = {step};
    const std::string text = sched::formatScheduleFile(f);
    const std::string marker = std::string("- ") + sched::primitiveName(step.primitive) + ": ";
    const size_t at = text.find(marker);
    if (at == std::string::npos)
        return QString();
    const size_t begin = at + marker.size();
    const size_t end = text.find('\n', begin);
    return qstr(text.substr(begin, end == std::string::npos ? std::string::npos : end - begin));
}

std::optional<sched::Step> parseStepParameters(sched::Primitive primitive, const QString& text, QString* error)
{
    // The schedule file parser checks every parameter; reuse it on a one-step file.
    const std::string file = std::string("kernel: k\ntarget: t\nsteps:\n  - ") + sched::primitiveName(primitive)
        + ": " + str(text.trimmed()) + "\n";
    auto parsed = sched::parseScheduleFile(file, "step");
    if (!parsed) {
        QString msg = qstr(parsed.errorText());
        msg.remove(QRegularExpression(QStringLiteral("^step:\\d+:\\d+: (error: )?")));
        setError(error, msg);
        return std::nullopt;
    }
    if (parsed->steps.size() != 1) {
        setError(error, QObject::tr("expected the parameters of one step"));
        return std::nullopt;
    }
    sched::Step s = parsed->steps.front();
    s.loc = SourceLoc{};
    return s;
}

} // namespace loopscope::ui
