// The main window: the loop nest in the centre, the other views in docks the user can
// rearrange (layout remembered with QSettings), the File/Edit/Schedule/View menus, and the
// wiring of view intents to document edits.
#pragma once

#include "codegen/measure.h"
#include "snapshot.h"

#include <QMainWindow>
#include <QProgressBar>
#include <QPointer>
#include <QSet>

#include <functional>
#include <map>

class QAction;
class QDockWidget;
class QLabel;
class QMenu;
class QUndoView;

namespace loopscope::ui {

class CodeView;
class CostView;
class DiagnosticsView;
class KernelView;
class LiveLabel;
class LoopNestView;
class MemoryView;
class ScheduleDocument;
class ScheduleView;
class TileView;
class WorkspaceController;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    struct Options {
        bool restoreLayout = true;   ///< false: the default layout (screenshots, tests)
        bool rememberFiles = true;   ///< false: recent files are not written to QSettings
        /// Where edits of documents without a writable workspace are journaled for crash
        /// recovery. "": the app's data folder when rememberFiles, else no journal at all
        /// (screenshots, most tests).
        QString recoveryFolder = QString();
    };
    /// What a file prompt asks for.
    enum class Prompt { OpenSchedule, OpenKernel, OpenTarget, SaveSchedule, ExportDirectory };
    /// Answers a file prompt (empty = cancelled). The default shows a QFileDialog; tests
    /// replace it.
    using PathPrompt = std::function<QString(Prompt, const QString& suggestion)>;
    /// Answers "save the changes?" with QMessageBox::Save, Discard or Cancel.
    using SavePrompt = std::function<int(const QString& name)>;
    /// Answers "replace these files, which an earlier export did not write?" (true: replace).
    using ReplacePrompt = std::function<bool(const QString& directory, const QStringList& files)>;
    /// What to do with a description written for other steps, asked before saving.
    enum class DescriptionAnswer { Keep, Remove, Cancel };
    using DescriptionPrompt = std::function<DescriptionAnswer(const QString& description)>;
    /// Answers "export although the schedule has these errors?" (true: export anyway).
    using ErrorsPrompt = std::function<bool(const QStringList& errors)>;
    /// Counts a nest's instructions on a target's core; runs on a worker thread. The default
    /// is codegen::measureOnQemu; tests replace it.
    using MeasureFunction = std::function<codegen::Measurement(const lower::LoopNest& nest, const std::string& target)>;

    explicit MainWindow(Options options, QWidget* parent = nullptr);
    explicit MainWindow(QWidget* parent = nullptr) : MainWindow(Options{}, parent) {}
    ~MainWindow() override;

    /// Opens a schedule (*.sched.yaml) or a kernel (*.kernel.yaml, on the current target).
    /// Asks first when there are unsaved changes. False (with a message box unless `quiet`)
    /// when it cannot be opened.
    bool openFile(const QString& path, QString* error = nullptr);
    /// File > New from example: an untitled copy of a schedule file (the file itself is never
    /// written; Save asks for a path outside the examples).
    bool newFromExample(const QString& path, QString* error = nullptr);
    bool saveTo(const QString& path, QString* error = nullptr);
    /// Exports into `directory`; asks before replacing files an earlier export did not write
    /// (or that were edited since), and writes nothing when the answer is no.
    /// With `harness`, also main.c and the build files for the host and Cortex-M on qemu.
    bool exportTo(const QString& directory, QString* error = nullptr, bool harness = false);
    /// The default layout of the docks.
    void resetLayout();

    void setPathPrompt(PathPrompt prompt) { m_pathPrompt = std::move(prompt); }
    void setSavePrompt(SavePrompt prompt) { m_savePrompt = std::move(prompt); }
    void setReplacePrompt(ReplacePrompt prompt) { m_replacePrompt = std::move(prompt); }
    void setDescriptionPrompt(DescriptionPrompt prompt) { m_descriptionPrompt = std::move(prompt); }
    void setErrorsPrompt(ErrorsPrompt prompt) { m_errorsPrompt = std::move(prompt); }
    void setMeasureFunction(MeasureFunction f) { m_measureFunction = std::move(f); }
    /// Tests only: called with each internal error an action reported (the text of its dialog)
    /// instead of showing the dialog.
    void setInternalErrorSink(std::function<void(const QString&)> sink) { m_internalErrorSink = std::move(sink); }
    /// Where Save asks first for an untitled document: the folder the user last saved or
    /// opened a schedule in (never the examples), else their home.
    QString lastFolder() const;

    ScheduleDocument* document() const { return m_doc; }
    LoopNestView* loopNestView() const { return m_nest; }
    ScheduleView* scheduleView() const { return m_schedule; }
    CodeView* codeView() const { return m_code; }
    DiagnosticsView* diagnosticsView() const { return m_diagnostics; }
    KernelView* kernelView() const { return m_kernel; }
    MemoryView* memoryView() const { return m_memory; }
    CostView* costView() const { return m_cost; }
    TileView* tileView() const { return m_tile; }
    QUndoView* historyView() const { return m_history; }
    /// The workspace in use, the Variants and Compare docks, the edit journal, crash recovery.
    WorkspaceController* workspace() const { return m_workspace; }
    /// Offers to restore what a crash left unsaved (on start, once a file is open).
    void offerRecovery();
    QDockWidget* dock(const QString& objectName) const;
    QList<QDockWidget*> docks() const;
    /// File menu actions by name: "save", "saveAs", "open", "export", "undo", "redo", ...
    QAction* action(const QString& name) const;
    QMenu* recentMenu() const { return m_recentMenu; }
    QStringList recentFiles() const;

    /// Milliseconds each view took to take the last snapshot (for the edit benchmark).
    const std::map<QString, double>& viewTimes() const { return m_viewTimes; }

    /// examples/ next to the program (or in the source tree it was built from).
    static QString examplesDir();
    /// The example opened when nothing else is asked for.
    static QString defaultExample();

    /// The size of the first window on a screen whose available area is `available`: most of
    /// it (90 % each way), never less than 1280 x 800 where the screen has that.
    static QSize defaultSize(const QSize& available);

    /// Shown and in front: neither closed nor behind another dock's tab.
    static bool dockOnScreen(const QDockWidget* d);

    /// The default proportions of the docks for the current window size.
    void applyDefaultSizes();
    /// Exports the kernel with its harness into a temporary directory, counts its instructions
    /// on qemu (Cortex-M7/M4 targets) on a worker thread and shows the count beside the
    /// estimate in the cost view. The count of the schedule shown is given to the workspace
    /// (WorkspaceController::measured: stored with the variant when the schedule is its own).
    void measure();

signals:
    /// A measurement ended; `current`: it describes the schedule shown now (else it was
    /// dropped because the schedule changed while it ran).
    void measurementFinished(bool current, const QString& text);

protected:
    void closeEvent(QCloseEvent* event) override;
    void showEvent(QShowEvent* event) override;

private:
    void buildViews();
    void buildMenus();
    void connectDocument();
    void onChanged(const Snapshot& snapshot);
    void onOpened();
    void updateTitle();
    bool maybeSave();
    QString askPath(Prompt prompt, const QString& suggestion);
    void addRecent(const QString& path);
    void rebuildRecentMenu();
    void applySelectionHighlight();
    /// Gives a dock's view the current snapshot now if it is on screen (or `force`), else
    /// marks it stale until it is shown.
    void updateLazy(const QString& dockName, bool force = false);
    void openFromPrompt(Prompt prompt);
    bool save();
    bool saveAs();
    /// Asks what to do with a stale description before saving; false: cancelled.
    bool confirmDescription();
    /// What to do with a description written for other steps (Keep when it is not stale).
    DescriptionAnswer askDescription();
    /// Applies the answer (a kept one is marked as meant for these steps); Cancel changes nothing.
    void applyDescription(DescriptionAnswer answer);
    void rememberFolder(const QString& file);
    void showCurrentInKernelView();
    void exportCode(bool harness = false);
    void showShortcuts();
    /// Runs a menu action; an exception it lets through (a bug, memory running out) becomes a
    /// dialog naming the action, and the document and its unsaved edits stay as they were.
    void runAction(const QString& name, const std::function<void()>& action);
    void showInternalError(const QString& text);

    Options m_options;
    ScheduleDocument* m_doc;
    LoopNestView* m_nest = nullptr;
    ScheduleView* m_schedule = nullptr;
    CodeView* m_code = nullptr;
    DiagnosticsView* m_diagnostics = nullptr;
    KernelView* m_kernel = nullptr;
    MemoryView* m_memory = nullptr;
    CostView* m_cost = nullptr;
    TileView* m_tile = nullptr;
    QUndoView* m_history = nullptr;
    WorkspaceController* m_workspace = nullptr;
    LiveLabel* m_statusCost = nullptr;
    QProgressBar* m_rebuildProgress = nullptr;
    QMenu* m_recentMenu = nullptr;
    std::map<QString, QAction*> m_actions;
    QByteArray m_defaultState;
    PathPrompt m_pathPrompt;
    SavePrompt m_savePrompt;
    ReplacePrompt m_replacePrompt;
    DescriptionPrompt m_descriptionPrompt;
    ErrorsPrompt m_errorsPrompt;
    MeasureFunction m_measureFunction;
    std::function<void(const QString&)> m_internalErrorSink;
    // The current selection, re-applied to the views after every change.
    QString m_selectedLoop;
    QStringList m_selectedTensors;
    // Schedule-view edit sessions mapped to document merge sessions.
    int m_viewSession = -1;
    int m_docSession = 0;
    QString m_refusedStep;
    bool m_shown = false;
    bool m_lastFailed = false;
    std::map<QString, double> m_viewTimes;
    QSet<QString> m_stale;
    bool m_restored = false;
    QString m_lastFolder;   ///< lastFolder() when the window does not remember files
    QString m_nextTarget = QStringLiteral("cortex-m7");   ///< the target a kernel opens on when nothing is open
};

} // namespace loopscope::ui
