// The app's workspace: which one is in use (the one in the document's folder, or one the user
// opened or created), the Variants dock and the Compare window, the edit journal's place, and
// the offer to restore what a crash left unsaved.
#pragma once

#include "sched/schedule_file.h"
#include "store/records.h"

#include <QObject>
#include <QString>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

class QDialog;
class QDockWidget;
class QMainWindow;
class QMenu;

namespace loopscope::codegen {
struct Measurement;
}
namespace loopscope::store {
class Workspace;
}

namespace loopscope::ui {

class CompareView;
class EditJournal;
class ScheduleDocument;
class VariantsView;

class WorkspaceController : public QObject {
    Q_OBJECT
public:
    struct Options {
        /// Journal the document's edits. Into the workspace in use when it may be written,
        /// else into recovery.loopscope-workspace in `recoveryFolder`.
        bool journal = true;
        QString recoveryFolder;   ///< "": the app's data folder (~/.local/share/Loopscope/loopscope)
        bool remember = true;     ///< remember opened workspaces in QSettings (to look for crashed sessions)
    };
    /// Asks for a variant's name and notes (false: cancelled).
    using NamePrompt = std::function<bool(const QString& title, QString& name, QString& notes)>;
    /// Asks a yes/no question (true: yes).
    using ConfirmPrompt = std::function<bool(const QString& title, const QString& question)>;
    /// Asks for a workspace file to open, or (`folder`) a folder to create one in ("": cancelled).
    using FilePrompt = std::function<QString(bool folder, const QString& suggestion)>;
    enum class RecoveryAnswer { Restore, Discard, Later };
    /// Asks what to do with what a crash left (the text says what would be restored).
    using RecoveryPrompt = std::function<RecoveryAnswer(const QString& text)>;
    /// Before the open document is replaced: false when the user cancels (MainWindow's "save the changes?").
    using MaybeSave = std::function<bool()>;

    WorkspaceController(QMainWindow* window, ScheduleDocument* doc, Options options);
    ~WorkspaceController() override;

    QDockWidget* variantsDock() const { return m_variantsDock; }
    /// The Compare window (opened by compare()).
    QDialog* compareWindow() const { return m_compareWindow; }
    VariantsView* variantsView() const { return m_variants; }
    CompareView* compareView() const { return m_compare; }
    EditJournal* journal() const { return m_journal; }
    /// File > Workspace: save as variant, compare, open and create a workspace.
    void addMenu(QMenu* file);

    // ---- The workspace in use ----------------------------------------------------------------
    QString workspacePath() const;
    bool isReadOnly() const;
    store::Workspace* workspace() const { return m_ws.get(); }
    /// Uses an existing workspace file (until a document from a folder with its own is opened).
    bool openWorkspace(const QString& path, QString* error = nullptr);
    /// Creates FOLDER/<folder name>.loopscope-workspace (never replaces a file) and uses it.
    bool createWorkspace(const QString& folder, QString* error = nullptr);
    /// Reads the variants again.
    void refresh();
    /// Where edits are journaled now ("" when they are not).
    QString journalPath() const;
    /// The per-user workspace for documents without a writable workspace.
    QString recoveryWorkspacePath() const;

    // ---- Variants ------------------------------------------------------------------------------
    /// Saves the current schedule as a variant (derived from the variant it came from).
    std::optional<int64_t> saveVariant(const QString& name, const QString& notes, QString* error = nullptr);
    /// Opens a variant as an untitled document, with its stored kernel and target texts.
    bool openVariant(int64_t id, QString* error = nullptr);
    std::optional<int64_t> duplicateVariant(int64_t id, QString* error = nullptr);
    bool renameVariant(int64_t id, const QString& name, QString* error = nullptr);
    /// Deletes a variant after asking (when `ask`).
    bool deleteVariant(int64_t id, bool ask = true, QString* error = nullptr);
    /// Shows the Compare window on A and B.
    bool compare(int64_t a, int64_t b, QString* error = nullptr);
    /// The variant the open document was opened from or last saved as (forgotten when another
    /// document is opened or another workspace used).
    std::optional<int64_t> currentVariant() const { return m_current; }
    /// A successful measurement of the document as it is now (Schedule > Measure). Stored with
    /// the current variant when the document's schedule is the one stored as that variant
    /// (steps, parameters, kernel and target texts); otherwise nothing is written, and the
    /// next Save as variant of this same schedule stores it with the new variant. Returns what
    /// was done, for the status bar ("" when no workspace is in use).
    QString measured(const codegen::Measurement& m);

    // ---- Crash recovery ------------------------------------------------------------------------
    struct Recovery {
        QString workspace;           ///< the file its journal is in
        store::Recoverable what;
        int changes = 0;             ///< undo steps from its base to its last state
        QString description;         ///< "mm.sched.yaml in /p: 5 changes, the last 'split j by 16' (18:02)"
    };
    /// Sessions of this host whose process is gone without closing them, newest first: in the
    /// per-user recovery workspace, the workspace in use, those of the recent files' folders
    /// and the workspaces opened before.
    std::vector<Recovery> findRecoverable() const;
    /// Offers the newest one (RecoveryPrompt); true when it was restored.
    bool offerRecovery();
    /// Opens its base and rebuilds its undo history; the document is unsaved.
    bool restore(const Recovery& r, QString* error = nullptr);
    /// Forgets it (the session and its entries are removed).
    bool discard(const Recovery& r, QString* error = nullptr);

    void setNamePrompt(NamePrompt p) { m_namePrompt = std::move(p); }
    void setConfirmPrompt(ConfirmPrompt p) { m_confirmPrompt = std::move(p); }
    void setFilePrompt(FilePrompt p) { m_filePrompt = std::move(p); }
    void setRecoveryPrompt(RecoveryPrompt p) { m_recoveryPrompt = std::move(p); }
    void setMaybeSave(MaybeSave f) { m_maybeSave = std::move(f); }
    /// The folder proposed for a new workspace when the document has none.
    void setSuggestedFolder(std::function<QString()> f) { m_suggestedFolder = std::move(f); }

signals:
    /// Something for the status bar.
    void message(const QString& text, int timeoutMs);

private:
    void onOpened(const QString& path);
    /// Uses `ws` (nullptr: none, with `why` shown in the dock).
    void use(std::unique_ptr<store::Workspace> ws, bool chosen, const QString& why);
    void updateJournal();
    void rememberWorkspace(const QString& path);
    void askSave();
    void askCompare(int64_t a, int64_t b);
    bool ask(const QString& title, const QString& question);
    void warn(const QString& title, const QString& text);
    QString documentFolder() const;
    void setCurrent(std::optional<int64_t> id);
    /// Fills the Compare window with A and B (without showing it).
    bool fillComparison(int64_t a, int64_t b, QString* error);

    QMainWindow* m_window;
    ScheduleDocument* m_doc;
    Options m_options;
    std::unique_ptr<store::Workspace> m_ws;
    bool m_chosen = false;   ///< opened or created by the user (kept for untitled documents)
    std::optional<int64_t> m_current;
    /// The document's last measurement and the schedule it counted, for Save as variant.
    struct PendingMeasurement {
        store::Measurement measurement;
        sched::ScheduleFile schedule;
        std::string kernelText;
        std::string targetText;
    };
    std::optional<PendingMeasurement> m_measured;
    EditJournal* m_journal = nullptr;
    VariantsView* m_variants = nullptr;
    CompareView* m_compare = nullptr;
    QDockWidget* m_variantsDock = nullptr;
    QDialog* m_compareWindow = nullptr;
    bool m_journalFailed = false;
    std::string m_stamp;     ///< the variants as refresh() last read them (Workspace::variantsStamp)
    NamePrompt m_namePrompt;
    ConfirmPrompt m_confirmPrompt;
    FilePrompt m_filePrompt;
    RecoveryPrompt m_recoveryPrompt;
    MaybeSave m_maybeSave;
    std::function<QString()> m_suggestedFolder;
};

} // namespace loopscope::ui
