// The document: opening, saving, the edit functions that push undo commands, and the rebuild
// of the snapshot (replay -> lower -> analyse -> generate C) after every change.
#include "schedule_document.h"

#include <QtConcurrent/QtConcurrentRun>

#include "analysis/cost_report.h"
#include "codegen/c_codegen.h"
#include "codegen/export_writer.h"
#include "codegen/gemmini_codegen.h"
#include "document_commands.h"
#include "ir/kernel.h"
#include "lower/loop_nest.h"
#include "target_loader.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QFileSystemWatcher>
#include <QUndoStack>

#include <algorithm>

namespace loopscope::ui {

namespace {
std::string str(const QString& s) { return s.toStdString(); }
QString qstr(const std::string& s) { return QString::fromStdString(s); }

void setError(QString* out, const QString& message)
{
    if (out)
        *out = message;
}
} // namespace

bool isBuiltinTarget(const QString& target)
{
    const auto names = hw::builtinTargetNames();
    return std::find(names.begin(), names.end(), str(target)) != names.end();
}

ScheduleDocument::ScheduleDocument(QObject* parent)
    : QObject(parent), m_undo(new QUndoStack(this)), m_watcher(new QFileSystemWatcher(this))
{
    qRegisterMetaType<loopscope::ui::Snapshot>();
    qRegisterMetaType<loopscope::sched::ScheduleError>();
    connect(m_undo, &QUndoStack::cleanChanged, this, [this](bool clean) { emit dirtyChanged(!clean); });
    // An edit merged back to where it started (a spin box returned to its value) removes its
    // command: the document is clean again, which cleanChanged does not always say.
    connect(m_undo, &QUndoStack::indexChanged, this, [this] { emit dirtyChanged(isDirty()); });
    connect(m_watcher, &QFileSystemWatcher::fileChanged, this, [this](const QString& path) {
        if (path != m_state.target)
            return;
        QString error;
        reloadTarget(&error);
        emit targetReloaded(path, error);
    });
}

ScheduleDocument::~ScheduleDocument()
{
    // The worker only holds shared copies of the kernel and target; wait so that it does not
    // outlive the watcher that would deliver its result.
    if (m_async)
        m_async->waitForFinished();
}

bool ScheduleDocument::isRebuilding() const { return m_async && m_async->isRunning(); }

bool ScheduleDocument::isDirty() const { return !m_undo->isClean(); }

std::shared_ptr<const hw::Target> ScheduleDocument::resolve(const QString& target, QString* error)
{
    if (auto it = m_targets.find(target); it != m_targets.end())
        return it->second;
    auto t = hw::resolveTarget(str(target), "");
    if (!t) {
        setError(error, qstr(t.errorText()));
        return nullptr;
    }
    auto ptr = std::make_shared<const hw::Target>(std::move(*t));
    m_targets[target] = ptr;
    return ptr;
}

void ScheduleDocument::install(std::shared_ptr<const ir::Kernel> kernel, sched::ScheduleFile file,
                               const QString& path, DocumentState state, std::optional<std::string> kernelText,
                               const QString& untitledName)
{
    emit opening();
    m_kernel = std::move(kernel);
    m_file = std::move(file);
    m_path = path;
    m_untitledName = untitledName;
    m_kernelPath = QFileInfo(qstr(m_kernel->path)).absoluteFilePath();
    // What a variant saved from this document stores: the text the kernel was parsed from.
    std::string why;
    if (kernelText)
        m_kernelText = std::move(*kernelText);
    else if (!readTextFile(str(m_kernelPath), m_kernelText, why))
        m_kernelText.clear();
    m_rejected.reset();
    // Every open starts a clean history: undo never reaches into the document opened before
    // (also when the same file is opened again).
    m_undo->clear();
    m_state = std::move(state);
    watchTarget();
    rebuild();
    emit opened(m_path);
    emit dirtyChanged(false);
    emit changed(m_snapshot);
}

bool ScheduleDocument::openSchedule(const QString& path, QString* error)
{
    auto file = sched::loadScheduleFile(str(path));
    if (!file) {
        setError(error, qstr(file.errorText()));
        return false;
    }
    const std::string dir = sched::directoryOf(str(QFileInfo(path).absoluteFilePath()));
    auto kernel = ir::loadKernelFile(sched::joinPath(dir, file->kernel), file->params);
    if (!kernel) {
        setError(error, qstr(kernel.errorText()));
        return false;
    }
    // Built-in names stay names; files become absolute so the document can move.
    QString target = qstr(file->target);
    if (!isBuiltinTarget(target))
        target = QFileInfo(qstr(sched::joinPath(dir, file->target))).absoluteFilePath();
    m_targets.erase(target);  // an explicit open reads the file again
    m_targetTexts.erase(target);
    QString why;
    if (!resolve(target, &why)) {
        setError(error, why);
        return false;
    }
    DocumentState state{file->steps, target, qstr(file->description), file->steps};
    install(std::make_shared<const ir::Kernel>(std::move(*kernel)), std::move(*file),
            QFileInfo(path).absoluteFilePath(), std::move(state));
    return true;
}

bool ScheduleDocument::newFromSchedule(const QString& path, QString* error)
{
    if (!openSchedule(path, error))
        return false;
    m_path.clear();
    m_untitledName = QFileInfo(path).fileName().remove(QStringLiteral(".sched.yaml"));
    emit opened(m_path);
    return true;
}

bool ScheduleDocument::descriptionIsStale() const
{
    return !m_state.description.isEmpty() && m_state.steps != m_state.describedSteps;
}

bool ScheduleDocument::setDescription(const QString& description)
{
    if (!isOpen() || (description == m_state.description && m_state.describedSteps == m_state.steps))
        return false;
    DocumentState after = m_state;
    after.description = description;
    after.describedSteps = m_state.steps;
    m_undo->push(new SetStateCommand(this, m_state, after, tr("describe the schedule")));
    return true;
}

bool ScheduleDocument::openKernel(const QString& kernelPath, const QString& targetName, QString* error)
{
    auto kernel = ir::loadKernelFile(str(kernelPath));
    if (!kernel) {
        setError(error, qstr(kernel.errorText()));
        return false;
    }
    QString target = targetName.isEmpty() ? QStringLiteral("cortex-m7") : targetName;
    if (!isBuiltinTarget(target))
        target = QFileInfo(target).absoluteFilePath();
    m_targets.erase(target);
    m_targetTexts.erase(target);
    QString why;
    if (!resolve(target, &why)) {
        setError(error, why);
        return false;
    }
    install(std::make_shared<const ir::Kernel>(std::move(*kernel)), sched::ScheduleFile{}, QString(),
            DocumentState{{}, target, QString(), {}});
    return true;
}

bool ScheduleDocument::save(const QString& path, QString* error)
{
    if (!isOpen()) {
        setError(error, tr("nothing to save"));
        return false;
    }
    const QString target = path.isEmpty() ? m_path : QFileInfo(path).absoluteFilePath();
    if (target.isEmpty()) {
        setError(error, tr("the schedule has no file name yet"));
        return false;
    }
    const QDir dir = QFileInfo(target).absoluteDir();
    sched::ScheduleFile f = m_file;
    f.path = str(target);
    f.kernel = str(dir.relativeFilePath(m_kernelPath));
    f.target = str(isBuiltinTarget(m_state.target) ? m_state.target : dir.relativeFilePath(m_state.target));
    f.steps = m_state.steps;
    f.description = str(m_state.description);
    for (auto& s : f.steps)
        s.loc = SourceLoc{};
    std::string why;
    if (!sched::saveScheduleFile(f, str(target), why)) {
        setError(error, qstr(why));
        return false;
    }
    m_file = f;
    m_path = target;
    m_untitledName.clear();
    m_undo->setClean();
    emit opened(m_path);  // the title changes; the history of costs continues
    return true;
}

bool ScheduleDocument::exportTo(const QString& directory, QStringList* written, QString* error, bool force, QStringList* conflicts, bool harness) const
{
    if (!isOpen()) {
        setError(error, tr("nothing to export"));
        return false;
    }
    codegen::ExportOptions options;
    options.harness = harness;
    if (codegen::isGemminiNest(*m_snapshot.nest))
        if (const std::string why = codegen::gemminiExportError(*m_snapshot.nest); !why.empty()) {
            setError(error, tr("cannot export for the accelerator: %1").arg(qstr(why)));
            return false;
        }
    codegen::ExportWriteResult w = codegen::writeExport(str(directory), codegen::exportFiles(*m_snapshot.nest, options), force);
    if (conflicts)
        for (const auto& c : w.conflicts)
            conflicts->append(qstr(c));
    if (!w.ok) {
        setError(error, qstr(w.error));
        return false;
    }
    if (written)
        for (const auto& path : w.written)
            written->append(qstr(path.string()));
    return true;
}

std::optional<sched::ScheduleError> ScheduleDocument::applyStep(const sched::Step& step)
{
    if (!isOpen())
        return std::nullopt;
    const int index = m_snapshot.failedStep ? m_snapshot.failedStep->stepIndex
                                            : static_cast<int>(m_state.steps.size());
    sched::ApplyResult r = sched::apply(*m_snapshot.program, step);
    if (!r.ok()) {
        sched::ScheduleError e = r.error();
        e.stepIndex = index;
        e.loc = SourceLoc{};
        m_rejected = e;
        emit stepRejected(e);
        return e;
    }
    m_rejected.reset();
    m_undo->push(new AddStepCommand(this, index, step));
    return std::nullopt;
}

std::optional<sched::ScheduleError> ScheduleDocument::applySteps(const std::vector<sched::Step>& steps, const QString& text)
{
    if (!isOpen() || steps.empty())
        return std::nullopt;
    if (steps.size() == 1)
        return applyStep(steps.front());
    const int index = m_snapshot.failedStep ? m_snapshot.failedStep->stepIndex
                                            : static_cast<int>(m_state.steps.size());
    sched::Program p = *m_snapshot.program;
    for (size_t i = 0; i < steps.size(); ++i) {
        sched::ApplyResult r = sched::apply(p, steps[i]);
        if (!r.ok()) {
            sched::ScheduleError e = r.error();
            e.stepIndex = index + static_cast<int>(i);
            e.loc = SourceLoc{};
            m_rejected = e;
            emit stepRejected(e);
            return e;
        }
        p = std::move(r.program());
    }
    m_rejected.reset();
    DocumentState after = m_state;
    after.steps.insert(after.steps.begin() + index, steps.begin(), steps.end());
    m_undo->push(new SetStateCommand(this, m_state, after, text));
    return std::nullopt;
}

bool ScheduleDocument::removeStep(int index)
{
    if (index < 0 || index >= static_cast<int>(m_state.steps.size()))
        return false;
    m_rejected.reset();
    m_undo->push(new RemoveStepCommand(this, index));
    return true;
}

bool ScheduleDocument::moveStep(int from, int to)
{
    const int n = static_cast<int>(m_state.steps.size());
    if (from < 0 || from >= n || to < 0 || to >= n || from == to)
        return false;
    m_rejected.reset();
    m_undo->push(new MoveStepCommand(this, from, to));
    return true;
}

bool ScheduleDocument::editStep(int index, const sched::Step& step, int mergeSession)
{
    if (index < 0 || index >= static_cast<int>(m_state.steps.size()))
        return false;
    const sched::Step& before = m_state.steps[index];
    if (before == step)
        return false;
    m_rejected.reset();
    m_undo->push(new EditStepCommand(this, index, before, step, mergeSession));
    return true;
}

bool ScheduleDocument::setTarget(const QString& targetName, QString* error)
{
    if (!isOpen())
        return false;
    QString target = targetName;
    if (!isBuiltinTarget(target))
        target = QFileInfo(target).absoluteFilePath();
    if (target == m_state.target)
        return true;
    m_targets.erase(target);
    m_targetTexts.erase(target);
    if (!resolve(target, error))
        return false;
    m_rejected.reset();
    m_undo->push(new SetTargetCommand(this, m_state.target, target));
    return true;
}

bool ScheduleDocument::reloadTarget(QString* error)
{
    if (!isOpen() || isBuiltinTarget(m_state.target))
        return false;
    auto t = hw::loadTargetFile(str(m_state.target));
    // Editors often replace the file (write a new one, rename): watch the new inode.
    watchTarget();
    if (!t) {
        setError(error, qstr(t.errorText()));
        return false;
    }
    m_targets[m_state.target] = std::make_shared<const hw::Target>(std::move(*t));
    m_targetTexts.erase(m_state.target);
    refresh();
    return true;
}

void ScheduleDocument::watchTarget()
{
    if (!m_watcher->files().isEmpty())
        m_watcher->removePaths(m_watcher->files());
    if (!isBuiltinTarget(m_state.target) && QFileInfo::exists(m_state.target))
        m_watcher->addPath(m_state.target);
}

void ScheduleDocument::setState(const DocumentState& state)
{
    const bool targetChanged = state.target != m_state.target;
    m_state = state;
    if (m_quiet)
        return;
    if (targetChanged)
        watchTarget();
    refresh();
}

namespace {

/// Replay, lower, analyse and generate C: a pure function of its arguments, so that it can
/// run on a worker thread. Returns the snapshot (revision unset) and the milliseconds taken.
std::pair<Snapshot, double> buildSnapshot(std::shared_ptr<const ir::Kernel> kernel, std::shared_ptr<const hw::Target> target,
                                          const std::vector<sched::Step>& steps)
{
    QElapsedTimer timer;
    timer.start();
    Snapshot s;
    sched::Program p = sched::Program::initial(std::move(kernel), target);
    for (const auto& step : steps) {
        sched::ApplyResult r = sched::apply(p, step);
        if (!r.ok()) {
            s.failedStep = r.error();
            break;
        }
        p = std::move(r.program());
    }
    auto nest = std::make_shared<lower::LoopNest>(lower::lower(p));
    s.report = std::make_shared<const analysis::CostReport>(analysis::analyze(*nest, *target));
    // A tensorized nest becomes gemmini.h calls (what export writes), or cannot be exported.
    if (!codegen::isGemminiNest(*nest))
        s.code = codegen::generateSource(*nest);
    else if (const std::string why = codegen::gemminiExportError(*nest); why.empty())
        s.code = codegen::generateGemminiSource(*nest);
    else
        s.code = "// This schedule cannot be exported for the accelerator:\n// " + why + "\n";
    s.nest = std::move(nest);
    s.program = std::make_shared<const sched::Program>(std::move(p));
    return {std::move(s), timer.nsecsElapsed() / 1e6};
}

} // namespace

void ScheduleDocument::rebuild()
{
    QString why;
    auto target = resolve(m_state.target, &why);
    if (!target)  // only a target that was loaded before can be installed
        target = m_snapshot.program ? m_snapshot.program->target : nullptr;
    if (!target)
        return;
    auto [s, ms] = buildSnapshot(m_kernel, target, m_state.steps);
    s.revision = ++m_revision;
    m_snapshot = std::move(s);
    m_lastRebuildMs = ms;
}

void ScheduleDocument::refresh()
{
    if (isRebuilding()) {
        m_rebuildAgain = true;  // the worker's result is stale: run again when it is done
        return;
    }
    if (m_lastRebuildMs < m_asyncThresholdMs) {
        rebuild();
        emit changed(m_snapshot);
        return;
    }
    startAsyncRebuild();
}

void ScheduleDocument::startAsyncRebuild()
{
    QString why;
    auto target = resolve(m_state.target, &why);
    if (!target)
        target = m_snapshot.program ? m_snapshot.program->target : nullptr;
    if (!target)
        return;
    if (!m_async) {
        m_async = new QFutureWatcher<std::pair<Snapshot, double>>(this);
        connect(m_async, &QFutureWatcherBase::finished, this, &ScheduleDocument::asyncRebuildFinished);
    }
    emit rebuilding(true);
    m_async->setFuture(QtConcurrent::run(buildSnapshot, m_kernel, target, m_state.steps));
}

void ScheduleDocument::asyncRebuildFinished()
{
    if (m_rebuildAgain) {
        m_rebuildAgain = false;
        startAsyncRebuild();
        return;
    }
    auto [s, ms] = m_async->result();
    s.revision = ++m_revision;
    m_snapshot = std::move(s);
    m_lastRebuildMs = ms;
    emit rebuilding(false);
    emit changed(m_snapshot);
}

} // namespace loopscope::ui
