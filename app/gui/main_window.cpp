// The main window: docks, menus, and the wiring of intents (views) to edits (document).
#include "main_window.h"
#include "status_bar.h"

#include "charts/cost_view.h"
#include "code_view.h"
#include "codegen/c_codegen.h"
#include "codegen/measure.h"
#include "diagnostics_view.h"
#include "edit_journal.h"
#include "file_dialog.h"
#include "kernel_view.h"
#include "live_label.h"
#include "loop_nest_view.h"
#include "memory_view.h"
#include "schedule_document.h"
#include "schedule_view.h"
#include "search_hook.h"
#include "step_text.h"
#include "target_loader.h"
#include "tile_view.h"
#include "workspace_controller.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QCoreApplication>
#include <QDir>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QPushButton>
#include <QScreen>
#include <QFutureWatcher>
#include <QScrollArea>
#include <QSettings>
#include <QStatusBar>
#include <QTableView>
#include <QTextBrowser>
#include <QTimer>
#include <QUndoStack>
#include <QUndoView>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>

namespace loopscope::ui {

namespace {
QString qs(const std::string& s) { return QString::fromStdString(s); }
constexpr int kMaxRecent = 8;
// 2: the Variants dock (a layout saved before has no place for it).
constexpr int kLayoutVersion = 2;

QString humanCycles(int64_t c)
{
    QLocale l(QLocale::English);
    return l.toString(static_cast<qlonglong>(c));
}
} // namespace

QString MainWindow::examplesDir()
{
    QStringList candidates;
    const QString env = qEnvironmentVariable("LOOPSCOPE_EXAMPLES");
    if (!env.isEmpty())
        candidates << env;
    const QString app = QCoreApplication::applicationDirPath();
    candidates << app + QStringLiteral("/../../examples") << app + QStringLiteral("/../examples")
               << app + QStringLiteral("/../share/loopscope/examples");
#ifdef LOOPSCOPE_SOURCE_DIR
    candidates << QStringLiteral(LOOPSCOPE_SOURCE_DIR "/examples");
#endif
    for (const QString& c : candidates)
        if (QFileInfo::exists(c + QStringLiteral("/schedules")))
            return QDir(c).canonicalPath();
    return QString();
}

QString MainWindow::defaultExample()
{
    const QString dir = examplesDir();
    return dir.isEmpty() ? QString() : dir + QStringLiteral("/schedules/matmul_f32_tiled.sched.yaml");
}

MainWindow::MainWindow(Options options, QWidget* parent)
    : QMainWindow(parent), m_options(options), m_doc(new ScheduleDocument(this))
{
    setObjectName(QStringLiteral("MainWindow"));
    setWindowTitle(tr("Loopscope"));
    setDockNestingEnabled(true);
    setStatusBar(new StatusBar(this));   // long messages end in "…" before the figures
    buildViews();
    buildMenus();
    connectDocument();
    resetLayout();
    m_defaultState = saveState(kLayoutVersion);
    bool placed = false;
    if (m_options.restoreLayout) {
        QSettings settings;
        placed = restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray());
        m_restored = restoreState(settings.value(QStringLiteral("window/state")).toByteArray(), kLayoutVersion);
    }
    if (!placed && screen()) {
        // First start: most of the screen, centred (Qt's default would be about two thirds).
        const QRect available = screen()->availableGeometry();
        const QSize size = defaultSize(available.size());
        setGeometry(QRect(available.center() - QPoint(size.width() / 2, size.height() / 2), size));
    }
    rebuildRecentMenu();
    onChanged(m_doc->snapshot());
    updateTitle();
}

MainWindow::~MainWindow() = default;

void MainWindow::buildViews()
{
    m_nest = new LoopNestView(this);
    setCentralWidget(m_nest);

    auto makeDock = [this](const QString& name, const QString& title, QWidget* w) {
        auto* d = new QDockWidget(title, this);
        d->setObjectName(name);
        d->setWidget(w);
        d->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable | QDockWidget::DockWidgetClosable);
        return d;
    };
    m_kernel = new KernelView(this);
    m_schedule = new ScheduleView(this);
    m_diagnostics = new DiagnosticsView(this);
    m_history = new QUndoView(m_doc->undoStack(), this);
    m_history->setEmptyLabel(tr("<opened>"));
    // One line per step: every push of an edit otherwise measured the text of every entry
    // (the list scrolls to the new one), behind its tab or not.
    m_history->setUniformItemSizes(true);
    m_code = new CodeView(this);
    m_memory = new MemoryView(this);
    m_cost = new CostView(this);
    m_tile = new TileView(this);

    makeDock(QStringLiteral("kernelDock"), tr("Kernel & target"), m_kernel);
    makeDock(QStringLiteral("scheduleDock"), tr("Schedule"), m_schedule);
    makeDock(QStringLiteral("diagnosticsDock"), tr("Diagnostics"), m_diagnostics);
    makeDock(QStringLiteral("historyDock"), tr("History"), m_history);
    makeDock(QStringLiteral("codeDock"), tr("Code"), m_code);
    // Three levels with magnified strips (Gemmini) are taller than the dock's default share:
    // the picture scrolls (MemoryView's minimum height is all it draws) instead of being cut off.
    auto* memoryScroll = new QScrollArea(this);
    memoryScroll->setObjectName(QStringLiteral("memoryScroll"));
    memoryScroll->setWidget(m_memory);
    memoryScroll->setWidgetResizable(true);
    memoryScroll->setFrameShape(QFrame::NoFrame);
    memoryScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    makeDock(QStringLiteral("memoryDock"), tr("Memory"), memoryScroll);
    makeDock(QStringLiteral("costDock"), tr("Cost"), m_cost);
    makeDock(QStringLiteral("tileDock"), tr("Tiles"), m_tile);
    // The Variants dock and the Compare window come with the workspace (workspace_controller.cpp).
    WorkspaceController::Options workspaceOptions;
    workspaceOptions.journal = m_options.rememberFiles || !m_options.recoveryFolder.isEmpty();
    workspaceOptions.recoveryFolder = m_options.recoveryFolder;
    workspaceOptions.remember = m_options.rememberFiles;
    m_workspace = new WorkspaceController(this, m_doc, workspaceOptions);
    m_workspace->setMaybeSave([this] { return maybeSave(); });
    m_workspace->setSuggestedFolder([this] { return lastFolder(); });
    connect(m_workspace, &WorkspaceController::message, this, [this](const QString& text, int ms) { statusBar()->showMessage(text, ms); });
    for (const QString& name : {QStringLiteral("codeDock"), QStringLiteral("memoryDock"), QStringLiteral("costDock"), QStringLiteral("tileDock")})
        connect(dock(name), &QDockWidget::visibilityChanged, this, [this, name](bool visible) {
            if (visible && m_stale.contains(name))
                updateLazy(name, true);
        });
    // The diagnostics always follow the edits (their count is in the dock's title), but their
    // table sizes its rows to the messages only while it is on screen.
    connect(dock(QStringLiteral("diagnosticsDock")), &QDockWidget::visibilityChanged, this, [this](bool visible) {
        m_diagnostics->setTableLive(visible);
    });

    const auto builtins = hw::builtinTargetNames();
    QStringList names;
    for (const auto& n : builtins)
        names << qs(n);
    m_kernel->setBuiltinTargets(names);
    QStringList kernels;
    const QString ex = examplesDir();
    if (!ex.isEmpty())
        for (const QFileInfo& f : QDir(ex + QStringLiteral("/kernels")).entryInfoList({QStringLiteral("*.kernel.yaml")}, QDir::Files, QDir::Name))
            kernels << f.absoluteFilePath();
    m_kernel->setExampleKernels(kernels);

    // New figures with every edit: a LiveLabel repaints them without laying the window out.
    m_statusCost = new LiveLabel(this);
    m_statusCost->setGrowOnly(true);
    statusBar()->addPermanentWidget(m_statusCost);
    // Slow rebuilds run on a worker thread: a busy bar says so while the views keep showing
    // the previous state and the window stays responsive.
    m_rebuildProgress = new QProgressBar(this);
    m_rebuildProgress->setObjectName(QStringLiteral("rebuildProgress"));
    m_rebuildProgress->setRange(0, 0);
    m_rebuildProgress->setMaximumWidth(160);
    m_rebuildProgress->setFormat(tr("Rebuilding"));
    m_rebuildProgress->setTextVisible(true);
    m_rebuildProgress->hide();
    statusBar()->addPermanentWidget(m_rebuildProgress);
}

QSize MainWindow::defaultSize(const QSize& available)
{
    const int w = std::min(available.width(), std::max(1280, available.width() * 9 / 10));
    const int h = std::min(available.height(), std::max(800, available.height() * 9 / 10));
    return QSize(w, h);
}

QDockWidget* MainWindow::dock(const QString& objectName) const { return findChild<QDockWidget*>(objectName); }

QList<QDockWidget*> MainWindow::docks() const { return findChildren<QDockWidget*>(QString(), Qt::FindDirectChildrenOnly); }

void MainWindow::resetLayout()
{
    setCorner(Qt::TopLeftCorner, Qt::LeftDockWidgetArea);
    setCorner(Qt::BottomLeftCorner, Qt::LeftDockWidgetArea);
    setCorner(Qt::TopRightCorner, Qt::RightDockWidgetArea);
    setCorner(Qt::BottomRightCorner, Qt::RightDockWidgetArea);
    for (QDockWidget* d : docks()) {
        removeDockWidget(d);
        d->setFloating(false);
    }
    QDockWidget* kernel = dock(QStringLiteral("kernelDock"));
    QDockWidget* schedule = dock(QStringLiteral("scheduleDock"));
    QDockWidget* diagnostics = dock(QStringLiteral("diagnosticsDock"));
    QDockWidget* history = dock(QStringLiteral("historyDock"));
    QDockWidget* code = dock(QStringLiteral("codeDock"));
    QDockWidget* memory = dock(QStringLiteral("memoryDock"));
    QDockWidget* cost = dock(QStringLiteral("costDock"));
    QDockWidget* tile = dock(QStringLiteral("tileDock"));
    QDockWidget* variants = dock(QStringLiteral("variantsDock"));

    addDockWidget(Qt::LeftDockWidgetArea, kernel);
    addDockWidget(Qt::LeftDockWidgetArea, schedule);
    splitDockWidget(kernel, schedule, Qt::Vertical);
    addDockWidget(Qt::LeftDockWidgetArea, history);
    tabifyDockWidget(schedule, history);
    addDockWidget(Qt::RightDockWidgetArea, memory);
    addDockWidget(Qt::RightDockWidgetArea, cost);
    splitDockWidget(memory, cost, Qt::Vertical);
    // The variants' figures beside the current ones.
    addDockWidget(Qt::RightDockWidgetArea, variants);
    tabifyDockWidget(cost, variants);
    addDockWidget(Qt::BottomDockWidgetArea, code);
    addDockWidget(Qt::BottomDockWidgetArea, diagnostics);
    addDockWidget(Qt::BottomDockWidgetArea, tile);
    tabifyDockWidget(code, diagnostics);
    tabifyDockWidget(code, tile);
    for (QDockWidget* d : docks())
        d->show();
    schedule->raise();
    code->raise();
    cost->raise();
    applyDefaultSizes();
}

void MainWindow::applyDefaultSizes()
{
    QDockWidget* kernel = dock(QStringLiteral("kernelDock"));
    QDockWidget* schedule = dock(QStringLiteral("scheduleDock"));
    QDockWidget* code = dock(QStringLiteral("codeDock"));
    QDockWidget* memory = dock(QStringLiteral("memoryDock"));
    QDockWidget* cost = dock(QStringLiteral("costDock"));
    // Proportions of a 1600 x 1000 window: the nest gets the middle, the figures the right.
    const int w = std::max(width(), 1200);
    const int h = std::max(height(), 800);
    // The right column as wide as the Cost table where the window has room for it beside the
    // nest (a 1280 window's third would make the table scroll sideways), a third at least.
    const int right = std::max(w * 33 / 100, std::min(m_cost->tableWidth(), width() - w * 24 / 100 - 340));
    resizeDocks({kernel, memory}, {w * 24 / 100, right}, Qt::Horizontal);
    resizeDocks({kernel, schedule}, {h * 30 / 100, h * 70 / 100}, Qt::Vertical);
    resizeDocks({memory, cost}, {h * 36 / 100, h * 64 / 100}, Qt::Vertical);
    resizeDocks({code}, {h * 36 / 100}, Qt::Vertical);
}

void MainWindow::showEvent(QShowEvent* event)
{
    QMainWindow::showEvent(event);
    // Dock sizes are only meaningful once the window has its size.
    if (!m_shown && !m_restored)
        QTimer::singleShot(0, this, [this] { applyDefaultSizes(); });
    m_shown = true;
}

QAction* MainWindow::action(const QString& name) const
{
    auto it = m_actions.find(name);
    return it == m_actions.end() ? nullptr : it->second;
}

void MainWindow::buildMenus()
{
    auto add = [this](QMenu* menu, const QString& name, const QString& text, const QKeySequence& key, auto slot) {
        QAction* a = menu->addAction(text);
        if (!key.isEmpty())
            a->setShortcut(key);
        connect(a, &QAction::triggered, this, [this, name, slot] { runAction(name, slot); });
        m_actions[name] = a;
        return a;
    };

    QMenu* file = menuBar()->addMenu(tr("&File"));
    QMenu* fromExample = file->addMenu(tr("&New from example"));
    fromExample->setToolTipsVisible(true);
    const QString ex = examplesDir();
    if (!ex.isEmpty()) {
        for (const QFileInfo& f : QDir(ex + QStringLiteral("/schedules")).entryInfoList({QStringLiteral("*.sched.yaml")}, QDir::Files, QDir::Name)) {
            auto sf = sched::loadScheduleFile(f.absoluteFilePath().toStdString());
            QAction* a = fromExample->addAction(f.fileName().remove(QStringLiteral(".sched.yaml")));
            if (sf)
                a->setToolTip(qs(sf->description));
            const QString path = f.absoluteFilePath();
            connect(a, &QAction::triggered, this, [this, path] { newFromExample(path); });
        }
        fromExample->addSeparator();
        QMenu* kernels = fromExample->addMenu(tr("Unscheduled kernel"));
        for (const QFileInfo& f : QDir(ex + QStringLiteral("/kernels")).entryInfoList({QStringLiteral("*.kernel.yaml")}, QDir::Files, QDir::Name)) {
            const QString path = f.absoluteFilePath();
            connect(kernels->addAction(f.fileName().remove(QStringLiteral(".kernel.yaml"))), &QAction::triggered, this,
                    [this, path] { openFile(path); });
        }
    }
    add(file, QStringLiteral("open"), tr("&Open schedule..."), QKeySequence::Open, [this] { openFromPrompt(Prompt::OpenSchedule); });
    add(file, QStringLiteral("openKernel"), tr("Open &kernel..."), QKeySequence(tr("Ctrl+K")), [this] { openFromPrompt(Prompt::OpenKernel); });
    add(file, QStringLiteral("openTarget"), tr("Open &target..."), QKeySequence(), [this] { openFromPrompt(Prompt::OpenTarget); });
    m_recentMenu = file->addMenu(tr("Open &recent"));
    file->addSeparator();
    add(file, QStringLiteral("save"), tr("&Save"), QKeySequence::Save, [this] { save(); });
    add(file, QStringLiteral("saveAs"), tr("Save &as..."), QKeySequence(tr("Ctrl+Shift+S")), [this] { saveAs(); });
    add(file, QStringLiteral("export"), tr("&Export C..."), QKeySequence(tr("Ctrl+E")), [this] { exportCode(); });
    add(file, QStringLiteral("exportHarness"), tr("Export C with Test &Harness..."), QKeySequence(tr("Ctrl+Shift+E")), [this] { exportCode(true); });
    file->addSeparator();
    m_workspace->addMenu(file);
    file->addSeparator();
    add(file, QStringLiteral("quit"), tr("&Quit"), QKeySequence::Quit, [this] { close(); });

    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    QAction* undo = m_doc->undoStack()->createUndoAction(this, tr("&Undo"));
    undo->setShortcut(QKeySequence::Undo);
    QAction* redo = m_doc->undoStack()->createRedoAction(this, tr("&Redo"));
    redo->setShortcuts({QKeySequence::Redo, QKeySequence(tr("Ctrl+Y"))});
    edit->addAction(undo);
    edit->addAction(redo);
    m_actions[QStringLiteral("undo")] = undo;
    m_actions[QStringLiteral("redo")] = redo;

    QMenu* schedule = menuBar()->addMenu(tr("&Schedule"));
    schedule->setToolTipsVisible(true);
    for (QAction* a : m_nest->primitiveActions())
        schedule->addAction(a);
    schedule->addSeparator();
    add(schedule, QStringLiteral("measure"), tr("&Measure on Emulated Core"), QKeySequence(tr("Ctrl+M")), [this] { measure(); });
    m_actions[QStringLiteral("search")] = addSearchAction(schedule, m_doc, this);
    schedule->addSeparator();
    schedule->addAction(m_schedule->deleteAction());
    schedule->addAction(m_schedule->moveUpAction());
    schedule->addAction(m_schedule->moveDownAction());

    QMenu* view = menuBar()->addMenu(tr("&View"));
    for (QDockWidget* d : docks()) {
        // "Kernel & target" in a menu would make "t" a mnemonic: show the ampersand.
        d->toggleViewAction()->setText(QString(d->windowTitle()).replace(QLatin1Char('&'), QStringLiteral("&&")));
        view->addAction(d->toggleViewAction());
    }
    view->addSeparator();
    add(view, QStringLiteral("resetLayout"), tr("Reset &layout"), QKeySequence(), [this] { resetLayout(); });

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    add(help, QStringLiteral("shortcuts"), tr("&Keyboard shortcuts"), QKeySequence::HelpContents, [this] { showShortcuts(); });
    add(help, QStringLiteral("about"), tr("&About Loopscope"), QKeySequence(), [this] {
        QMessageBox::about(this, tr("About Loopscope"),
                           tr("<b>Loopscope</b> %1<br>Schedule tensor kernels by hand on small hardware and watch the loop "
                              "nest, the memory, the cost and the C code change.<br>The tutorial is docs/tutorial.md.")
                               .arg(QCoreApplication::applicationVersion()));
    });
}

void MainWindow::connectDocument()
{
    connect(m_doc, &ScheduleDocument::changed, this, &MainWindow::onChanged);
    connect(m_doc, &ScheduleDocument::codeReady, this, [this] { updateLazy(QStringLiteral("codeDock")); });
    connect(m_doc, &ScheduleDocument::rebuilding, this, [this](bool busy) {
        m_rebuildProgress->setVisible(busy);
        if (busy)
            statusBar()->showMessage(tr("Rebuilding the loop nest, cost and code (the last edit took %1 ms)...").arg(m_doc->lastRebuildMs(), 0, 'f', 0));
        else
            statusBar()->clearMessage();
    });
    connect(m_doc, &ScheduleDocument::opened, this, &MainWindow::onOpened);
    // The history of costs starts again with another document, not at a save (which says
    // `opened` too, for the file's new name).
    connect(m_doc, &ScheduleDocument::opening, m_cost, &CostView::clearHistory);
    connect(m_doc, &ScheduleDocument::dirtyChanged, this, [this] { updateTitle(); });
    connect(m_doc, &ScheduleDocument::stepRejected, this, [this](const sched::ScheduleError& e) {
        const QString msg = tr("%1 was not applied: %2").arg(m_refusedStep, qs(e.message));
        m_nest->showRejected(msg + (e.detail.empty() ? QString() : QStringLiteral("\n") + qs(e.detail)));
        QStringList loops, tensors;
        for (const auto& l : e.loops)
            loops << qs(l);
        for (const auto& t : e.tensors)
            tensors << qs(t);
        m_nest->setHighlight(loops, tensors, true);
        m_diagnostics->setDiagnostics(m_doc->snapshot(), e, m_refusedStep);
        dock(QStringLiteral("diagnosticsDock"))->raise();
        dock(QStringLiteral("diagnosticsDock"))->setWindowTitle(tr("Diagnostics (%1)").arg(m_diagnostics->summary()));
        statusBar()->showMessage(msg, 8000);
    });
    connect(m_doc, &ScheduleDocument::targetReloaded, this, [this](const QString& path, const QString& error) {
        if (error.isEmpty())
            statusBar()->showMessage(tr("Reloaded %1").arg(QFileInfo(path).fileName()), 5000);
        else
            QMessageBox::warning(this, tr("Target file"), tr("%1 changed but cannot be loaded; the last good version stays in use.\n\n%2")
                                                              .arg(QFileInfo(path).fileName(), error));
    });

    connect(m_nest, &LoopNestView::stepRequested, this, [this](const sched::Step& s) {
        m_refusedStep = qs(sched::describe(s));
        m_doc->applyStep(s);
    });
    connect(m_nest, &LoopNestView::stepsRequested, this, [this](const std::vector<sched::Step>& steps, const QString& text) {
        m_refusedStep = text;
        m_doc->applySteps(steps, text);
    });
    connect(m_nest, &LoopNestView::loopSelected, this, [this](const QString& label, const QString&, const QStringList& touched) {
        m_selectedLoop = label;
        m_selectedTensors = touched;
        applySelectionHighlight();
    });
    connect(m_nest, &LoopNestView::tensorSelected, this, [this](const QString& tensor) {
        m_selectedLoop.clear();
        m_selectedTensors = {tensor};
        applySelectionHighlight();
    });
    connect(m_schedule, &ScheduleView::stepEdited, this, [this](int row, const sched::Step& s, int session) {
        if (session != m_viewSession) {
            m_viewSession = session;
            m_docSession = m_doc->newMergeSession();
        }
        m_doc->editStep(row, s, m_docSession);
    });
    connect(m_schedule, &ScheduleView::descriptionEdited, m_doc, &ScheduleDocument::setDescription);
    connect(m_schedule, &ScheduleView::removeRequested, m_doc, &ScheduleDocument::removeStep);
    connect(m_schedule, &ScheduleView::moveRequested, m_doc, &ScheduleDocument::moveStep);
    connect(m_schedule, &ScheduleView::stepSelected, this, [this](int, const QStringList& loops, const QStringList& tensors) {
        m_nest->setHighlight(loops, tensors);
    });
    connect(m_diagnostics, &DiagnosticsView::activated, this, [this](int step, const QStringList& loops, const QStringList& tensors) {
        if (step >= 0) {
            m_schedule->selectStep(step);
            dock(QStringLiteral("scheduleDock"))->raise();
        }
        if (!loops.isEmpty())
            m_nest->selectLoop(loops.front());
        m_nest->setHighlight(loops, tensors);
    });
    connect(m_diagnostics, &DiagnosticsView::suggestionRequested, this, [this](const QString& text, int about) {
        const int space = text.indexOf(QLatin1Char(' '));
        sched::Primitive primitive;
        QString error;
        std::optional<sched::Step> s;
        if (space > 0 && sched::parsePrimitive(text.left(space).toStdString(), primitive))
            s = parseStepParameters(primitive, text.mid(space + 1), &error);
        if (!s) {
            statusBar()->showMessage(tr("Cannot apply '%1': %2").arg(text, error), 8000);
            return;
        }
        // A suggestion about a step of one stage means that stage.
        if (s->stage.empty() && about >= 0 && about < static_cast<int>(m_doc->steps().size()))
            s->stage = m_doc->steps()[about].stage;
        m_refusedStep = qs(sched::describe(*s));
        m_doc->applyStep(*s);
    });
    connect(m_memory, &MemoryView::stepActivated, this, [this](int step) {
        if (step < 0)
            return;
        m_schedule->selectStep(step);
        dock(QStringLiteral("scheduleDock"))->raise();
    });
    // A choice that does not happen (cancelled, or failing) leaves the boxes showing what is open.
    connect(m_kernel, &KernelView::kernelChosen, this, [this](const QString& path) {
        if (!openFile(path))
            showCurrentInKernelView();
    });
    connect(m_kernel, &KernelView::targetChosen, this, [this](const QString& target) {
        if (!m_doc->isOpen()) {
            // Nothing open yet: the next kernel opens on this target, as the box now shows.
            m_nextTarget = target;
            showCurrentInKernelView();
            return;
        }
        QString error;
        if (!m_doc->setTarget(target, &error)) {
            showCurrentInKernelView();
            QMessageBox::warning(this, tr("Target"), error);
        }
    });
    connect(m_kernel, &KernelView::openKernelRequested, this, [this] { openFromPrompt(Prompt::OpenKernel); });
    connect(m_kernel, &KernelView::openTargetRequested, this, [this] { openFromPrompt(Prompt::OpenTarget); });
    connect(m_code, &CodeView::exportRequested, this, [this] { exportCode(); });
}

bool MainWindow::dockOnScreen(const QDockWidget* d)
{
    // A dock behind another tab stays visible to Qt, which moves it out of the window instead
    // (to negative coordinates): the test QDockWidget itself uses for visibilityChanged.
    if (!d->isVisible())
        return false;
    if (d->isWindow())
        return true;
    return d->geometry().right() >= 0 && d->geometry().bottom() >= 0;
}

void MainWindow::updateLazy(const QString& dockName, bool force)
{
    // Views behind a tab or closed take the snapshot when they are shown again: an edit
    // then costs only what is on screen.
    QDockWidget* d = dock(dockName);
    if (!force && d && !dockOnScreen(d)) {
        m_stale.insert(dockName);
        return;
    }
    m_stale.remove(dockName);
    const Snapshot& snapshot = m_doc->snapshot();
    if (dockName == QLatin1String("codeDock")) {
        const QString file = snapshot.empty() ? QString() : qs(codegen::cIdentifier(snapshot.program->kernel->name)) + QStringLiteral(".c");
        // Long C is generated on a worker after the edit: until it is ready the panel says so.
        if (snapshot.codeReady())
            m_code->setCode(snapshot.code(), file);
        else
            m_code->setPending(file);
        m_code->setHighlightedLoop(m_selectedLoop);
    } else if (dockName == QLatin1String("memoryDock")) {
        m_memory->setSnapshot(snapshot);
        m_memory->setHighlightedLoop(m_selectedLoop);
    } else if (dockName == QLatin1String("costDock")) {
        m_cost->setSnapshot(snapshot);
    } else if (dockName == QLatin1String("tileDock")) {
        m_tile->setSnapshot(snapshot);
    }
}

void MainWindow::applySelectionHighlight()
{
    if (!m_stale.contains(QStringLiteral("memoryDock")))
        m_memory->setHighlightedLoop(m_selectedLoop);
    if (!m_stale.contains(QStringLiteral("codeDock")))
        m_code->setHighlightedLoop(m_selectedLoop);
    // A loop marks the steps that name it; a tensor row marks the steps on that tensor.
    m_schedule->setHighlight(m_selectedLoop, m_selectedLoop.isEmpty() ? m_selectedTensors : QStringList());
    m_kernel->setHighlightedTensors(m_selectedTensors);
}

void MainWindow::onChanged(const Snapshot& snapshot)
{
    QElapsedTimer timer;
    timer.start();
    auto lap = [&](const char* view) {
        m_viewTimes[QString::fromLatin1(view)] = timer.nsecsElapsed() / 1e6;
        timer.restart();
    };
    m_nest->setSnapshot(snapshot);
    lap("nest");
    m_schedule->setTrace(m_doc->steps(), snapshot);
    m_schedule->setDescription(m_doc->description(), m_doc->descriptionIsStale());
    lap("schedule");
    updateLazy(QStringLiteral("codeDock"));
    lap("code");
    if (QDockWidget* d = dock(QStringLiteral("diagnosticsDock")))
        m_diagnostics->setTableLive(dockOnScreen(d));
    m_diagnostics->setDiagnostics(snapshot);
    lap("diagnostics");
    if (snapshot.failedStep && !m_lastFailed)
        dock(QStringLiteral("diagnosticsDock"))->raise();
    m_lastFailed = snapshot.failedStep.has_value();
    m_kernel->setSnapshot(snapshot);
    lap("kernel");
    updateLazy(QStringLiteral("memoryDock"));
    lap("memory");
    updateLazy(QStringLiteral("costDock"));
    lap("cost");
    updateLazy(QStringLiteral("tileDock"));
    lap("tile");
    applySelectionHighlight();
    lap("highlight");
    if (QDockWidget* d = dock(QStringLiteral("diagnosticsDock")))
        d->setWindowTitle(tr("Diagnostics (%1)").arg(m_diagnostics->summary()));
    if (QDockWidget* d = dock(QStringLiteral("scheduleDock")))
        d->setWindowTitle(snapshot.failedStep ? tr("Schedule (step %1 fails)").arg(snapshot.failedStep->stepIndex + 1)
                                              : m_doc->steps().size() == 1 ? tr("Schedule (1 step)")
                                                                             : tr("Schedule (%1 steps)").arg(m_doc->steps().size()));
    if (snapshot.empty() || !snapshot.report) {
        m_statusCost->setText(QString());
    } else {
        const auto& r = *snapshot.report;
        m_statusCost->setText(tr("%1 cycles (bound %2) | %3 | %4 uJ | rebuilt in %5 ms")
                                  .arg(humanCycles(r.cycles.total), humanCycles(r.bounds.computeCycles))
                                  .arg(CostView::latencyText(r.latencyMs))
                                  .arg(r.energyUj, 0, 'f', 1)
                                  .arg(m_doc->lastRebuildMs(), 0, 'f', 2));
    }
    updateTitle();
}

void MainWindow::onOpened()
{
    updateLazy(QStringLiteral("costDock"));
    showCurrentInKernelView();
    m_nest->showRejected(QString());
    // The selection and its highlights stay: they are the nest's current row's. A document
    // opened anew is followed by its snapshot, on which the nest selects a row and says so;
    // a save (opened too, for the file's name) keeps the row, and cleared the highlights of
    // the loop still selected (the Kernel & target panel's tensors, the Schedule's steps).
    if (!m_doc->filePath().isEmpty())
        addRecent(m_doc->filePath());
    updateTitle();
}

void MainWindow::updateTitle()
{
    QString name = tr("untitled");
    if (!m_doc->filePath().isEmpty())
        name = QFileInfo(m_doc->filePath()).fileName();
    else if (m_doc->isOpen() && !m_doc->untitledName().isEmpty())
        name = tr("%1 (unsaved)").arg(m_doc->untitledName());
    else if (m_doc->isOpen())
        name = tr("%1 (unsaved)").arg(QFileInfo(m_doc->kernelPath()).fileName());
    setWindowTitle(tr("%1[*] - Loopscope").arg(name));
    setWindowModified(m_doc->isDirty());
    if (QAction* a = action(QStringLiteral("save")))
        a->setEnabled(m_doc->isOpen());
    if (QAction* a = action(QStringLiteral("saveAs")))
        a->setEnabled(m_doc->isOpen());
    for (const char* name : {"export", "exportHarness"})
        if (QAction* a = action(QString::fromLatin1(name)))
            a->setEnabled(m_doc->isOpen());
    // The target box follows undo/redo of target changes.
    showCurrentInKernelView();
}

void MainWindow::showCurrentInKernelView()
{
    // What is open; with nothing open, no kernel and the target a kernel would open on.
    if (m_doc->isOpen())
        m_kernel->setCurrent(m_doc->kernelPath(), m_doc->target(), QString());
    else
        m_kernel->setCurrent(QString(), m_nextTarget, QString());
}

QString MainWindow::askPath(Prompt prompt, const QString& suggestion)
{
    if (m_pathPrompt)
        return m_pathPrompt(prompt, suggestion);
    const QString dir = suggestion.isEmpty() ? examplesDir() : suggestion;
    switch (prompt) {
    case Prompt::OpenSchedule:
        return askFile(this, FileDialogKind::OpenFile, tr("Open schedule"), dir + QStringLiteral("/schedules"),
                       tr("Schedules (*.sched.yaml);;Kernels (*.kernel.yaml);;All files (*)"));
    case Prompt::OpenKernel:
        return askFile(this, FileDialogKind::OpenFile, tr("Open kernel"), dir + QStringLiteral("/kernels"), tr("Kernels (*.kernel.yaml);;All files (*)"));
    case Prompt::OpenTarget:
        return askFile(this, FileDialogKind::OpenFile, tr("Open target"), dir, tr("Targets (*.yaml);;All files (*)"));
    case Prompt::SaveSchedule: {
        // "foo" becomes foo.sched.yaml before the dialog asks whether to replace it.
        QString path = askFile(this, FileDialogKind::SaveFile, tr("Save schedule"), suggestion, tr("Schedules (*.sched.yaml)"),
                               QStringLiteral("sched.yaml"));
        if (!path.isEmpty() && !path.endsWith(QLatin1String(".sched.yaml")))
            path += QStringLiteral(".sched.yaml");
        return path;
    }
    case Prompt::ExportDirectory:
        return askFile(this, FileDialogKind::Folder, tr("Export C into"), suggestion);
    }
    return QString();
}

void MainWindow::openFromPrompt(Prompt prompt)
{
    const QString suggestion = m_doc->filePath().isEmpty() ? QString() : QFileInfo(m_doc->filePath()).absolutePath();
    const QString path = askPath(prompt, prompt == Prompt::OpenTarget ? suggestion : QString());
    if (path.isEmpty())
        return;
    if (prompt == Prompt::OpenTarget) {
        QString error;
        if (!m_doc->setTarget(path, &error))
            QMessageBox::warning(this, tr("Open target"), error);
        return;
    }
    openFile(path);
}

bool MainWindow::openFile(const QString& path, QString* error)
{
    if (!maybeSave())
        return false;
    QString why;
    const bool kernel = path.endsWith(QLatin1String(".kernel.yaml"));
    const bool ok = kernel ? m_doc->openKernel(path, m_doc->isOpen() ? m_doc->target() : m_nextTarget, &why)
                           : m_doc->openSchedule(path, &why);
    if (!ok) {
        if (error)
            *error = why;
        else
            QMessageBox::warning(this, tr("Open"), tr("Cannot open %1:\n\n%2").arg(QFileInfo(path).fileName(), why));
        return false;
    }
    rememberFolder(path);
    if (!m_doc->openWarnings().isEmpty())
        statusBar()->showMessage(tr("Opened %1; %2").arg(QFileInfo(path).fileName(), m_doc->openWarnings().join(QStringLiteral("; "))), 15000);
    else
        statusBar()->showMessage(tr("Opened %1").arg(QFileInfo(path).fileName()), 4000);
    return true;
}

bool MainWindow::newFromExample(const QString& path, QString* error)
{
    if (!maybeSave())
        return false;
    QString why;
    if (!m_doc->newFromSchedule(path, &why)) {
        if (error)
            *error = why;
        else
            QMessageBox::warning(this, tr("New from example"), tr("Cannot open %1:\n\n%2").arg(QFileInfo(path).fileName(), why));
        return false;
    }
    statusBar()->showMessage(tr("New schedule from the example %1: Save asks where to keep it").arg(m_doc->untitledName()), 6000);
    updateTitle();
    return true;
}

QString MainWindow::lastFolder() const
{
    const QString examples = examplesDir();
    const QString last = m_options.rememberFiles ? QSettings().value(QStringLiteral("lastFolder")).toString() : m_lastFolder;
    const bool inExamples = !examples.isEmpty() && !last.isEmpty()
        && (QDir(last).canonicalPath() + QLatin1Char('/')).startsWith(examples + QLatin1Char('/'));
    if (!last.isEmpty() && QFileInfo(last).isDir() && !inExamples)
        return last;
    return QDir::homePath();
}

void MainWindow::rememberFolder(const QString& file)
{
    const QString dir = QFileInfo(file).absolutePath();
    const QString examples = examplesDir();
    if (!examples.isEmpty() && (QDir(dir).canonicalPath() + QLatin1Char('/')).startsWith(examples + QLatin1Char('/')))
        return;  // the examples are not where a user's own schedules go
    m_lastFolder = dir;
    if (m_options.rememberFiles)
        QSettings().setValue(QStringLiteral("lastFolder"), dir);
}

bool MainWindow::saveTo(const QString& path, QString* error)
{
    QString why;
    if (!m_doc->save(path, &why)) {
        if (error)
            *error = why;
        else
            QMessageBox::warning(this, tr("Save"), why);
        return false;
    }
    addRecent(m_doc->filePath());
    rememberFolder(m_doc->filePath());
    statusBar()->showMessage(tr("Saved %1").arg(m_doc->filePath()), 4000);
    updateTitle();
    return true;
}

bool MainWindow::save()
{
    if (m_doc->filePath().isEmpty())
        return saveAs();
    if (!confirmDescription())
        return false;
    return saveTo(QString());
}

bool MainWindow::saveAs()
{
    if (!m_doc->isOpen())
        return false;
    // Asked first, as Save asks it, but applied only once a path is chosen: a cancelled dialog
    // changes nothing (it removed the description and left an edit in the history).
    const DescriptionAnswer answer = askDescription();
    if (answer == DescriptionAnswer::Cancel)
        return false;
    QString suggestion = m_doc->filePath();
    if (suggestion.isEmpty()) {
        // An untitled document (a kernel, or a copy of an example) is saved where the user
        // keeps their own files, never next to the example it came from.
        const QString name = !m_doc->untitledName().isEmpty()
            ? m_doc->untitledName()
            : QFileInfo(m_doc->kernelPath()).fileName().remove(QStringLiteral(".kernel.yaml"));
        suggestion = lastFolder() + QLatin1Char('/') + name + QStringLiteral(".sched.yaml");
    }
    const QString path = askPath(Prompt::SaveSchedule, suggestion);
    if (path.isEmpty())
        return false;
    applyDescription(answer);
    return saveTo(path);
}

bool MainWindow::confirmDescription()
{
    const DescriptionAnswer answer = askDescription();
    applyDescription(answer);
    return answer != DescriptionAnswer::Cancel;
}

MainWindow::DescriptionAnswer MainWindow::askDescription()
{
    if (!m_doc->descriptionIsStale())
        return DescriptionAnswer::Keep;
    DescriptionAnswer answer;
    if (m_descriptionPrompt) {
        answer = m_descriptionPrompt(m_doc->description());
    } else {
        QMessageBox box(QMessageBox::Question, tr("Save"),
                        tr("The schedule's description was written for other steps than yours:\n\n\"%1\"\n\n"
                           "Keep it in the saved file, or remove it? (You can also edit it in the Schedule panel.)")
                            .arg(m_doc->description()),
                        QMessageBox::Cancel, this);
        QPushButton* keep = box.addButton(tr("Keep it"), QMessageBox::AcceptRole);
        QPushButton* remove = box.addButton(tr("Remove it"), QMessageBox::DestructiveRole);
        box.setDefaultButton(remove);
        box.exec();
        answer = box.clickedButton() == keep ? DescriptionAnswer::Keep
            : box.clickedButton() == remove  ? DescriptionAnswer::Remove
                                             : DescriptionAnswer::Cancel;
    }
    return answer;
}

void MainWindow::applyDescription(DescriptionAnswer answer)
{
    if (!m_doc->descriptionIsStale())
        return;
    if (answer == DescriptionAnswer::Remove)
        m_doc->setDescription(QString());
    else if (answer == DescriptionAnswer::Keep)
        m_doc->setDescription(m_doc->description());
}

bool MainWindow::exportTo(const QString& directory, QString* error, bool harness)
{
    // A schedule that does not fit its target exports only when the user says so, knowing why.
    // Not C past the exporter's size (code-too-large): that is never written, whatever the user
    // says; the document's export refuses it with the reason, without asking first.
    QStringList errors;
    if (m_doc->snapshot().report)
        for (const auto& d : m_doc->snapshot().report->diagnostics)
            if (d.severity == Severity::Error && d.code != "code-too-large")
                errors << qs(d.message);
    if (!errors.isEmpty()) {
        const bool go = m_errorsPrompt
            ? m_errorsPrompt(errors)
            : QMessageBox::warning(this, tr("Export"),
                                   (errors.size() == 1 ? tr("The schedule has an error, so the exported code will not run as the target is described:\n\n%1\n\nExport anyway?")
                                                       : tr("The schedule has %1 errors, so the exported code will not run as the target is described:\n\n%2\n\nExport anyway?").arg(errors.size()))
                                       .arg(QStringLiteral("• ") + errors.join(QStringLiteral("\n• "))),
                                   QMessageBox::Yes | QMessageBox::Cancel, QMessageBox::Cancel)
                == QMessageBox::Yes;
        if (!go) {
            statusBar()->showMessage(tr("Export cancelled: the schedule has errors (see Diagnostics); nothing was written"), 8000);
            if (error)
                *error = tr("the schedule has errors: %1").arg(errors.join(QStringLiteral("; ")));
            return false;
        }
    }
    QStringList written;
    QString why;
    QStringList conflicts;
    bool ok = m_doc->exportTo(directory, &written, &why, false, &conflicts, harness);
    if (!ok && !conflicts.isEmpty()) {
        const bool replace = m_replacePrompt
            ? m_replacePrompt(directory, conflicts)
            : QMessageBox::warning(this, tr("Export"),
                                   tr("%1 already has %2, which an earlier export did not write (or which was edited since).\n\nReplace?")
                                       .arg(directory, conflicts.join(QStringLiteral(", "))),
                                   QMessageBox::Yes | QMessageBox::Cancel, QMessageBox::Cancel)
                == QMessageBox::Yes;
        if (!replace) {
            statusBar()->showMessage(tr("Export cancelled: nothing was written to %1").arg(directory), 8000);
            if (error)
                *error = why;
            return false;
        }
        why.clear();
        ok = m_doc->exportTo(directory, &written, &why, true, nullptr, harness);
    }
    if (!ok) {
        if (error)
            *error = why;
        else
            QMessageBox::warning(this, tr("Export"), why);
        return false;
    }
    if (!errors.isEmpty())
        statusBar()->showMessage(tr("Exported %1 files to %2 although the schedule has errors (see Diagnostics)")
                                     .arg(written.size()).arg(directory), 8000);
    else {
        QStringList names;   // the files by name: the folder is said once
        for (const QString& p : written)
            names << QFileInfo(p).fileName();
        statusBar()->showMessage(written.size() > 3 ? tr("Exported %1 files to %2").arg(written.size()).arg(directory)
                                                    : tr("Exported %1 to %2").arg(names.join(QStringLiteral(", ")), directory),
                                 8000);
    }
    return true;
}

void MainWindow::exportCode(bool harness)
{
    if (!m_doc->isOpen())
        return;
    const QString suggestion = m_doc->filePath().isEmpty() ? QDir::homePath() : QFileInfo(m_doc->filePath()).absolutePath();
    const QString dir = askPath(Prompt::ExportDirectory, suggestion);
    if (!dir.isEmpty())
        exportTo(dir, nullptr, harness);
}

void MainWindow::measure()
{
    const Snapshot s = m_doc->snapshot();
    if (!s.nest || !s.report) {
        statusBar()->showMessage(tr("Nothing to measure: no schedule without errors is open"), 8000);
        return;
    }
    const std::string target = s.program->target->name;
    if (target != "cortex-m7" && target != "cortex-m4") {
        statusBar()->showMessage(tr("Measuring runs on qemu's Cortex-M7 or Cortex-M4 only (target %1)").arg(qs(target)), 8000);
        return;
    }
    statusBar()->showMessage(tr("Measuring %1 on qemu (export, build, run)...").arg(qs(s.report->kernel)));
    const int revision = s.revision;
    const double macs = double(s.report->macs);
    const double cycles = double(s.report->cycles.total);
    const analysis::InstructionReport predicted = s.report->instructions;
    auto* watcher = new QFutureWatcher<codegen::Measurement>(this);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, revision, macs, cycles, predicted] {
        const codegen::Measurement m = watcher->result();
        watcher->deleteLater();
        // The schedule changed while qemu ran (or an edit is being rebuilt): the count
        // describes an earlier schedule.
        if (m_doc->snapshot().revision != revision || m_doc->isRebuilding()) {
            const QString text = tr("Measurement dropped: the schedule changed while it ran (Ctrl+M measures the current one)");
            statusBar()->showMessage(text, 10000);
            emit measurementFinished(false, text);
            return;
        }
        if (!m.ok) {
            const QString why = qs(m.error).section(QLatin1Char('\n'), 0, 0);
            m_cost->setMeasurement(revision, tr("Not measured: %1").arg(why));
            statusBar()->showMessage(tr("Not measured: %1").arg(why), 10000);
            emit measurementFinished(true, tr("Not measured: %1").arg(why));
            return;
        }
        // Beside the count, the figure that predicts it (the instruction model, kernel and
        // copies apart as measured) and the cost model's cycles, which count less.
        QString text = tr("Measured on %1: %L2 instructions in the kernel, %3 per MAC, and %L4 in the copies")
                           .arg(qs(m.machine))
                           .arg(m.kernelInstructions)
                           .arg(macs > 0 ? double(m.kernelInstructions) / macs : 0.0, 0, 'f', 2)
                           .arg(m.copyInstructions);
        if (predicted.available && m.kernelInstructions > 0)
            text += tr("; predicted %L1 and %L2 (kernel %3%4%)")
                        .arg(qlonglong(predicted.kernel))
                        .arg(qlonglong(predicted.copies))
                        .arg(predicted.kernel >= m.kernelInstructions ? QStringLiteral("+") : QString())
                        .arg((double(predicted.kernel) / double(m.kernelInstructions) - 1.0) * 100.0, 0, 'f', 1);
        text += tr(" (the model estimates %L1 cycles, %2 per MAC)").arg(qlonglong(cycles)).arg(macs > 0 ? cycles / macs : 0.0, 0, 'f', 2);
        m_cost->setMeasurement(revision, text);
        // The document is the schedule measured: the workspace keeps the count when it is a
        // variant's, and says why not otherwise.
        const QString kept = m_workspace->measured(m);
        // What happened to the count first: the count itself is also in the Cost view.
        statusBar()->showMessage(kept.isEmpty() ? text : tr("%1. %2").arg(kept, text), 15000);
        emit measurementFinished(true, text);
    });
    const MeasureFunction runner = m_measureFunction ? m_measureFunction : MeasureFunction(codegen::measureOnQemu);
    watcher->setFuture(QtConcurrent::run([nest = s.nest, target, runner] {
        // An exception on the worker would be rethrown by result() on the GUI thread: it
        // becomes the measurement's error instead, shown where a failed measurement is.
        try {
            return runner(*nest, target);
        } catch (const std::exception& e) {
            codegen::Measurement m;
            m.error = std::string("internal error: ") + e.what();
            return m;
        } catch (...) {
            codegen::Measurement m;
            m.error = "internal error: an unknown exception";
            return m;
        }
    }));
}

void MainWindow::runAction(const QString& name, const std::function<void()>& action)
{
    QString why;
    try {
        action();
        return;
    } catch (const std::bad_alloc&) {
        why = tr("out of memory");
    } catch (const std::exception& e) {
        why = tr("internal error: %1").arg(qs(e.what()));
    } catch (...) {
        why = tr("internal error: an unknown exception");
    }
    QString label = m_actions.count(name) ? m_actions.at(name)->text() : name;
    label.remove(QLatin1Char('&'));
    if (label.endsWith(QLatin1String("...")))
        label.chop(3);
    showInternalError(tr("%1 stopped: %2.\n\nThe schedule and its unsaved changes are as they were; saving them is safe. "
                         "This is a bug in Loopscope: please report it with the schedule.")
                          .arg(label, why));
}

void MainWindow::showInternalError(const QString& text)
{
    statusBar()->showMessage(text.section(QLatin1Char('\n'), 0, 0), 10000);
    if (m_internalErrorSink)
        m_internalErrorSink(text);
    else
        QMessageBox::critical(this, tr("Internal error"), text);
}

bool MainWindow::maybeSave()
{
    if (!m_doc->isDirty())
        return true;
    const QString name = m_doc->filePath().isEmpty() ? tr("the new schedule") : QFileInfo(m_doc->filePath()).fileName();
    int answer;
    if (m_savePrompt) {
        answer = m_savePrompt(name);
    } else {
        answer = QMessageBox::warning(this, tr("Unsaved changes"), tr("Save the changes to %1?").arg(name),
                                      QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
    }
    if (answer == QMessageBox::Cancel)
        return false;
    if (answer == QMessageBox::Discard)
        return true;
    return save() && !m_doc->isDirty();
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    if (!maybeSave()) {
        event->ignore();
        return;
    }
    // Saved or discarded: nothing is left to restore.
    m_workspace->journal()->endSession();
    if (m_options.restoreLayout) {
        QSettings settings;
        settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
        settings.setValue(QStringLiteral("window/state"), saveState(kLayoutVersion));
    }
    event->accept();
}

void MainWindow::offerRecovery() { m_workspace->offerRecovery(); }

QStringList MainWindow::recentFiles() const
{
    return QSettings().value(QStringLiteral("recentFiles")).toStringList();
}

void MainWindow::addRecent(const QString& path)
{
    if (!m_options.rememberFiles)
        return;
    QStringList files = recentFiles();
    files.removeAll(path);
    files.prepend(path);
    while (files.size() > kMaxRecent)
        files.removeLast();
    QSettings().setValue(QStringLiteral("recentFiles"), files);
    rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu()
{
    m_recentMenu->clear();
    const QStringList files = m_options.rememberFiles ? recentFiles() : QStringList();
    for (const QString& f : files) {
        // Two files of the same name are told apart by their folder.
        int same = 0;
        for (const QString& g : files)
            same += QFileInfo(g).fileName() == QFileInfo(f).fileName() ? 1 : 0;
        const QString name = QString(QFileInfo(f).fileName()).replace(QLatin1Char('&'), QStringLiteral("&&"));
        QAction* a = m_recentMenu->addAction(same > 1 ? tr("%1  (in %2)").arg(name, QDir::toNativeSeparators(QFileInfo(f).absolutePath()))
                                                      : name);
        a->setToolTip(f);
        a->setStatusTip(f);
        a->setEnabled(QFileInfo::exists(f));
        connect(a, &QAction::triggered, this, [this, f] { openFile(f); });
    }
    if (files.isEmpty())
        m_recentMenu->addAction(tr("(none yet)"))->setEnabled(false);
}

void MainWindow::showShortcuts()
{
    QString rows;
    auto row = [&rows](const QString& key, const QString& what) {
        rows += QStringLiteral("<tr><td><b>%1</b></td><td>%2</td></tr>").arg(key.toHtmlEscaped(), what.toHtmlEscaped());
    };
    for (QAction* a : m_nest->primitiveActions())
        row(a->shortcut().toString(QKeySequence::NativeText), a->toolTip());
    row(tr("Right-click"), tr("every primitive for the loop or tensor under the mouse"));
    row(tr("Drag a loop"), tr("onto another loop of its stage: move it there (reorder)"));
    for (QAction* a : {m_schedule->deleteAction(), m_schedule->moveUpAction(), m_schedule->moveDownAction()})
        row(a->shortcut().toString(QKeySequence::NativeText), a->text() + tr(" (schedule panel)"));
    row(QKeySequence(QKeySequence::Undo).toString(QKeySequence::NativeText), tr("undo"));
    row(QKeySequence(QKeySequence::Redo).toString(QKeySequence::NativeText), tr("redo"));
    QMessageBox box(this);
    box.setWindowTitle(tr("Keyboard shortcuts"));
    box.setText(QStringLiteral("<table cellspacing=6>%1</table>").arg(rows));
    box.exec();
}

} // namespace loopscope::ui
