// The app's workspace: docks, variant actions, the journal's place and crash recovery.
#include "workspace_controller.h"

#include "codegen/measure.h"
#include "compare_view.h"
#include "edit_journal.h"
#include "file_dialog.h"
#include "lower/loop_nest.h"
#include "main_window.h"
#include "schedule_document.h"
#include "store/compare.h"
#include "store/figures.h"
#include "store/journal_replay.h"
#include "store/trace_diff.h"
#include "store/variant_files.h"
#include "store/workspace.h"
#include "target_loader.h"
#include "variants_view.h"

#include <QAction>
#include <QDateTime>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDir>
#include <QDockWidget>
#include <QFileInfo>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMainWindow>
#include <QMenu>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSettings>
#include <QStandardPaths>
#include <QTimer>
#include <QUndoStack>
#include <QVBoxLayout>

#include <algorithm>
#include <map>
#include <set>

namespace loopscope::ui {

namespace {

QString qs(const std::string& s) { return QString::fromStdString(s); }
std::string str(const QString& s) { return s.toStdString(); }

store::TargetParser targetParser()
{
    return [](const std::string& text, const std::string& path) { return hw::parseTarget(text, path); };
}
store::BuiltinTargetText builtinText()
{
    return [](const std::string& name) { return hw::builtinTargetText(name); };
}

constexpr int kRememberedWorkspaces = 8;

/// The stored schedule of a variant with its kernel and target named absolutely (a trace added
/// from a file names its kernel relative to where that file was).
Result<std::string> absoluteTrace(const store::Variant& v)
{
    auto file = sched::parseScheduleFile(v.trace, "variant '" + v.name + "'");
    if (!file)
        return file.errors();
    file->kernel = v.kernelPath;
    file->target = v.target;
    return sched::formatScheduleFile(*file);
}

/// "5 changes, the last 'split j by 16'".
QString changesText(int changes, const std::string& lastAction)
{
    QString last = qs(lastAction);
    if (last.startsWith(QLatin1String(store::kJournalUndo)))
        last = WorkspaceController::tr("an undo of '%1'").arg(last.mid(int(std::strlen(store::kJournalUndo))));
    else if (last.startsWith(QLatin1String(store::kJournalRedo)))
        last = WorkspaceController::tr("a redo of '%1'").arg(last.mid(int(std::strlen(store::kJournalRedo))));
    else
        last = QStringLiteral("'%1'").arg(last);
    return (changes == 1 ? WorkspaceController::tr("1 change") : WorkspaceController::tr("%1 changes").arg(changes))
        + WorkspaceController::tr(", the last %1").arg(last);
}

} // namespace

WorkspaceController::WorkspaceController(QMainWindow* window, ScheduleDocument* doc, Options options)
    : QObject(window), m_window(window), m_doc(doc), m_options(std::move(options))
{
    m_journal = new EditJournal(doc, this);
    connect(m_journal, &EditJournal::writeFailed, this, [this](const QString& why) {
        if (m_journalFailed)
            return;
        m_journalFailed = true;  // once: the status bar is not a log
        emit message(tr("The edit journal cannot be written (%1): a crash now would lose the unsaved edits").arg(why), 15000);
    });
    connect(m_journal, &EditJournal::entryWritten, this, [this] { m_journalFailed = false; });

    m_variants = new VariantsView(window);
    m_compare = new CompareView;
    auto makeDock = [window](const QString& name, const QString& title, QWidget* w) {
        auto* d = new QDockWidget(title, window);
        d->setObjectName(name);
        d->setWidget(w);
        d->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable | QDockWidget::DockWidgetClosable);
        return d;
    };
    m_variantsDock = makeDock(QStringLiteral("variantsDock"), tr("Variants"), m_variants);
    // Two nests side by side, their figures and a chart want more room than a dock has: a
    // window of its own (as the search has), kept open while the user compares.
    m_compareWindow = new QDialog(window);
    m_compareWindow->setObjectName(QStringLiteral("compareWindow"));
    m_compareWindow->setWindowTitle(tr("Compare variants"));
    auto* compareLayout = new QVBoxLayout(m_compareWindow);
    compareLayout->setContentsMargins(4, 4, 4, 4);
    compareLayout->addWidget(m_compare);
    m_compareWindow->resize(1240, 720);

    connect(m_variants, &VariantsView::saveRequested, this, &WorkspaceController::askSave);
    connect(m_variants, &VariantsView::openRequested, this, [this](qint64 id) {
        QString error;
        if (!openVariant(id, &error) && !error.isEmpty())
            warn(tr("Open variant"), error);
    });
    connect(m_variants, &VariantsView::duplicateRequested, this, [this](qint64 id) {
        QString error;
        if (auto copy = duplicateVariant(id, &error)) {
            m_variants->selectVariant(*copy);
            m_variants->renameSelected();
        } else {
            warn(tr("Duplicate variant"), error);
        }
    });
    connect(m_variants, &VariantsView::renameRequested, this, [this](qint64 id, const QString& name) {
        QString error;
        if (!renameVariant(id, name, &error))
            warn(tr("Rename variant"), error);
    });
    connect(m_variants, &VariantsView::deleteRequested, this, [this](qint64 id) {
        QString error;
        if (!deleteVariant(id, true, &error) && !error.isEmpty())
            warn(tr("Delete variant"), error);
    });
    connect(m_variants, &VariantsView::compareRequested, this, &WorkspaceController::askCompare);
    connect(m_variants, &VariantsView::refreshRequested, this, &WorkspaceController::refresh);
    connect(m_variants, &VariantsView::createWorkspaceRequested, this, [this] {
        QString folder = documentFolder();
        if (folder.isEmpty())
            folder = m_filePrompt ? m_filePrompt(true, m_suggestedFolder ? m_suggestedFolder() : QDir::homePath())
                                  : askFile(m_window, FileDialogKind::Folder, tr("Create a workspace in"),
                                            m_suggestedFolder ? m_suggestedFolder() : QDir::homePath());
        QString error;
        if (!folder.isEmpty() && !createWorkspace(folder, &error))
            warn(tr("Create workspace"), error);
    });
    connect(m_variants, &VariantsView::openWorkspaceRequested, this, [this] {
        const QString suggestion = m_suggestedFolder ? m_suggestedFolder() : QDir::homePath();
        const QString path = m_filePrompt ? m_filePrompt(false, suggestion)
                                          : askFile(m_window, FileDialogKind::OpenFile, tr("Open workspace"), suggestion,
                                                    tr("Workspaces (*%1);;All files (*)").arg(QLatin1String(store::kWorkspaceSuffix)));
        QString error;
        if (!path.isEmpty() && !openWorkspace(path, &error))
            warn(tr("Open workspace"), error);
    });
    connect(m_compare, &CompareView::pairChosen, this, [this](qint64 a, qint64 b) {
        QString error;
        if (!compare(a, b, &error))
            emit message(error, 8000);
    });

    // Another document: it is no variant until openVariant, restore or a save says so, and
    // the last measurement was of the one before.
    connect(doc, &ScheduleDocument::opening, this, [this] {
        setCurrent(std::nullopt);
        m_measured.reset();
    });
    connect(doc, &ScheduleDocument::opened, this, &WorkspaceController::onOpened);
    // Variants another program adds (the CLI, a search streaming its front) appear while the
    // dock is in view: a cheap stamp of the variants is compared now and then.
    auto* poll = new QTimer(this);
    poll->setInterval(1500);
    connect(poll, &QTimer::timeout, this, [this] {
        if (m_ws && MainWindow::dockOnScreen(m_variantsDock) && m_ws->variantsStamp() != m_stamp)
            refresh();
    });
    poll->start();
    auto updateCanSave = [this] {
        const bool open = m_doc->isOpen();
        const bool fails = open && m_doc->snapshot().failedStep.has_value();
        m_variants->setCanSave(open && !fails, !open ? tr("Open a schedule first") : tr("A step of the schedule fails: fix or remove it first"));
    };
    connect(doc, &ScheduleDocument::changed, this, updateCanSave);
    updateCanSave();
    use(nullptr, false, QString());
}

WorkspaceController::~WorkspaceController() = default;

void WorkspaceController::addMenu(QMenu* file)
{
    QMenu* menu = file->addMenu(tr("&Workspace"));
    menu->setObjectName(QStringLiteral("workspaceMenu"));
    QAction* save = menu->addAction(tr("Save as &Variant..."));
    save->setObjectName(QStringLiteral("saveVariant"));
    save->setShortcut(QKeySequence(tr("Ctrl+Alt+S")));
    connect(save, &QAction::triggered, this, &WorkspaceController::askSave);
    QAction* show = menu->addAction(tr("Show &Variants"));
    connect(show, &QAction::triggered, this, [this] {
        m_variantsDock->show();
        m_variantsDock->raise();
    });
    QAction* cmp = menu->addAction(tr("&Compare Variants"));
    connect(cmp, &QAction::triggered, this, [this] {
        const auto ids = m_variants->selectedIds();
        askCompare(ids.empty() ? (m_current ? *m_current : -1) : ids[0], ids.size() > 1 ? ids[1] : -1);
    });
    menu->addSeparator();
    connect(menu->addAction(tr("&Open Workspace...")), &QAction::triggered, m_variants, &VariantsView::openWorkspaceRequested);
    connect(menu->addAction(tr("C&reate Workspace...")), &QAction::triggered, m_variants, &VariantsView::createWorkspaceRequested);
}

QString WorkspaceController::workspacePath() const { return m_ws ? qs(m_ws->path()) : QString(); }
bool WorkspaceController::isReadOnly() const { return m_ws && m_ws->isReadOnly(); }

QString WorkspaceController::recoveryWorkspacePath() const
{
    const QString folder = !m_options.recoveryFolder.isEmpty() ? m_options.recoveryFolder
                                                               : QStandardPaths::writableLocation(QStandardPaths::AppLocalDataLocation);
    return QDir(folder).absoluteFilePath(QStringLiteral("recovery") + QLatin1String(store::kWorkspaceSuffix));
}

QString WorkspaceController::documentFolder() const
{
    return m_doc->filePath().isEmpty() ? QString() : QFileInfo(m_doc->filePath()).absolutePath();
}

void WorkspaceController::onOpened(const QString& path)
{
    // An untitled document (an example, a kernel, a variant) stays with the workspace in use;
    // a file goes with its folder's workspace, or none.
    if (path.isEmpty()) {
        updateJournal();
        return;
    }
    const QString folder = QFileInfo(path).absolutePath();
    auto found = store::findWorkspaceIn(str(folder));
    if (found && *found) {
        if (m_ws && m_ws->path() == **found) {
            updateJournal();
            return;
        }
        auto ws = store::Workspace::open(**found);
        if (ws) {
            use(std::move(*ws), false, QString());
            return;
        }
        use(nullptr, false, tr("The workspace of %1 cannot be used: %2").arg(QDir::toNativeSeparators(folder), qs(ws.errorText())));
        return;
    }
    if (m_ws && QFileInfo(qs(m_ws->path())).absolutePath() == folder) {
        updateJournal();
        return;
    }
    use(nullptr, false,
        !found ? qs(found.errorText())
               : tr("No workspace in %1. A workspace keeps variants of the schedules of a folder, their figures, and the journal that "
                    "restores unsaved edits after a crash.")
                     .arg(QDir::toNativeSeparators(folder)));
}

void WorkspaceController::setCurrent(std::optional<int64_t> id)
{
    m_current = id;
    m_journal->setVariant(m_current);
    m_variants->setCurrent(m_current);
}

void WorkspaceController::use(std::unique_ptr<store::Workspace> ws, bool chosen, const QString& why)
{
    // A variant id means nothing in another workspace.
    if (!m_ws || !ws || m_ws->path() != ws->path())
        setCurrent(std::nullopt);
    m_ws = std::move(ws);
    m_chosen = chosen && m_ws;
    if (m_ws) {
        rememberWorkspace(qs(m_ws->path()));
        refresh();
    } else {
        m_variants->setWorkspace(QString(), false,
                                 why.isEmpty() ? tr("No workspace. Save the schedule in a folder and create one there, or open a workspace.") : why);
    }
    updateJournal();
}

void WorkspaceController::updateJournal()
{
    m_journal->setWorkspace(journalPath());
}

QString WorkspaceController::journalPath() const
{
    if (!m_options.journal)
        return QString();
    if (m_ws && !m_ws->isReadOnly())
        return qs(m_ws->path());
    // The app's own file for documents without a workspace it may write; made when needed.
    const QString path = recoveryWorkspacePath();
    if (!QFileInfo::exists(path)) {
        QDir().mkpath(QFileInfo(path).absolutePath());
        if (!store::Workspace::create(str(path)))
            return QString();
    }
    return path;
}

void WorkspaceController::rememberWorkspace(const QString& path)
{
    if (!m_options.remember)
        return;
    QSettings settings;
    QStringList list = settings.value(QStringLiteral("workspaces/recent")).toStringList();
    list.removeAll(path);
    list.prepend(path);
    while (list.size() > kRememberedWorkspaces)
        list.removeLast();
    settings.setValue(QStringLiteral("workspaces/recent"), list);
}

bool WorkspaceController::openWorkspace(const QString& path, QString* error)
{
    auto ws = store::Workspace::open(str(path));
    if (!ws) {
        if (error)
            *error = qs(ws.errorText());
        return false;
    }
    use(std::move(*ws), true, QString());
    emit message(tr("Using the workspace %1%2").arg(QDir::toNativeSeparators(path), isReadOnly() ? tr(" (read-only)") : QString()), 6000);
    return true;
}

bool WorkspaceController::createWorkspace(const QString& folder, QString* error)
{
    const std::string path = store::defaultWorkspacePath(str(folder));
    auto ws = store::Workspace::create(path);
    if (!ws) {
        if (error)
            *error = qs(ws.errorText());
        return false;
    }
    use(std::move(*ws), true, QString());
    emit message(tr("Created the workspace %1").arg(QDir::toNativeSeparators(qs(path))), 6000);
    return true;
}

void WorkspaceController::refresh()
{
    if (!m_ws)
        return;
    m_stamp = m_ws->variantsStamp();
    const auto variants = m_ws->variants();
    const QString readError = qs(m_ws->lastError());
    std::map<int64_t, QString> names;
    for (const auto& v : variants)
        names[v.id] = qs(v.name);
    // Each stored file is compared with the disk once per refresh.
    std::map<std::string, QString> states;
    auto stateOf = [&](const std::string& hash) {
        auto it = states.find(hash);
        if (it != states.end())
            return it->second;
        auto f = m_ws->file(hash);
        const QString s = f ? QString::fromLatin1(store::diskStateName(store::diskState(*f, builtinText()))) : QStringLiteral("missing");
        states[hash] = s;
        return s;
    };
    std::vector<VariantRow> rows;
    std::vector<VariantPoint> points;
    for (const auto& v : variants) {
        VariantRow r;
        r.variant = v;
        if (v.parentId)
            r.parentName = names.count(*v.parentId) ? names[*v.parentId] : tr("#%1").arg(*v.parentId);
        r.kernelOnDisk = stateOf(v.kernelHash);
        r.targetOnDisk = stateOf(v.targetHash);
        rows.push_back(std::move(r));
        if (v.figures)
            points.push_back({v.id, qs(v.name), v.figures->innerPeakBytes(), v.figures->cycles});
    }
    const QString where = QDir::toNativeSeparators(qs(m_ws->path()));
    QString text = tr("<b>%1</b> &middot; %2 variant(s)%3")
                       .arg(QFileInfo(where).fileName().toHtmlEscaped())
                       .arg(variants.size())
                       .arg(m_ws->isReadOnly() ? tr(" &middot; <b>read-only</b>: you may look, not change") : QString());
    if (!readError.isEmpty())
        text += QStringLiteral("<br><span style='color:#b00'>%1</span>").arg(readError.toHtmlEscaped());
    m_variants->setWorkspace(qs(m_ws->path()), m_ws->isReadOnly(), text);
    m_variants->setRows(std::move(rows));
    m_variants->setCurrent(m_current);
    m_compare->setVariants(points);
}

std::optional<int64_t> WorkspaceController::saveVariant(const QString& name, const QString& notes, QString* error)
{
    auto fail = [error](const QString& why) {
        if (error)
            *error = why;
        return std::nullopt;
    };
    if (!m_ws)
        return fail(tr("there is no workspace to save the variant in"));
    if (!m_doc->isOpen())
        return fail(tr("no schedule is open"));
    const Snapshot s = m_doc->snapshot();
    if (s.failedStep)
        return fail(tr("step %1 of the schedule fails (%2): fix or remove it first").arg(s.failedStep->stepIndex + 1).arg(qs(s.failedStep->message)));
    store::NewVariant v;
    v.name = str(name.trimmed());
    v.notes = str(notes);
    v.trace = sched::formatScheduleFile(m_doc->stateFile());
    v.kernelPath = str(m_doc->kernelPath());
    v.kernelText = m_doc->kernelText();
    v.target = str(m_doc->target());
    v.targetText = m_doc->targetText();
    if (v.kernelText.empty() || v.targetText.empty())
        return fail(tr("the kernel or target text cannot be read"));
    // The figures of the state saved: the snapshot's when it is current, else computed now.
    if (!m_doc->isRebuilding() && s.report)
        v.figures = store::figuresOf(*s.report);
    else
        v.figures = store::analyzeFigures(*s.program);
    if (m_current && m_ws->variant(*m_current))
        v.parentId = m_current;
    auto id = m_ws->addVariant(v);
    if (!id)
        return fail(qs(id.errorText()));
    setCurrent(*id);
    // A measurement of this very schedule (taken before it was saved) belongs to the variant.
    QString measuredNote;
    if (m_measured) {
        auto saved = m_ws->variant(*id);
        if (saved && store::isStoredSchedule(*saved, m_measured->schedule, m_measured->kernelText, m_measured->targetText)) {
            store::Measurement m = m_measured->measurement;
            m.variantId = *id;
            auto stored = m_ws->addMeasurement(m);
            measuredNote = stored ? tr(" with its measured count (%L1 instructions)").arg(qlonglong(m.instructions))
                                  : tr(" (its measured count was not stored: %1)").arg(qs(stored.errorText()));
        }
    }
    refresh();
    m_variants->selectVariant(*id);
    emit message(tr("Saved the variant %1%2 in %3").arg(name, measuredNote, QFileInfo(qs(m_ws->path())).fileName()), 6000);
    return *id;
}

void WorkspaceController::askSave()
{
    if (!m_doc->isOpen())
        return;
    if (!m_ws) {
        // The workspace goes where the schedule is, or where the user says.
        QString folder = documentFolder();
        if (folder.isEmpty()) {
            const QString suggestion = m_suggestedFolder ? m_suggestedFolder() : QDir::homePath();
            folder = m_filePrompt ? m_filePrompt(true, suggestion)
                                  : askFile(m_window, FileDialogKind::Folder, tr("Create a workspace for the variants in"), suggestion);
            if (folder.isEmpty())
                return;
        } else if (!ask(tr("Save as variant"), tr("There is no workspace in %1 yet. Create %2 to keep the variants of this folder's schedules?")
                                                   .arg(QDir::toNativeSeparators(folder), QFileInfo(qs(store::defaultWorkspacePath(str(folder)))).fileName()))) {
            return;
        }
        QString error;
        if (!createWorkspace(folder, &error)) {
            warn(tr("Save as variant"), error);
            return;
        }
    }
    if (isReadOnly()) {
        warn(tr("Save as variant"), tr("The workspace %1 is read-only.").arg(workspacePath()));
        return;
    }
    QString base = m_current && m_ws->variant(*m_current) ? qs(m_ws->variant(*m_current)->name)
                   : !m_doc->filePath().isEmpty()        ? QFileInfo(m_doc->filePath()).fileName().remove(QStringLiteral(".sched.yaml"))
                   : !m_doc->untitledName().isEmpty()    ? m_doc->untitledName().remove(tr(" (variant)"))
                                                         : QFileInfo(m_doc->kernelPath()).fileName().remove(QStringLiteral(".kernel.yaml"));
    QString name = qs(m_ws->uniqueName(str(base)));
    QString notes = m_doc->descriptionIsStale() ? QString() : m_doc->description();
    for (;;) {
        bool ok = false;
        if (m_namePrompt) {
            ok = m_namePrompt(tr("Save as variant"), name, notes);
        } else {
            QDialog dialog(m_window);
            dialog.setWindowTitle(tr("Save as variant"));
            auto* form = new QFormLayout(&dialog);
            auto* nameEdit = new QLineEdit(name, &dialog);
            auto* notesEdit = new QPlainTextEdit(notes, &dialog);
            notesEdit->setPlaceholderText(tr("What this variant tries, what you learned from it"));
            form->addRow(tr("Name"), nameEdit);
            form->addRow(tr("Notes"), notesEdit);
            if (m_current && m_ws->variant(*m_current))
                form->addRow(QString(), new QLabel(tr("Derived from %1").arg(qs(m_ws->variant(*m_current)->name)), &dialog));
            auto* buttons = new QDialogButtonBox(QDialogButtonBox::Save | QDialogButtonBox::Cancel, &dialog);
            form->addRow(buttons);
            connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
            connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
            nameEdit->selectAll();
            dialog.resize(420, 260);
            ok = dialog.exec() == QDialog::Accepted;
            name = nameEdit->text();
            notes = notesEdit->toPlainText();
        }
        if (!ok)
            return;
        QString error;
        if (saveVariant(name, notes, &error))
            return;
        warn(tr("Save as variant"), error);
        if (m_namePrompt)
            return;  // a prompt that is not a person would answer the same again
    }
}

bool WorkspaceController::openVariant(int64_t id, QString* error)
{
    if (!m_ws)
        return false;
    auto v = m_ws->variant(id);
    if (!v) {
        if (error)
            *error = tr("no variant with id %1 in %2").arg(id).arg(workspacePath());
        return false;
    }
    auto kernel = m_ws->file(v->kernelHash);
    auto target = m_ws->file(v->targetHash);
    auto trace = absoluteTrace(*v);
    if (!kernel || !target || !trace) {
        if (error)
            *error = !trace ? qs(trace.errorText()) : tr("variant '%1': its kernel or target text is missing from the workspace").arg(qs(v->name));
        return false;
    }
    if (m_maybeSave && !m_maybeSave())
        return false;
    ScheduleDocument::TextSource source;
    source.schedule = *trace;
    source.kernelText = kernel->text;
    source.targetText = target->text;
    source.untitledName = tr("%1 (variant)").arg(qs(v->name));
    if (!m_doc->openText(source, error))
        return false;
    setCurrent(id);
    QStringList changed;
    for (const auto& [what, file] : {std::pair{tr("kernel"), *kernel}, std::pair{tr("target"), *target}})
        if (store::diskState(file, builtinText()) != store::DiskState::Same)
            changed << tr("the %1 file %2 is %3 on disk").arg(what, qs(file.path), QString::fromLatin1(store::diskStateName(store::diskState(file, builtinText()))));
    emit message(changed.isEmpty() ? tr("Opened the variant %1").arg(qs(v->name))
                                   : tr("Opened the variant %1 with the texts stored with it: %2").arg(qs(v->name), changed.join(QStringLiteral("; "))),
                 changed.isEmpty() ? 5000 : 15000);
    return true;
}

std::optional<int64_t> WorkspaceController::duplicateVariant(int64_t id, QString* error)
{
    if (!m_ws)
        return std::nullopt;
    auto v = m_ws->variant(id);
    if (!v)
        return std::nullopt;
    auto copy = m_ws->duplicateVariant(id, m_ws->uniqueName(v->name + "-copy"));
    if (!copy) {
        if (error)
            *error = qs(copy.errorText());
        return std::nullopt;
    }
    refresh();
    return *copy;
}

bool WorkspaceController::renameVariant(int64_t id, const QString& name, QString* error)
{
    if (!m_ws)
        return false;
    auto r = m_ws->renameVariant(id, str(name.trimmed()));
    refresh();
    if (!r) {
        if (error)
            *error = qs(r.errorText());
        return false;
    }
    m_variants->selectVariant(id);
    return true;
}

bool WorkspaceController::deleteVariant(int64_t id, bool askFirst, QString* error)
{
    if (!m_ws)
        return false;
    auto v = m_ws->variant(id);
    if (!v)
        return false;
    if (askFirst && !ask(tr("Delete variant"), tr("Delete the variant %1 with its figures and measurements? This cannot be undone.%2")
                                                   .arg(qs(v->name), v->searchRunId ? tr(" (It is a point of search run %1.)").arg(*v->searchRunId) : QString())))
        return false;
    auto r = m_ws->deleteVariant(id);
    if (!r) {
        if (error)
            *error = qs(r.errorText());
        return false;
    }
    if (m_current == id)
        setCurrent(std::nullopt);
    refresh();
    emit message(tr("Deleted the variant %1").arg(qs(v->name)), 5000);
    return true;
}

void WorkspaceController::askCompare(int64_t a, int64_t b)
{
    if (!m_ws)
        return;
    const auto& rows = m_variants->model()->rows();
    if (a < 0 && !rows.empty())
        a = rows.front().variant.id;
    if (b < 0) {
        // The other one: the document's variant, else the next in the table.
        if (m_current && *m_current != a) {
            b = *m_current;
        } else {
            for (std::size_t i = 0; i < rows.size(); ++i)
                if (rows[i].variant.id == a)
                    b = rows[(i + 1) % rows.size()].variant.id;
        }
    }
    QString error;
    if (a < 0 || b < 0 || a == b)
        emit message(tr("Select two variants to compare"), 5000);
    else if (!compare(a, b, &error))
        warn(tr("Compare"), error);
}

bool WorkspaceController::compare(int64_t a, int64_t b, QString* error)
{
    if (!fillComparison(a, b, error))
        return false;
    m_compareWindow->show();
    m_compareWindow->raise();
    return true;
}

bool WorkspaceController::fillComparison(int64_t a, int64_t b, QString* error)
{
    if (!m_ws)
        return false;
    auto va = m_ws->variant(a);
    auto vb = m_ws->variant(b);
    if (!va || !vb) {
        if (error)
            *error = tr("no such variant");
        return false;
    }
    VariantComparison c;
    c.a = a;
    c.b = b;
    c.nameA = qs(va->name);
    c.nameB = qs(vb->name);
    c.figures = store::compareFigures(*va, *vb);
    QStringList notes;
    std::vector<sched::Step> stepsA, stepsB;
    for (auto [v, steps, nest] : {std::tuple{&*va, &stepsA, &c.nestA}, std::tuple{&*vb, &stepsB, &c.nestB}}) {
        auto p = store::rebuildVariant(*m_ws, *v, targetParser());
        if (!p) {
            notes << tr("%1 does not rebuild: %2").arg(qs(v->name), qs(p.errorText()));
            continue;
        }
        *steps = p->file.steps;
        if (p->failedStep)
            notes << tr("%1: %2 (its nest is the one before that step)").arg(qs(v->name), qs(p->failedStep->str()));
        *nest = lower::print(lower::lower(p->program));
    }
    c.steps = store::diffSteps(stepsA, stepsB);
    c.note = notes.join(QStringLiteral("\n"));
    m_compare->setComparison(c);
    m_compareWindow->setWindowTitle(tr("Compare %1 and %2").arg(c.nameA, c.nameB));
    return true;
}

QString WorkspaceController::measured(const codegen::Measurement& m)
{
    PendingMeasurement pending{store::measurementOf(m, 0), m_doc->stateFile(), m_doc->kernelText(), m_doc->targetText()};
    pending.measurement.measuredAt = QDateTime::currentMSecsSinceEpoch();
    m_measured = std::move(pending);
    if (!m_ws)
        return QString();
    const QString file = QFileInfo(workspacePath()).fileName();
    if (m_ws->isReadOnly())
        return tr("Not stored in the workspace: %1 is read-only").arg(file);
    const std::optional<store::Variant> v = m_current ? m_ws->variant(*m_current) : std::nullopt;
    if (!v)
        return tr("Not stored in the workspace: the schedule is not a variant of %1 (Save as variant stores it with this count)").arg(file);
    const QString name = qs(v->name);
    // Only a count of exactly the stored schedule may describe the variant: after an edit it
    // would show beside figures of another schedule.
    if (!store::isStoredSchedule(*v, m_measured->schedule, m_measured->kernelText, m_measured->targetText))
        return tr("Not stored with the variant %1: the schedule differs from the variant as saved (Save as variant stores it with this count)")
            .arg(name);
    store::Measurement sm = m_measured->measurement;
    sm.variantId = v->id;
    auto stored = m_ws->addMeasurement(sm);
    if (!stored)
        return tr("Not stored with the variant %1: %2").arg(name, qs(stored.errorText()));
    refresh();
    // The dock is narrow: its measured column may be out of view.
    m_variants->revealCell(v->id, VariantsModel::Measured);
    // An open comparison of the variant shows the new count too.
    const VariantComparison& shown = m_compare->comparison();
    if (m_compareWindow->isVisible() && (shown.a == v->id || shown.b == v->id))
        fillComparison(shown.a, shown.b, nullptr);
    return tr("Stored with the variant %1 in %2").arg(name, file);
}

std::vector<WorkspaceController::Recovery> WorkspaceController::findRecoverable() const
{
    if (!m_options.journal)
        return {};
    std::vector<QString> places;
    auto add = [&places](const QString& path) {
        if (path.isEmpty() || !QFileInfo::exists(path))
            return;
        const QString canonical = QFileInfo(path).canonicalFilePath();
        if (std::find(places.begin(), places.end(), canonical) == places.end())
            places.push_back(canonical);
    };
    add(recoveryWorkspacePath());
    add(workspacePath());
    if (m_options.remember) {
        QSettings settings;
        for (const QString& w : settings.value(QStringLiteral("workspaces/recent")).toStringList())
            add(w);
        for (const QString& f : settings.value(QStringLiteral("recentFiles")).toStringList())
            if (auto found = store::findWorkspaceIn(str(QFileInfo(f).absolutePath())); found && *found)
                add(qs(**found));
    }
    std::vector<Recovery> out;
    for (const QString& place : places) {
        auto ws = store::Workspace::open(str(place), {true, 2000});
        if (!ws)
            continue;
        for (const auto& r : (*ws)->recoverable()) {
            Recovery rec;
            rec.workspace = place;
            rec.what = r;
            const auto history = store::replayJournal(r.session.base, (*ws)->journalEntries(r.session.id));
            rec.changes = history.index;
            const QString doc = r.session.document.empty() ? tr("an untitled schedule") : QFileInfo(qs(r.session.document)).fileName();
            const QString folder = r.session.document.empty() ? QString() : tr(" in %1").arg(QDir::toNativeSeparators(QFileInfo(qs(r.session.document)).absolutePath()));
            rec.description = tr("%1%2: %3 (%4)")
                                  .arg(doc, folder, changesText(rec.changes, r.last.action),
                                       QDateTime::fromMSecsSinceEpoch(r.last.at).toString(QStringLiteral("yyyy-MM-dd HH:mm")));
            out.push_back(std::move(rec));
        }
    }
    std::sort(out.begin(), out.end(), [](const Recovery& x, const Recovery& y) { return x.what.last.at > y.what.last.at; });
    return out;
}

bool WorkspaceController::offerRecovery()
{
    const auto found = findRecoverable();
    if (found.empty())
        return false;
    const Recovery& r = found.front();
    QString text = tr("Loopscope stopped before these edits were saved:\n\n%1\n\nRestore them? The document opens as it was after its last "
                      "edit, unsaved, with its undo history.")
                       .arg(r.description);
    if (found.size() > 1)
        text += tr("\n\n(%1 more can be restored after this one.)").arg(found.size() - 1);
    RecoveryAnswer answer = RecoveryAnswer::Later;
    if (m_recoveryPrompt) {
        answer = m_recoveryPrompt(text);
    } else {
        QMessageBox box(QMessageBox::Question, tr("Restore unsaved edits"), text, QMessageBox::NoButton, m_window);
        QPushButton* restoreButton = box.addButton(tr("Restore"), QMessageBox::AcceptRole);
        QPushButton* discardButton = box.addButton(tr("Discard"), QMessageBox::DestructiveRole);
        box.addButton(tr("Later"), QMessageBox::RejectRole);
        box.setDefaultButton(restoreButton);
        box.exec();
        answer = box.clickedButton() == restoreButton ? RecoveryAnswer::Restore
                 : box.clickedButton() == discardButton ? RecoveryAnswer::Discard
                                                        : RecoveryAnswer::Later;
    }
    QString error;
    if (answer == RecoveryAnswer::Restore) {
        if (!restore(r, &error)) {
            warn(tr("Restore unsaved edits"), tr("Cannot restore %1:\n\n%2\n\nThe journal is kept; Discard forgets it.").arg(r.description, error));
            return false;
        }
        return true;
    }
    if (answer == RecoveryAnswer::Discard && !discard(r, &error))
        warn(tr("Restore unsaved edits"), error);
    return false;
}

bool WorkspaceController::restore(const Recovery& r, QString* error)
{
    auto ws = store::Workspace::open(str(r.workspace));
    if (!ws) {
        if (error)
            *error = qs(ws.errorText());
        return false;
    }
    const auto entries = (*ws)->journalEntries(r.what.session.id);
    if (entries.empty()) {
        if (error)
            *error = tr("its journal has no entries any more");
        return false;
    }
    const store::JournalHistory history = store::replayJournal(r.what.session.base, entries);
    std::vector<ScheduleDocument::RestoredCommand> commands;
    for (const auto& c : history.commands)
        commands.push_back({qs(c.action), c.state});
    ScheduleDocument::TextSource base;
    base.schedule = r.what.session.base;
    base.path = qs(r.what.session.document);
    if (base.path.isEmpty()) {
        auto file = sched::parseScheduleFile(r.what.session.base, "the edit journal");
        base.untitledName = tr("%1 (restored)").arg(file ? QFileInfo(qs(file->kernel)).fileName().remove(QStringLiteral(".kernel.yaml")) : tr("schedule"));
    }
    if (m_maybeSave && !m_maybeSave())
        return false;
    if (!m_doc->restoreHistory(base, commands, history.index, error))
        return false;
    // The restored document journals into a session of its own now: the old one is done.
    (void)(*ws)->closeJournal(r.what.session.id);
    setCurrent(r.what.session.variantId);
    emit message(tr("Restored %1").arg(r.description), 10000);
    return true;
}

bool WorkspaceController::discard(const Recovery& r, QString* error)
{
    auto ws = store::Workspace::open(str(r.workspace));
    if (!ws) {
        if (error)
            *error = qs(ws.errorText());
        return false;
    }
    auto done = (*ws)->closeJournal(r.what.session.id);
    if (!done && error)
        *error = qs(done.errorText());
    return done.ok();
}

bool WorkspaceController::ask(const QString& title, const QString& question)
{
    if (m_confirmPrompt)
        return m_confirmPrompt(title, question);
    return QMessageBox::question(m_window, title, question, QMessageBox::Yes | QMessageBox::Cancel, QMessageBox::Yes) == QMessageBox::Yes;
}

void WorkspaceController::warn(const QString& title, const QString& text)
{
    if (m_confirmPrompt) {  // tests: no modal box
        emit message(text, 10000);
        return;
    }
    QMessageBox::warning(m_window, title, text);
}

} // namespace loopscope::ui
