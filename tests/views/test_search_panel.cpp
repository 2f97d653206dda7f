// The search panel, offscreen: a budgeted run fills the scatter with the front (energy as
// colour, the current schedule marked), the window keeps processing events while it runs,
// Cancel stops it, a click asks to open the point and lists what it changes, and a target
// where nothing fits says so.
#include "charts/chart_axes.h"
#include "charts/search_scatter.h"
#include "search_panel.h"

#include "ir/kernel.h"
#include "sched/schedule_file.h"
#include "target_loader.h"

#include <QApplication>
#include <QComboBox>
#include <QElapsedTimer>
#include <QLabel>
#include <QLogValueAxis>
#include <QSignalSpy>
#include <QStandardItemModel>
#include <QTest>

#include <cmath>

using namespace loopscope;
using namespace loopscope::ui;

namespace {

std::shared_ptr<const sched::Program> program(const std::string& kernel, std::map<std::string, int64_t> params = {}, int64_t sramBytes = 0,
                                              const std::string& targetName = "cortex-m7")
{
    auto k = ir::loadKernelFile(std::string(LOOPSCOPE_SOURCE_DIR) + "/examples/kernels/" + kernel + ".kernel.yaml", params);
    auto t = hw::resolveTarget(targetName, "");
    if (!k || !t)
        qFatal("cannot load %s", kernel.c_str());
    hw::Target target = *t;
    if (sramBytes > 0) {
        target.name = "tiny";
        target.levels[0].sizeBytes = sramBytes;
    }
    return std::make_shared<const sched::Program>(
        sched::Program::initial(std::make_shared<const ir::Kernel>(*k), std::make_shared<const hw::Target>(target)));
}

bool waitFinished(SearchPanel& panel, QSignalSpy& spy, int ms)
{
    QElapsedTimer t;
    t.start();
    while (panel.isRunning() && t.elapsed() < ms)
        spy.wait(100);
    return !panel.isRunning();
}


/// Shows `program` in the panel and runs a search of `budget` candidates from its steps after the
/// first `keep` to the end (false: it did not start, or did not finish within a minute).
bool runFrom(SearchPanel& panel, std::shared_ptr<const sched::Program> program, int keep, int64_t budget)
{
    panel.setProgram(std::move(program));
    panel.setKeptSteps(keep);
    panel.setBudget(budget);
    panel.setTimeLimit(600);
    QSignalSpy finished(&panel, &SearchPanel::finished);
    return panel.start() && waitFinished(panel, finished, 60000);
}
} // namespace

class TestSearchPanel : public QObject {
    Q_OBJECT
private slots:
    void theCyclesAxisAlwaysHasSeveralLabels()
    {
        // The log axis labels the powers of its base: ranges of cycles as fronts have them, each
        // with at least three labels (a 0.6 M to 8 M front showed one, "1e+06").
        for (const auto& [lo, hi] : std::vector<std::pair<double, double>>{{0.6e6, 8e6}, {1e6, 1.3e6}, {2e6, 9e6}, {0.9e6, 85e6}, {1e3, 1e9}}) {
            QLogValueAxis axis;
            ui::fitLogAxis(&axis, lo, hi, 1.15);
            int labels = 0;
            for (double p = 1; p <= axis.max(); p *= axis.base())
                labels += p >= axis.min() ? 1 : 0;
            QVERIFY2(labels >= 3, qPrintable(QString("%1..%2: %3 labels, base %4").arg(lo).arg(hi).arg(labels).arg(axis.base())));
        }
    }

    void budgetedRunShowsTheFront()
    {
        SearchPanel panel;
        panel.resize(1100, 650);
        panel.show();
        panel.setProgram(program("matmul_int8"));
        panel.setBudget(320);
        panel.setTimeLimit(600);
        QSignalSpy finished(&panel, &SearchPanel::finished);
        QVERIFY(panel.start());
        QVERIFY(!panel.start());  // one at a time
        QVERIFY(waitFinished(panel, finished, 120000));
        QCOMPARE(finished.count(), 1);
        QVERIFY(panel.front().size() >= 3);
        QCOMPARE(panel.scatter()->pointCount(), static_cast<int>(panel.front().size()));
        QCOMPARE(panel.lastProgress().drawn, 320);
        QVERIFY2(panel.statusText().contains("budget reached"), qPrintable(panel.statusText()));
        // Where every candidate went: evaluated, pruned or a duplicate (the pruned were unsaid).
        const search::SearchProgress& p = panel.lastProgress();
        QCOMPARE(p.evaluated + p.pruned + p.duplicates + p.rejected, p.drawn);
        QVERIFY2(panel.statusText().contains(QString("%1 pruned (cannot fit), %2 duplicates").arg(p.pruned).arg(p.duplicates)), qPrintable(panel.statusText()));
        // The best for cycles is the first (the front is sorted by cycles) and is selected.
        QCOMPARE(panel.bestIndex(), 0);
        QVERIFY(panel.changeLines().join('\n').contains("cycles"));
        // Energy as colour: the point of least energy is bluer than the one of most.
        int lo = 0, hi = 0;
        for (int i = 0; i < static_cast<int>(panel.front().size()); ++i) {
            if (panel.front()[i].figures.energyUj < panel.front()[lo].figures.energyUj)
                lo = i;
            if (panel.front()[i].figures.energyUj > panel.front()[hi].figures.energyUj)
                hi = i;
        }
        QVERIFY(panel.scatter()->pointColor(lo).blueF() > panel.scatter()->pointColor(hi).blueF());
        QVERIFY(panel.pointText(1).contains("cycles"));
        // A point found by its position on the chart, as a click or a hover finds it.
        QPointF at = panel.scatter()->pointPosition(1);
        QVERIFY(panel.scatter()->rect().contains(at.toPoint()));
        int found = panel.scatter()->pointAt(at);
        QVERIFY(found >= 0);
        QCOMPARE(panel.front()[found].figures.cycles, panel.front()[1].figures.cycles);
    }

    void clickingAPointAsksToOpenIt()
    {
        SearchPanel panel;
        panel.setProgram(program("matmul_int8"));
        panel.setBudget(192);
        QSignalSpy finished(&panel, &SearchPanel::finished);
        QVERIFY(panel.start());
        QVERIFY(waitFinished(panel, finished, 120000));
        QSignalSpy open(&panel, &SearchPanel::openRequested);
        emit panel.scatter()->pointClicked(1);
        QCOMPARE(open.count(), 1);
        auto trace = open.at(0).at(0).value<std::vector<sched::Step>>();
        QCOMPARE(trace.size(), panel.front()[1].trace.size());
        QVERIFY(trace == panel.front()[1].trace);
        QStringList lines = panel.changeLines();
        QCOMPARE(lines.size(), static_cast<int>(trace.size()));
        QVERIFY(lines.front().startsWith("+ "));
    }

    // The final status takes two lines in a window of the default size. The label has room for
    // them before the run ends, and is as tall as its text at its width after it (it kept the
    // one-line height of the progress, the text cut off at the top and the bottom, until
    // something else laid the window out again).
    void theFinalStatusIsShownWhole()
    {
        SearchPanel panel;
        panel.resize(1100, 650);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        QLabel* status = nullptr;
        for (QLabel* l : panel.findChildren<QLabel*>())
            if (l->text() == panel.statusText())
                status = l;
        QVERIFY(status);
        const int twoLines = 2 * status->fontMetrics().lineSpacing();
        QVERIFY2(status->height() >= twoLines, qPrintable(QString("%1 px high before the run").arg(status->height())));
        QVERIFY(runFrom(panel, program("matmul_int8"), 0, 192));
        QCoreApplication::processEvents();
        QCOMPARE(status->text(), panel.statusText());
        const int needed = status->heightForWidth(status->width());
        QVERIFY2(needed >= twoLines, qPrintable(QString("one line: %1").arg(status->text())));
        QVERIFY2(status->height() >= needed,
                 qPrintable(QString("%1 px high, its text needs %2 at %3 px wide").arg(status->height()).arg(needed).arg(status->width())));
    }

    // After a run the best point is selected, ringed on the chart. A click on it opens it, as a
    // click on any other point does (the ring, drawn over the point, took the click: nothing
    // happened until another point had been clicked).
    void clickingTheSelectedPointOpensIt()
    {
        SearchPanel panel;
        panel.resize(1100, 650);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        QVERIFY(runFrom(panel, program("matmul_int8"), 0, 192));
        QCoreApplication::processEvents();
        const int best = panel.bestIndex();
        QVERIFY(best >= 0 && panel.front().size() >= 2);
        // Another point, the farthest from the best on the chart.
        int other = -1;
        double farthest = 0;
        for (int i = 0; i < static_cast<int>(panel.front().size()); ++i) {
            const QPointF d = panel.scatter()->pointPosition(i) - panel.scatter()->pointPosition(best);
            if (std::hypot(d.x(), d.y()) > farthest) {
                farthest = std::hypot(d.x(), d.y());
                other = i;
            }
        }
        QVERIFY2(farthest > 30, "the points are too close together to click one of them");
        QSignalSpy open(&panel, &SearchPanel::openRequested);
        auto click = [&](int i) {
            QTest::mouseClick(panel.scatter()->viewport(), Qt::LeftButton, {}, panel.scatter()->pointPosition(i).toPoint());
            QCoreApplication::processEvents();
        };
        click(best);
        QCOMPARE(open.count(), 1);
        QVERIFY(open.at(0).at(0).value<std::vector<sched::Step>>() == panel.front()[best].trace);
        click(other);
        QCOMPARE(open.count(), 2);
        QVERIFY(open.at(1).at(0).value<std::vector<sched::Step>>() == panel.front()[other].trace);
        click(other);   // selected now, and ringed
        QCOMPARE(open.count(), 3);
    }

    void windowStaysResponsiveAndCancelStops()
    {
        SearchPanel panel;
        panel.show();
        panel.setProgram(program("conv2d_int8"));
        panel.setTimeLimit(600);
        QSignalSpy progressed(&panel, &SearchPanel::progressed);
        QSignalSpy finished(&panel, &SearchPanel::finished);
        QVERIFY(panel.start());
        // Progress arrives while the event loop runs: the search is not on this thread.
        QVERIFY(progressed.wait(20000));
        QVERIFY(panel.isRunning());
        QElapsedTimer t;
        t.start();
        panel.cancel();
        QVERIFY(waitFinished(panel, finished, 10000));
        QVERIFY2(t.elapsed() < 10000, "cancel took too long");
        QVERIFY2(panel.statusText().contains("cancelled"), qPrintable(panel.statusText()));
        QVERIFY(!panel.front().empty());
    }

    // The steps not kept are where the search starts: the status says so, and the schedule
    // shown is a point of the run (the front holds it or points that beat it).
    void theStepsNotKeptAreWhereItStarts()
    {
        auto base = program("matmul_int8");
        sched::Step split;
        split.primitive = sched::Primitive::Split;
        split.loops = {"i"};
        split.factor = 4;
        sched::ApplyResult r = sched::apply(*base, split);
        QVERIFY(r.ok());
        SearchPanel panel;
        QVERIFY(runFrom(panel, std::make_shared<const sched::Program>(r.program()), 0, 1));
        QVERIFY2(panel.statusText().contains("started from the schedule given"), qPrintable(panel.statusText()));
        QCOMPARE(panel.front().size(), size_t(1));
        QCOMPARE(panel.front()[0].trace.size(), size_t(1));  // the split, as the space writes it
    }

    // The unroll limit of the candidates drawn is the panel's: at 1 no point of the run unrolls a
    // loop, at the default of 64 the same run's front has points that do.
    void theUnrollLimitIsThePanels()
    {
        auto unrolls = [](const search::SearchPoint& p, const sched::Program& base) {
            sched::ApplyResult a = sched::replay(base.kernel, base.target, p.trace);
            if (!a.ok())
                qFatal("a front point does not replay: %s", a.error().str().c_str());
            for (const auto& st : a.program().stages)
                for (const auto& v : st.vars)
                    if (v.active && v.kind == sched::LoopKind::Unrolled)
                        return true;
            return false;
        };
        auto base = program("matmul_int8");
        for (int limit : {1, 64}) {
            SearchPanel panel;
            panel.setMaxUnroll(limit);
            QVERIFY(runFrom(panel, base, 0, 512));
            QVERIFY(!panel.front().empty());
            const auto n = std::count_if(panel.front().begin(), panel.front().end(), [&](const search::SearchPoint& p) { return unrolls(p, *base); });
            if (limit == 1)
                QCOMPARE(n, 0);
            else
                QVERIFY2(n > 0, "no point of the front unrolls a loop");
        }
    }

    // A schedule beyond the unroll limit starts the search all the same, and the status says
    // which value of the panel's field would search among bodies that large.
    void aScheduleBeyondTheUnrollLimitStartsThere()
    {
        auto o = sched::openSchedule(std::string(LOOPSCOPE_SOURCE_DIR) + "/examples/schedules/conv2d_int8_tflite_dsp.sched.yaml",
                                     [](const std::string& n, const std::string& d) { return hw::resolveTarget(n, d); });
        QVERIFY2(o.ok(), o.errorText().c_str());
        SearchPanel panel;
        QVERIFY(runFrom(panel, std::make_shared<const sched::Program>(o->program), 0, 1));
        QVERIFY2(panel.statusText().contains("started from the schedule given"), qPrintable(panel.statusText()));
        QVERIFY2(panel.statusText().contains("Unrolled copies at most 144 searches among bodies that large."), qPrintable(panel.statusText()));
        QVERIFY2(!panel.statusText().contains("--max-unroll"), qPrintable(panel.statusText()));
    }

    void nothingFitsIsSaid()
    {
        SearchPanel panel;
        panel.setProgram(program("matmul_int8", {}, 512));
        panel.setBudget(64);
        QSignalSpy finished(&panel, &SearchPanel::finished);
        QVERIFY(panel.start());
        QVERIFY(waitFinished(panel, finished, 20000));
        QVERIFY2(panel.statusText().contains("no feasible schedule"), qPrintable(panel.statusText()));
        QVERIFY(panel.front().empty());
        QCOMPARE(panel.scatter()->pointCount(), 0);
    }

    void instructionObjectiveOnlyOnCpuTargets()
    {
        SearchPanel panel;
        auto* objective = panel.findChild<QComboBox*>();
        QVERIFY(objective);
        const int insn = objective->findText(QStringLiteral("instructions (predicted)"));
        QVERIFY(insn >= 0);
        QVERIFY(objective->findText(QStringLiteral("DRAM traffic")) >= 0);
        auto* items = qobject_cast<QStandardItemModel*>(objective->model());
        QVERIFY(items);
        panel.setProgram(program("matmul_int8"));
        QVERIFY(items->item(insn)->isEnabled());
        objective->setCurrentIndex(insn);
        // On the accelerator the instruction model has nothing to predict: greyed, and not kept.
        panel.setProgram(program("matmul_int8_sym", {{"M", 32}, {"N", 32}, {"K", 32}}, 0, "gemmini-16x16"));
        QVERIFY(!items->item(insn)->isEnabled());
        QVERIFY(objective->currentIndex() != insn);
    }

    void closingWhileRunningCancels()
    {
        auto* panel = new SearchPanel;
        panel->setProgram(program("conv2d_int8"));
        panel->setTimeLimit(600);
        QVERIFY(panel->start());
        QTest::qWait(200);
        QElapsedTimer t;
        t.start();
        delete panel;  // joins the worker after cancelling it
        QVERIFY(t.elapsed() < 10000);
    }
};

QTEST_MAIN(TestSearchPanel)
#include "test_search_panel.moc"
