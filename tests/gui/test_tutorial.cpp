// docs/tutorial.md, checked: every figure it quotes is recomputed from the schedules it names
// (the cost model, the exported code, the tile model, qemu for the measured ones) and must
// appear in the text exactly as the tutorial writes it; and every figure-like number in the
// text must be one of those claims or a listed description of the input. A change of the
// model, the code generator or the examples that moves a quoted figure fails here, naming
// the phrase to update.
#include "analysis/cost_report.h"
#include "analysis/tiles.h"
#include "codegen/c_codegen.h"
#include "codegen/measure.h"
#include "headless.h"
#include "sched/schedule_file.h"
#include "search/explain.h"
#include "search/search.h"
#include "sched/tensorize.h"
#include "target_loader.h"

#include <QFile>
#include <QLocale>
#include <QRegularExpression>
#include <QtTest>

#include <cmath>
#include <memory>

using namespace loopscope;

namespace {

QString source(const QString& rel) { return QStringLiteral(LOOPSCOPE_SOURCE_DIR "/") + rel; }

/// The tutorial as one line: emphasis and code marks dropped, whitespace collapsed.
QString tutorialText()
{
    QFile f(source("docs/tutorial.md"));
    if (!f.open(QIODevice::ReadOnly))
        return QString();
    QString t = QString::fromUtf8(f.readAll());
    t.remove(QLatin1Char('*')).remove(QLatin1Char('`'));
    return t.simplified();
}

struct Opened {
    sched::Program program;
    std::shared_ptr<const lower::LoopNest> nest;
    analysis::CostReport report;
    QString code;
};

Opened openProgram(const sched::Program& p)
{
    Opened o;
    o.program = p;
    o.nest = std::make_shared<const lower::LoopNest>(lower::lower(p));
    o.report = analysis::analyze(*o.nest, *p.target);
    o.code = QString::fromStdString(codegen::generateSource(*o.nest));
    return o;
}

Opened open(const QString& rel)
{
    auto o = sched::openSchedule(source(rel).toStdString(), [](const std::string& t, const std::string& d) { return hw::resolveTarget(t, d); });
    if (!o) {
        qWarning() << o.errorText().c_str();
        return {};
    }
    return openProgram(o->program);
}

Opened openKernel(const QString& rel)
{
    auto k = ir::loadKernelFile(source(rel).toStdString());
    auto t = hw::resolveTarget("cortex-m7", "");
    return openProgram(sched::Program::initial(std::make_shared<const ir::Kernel>(std::move(*k)),
                                               std::make_shared<const hw::Target>(std::move(*t))));
}

// Numbers as the tutorial writes them.
QString grouped(double v) { return QLocale(QLocale::English).toString(qlonglong(std::llround(v))); }
QString fixed(double v, int decimals) { return QString::number(v, 'f', decimals); }
QString mega(double v, int d) { return fixed(v / 1e6, d) + " M"; }
QString giga(double v, int d) { return fixed(v / 1e9, d) + " G"; }
QString kilo(double v) { return QString::number(std::llround(v / 1e3)) + " K"; }
QString kib(double b) { return fixed(b / 1024.0, 0) + " KiB"; }
QString mib(double b, int d) { return fixed(b / 1048576.0, d) + " MiB"; }
QString pct(double v, int d) { return fixed(v, d) + " %"; }
QString times(double v, int d) { return fixed(v, d) + "x"; }

int64_t dram(const analysis::CostReport& r) { return r.levels[0].readBytes + r.levels[0].writeBytes; }
int64_t readsOf(const analysis::CostReport& r, const std::string& tensor, const std::string& level)
{
    for (const auto& t : r.tensors)
        if (t.name == tensor && t.level == level)
            return t.readBytes;
    return 0;
}
int64_t bufferBytes(const analysis::CostReport& r, int level, const std::string& name)
{
    for (const auto& b : r.levels[level].buffers)
        if (b.name == name)
            return b.bytes;
    return -1;
}
int codeLines(const QString& code) { return static_cast<int>(code.count(QLatin1Char('\n'))) + (code.endsWith('\n') ? 0 : 1); }

} // namespace

class TestTutorial : public QObject {
    Q_OBJECT
private:
    QString m_text;
    QStringList m_claims;   ///< phrases checked, for the completeness check

    void claim(const QString& phrase)
    {
        m_claims << phrase;
        QVERIFY2(m_text.contains(phrase), qPrintable("docs/tutorial.md should say: \"" + phrase + "\""));
    }

private slots:
    void initTestCase()
    {
        m_text = tutorialText();
        QVERIFY(!m_text.isEmpty());
    }

    void part1Matmul()
    {
        const Opened naive = open("examples/schedules/matmul_f32_naive.sched.yaml");
        const Opened tiled = open("docs/tutorial/matmul_1_tiled.sched.yaml");
        const Opened cached = open("docs/tutorial/matmul_2_cached.sched.yaml");
        const Opened hoisted = open("docs/tutorial/matmul_3_hoisted.sched.yaml");
        const Opened doubled = open("docs/tutorial/matmul_4_double_buffered.sched.yaml");
        const Opened unrolled = open("docs/tutorial/matmul_5_unrolled.sched.yaml");
        const Opened written = open("docs/tutorial/matmul_6_written_back.sched.yaml");
        QVERIFY(naive.nest && written.nest);
        const auto& t = *naive.program.target;
        const double bound = double(naive.report.bounds.computeCycles);
        const double compulsory = double(naive.report.bounds.compulsoryBytes);

        claim(QString("runs at %1 the compute bound").arg(times(written.report.cycles.total / bound, 1)));
        claim(QString("%1 of DRAM at %2 byte per cycle with %3 cycles of latency per transfer, %4 of SRAM at %5 bytes per cycle")
                  .arg(mib(t.levels[0].sizeBytes, 0)).arg(t.levels[0].bandwidthBytesPerCycle).arg(t.levels[0].latencyCycles)
                  .arg(kib(t.levels[1].sizeBytes)).arg(t.levels[1].bandwidthBytesPerCycle));
        QCOMPARE(t.compute.macsPerCycle.at("float32"), 1.0);
        claim("one float32 MAC per cycle at best");

        // step 0
        const auto& r0 = naive.report;
        claim(QString("(%1 of %2)").arg(kib(r0.levels[0].usedBytes), mib(t.levels[0].sizeBytes, 0)));
        claim(QString("%1 cycles for %2 MACs, %3 of the compute bound (%4 cycles)")
                  .arg(mega(r0.cycles.total, 1), grouped(r0.macs), pct(bound / r0.cycles.total * 100, 1), grouped(bound)));
        claim(QString("DRAM traffic is %1 against %2 of compulsory traffic: %3 more")
                  .arg(mib(dram(r0), 2), kib(compulsory), times(dram(r0) / compulsory, 0)));
        claim(QString("%1 of the %2 cycles are transfers").arg(mega(r0.cycles.transfer, 1), mega(r0.cycles.total, 1)));
        // step 1
        QCOMPARE(dram(tiled.report), dram(r0));
        claim(QString("(%1 cycles; DRAM traffic unchanged)").arg(mega(tiled.report.cycles.total, 2)));
        // step 2
        const auto& r2 = cached.report;
        claim(QString("SRAM holds %1 (%2 per buffer) of its %3").arg(kib(r2.levels[1].usedBytes), kib(bufferBytes(r2, 1, "A_SRAM")), kib(t.levels[1].sizeBytes)));
        claim(QString("%1 cycles, %2 faster").arg(mega(r2.cycles.total, 2), times(double(r0.cycles.total) / r2.cycles.total, 1)));
        claim(QString("DRAM reads fall from %1 to %2: %3, not")
                  .arg(mib(r0.levels[0].readBytes, 0), kib(r2.levels[0].readBytes), times(double(r0.levels[0].readBytes) / r2.levels[0].readBytes, 0)));
        const double aBytes = 64 * 64 * 4;
        claim(QString("read from DRAM %1 times instead of %2").arg(readsOf(r2, "A", "DRAM") / aBytes).arg(readsOf(r0, "A", "DRAM") / aBytes));
        claim(QString("%1 the compulsory traffic").arg(times(dram(r2) / compulsory, 1)));
        QString reload;
        int reloadStep = -1;
        for (const auto& d : r2.diagnostics)
            if (d.code == "redundant-reload") {
                reload = QString::fromStdString(d.message);
                reloadStep = d.step.value_or(-1);
            }
        claim(QString("a warning on step %1: %2.").arg(reloadStep + 1).arg(reload));
        // step 3
        const auto& r3 = hoisted.report;
        claim(QString("DRAM traffic %1, %2 the compulsory traffic; %3 cycles").arg(kib(dram(r3)), times(dram(r3) / compulsory, 1), mega(r3.cycles.total, 2)));
        claim(QString("B is only %1").arg(kib(aBytes)));
        sched::Step root;
        root.primitive = sched::Primitive::ComputeAt;
        root.tensor = "B";
        root.level = "SRAM";
        root.at = "root";
        auto rooted = sched::apply(hoisted.program, root);
        QVERIFY(rooted.ok());
        const Opened exercise = openProgram(rooted.program());
        QCOMPARE(double(dram(exercise.report)), compulsory);
        claim(QString("the DRAM traffic reaches the compulsory %1").arg(kib(compulsory)));
        // step 4
        const auto& r4 = doubled.report;
        claim(QString("(SRAM %1)").arg(kib(r4.levels[1].usedBytes)));
        claim(QString("Cost: %1 cycles.").arg(mega(r4.cycles.total, 2)));
        claim(QString("%1 of the %2 transfer cycles are now hidden").arg(pct(r4.cycles.overlapRatio * 100, 0), kilo(r4.cycles.transfer)));
        double copies = 0;
        for (const auto& tr : r4.transfers)
            if (tr.from == "DRAM")
                copies += tr.bytes / t.levels[0].bandwidthBytesPerCycle + double(tr.copies) * t.levels[0].latencyCycles;
        claim(QString("%1 cycles of latency, %2 cycles in all").arg(t.levels[0].latencyCycles).arg(kilo(r4.cycles.transfer - copies)));
        const auto tiles = analysis::TileModel::build(doubled.nest);
        QVERIFY(tiles.ok());
        claim(QString("step through the %1 tiles of C").arg(tiles.positions()));
        const auto values = tiles.loopValues(5);
        const auto a = tiles.residents(*tiles.input("A"), 5);
        QCOMPARE(a.size(), size_t(1));
        claim(QString("At step 6 (i.outer = %1, j.outer = %2) the tile %3 is being computed, the band %4 is resident in SRAM and the second "
                      "buffer is already fetching %5.")
                  .arg(values[0]).arg(values[1])
                  .arg(QString::fromStdString(boxText("C", tiles.outputTile(5))), QString::fromStdString(boxText("A", a[0].box)),
                       QString::fromStdString(boxText("A", a[0].next))));
        // step 5
        const auto& r5 = unrolled.report;
        claim(QString("The code grows to %1 lines: the body of k is written out %2 times").arg(codeLines(unrolled.code)).arg(64));
        claim(QString("compute falls from %1 to %2 cycles").arg(kilo(r4.cycles.compute), kilo(r5.cycles.compute)));
        QVERIFY(r5.cycles.fromInstructions);
        claim(QString("the total is %1 cycles, %2 of the compute bound (%3 faster than step 0)")
                  .arg(mega(r5.cycles.total, 2), pct(bound / r5.cycles.total * 100, 0), times(double(r0.cycles.total) / r5.cycles.total, 0)));
        // step 6
        const auto& r6 = written.report;
        claim(QString("C_SRAM (%1, two buffers)").arg(kib(bufferBytes(r6, 1, "C_SRAM") / 2)));
        claim(QString("transfers fall to %1 cycles, %2 of them hidden").arg(kilo(r6.cycles.transfer), pct(r6.cycles.overlapRatio * 100, 0)));
        claim(QString("%1 cycles, %2 of the compute bound of %3 — %4 faster than the unscheduled kernel")
                  .arg(kilo(r6.cycles.total), pct(bound / r6.cycles.total * 100, 0), kilo(bound), times(double(r0.cycles.total) / r6.cycles.total, 0)));
        claim(QString("The SRAM used is %1 of 512").arg(kib(r6.levels[1].usedBytes)));
        claim(QString("the DRAM traffic is %1 compulsory").arg(times(dram(r6) / compulsory, 0)));

        // What the figures count (item 5 of issue 10): the measured instructions of the last step.
        const codegen::Measurement m = codegen::measureOnQemu(*written.nest, "cortex-m7");
        QVERIFY2(m.ok, m.error.c_str());
        claim(QString("Schedule > Measure counts %1 instructions in the kernel, %2 per MAC")
                  .arg(grouped(double(m.kernelInstructions)), fixed(double(m.kernelInstructions) / r6.macs, 2)));
        const double total = double(m.kernelInstructions + m.copyInstructions);
        claim(QString("with the %1 of the copies %2, the %3 per MAC that")
                  .arg(grouped(double(m.copyInstructions)), grouped(total), fixed(total / r6.macs, 2)));
        claim(QString("So the %1 says how far").arg(pct(bound / r6.cycles.total * 100, 0)));
        // The Cost panel's Instructions row: the instruction model's prediction of the same code.
        claim(QString("predicts %1 instructions in the kernel and %2 in the cache-fill")
                  .arg(grouped(double(r6.instructions.kernel)), grouped(double(r6.instructions.copies))));
    }

    void theMeasuredScreenshot()
    {
        const Opened dsp = open("examples/schedules/conv2d_int8_dsp.sched.yaml");
        QVERIFY(dsp.nest);
        const codegen::Measurement m = codegen::measureOnQemu(*dsp.nest, "cortex-m7");
        QVERIFY2(m.ok, m.error.c_str());
        claim(QString("measured: %1 instructions, %2 per MAC")
                  .arg(grouped(double(m.kernelInstructions)), fixed(double(m.kernelInstructions) / dsp.report.macs, 2)));
        const QSize size = ui::ScreenshotOptions().size;
        claim(QString("offscreen, at %1 x %2").arg(size.width()).arg(size.height()));
    }

    void part2Dwsep()
    {
        const Opened naive = openKernel("examples/kernels/dwsep_conv.kernel.yaml");
        const Opened blocks = open("examples/schedules/dwsep_conv_channel_blocks.sched.yaml");
        const Opened fused = open("examples/schedules/dwsep_conv_fused.sched.yaml");
        QVERIFY(naive.nest && blocks.nest && fused.nest);
        const auto& k = *naive.program.kernel;
        const double dBytes = double(k.tensors[k.findTensor("D")].bytes());
        const double iBytes = double(k.tensors[k.findTensor("I")].bytes());
        const auto& r0 = naive.report;
        const double compulsory = double(r0.bounds.compulsoryBytes);
        claim(QString("D is an intermediate: %1").arg(mib(dBytes, 2)));
        claim(QString("it takes %1 cycles").arg(giga(r0.cycles.total, 2)));
        claim(QString("%1 of DRAM traffic for %2 of compulsory traffic").arg(mib(dram(r0), 0), mib(compulsory, 1)));
        const auto& rb = blocks.report;
        claim(QString("%1 cycles (%2 faster), DRAM traffic %3, %4 compulsory")
                  .arg(mega(rb.cycles.total, 0), times(double(r0.cycles.total) / rb.cycles.total, 0), mib(dram(rb), 1), times(dram(rb) / compulsory, 1)));
        claim(QString("still has its home in DRAM (%1)").arg(mib(dBytes, 2)));
        claim(QString("The pointwise weights PW (%1) are resident").arg(kib(double(k.tensors[k.findTensor("PW")].bytes()))));
        const auto& rf = fused.report;
        claim(QString("%1, role intermediate").arg(kib(bufferBytes(rf, 1, "D_SRAM"))));
        claim(QString("(%1 used instead of %2)").arg(mib(rf.levels[0].usedBytes, 2), mib(rb.levels[0].usedBytes, 2)));
        claim(QString("SRAM holds %1 at its peak").arg(kib(rf.levels[1].usedBytes)));
        claim(QString("DRAM traffic %1, %2 compulsory; %3 cycles").arg(mib(dram(rf), 2), times(dram(rf) / compulsory, 1), mega(rf.cycles.total, 0)));
        claim(QString("I is read about %1 times from DRAM (%2 times with the 8-row bands")
                  .arg(fixed(readsOf(rf, "I", "DRAM") / iBytes, 1), fixed(readsOf(rb, "I", "DRAM") / iBytes, 1)));
        const auto tiles = analysis::TileModel::build(fused.nest);
        QVERIFY(tiles.ok());
        claim(QString("the output O is cut into %1 bands of %2 rows").arg(tiles.positions()).arg(tiles.outputTile(0).dims[0].size()));
        claim(QString("Compute is now %1 of the %2 cycles against a compute bound of %3")
                  .arg(mega(rf.cycles.compute, 1), mega(rf.cycles.total, 0), mega(rf.bounds.computeCycles, 1)));
    }

    void part3Gemmini()
    {
        const Opened naive = open("docs/tutorial/gemmini_0_unscheduled.sched.yaml");
        const Opened blocks = open("docs/tutorial/gemmini_1_blocks.sched.yaml");
        const Opened tensorized = open("docs/tutorial/gemmini_2_tensorized.sched.yaml");
        const Opened panels = open("docs/tutorial/gemmini_3_panels.sched.yaml");
        const Opened doubled = open("docs/tutorial/gemmini_4_double_buffered.sched.yaml");
        const Opened hand = open("examples/schedules/gemmini_matmul_sym_hand.sched.yaml");
        const Opened autoWs = open("examples/schedules/gemmini_matmul_sym_auto_ws.sched.yaml");
        const Opened partial = open("examples/schedules/gemmini_matmul_int8_128x120.sched.yaml");
        QVERIFY(naive.nest && blocks.nest && tensorized.nest && panels.nest && doubled.nest && hand.nest && autoWs.nest && partial.nest);
        const auto& t = *naive.program.target;
        QCOMPARE(t.compute.peArray->rows, 16);
        claim(QString("%1 of scratchpad in rows of %2 bytes, %3 of accumulator").arg(kib(t.levels[1].sizeBytes)).arg(t.levels[1].rowBytes).arg(kib(t.levels[2].sizeBytes)));
        const double bound = double(naive.report.bounds.computeCycles);
        const double compulsory = double(naive.report.bounds.compulsoryBytes);
        QVERIFY(!naive.report.array);
        claim(QString("%1 cycles against a compute bound of %2 cycles (the array's %3 MACs per cycle), DRAM traffic %4 compulsory")
                  .arg(mega(naive.report.cycles.total, 2), grouped(bound)).arg(16 * 16).arg(times(dram(naive.report) / compulsory, 1)));
        claim(QString("changes nothing yet (%1 cycles)").arg(mega(blocks.report.cycles.total, 2)));
        // Tensorize: the plan the app's action applies is the step file's.
        sched::TensorizePlan plan = sched::planTensorize(blocks.program, 0, sched::Dataflow::WeightStationary);
        QVERIFY(plan.legal);
        QStringList added;
        for (const auto& st : plan.steps)
            added << QString::fromStdString(sched::describe(st));
        QCOMPARE(added.size(), 4);
        claim(QString("weight_stationary (+%1 cache steps)").arg(added.size() - 1));
        claim(QString("%1, %2, %3 — and then").arg(added[0], added[1], added[2]));
        QCOMPARE(tensorized.program.trace.size(), blocks.program.trace.size() + plan.steps.size());
        for (size_t i = 0; i < plan.steps.size(); ++i)
            QCOMPARE(QString::fromStdString(sched::describe(tensorized.program.trace[blocks.program.trace.size() + i])), added[int(i)]);
        const auto& r2 = tensorized.report;
        QVERIFY(r2.array);
        claim(QString("Cost: %1 cycles, %2 the bound. The PE utilisation is %3")
                  .arg(grouped(r2.cycles.total), times(r2.cycles.total / bound, 1), pct(r2.array->peUtilisation * 100, 1)));
        claim(QString("%1 transfer cycles, none hidden").arg(grouped(r2.cycles.transfer)));
        QCOMPARE(r2.cycles.overlapRatio, 0.0);
        claim(QString("(DRAM traffic %1 compulsory), and each of the %2 preloads brings new weights")
                  .arg(times(dram(r2) / compulsory, 1)).arg(r2.array->instructions.preload));
        QCOMPARE(r2.array->weightLoads, r2.array->instructions.preload);
        const auto& r3 = panels.report;
        claim(QString("A is small (%1)").arg(kib(double(naive.program.kernel->tensors[naive.program.kernel->findTensor("A")].bytes()))));
        claim(QString("Cost: %1 cycles, %2 the bound; DRAM traffic falls to the compulsory %3, and only %4 of the %5 preloads")
                  .arg(grouped(r3.cycles.total), times(r3.cycles.total / bound, 1), times(dram(r3) / compulsory, 1))
                  .arg(r3.array->weightLoads).arg(r3.array->instructions.preload));
        QVERIFY(r3.array->rowBlocks.size() >= 2);
        for (const auto& b : r3.array->rowBlocks) {
            if (b.buffer == "A_scratchpad")
                claim(QString("A_scratchpad takes rows %1..%2, the panel of B the %3 rows after it").arg(b.baseRow).arg(b.baseRow + b.rows - 1).arg(128));
            if (b.buffer == "B_scratchpad")
                QCOMPARE(b.rows, 128);
        }
        claim(QString("What is left: %1 transfer cycles").arg(grouped(r3.cycles.transfer)));
        const auto& r4 = doubled.report;
        claim(QString("Cost: %1 cycles, %2 of the transfer cycles hidden, %3 of the compute bound")
                  .arg(grouped(r4.cycles.total), pct(r4.cycles.overlapRatio * 100, 0), pct(bound / r4.cycles.total * 100, 1)));
        const auto tiles = analysis::TileModel::build(doubled.nest);
        QVERIFY(tiles.ok());
        const auto b0 = tiles.arrayBlocks(0);
        int64_t instructions = 0;
        for (const auto& b : b0)
            instructions += b.instructions;
        claim(QString("steps through the %1 panels of C: each is cut into %2 outlined blocks").arg(tiles.positions()).arg(b0.size()));
        claim(QString("%1 instructions, and the PE array").arg(instructions));
        const auto ptiles = analysis::TileModel::build(partial.nest);
        QVERIFY(ptiles.ok());
        const auto last = ptiles.arrayBlocks(ptiles.positions() - 1);
        QVERIFY(!last.empty());
        claim(QString("its last panel is %1 columns wide, hatched, and uses %2 PE rows x %3 columns").arg(last[0].cols).arg(last[0].peRows).arg(last[0].peCols));
        const auto& r5 = hand.report;
        claim(QString("%1 cycles, %2 of the compute bound.").arg(grouped(r5.cycles.total), pct(bound / r5.cycles.total * 100, 1)));
        claim(QString("schedule at %1 of the array's compute bound").arg(pct(bound / r5.cycles.total * 100, 1)));
        claim(QString("it needs %1 cycles, so the hand schedule is %2 faster")
                  .arg(grouped(autoWs.report.cycles.total), pct((1 - double(r5.cycles.total) / autoWs.report.cycles.total) * 100, 1)));
    }

    // Part 4: the search from the fused dwsep schedule (the CLI command of the text: a budget,
    // no time limit, seed 1, so the result is the same on every machine and thread count).
    void part4Search()
    {
        const Opened fused = open("examples/schedules/dwsep_conv_fused.sched.yaml");
        QVERIFY(fused.nest);
        search::SearchOptions opt;
        opt.budget = 6000;
        opt.seed = 1;
        const sched::Program base = sched::replay(fused.program.kernel, fused.program.target, {}).program();
        opt.start = fused.program.trace;  // --pin 0: none kept, the search starts from them
        const search::SearchResult r = search::runSearch(base, opt);
        QVERIFY(r.feasible && r.best >= 0);
        QVERIFY2(r.startedFromSchedule, r.start.c_str());
        QCOMPARE(r.progress.rejected, int64_t(0));
        claim(QString("%1 candidates drawn, %2 of them evaluated").arg(grouped(double(r.progress.drawn)), grouped(double(r.progress.evaluated))));
        // The others: pruned (cannot be made to fit) or duplicates; nothing else.
        QCOMPARE(r.progress.evaluated + r.progress.pruned + r.progress.duplicates + r.progress.rejected, r.progress.drawn);
        claim(QString("%1 were pruned because no repair makes them fit in SRAM, %2 were duplicates of earlier ones")
                  .arg(grouped(double(r.progress.pruned)), grouped(double(r.progress.duplicates))));
        claim(QString("a front of %1 points").arg(r.front.size()));
        const search::SearchPoint& best = r.front[static_cast<size_t>(r.best)];
        const auto& rf = fused.report;
        claim(QString("%1 cycles, %2 faster than the fused schedule's %3 and %4 the compute bound of %5")
                  .arg(mega(double(best.figures.cycles), 1), times(double(rf.cycles.total) / double(best.figures.cycles), 1), mega(rf.cycles.total, 0),
                       times(double(best.figures.cycles) / rf.bounds.computeCycles, 2), mega(rf.bounds.computeCycles, 1)));
        claim(QString("it holds %1 on chip (the fused schedule %2)").arg(kib(double(best.figures.onChipBytes)), kib(rf.levels[1].usedBytes)));
        // What it changed: the three added steps that buy the most cycles are quoted.
        const search::PointExplanation why = search::explainPoint(fused.program, best.trace);
        std::vector<search::StepChange> added;
        for (const auto& c : why.changes)
            if (c.added && c.analysed)
                added.push_back(c);
        QVERIFY(added.size() >= 3);
        auto gain = [](const search::StepChange& c) { return double(c.after.cycles) / double(c.before.cycles); };
        std::stable_sort(added.begin(), added.end(), [&](const auto& a, const auto& b) { return gain(a) < gain(b); });
        for (int i = 0; i < 3; ++i)
            claim(QString::fromStdString(search::describeChange(added[static_cast<size_t>(i)])));
        // The same search does not reach Part 1's hand schedule: it is a sampler.
        const Opened hand = open("docs/tutorial/matmul_6_written_back.sched.yaml");
        QVERIFY(hand.nest);
        search::SearchOptions mo = opt;
        mo.budget = 20000;
        mo.start.clear();  // from the kernel
        const search::SearchResult m = search::runSearch(sched::replay(hand.program.kernel, hand.program.target, {}).program(), mo);
        QVERIFY(m.feasible && m.best >= 0);
        const int64_t found = m.front[static_cast<size_t>(m.best)].figures.cycles;
        QVERIFY2(found < hand.report.cycles.total, "the tutorial says the search goes past the hand schedule: update it if it no longer does");
        claim(QString("it finds %1 cycles, %2 below the hand schedule's %3").arg(grouped(double(found)), pct((1 - double(found) / hand.report.cycles.total) * 100, 1),
                                                                               grouped(hand.report.cycles.total)));
        // The register block it finds: k split by 16, i by 4, both inner loops unrolled.
        const search::PointExplanation mwhy = search::explainPoint(hand.program, m.front[static_cast<size_t>(m.best)].trace);
        QStringList mAdded;
        for (const auto& c : mwhy.changes)
            if (c.added)
                mAdded << QString::fromStdString(search::describeChange(c)).section(':', 0, 0);
        for (const char* step : {"split k by 16", "split i by 4", "unroll k.inner", "unroll i.inner"})
            QVERIFY2(mAdded.contains(QString("+ ") + step), qPrintable(mAdded.join(" | ")));
    }

    // Every figure-like number in the text is inside a claim checked above, or describes the
    // input (sizes, factors, tile shapes) and is listed here.
    void everyQuotedFigureIsChecked()
    {
        const QStringList described = {
            "64 x 64 matrices", "16 x 16 tiles", "a 16 x 16 tile can do", "(extent 4)", "(extent 16)", "not 256x",
            "at 112 x 112 x 32", "32 -> 64", "3 x 3 x 8 filter", "blocks of 8 channels", "bands of 8 rows", "(10 rows with the halo)",
            "why it is not 1.0x", "by 4, then", "a 4-row band", "each band of 4 output rows needs 6 input rows", "factor to 16",
            "by 16 x 16", "factor: 16", "(say 10)", "larger than 64", "divide 64", "the 16 tiles", "factor: 8",
            "128 x 128 matrices", "16 x 16 array", "16 x 16 x 16 blocks", "rows of 16 int32", "5 x 6 x 8", "128 x 16 panel",
        };
        static const QRegularExpression figure(
            QStringLiteral("\\d[\\d,]*(\\.\\d+)?(x\\b|\\s?(%|M\\b|K\\b|G\\b|KiB|MiB|B\\b|cycles|lines|times|instructions|per MAC))"));
        QStringList unchecked;
        for (auto it = figure.globalMatch(m_text); it.hasNext();) {
            const auto match = it.next();
            const qsizetype at = match.capturedStart();
            auto covers = [&](const QString& phrase) {
                for (qsizetype from = 0; (from = m_text.indexOf(phrase, from)) >= 0; ++from)
                    if (from <= at && at < from + phrase.size())
                        return true;
                return false;
            };
            bool ok = std::any_of(m_claims.begin(), m_claims.end(), covers) || std::any_of(described.begin(), described.end(), covers);
            if (!ok)
                unchecked << m_text.mid(std::max<qsizetype>(0, at - 30), 60);
        }
        QVERIFY2(unchecked.isEmpty(), qPrintable("figures in docs/tutorial.md that no test checks:\n  " + unchecked.join("\n  ")));
    }
};

QTEST_MAIN(TestTutorial)
#include "test_tutorial.moc"
