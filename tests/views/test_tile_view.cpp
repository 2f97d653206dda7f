// TileView: the tiles of the tiled matmul and the fused pipeline, resident input regions,
// every example and odd schedules draw, stepping changes the picture, the play button steps.
#include "tile_view.h"
#include "view_test_support.h"

#include <QTemporaryDir>
#include <QTest>

using namespace loopscope;
using namespace loopscope::viewtest;

namespace {

/// "C[0, 4:8, 0:16]" -> per dimension [lo, hi); empty for "C (nothing)".
std::vector<std::pair<int64_t, int64_t>> parseBox(const QString& text)
{
    std::vector<std::pair<int64_t, int64_t>> out;
    int open = text.indexOf(QLatin1Char('[')), close = text.lastIndexOf(QLatin1Char(']'));
    if (open < 0 || close < open)
        return out;
    for (const QString& part : text.mid(open + 1, close - open - 1).split(QStringLiteral(", "))) {
        QStringList ab = part.split(QLatin1Char(':'));
        int64_t a = ab[0].toLongLong();
        out.push_back({a, ab.size() > 1 ? ab[1].toLongLong() : a + 1});
    }
    return out;
}

/// Runs a loop nest's control flow (loops and guards, no data) and records, per position of
/// the given outer loops, the elements of `tensor` that stores write and the elements copies
/// move into buffers of `input`: the ground truth for the tile view's boxes.
class NestWalker {
public:
    struct Seen {
        std::vector<int64_t> lo, hi;
        bool any = false;
        void add(const std::vector<int64_t>& g)
        {
            if (!any) {
                lo = hi = g;
                any = true;
                return;
            }
            for (size_t d = 0; d < g.size(); ++d) {
                lo[d] = std::min(lo[d], g[d]);
                hi[d] = std::max(hi[d], g[d]);
            }
        }
    };

    NestWalker(const lower::LoopNest& n, const QStringList& outer, int tensor, int input)
        : m_n(n), m_outer(outer), m_tensor(tensor), m_input(input)
    {
        m_slots.assign(n.slotNames.size(), 0);
    }

    void run() { walk(m_n.root, {}); }

    std::map<int64_t, Seen> writes;      ///< position -> written box of the output
    std::map<int64_t, std::map<std::string, Seen>> copies;   ///< position -> buffer -> copied box

private:
    struct Frame {
        std::string name;
        int slot;
        int64_t extent;
    };

    int64_t ev(lower::IndexId id) const { return m_n.index.eval(id, m_slots.data()); }

    /// Position of the enclosing outer loops, -1 when not inside all of them.
    int64_t position(const std::vector<Frame>& frames) const
    {
        int64_t pos = 0;
        for (const QString& name : m_outer) {
            auto it = std::find_if(frames.begin(), frames.end(), [&](const Frame& f) { return f.name == name.toStdString(); });
            if (it == frames.end())
                return -1;
            pos = pos * it->extent + m_slots[it->slot];
        }
        return pos;
    }

    void walk(int id, std::vector<Frame> frames)
    {
        const lower::Stmt& s = m_n.stmts[id];
        using K = lower::Stmt::Kind;
        switch (s.kind) {
        case K::For: {
            frames.push_back({s.name, s.slot, s.extent});
            for (int64_t i = 0; i < s.extent; ++i) {
                m_slots[s.slot] = i;
                for (int c : s.body)
                    walk(c, frames);
            }
            return;
        }
        case K::If:
            for (const auto& c : s.conds) {
                int64_t v = ev(c.expr);
                if ((c.lo != lower::kNoIndex && v < ev(c.lo)) || (c.hi != lower::kNoIndex && v > ev(c.hi)))
                    return;
            }
            break;
        case K::Compute:
        case K::AccStore: {
            const lower::Buffer& b = m_n.buffers[s.buffer];
            if (b.tensor == m_tensor && b.role != lower::Buffer::Role::Accumulator) {
                int64_t p = position(frames);
                if (p >= 0) {
                    std::vector<int64_t> g;
                    for (auto e : s.index)
                        g.push_back(ev(e));
                    writes[p].add(g);
                }
            }
            break;
        }
        case K::Copy: {
            const lower::Buffer& dst = m_n.buffers[s.buffer];
            const lower::Buffer& src = m_n.buffers[s.src];
            const lower::Buffer& cache = dst.role == lower::Buffer::Role::Home ? src : dst;
            int64_t p = position(frames);
            if (cache.tensor == m_input && p >= 0) {
                std::vector<int64_t> lo, hi;
                bool empty = false;
                for (size_t d = 0; d < s.region.min.size(); ++d) {
                    int64_t a = ev(s.region.min[d]), n = ev(s.region.count[d]);
                    empty = empty || n <= 0;
                    lo.push_back(a);
                    hi.push_back(a + (n - 1) * s.region.step[d]);
                }
                if (!empty) {
                    copies[p][cache.name].add(lo);
                    copies[p][cache.name].add(hi);
                }
            }
            break;
        }
        default:
            break;
        }
        for (int c : s.body)
            walk(c, frames);
    }

    const lower::LoopNest& m_n;
    QStringList m_outer;
    int m_tensor, m_input;
    std::vector<int64_t> m_slots;
};

} // namespace

class TestTileView : public QObject {
    Q_OBJECT

private slots:
    void placeholderWhenEmpty()
    {
        ui::TileView v;
        v.setSnapshot({});
        QVERIFY(!v.message().isEmpty());
        QCOMPARE(v.positionCount(), 0);
        QVERIFY(!render(v, QSize(400, 300)).isNull());
        ui::Snapshot noNest = snapshotOf(examplePath(QStringLiteral("matmul_f32_tiled")));
        noNest.nest.reset();
        noNest.report.reset();
        v.setSnapshot(noNest);
        QVERIFY(!v.message().isEmpty());
        QCOMPARE(v.positionCount(), 0);
        QVERIFY(!render(v, QSize(400, 300)).isNull());
    }

    void tiledMatmulHasSixteenTiles()
    {
        ui::Snapshot s = snapshotOf(examplePath(QStringLiteral("matmul_f32_tiled")));
        QVERIFY(!s.empty());
        ui::TileView v;
        v.setSnapshot(s);
        QVERIFY2(v.message().isEmpty(), qPrintable(v.message()));
        QCOMPARE(v.positionCount(), 16);
        QCOMPARE(v.outerLoops(), (QStringList{QStringLiteral("i.outer"), QStringLiteral("j.outer")}));
        QCOMPARE(v.position(), 0);
        QCOMPARE(v.tileText(), QStringLiteral("C[0:16, 0:16]"));
        QCOMPARE(v.inputTensors(), (QStringList{QStringLiteral("A"), QStringLiteral("B")}));
        QCOMPARE(v.inputTensor(), QStringLiteral("A"));
        QCOMPARE(v.residentText(), QStringList{QStringLiteral("SRAM: A[0:16, 0:64]")});
        QImage first = render(v, QSize(900, 480));
        QVERIFY(colourCount(first) >= 6);
        savePicture(first, QStringLiteral("tile_matmul_f32_tiled_0"));

        v.setPosition(6);   // i.outer = 1, j.outer = 2
        QCOMPARE(v.position(), 6);
        QCOMPARE(v.tileText(), QStringLiteral("C[16:32, 32:48]"));
        QCOMPARE(v.residentText(), QStringList{QStringLiteral("SRAM: A[16:32, 0:64]")});
        QImage sixth = render(v, QSize(900, 480));
        QVERIFY(first != sixth);
        savePicture(sixth, QStringLiteral("tile_matmul_f32_tiled_6"));

        v.setInputTensor(QStringLiteral("B"));
        QCOMPARE(v.residentText(), QStringList{QStringLiteral("SRAM: B[0:64, 32:48]")});
        QImage b = render(v, QSize(900, 480));
        QVERIFY(b != sixth);
        savePicture(b, QStringLiteral("tile_matmul_f32_tiled_6_B"));

        v.setPosition(100);   // clamped
        QCOMPARE(v.position(), 15);
        QCOMPARE(v.tileText(), QStringLiteral("C[48:64, 48:64]"));
        // A new snapshot of the same loops keeps the position and the input.
        ui::Snapshot again = s;
        again.revision = 2;
        v.setSnapshot(again);
        QCOMPARE(v.position(), 15);
        QCOMPARE(v.inputTensor(), QStringLiteral("B"));
    }

    void fusedPipelineStepsThroughRowBands()
    {
        ui::Snapshot s = snapshotOf(examplePath(QStringLiteral("dwsep_conv_fused")));
        QVERIFY(!s.empty());
        ui::TileView v;
        v.setSnapshot(s);
        QVERIFY2(v.message().isEmpty(), qPrintable(v.message()));
        QCOMPARE(v.positionCount(), 28);
        QCOMPARE(v.inputTensor(), QStringLiteral("D"));
        v.setPosition(1);
        QCOMPARE(v.tileText(), QStringLiteral("O[4:8, 0:112, 0:64]"));
        QCOMPARE(v.residentText(), QStringList{QStringLiteral("SRAM: D[4:8, 0:112, 0:32]")});
        QImage d = render(v, QSize(900, 520));
        savePicture(d, QStringLiteral("tile_dwsep_conv_fused_1_D"));
        // The depthwise input: a 6-row band with its halo, clipped at the top edge.
        v.setInputTensor(QStringLiteral("I"));
        QCOMPARE(v.residentText(), QStringList{QStringLiteral("SRAM: I[3:9, 0:112, 0:32]")});
        v.setPosition(0);
        QCOMPARE(v.residentText(), QStringList{QStringLiteral("SRAM: I[0:5, 0:112, 0:32]")});
        QImage i = render(v, QSize(900, 520));
        QVERIFY(i != d);
        savePicture(i, QStringLiteral("tile_dwsep_conv_fused_0_I"));
        v.setInputTensor(QStringLiteral("PW"));
        QCOMPARE(v.residentText(), QStringList{QStringLiteral("SRAM: PW[0:32, 0:64]")});
        savePicture(render(v, QSize(900, 520)), QStringLiteral("tile_dwsep_conv_fused_0_PW"));
    }

    void doubleBufferShowsThePrefetch()
    {
        ui::Snapshot s = snapshotOf(examplePath(QStringLiteral("conv2d_int8_tiled")));
        QVERIFY(!s.empty());
        ui::TileView v;
        v.setSnapshot(s);
        QCOMPARE(v.positionCount(), 4);
        QCOMPARE(v.inputTensor(), QStringLiteral("I"));
        v.setPosition(1);
        QCOMPARE(v.tileText(), QStringLiteral("O[0, 4:8, 0:16, 0:16]"));
        QCOMPARE(v.residentText(), QStringList{QStringLiteral("SRAM: I[0, 3:9, 0:16, 0:16]")});
        savePicture(render(v, QSize(900, 480)), QStringLiteral("tile_conv2d_int8_tiled_1_I"));
    }

    void tensorizedBlocksAndThePeArray()
    {
        // matmul 128x120x128 on gemmini-16x16: the last 16-column panel is 8 columns wide.
        ui::Snapshot s = snapshotOf(examplePath(QStringLiteral("gemmini_matmul_int8_128x120")));
        QVERIFY(!s.empty());
        ui::TileView v;
        v.setSnapshot(s);
        QVERIFY2(v.message().isEmpty(), qPrintable(v.message()));
        QCOMPARE(v.positionCount(), 8);
        QCOMPARE(v.arrayText(), QStringLiteral("8 blocks outlined on the 16×16 PE array (weight-stationary), 64 instructions"));
        const QImage full = render(v, QSize(900, 480));
        v.setPosition(7);
        QCOMPARE(v.tileText(), QStringLiteral("C[0:128, 112:120]"));
        QCOMPARE(v.arrayText(), QStringLiteral("8 blocks outlined on the 16×16 PE array (weight-stationary), 64 instructions; "
                                               "hatched: all using 16 PE rows × 8 columns (right)"));
        const QImage partial = render(v, QSize(900, 480));
        QVERIFY(partial != full);
        savePicture(partial, QStringLiteral("tile_gemmini_matmul_int8_128x120_7"));
        // The output-stationary conv: one 16-pixel x 16-channel block per output row, 9 instructions.
        v.setSnapshot(snapshotOf(examplePath(QStringLiteral("gemmini_conv2d_int8"))));
        QVERIFY2(v.message().isEmpty(), qPrintable(v.message()));
        QCOMPARE(v.arrayText(), QStringLiteral("1 block outlined on the 16×16 PE array (output-stationary), 9 instructions"));
        // No PE array: no text.
        v.setSnapshot(snapshotOf(examplePath(QStringLiteral("matmul_f32_tiled"))));
        QCOMPARE(v.arrayText(), QString());
    }

    void everyExampleDrawsAndStepping_data()
    {
        QTest::addColumn<QString>("path");
        for (const QString& p : exampleSchedules())
            QTest::newRow(qPrintable(baseName(p))) << p;
    }
    void everyExampleDrawsAndStepping()
    {
        QFETCH(QString, path);
        QString error;
        ui::Snapshot s = snapshotOf(path, 1, &error);
        QVERIFY2(!s.empty(), qPrintable(error));
        ui::TileView v;
        v.setSnapshot(s);
        QVERIFY2(v.message().isEmpty(), qPrintable(v.message()));
        QVERIFY(v.positionCount() >= 1);
        QVERIFY(!v.tileText().isEmpty());
        QImage first = render(v, v.sizeHint());
        QVERIFY(colourCount(first) >= 5);
        savePicture(first, QStringLiteral("tile_example_") + baseName(path));
        if (v.positionCount() > 1) {
            v.setPosition(v.positionCount() - 1);
            QVERIFY(render(v, v.sizeHint()) != first);
        }
        for (const QString& t : v.inputTensors()) {
            v.setInputTensor(t);
            QCOMPARE(v.inputTensor(), t);
            QVERIFY(!render(v, QSize(500, 700)).isNull());
        }
    }

    void oddSchedulesDraw_data()
    {
        QTest::addColumn<QString>("kernel");
        QTest::addColumn<QString>("target");
        QTest::addColumn<QString>("params");
        QTest::addColumn<QString>("steps");
        QTest::addColumn<int>("positions");
        QTest::newRow("partial tiles and a write cache")
            << "matmul_f32" << "cortex-m7" << "{M: 50, N: 40, K: 8}"
            << "  - split: {loop: i, factor: 16}\n  - split: {loop: j, factor: 16}\n"
               "  - reorder: {loops: [i.outer, j.outer, i.inner, j.inner, k]}\n"
               "  - cache_write: {tensor: C, level: SRAM, at: j.outer}\n"
            << 12;
        QTest::newRow("fused outer loops")
            << "matmul_f32" << "cortex-m7" << "{M: 32, N: 32, K: 8}"
            << "  - split: {loop: i, factor: 8}\n  - split: {loop: j, factor: 8}\n"
               "  - reorder: {loops: [i.outer, j.outer, i.inner, j.inner, k]}\n"
               "  - fuse: {loops: [i.outer, j.outer]}\n"
               "  - cache_read: {tensor: A, level: SRAM, at: i.outer.j.outer.fused}\n"
            << 16;
        QTest::newRow("reduction split outside the cache")
            << "matmul_f32" << "cortex-m7" << "{M: 16, N: 16, K: 32}"
            << "  - split: {loop: k, factor: 8}\n"
               "  - reorder: {loops: [k.outer, i, j, k.inner]}\n"
               "  - cache_read: {tensor: B, level: SRAM, at: k.outer}\n"
            << 4;
        QTest::newRow("no loops cached, no schedule") << "depthwise_conv_int8" << "cortex-m4" << "{H: 5, W: 4, C: 3}" << "" << 60;
        QTest::newRow("gemmini scratchpad and accumulator")
            << "matmul_int8" << "gemmini-16x16" << "{M: 32, N: 32, K: 32}"
            << "  - split: {loop: i, factor: 16}\n  - split: {loop: j, factor: 16}\n"
               "  - reorder: {loops: [i.outer, j.outer, i.inner, j.inner, k]}\n"
               "  - cache_read: {tensor: A, level: scratchpad, at: j.outer}\n"
               "  - cache_read: {tensor: B, level: scratchpad, at: j.outer}\n"
               "  - cache_write: {tensor: C, level: accumulator, at: j.outer}\n"
            << 4;
    }
    void oddSchedulesDraw()
    {
        QFETCH(QString, kernel);
        QFETCH(QString, target);
        QFETCH(QString, params);
        QFETCH(QString, steps);
        QFETCH(int, positions);
        QTemporaryDir dir;
        QString error;
        ui::Snapshot s = snapshotOf(writeSchedule(dir.path(), QStringLiteral("odd"), kernel, target, params, steps), 1, &error);
        QVERIFY2(!s.empty(), qPrintable(error));
        ui::TileView v;
        v.setSnapshot(s);
        QVERIFY2(v.message().isEmpty(), qPrintable(v.message()));
        QCOMPARE(v.positionCount(), positions);
        for (int p : {0, positions / 2, positions - 1}) {
            v.setPosition(p);
            QVERIFY(!v.tileText().isEmpty());
            QVERIFY(colourCount(render(v, QSize(800, 420))) >= 4);
        }
        for (const QString& t : v.inputTensors()) {
            v.setInputTensor(t);
            QVERIFY(!render(v, QSize(420, 640)).isNull());
        }
        QString tag = QString::fromLatin1(QTest::currentDataTag()).replace(QLatin1Char(' '), QLatin1Char('_'));
        savePicture(render(v, QSize(800, 420)), QStringLiteral("tile_odd_") + tag);
    }

    void playButtonSteps()
    {
        ui::TileView v;
        v.setSnapshot(snapshotOf(examplePath(QStringLiteral("matmul_f32_tiled"))));
        render(v, QSize(600, 400));
        QVERIFY(!v.isPlaying());
        v.setPlaying(true);
        QVERIFY(v.isPlaying());
        QTRY_VERIFY_WITH_TIMEOUT(v.position() >= 2, 5000);
        v.setPlaying(false);
        QVERIFY(!v.isPlaying());
        int stopped = v.position();
        QTest::qWait(700);
        QCOMPARE(v.position(), stopped);
        // Playing from the last position starts again at the first.
        v.setPosition(15);
        v.setPlaying(true);
        QCOMPARE(v.position(), 0);
        v.setPlaying(false);
    }

    void randomSchedulesDraw_data()
    {
        QTest::addColumn<int>("index");
        const auto cases = randomCases();
        for (size_t i = 0; i < cases.size(); ++i)
            QTest::newRow(qPrintable(QFileInfo(cases[i].kernel).fileName() + QLatin1Char('@') + QString::fromStdString(cases[i].target)))
                << static_cast<int>(i);
    }
    void randomSchedulesDraw()
    {
        // Any schedule draws: a picture of its tiles, every input, several steps. The boxes
        // hold what the nest really writes and copies at each step (its control flow run).
        QFETCH(int, index);
        const RandomCase c = randomCases()[index];
        QString error;
        const std::vector<ui::Snapshot> snapshots = randomSnapshots(c, 25, 1000 + index, &error);
        QVERIFY2(!snapshots.empty(), qPrintable(error));
        ui::TileView v;
        for (const ui::Snapshot& s : snapshots) {
            v.setSnapshot(s);
            QVERIFY2(v.message().isEmpty(), qPrintable(v.message()));
            const int count = v.positionCount();
            QVERIFY(count >= 1);
            const int output = s.nest->kernel->stages.back().output.tensor;
            NestWalker truth(*s.nest, v.outerLoops(), output, s.nest->kernel->findTensor(v.inputTensor().toStdString()));
            truth.run();
            const QString where = QString::fromStdString(lower::print(*s.nest));
            std::vector<int> positions = {0, count / 3, count / 2, count - 1};
            for (const auto& [p, seen] : truth.writes)
                if (positions.size() < 12)
                    positions.push_back(static_cast<int>(p));
            for (int p : positions) {
                v.setPosition(p);
                QCOMPARE(v.position(), p);
                const auto box = parseBox(v.tileText());
                auto it = truth.writes.find(p);
                if (it == truth.writes.end())
                    continue;   // nothing written here inside the outer loops (a store after them)
                QVERIFY2(box.size() == it->second.lo.size(), qPrintable(v.tileText() + QStringLiteral(" at %1\n").arg(p) + where));
                for (size_t d = 0; d < box.size(); ++d)
                    QVERIFY2(box[d].first <= it->second.lo[d] && it->second.hi[d] < box[d].second,
                             qPrintable(v.tileText() + QStringLiteral(" misses what step %1 writes\n").arg(p) + where));
                const QStringList resident = v.residentText();
                auto copied = truth.copies.find(p);
                if (copied != truth.copies.end())
                    for (const auto& [buffer, seenCopy] : copied->second) {
                        bool covered = false;
                        for (const QString& r : resident) {
                            auto rb = parseBox(r);
                            bool inside = rb.size() == seenCopy.lo.size();
                            for (size_t d = 0; inside && d < rb.size(); ++d)
                                inside = rb[d].first <= seenCopy.lo[d] && seenCopy.hi[d] < rb[d].second;
                            covered = covered || inside;
                        }
                        QVERIFY2(covered, qPrintable(QString::fromStdString(buffer) + QStringLiteral(" copied at step %1 is not among ").arg(p)
                                                     + resident.join(QStringLiteral("; ")) + QLatin1Char('\n') + where));
                    }
            }
            QVERIFY(colourCount(render(v, QSize(640, 360))) >= 4);
            for (const QString& t : v.inputTensors()) {
                v.setInputTensor(t);
                QVERIFY(!render(v, QSize(360, 640)).isNull());
            }
        }
    }

    void tinySizesDoNotCrash()
    {
        ui::TileView v;
        v.setSnapshot(snapshotOf(examplePath(QStringLiteral("dwsep_conv_fused"))));
        for (QSize size : {QSize(1, 1), QSize(60, 40), QSize(200, 900), QSize(1800, 200)})
            QVERIFY(!render(v, size).isNull());
    }
};

QTEST_MAIN(TestTileView)
#include "test_tile_view.moc"
