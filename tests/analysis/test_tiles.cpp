// The tile model (analysis/tiles.h) checked against what the interpreter really touches: every
// element of the output written during an iteration of the outer loops lies in that
// iteration's tile, and the tile is exactly the hull of those writes; every access to an
// input's on-chip buffer lies in the region the model says is resident there, and an exact
// region is exactly the hull of the accesses. Over the example schedules, the tutorial's and
// random schedules of every example kernel. Plus the interval arithmetic it shares with
// lowering (IndexPool::range / bounds).
#include "support/random_schedule.h"
#include "support/test_paths.h"

#include "analysis/cost_report.h"
#include "analysis/tiles.h"
#include "sched/schedule_file.h"
#include "target_loader.h"
#include "verify/data.h"
#include "verify/interpreter.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <memory>

using namespace loopscope;
using analysis::TileModel;

namespace {

std::string boxString(const Box& b) { return boxText("T", b); }

/// Position of the outer loops' current values (the mixed radix of TileModel::loopValues).
/// With `collapseReductions`, reduction loops count as 0: a store after the reduction loops
/// belongs to every step of them (their counters then hold their last value).
int64_t positionOf(const TileModel& m, const int64_t* slots, bool collapseReductions = false)
{
    int64_t p = 0;
    for (const auto& l : m.outerLoops())
        p = p * l.extent + (collapseReductions && l.reduction ? 0 : slots[l.slot]);
    return p;
}

/// Runs the nest in the interpreter and compares every access with the model. Returns the
/// number of positions checked (so that a caller can insist something was compared).
int checkAgainstInterpreter(const sched::Program& program, const std::string& what)
{
    auto nest = std::make_shared<const lower::LoopNest>(lower::lower(program));
    const TileModel m = TileModel::build(nest);
    EXPECT_TRUE(m.ok()) << what << ": " << m.message();
    if (!m.ok() || m.positions() > 4096)
        return 0;
    const ir::Kernel& k = *program.kernel;
    const int out = m.output().tensor;

    // Buffers of each input that the model tracks, by buffer index; per position the hull of
    // the accesses to each.
    // touched: every access; filled: the accesses of the copy that fills it (or writes it back).
    std::vector<const analysis::TileInput*> tracked(nest->buffers.size(), nullptr);
    std::vector<int> fill(nest->buffers.size(), -1), slideLoop(nest->buffers.size(), -1);
    std::vector<std::vector<Box>> touched(nest->buffers.size()), filled(nest->buffers.size()), fetched(nest->buffers.size());
    for (const auto& in : m.inputs())
        for (const auto& b : in.buffers) {
            tracked[b.buffer] = &in;
            fill[b.buffer] = b.copy;
            slideLoop[b.buffer] = b.slideLoop;
            touched[b.buffer].assign(m.positions(), Box::none(in.shape.size()));
            filled[b.buffer] = touched[b.buffer];
            fetched[b.buffer] = touched[b.buffer];
        }
    std::vector<Box> written(m.positions(), Box::none(m.output().shape.size()));
    bool inside = true;
    std::string firstOutside;
    verify::AccessObserver observer = [&](const verify::Access& a) {
        const lower::Buffer& b = nest->buffers[a.buffer];
        const int64_t p = positionOf(m, a.slots);
        // The computation of the output (a cache's write-back only moves what was computed).
        // (Not tensorize's host-side initial row: a helper, not the kernel's computation.)
        const auto kind = nest->stmts[a.stmt].kind;
        if (a.write && b.tensor == out && !nest->stmts[a.stmt].helper && b.role != lower::Buffer::Role::Accumulator
            && (kind == lower::Stmt::Kind::Compute || kind == lower::Stmt::Kind::AccStore)) {
            const int64_t q = positionOf(m, a.slots, true);
            written[q].include(a.index);
            if (inside && !m.outputTile(q).contains(a.index)) {
                inside = false;
                firstOutside = "write of " + k.tensors[out].name + " outside the tile " + boxText(k.tensors[out].name, m.outputTile(p))
                    + " at step " + std::to_string(p + 1);
            }
        }
        // A tensorized operand's padding halo (filled in the scratchpad, read by the array) lies
        // outside the tensor: the regions are of the tensor's data.
        bool inTensor = true;
        if (tracked[a.buffer])
            for (size_t d = 0; d < tracked[a.buffer]->shape.size(); ++d)
                inTensor = inTensor && a.index[d] >= 0 && a.index[d] < tracked[a.buffer]->shape[d];
        if (tracked[a.buffer] && inTensor) {
            touched[a.buffer][p].include(a.index);
            if (a.stmt == fill[a.buffer])
                filled[a.buffer][p].include(a.index);
            // A sliding cache's fills: what the position fetched (the rest it kept). They run
            // before the loops inside the one they slide along, whose counters still hold the
            // values of the iteration before: the position is that of their first iteration.
            if (a.write && nest->stmts[a.stmt].kind == lower::Stmt::Kind::Copy && nest->stmts[a.stmt].slidePart >= 0) {
                std::vector<int64_t> slots(a.slots, a.slots + nest->slotNames.size());
                for (size_t j = slideLoop[a.buffer] + 1; slideLoop[a.buffer] >= 0 && j < m.outerLoops().size(); ++j)
                    slots[m.outerLoops()[j].slot] = 0;
                fetched[a.buffer][positionOf(m, slots.data())].include(a.index);
            }
        }
    };
    const verify::Dataset inputs = verify::makeInputs(k, 7);
    const verify::InterpretResult r = verify::interpret(*nest, inputs, observer);
    EXPECT_TRUE(r.ok) << what << ": " << r.error;
    EXPECT_TRUE(inside) << what << ": " << firstOutside;
    for (int64_t p = 0; p < m.positions(); ++p) {
        // the tile does not change over the steps of a reduction loop
        std::vector<int64_t> v = m.loopValues(p);
        int64_t q = 0;
        for (size_t i = 0; i < v.size(); ++i)
            q = q * m.outerLoops()[i].extent + (m.outerLoops()[i].reduction ? 0 : v[i]);
        EXPECT_EQ(boxString(m.outputTile(p)), boxString(m.outputTile(q))) << what << ": step " << p + 1;
        if (q == p) {
            EXPECT_EQ(boxString(written[p]), boxString(m.outputTile(p))) << what << ": the tile of step " << p + 1;
        }
    }

    for (size_t buf = 0; buf < touched.size(); ++buf)
        for (int64_t p = 0; p < static_cast<int64_t>(touched[buf].size()); ++p) {
            const Box& hull = touched[buf][p];
            if (hull.empty())
                continue;
            const std::string buffer = nest->buffers[buf].name;
            const analysis::ResidentRegion* region = nullptr;
            const auto regions = m.residents(*tracked[buf], p);
            for (const auto& rr : regions)
                if (rr.buffer == buffer)
                    region = &rr;
            EXPECT_TRUE(region) << what << ": " << buffer << " is not resident at step " << p + 1;
            if (!region)
                continue;
            // Every access lies in the resident region; an exact region is what its copy moves.
            EXPECT_EQ(boxString(hull.hull(region->box)), boxString(region->box))
                << what << ": " << buffer << " at step " << p + 1 << " is accessed outside the model's region";
            if (region->exact && !filled[buf][p].empty()) {
                EXPECT_EQ(boxString(filled[buf][p]), boxString(region->box)) << what << ": the copy of " << buffer << " at step " << p + 1;
            }
            if (region->slides && region->exact) {
                EXPECT_EQ(boxString(fetched[buf][p]), boxString(region->fetched)) << what << ": the fetched part of " << buffer << " at step " << p + 1;
            }
            if (::testing::Test::HasFailure()) {
                ADD_FAILURE() << "the loop nest:\n" << lower::print(*nest);
                return 0;
            }
        }
    return static_cast<int>(m.positions());
}

std::vector<std::string> scheduleFiles()
{
    std::vector<std::string> files;
    for (const char* dir : {"examples/schedules", "docs/tutorial"})
        for (const auto& e : std::filesystem::directory_iterator(test::sourceDir() + "/" + dir))
            if (e.path().string().ends_with(".sched.yaml") && e.path().filename().string().find("broken") == std::string::npos)
                files.push_back(e.path().string());
    std::sort(files.begin(), files.end());
    return files;
}

sched::Program openProgram(const std::string& path)
{
    auto o = sched::openSchedule(path, [](const std::string& t, const std::string& dir) { return hw::resolveTarget(t, dir); });
    EXPECT_TRUE(o.ok()) << o.errorText();
    return o ? o->program : sched::Program{};
}

} // namespace

TEST(Interval, RangeIsBoundsOverChosenSlotRanges)
{
    lower::IndexPool ix;
    const auto i = ix.slot(0), j = ix.slot(1);
    const auto e = ix.add(ix.mul(i, 16), ix.mul(j, -2));  // 16 i - 2 j
    EXPECT_EQ(ix.range(e, {{1, 1}, {0, 3}}), (Interval{10, 16, 2}));  // 16, 14, 12, 10
    EXPECT_EQ(ix.bounds(e, {4, 4}), (std::pair<int64_t, int64_t>{-6, 48}));
    const auto d = ix.div(ix.addConst(i, -3), 4);          // floor((i - 3) / 4)
    EXPECT_EQ(ix.range(d, {{0, 2}}), (Interval{-1, -1}));
    EXPECT_EQ(ix.range(d, {{0, 7}}), (Interval{-1, 1}));
    // a strided tile clips exactly: 4 j.outer + 2 over j.outer in [0, 1] is {2, 6}; below 6, {2}
    const auto strided = ix.addConst(ix.mul(j, 4), 2);
    EXPECT_EQ(ix.range(strided, {{0, 0}, {0, 1}}), (Interval{2, 6, 4}));
    EXPECT_EQ(ix.range(strided, {{0, 0}, {0, 1}}).within(0, 5), Interval::point(2));
    EXPECT_EQ(Interval::point(2).hull(Interval::point(6)), (Interval{2, 6, 4}));
    const auto md = ix.mod(i, 4);
    EXPECT_EQ(ix.range(md, {{5, 6}}), (Interval{1, 2}));  // one period: exact
    EXPECT_EQ(ix.range(md, {{3, 6}}), (Interval{0, 3}));  // wraps: the whole period
    EXPECT_EQ(ix.range(ix.min(i, ix.constant(5)), {{3, 9}}), (Interval{3, 5}));
    EXPECT_EQ(floorDiv(-7, 2), -4);
    EXPECT_EQ(floorMod(-7, 2), 1);
}

TEST(Interval, BoxArithmetic)
{
    Box b = Box::none(2);
    EXPECT_TRUE(b.empty());
    const int64_t p[] = {3, 4}, q[] = {1, 9}, r[] = {2, 5};
    b.include(p);
    b.include(q);
    EXPECT_EQ(boxText("A", b), "A[1:4, 4:10]");
    EXPECT_EQ(b.stride(), 5);  // rows 1 and 3, columns 4 and 9
    b.include(r);
    EXPECT_EQ(b.stride(), 1);
    EXPECT_EQ(b.elements(), 3 * 6);
    EXPECT_TRUE(b.contains(p));
    EXPECT_EQ(boxText("A", b.clipped({2, 8})), "A[1, 4:8]");
    EXPECT_EQ(boxText("A", b.clipped({1, 8})), "A (nothing)");
    EXPECT_EQ(boxText("A", Box::whole({2, 3})), "A[0:2, 0:3]");
}

TEST(TileModel, TheSeedsTiledMatmul)
{
    const TileModel m = TileModel::build(std::make_shared<const lower::LoopNest>(
        lower::lower(openProgram(test::sourceDir() + "/examples/schedules/matmul_f32_tiled.sched.yaml"))));
    ASSERT_TRUE(m.ok()) << m.message();
    ASSERT_EQ(m.outerLoops().size(), 2u);
    EXPECT_EQ(m.outerLoops()[0].name, "i.outer");
    EXPECT_EQ(m.outerLoops()[1].name, "j.outer");
    EXPECT_EQ(m.positions(), 16);
    EXPECT_EQ(m.loopValues(6), (std::vector<int64_t>{1, 2}));
    EXPECT_EQ(boxText("C", m.outputTile(6)), "C[16:32, 32:48]");
    const auto* a = m.input("A");
    ASSERT_TRUE(a);
    EXPECT_EQ(a->homeLevel, "DRAM");
    const auto ra = m.residents(*a, 6);
    ASSERT_EQ(ra.size(), 1u);
    EXPECT_EQ(ra[0].level, "SRAM");
    EXPECT_EQ(boxText("A", ra[0].box), "A[16:32, 0:64]");
    EXPECT_EQ(ra[0].bytes, 16 * 64 * 4);
    EXPECT_FALSE(ra[0].prefetches);
}

TEST(TileModel, ADoubleBufferPrefetchesTheNextTile)
{
    const TileModel m = TileModel::build(std::make_shared<const lower::LoopNest>(
        lower::lower(openProgram(test::sourceDir() + "/docs/tutorial/matmul_4_double_buffered.sched.yaml"))));
    ASSERT_TRUE(m.ok()) << m.message();
    const auto rb = m.residents(*m.input("B"), 3);  // i.outer 0, j.outer 3: next is i.outer 1, j.outer 0
    ASSERT_EQ(rb.size(), 1u);
    EXPECT_TRUE(rb[0].prefetches);
    EXPECT_EQ(boxText("B", rb[0].box), "B[0:64, 48:64]");
    EXPECT_EQ(boxText("B", rb[0].next), "B[0:64, 0:16]");
    EXPECT_FALSE(m.residents(*m.input("B"), 15)[0].prefetches);  // the last tile has no next
}

TEST(TileModel, MatchesTheInterpreterOnEveryExampleAndTutorialSchedule)
{
    int files = 0;
    for (const std::string& f : scheduleFiles()) {
        sched::Program p = openProgram(f);
        if (!p.kernel)
            continue;
        checkAgainstInterpreter(p, f);
        ++files;
    }
    EXPECT_GE(files, 20);
}

TEST(TileModel, APartialPanelOfBlocksUsesFewerPeColumns)
{
    // matmul 128x120x128 on gemmini-16x16, 16-column panels: the last panel is 8 columns wide.
    const TileModel m = TileModel::build(std::make_shared<const lower::LoopNest>(
        lower::lower(openProgram(test::sourceDir() + "/examples/schedules/gemmini_matmul_int8_128x120.sched.yaml"))));
    ASSERT_TRUE(m.ok()) << m.message();
    EXPECT_EQ(m.arrayDim(), 16);
    EXPECT_TRUE(m.weightStationary());
    ASSERT_EQ(m.positions(), 8);  // j.outer
    const auto first = m.arrayBlocks(0);
    ASSERT_EQ(first.size(), 8u);  // i.outer: eight 16x16 blocks of C, each over k.outer's 8 steps
    EXPECT_EQ(boxText("C", first[0].out), "C[0:16, 0:16]");
    EXPECT_EQ(boxText("C", first[7].out), "C[112:128, 0:16]");
    for (const auto& b : first) {
        EXPECT_EQ(b.peRows, 16);
        EXPECT_EQ(b.peCols, 16);
        EXPECT_EQ(b.instructions, 8);
    }
    const auto last = m.arrayBlocks(7);
    ASSERT_EQ(last.size(), 8u);
    EXPECT_EQ(boxText("C", last[3].out), "C[48:64, 112:120]");
    EXPECT_EQ(last[3].rows, 16);
    EXPECT_EQ(last[3].cols, 8);
    EXPECT_EQ(last[3].depth, 16);
    EXPECT_EQ(last[3].peRows, 16);  // weight-stationary: the 16 x 8 block of weights
    EXPECT_EQ(last[3].peCols, 8);
}

TEST(TileModel, ArrayBlocksCoverEachTileAndCountTheModelsComputes)
{
    // On every Gemmini example: the blocks of a position make up its output tile, none is
    // larger than the array, and the instructions over all positions are the cost model's
    // compute instructions.
    int checked = 0;
    for (const std::string& f : scheduleFiles()) {
        if (f.find("gemmini_") == std::string::npos)
            continue;
        const sched::Program p = openProgram(f);
        auto nest = std::make_shared<const lower::LoopNest>(lower::lower(p));
        const TileModel m = TileModel::build(nest);
        ASSERT_TRUE(m.ok()) << f << ": " << m.message();
        const auto report = analysis::analyze(*nest, *nest->target);
        // Tensorized or not, the tile model and the cost model agree on whether the array runs.
        ASSERT_EQ(m.arrayDim() > 0, report.array.has_value()) << f;
        if (!report.array)
            continue;  // the tutorial's first Gemmini steps run on the host
        int64_t computes = 0;
        for (int64_t pos = 0; pos < m.positions(); ++pos) {
            Box hull = Box::none(m.output().shape.size());
            for (const auto& b : m.arrayBlocks(pos)) {
                EXPECT_LE(b.rows, m.arrayDim()) << f;
                EXPECT_LE(b.cols, m.arrayDim()) << f;
                EXPECT_LE(b.peRows, m.arrayDim()) << f;
                hull = hull.hull(b.out);
                computes += b.instructions;
            }
            EXPECT_EQ(boxText("O", hull), boxText("O", m.outputTile(pos))) << f << " position " << pos;
        }
        EXPECT_EQ(computes, report.array->instructions.compute) << f;
        ++checked;
    }
    EXPECT_GE(checked, 5);
}

TEST(TileModel, NoArrayBlocksWithoutTensorize)
{
    const TileModel m = TileModel::build(std::make_shared<const lower::LoopNest>(
        lower::lower(openProgram(test::sourceDir() + "/examples/schedules/matmul_f32_tiled.sched.yaml"))));
    ASSERT_TRUE(m.ok());
    EXPECT_EQ(m.arrayDim(), 0);
    EXPECT_TRUE(m.arrayBlocks(0).empty());
}

struct RandomCase {
    const char* kernel;
    std::map<std::string, int64_t> params;
};

class RandomTiles : public ::testing::TestWithParam<RandomCase> {};

TEST_P(RandomTiles, MatchTheInterpreter)
{
    const RandomCase& c = GetParam();
    auto kernel = ir::loadKernelFile(test::kernelPath(c.kernel), c.params);
    ASSERT_TRUE(kernel.ok()) << kernel.errorText();
    sched::Program initial = sched::Program::initial(std::make_shared<const ir::Kernel>(*kernel), test::builtinTarget("cortex-m7"));
    int positions = 0;
    for (int i = 0; i < 60; ++i) {
        test::Rng rng(0x7115 + i * 104729);
        sched::Program p = test::randomSchedule(initial, rng, 2 + static_cast<int>(rng.below(10)));
        std::string trace;
        for (const auto& s : p.trace)
            trace += "\n  " + sched::describe(s);
        positions += checkAgainstInterpreter(p, std::string(c.kernel) + " #" + std::to_string(i) + trace);
        if (HasFailure())
            return;
        // The same with its caches sliding where they can (cache_read's slide).
        sched::Program slid = test::withSlides(p);
        if (slid.trace != p.trace)
            checkAgainstInterpreter(slid, std::string(c.kernel) + " #" + std::to_string(i) + " with slides" + trace);
        if (HasFailure())
            return;
    }
    EXPECT_GT(positions, 60);  // the schedules did cut the outputs into tiles
}

// A sliding cache: each step's region is the window, the fetched part the rows new at that step,
// and the fetched parts add up to the bytes the interpreter moves from DRAM.
TEST(Tiles, SlidingCacheShowsWhatEachStepFetchesAndKeeps)
{
    const sched::Program p = openProgram(test::sourceDir() + "/examples/schedules/conv2d_int8_tflite_slide.sched.yaml");
    auto nest = std::make_shared<const lower::LoopNest>(lower::lower(p));
    const TileModel m = TileModel::build(nest);
    ASSERT_TRUE(m.ok()) << m.message();
    ASSERT_EQ(m.positions(), 16);  // one step per output row: the loop the cache slides along
    const analysis::TileInput* in = m.input("I");
    ASSERT_TRUE(in);
    int64_t fetched = 0;
    for (int64_t pos = 0; pos < m.positions(); ++pos) {
        const auto regions = m.residents(*in, pos);
        ASSERT_EQ(regions.size(), 1u);
        const analysis::ResidentRegion& r = regions[0];
        EXPECT_TRUE(r.slides);
        EXPECT_TRUE(r.exact);
        fetched += r.fetched.elements();
        if (pos == 0) {
            EXPECT_EQ(boxText("I", r.box), "I[0, 0:2, 0:16, 0:16]");
            EXPECT_EQ(boxText("I", r.fetched), "I[0, 0:2, 0:16, 0:16]");
        } else if (pos == 5) {
            EXPECT_EQ(boxText("I", r.box), "I[0, 4:7, 0:16, 0:16]");
            EXPECT_EQ(boxText("I", r.fetched), "I[0, 6, 0:16, 0:16]");
        } else if (pos == 15) {
            EXPECT_EQ(boxText("I", r.box), "I[0, 14:16, 0:16, 0:16]");
            EXPECT_TRUE(r.fetched.empty());  // the last row was fetched the step before
        }
    }
    const verify::InterpretResult run = verify::interpret(*nest, verify::makeInputs(*p.kernel, 3));
    ASSERT_TRUE(run.ok) << run.error;
    int64_t dram = 0;
    for (const auto& t : run.traffic.tensors)
        if (t.tensor == "I" && t.level == "DRAM")
            dram = t.readBytes;
    EXPECT_EQ(fetched, dram);  // int8: one byte per element
    EXPECT_EQ(dram, 16 * 16 * 16);
    EXPECT_GT(checkAgainstInterpreter(p, "conv2d_int8_tflite_slide"), 0);
}

INSTANTIATE_TEST_SUITE_P(Examples, RandomTiles,
                         ::testing::Values(RandomCase{"matmul_f32", {{"M", 5}, {"N", 6}, {"K", 7}}},
                                           RandomCase{"conv2d_int8", {{"H", 5}, {"W", 6}, {"C", 3}, {"K", 4}}},
                                           RandomCase{"conv2d_s2_int8", {{"H", 7}, {"W", 6}, {"C", 2}, {"K", 3}}},
                                           RandomCase{"depthwise_conv_int8", {{"H", 5}, {"W", 6}, {"C", 4}}},
                                           RandomCase{"dwsep_conv", {{"H", 5}, {"W", 6}, {"C", 3}, {"K", 4}}},
                                           RandomCase{"dense_int8", {{"B", 2}, {"IN", 9}, {"OUT", 5}}},
                                           RandomCase{"scaled_matmul", {}}),
                         [](const ::testing::TestParamInfo<RandomCase>& info) { return std::string(info.param.kernel); });
