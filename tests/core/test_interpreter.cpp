// The interpreter's traffic counts on schedules whose numbers can be worked out by hand, and
// its behaviour on a broken loop nest.
#include "support/test_paths.h"

#include "lower/loop_nest.h"
#include "sched/program.h"
#include "verify/interpreter.h"

#include <gtest/gtest.h>

using namespace loopscope;

namespace {

sched::Program program(const std::string& kernel, const std::map<std::string, int64_t>& params,
                       const std::string& target = "cortex-m7")
{
    auto k = ir::loadKernelFile(test::kernelPath(kernel), params);
    EXPECT_TRUE(k.ok()) << k.errorText();
    return sched::Program::initial(std::make_shared<const ir::Kernel>(*k), test::builtinTarget(target));
}

sched::Program applyAll(sched::Program p, const std::vector<sched::Step>& steps)
{
    for (const auto& s : steps) {
        auto r = sched::apply(p, s);
        EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().str());
        if (r.ok())
            p = r.program();
    }
    return p;
}

sched::Step split(const std::string& loop, int64_t factor)
{
    sched::Step s;
    s.primitive = sched::Primitive::Split;
    s.loops = {loop};
    s.factor = factor;
    return s;
}

sched::Step reorder(std::vector<std::string> loops)
{
    sched::Step s;
    s.primitive = sched::Primitive::Reorder;
    s.loops = std::move(loops);
    return s;
}

sched::Step cacheRead(const std::string& tensor, const std::string& level, const std::string& at,
                      const std::string& stage = "")
{
    sched::Step s;
    s.primitive = sched::Primitive::CacheRead;
    s.tensor = tensor;
    s.level = level;
    s.at = at;
    s.stage = stage;
    return s;
}

/// Bytes of one tensor in one level from a verified run.
std::pair<int64_t, int64_t> bytes(const verify::Traffic& t, const std::string& tensor, const std::string& level)
{
    for (const auto& e : t.tensors)
        if (e.tensor == tensor && e.level == level)
            return {e.readBytes, e.writeBytes};
    return {0, 0};
}

verify::Traffic traffic(const sched::Program& p)
{
    verify::VerifyResult r = verify::verifyProgram(p, 3);
    EXPECT_TRUE(r.ok) << r.message;
    return r.traffic;
}

TEST(InterpreterTraffic, UntiledMatmulReadsEveryOperandPerMac)
{
    auto t = traffic(program("matmul_f32", {}));
    const int64_t macs = 64 * 64 * 64;
    EXPECT_EQ(bytes(t, "A", "DRAM"), std::make_pair(macs * 4, int64_t{0}));
    EXPECT_EQ(bytes(t, "B", "DRAM"), std::make_pair(macs * 4, int64_t{0}));
    EXPECT_EQ(bytes(t, "C", "DRAM"), std::make_pair(int64_t{0}, int64_t{64 * 64 * 4}));
    // Levels are reported outermost first and add up over tensors.
    ASSERT_EQ(t.levels.size(), 2u);
    EXPECT_EQ(t.levels[0].name, "DRAM");
    EXPECT_EQ(t.levels[0].readBytes, 2 * macs * 4);
    EXPECT_EQ(t.levels[1].readBytes, 0);
}

TEST(InterpreterTraffic, SeedTiledMatmulCutsDramReadsSixteenfoldNotTwoHundredFiftySixfold)
{
    auto naive = traffic(program("matmul_f32", {}));
    auto tiled = traffic(applyAll(program("matmul_f32", {}),
                                  {split("i", 16), split("j", 16), reorder({"i.outer", "j.outer", "i.inner", "j.inner", "k"}),
                                   cacheRead("A", "SRAM", "j.outer"), cacheRead("B", "SRAM", "j.outer")}));
    // Each A tile (16 rows) is loaded once per j.outer: 64/16 = 4 times the tensor.
    EXPECT_EQ(bytes(tiled, "A", "DRAM").first, 4 * 64 * 64 * 4);
    EXPECT_EQ(bytes(tiled, "B", "DRAM").first, 4 * 64 * 64 * 4);
    EXPECT_EQ(bytes(naive, "A", "DRAM").first / bytes(tiled, "A", "DRAM").first, 16);
    // Copies write SRAM once per element moved; the MACs then read SRAM.
    EXPECT_EQ(bytes(tiled, "A", "SRAM"), std::make_pair(int64_t{64 * 64 * 64 * 4}, int64_t{4 * 64 * 64 * 4}));
}

TEST(InterpreterTraffic, PartialTilesMoveOnlyWhatExists)
{
    // M = 12 split by 5: tiles of 5, 5 and 2 rows; A cached per tile.
    auto t = traffic(applyAll(program("matmul_int8", {{"M", 12}, {"N", 4}, {"K", 6}}),
                              {split("i", 5), cacheRead("A", "SRAM", "i.outer")}));
    EXPECT_EQ(bytes(t, "A", "DRAM").first, 12 * 6 * 1);
    EXPECT_EQ(bytes(t, "A", "SRAM").second, 12 * 6 * 1);
}

TEST(InterpreterTraffic, ZeroPaddingCopiesOnlyTheTensor)
{
    // Whole input cached at root: the halo outside the image is never copied.
    auto t = traffic(applyAll(program("conv2d_int8", {{"H", 5}, {"W", 4}, {"C", 2}, {"K", 3}}),
                              {cacheRead("I", "SRAM", "root")}));
    EXPECT_EQ(bytes(t, "I", "DRAM").first, 5 * 4 * 2);
    // Row bands: 2 output rows need 4 input rows, clipped to the image at the edges.
    auto bands = traffic(applyAll(program("conv2d_int8", {{"H", 6}, {"W", 4}, {"C", 2}, {"K", 3}}),
                                  {split("oh", 2), cacheRead("I", "SRAM", "oh.outer")}));
    // bands: rows [-1..2]->[0..2] (3), [1..4] (4), [3..6]->[3..5] (3): 10 rows of 4x2.
    EXPECT_EQ(bytes(bands, "I", "DRAM").first, 10 * 4 * 2);
}

TEST(InterpreterTraffic, DoubleBufferingDoesNotChangeCounts)
{
    auto base = applyAll(program("matmul_f32", {{"M", 8}, {"N", 8}, {"K", 8}}), {split("i", 4), cacheRead("A", "SRAM", "i.outer")});
    sched::Step db;
    db.primitive = sched::Primitive::DoubleBuffer;
    db.tensor = "A";
    auto dbl = applyAll(base, {db});
    auto a = traffic(base);
    auto b = traffic(dbl);
    ASSERT_EQ(a.tensors.size(), b.tensors.size());
    for (size_t i = 0; i < a.tensors.size(); ++i) {
        EXPECT_EQ(a.tensors[i].readBytes, b.tensors[i].readBytes);
        EXPECT_EQ(a.tensors[i].writeBytes, b.tensors[i].writeBytes);
    }
}

TEST(InterpreterTraffic, FusedPipelineKeepsTheIntermediateOutOfDram)
{
    auto root = traffic(program("dwsep_conv", {{"H", 6}, {"W", 4}, {"C", 3}, {"K", 2}}));
    EXPECT_EQ(bytes(root, "D", "DRAM").second, 6 * 4 * 3 * 4);  // written once
    sched::Step at;
    at.primitive = sched::Primitive::ComputeAt;
    at.producer = "D";
    at.stage = "O";
    at.at = "h.outer";
    at.level = "SRAM";
    sched::Step sp = split("h", 2);
    sp.stage = "O";
    auto fused = traffic(applyAll(program("dwsep_conv", {{"H", 6}, {"W", 4}, {"C", 3}, {"K", 2}}), {sp, at}));
    EXPECT_EQ(bytes(fused, "D", "DRAM"), std::make_pair(int64_t{0}, int64_t{0}));
    // Each 2-row band of D is computed exactly once (1x1 consumer: no halo to recompute).
    EXPECT_EQ(bytes(fused, "D", "SRAM").second, 6 * 4 * 3 * 4);
}

TEST(InterpreterTraffic, RegisterBlockingHalvesOperandLoads)
{
    auto base = program("matmul_f32", {{"M", 8}, {"N", 8}, {"K", 8}});
    sched::Step tile;
    tile.primitive = sched::Primitive::Tile;
    tile.loops = {"i", "j"};
    tile.factors = {2, 2};
    sched::Step unrollI, unrollJ;
    unrollI.primitive = unrollJ.primitive = sched::Primitive::Unroll;
    unrollI.loops = {"i.inner"};
    unrollJ.loops = {"j.inner"};
    auto blocked = applyAll(base, {tile, reorder({"k", "i.inner", "j.inner"}), unrollI, unrollJ});
    auto t = traffic(blocked);
    // a = A[i, k] is loaded once per i.inner and reused across j.inner: half the MACs.
    EXPECT_EQ(bytes(t, "A", "DRAM").first, 8 * 8 * 8 * 4 / 2);
    // The 2x2 accumulator block is in registers: no SRAM traffic for C.
    EXPECT_EQ(bytes(t, "C", "SRAM"), std::make_pair(int64_t{0}, int64_t{0}));
    // Without unrolling the block is a buffer in SRAM, read and written per MAC.
    auto spilled = traffic(applyAll(base, {tile, reorder({"k", "i.inner", "j.inner"})}));
    EXPECT_EQ(bytes(spilled, "C", "SRAM").first, 8 * 8 * 8 * 4 + 8 * 8 * 4);
}

TEST(Interpreter, BrokenNestIsAnErrorNotACrash)
{
    auto p = program("matmul_f32", {{"M", 4}, {"N", 4}, {"K", 4}});
    lower::LoopNest nest = lower::lower(p);
    // Point the first load far outside its tensor.
    for (auto& s : nest.stmts)
        if (s.kind == lower::Stmt::Kind::Load) {
            s.index[0] = nest.index.constant(1000);
            break;
        }
    verify::InterpretResult r = verify::interpret(nest, verify::makeInputs(*p.kernel, 1));
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.error.find("outside buffer"), std::string::npos) << r.error;
}

} // namespace
