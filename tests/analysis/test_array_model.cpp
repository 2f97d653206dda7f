// The PE-array model, by hand: instructions, array and host cycles, DMA rows over the bus, the
// PE state kept between instructions, the one-off initial row of an input offset, rows in the
// scratchpad and accumulator, and every diagnostic of the array.
#include "support/test_paths.h"

#include "analysis/cost_report.h"
#include "sched/schedule_file.h"

#include <gtest/gtest.h>

#include <functional>
#include <map>

using namespace loopscope;

namespace {

sched::Program program(const std::string& kernel, const std::map<std::string, int64_t>& params, const std::string& steps,
                       std::shared_ptr<const hw::Target> target = nullptr)
{
    auto k = ir::loadKernelFile(test::kernelPath(kernel), params);
    EXPECT_TRUE(k.ok()) << k.errorText();
    auto f = sched::parseScheduleFile("kernel: k.kernel.yaml\ntarget: gemmini-16x16\nsteps:\n" + steps, "t.sched.yaml");
    EXPECT_TRUE(f.ok()) << f.errorText();
    sched::ApplyResult r = sched::replay(std::make_shared<const ir::Kernel>(*k), target ? target : test::builtinTarget("gemmini-16x16"), f->steps);
    EXPECT_TRUE(r.ok()) << r.error().str();
    return r.program();
}

analysis::CostReport analyse(const sched::Program& p) { return analysis::analyze(lower::lower(p), *p.target); }

const analysis::LevelReport& level(const analysis::CostReport& r, const std::string& name)
{
    for (const auto& l : r.levels)
        if (l.name == name)
            return l;
    ADD_FAILURE() << "no level " << name;
    return r.levels[0];
}

std::vector<std::string> codes(const analysis::CostReport& r)
{
    std::vector<std::string> out;
    for (const auto& d : r.diagnostics)
        out.push_back(d.code);
    return out;
}

const analysis::CostDiagnostic* find(const analysis::CostReport& r, const std::string& code)
{
    for (const auto& d : r.diagnostics)
        if (d.code == code)
            return &d;
    return nullptr;
}

const std::map<std::string, int64_t> k32 = {{"M", 32}, {"N", 32}, {"K", 32}};

// 16-blocks of a 32^3 matmul, A and B cached per k.outer, C in the accumulator per j.outer.
const std::string kBlocked = R"(  - split: {loop: i, factor: 16}
  - split: {loop: j, factor: 16}
  - split: {loop: k, factor: 16}
  - reorder: {loops: [i.outer, j.outer, k.outer, i.inner, j.inner, k.inner]}
  - cache_read: {tensor: A, level: scratchpad, at: k.outer}
  - cache_read: {tensor: B, level: scratchpad, at: k.outer}
  - cache_write: {tensor: C, level: accumulator, at: j.outer}
)";
const std::string kWs = "  - tensorize: {loops: [i.inner, j.inner, k.inner], intrinsic: gemmini_matmul, dataflow: weight_stationary}\n";
const std::string kOs = "  - tensorize: {loops: [i.inner, j.inner, k.inner], intrinsic: gemmini_matmul, dataflow: output_stationary}\n";

} // namespace

TEST(ArrayModelByHand, WeightStationaryBlocks)
{
    analysis::CostReport r = analyse(program("matmul_int8_sym", k32, kBlocked + kWs));
    ASSERT_TRUE(r.array);
    const analysis::ArrayReport& a = *r.array;
    // 2 x 2 x 2 blocks: 8 computes of 16 cycles; every one loads its weights (the caches sit
    // between k.outer and the block, so no two computes run back to back).
    EXPECT_EQ(a.instructions.compute, 8);
    EXPECT_EQ(a.instructions.preload, 8);
    EXPECT_EQ(a.weightLoads, 8);
    EXPECT_EQ(a.arrayCycles, 8 * 16);
    // mvin: one per 16x16 tile of A and of B, 8 each; mvout: one per 16-row tile of C, 4;
    // config: one config_ld or config_st per copy (8 + 8 + 4) and config_ex; a flush to start,
    // a fence at the end.
    EXPECT_EQ(a.instructions.mvin, 16);
    EXPECT_EQ(a.instructions.mvout, 4);
    EXPECT_EQ(a.instructions.config, 21);
    EXPECT_EQ(a.instructions.fence, 1);
    EXPECT_EQ(a.instructions.flush, 1);
    EXPECT_EQ(a.instructions.total(), 58);
    // Host: loops 2 + 4 + 8 iterations x 10 cycles, 58 instructions and the fence x 2 cycles = 258:
    // more than the array's 128, so the host sets the pace.
    EXPECT_EQ(a.hostCycles, 258);
    EXPECT_EQ(r.cycles.compute, 258);
    // DMA: each A or B tile is 16 rows of 16 B (one 128-bit beat each) + 100 cycles of DRAM
    // latency: 8 x 116 twice; each C tile 16 rows of 64 B (4 beats) + 100: 4 x 164.
    EXPECT_EQ(r.cycles.transfer, 2 * 8 * 116 + 4 * 164);
    EXPECT_EQ(r.cycles.total, 258 + 2512);
    // The first k.outer overwrites the accumulator, the second adds to it: 4 of the 8 computes
    // read C (256 int32 each); all 8 write it; the store reads the 1024 results.
    EXPECT_EQ(level(r, "accumulator").readBytes, (4 * 256 + 1024) * 4);
    EXPECT_EQ(level(r, "accumulator").writeBytes, 8 * 256 * 4);
    EXPECT_DOUBLE_EQ(a.peUtilisation, 1.0);
    EXPECT_EQ(a.arrayMacs, 32768);
    EXPECT_EQ(a.usefulMacs, 32768);
    // Rows: A and B tiles of 16 rows each; C 16 rows of 16 int32.
    ASSERT_EQ(a.levels.size(), 2u);
    EXPECT_EQ(a.levels[0].name, "scratchpad");
    EXPECT_EQ(a.levels[0].peakRows, 32);
    EXPECT_EQ(a.levels[0].rows, 16384);
    EXPECT_EQ(a.levels[1].peakRows, 16);
    // DMA bytes per tensor and level pair.
    std::map<std::string, int64_t> transfers;
    for (const auto& t : r.transfers)
        transfers[t.tensor + " " + t.from + " " + t.to] = t.bytes;
    EXPECT_EQ(transfers, (std::map<std::string, int64_t>{{"A DRAM scratchpad", 2048}, {"B DRAM scratchpad", 2048}, {"C accumulator DRAM", 4096}}));
}

TEST(ArrayModelByHand, OutputStationaryKeepsPartialSumsAcrossTheReduction)
{
    // A and B per j.outer: the computes of one output block follow each other along k.outer,
    // the sums stay in the PEs and leave once, overwriting the accumulator.
    std::string steps = kBlocked;
    for (auto pos = steps.find("at: k.outer"); pos != std::string::npos; pos = steps.find("at: k.outer"))
        steps.replace(pos, 11, "at: j.outer");
    analysis::CostReport r = analyse(program("matmul_int8_sym", k32, steps + kOs));
    ASSERT_TRUE(r.array);
    EXPECT_EQ(r.array->instructions.compute, 8);
    EXPECT_EQ(r.array->weightLoads, 4);  // one bias (zero) preload per output block
    EXPECT_EQ(level(r, "accumulator").writeBytes, 4 * 256 * 4);
    EXPECT_EQ(level(r, "accumulator").readBytes, 1024 * 4);  // the store only
    // A 16x32 tile is two column blocks: two mvins; so is B's 32x16 (two 16-row runs).
    EXPECT_EQ(r.array->instructions.mvin, 4 * 2 + 4 * 2);
}

TEST(ArrayModelByHand, OffsetFoldsIntoAnInitialRowPreparedOnce)
{
    // matmul_int8 has (A + 128): the accumulator starts from init[j] = 128 x sum_k B[k, j], a row
    // the host computes once per set of weights, and mvin3 repeats into every tile row.
    analysis::CostReport r = analyse(program("matmul_int8", k32, kBlocked + kWs));
    ASSERT_TRUE(r.array);
    // Prepare: 32 + 32 x 32 loop iterations x 10 cycles, 32 inits + 1024 loads + 1024 updates.
    EXPECT_EQ(r.array->prepareCycles, 1056 * 10 + 32 + 2048);
    // Not in the kernel's cycles; the initial rows are: 4 tiles x (16 rows x 4 beats + 100).
    EXPECT_EQ(r.cycles.transfer, 2512 + 4 * 164);
    EXPECT_EQ(r.array->instructions.mvin, 16 + 4);
    // Every compute accumulates now (the tile starts from the row): 8 x 256 reads.
    EXPECT_EQ(level(r, "accumulator").readBytes, (8 * 256 + 1024) * 4);
    // The row's traffic is C's (the output's initial value) in DRAM.
    std::map<std::string, int64_t> transfers;
    for (const auto& t : r.transfers)
        transfers[t.tensor + " " + t.from + " " + t.to] = t.bytes;
    EXPECT_EQ(transfers.at("C DRAM accumulator"), 1024 * 4);
}

TEST(ArrayModelByHand, PaddedConvolutionCountsTheHaloButCreditsOnlyRealMacs)
{
    // 3x3 conv, 4x4 image, 16 channels in and out: the halo's MACs run on the array but the PE
    // utilisation credits only the kernel's (TFLite skips padded terms).
    sched::Program p = program("conv2d_int8", {{"H", 4}, {"W", 4}, {"C", 16}, {"K", 16}}, R"(  - reorder: {loops: [n, oh, r, s, ow, k, c]}
  - cache_read: {tensor: I, level: scratchpad, at: root}
  - cache_read: {tensor: F, level: scratchpad, at: root}
  - cache_write: {tensor: O, level: accumulator, at: root}
  - tensorize: {loops: [ow, k, c], intrinsic: gemmini_matmul, dataflow: weight_stationary}
)");
    analysis::CostReport r = analyse(p);
    ASSERT_TRUE(r.array);
    EXPECT_EQ(r.array->instructions.compute, 4 * 9);
    EXPECT_EQ(r.array->arrayMacs, 36 * 4 * 16 * 16);  // each compute: 4 pixels x 16 x 16
    // Valid (oh, r) pairs: 2 + 3 + 3 + 2 = 10, likewise (ow, s): 100 of 144 window positions.
    EXPECT_EQ(r.array->usefulMacs, 10 * 10 * 16 * 16);
    EXPECT_EQ(r.macs, r.array->usefulMacs);
    EXPECT_NEAR(r.array->peUtilisation, 25600.0 / (36 * 4096), 1e-12);
    // The halo (a 6x6 padded image around 4x4) is filled: 36 - 16 = 20 pixels x 16 channels.
    std::map<std::string, int64_t> transfers;
    for (const auto& t : r.transfers)
        transfers[t.tensor + " " + t.from + " " + t.to] = t.bytes;
    EXPECT_EQ(transfers.at("I DRAM scratchpad"), 16 * 16 + 20 * 16);
}

TEST(ArrayDiagnostics, IdleRowsAndColumns)
{
    // 8 rows in OS: half the PE rows idle; N = 24: the edge block of j uses 8 columns.
    analysis::CostReport r = analyse(program("matmul_int8_sym", {{"M", 8}, {"N", 24}, {"K", 16}}, R"(  - split: {loop: j, factor: 16}
  - reorder: {loops: [j.outer, i, j.inner, k]}
  - cache_read: {tensor: A, level: scratchpad, at: root}
  - cache_read: {tensor: B, level: scratchpad, at: root}
  - cache_write: {tensor: C, level: accumulator, at: root}
  - tensorize: {loops: [i, j.inner, k], intrinsic: gemmini_matmul, dataflow: output_stationary}
)"));
    const auto* rows = find(r, "idle-pe-rows");
    ASSERT_TRUE(rows);
    EXPECT_EQ(rows->severity, Severity::Hint);
    EXPECT_EQ(rows->message, "i spans 8 of the 16 PE rows in output_stationary; the other 8 idle in every instruction");
    EXPECT_EQ(rows->step, 5);
    const auto* cols = find(r, "idle-pe-cols");
    ASSERT_TRUE(cols);
    EXPECT_EQ(cols->message, "edge blocks of j.inner use 8 of the 16 PE columns (a partial block); an extent that is a multiple of 16 keeps them busy");
    EXPECT_EQ(cols->loops, (std::vector<std::string>{"j.inner"}));
}

TEST(ArrayDiagnostics, ScratchpadOverCapacityInRows)
{
    // A 128 x 2048 int8 tile is 256 KiB, all 16384 rows; B adds 2048 more.
    analysis::CostReport r = analyse(program("matmul_int8_sym", {{"M", 128}, {"N", 16}, {"K", 2048}}, R"(  - split: {loop: i, factor: 16}
  - split: {loop: k, factor: 16}
  - reorder: {loops: [i.outer, k.outer, i.inner, j, k.inner]}
  - cache_read: {tensor: A, level: scratchpad, at: root}
  - cache_read: {tensor: B, level: scratchpad, at: root}
  - cache_write: {tensor: C, level: accumulator, at: root}
  - tensorize: {loops: [i.inner, j, k.inner], intrinsic: gemmini_matmul, dataflow: weight_stationary}
)"));
    const analysis::CostDiagnostic* d = nullptr;
    for (const auto& e : r.diagnostics)
        if (e.code == "over-capacity" && e.message.find("rows") != std::string::npos)
            d = &e;
    ASSERT_TRUE(d) << ::testing::PrintToString(codes(r));
    EXPECT_EQ(d->severity, Severity::Error);
    EXPECT_EQ(d->message, "scratchpad needs 18432 rows at once but has 16384 (4 banks of 4096 rows of 16 B; a buffer takes whole rows): A_scratchpad 16384 rows, "
                          "B_scratchpad 2048 rows");
    EXPECT_TRUE(r.hasErrors());
}

TEST(ArrayDiagnostics, NarrowChannelsTakeWholeRows)
{
    // Three input channels: every pixel of the input takes a 16-byte row (3 bytes used), so rows
    // overflow where bytes would not.
    sched::Program p = program("conv2d_int8", {{"H", 96}, {"W", 200}, {"C", 3}, {"K", 16}}, R"(  - split: {loop: ow, factor: 16}
  - reorder: {loops: [n, oh, r, s, ow.outer, ow.inner, k, c]}
  - cache_read: {tensor: I, level: scratchpad, at: root}
  - cache_read: {tensor: F, level: scratchpad, at: root}
  - cache_write: {tensor: O, level: accumulator, at: oh}
  - tensorize: {loops: [ow.inner, k, c], intrinsic: gemmini_matmul, dataflow: weight_stationary}
)");
    analysis::CostReport r = analyse(p);
    EXPECT_LT(level(r, "scratchpad").usedBytes, level(r, "scratchpad").capacityBytes);  // 98 x 202 x 3 B = 58 KiB
    ASSERT_TRUE(r.array);
    EXPECT_EQ(r.array->levels[0].peakRows, 98 * 202 + 3 * 3 * 3);
    bool rows = false;
    for (const auto& d : r.diagnostics)
        rows = rows || (d.code == "over-capacity" && d.message.rfind("scratchpad needs 19823 rows at once but has 16384", 0) == 0);
    EXPECT_TRUE(rows) << ::testing::PrintToString(codes(r));
}

TEST(ArrayDiagnostics, DmaRowWiderThanTheLimit)
{
    // A DMA limited to 32 bytes per row cannot move an accumulator row (16 x int32 = 64 B).
    hw::Target t = *test::builtinTarget("gemmini-16x16");
    t.compute.peArray->dmaMaxBytes = 32;
    auto target = std::make_shared<const hw::Target>(t);
    analysis::CostReport r = analyse(program("matmul_int8_sym", k32, kBlocked + kWs, target));
    const auto* d = find(r, "dma-row-too-wide");
    ASSERT_TRUE(d);
    EXPECT_EQ(d->severity, Severity::Error);
    EXPECT_EQ(d->message, "C_accumulator moves rows of 64 bytes (16 x int32); one mvin or mvout moves at most 32 bytes per row (dma_max_bytes)");
    EXPECT_EQ(d->tensors, (std::vector<std::string>{"C"}));
    // The built-in target's 64 bytes are enough.
    EXPECT_FALSE(find(analyse(program("matmul_int8_sym", k32, kBlocked + kWs)), "dma-row-too-wide"));
}

TEST(ArrayDiagnostics, TransfersDoubleBufferingCannotHide)
{
    // matmul_int8 128^3 in 16-column panels: each panel's accumulator tile moves its initial row
    // in and its results out (2 x (128 rows x 4 beats + 100) cycles) while the array computes
    // 64 blocks (1024 cycles): transfer-bound.
    analysis::CostReport r = analyse(program("matmul_int8", {{"M", 128}, {"N", 128}, {"K", 128}}, R"(  - split: {loop: i, factor: 16}
  - split: {loop: j, factor: 16}
  - split: {loop: k, factor: 16}
  - reorder: {loops: [j.outer, k.outer, i.outer, i.inner, j.inner, k.inner]}
  - unroll: {loop: i.outer}
  - cache_read: {tensor: A, level: scratchpad, at: root}
  - cache_read: {tensor: B, level: scratchpad, at: j.outer}
  - cache_write: {tensor: C, level: accumulator, at: j.outer}
  - double_buffer: {tensor: B, level: scratchpad}
  - double_buffer: {tensor: C, level: accumulator}
  - tensorize: {loops: [i.inner, j.inner, k.inner], intrinsic: gemmini_matmul, dataflow: weight_stationary}
)"));
    const auto* d = find(r, "transfer-bound");
    ASSERT_TRUE(d);
    EXPECT_EQ(d->message,
              "double buffering C_accumulator cannot hide its transfer: 1224 cycles per tile against 1024 cycles of compute; the loop is transfer-bound (larger tiles "
              "raise the compute per byte)");
}
