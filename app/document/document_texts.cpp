// The document as texts: opening a variant's stored schedule, kernel and target, rebuilding
// an undo history the edit journal kept, and the state as a schedule file for both.
#include "schedule_document.h"

#include "document_commands.h"
#include "ir/kernel.h"
#include "target_loader.h"

#include <QFileInfo>
#include <QUndoStack>

namespace loopscope::ui {

namespace {
std::string str(const QString& s) { return s.toStdString(); }
QString qstr(const std::string& s) { return QString::fromStdString(s); }
} // namespace

sched::ScheduleFile ScheduleDocument::stateFile(const DocumentState& state) const
{
    sched::ScheduleFile f = m_file;
    f.path = str(m_path);
    f.kernel = str(m_kernelPath);
    f.target = str(state.target);
    f.description = str(state.description);
    f.steps = state.steps;
    for (auto& s : f.steps)
        s.loc = SourceLoc{};
    f.kernelLoc = SourceLoc{};
    f.targetLoc = SourceLoc{};
    f.paramLocs.clear();
    return f;
}

std::string ScheduleDocument::targetText() const
{
    if (auto it = m_targetTexts.find(m_state.target); it != m_targetTexts.end())
        return it->second;
    if (isBuiltinTarget(m_state.target))
        return hw::builtinTargetText(str(m_state.target));
    std::string text, why;
    if (!readTextFile(str(m_state.target), text, why))
        return std::string();
    return text;
}

bool ScheduleDocument::openText(const TextSource& source, QString* error)
{
    const std::string where = source.path.isEmpty() ? str(source.untitledName.isEmpty() ? tr("the restored schedule") : source.untitledName)
                                                    : str(source.path);
    auto file = sched::parseScheduleFile(source.schedule, where);
    if (!file) {
        if (error)
            *error = qstr(file.errorText());
        return false;
    }
    const std::string dir = source.path.isEmpty() ? std::string() : sched::directoryOf(str(QFileInfo(source.path).absoluteFilePath()));
    const std::string kernelPath = sched::joinPath(dir, file->kernel);
    auto kernel = source.kernelText.empty() ? ir::loadKernelFile(kernelPath, file->params) : ir::parseKernel(source.kernelText, kernelPath, file->params);
    if (!kernel) {
        if (error)
            *error = qstr(kernel.errorText());
        return false;
    }
    QString target = qstr(file->target);
    if (!isBuiltinTarget(target) || !source.targetText.empty())
        target = isBuiltinTarget(target) ? target : QFileInfo(qstr(sched::joinPath(dir, file->target))).absoluteFilePath();
    m_targets.erase(target);
    m_targetTexts.erase(target);
    if (!source.targetText.empty()) {
        auto t = hw::parseTarget(source.targetText, isBuiltinTarget(target) ? "hwdesc/targets/" + str(target) + ".yaml" : str(target));
        if (!t) {
            if (error)
                *error = qstr(t.errorText());
            return false;
        }
        m_targets[target] = std::make_shared<const hw::Target>(std::move(*t));
        m_targetTexts[target] = source.targetText;
    } else {
        QString why;
        if (!resolve(target, &why)) {
            if (error)
                *error = why;
            return false;
        }
    }
    DocumentState state{file->steps, target, qstr(file->description), file->steps};
    std::optional<std::string> text;
    if (!source.kernelText.empty())
        text = source.kernelText;
    install(std::make_shared<const ir::Kernel>(std::move(*kernel)), std::move(*file),
            source.path.isEmpty() ? QString() : QFileInfo(source.path).absoluteFilePath(), std::move(state), std::move(text), source.untitledName);
    return true;
}

Result<DocumentState> ScheduleDocument::stateFromText(const std::string& text, const DocumentState& previous) const
{
    auto file = sched::parseScheduleFile(text, "the edit journal");
    if (!file)
        return file.errors();
    DocumentState s = previous;
    s.steps = file->steps;
    for (auto& step : s.steps)
        step.loc = SourceLoc{};
    QString target = qstr(file->target);
    if (!isBuiltinTarget(target))
        target = QFileInfo(target).absoluteFilePath();
    s.target = target;
    const QString description = qstr(file->description);
    // A description that changed was written for the steps it came with (setDescription).
    if (description != previous.description)
        s.describedSteps = s.steps;
    s.description = description;
    return s;
}

bool ScheduleDocument::restoreHistory(const TextSource& base, const std::vector<RestoredCommand>& commands, int index, QString* error)
{
    if (!openText(base, error))
        return false;
    // Every state first, so that nothing is installed when one of them does not parse.
    std::vector<DocumentState> states;
    DocumentState previous = m_state;
    for (const RestoredCommand& c : commands) {
        auto s = stateFromText(c.state, previous);
        if (!s) {
            if (error)
                *error = qstr(s.errorText());
            return false;
        }
        // A target file named by a restored state is loaded (it may not be the base's).
        if (s->target != previous.target && !resolve(s->target, error))
            return false;
        states.push_back(*s);
        previous = *s;
    }
    m_quiet = true;
    DocumentState before = m_state;
    for (std::size_t i = 0; i < commands.size(); ++i) {
        m_undo->push(new SetStateCommand(this, before, states[i], commands[i].text));
        before = states[i];
    }
    m_undo->setIndex(std::clamp(index, 0, static_cast<int>(commands.size())));
    m_quiet = false;
    watchTarget();
    m_rejected.reset();
    rebuild();
    emit dirtyChanged(isDirty());
    emit changed(m_snapshot);
    return true;
}

} // namespace loopscope::ui
