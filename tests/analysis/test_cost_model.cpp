// The cost model against figures computed by hand from the documented formulas
// (design.md, "The cost model contract"; core/analysis/analyze.cpp), on kernels small enough
// to count every loop iteration, element and cycle on paper; exact counting by
// sumOfProducts; and the JSON of 'loopscope-cli analyze'.
//
// Formulas used below (the rate model: cortex-m7 without its issue model unless stated: loop overhead 2 cycles, DRAM bw 1 B/cycle,
// latency 40, 100 pJ/B; SRAM bw 4, latency 2, 5 pJ/B, innermost; 25 pJ/MAC; 400 MHz;
// alignment 32 B; float32 1 MAC/cycle, int8 2; 4 SIMD lanes):
//   compute  = sum over non-unrolled loops of iterations x overhead (vectorized loops: per
//              vector of simd_lanes) + MACs / rate (scalar 1, vectorized min(peak, lanes))
//   transfer = per copy: bytes / min(bandwidth of both levels) + latency of the outer level
//              per execution; per direct access to a level that is not the innermost:
//              element bytes / bandwidth + latency
//   total    = compute + transfer - hidden (double buffering only)
//   energy   = sum over levels (read + write bytes) x pJ/B + MACs x pJ/MAC
#include "support/temp_dir.h"
#include "support/test_paths.h"

#include "analysis/cost_report.h"
#include "analysis/lattice_count.h"
#include "analysis/nest_count.h"
#include "ir/kernel.h"
#include "lower/loop_nest.h"
#include "sched/program.h"
#include "sched/schedule_file.h"
#include "target_loader.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>

using namespace loopscope;
namespace fs = std::filesystem;

namespace {

// ---- helpers --------------------------------------------------------------------------------

std::string dataDir() { return test::sourceDir() + "/tests/data/analysis/"; }

/// A built-in target, or a target file of tests/data/analysis when the name ends in .yaml. The
/// formulas here are the rate model's (a target without `issue:`): the built-in CPU targets are
/// used with their issue model off. The issue model's own hand-worked cases are in
/// test_issue_model.cpp.
std::shared_ptr<const hw::Target> targetNamed(const std::string& name)
{
    if (!name.ends_with(".yaml")) {
        hw::Target t = *test::builtinTarget(name);
        t.issue.present = false;
        return std::make_shared<const hw::Target>(std::move(t));
    }
    auto t = hw::loadTargetFile(dataDir() + name);
    if (!t) {
        ADD_FAILURE() << t.errorText();
        return nullptr;
    }
    return std::make_shared<const hw::Target>(*t);
}

/// tests/data/analysis/<name>.kernel.yaml if it exists, else the usual kernel path.
std::string kernelFile(const std::string& name)
{
    std::string mine = dataDir() + name + ".kernel.yaml";
    return fs::exists(mine) ? mine : test::kernelPath(name);
}

/// The program of `steps` (the YAML list items of a schedule file's `steps:`, one per line)
/// on a kernel with size overrides. Adds a failure and returns the unscheduled program when
/// something does not load or replay.
sched::Program program(const std::string& kernel, const std::map<std::string, int64_t>& params, const std::string& target,
                       const std::string& steps)
{
    auto k = ir::loadKernelFile(kernelFile(kernel), params);
    if (!k) {
        ADD_FAILURE() << k.errorText();
        return {};
    }
    auto kp = std::make_shared<const ir::Kernel>(*k);
    auto tp = targetNamed(target);
    sched::Program initial = sched::Program::initial(kp, tp);
    if (steps.empty())
        return initial;
    auto file = sched::parseScheduleFile("kernel: k.kernel.yaml\ntarget: t\nsteps:\n" + steps, "inline.sched.yaml");
    if (!file) {
        ADD_FAILURE() << file.errorText();
        return initial;
    }
    auto r = sched::replay(kp, tp, file->steps);
    if (!r.ok()) {
        ADD_FAILURE() << r.error().str();
        return initial;
    }
    return r.program();
}

analysis::CostReport analyse(const sched::Program& p)
{
    return analysis::analyze(lower::lower(p), *p.target);
}

analysis::CostReport analyse(const std::string& kernel, const std::map<std::string, int64_t>& params, const std::string& target,
                             const std::string& steps)
{
    return analyse(program(kernel, params, target, steps));
}

const analysis::LevelReport& level(const analysis::CostReport& r, const std::string& name)
{
    for (const auto& l : r.levels)
        if (l.name == name)
            return l;
    ADD_FAILURE() << "no level " << name;
    static const analysis::LevelReport none;
    return none;
}

/// "name shape loop bytes[ x2][ home]" of every buffer listed at a level's peak, sorted.
std::vector<std::string> buffers(const analysis::LevelReport& l)
{
    std::vector<std::string> out;
    for (const auto& b : l.buffers) {
        std::string shape;
        for (size_t i = 0; i < b.shape.size(); ++i)
            shape += (i ? "x" : "") + std::to_string(b.shape[i]);
        out.push_back(b.name + " " + shape + " " + b.loop + " " + std::to_string(b.bytes) + (b.doubleBuffered ? " x2" : "")
                      + (b.home ? " home" : ""));
    }
    std::sort(out.begin(), out.end());
    return out;
}

/// "tensor@level read/write" for every traffic entry, in report order.
std::vector<std::string> traffic(const analysis::CostReport& r)
{
    std::vector<std::string> out;
    for (const auto& t : r.tensors)
        out.push_back(t.name + "@" + t.level + " " + std::to_string(t.readBytes) + "/" + std::to_string(t.writeBytes));
    return out;
}

using Strings = std::vector<std::string>;

// ---- sumOfProducts ----------------------------------------------------------------------------

analysis::Factor factor(std::vector<int> vars, std::function<int64_t(const int64_t*)> f)
{
    return analysis::Factor{std::move(vars), std::move(f)};
}

TEST(SumOfProducts, NoFactorsIsTheProductOfTheExtents)
{
    EXPECT_EQ(analysis::sumOfProducts({0, 1, 2}, {2, 3, 5}, {}), 30);
    EXPECT_EQ(analysis::sumOfProducts({}, {}, {}), 1);  // the empty product
    EXPECT_EQ(analysis::sumOfProducts({1}, {7, 4}, {}), 4);  // only listed variables count
}

TEST(SumOfProducts, IndependentVariablesMultiply)
{
    // sum_{a<3} sum_{b<4} (a+1)(b+1) = (1+2+3) * (1+2+3+4) = 6 * 10 = 60
    std::vector<analysis::Factor> fs = {factor({0}, [](const int64_t* v) { return v[0] + 1; }),
                                        factor({1}, [](const int64_t* v) { return v[1] + 1; })};
    EXPECT_EQ(analysis::sumOfProducts({0, 1}, {3, 4}, fs), 60);
    // A variable no factor mentions multiplies by its extent: (0+1+2+3) * 5 = 30.
    EXPECT_EQ(analysis::sumOfProducts({0, 1}, {4, 5}, {factor({0}, [](const int64_t* v) { return v[0]; })}), 30);
}

TEST(SumOfProducts, IndependentGroupsAreSummedNotEnumeratedTogether)
{
    // Three independent variables of extent 1000: sum of (v+1) each = 500500, cubed. The
    // factorised count evaluates each factor 1000 times, not 10^9 times.
    int64_t calls = 0;
    std::vector<analysis::Factor> fs;
    for (int v = 0; v < 3; ++v)
        fs.push_back(factor({v}, [v, &calls](const int64_t* x) {
            ++calls;
            return x[v] + 1;
        }));
    EXPECT_EQ(analysis::sumOfProducts({0, 1, 2}, {1000, 1000, 1000}, fs), 500500LL * 500500LL * 500500LL);
    EXPECT_EQ(calls, 3000);
}

TEST(SumOfProducts, SharedVariablesAreEnumeratedTogether)
{
    // #{(a, b) : a < 3, b < 4, a <= b} = 4 + 3 + 2 = 9
    EXPECT_EQ(analysis::sumOfProducts({0, 1}, {3, 4}, {factor({0, 1}, [](const int64_t* v) -> int64_t { return v[0] <= v[1]; })}), 9);
    // A chain a == b, b == c links all three: 2 assignments of 2^3 hold.
    std::vector<analysis::Factor> chain = {factor({0, 1}, [](const int64_t* v) -> int64_t { return v[0] == v[1]; }),
                                           factor({1, 2}, [](const int64_t* v) -> int64_t { return v[1] == v[2]; })};
    EXPECT_EQ(analysis::sumOfProducts({0, 1, 2}, {2, 2, 2}, chain), 2);
    // Group {a, b} with factor a + b, times group {c} with factor c:
    // sum_{a<2,b<3}(a+b) = (0+1+2) + (1+2+3) = 9; sum_{c<4} c = 6; 9 * 6 = 54.
    std::vector<analysis::Factor> mixed = {factor({0, 1}, [](const int64_t* v) { return v[0] + v[1]; }),
                                           factor({2}, [](const int64_t* v) { return v[2]; })};
    EXPECT_EQ(analysis::sumOfProducts({0, 1, 2}, {2, 3, 4}, mixed), 54);
}

TEST(SumOfProducts, AGuardSummedInClosedFormEqualsItsEnumeration)
{
    // condFactor of a guard linear in the slots between constant bounds sums along its last
    // variable in closed form (Factor::along); the same guard evaluated point by point must give
    // the same count: positive, negative and zero coefficients, one or both bounds, bounds that
    // cut the box anywhere or nowhere, alone and beside a second guard of the same variables.
    std::mt19937 rng(11);
    auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    int closedForms = 0;
    for (int trial = 0; trial < 400; ++trial) {
        lower::IndexPool ix;
        const int slots = pick(1, 4);
        std::vector<int64_t> extents;
        std::vector<int> vars;
        for (int s = 0; s < slots; ++s) {
            extents.push_back(pick(1, 7));
            vars.push_back(s);
        }
        lower::IndexId expr = ix.constant(pick(-6, 6));
        for (int s = 0; s < slots; ++s)
            expr = ix.add(expr, ix.mul(ix.slot(s), pick(-3, 3)));
        lower::Cond cond;
        cond.expr = expr;
        const int bounds = pick(1, 3);  // 1: lo, 2: hi, 3: both
        if (bounds & 1)
            cond.lo = ix.constant(pick(-8, 8));
        if (bounds & 2)
            cond.hi = ix.constant(pick(-8, 12));
        analysis::Factor closed = analysis::condFactor(ix, cond);
        closedForms += closed.along != nullptr;
        analysis::Factor enumerated = closed;
        enumerated.along = nullptr;
        const int64_t expected = analysis::sumOfProducts(vars, extents, {enumerated});
        EXPECT_EQ(analysis::sumOfProducts(vars, extents, {closed}), expected) << "trial " << trial;
        // Brute force, independently of sumOfProducts.
        int64_t brute = 0;
        std::vector<int64_t> v(slots, 0);
        for (;;) {
            const int64_t x = ix.eval(expr, v.data());
            int64_t lo = 0, hi = 0;
            const bool holds = (cond.lo == lower::kNoIndex || (ix.isConst(cond.lo, &lo), x >= lo))
                               && (cond.hi == lower::kNoIndex || (ix.isConst(cond.hi, &hi), x <= hi));
            brute += holds;
            int s = 0;
            while (s < slots && ++v[s] == extents[s])
                v[s++] = 0;
            if (s == slots)
                break;
        }
        EXPECT_EQ(expected, brute) << "trial " << trial;
        // With a second guard on the same variables the group has two factors: enumerated.
        lower::Cond other;
        other.expr = ix.slot(0);
        other.hi = ix.constant(pick(0, 5));
        EXPECT_EQ(analysis::sumOfProducts(vars, extents, {closed, analysis::condFactor(ix, other)}),
                  analysis::sumOfProducts(vars, extents, {enumerated, analysis::condFactor(ix, other)}))
            << "trial " << trial;
    }
    EXPECT_EQ(closedForms, 400);  // every guard here is linear between constants
}

TEST(SumOfProducts, ZeroExtentsAndZeroFactorsGiveZero)
{
    EXPECT_EQ(analysis::sumOfProducts({0, 1}, {3, 0}, {}), 0);
    EXPECT_EQ(analysis::sumOfProducts({0, 1}, {0, 3}, {factor({0}, [](const int64_t*) { return 5; })}), 0);
    EXPECT_EQ(analysis::sumOfProducts({0, 1}, {3, 4}, {factor({0, 1}, [](const int64_t*) { return 0; })}), 0);
    // A guard that never holds in one group zeroes the independent other group too.
    std::vector<analysis::Factor> fs = {factor({0}, [](const int64_t* v) -> int64_t { return v[0] > 10; }),
                                        factor({1}, [](const int64_t* v) { return v[1] + 1; })};
    EXPECT_EQ(analysis::sumOfProducts({0, 1}, {3, 4}, fs), 0);
}

TEST(SumOfProducts, FactorsWithoutVariablesAreConstants)
{
    EXPECT_EQ(analysis::sumOfProducts({}, {}, {factor({}, [](const int64_t*) { return 5; })}), 5);
    EXPECT_EQ(analysis::sumOfProducts({0}, {3}, {factor({}, [](const int64_t*) { return 2; })}), 6);
    // 2 * 7 constants, times 2 * 3 assignments = 84.
    std::vector<analysis::Factor> fs = {factor({}, [](const int64_t*) { return 2; }), factor({}, [](const int64_t*) { return 7; })};
    EXPECT_EQ(analysis::sumOfProducts({0, 1}, {2, 3}, fs), 84);
    // Constant times a group: 3 * (0+1+2+3) = 18.
    std::vector<analysis::Factor> gs = {factor({}, [](const int64_t*) { return 3; }), factor({0}, [](const int64_t* v) { return v[0]; })};
    EXPECT_EQ(analysis::sumOfProducts({0}, {4}, gs), 18);
}

// ---- the unscheduled matmul -------------------------------------------------------------------

TEST(CostModelByHand, NaiveMatmul4x4x4)
{
    // for i<4, j<4: acc in a register; for k<4: a = A[i,k], b = B[k,j] from DRAM; C[i,j] = acc.
    analysis::CostReport r = analyse("matmul_f32", {{"M", 4}, {"N", 4}, {"K", 4}}, "cortex-m7", "");
    EXPECT_EQ(r.kernel, "matmul_f32");
    EXPECT_EQ(r.target, "cortex-m7");
    EXPECT_EQ(r.macs, 64);
    // Loop iterations: i 4 + j 16 + k 64 = 84, x 2 cycles = 168; 64 MACs at 1/cycle.
    EXPECT_EQ(r.cycles.compute, 168 + 64);
    // 64 + 64 loads and 16 stores, each a direct DRAM access of 4 B: 4/1 + 40 = 44 cycles.
    EXPECT_EQ(r.cycles.transfer, 144 * 44);
    EXPECT_EQ(r.cycles.total, 232 + 6336);  // no double buffering: they add
    EXPECT_EQ(r.cycles.overlapRatio, 0.0);
    EXPECT_DOUBLE_EQ(r.latencyMs, 6568 / (400 * 1000.0));
    // DRAM: 128 loads x 4 B read, 16 stores x 4 B written; (512 + 64) x 100 pJ + 64 x 25 pJ.
    EXPECT_NEAR(r.energyUj, (576 * 100 + 64 * 25) * 1e-6, 1e-12);
    ASSERT_EQ(r.levels.size(), 2u);
    EXPECT_EQ(r.levels[0].name, "DRAM");
    EXPECT_EQ(r.levels[1].name, "SRAM");
    EXPECT_EQ(r.levels[0].capacityBytes, 8 << 20);
    EXPECT_EQ(r.levels[1].capacityBytes, 512 << 10);
    EXPECT_EQ(r.levels[0].usedBytes, 3 * 64);  // the three home tensors
    EXPECT_EQ(buffers(r.levels[0]), (Strings{"A 4x4 root 64 home", "B 4x4 root 64 home", "C 4x4 root 64 home"}));
    EXPECT_EQ(r.levels[0].readBytes, 512);
    EXPECT_EQ(r.levels[0].writeBytes, 64);
    EXPECT_EQ(r.levels[1].usedBytes, 0);
    EXPECT_TRUE(r.levels[1].buffers.empty());
    EXPECT_EQ(r.levels[1].readBytes + r.levels[1].writeBytes, 0);
    EXPECT_EQ(traffic(r), (Strings{"A@DRAM 256/0", "B@DRAM 256/0", "C@DRAM 0/64"}));
    EXPECT_EQ(r.bounds.computeCycles, 64);
    EXPECT_EQ(r.bounds.compulsoryBytes, 3 * 64);
    // S = 8 registers + 512 KiB / 4 B words: 2mnk/sqrt(S) - 2S < 0, so the bound is 0.
    ASSERT_TRUE(r.bounds.ioLowerBoundBytes.has_value());
    EXPECT_EQ(*r.bounds.ioLowerBoundBytes, 0);
    EXPECT_TRUE(r.diagnostics.empty()) << r.diagnostics.front().message;
}

TEST(CostModelByHand, UnrolledLoopsCostNoOverhead)
{
    // Same nest with k unrolled: the 64 k iterations cost nothing; 168 - 128 = 40 cycles of
    // overhead remain. Traffic and transfers do not change.
    analysis::CostReport r = analyse("matmul_f32", {{"M", 4}, {"N", 4}, {"K", 4}}, "cortex-m7", "  - unroll: {loop: k}\n");
    EXPECT_EQ(r.cycles.compute, 40 + 64);
    EXPECT_EQ(r.cycles.transfer, 6336);
    EXPECT_EQ(r.cycles.total, 104 + 6336);
}

// ---- caches, occupancy, alignment -------------------------------------------------------------

const char* kCachedSteps = "  - split: {loop: i, factor: 2}\n"
                           "  - cache_read: {tensor: A, level: SRAM, at: i.outer}\n"
                           "  - cache_read: {tensor: B, level: SRAM, at: root}\n"
                           "  - cache_write: {tensor: C, level: SRAM, at: i.outer}\n";

TEST(CostModelByHand, CachedMatmulOccupancyTrafficCyclesEnergy)
{
    // M=4, N=4, K=3. B_SRAM [3,4] at root; per i.outer (2 iterations): A_SRAM [2,3] filled,
    // C_SRAM [2,4] computed and written back. All loads and the store hit SRAM (innermost).
    analysis::CostReport r = analyse("matmul_f32", {{"M", 4}, {"N", 4}, {"K", 3}}, "cortex-m7", kCachedSteps);
    EXPECT_EQ(r.macs, 48);
    // Occupancy: all three are nested, so they add; each rounded up to 32 B:
    // B_SRAM 48 -> 64, A_SRAM 24 -> 32, C_SRAM 32 -> 32.
    const auto& sram = level(r, "SRAM");
    EXPECT_EQ(sram.usedBytes, 128);
    EXPECT_EQ(buffers(sram), (Strings{"A_SRAM 2x3 i.outer 32", "B_SRAM 3x4 root 64", "C_SRAM 2x4 i.outer 32"}));
    // Home tensors are not rounded: 48 + 48 + 64.
    const auto& dram = level(r, "DRAM");
    EXPECT_EQ(dram.usedBytes, 160);
    EXPECT_EQ(buffers(dram), (Strings{"A 4x3 root 48 home", "B 3x4 root 48 home", "C 4x4 root 64 home"}));
    // Traffic: each input copied once (48 B), C written back once (64 B); 48 loads each of
    // A_SRAM and B_SRAM (192 B), 16 stores into C_SRAM (64 B) and the write-back read (64 B).
    EXPECT_EQ(traffic(r), (Strings{"A@DRAM 48/0", "A@SRAM 192/48", "B@DRAM 48/0", "B@SRAM 192/48", "C@DRAM 0/64", "C@SRAM 64/64"}));
    EXPECT_EQ(dram.readBytes, 96);
    EXPECT_EQ(dram.writeBytes, 64);
    EXPECT_EQ(sram.readBytes, 448);
    EXPECT_EQ(sram.writeBytes, 160);
    // Compute: i.outer 2 + i.inner 4 + j 16 + k 48 = 70 iterations x 2 = 140; + 48 MACs.
    EXPECT_EQ(r.cycles.compute, 188);
    // Transfer: copy B 48 B / min(1, 4) + 40 = 88; copy A 2 x (24 + 40) = 128;
    // write-back C 2 x (32 + 40) = 144. SRAM accesses by the core cost nothing extra.
    EXPECT_EQ(r.cycles.transfer, 88 + 128 + 144);
    EXPECT_EQ(r.cycles.total, 188 + 360);
    EXPECT_EQ(r.cycles.overlapRatio, 0.0);
    EXPECT_DOUBLE_EQ(r.latencyMs, 548 / 400000.0);
    // (96 + 64) x 100 + (448 + 160) x 5 + 48 x 25 = 16000 + 3040 + 1200 pJ.
    EXPECT_NEAR(r.energyUj, 20240e-6, 1e-12);
    EXPECT_EQ(r.bounds.computeCycles, 48);
    EXPECT_EQ(r.bounds.compulsoryBytes, 160);
}

TEST(CostModelByHand, DoubleBufferCountsTwiceAndHidesTransfers)
{
    analysis::CostReport single = analyse("matmul_f32", {{"M", 4}, {"N", 4}, {"K", 3}}, "cortex-m7", kCachedSteps);
    analysis::CostReport dbl = analyse("matmul_f32", {{"M", 4}, {"N", 4}, {"K", 3}}, "cortex-m7",
                                       std::string(kCachedSteps) + "  - double_buffer: {tensor: A, level: SRAM}\n");
    // A_SRAM: 24 B rounded to 32, twice = 64; SRAM 64 + 64 + 32.
    const auto& sram = level(dbl, "SRAM");
    EXPECT_EQ(sram.usedBytes, 160);
    EXPECT_EQ(buffers(sram), (Strings{"A_SRAM 2x3 i.outer 64 x2", "B_SRAM 3x4 root 64", "C_SRAM 2x4 i.outer 32"}));
    // Counts do not change, nor do compute and transfer.
    EXPECT_EQ(traffic(dbl), traffic(single));
    EXPECT_EQ(dbl.cycles.compute, 188);
    EXPECT_EQ(dbl.cycles.transfer, 360);
    // Per tile (2 tiles): compute in the body of i.outer = (8 + 32 + 96 + 48) / 2 = 92;
    // copy of A = 128 / 2 = 64. The second tile's copy hides behind the first tile's compute:
    // hidden = (2 - 1) x min(92, 64) = 64.
    EXPECT_EQ(dbl.cycles.total, 188 + 360 - 64);
    EXPECT_DOUBLE_EQ(dbl.cycles.overlapRatio, 64.0 / 360.0);
    EXPECT_GT(dbl.cycles.overlapRatio, 0.0);
    EXPECT_LT(dbl.cycles.total, dbl.cycles.compute + dbl.cycles.transfer);
    EXPECT_EQ(single.cycles.total, single.cycles.compute + single.cycles.transfer);
}

TEST(CostModelByHand, DoubleBufferWithOnlySramAccessesInTheBody)
{
    // M=4, N=1, K=8; A tiles [2,8] double-buffered; B and C whole in SRAM.
    analysis::CostReport r = analyse("matmul_f32", {{"M", 4}, {"N", 1}, {"K", 8}}, "cortex-m7",
                                     "  - split: {loop: i, factor: 2}\n"
                                     "  - cache_read: {tensor: A, level: SRAM, at: i.outer}\n"
                                     "  - double_buffer: {tensor: A, level: SRAM}\n"
                                     "  - cache_read: {tensor: B, level: SRAM, at: root}\n"
                                     "  - cache_write: {tensor: C, level: SRAM, at: root}\n");
    // Compute: i.outer 2 + i.inner 4 + j 4 + k 32 = 42 iterations x 2 = 84; + 32 MACs = 116.
    EXPECT_EQ(r.cycles.compute, 116);
    // Transfer: A 2 x (64 + 40) = 208; B 32 + 40 = 72; C write-back 16 + 40 = 56.
    EXPECT_EQ(r.cycles.transfer, 336);
    // Per tile: compute (8 + 8 + 64 + 32) / 2 = 56 < copy 104: hidden = 1 x 56.
    EXPECT_EQ(r.cycles.total, 116 + 336 - 56);
    EXPECT_DOUBLE_EQ(r.cycles.overlapRatio, 56.0 / 336.0);
}

TEST(CostModelByHand, SiblingBuffersDoNotAdd)
{
    // dwsep_conv: stage D caches I at its root, stage O caches PW at its root. The two nests
    // run one after the other, so SRAM holds the larger of the two buffers, not both.
    analysis::CostReport r = analyse("dwsep_conv", {{"H", 4}, {"W", 4}, {"C", 2}, {"K", 2}}, "cortex-m7",
                                     "  - cache_read: {stage: D, tensor: I, level: SRAM, at: root}\n"
                                     "  - cache_read: {stage: O, tensor: PW, level: SRAM, at: root}\n");
    // I_SRAM [4,4,2] float32 = 128 B; PW_SRAM [2,2] = 16 B -> 32 B.
    const auto& sram = level(r, "SRAM");
    EXPECT_EQ(sram.usedBytes, 128);
    EXPECT_EQ(buffers(sram), (Strings{"I_SRAM 4x4x2 root 128"}));
    // Every tensor has its home in DRAM, the intermediate D included:
    // I 128 + DW 3x3x2x4 = 72 + D 128 + PW 16 + O 128 = 472.
    const auto& dram = level(r, "DRAM");
    EXPECT_EQ(dram.usedBytes, 472);
    EXPECT_EQ(buffers(dram), (Strings{"D 4x4x2 root 128 home", "DW 3x3x2 root 72 home", "I 4x4x2 root 128 home",
                                      "O 4x4x2 root 128 home", "PW 2x2 root 16 home"}));
    // Only one of them: the other sibling alone.
    analysis::CostReport pwOnly = analyse("dwsep_conv", {{"H", 4}, {"W", 4}, {"C", 2}, {"K", 2}}, "cortex-m7",
                                          "  - cache_read: {stage: O, tensor: PW, level: SRAM, at: root}\n");
    EXPECT_EQ(level(pwOnly, "SRAM").usedBytes, 32);
    EXPECT_EQ(buffers(level(pwOnly, "SRAM")), (Strings{"PW_SRAM 2x2 root 32"}));
}

TEST(CostModelByHand, AccumulatorInSramIsCountedAndAligned)
{
    // M=3, N=3, K=2 with k outermost: C_acc float32[9] in SRAM (36 B -> 64 B).
    analysis::CostReport r = analyse("matmul_f32", {{"M", 3}, {"N", 3}, {"K", 2}}, "cortex-m7", "  - reorder: {loops: [k, i]}\n");
    const auto& sram = level(r, "SRAM");
    EXPECT_EQ(sram.usedBytes, 64);
    EXPECT_EQ(buffers(sram), (Strings{"C_acc 9 root 64"}));
    // Init writes 9, 18 updates read and write, the store reads 9: 27 x 4 each way.
    EXPECT_EQ(sram.readBytes, 108);
    EXPECT_EQ(sram.writeBytes, 108);
    // Loops: init j 3 + i 9; k 2, j 6, i 18; store j 3 + i 9 = 50 iterations x 2; + 18 MACs.
    EXPECT_EQ(r.cycles.compute, 100 + 18);
    // DRAM: B[k, j] hoisted out of i: 6 loads; A 18 loads; 9 stores; 33 x (4 + 40).
    EXPECT_EQ(r.cycles.transfer, 33 * 44);
    EXPECT_EQ(traffic(r), (Strings{"A@DRAM 72/0", "B@DRAM 24/0", "C@DRAM 0/36", "C@SRAM 108/108"}));
}

TEST(CostModelByHand, PartialTilesMoveOnlyWhatTheyTouch)
{
    // M=5 split by 2: tiles of 2, 2 and 1 rows of A (K=3) are copied: 15 elements, 60 B.
    analysis::CostReport r = analyse("matmul_f32", {{"M", 5}, {"N", 1}, {"K", 3}}, "cortex-m7",
                                     "  - split: {loop: i, factor: 2}\n"
                                     "  - cache_read: {tensor: A, level: SRAM, at: i.outer}\n");
    EXPECT_EQ(buffers(level(r, "SRAM")), (Strings{"A_SRAM 2x3 i.outer 32"}));
    EXPECT_EQ(traffic(r), (Strings{"A@DRAM 60/0", "A@SRAM 60/60", "B@DRAM 60/0", "C@DRAM 0/20"}));
    // Transfer: copies 60 / 1 + 3 x 40 = 180; B loads 15 x 44 = 660; C stores 5 x 44 = 220.
    EXPECT_EQ(r.cycles.transfer, 180 + 660 + 220);
    // Compute: i.outer 3 + i.inner 6 + (guarded) j 5 + k 15 = 29 iterations x 2; + 15 MACs.
    EXPECT_EQ(r.cycles.compute, 58 + 15);
    EXPECT_EQ(r.macs, 15);
}

// ---- compute rate -----------------------------------------------------------------------------

TEST(CostModelByHand, VectorizedLoopRateAndOverheadPerVector)
{
    // matmul_int8 M=2, N=8, K=3, order i, k, j. int8 peak 2 MACs/cycle, 4 lanes.
    std::map<std::string, int64_t> params = {{"M", 2}, {"N", 8}, {"K", 3}};
    analysis::CostReport scalar = analyse("matmul_int8", params, "cortex-m7", "  - reorder: {loops: [k, j]}\n");
    analysis::CostReport vec = analyse("matmul_int8", params, "cortex-m7", "  - reorder: {loops: [k, j]}\n  - vectorize: {loop: j}\n");
    // Scalar: i 2 + init j 16 + k 6 + j 48 + store j 16 = 88 iterations x 2 = 176; 48 MACs at
    // min(2, 1) = 1 per cycle. The accumulator (8 elements, j not unrolled) is in SRAM.
    EXPECT_EQ(scalar.cycles.compute, 176 + 48);
    // Vectorized: every j loop goes 8 / 4 = 2 vectors per run: i 2 + init 4 + k 6 + j 12 +
    // store 4 = 28 x 2 = 56; 48 MACs at min(2, lanes) = 2 per cycle = 24.
    EXPECT_EQ(vec.cycles.compute, 56 + 24);
    // Transfer, the same for both: A 6 loads x (1 + 40), B 48 x 41, C 16 stores x (4 + 40).
    EXPECT_EQ(scalar.cycles.transfer, 6 * 41 + 48 * 41 + 16 * 44);
    EXPECT_EQ(vec.cycles.transfer, scalar.cycles.transfer);
    EXPECT_EQ(vec.bounds.computeCycles, 24);  // 48 MACs / 2
}

TEST(CostModelByHand, VectorRateIsCappedBySimdLanes)
{
    // wide-mac: int8 peak 8 MACs/cycle, but vectors of 4 lanes. A vectorized j of extent 16
    // goes 4 vectors of 4 lanes (that is what the loop overhead charges), so at most 4 MACs
    // per cycle: 16 MACs take 4 cycles, not 2.
    // Loops: i 1 + init 4 vectors + k 1 + j 4 vectors + store 4 vectors = 14 x 2 = 28.
    analysis::CostReport r = analyse("matmul_int8", {{"M", 1}, {"N", 16}, {"K", 1}}, "wide-mac.target.yaml",
                                     "  - reorder: {loops: [k, j]}\n  - vectorize: {loop: j}\n");
    EXPECT_EQ(r.macs, 16);
    EXPECT_EQ(r.cycles.compute, 28 + 16 / 4) << "a 4-lane vector loop was credited with more than 4 MACs per cycle";
}

TEST(CostModelByHand, GemminiScratchpadIsNotInnermostSoCoreAccessesCost)
{
    // matmul_int8 4x4x4 on gemmini, A and B in the scratchpad; the innermost level is the
    // accumulator, so each load from the scratchpad costs 1 B / 16 + 2 cycles.
    analysis::CostReport r = analyse("matmul_int8", {{"M", 4}, {"N", 4}, {"K", 4}}, "gemmini-16x16",
                                     "  - cache_read: {tensor: A, level: scratchpad, at: root}\n"
                                     "  - cache_read: {tensor: B, level: scratchpad, at: root}\n");
    // Compute: 84 iterations x 10 cycles of loop overhead; 64 scalar MACs at 1 per cycle.
    EXPECT_EQ(r.cycles.compute, 840 + 64);
    // Transfer: two copies of 16 B over min(16, 16) B/cycle + 100 = 101 each; 128 scratchpad
    // loads x 2.0625 = 264; 16 int32 stores to DRAM x (4/16 + 100) = 1604.
    EXPECT_EQ(r.cycles.transfer, 202 + 264 + 1604);
    EXPECT_EQ(r.cycles.total, 904 + 2070);
    EXPECT_DOUBLE_EQ(r.latencyMs, 2974 / (1000 * 1000.0));
    // Scratchpad buffers of 16 B, aligned to 16 B.
    EXPECT_EQ(level(r, "scratchpad").usedBytes, 32);
    // DRAM (32 + 64) x 160 + scratchpad (128 + 32) x 1.5 + 64 MACs x 0.5 pJ.
    EXPECT_NEAR(r.energyUj, (96 * 160 + 160 * 1.5 + 64 * 0.5) * 1e-6, 1e-12);
    // Compute bound: 64 / 256 MACs per cycle, rounded down.
    EXPECT_EQ(r.bounds.computeCycles, 0);
}

TEST(CostModelByHand, GemminiUnrolledRowsTimesVectorLanes)
{
    // matmul_int8 M=8, N=16, K=2 on gemmini, k outermost, i unrolled (8 PE rows), j vectorized
    // (16 lanes): 256 MACs at min(256, 16 x 8) = 128 per cycle = 2 cycles. Loop overhead
    // (10 per iteration, 1 vector of 16 per run of j): init 8, k 2, j 16, store 8 = 34 x 10.
    analysis::CostReport r = analyse("matmul_int8", {{"M", 8}, {"N", 16}, {"K", 2}}, "gemmini-16x16",
                                     "  - reorder: {loops: [k, i, j]}\n  - unroll: {loop: i}\n  - vectorize: {loop: j}\n");
    EXPECT_EQ(r.macs, 256);
    EXPECT_EQ(r.cycles.compute, 340 + 2);
    EXPECT_EQ(r.bounds.computeCycles, 1);
}

// ---- bounds and MACs --------------------------------------------------------------------------

TEST(CostModelByHand, PaddedConvMacsExcludeSkippedTerms)
{
    // Depthwise 3x3, H=3, W=2, C=2, same padding. Valid r per output row h: h=0 -> r in {1,2},
    // h=1 -> 3, h=2 -> 2: 7; valid s per column: 2 + 2 = 4. 7 x 4 x 2 channels = 56 of the
    // 3 x 2 x 2 x 9 = 108 terms.
    sched::Program p = program("depthwise_conv_int8", {{"H", 3}, {"W", 2}, {"C", 2}}, "cortex-m7", "");
    EXPECT_EQ(p.kernel->macs(), 108);
    analysis::CostReport r = analyse(p);
    EXPECT_EQ(r.macs, 56);
    EXPECT_EQ(r.bounds.computeCycles, 28);  // int8 at 2 per cycle
    // Compulsory: I 12 + F 18 + bias, mult, shift 3 x 2 x 4 = 24 + O 12 = 66 B.
    EXPECT_EQ(r.bounds.compulsoryBytes, 66);
    EXPECT_FALSE(r.bounds.ioLowerBoundBytes.has_value());
    // Compute: loops n 1 + h 3 + w 6 + c 12 + r 36, and s only where the row guard on h + r
    // holds (7 valid (h, r) pairs x w 2 x c 2 = 28 runs of 3) = 84: 142 x 2 = 284; 56 MACs.
    EXPECT_EQ(r.cycles.compute, 284 + 56);
    // Transfer: bias 12 x 44, I 56 x 41, F 56 x 41, O 12 x 41, mult 12 x 44, shift 12 x 44.
    EXPECT_EQ(r.cycles.transfer, 3 * 528 + 2 * 2296 + 492);
    EXPECT_EQ(traffic(r), (Strings{"I@DRAM 56/0", "F@DRAM 56/0", "bias@DRAM 48/0", "mult@DRAM 48/0", "shift@DRAM 48/0", "O@DRAM 0/12"}));

    // Stride 2: conv2d_s2 H=W=4, C=K=1 gives a 2x2 output. Valid rows: oh=0 -> r in {1,2},
    // oh=1 -> {0,1,2}: 5; columns likewise 5: 25 of 36 terms.
    analysis::CostReport s2 = analyse("conv2d_s2_int8", {{"H", 4}, {"W", 4}, {"C", 1}, {"K", 1}}, "cortex-m7", "");
    EXPECT_EQ(s2.macs, 25);
    EXPECT_EQ(s2.bounds.computeCycles, 12);  // 25 / 2 rounded down
    // The 3x3 window at stride 2 touches every input row: I 16 + F 9 + 12 + O 4 = 41 B.
    EXPECT_EQ(s2.bounds.compulsoryBytes, 41);
}

TEST(CostModelByHand, Stride2PointwiseTouchesEveryOtherRow)
{
    // O[oh, ow, k] += I[oh*2, ow*2, c] * F[c, k] on an 8x8x2 input: rows and columns 0, 2, 4,
    // 6 only, so 4 x 4 x 2 x 4 B = 128 B of I's 512; F 24 B; O 4x4x3 x 4 B = 192 B.
    analysis::CostReport r = analyse("pointwise_s2", {}, "cortex-m7", "");
    EXPECT_EQ(r.macs, 96);
    EXPECT_EQ(r.bounds.computeCycles, 96);
    EXPECT_EQ(r.bounds.compulsoryBytes, 128 + 24 + 192);
    EXPECT_EQ(level(r, "DRAM").readBytes + level(r, "DRAM").writeBytes, 96 * 8 + 192);
    // A stride is not the unit-coefficient index of a matmul.
    EXPECT_FALSE(r.bounds.ioLowerBoundBytes.has_value());
}

TEST(CostModelByHand, IoLowerBoundOnATinyFastMemory)
{
    // tiny-fast-memory: 4 registers + 48 B SRAM / 4 B = S = 16 words. M=N=K=8:
    // Q >= 2 x 512 / sqrt(16) - 2 x 16 = 256 - 32 = 224 words = 896 bytes.
    analysis::CostReport r = analyse("matmul_f32", {{"M", 8}, {"N", 8}, {"K", 8}}, "tiny-fast-memory.target.yaml", "");
    ASSERT_TRUE(r.bounds.ioLowerBoundBytes.has_value());
    EXPECT_EQ(*r.bounds.ioLowerBoundBytes, 896);
    EXPECT_EQ(r.bounds.compulsoryBytes, 3 * 256);
    // The unscheduled nest reads A and B per MAC: 2 x 512 x 4 + 64 x 4 written, above the bound.
    EXPECT_EQ(level(r, "DRAM").readBytes + level(r, "DRAM").writeBytes, 4096 + 256);
    // clock 100 MHz.
    EXPECT_DOUBLE_EQ(r.latencyMs, r.cycles.total / 100000.0);
}

TEST(CostModelByHand, IoLowerBoundOnlyForSingleStageMatmulLikeKernels)
{
    struct Case {
        const char* kernel;
        bool bound;
    } cases[] = {{"matmul_f32", true}, {"matmul_int8", true}, {"dense_int8", true}, {"pointwise_conv_int8", true},
                 {"conv2d_int8", false}, {"conv2d_s2_int8", false}, {"depthwise_conv_int8", false}, {"dwsep_conv", false}};
    for (const Case& c : cases) {
        std::map<std::string, int64_t> small;
        if (std::string(c.kernel) == "dwsep_conv")
            small = {{"H", 8}, {"W", 8}};
        analysis::CostReport r = analyse(c.kernel, small, "cortex-m7", "");
        EXPECT_EQ(r.bounds.ioLowerBoundBytes.has_value(), c.bound) << c.kernel;
    }
}

TEST(CostModelByHand, BoundsNeverBeatenOnTheHandCases)
{
    for (const char* steps : {"", kCachedSteps}) {
        analysis::CostReport r = analyse("matmul_f32", {{"M", 4}, {"N", 4}, {"K", 3}}, "cortex-m7", steps);
        EXPECT_GE(r.cycles.total, r.bounds.computeCycles);
        EXPECT_GE(level(r, "DRAM").readBytes + level(r, "DRAM").writeBytes, r.bounds.compulsoryBytes);
    }
}

// ---- another target ---------------------------------------------------------------------------

TEST(CostModelByHand, AnalyseALoweredNestOnAnotherTargetWithTheSameLevels)
{
    // The 4x4x4 naive nest lowered for cortex-m7, costed with cortex-m4's figures:
    // overhead 4/iteration, DRAM 1 B/cycle + 20 latency, 160 pJ/B, 50 pJ/MAC, 168 MHz.
    sched::Program p = program("matmul_f32", {{"M", 4}, {"N", 4}, {"K", 4}}, "cortex-m7", "");
    auto m4 = targetNamed("cortex-m4");
    ASSERT_TRUE(m4);
    analysis::CostReport r = analysis::analyze(lower::lower(p), *m4);
    EXPECT_EQ(r.target, "cortex-m4");
    EXPECT_EQ(r.cycles.compute, 84 * 4 + 64);
    EXPECT_EQ(r.cycles.transfer, 144 * 24);
    EXPECT_DOUBLE_EQ(r.latencyMs, (400 + 3456) / 168000.0);
    EXPECT_NEAR(r.energyUj, (576 * 160 + 64 * 50) * 1e-6, 1e-12);
    EXPECT_EQ(level(r, "SRAM").capacityBytes, 192 << 10);
}

// ---- loopscope-cli analyze --json -------------------------------------------------------------

struct CliRun {
    int exitCode = -1;
    std::string out, err;
};

std::string slurp(const fs::path& p)
{
    std::ifstream f(p, std::ios::binary);
    std::ostringstream s;
    s << f.rdbuf();
    return s.str();
}

std::string quote(const std::string& s)
{
    std::string out = "'";
    for (char c : s)
        out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

CliRun cli(const std::vector<std::string>& args)
{
    if (!fs::exists(LOOPSCOPE_CLI))
        ADD_FAILURE() << LOOPSCOPE_CLI << " does not exist: build the loopscope-cli target too";
    static int counter = 0;
    fs::path dir = test::processTempDir("loopscope_test_analysis");
    fs::create_directories(dir);
    fs::path out = dir / ("out" + std::to_string(counter));
    fs::path err = dir / ("err" + std::to_string(counter++));
    std::string cmd = quote(LOOPSCOPE_CLI);
    for (const auto& a : args)
        cmd += " " + quote(a);
    cmd += " >" + quote(out.string()) + " 2>" + quote(err.string()) + " </dev/null";
    int status = std::system(cmd.c_str());
    CliRun r;
    r.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = slurp(out);
    r.err = slurp(err);
    fs::remove(out);
    fs::remove(err);
    return r;
}

std::vector<std::string> exampleSchedules()
{
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(test::sourceDir() + "/examples/schedules"))
        if (e.path().string().ends_with(".sched.yaml"))
            out.push_back(e.path().string());
    std::sort(out.begin(), out.end());
    return out;
}

std::set<std::string> keysOf(const nlohmann::json& j)
{
    std::set<std::string> out;
    for (auto it = j.begin(); it != j.end(); ++it)
        out.insert(it.key());
    return out;
}

/// Problems with `j` against the documented schema of 'analyze --json'; empty when it fits.
std::string schemaProblems(const nlohmann::json& j)
{
    std::ostringstream p;
    using S = std::set<std::string>;
    auto isInt = [](const nlohmann::json& v) { return v.is_number_integer(); };
    auto isNum = [](const nlohmann::json& v) { return v.is_number(); };
    if (!j.is_object())
        return "not an object";
    // The predicted instructions of the exported code: null on an accelerator.
    const auto& in = j.value("instructions", nlohmann::json());
    if (!in.is_null()) {
        if (keysOf(in) != S{"predicted", "kernel", "copies", "per_mac", "breakdown", "events", "calibration"})
            p << "instructions keys: " << in.dump().substr(0, 200) << "\n";
        for (const char* k : {"predicted", "kernel", "copies"})
            if (!isInt(in.value(k, nlohmann::json())))
                p << "instructions." << k << " not an integer\n";
        if (!isNum(in.value("per_mac", nlohmann::json())))
            p << "instructions.per_mac not a number\n";
        const auto& bd = in.value("breakdown", nlohmann::json());
        if (!bd.is_object() || bd.empty())
            p << "instructions.breakdown not a non-empty object\n";
        else
            for (const auto& [name, v] : bd.items())
                if (!isInt(v))
                    p << "instructions.breakdown." << name << " not an integer\n";
        const auto& ev = in.value("events", nlohmann::json());
        if (!ev.is_object() || ev.empty())
            p << "instructions.events not a non-empty object\n";
        else
            for (const auto& [name, v] : ev.items())
                if (!isNum(v) || v.get<double>() <= 0)
                    p << "instructions.events." << name << " not a positive number\n";
        const auto& cal = in.value("calibration", nlohmann::json(0));
        if (!cal.is_null() && !cal.is_string())
            p << "instructions.calibration neither null nor a string\n";
    }
    S top = keysOf(j);
    const bool array = top.erase("array") > 0;  // tensorized schedules only
    if (top != S{"kernel", "target", "macs", "cycles", "latency_ms", "energy_uj", "levels", "tensors", "instructions", "bounds", "diagnostics"})
        p << "top-level keys: " << j.dump().substr(0, 200) << "\n";
    if (array) {
        const auto& a = j["array"];
        if (keysOf(a) != S{"dim", "dataflow", "array_cycles", "host_cycles", "prepare_cycles", "pe_utilisation", "peak_fraction", "array_macs", "weight_loads",
                           "instructions", "levels"})
            p << "array keys: " << a.dump().substr(0, 300) << "\n";
        if (!isInt(a.value("array_cycles", nlohmann::json())) || !isNum(a.value("pe_utilisation", nlohmann::json())))
            p << "array types\n";
        if (keysOf(a.value("instructions", nlohmann::json::object())) != S{"mvin", "mvout", "preload", "compute", "config", "flush", "fence", "total"})
            p << "array.instructions keys\n";
    }
    if (!j.value("kernel", nlohmann::json()).is_string() || !j.value("target", nlohmann::json()).is_string())
        p << "kernel/target not strings\n";
    if (!isInt(j.value("macs", nlohmann::json())))
        p << "macs not an integer\n";
    const auto& c = j.value("cycles", nlohmann::json::object());
    // issue_model: a CPU target with an issue model (where its compute cycles come from).
    const bool issue = c.contains("issue_model");
    if (keysOf(c) != (issue ? S{"total", "compute", "transfer", "overlap_ratio", "issue_model"} : S{"total", "compute", "transfer", "overlap_ratio"}))
        p << "cycles keys\n";
    if (issue) {
        const auto& m = c["issue_model"];
        if (keysOf(m) != S{"issue", "taken_branches", "loop_exits", "load_use", "units"} ||
            keysOf(m["units"]) != S{"alu", "memory", "mac", "fpu", "branch"})
            p << "cycles.issue_model keys\n";
        else if (!isInt(m["issue"]) || !isInt(m["loop_exits"]))
            p << "cycles.issue_model not integers\n";
    }
    for (const char* k : {"total", "compute", "transfer"})
        if (!isInt(c.value(k, nlohmann::json())))
            p << "cycles." << k << " not an integer\n";
    if (!c.value("overlap_ratio", nlohmann::json()).is_number_float())
        p << "overlap_ratio not a float\n";
    if (!isNum(j.value("latency_ms", nlohmann::json())) || !isNum(j.value("energy_uj", nlohmann::json())))
        p << "latency_ms/energy_uj not numbers\n";
    const auto& levels = j.value("levels", nlohmann::json());
    if (!levels.is_array() || levels.empty())
        p << "levels not a non-empty array\n";
    else
        for (const auto& l : levels) {
            S keys = keysOf(l);
            keys.erase("buffers");  // extra, allowed
            if (keys != S{"name", "capacity_bytes", "used_bytes", "read_bytes", "write_bytes"})
                p << "level keys: " << l.dump().substr(0, 200) << "\n";
            if (!l.value("name", nlohmann::json()).is_string())
                p << "level name\n";
            for (const char* k : {"capacity_bytes", "used_bytes", "read_bytes", "write_bytes"})
                if (!isInt(l.value(k, nlohmann::json())))
                    p << "level " << k << " not an integer\n";
        }
    const auto& tensors = j.value("tensors", nlohmann::json());
    if (!tensors.is_array())
        p << "tensors not an array\n";
    else
        for (const auto& t : tensors) {
            if (keysOf(t) != S{"name", "level", "read_bytes", "write_bytes"})
                p << "tensor keys: " << t.dump() << "\n";
            if (!t.value("name", nlohmann::json()).is_string() || !t.value("level", nlohmann::json()).is_string()
                || !isInt(t.value("read_bytes", nlohmann::json())) || !isInt(t.value("write_bytes", nlohmann::json())))
                p << "tensor types: " << t.dump() << "\n";
        }
    const auto& b = j.value("bounds", nlohmann::json::object());
    if (keysOf(b) != S{"compute_cycles", "compulsory_bytes", "io_lower_bound_bytes"})
        p << "bounds keys\n";
    if (!isInt(b.value("compute_cycles", nlohmann::json())) || !isInt(b.value("compulsory_bytes", nlohmann::json())))
        p << "bounds types\n";
    const auto& io = b.value("io_lower_bound_bytes", nlohmann::json(0.5));
    if (!io.is_null() && !isInt(io))
        p << "io_lower_bound_bytes neither null nor an integer\n";
    const auto& diags = j.value("diagnostics", nlohmann::json());
    if (!diags.is_array())
        p << "diagnostics not an array\n";
    else
        for (const auto& d : diags) {
            if (keysOf(d) != S{"severity", "code", "message", "step"})
                p << "diagnostic keys: " << d.dump() << "\n";
            std::string sev = d.value("severity", "");
            if (sev != "error" && sev != "warning" && sev != "hint")
                p << "severity " << sev << "\n";
            if (!d.value("code", nlohmann::json()).is_string() || !d.value("message", nlohmann::json()).is_string())
                p << "diagnostic code/message\n";
            const auto& step = d.value("step", nlohmann::json(0.5));
            if (!step.is_null() && !isInt(step))
                p << "step neither null nor an integer\n";
        }
    return p.str();
}

TEST(AnalyzeCli, JsonOfEveryExampleScheduleFitsTheSchemaAndEqualsTheReport)
{
    auto files = exampleSchedules();
    ASSERT_GE(files.size(), 8u);
    for (const auto& f : files) {
        SCOPED_TRACE(f);
        CliRun run = cli({"analyze", f, "--json"});
        ASSERT_EQ(run.exitCode, 0) << run.err;
        EXPECT_EQ(run.err, "");
        nlohmann::json j;
        ASSERT_NO_THROW(j = nlohmann::json::parse(run.out)) << run.out;
        std::string problems = schemaProblems(j);
        EXPECT_EQ(problems, "");
        if (!problems.empty())
            continue;
        // The same figures as the library's report.
        auto o = sched::openSchedule(f, [](const std::string& n, const std::string& d) { return hw::resolveTarget(n, d); });
        ASSERT_TRUE(o.ok()) << o.errorText();
        analysis::CostReport r = analyse(o->program);
        EXPECT_EQ(j["kernel"], r.kernel);
        EXPECT_EQ(j["target"], r.target);
        EXPECT_EQ(j["macs"], r.macs);
        EXPECT_EQ(j["cycles"]["total"], r.cycles.total);
        EXPECT_EQ(j["cycles"]["compute"], r.cycles.compute);
        EXPECT_EQ(j["cycles"]["transfer"], r.cycles.transfer);
        EXPECT_DOUBLE_EQ(j["cycles"]["overlap_ratio"].get<double>(), r.cycles.overlapRatio);
        EXPECT_DOUBLE_EQ(j["latency_ms"].get<double>(), r.latencyMs);
        EXPECT_DOUBLE_EQ(j["energy_uj"].get<double>(), r.energyUj);
        // Instructions are predicted for CPU targets; an accelerator's schedule has null.
        EXPECT_EQ(r.instructions.available, o->target->kind != "accelerator");
        if (r.instructions.available) {
            EXPECT_EQ(j["instructions"]["predicted"], r.instructions.predicted);
            EXPECT_EQ(j["instructions"]["kernel"], r.instructions.kernel);
            EXPECT_EQ(j["instructions"]["copies"], r.instructions.copies);
            for (const auto& [name, count] : r.instructions.breakdown)
                EXPECT_EQ(j["instructions"]["breakdown"][name], count) << name;
            // The events are the features' counts, by feature name; those not counted are left out.
            for (int f = 0; f < analysis::kInsnFeatureCount; ++f) {
                const char* name = analysis::insnFeatureName(static_cast<analysis::InsnFeature>(f));
                if (r.instructions.features.count[f] != 0)
                    EXPECT_DOUBLE_EQ(j["instructions"]["events"][name].get<double>(), r.instructions.features.count[f]) << name;
                else
                    EXPECT_FALSE(j["instructions"]["events"].contains(name)) << name;
            }
        } else {
            EXPECT_TRUE(j["instructions"].is_null());
        }
        // Levels outermost first, as in the target file.
        ASSERT_EQ(j["levels"].size(), o->target->levels.size());
        for (size_t l = 0; l < o->target->levels.size(); ++l) {
            EXPECT_EQ(j["levels"][l]["name"], o->target->levels[l].name);
            EXPECT_EQ(j["levels"][l]["capacity_bytes"], o->target->levels[l].sizeBytes);
            EXPECT_EQ(j["levels"][l]["used_bytes"], r.levels[l].usedBytes);
            EXPECT_EQ(j["levels"][l]["read_bytes"], r.levels[l].readBytes);
            EXPECT_EQ(j["levels"][l]["write_bytes"], r.levels[l].writeBytes);
        }
        ASSERT_EQ(j["tensors"].size(), r.tensors.size());
        for (size_t t = 0; t < r.tensors.size(); ++t) {
            EXPECT_EQ(j["tensors"][t]["name"], r.tensors[t].name);
            EXPECT_EQ(j["tensors"][t]["level"], r.tensors[t].level);
            EXPECT_EQ(j["tensors"][t]["read_bytes"], r.tensors[t].readBytes);
            EXPECT_EQ(j["tensors"][t]["write_bytes"], r.tensors[t].writeBytes);
        }
        EXPECT_EQ(j["bounds"]["compute_cycles"], r.bounds.computeCycles);
        EXPECT_EQ(j["bounds"]["compulsory_bytes"], r.bounds.compulsoryBytes);
        if (r.bounds.ioLowerBoundBytes)
            EXPECT_EQ(j["bounds"]["io_lower_bound_bytes"], *r.bounds.ioLowerBoundBytes);
        else
            EXPECT_TRUE(j["bounds"]["io_lower_bound_bytes"].is_null());
        ASSERT_EQ(j["diagnostics"].size(), r.diagnostics.size());
        for (size_t d = 0; d < r.diagnostics.size(); ++d) {
            EXPECT_EQ(j["diagnostics"][d]["code"], r.diagnostics[d].code);
            EXPECT_EQ(j["diagnostics"][d]["message"], r.diagnostics[d].message);
            if (r.diagnostics[d].step)
                EXPECT_EQ(j["diagnostics"][d]["step"], *r.diagnostics[d].step);
            else
                EXPECT_TRUE(j["diagnostics"][d]["step"].is_null());
        }
    }
}

TEST(AnalyzeCli, InlineHandCaseThroughTheCli)
{
    // The naive 4x4x4 matmul of NaiveMatmul4x4x4, written as a schedule file, on cortex-m7's
    // figures without its issue model (tests/data/analysis/cortex-m7-rate.yaml): the rate model.
    fs::path dir = test::processTempDir("loopscope_test_analysis");
    fs::create_directories(dir);
    fs::path file = dir / "naive4.sched.yaml";
    std::ofstream(file) << "kernel: " << test::sourceDir() << "/examples/kernels/matmul_f32.kernel.yaml\n"
                        << "target: " << dataDir() << "cortex-m7-rate.yaml\nparams: {M: 4, N: 4, K: 4}\nsteps: []\n";
    CliRun run = cli({"analyze", file.string(), "--json"});
    ASSERT_EQ(run.exitCode, 0) << run.err;
    auto j = nlohmann::json::parse(run.out);
    EXPECT_EQ(j["macs"], 64);
    EXPECT_EQ(j["cycles"]["total"], 6568);
    EXPECT_EQ(j["cycles"]["compute"], 232);
    EXPECT_EQ(j["cycles"]["transfer"], 6336);
    EXPECT_EQ(j["levels"][0]["name"], "DRAM");
    EXPECT_EQ(j["levels"][0]["used_bytes"], 192);
    EXPECT_EQ(j["levels"][1]["name"], "SRAM");
    EXPECT_EQ(j["bounds"]["io_lower_bound_bytes"], 0);
    EXPECT_TRUE(j["diagnostics"].empty());
    fs::remove(file);
}

TEST(AnalyzeCli, AnotherTargetWithTheSameLevelNames)
{
    std::string f = test::sourceDir() + "/examples/schedules/matmul_f32_tiled.sched.yaml";
    CliRun run = cli({"analyze", f, "--target", "cortex-m4", "--json"});
    ASSERT_EQ(run.exitCode, 0) << run.err;
    auto j = nlohmann::json::parse(run.out);
    EXPECT_EQ(schemaProblems(j), "");
    EXPECT_EQ(j["target"], "cortex-m4");
    EXPECT_EQ(j["levels"][0]["name"], "DRAM");
    EXPECT_EQ(j["levels"][1]["name"], "SRAM");
    EXPECT_EQ(j["levels"][1]["capacity_bytes"], 192 * 1024);
    // The same traffic (same nest), other cycles: on cortex-m7 the same schedule differs.
    CliRun m7 = cli({"analyze", f, "--json"});
    ASSERT_EQ(m7.exitCode, 0);
    auto k = nlohmann::json::parse(m7.out);
    EXPECT_EQ(j["tensors"], k["tensors"]);
    EXPECT_NE(j["cycles"]["total"], k["cycles"]["total"]);
    // Text output too.
    CliRun text = cli({"analyze", f, "--target", "cortex-m4"});
    EXPECT_EQ(text.exitCode, 0);
    EXPECT_NE(text.out.find("matmul_f32 on cortex-m4"), std::string::npos) << text.out;
    // An I/O lower bound of 0 says why (it read as a figure missing).
    EXPECT_EQ(j["bounds"]["io_lower_bound_bytes"], 0) << j["bounds"];
    EXPECT_NE(text.out.find("I/O lower bound 0 bytes (fits on chip: no bound beyond the compulsory traffic)"), std::string::npos) << text.out;
}

TEST(AnalyzeCli, TargetWithOtherLevelNamesFailsWithExitCode2)
{
    std::string f = test::sourceDir() + "/examples/schedules/matmul_f32_tiled.sched.yaml";
    for (bool json : {false, true}) {
        std::vector<std::string> args = {"analyze", f, "--target", "gemmini-16x16"};
        if (json)
            args.push_back("--json");
        CliRun run = cli(args);
        EXPECT_EQ(run.exitCode, 2);
        EXPECT_EQ(run.out, "");
        EXPECT_NE(run.err.find("gemmini-16x16"), std::string::npos) << run.err;
        EXPECT_NE(run.err.find("no memory level 'SRAM'"), std::string::npos) << run.err;
        EXPECT_NE(run.err.find("step 4 (cache_read)"), std::string::npos) << run.err;
    }
    CliRun unknown = cli({"analyze", f, "--target", "no-such-target"});
    EXPECT_EQ(unknown.exitCode, 2);
    EXPECT_NE(unknown.err.find("unknown target 'no-such-target'"), std::string::npos) << unknown.err;
}

TEST(AnalyzeCli, TargetErrorNamesTheStepPositionOnce)
{
    // The replay error already starts with "file:line:col:"; the CLI wraps it in a diagnostic
    // at the same position, so the position is printed twice.
    std::string f = test::sourceDir() + "/examples/schedules/matmul_f32_tiled.sched.yaml";
    CliRun run = cli({"analyze", f, "--target", "gemmini-16x16"});
    size_t first = run.err.find("matmul_f32_tiled.sched.yaml:8:5:");
    ASSERT_NE(first, std::string::npos) << run.err;
    EXPECT_EQ(run.err.find("matmul_f32_tiled.sched.yaml:8:5:", first + 1), std::string::npos) << run.err;
}

} // namespace
