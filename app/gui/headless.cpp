// Screenshots and the edit benchmark.
#include "headless.h"

#include "charts/cost_view.h"
#include "code_view.h"
#include "loop_nest_view.h"
#include "main_window.h"
#include "schedule_document.h"
#include "tile_view.h"

#include <QApplication>
#include <QCoreApplication>
#include <QDebug>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QPaintEvent>
#include <QPixmap>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTextStream>
#include <QUndoStack>

#include <algorithm>
#include <ctime>
#include <functional>
#include <map>
#include <vector>

namespace loopscope::ui {

namespace {
/// CPU time of this thread in ms: what an edit costs, whatever else the machine runs.
double threadCpuMs()
{
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

void settle()
{
    for (int i = 0; i < 5; ++i)
        QApplication::processEvents();
}

/// What the event loop paints and lays out during the timed edits (LOOPSCOPE_BENCH_PAINTS=1):
/// paint events and their pixels, layout requests and resizes, per widget class under its dock
/// (LOOPSCOPE_BENCH_PAINTS=names: and per object name).
class PaintCounter : public QObject {
public:
    bool counting = false;
    bool byName = false;   ///< LOOPSCOPE_BENCH_PAINTS=names: per widget name too
    struct Count {
        int paints = 0;
        qint64 pixels = 0;
        int layouts = 0;
        int resizes = 0;
    };
    std::map<QString, Count> counts;

    bool eventFilter(QObject* o, QEvent* e) override
    {
        if (!counting || !o->isWidgetType()
            || (e->type() != QEvent::Paint && e->type() != QEvent::LayoutRequest && e->type() != QEvent::Resize))
            return false;
        auto* w = static_cast<QWidget*>(o);
        QString where;
        for (QWidget* p = w; p; p = p->parentWidget())
            if (qobject_cast<QDockWidget*>(p) || p->isWindow()) {
                where = p->objectName();
                break;
            }
        QString key = where + QStringLiteral(" ") + QString::fromLatin1(w->metaObject()->className());
        if (byName && !w->objectName().isEmpty())
            key += QStringLiteral(" ") + w->objectName();
        Count& c = counts[key];
        if (e->type() == QEvent::Paint) {
            ++c.paints;
            for (const QRect& r : static_cast<QPaintEvent*>(e)->region())
                c.pixels += qint64(r.width()) * r.height();
        } else if (e->type() == QEvent::Resize) {
            ++c.resizes;
        } else {
            ++c.layouts;
        }
        return false;
    }
};
} // namespace

/// One timed edit: the change, then the event processing that lays out and paints what it
/// changed (as the event loop does before the next frame; the second pass catches what the
/// first one scheduled, such as delayed item-view layouts). Not inlined, so that callgrind can
/// count exactly this: `--collect-atstart=no --toggle-collect='loopscope::ui::benchEditAndRepaint*'`.
[[gnu::noinline]] void benchEditAndRepaint(const std::function<void()>& edit, double* editMs)
{
    QElapsedTimer t;
    t.start();
    edit();
    *editMs = t.nsecsElapsed() / 1e6;
    QApplication::processEvents();
    QApplication::processEvents();
}

bool renderScreenshot(MainWindow& window, const QString& out, const ScreenshotOptions& options, QString* error)
{
    window.resize(options.size);
    window.show();
    settle();
    window.applyDefaultSizes();
    settle();
    for (const QString& name : options.raiseDocks) {
        bool found = false;
        for (QDockWidget* d : window.docks())
            if (d->objectName() == name || d->windowTitle().startsWith(name, Qt::CaseInsensitive)) {
                d->show();
                d->raise();
                found = true;
            }
        if (!found) {
            if (error)
                *error = QStringLiteral("no dock named '%1'").arg(name);
            return false;
        }
    }
    if (!options.selectLoop.isEmpty() && !window.loopNestView()->selectLoop(options.selectLoop)) {
        if (error)
            *error = QStringLiteral("no loop named '%1' in the loop nest").arg(options.selectLoop);
        return false;
    }
    if (options.tilePosition >= 0)
        window.tileView()->setPosition(options.tilePosition);
    if (options.measure) {
        window.measure();
        QElapsedTimer waited;
        waited.start();
        while (window.costView()->measurementText().isEmpty() && waited.elapsed() < 300000)
            QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
        if (window.costView()->measurementText().isEmpty()) {
            if (error)
                *error = QStringLiteral("measuring gave no result: %1").arg(window.statusBar()->currentMessage());
            return false;
        }
    }
    settle();
    const QPixmap pixmap = window.grab();
    if (pixmap.size() != options.size) {
        if (qEnvironmentVariableIsSet("LOOPSCOPE_DEBUG_LAYOUT")) {
            qWarning() << "central" << window.centralWidget()->minimumSizeHint() << window.centralWidget()->size();
            for (QDockWidget* d : window.docks())
                qWarning() << d->objectName() << d->minimumSizeHint() << d->size() << d->widget()->minimumSizeHint();
        }
        if (error)
            *error = QStringLiteral("the window rendered at %1x%2, not %3x%4")
                         .arg(pixmap.width()).arg(pixmap.height()).arg(options.size.width()).arg(options.size.height());
        return false;
    }
    if (!out.isEmpty() && !pixmap.save(out, "PNG")) {
        if (error)
            *error = QStringLiteral("cannot write '%1'").arg(out);
        return false;
    }
    return true;
}

double runEditBenchmark(const QStringList& schedules, int rounds, QTextStream& out)
{
    // Wall time from the edit to the end of the repaint, and this thread's CPU time for the
    // same interval (on a loaded machine the wall time also counts waiting for a core).
    out << QStringLiteral("%1 %2 %3 %4 %5 %6 %7 %8 %9 %10\n")
               .arg(QStringLiteral("schedule"), -40)
               .arg(QStringLiteral("edits"), 6)
               .arg(QStringLiteral("median ms"), 10)
               .arg(QStringLiteral("p95 ms"), 8)
               .arg(QStringLiteral("max ms"), 8)
               .arg(QStringLiteral("cpu ms"), 8)
               .arg(QStringLiteral("cpu p95"), 8)
               .arg(QStringLiteral("cpu max"), 8)
               .arg(QStringLiteral("core ms"), 8)
               .arg(QStringLiteral("code ms"), 8);
    double worst = 0;
    // Edits are journaled as a user's are (into a recovery file of a temporary folder; the
    // writes run on the journal's thread); LOOPSCOPE_BENCH_JOURNAL=0 turns that off.
    QTemporaryDir journalDir;
    const bool journal = qEnvironmentVariable("LOOPSCOPE_BENCH_JOURNAL") != QLatin1String("0");
    for (const QString& path : schedules) {
        MainWindow window(MainWindow::Options{false, false, journal ? journalDir.path() : QString()});
        window.resize(ScreenshotOptions().size);
        // For finding what an edit costs: LOOPSCOPE_BENCH_HIDE=costDock,codeDock
        for (const QString& name : qEnvironmentVariable("LOOPSCOPE_BENCH_HIDE").split(QLatin1Char(','), Qt::SkipEmptyParts))
            if (QDockWidget* d = window.dock(name))
                d->hide();
        window.show();
        settle();
        // LOOPSCOPE_BENCH_RAISE=tileDock,diagnosticsDock brings tabbed docks to the front.
        for (const QString& name : qEnvironmentVariable("LOOPSCOPE_BENCH_RAISE").split(QLatin1Char(','), Qt::SkipEmptyParts))
            if (QDockWidget* d = window.dock(name))
                d->raise();
        settle();
        QString error;
        if (!window.openFile(path, &error)) {
            out << path << ": " << error << "\n";
            continue;
        }
        settle();
        ScheduleDocument* doc = window.document();
        // Every edit rebuilds on this thread, as all examples do at full speed (their rebuilds
        // take a few ms, the worker threshold is 100): under valgrind they would run 50 times
        // slower, move to the worker and finish outside the edit being counted.
        doc->setAsyncThresholdMs(1e12);
        // LOOPSCOPE_BENCH_CODE_LINES=N: C of N lines or more is generated on the worker (to
        // compare thresholds in one run).
        if (const int lines = qEnvironmentVariableIntValue("LOOPSCOPE_BENCH_CODE_LINES"); lines > 0)
            doc->setBackgroundCodeLines(lines);
        std::vector<double> times;
        std::vector<double> core;
        std::vector<double> cpu;
        std::vector<double> codeMs;   ///< until the Code panel shows the edit's C
        std::map<QString, double> update;   // summed per view: taking the snapshot
        std::map<QString, double> paint;    // summed per dock: repainting
        const bool breakdown = qEnvironmentVariableIsSet("LOOPSCOPE_BENCH_BREAKDOWN");
        PaintCounter paints;
        const bool countPaints = qEnvironmentVariableIsSet("LOOPSCOPE_BENCH_PAINTS");
        paints.byName = qEnvironmentVariable("LOOPSCOPE_BENCH_PAINTS") == QLatin1String("names");
        if (countPaints)
            qApp->installEventFilter(&paints);
        auto timed = [&](auto edit) {
            QElapsedTimer t;
            t.start();
            const double cpu0 = threadCpuMs();
            double e = 0;
            paints.counting = countPaints;
            benchEditAndRepaint(edit, &e);
            paints.counting = false;
            times.push_back(t.nsecsElapsed() / 1e6);
            cpu.push_back(threadCpuMs() - cpu0);
            // Long C is generated on a worker after the frame: until the Code panel shows it.
            QElapsedTimer waited;
            waited.start();
            while (!window.codeView()->isCurrent() && waited.elapsed() < 60000)
                QCoreApplication::processEvents(QEventLoop::AllEvents | QEventLoop::WaitForMoreEvents, 5);
            codeMs.push_back(t.nsecsElapsed() / 1e6);
            if (breakdown) {
                update[QStringLiteral("~edit")] += e;
                update[QStringLiteral("~events")] += times.back() - e;
            }
            core.push_back(doc->lastRebuildMs());
            if (breakdown) {
                for (const auto& [view, ms] : window.viewTimes())
                    update[view] += ms;
                for (QDockWidget* d : window.docks()) {
                    QElapsedTimer p;
                    p.start();
                    d->widget()->repaint();
                    paint[d->objectName()] += p.nsecsElapsed() / 1e6;
                }
                QElapsedTimer p;
                p.start();
                window.centralWidget()->repaint();
                paint[QStringLiteral("nest")] += p.nsecsElapsed() / 1e6;
            }
        };
        for (int round = 0; round < rounds; ++round) {
            // Drag every split factor down and back up, as with a spin box.
            for (size_t i = 0; i < doc->steps().size(); ++i) {
                const sched::Step original = doc->steps()[i];
                if (original.primitive != sched::Primitive::Split || original.factor <= 1)
                    continue;
                const int session = doc->newMergeSession();
                for (int64_t f : {original.factor - 1, std::max<int64_t>(1, original.factor / 2), original.factor}) {
                    sched::Step s = original;
                    s.factor = f;
                    timed([&] { doc->editStep(static_cast<int>(i), s, session); });
                }
            }
            // Undo and redo the last steps, one at a time.
            const int n = std::min<int>(3, static_cast<int>(doc->steps().size()));
            for (int k = 0; k < n; ++k) {
                sched::Step last = doc->steps().back();
                timed([&] { doc->removeStep(static_cast<int>(doc->steps().size()) - 1); });
                timed([&] { doc->undoStack()->undo(); });
                (void)last;
            }
        }
        if (times.empty())
            continue;
        // LOOPSCOPE_BENCH_TIMES=1: every edit's wall and CPU ms, in the order they ran.
        if (qEnvironmentVariableIsSet("LOOPSCOPE_BENCH_TIMES")) {
            out << "  edits (wall/cpu ms):";
            for (size_t i = 0; i < times.size(); ++i)
                out << " " << QString::number(times[i], 'f', 1) << "/" << QString::number(cpu[i], 'f', 1);
            out << "\n";
        }
        std::vector<double> sorted = times;
        std::sort(sorted.begin(), sorted.end());
        std::sort(core.begin(), core.end());
        const double median = sorted[sorted.size() / 2];
        const double p95 = sorted[std::min(sorted.size() - 1, sorted.size() * 95 / 100)];
        worst = std::max(worst, median);
        std::sort(cpu.begin(), cpu.end());
        std::sort(codeMs.begin(), codeMs.end());
        out << QStringLiteral("%1 %2 %3 %4 %5 %6 %7 %8 %9 %10\n")
                   .arg(QFileInfo(path).fileName(), -40)
                   .arg(times.size(), 6)
                   .arg(median, 10, 'f', 2)
                   .arg(p95, 8, 'f', 2)
                   .arg(sorted.back(), 8, 'f', 2)
                   .arg(cpu[cpu.size() / 2], 8, 'f', 2)
                   .arg(cpu[std::min(cpu.size() - 1, cpu.size() * 95 / 100)], 8, 'f', 2)
                   .arg(cpu.back(), 8, 'f', 2)
                   .arg(core[core.size() / 2], 8, 'f', 3)
                   .arg(codeMs[codeMs.size() / 2], 8, 'f', 2);
        if (breakdown) {
            out << "  update ms/edit:";
            for (const auto& [view, ms] : update)
                out << " " << view << "=" << QString::number(ms / times.size(), 'f', 2);
            out << "\n  paint ms/edit:";
            for (const auto& [view, ms] : paint)
                out << " " << view << "=" << QString::number(ms / times.size(), 'f', 2);
            out << "\n";
        }
        if (countPaints) {
            std::vector<std::pair<QString, PaintCounter::Count>> byPixels(paints.counts.begin(), paints.counts.end());
            std::sort(byPixels.begin(), byPixels.end(), [](const auto& a, const auto& b) { return a.second.pixels > b.second.pixels; });
            out << "  per edit: paints, kilopixels, layout requests, resizes\n";
            for (const auto& [name, c] : byPixels)
                out << QStringLiteral("    %1 %2 %3 %4 %5\n")
                           .arg(name, -48)
                           .arg(double(c.paints) / times.size(), 6, 'f', 2)
                           .arg(double(c.pixels) / 1000 / times.size(), 8, 'f', 1)
                           .arg(double(c.layouts) / times.size(), 6, 'f', 2)
                           .arg(double(c.resizes) / times.size(), 6, 'f', 2);
            qApp->removeEventFilter(&paints);
        }
        out.flush();
        doc->undoStack()->setClean();  // nothing to ask when the window goes
    }
    return worst;
}

} // namespace loopscope::ui
