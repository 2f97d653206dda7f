// The document of the desktop application: a kernel, a target and the trace, changed only
// through its undo stack; after every change it emits one `changed` signal with a new Snapshot.
#pragma once

#include "sched/schedule_file.h"
#include "snapshot.h"

#include <QFutureWatcher>
#include <QObject>
#include <QString>
#include <QStringList>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <vector>

class QFileSystemWatcher;
class QUndoStack;

namespace loopscope::ui {

/// What the undo commands swap: the trace as the user wrote it and the target it runs on.
struct DocumentState {
    std::vector<sched::Step> steps;   ///< every step, also those after a failing one
    QString target;                   ///< built-in name or absolute path of a target file
    QString description;              ///< what the schedule does, as saved in the file
    /// The steps the description was written for: when `steps` differ, the description may no
    /// longer say what the schedule does (descriptionIsStale).
    std::vector<sched::Step> describedSteps;
    bool operator==(const DocumentState&) const = default;
};

/// Owns the QUndoStack. Views never change it directly: they emit intents that the main
/// window turns into calls of the edit functions below, each of which pushes one command.
class ScheduleDocument : public QObject {
    Q_OBJECT
public:
    explicit ScheduleDocument(QObject* parent = nullptr);
    ~ScheduleDocument() override;

    // ---- Opening and saving (opening clears the undo stack) -----------------------------
    /// Loads a schedule file, its kernel and target, and replays the trace. Unlike
    /// sched::openSchedule, a failing step does not refuse the file: it is recorded in the
    /// snapshot (and marked in the schedule view) so that the user can fix it.
    bool openSchedule(const QString& path, QString* error = nullptr);
    /// Starts an untitled document from a schedule file (an example): the same kernel, target,
    /// steps and description, but no file name, so that Save asks where to write and the file
    /// it came from is never overwritten. The title names it "<name> (unsaved)".
    bool newFromSchedule(const QString& path, QString* error = nullptr);
    /// A kernel file on its own (empty trace) on a target (built-in name or file path).
    bool openKernel(const QString& kernelPath, const QString& target, QString* error = nullptr);

    /// A document from texts rather than files: a variant's stored schedule, kernel and target
    /// (reproduced exactly, whatever the files on disk say now), or a journal's state.
    struct TextSource {
        std::string schedule;     ///< a *.sched.yaml text; its kernel (and target file) paths absolute
        std::string kernelText;   ///< the kernel's text ("": read the kernel file)
        std::string targetText;   ///< the target's text ("": the built-in or the target file)
        QString path;             ///< the schedule file the document belongs to ("": untitled)
        QString untitledName;     ///< the title of an untitled document
    };
    /// Opens `source`; the undo stack starts empty. False (with a message) when a text does not
    /// parse or the kernel file cannot be read.
    bool openText(const TextSource& source, QString* error = nullptr);
    /// One command of a restored undo history: its text and the document after it (a
    /// *.sched.yaml text as stateText() writes it).
    struct RestoredCommand {
        QString text;
        std::string state;
    };
    /// Opens `base` and rebuilds an undo history on it: `commands` pushed in order, then undone
    /// down to `index` (the commands after it can be redone). The document is as the last
    /// command at `index` left it and unsaved (clean only at the base). Rebuilds once.
    bool restoreHistory(const TextSource& base, const std::vector<RestoredCommand>& commands, int index, QString* error = nullptr);
    /// The document (or `state`) as a schedule file with absolute kernel and target paths:
    /// what the edit journal and a saved variant keep. Cheap: formatting is left to the caller.
    sched::ScheduleFile stateFile() const { return stateFile(m_state); }
    sched::ScheduleFile stateFile(const DocumentState& state) const;
    /// The text of the kernel as the document read it.
    const std::string& kernelText() const { return m_kernelText; }
    /// The text of the target in use: the built-in's, the text it was opened from, or the file's now.
    std::string targetText() const;
    /// Writes the schedule (the kernel path relative to the file) and marks the document clean.
    /// An empty path means the current file.
    bool save(const QString& path = QString(), QString* error = nullptr);
    /// Writes what `loopscope-cli export` writes (<kernel>.h and .c) into a directory. Files in
    /// the way that an earlier export did not write (or that were edited since) are not
    /// replaced unless `force`: then nothing is written, false is returned and `conflicts`
    /// names them (see codegen::writeExport).
    /// With `harness`, also main.c and the build files (`loopscope-cli export --harness`).
    bool exportTo(const QString& directory, QStringList* written = nullptr, QString* error = nullptr, bool force = false,
                  QStringList* conflicts = nullptr, bool harness = false) const;

    // ---- Edits (each pushes one undo command; failures change nothing) -------------------
    /// Applies a new step to the program shown now. When the trace has a failing step, the
    /// new step goes just before it (the program shown is the one before that step). A step
    /// that does not apply is rejected: nothing changes, the error is returned and emitted.
    std::optional<sched::ScheduleError> applyStep(const sched::Step& step);
    /// Applies several new steps as one edit (one undo entry named `text`), as applyStep does
    /// one: the cache steps and the tensorize of a one-click tensorize. All or nothing: when a
    /// step does not apply, nothing changes and its error (with its index) is returned and emitted.
    std::optional<sched::ScheduleError> applySteps(const std::vector<sched::Step>& steps, const QString& text);
    bool removeStep(int index);
    /// Moves step `from` to position `to` (both 0-based).
    bool moveStep(int from, int to);
    /// Replaces a step's parameters. Edits with the same non-zero `mergeSession` on the same
    /// step merge into one undo entry (a spin-box drag). A step that then fails is kept and
    /// marked (the user may be on the way to a valid value).
    bool editStep(int index, const sched::Step& step, int mergeSession = 0);
    /// Runs the trace on another target (built-in name or file path); undoable.
    bool setTarget(const QString& target, QString* error = nullptr);
    /// Replaces the description (undoable); it then describes the current steps.
    bool setDescription(const QString& description);
    /// Loads the target file again (it changed on disk). Not an undoable edit.
    bool reloadTarget(QString* error = nullptr);

    /// A new, unique session id for mergeable edits.
    int newMergeSession() { return ++m_lastMergeSession; }

    // ---- State ----------------------------------------------------------------------------
    const Snapshot& snapshot() const { return m_snapshot; }
    const std::vector<sched::Step>& steps() const { return m_state.steps; }
    const DocumentState& state() const { return m_state; }
    bool isOpen() const { return !m_snapshot.empty(); }
    QString filePath() const { return m_path; }
    /// The name shown for an untitled document started from a file (newFromSchedule), else "".
    QString untitledName() const { return m_untitledName; }
    QString kernelPath() const { return m_kernelPath; }
    /// Built-in target name or absolute path of the target file.
    QString target() const { return m_state.target; }
    QString description() const { return m_state.description; }
    /// The description was written for other steps than the current ones (an example's text
    /// after the user changed its schedule).
    bool descriptionIsStale() const;
    bool isDirty() const;
    QUndoStack* undoStack() const { return m_undo; }
    /// Warnings of the last openSchedule (an absolute kernel or target path), for the status bar.
    const QStringList& openWarnings() const { return m_openWarnings; }
    /// The last step refused by applyStep (cleared by the next successful edit).
    const std::optional<sched::ScheduleError>& lastRejected() const { return m_rejected; }
    /// Milliseconds the last rebuild (replay, lower, analyse, generate C) took.
    double lastRebuildMs() const { return m_lastRebuildMs; }
    /// Edits whose previous rebuild took at least this long rebuild on a worker thread: the
    /// window keeps the last snapshot, stays responsive and shows progress meanwhile.
    void setAsyncThresholdMs(double ms) { m_asyncThresholdMs = ms; }
    /// A rebuild was started on the worker thread and its result is not installed yet (the
    /// worker may have finished, its result waiting in the event queue).
    bool isRebuilding() const;
    /// Tests only: called with each program before it is lowered, on the thread that rebuilds;
    /// an exception it throws is handled as one from lowering would be.
    using BuildHook = std::function<void(const sched::Program&)>;
    void setBuildHook(BuildHook hook) { m_buildHook = std::move(hook); }
    /// Once this document generated C longer than this many lines, its C is generated on a
    /// worker thread after each edit: `changed` is emitted before it is ready and `codeReady`
    /// when it is. Until then it is generated with the rest of the snapshot. 0: always on the
    /// worker.
    void setBackgroundCodeLines(int lines) { m_backgroundCodeLines = lines; }
    /// What writes a nest's C (by default what Export writes); tests slow it down to see the
    /// Code panel while the C is pending. Called on worker threads.
    using CodeGenerator = std::function<std::string(const lower::LoopNest&)>;
    void setCodeGenerator(CodeGenerator generator);

    /// Called by the undo commands only: installs a state and rebuilds the snapshot.
    void setState(const DocumentState& state);

signals:
    /// After every change: open, edit, undo, redo, target reload.
    void changed(const loopscope::ui::Snapshot& snapshot);
    /// A document is about to replace the open one (its undo stack is cleared next).
    void opening();
    /// A new document was opened (histories should start again); also after Save, which
    /// gives the document its (new) file.
    void opened(const QString& path);
    void dirtyChanged(bool dirty);
    /// A new step was refused; nothing changed.
    void stepRejected(const loopscope::sched::ScheduleError& error);
    /// The target file was reloaded from disk (or failed to, with a message).
    void targetReloaded(const QString& path, const QString& error);
    /// A slow rebuild started (true) on the worker thread, or finished (false).
    void rebuilding(bool busy);
    /// The C of the current snapshot, generated on a worker thread after `changed`, is ready.
    void codeReady(const loopscope::ui::Snapshot& snapshot);

private:
    std::shared_ptr<const hw::Target> resolve(const QString& target, QString* error);
    void rebuild();
    /// Rebuilds and emits changed: at once when rebuilds are fast, else on the worker thread.
    void refresh();
    void startAsyncRebuild();
    void generateInBackground();
    void asyncRebuildFinished();
    void watchTarget();
    void install(std::shared_ptr<const ir::Kernel> kernel, sched::ScheduleFile file,
                 const QString& path, DocumentState state, std::optional<std::string> kernelText = std::nullopt,
                 const QString& untitledName = QString());
    /// The state a journal or variant text describes (its description written for its steps).
    Result<DocumentState> stateFromText(const std::string& text, const DocumentState& previous) const;

    QUndoStack* m_undo = nullptr;
    QFileSystemWatcher* m_watcher = nullptr;
    std::shared_ptr<const ir::Kernel> m_kernel;
    /// Loaded targets by spec; a reload replaces the entry.
    std::map<QString, std::shared_ptr<const hw::Target>> m_targets;
    sched::ScheduleFile m_file;   ///< description and size overrides of the opened file
    QString m_path;               ///< the schedule file, empty until saved
    QString m_untitledName;       ///< newFromSchedule: the name of the file it started from
    QString m_kernelPath;         ///< absolute
    std::string m_kernelText;     ///< the kernel file's text as it was parsed
    std::map<QString, std::string> m_targetTexts;   ///< targets opened from a text (a variant's stored target)
    bool m_quiet = false;         ///< restoreHistory: setState installs without rebuilding
    DocumentState m_state;
    Snapshot m_snapshot;
    std::optional<sched::ScheduleError> m_rejected;
    int m_revision = 0;
    int m_lastMergeSession = 0;
    double m_lastRebuildMs = 0;
    double m_asyncThresholdMs = 100;
    QFutureWatcher<std::pair<Snapshot, double>>* m_async = nullptr;
    bool m_rebuildAgain = false;   ///< an edit arrived while the worker was busy
    bool m_asyncPending = false;   ///< started on the worker, result not installed yet
    int m_syncBuilds = 0;          ///< rebuilds done on this thread (open, restored history)
    int m_asyncStartedAfter = 0;   ///< m_syncBuilds when the worker's build started
    QStringList m_openWarnings;
    BuildHook m_buildHook;
    int m_codeLinesPeak = 0;       ///< lines of the longest C this document generated
    /// About 1 us per line: 4,000 lines (conv2d_int8_dsp) take 3 to 4 ms, as long as the rest
    /// of an edit's repaint.
    int m_backgroundCodeLines = 2000;
    QFutureWatcher<void>* m_codeWatcher = nullptr;
    CodeGenerator m_generator;
    std::shared_ptr<const GeneratedCode> m_pendingCode;   ///< the C the worker generates
};

/// True when `target` names a built-in target rather than a file.
bool isBuiltinTarget(const QString& target);

} // namespace loopscope::ui

Q_DECLARE_METATYPE(loopscope::ui::Snapshot)
Q_DECLARE_METATYPE(loopscope::sched::ScheduleError)
