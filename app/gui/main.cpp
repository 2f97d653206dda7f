// loopscope: the desktop application. `loopscope [FILE]` opens a schedule or kernel (the tiled
// matmul example by default); `--screenshot OUT.png` renders the window offscreen at
// 1440x900 and exits; `--bench-edits` times edits from the change to the repaint.
#include "guarded_application.h"
#include "icon_cache_style.h"
#include "headless.h"
#include "main_window.h"
#include "search_screenshot.h"
#include "store/workspace.h"
#include "workspace_controller.h"
#include "workspace_screenshot.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QFileInfo>
#include <QTextStream>
#include <QTimer>

#include <cstring>

using loopscope::ui::MainWindow;

namespace {
QtMessageHandler g_previousHandler = nullptr;

/// Headless runs: the offscreen platform plugin warns about every window feature it lacks
/// ("This plugin does not support propagateSizeHints()"), about a hundred lines that say
/// nothing about the program. Everything else passes through.
void quietOffscreen(QtMsgType type, const QMessageLogContext& context, const QString& message)
{
    if (type == QtWarningMsg && message.startsWith(QLatin1String("This plugin does not support")))
        return;
    if (g_previousHandler)
        g_previousHandler(type, context, message);
}
} // namespace

int main(int argc, char** argv)
{
    // Without a person watching, no display is needed: render offscreen.
    bool headless = false;
    for (int i = 1; i < argc; ++i)
        if (std::strcmp(argv[i], "--screenshot") == 0 || std::strcmp(argv[i], "--bench-edits") == 0) {
            headless = true;
            if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
                qputenv("QT_QPA_PLATFORM", "offscreen");
        }
    if (headless)
        g_previousHandler = qInstallMessageHandler(quietOffscreen);

    loopscope::ui::GuardedApplication app(argc, argv);
    QApplication::setStyle(new loopscope::ui::IconCacheStyle);   // the default style, dock icons kept
    QApplication::setOrganizationName(QStringLiteral("Loopscope"));
    QApplication::setApplicationName(QStringLiteral("loopscope"));
    QApplication::setApplicationVersion(QStringLiteral("0.2.0"));

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Schedule tensor kernels by hand and watch the loop nest, memory, cost and C code change."));
    parser.addHelpOption();
    parser.addVersionOption();
    QCommandLineOption screenshot(QStringLiteral("screenshot"), QStringLiteral("Render the main window offscreen at 1440x900 (the first window on a 1600x1000 screen) into OUT.png and exit."), QStringLiteral("OUT.png"));
    QCommandLineOption select(QStringLiteral("select"), QStringLiteral("With --screenshot: select this loop first."), QStringLiteral("LOOP"));
    QCommandLineOption raise(QStringLiteral("show"), QStringLiteral("With --screenshot: bring this dock to the front (e.g. Tiles, History); repeatable."), QStringLiteral("DOCK"));
    QCommandLineOption size(QStringLiteral("size"), QStringLiteral("With --screenshot: the window size (default 1440x900; each side 200 to 8192 pixels)."), QStringLiteral("WxH"));
    QCommandLineOption tile(QStringLiteral("tile-position"), QStringLiteral("With --screenshot: position of the tile view's slider."), QStringLiteral("N"));
    QCommandLineOption measure(QStringLiteral("measure"), QStringLiteral("With --screenshot: measure the kernel on qemu first (Schedule > Measure)."));
    QCommandLineOption bench(QStringLiteral("bench-edits"), QStringLiteral("Time edits (change to repaint) on every example schedule, print a table and exit."));
    QCommandLineOption rounds(QStringLiteral("rounds"), QStringLiteral("With --bench-edits: rounds of edits per schedule (default 5)."), QStringLiteral("N"), QStringLiteral("5"));
    QCommandLineOption search(QStringLiteral("search"), QStringLiteral("With --screenshot: render the search window (Schedule > Search...) after a search of N candidates instead."), QStringLiteral("N"));
    QCommandLineOption compare(QStringLiteral("compare"), QStringLiteral("With --screenshot: the Variants dock and the Compare window of variants A and B of the schedule's workspace."), QStringLiteral("A,B"));
    QCommandLineOption variant(QStringLiteral("variant"), QStringLiteral("With --screenshot: open this variant of the schedule's workspace first (with --measure, its count is stored with it, as Schedule > Measure does)."), QStringLiteral("NAME"));
    parser.addOptions({screenshot, select, raise, size, tile, measure, variant, search, compare, bench, rounds});
    parser.addPositionalArgument(QStringLiteral("file"), QStringLiteral("A schedule (*.sched.yaml) or kernel (*.kernel.yaml) to open."), QStringLiteral("[FILE]"));
    parser.process(app);

    QTextStream out(stdout);
    QTextStream err(stderr);
    const QStringList files = parser.positionalArguments();

    if (parser.isSet(bench)) {
        QStringList schedules = files;
        if (schedules.isEmpty()) {
            const QDir dir(MainWindow::examplesDir() + QStringLiteral("/schedules"));
            for (const QFileInfo& f : dir.entryInfoList({QStringLiteral("*.sched.yaml")}, QDir::Files, QDir::Name))
                schedules << f.absoluteFilePath();
        }
        const double worst = loopscope::ui::runEditBenchmark(schedules, parser.value(rounds).toInt(), out);
        out << QStringLiteral("worst median edit-to-repaint: %1 ms (budget 16 ms)\n").arg(worst, 0, 'f', 2);
        return 0;
    }

    const QString file = files.isEmpty() ? MainWindow::defaultExample() : files.front();
    if (parser.isSet(screenshot)) {
        // The options checked before the window is built and the file opened.
        loopscope::ui::ScreenshotOptions options;
        if (parser.isSet(size)) {
            // WxH, each between 200 and 8192 pixels; anything else is refused, not replaced by
            // the default without a word.
            const QStringList wh = parser.value(size).split(QLatin1Char('x'));
            bool okW = false, okH = false;
            const int w = wh.size() == 2 ? wh[0].toInt(&okW) : 0;
            const int h = wh.size() == 2 ? wh[1].toInt(&okH) : 0;
            if (!okW || !okH || w < 200 || h < 200 || w > 8192 || h > 8192) {
                err << "loopscope: --size takes WxH, each from 200 to 8192 pixels (e.g. 1440x900), not '" << parser.value(size) << "'\n";
                return 2;
            }
            options.size = QSize(w, h);
        }
        options.selectLoop = parser.value(select);
        options.raiseDocks = parser.values(raise);
        if (parser.isSet(tile)) {
            bool ok = false;
            options.tilePosition = parser.value(tile).toInt(&ok);
            if (!ok || options.tilePosition < 0) {
                err << "loopscope: --tile-position takes a number from 0 (the slider's first position), not '" << parser.value(tile) << "'\n";
                return 2;
            }
        }
        MainWindow window(MainWindow::Options{false, false});
        QString error;
        if (!file.isEmpty() && !window.openFile(file, &error)) {
            err << "loopscope: cannot open " << file << ":\n" << error << "\n";
            return 2;
        }
        if (parser.isSet(variant)) {
            loopscope::ui::WorkspaceController* controller = window.workspace();
            const auto v = controller->workspace() ? controller->workspace()->findVariant(parser.value(variant).toStdString()) : std::nullopt;
            if (!v || !controller->openVariant(v->id, &error)) {
                err << "loopscope: " << (v ? error : QStringLiteral("no variant named '%1' in the workspace of %2").arg(parser.value(variant), file)) << "\n";
                return 2;
            }
        }
        options.measure = parser.isSet(measure);
        const QString shot = parser.isSet(search) ? QString() : parser.value(screenshot);
        if (!loopscope::ui::renderScreenshot(window, shot, options, &error)
            || (parser.isSet(search) && !loopscope::ui::renderSearchScreenshot(window, parser.value(search).toLongLong(), parser.value(screenshot), &error))) {
            err << "loopscope: " << error << "\n";
            return 1;
        }
        if (parser.isSet(search)) {
            out << "wrote " << parser.value(screenshot) << " (the search window)\n";
            return 0;
        }
        if (parser.isSet(compare)) {
            const QStringList pair = parser.value(compare).split(QLatin1Char(','));
            if (pair.size() != 2 || !loopscope::ui::renderCompareScreenshot(window, pair[0], pair[1], parser.value(screenshot), &error)) {
                err << "loopscope: " << (pair.size() != 2 ? QStringLiteral("--compare takes two variants: A,B") : error) << "\n";
                return 2;
            }
        }
        out << "wrote " << parser.value(screenshot) << " (" << options.size.width() << "x" << options.size.height() << ")\n";
        return 0;
    }

    MainWindow window;
    window.show();
    if (!file.isEmpty())
        window.openFile(file);
    // What a crash left unsaved is offered once the window is up (and the file's workspace known).
    QTimer::singleShot(0, &window, [&window] { window.offerRecovery(); });
    return app.exec();
}
