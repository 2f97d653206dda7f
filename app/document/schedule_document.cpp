// The document: opening, saving, the edit functions that push undo commands, and the rebuild
// of the snapshot (replay -> lower -> analyse -> generate C) after every change.
#include "schedule_document.h"

#include <QtConcurrent/QtConcurrentRun>

#include "analysis/cost_report.h"
#include "codegen/c_codegen.h"
#include "codegen/code_size.h"
#include "codegen/export_writer.h"
#include "codegen/gemmini_codegen.h"
#include "common/text_file.h"
#include "document_commands.h"
#include "ir/kernel.h"
#include "lower/loop_nest.h"
#include "sched/schedule_paths.h"
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

/// Runs one of the document's file operations (open, save, export, a target): an exception,
/// from a bug or from memory running out, becomes its error message and `false`, as a file that
/// cannot be read does. The operations change the document only once they have succeeded, so
/// the user's edits are kept (issue 16).
template <typename F>
bool guarded(QString* error, F&& operation)
{
    try {
        return operation();
    } catch (const std::bad_alloc&) {
        setError(error, QObject::tr("out of memory: the input is too large for this machine; nothing was changed"));
    } catch (const std::exception& e) {
        setError(error, QObject::tr("internal error: %1 (a bug in Loopscope: please report it with the file); nothing was changed")
                            .arg(QString::fromStdString(e.what())));
    } catch (...) {
        setError(error, QObject::tr("internal error: an unknown exception (a bug in Loopscope); nothing was changed"));
    }
    return false;
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
    // The workers only hold shared copies of the kernel, target and nest; wait so that they do
    // not outlive the watchers that would deliver their results.
    if (m_async)
        m_async->waitForFinished();
    if (m_codeWatcher)
        m_codeWatcher->waitForFinished();
}

// Not the future's isRunning(): the worker can be done before the finished signal is delivered,
// and an edit arriving in between must still wait for (and then replace) that result.
bool ScheduleDocument::isRebuilding() const { return m_asyncPending; }

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
    m_openWarnings.clear();
    // Every open starts a clean history: undo never reaches into the document opened before
    // (also when the same file is opened again).
    m_undo->clear();
    m_state = std::move(state);
    m_codeLinesPeak = 0;   // a new document: its first C is generated at once
    watchTarget();
    rebuild();
    emit opened(m_path);
    emit dirtyChanged(false);
    emit changed(m_snapshot);
}

bool ScheduleDocument::openSchedule(const QString& path, QString* error)
{
    return guarded(error, [&] {
        auto file = sched::loadScheduleFile(str(path));
        if (!file) {
            setError(error, qstr(file.errorText()));
            return false;
        }
        // Paths start from the schedule's folder (its target's, for a symbolic link); an
        // absolute one is read with a warning (docs/schedules.md, "Paths a schedule may name").
        const std::string dir = sched::scheduleFolder(str(QFileInfo(path).absoluteFilePath()));
        QStringList warnings;
        const sched::NamedFile kernelFile = sched::resolveNamedFile(dir, file->kernel, file->kernelLoc, "kernel");
        if (kernelFile.warning)
            warnings << qstr(kernelFile.warning->str());
        auto kernel = ir::loadKernelFile(kernelFile.path, file->params);
        if (!kernel) {
            setError(error, qstr(kernel.errorText()));
            return false;
        }
        // Built-in names stay names; files become absolute so the document can move.
        QString target = qstr(file->target);
        if (!isBuiltinTarget(target)) {
            const sched::NamedFile targetFile = sched::resolveNamedFile(dir, file->target, file->targetLoc, "target");
            if (targetFile.warning)
                warnings << qstr(targetFile.warning->str());
            target = QFileInfo(qstr(targetFile.path)).absoluteFilePath();
        }
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
        m_openWarnings = warnings;
        return true;
    });
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
    return guarded(error, [&] {
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
    });
}

bool ScheduleDocument::save(const QString& path, QString* error)
{
    return guarded(error, [&] {
        if (!isOpen()) {
            setError(error, tr("nothing to save"));
            return false;
        }
        const QString target = path.isEmpty() ? m_path : QFileInfo(path).absoluteFilePath();
        if (target.isEmpty()) {
            setError(error, tr("the schedule has no file name yet"));
            return false;
        }
        // Saving through a symbolic link writes its target (sched::saveScheduleFile), so the
        // kernel and target paths are written relative to the target's folder, where they are read.
        const QFileInfo link(target);
        const QString real = !link.isSymLink() ? target : !link.canonicalFilePath().isEmpty() ? link.canonicalFilePath() : link.symLinkTarget();
        const QDir dir = QFileInfo(real).absoluteDir();
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
    });
}

bool ScheduleDocument::exportTo(const QString& directory, QStringList* written, QString* error, bool force, QStringList* conflicts, bool harness) const
{
    return guarded(error, [&] {
        if (!isOpen()) {
            setError(error, tr("nothing to export"));
            return false;
        }
        codegen::ExportOptions options;
        options.harness = harness;
        if (const std::string why = codegen::exportError(*m_snapshot.nest, options); !why.empty()) {
            setError(error, codegen::isGemminiNest(*m_snapshot.nest) ? tr("cannot export for the accelerator: %1").arg(qstr(why))
                                                                      : tr("cannot export: %1").arg(qstr(why)));
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
    });
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
    return guarded(error, [&] {
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
    });
}

bool ScheduleDocument::reloadTarget(QString* error)
{
    return guarded(error, [&] {
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
    });
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

/// The C a nest exports to, for the Code panel (codegen::codeViewText: gemmini.h calls for a
/// tensorized nest, or why there is nothing to write). It is generated later, maybe on a worker
/// (GeneratedCode): an exception there (a bug, memory running out) becomes a comment saying so,
/// never a crash of the app or a lost edit.
std::string exportedCode(const lower::LoopNest& nest, const ScheduleDocument::CodeGenerator& generator)
{
    try {
        return generator ? generator(nest) : codegen::codeViewText(nest);
    } catch (const std::bad_alloc&) {
        return "/* No code is shown: out of memory while generating it. */\n";
    } catch (const std::exception& e) {
        return std::string("/* No code is shown: internal error while generating it: ") + e.what() + " (a bug in Loopscope; please report the schedule). */\n";
    }
}

/// Replay (the first `count` steps), lower, analyse, and the C to generate: a pure function of
/// its arguments, so that it can run on a worker thread. With `generateCode` the C is generated
/// here too, else on demand (GeneratedCode). Returns the snapshot (revision unset) and the
/// milliseconds taken. `hook` (tests) sees each program before it is lowered.
std::pair<Snapshot, double> buildSnapshotOf(const std::shared_ptr<const ir::Kernel>& kernel, const std::shared_ptr<const hw::Target>& target,
                                            const std::vector<sched::Step>& steps, size_t count, bool generateCode,
                                            const ScheduleDocument::CodeGenerator& generator, const ScheduleDocument::BuildHook& hook)
{
    QElapsedTimer timer;
    timer.start();
    Snapshot s;
    // replay moves the program from step to step (linear in the trace); when a step fails, the
    // steps before it are replayed again for the program to show.
    const std::vector<sched::Step> prefix(steps.begin(), steps.begin() + static_cast<std::ptrdiff_t>(std::min(count, steps.size())));
    sched::ApplyResult replayed = sched::replay(kernel, target, prefix);
    if (!replayed.ok()) {
        s.failedStep = replayed.error();
        replayed = sched::replay(kernel, target, std::vector<sched::Step>(prefix.begin(), prefix.begin() + replayed.error().stepIndex));
    }
    sched::Program p = std::move(replayed.program());
    if (hook)
        hook(p);
    auto nest = std::make_shared<const lower::LoopNest>(lower::lower(p));
    s.report = std::make_shared<const analysis::CostReport>(analysis::analyze(*nest, *target));
    s.generated = std::make_shared<const GeneratedCode>([nest, generator] { return exportedCode(*nest, generator); });
    if (generateCode)
        s.generated->text();
    s.nest = std::move(nest);
    s.program = std::make_shared<const sched::Program>(std::move(p));
    return {std::move(s), timer.nsecsElapsed() / 1e6};
}

int lineCount(const std::string& text) { return countLines(text); }

/// buildSnapshotOf every step. When it throws (a bug in the core, or memory running out), the
/// views show the program of the steps before the last one that builds, with that step marked
/// as failing and the reason: the trace itself, the user's work, is kept as it is (issue 16).
std::pair<Snapshot, double> buildSnapshot(std::shared_ptr<const ir::Kernel> kernel, std::shared_ptr<const hw::Target> target,
                                          const std::vector<sched::Step>& steps, bool generateCode, ScheduleDocument::CodeGenerator generator,
                                          ScheduleDocument::BuildHook hook)
{
    std::string why;
    try {
        return buildSnapshotOf(kernel, target, steps, steps.size(), generateCode, generator, hook);
    } catch (const std::bad_alloc&) {
        why = "out of memory";
    } catch (const std::exception& e) {
        why = std::string("internal error: ") + e.what();
    } catch (...) {
        why = "internal error: an unknown exception";
    }
    for (size_t count = steps.size(); count-- > 0;) {
        try {
            auto built = buildSnapshotOf(kernel, target, steps, count, generateCode, generator, hook);
            if (built.first.failedStep)
                continue;  // an earlier step fails anyway: it is the one to show
            sched::ScheduleError e;
            e.stepIndex = static_cast<int>(count);
            e.primitive = steps[count].primitive;
            e.message = why + " while lowering, analysing or generating the code of this step";
            e.detail = "a bug in Loopscope: the steps are kept (undo, change or remove this one); please report the schedule";
            built.first.failedStep = std::move(e);
            return built;
        } catch (...) {
            // fewer steps, until one builds
        }
    }
    throw std::runtime_error(why + " while building the unscheduled kernel");
}

} // namespace

void ScheduleDocument::rebuild()
{
    // A document opened (or a history restored) while a worker builds an edit of the previous
    // state: the state built here replaces it, and the worker's result is dropped when it comes.
    // Said now, before `opened`, so that the window's "Opened ..." message is not cleared by it.
    ++m_syncBuilds;
    if (m_asyncPending) {
        m_asyncPending = false;
        m_rebuildAgain = false;
        emit rebuilding(false);
    }
    QString why;
    auto target = resolve(m_state.target, &why);
    if (!target)  // only a target that was loaded before can be installed
        target = m_snapshot.program ? m_snapshot.program->target : nullptr;
    if (!target)
        return;
    // Long C (thousands of lines: milliseconds) is generated on a worker after the edit, so
    // that the views are repainted meanwhile; short C at once, so that the Code panel is
    // current in the same frame. What decides is the longest C this document has written: an
    // edit that shrinks it (removing an unroll) is usually followed by one that grows it back.
    const bool inline_ = m_codeLinesPeak < m_backgroundCodeLines;
    auto [s, ms] = buildSnapshot(m_kernel, target, m_state.steps, inline_, m_generator, m_buildHook);
    s.revision = ++m_revision;
    m_snapshot = std::move(s);
    m_lastRebuildMs = ms;
    if (inline_)
        m_codeLinesPeak = std::max(m_codeLinesPeak, lineCount(m_snapshot.code()));
    else
        generateInBackground();
}

void ScheduleDocument::setCodeGenerator(CodeGenerator generator) { m_generator = std::move(generator); }

void ScheduleDocument::generateInBackground()
{
    if (!m_codeWatcher) {
        m_codeWatcher = new QFutureWatcher<void>(this);
        connect(m_codeWatcher, &QFutureWatcherBase::finished, this, [this] {
            // Only the C of the snapshot shown now is news; an older one was replaced meanwhile.
            if (m_pendingCode != m_snapshot.generated || !m_snapshot.codeReady())
                return;
            m_pendingCode.reset();
            m_codeLinesPeak = std::max(m_codeLinesPeak, lineCount(m_snapshot.code()));
            emit codeReady(m_snapshot);
        });
    }
    m_pendingCode = m_snapshot.generated;
    std::shared_ptr<const GeneratedCode> code = m_snapshot.generated;
    m_codeWatcher->setFuture(QtConcurrent::run([code] { code->text(); }));
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
    m_asyncPending = true;
    m_asyncStartedAfter = m_syncBuilds;
    emit rebuilding(true);
    m_async->setFuture(QtConcurrent::run(buildSnapshot, m_kernel, target, m_state.steps, true, m_generator, m_buildHook));
}

void ScheduleDocument::asyncRebuildFinished()
{
    // Built for a state that a rebuild on this thread replaced since (rebuild() said so); or a
    // finished signal of a future already replaced (setFuture drops those: never block on one).
    if (m_asyncStartedAfter != m_syncBuilds || !m_async->isFinished())
        return;
    m_asyncPending = false;
    if (m_rebuildAgain) {
        m_rebuildAgain = false;
        startAsyncRebuild();
        if (m_asyncPending)
            return;   // the newer state is being built; this result is stale
    }
    auto [s, ms] = m_async->result();
    s.revision = ++m_revision;
    m_snapshot = std::move(s);
    m_lastRebuildMs = ms;
    m_codeLinesPeak = std::max(m_codeLinesPeak, lineCount(m_snapshot.code()));   // generated on the worker
    emit rebuilding(false);
    emit changed(m_snapshot);
}

} // namespace loopscope::ui
