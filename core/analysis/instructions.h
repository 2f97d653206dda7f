// The instruction model: how many instructions the exported C executes on a Cortex-M, kernel
// and default-DMA-hook copies apart, predicted from the lowered nest and the C generator's own
// decisions (codegen/c_decisions.h). It counts events of the generated code exactly — loads,
// multiply-accumulates, pointer increments, loop iterations, guard checks, requantizations,
// hook calls, rows and memcpy instructions — and weighs each kind of event with a per-target
// coefficient: the instructions the compiler spends on one such event (hw::Target::calibration,
// fitted on qemu by `loopscope-cli calibrate`). docs/cost-model.md explains every feature.
#pragma once

#include "hw/target.h"
#include "lower/loop_nest.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace loopscope::analysis {

/// The kinds of events the model counts. Each is named in target files (calibration.coefficients).
enum class InsnFeature {
    Function,       ///< the kernel function: prologue, epilogue, constants set up once
    Load,           ///< a scalar load (LDR/LDRSB/LDRSH, VLDR)
    Store,          ///< a store of an output element or a spilled accumulator
    Mla,            ///< an integer multiply-accumulate (MLA)
    FpuOp,          ///< a floating-point operation (VMUL, VADD: a float MAC takes two)
    Alu,            ///< other integer arithmetic on values (an input offset, a subtraction)
    AccInit,        ///< setting an accumulator in a register to zero
    LoopIteration,  ///< an iteration of a loop the code keeps (compare and branch)
    LoopCounter,    ///< an iteration of a loop without a pointer to compare against (counter increment)
    LoopEntry,      ///< entering a loop (its counter or bound set up)
    StreamInit,     ///< entering a loop times a pointer that advances in it (set from the outer loops')
    FoldedStream,   ///< an iteration of a loop times a pointer that advances in it with one access (post-indexed)
    SharedStream,   ///< the same for a pointer several accesses share, or a guard's expression
    WordStream,     ///< the same for a pointer no post-indexed access can advance (a long stride, a guarded access)
    StreamCopy,     ///< the same for a float pointer VLDR reads at offset 0 after its increment: a register copy (MOV)
    GuardStream,    ///< an iteration of a loop times a guard expression that advances in it
    OuterStream,    ///< an iteration of a loop times a pointer advanced for the loops inside it
    IndexOp,        ///< a division or modulo of a fused loop recomputed in an index
    Guard,          ///< a bound checked by a guard (partial tile, padding, producer region)
    GuardFlag,      ///< a guard invariant in the loop around it: GCC computes it at the loop's entry and tests a register
    Requantize,     ///< one requantization (ls_requantize and the clamp) of an output
    RequantizeChannel, ///< the per-channel part of it (shifts, masks, doubled multiplier) of an output
                       ///< whose multiplier and shift are read from buffers; none for constants
    DspWord,        ///< a word load of packed int8 or int16 lanes
    DspUnpack,      ///< SXTAB16/SXTB16 unpacking
    DspPack,        ///< PKHBT packing of strided lanes (and SADD16 of their offset)
    Smlad,          ///< SMLAD: two 16-bit multiply-accumulates
    LibraryCall,    ///< a call of memset or memcpy GCC makes of a loop zeroing or copying a contiguous run
    Library,        ///< an instruction of newlib's memset or memcpy the kernel calls (counted exactly)
    CopyStatement,  ///< a copy stage executed (its counts, the emptiness check)
    CopyCall,       ///< a call of loopscope_dma_copy (its seven arguments)
    WaitCall,       ///< a call of loopscope_dma_wait
    Spill,          ///< an iteration of a loop times a value beyond the registers (spill and reload)
    SpillReload,    ///< a store or reload of an operand that unrolled copies share, beyond the registers
    HookCall,       ///< copies: the default loopscope_dma_copy entered
    HookRow,        ///< copies: one row of it (the memcpy call)
    Memcpy,         ///< copies: an instruction of newlib's memcpy (counted exactly)
    HookWait,       ///< copies: the default loopscope_dma_wait (a return)
    WidenCall,      ///< copies: the default loopscope_widen_copy entered and left (a widening cache's fill)
    WidenRow,       ///< copies: one row of it
    WidenElement,   ///< copies: one int8 element widened to int16 (load, add, store, loop)
    Count
};

inline constexpr int kInsnFeatureCount = static_cast<int>(InsnFeature::Count);

/// Name of a feature in target files and reports ("load", "int_stream", ...).
const char* insnFeatureName(InsnFeature f);
/// The breakdown entry a feature belongs to ("loads", "mla", "address", "copies", ...).
const char* insnFeatureCategory(InsnFeature f);
/// Whether the feature counts instructions of the copies (the hooks and memcpy), not the kernel's.
bool insnFeatureIsCopy(InsnFeature f);
/// Whether the feature is one instruction of the generated code per event, whatever the compiler
/// (a load, a store, an MLA, an FPU operation, an SMLAD, a DSP word load, unpack or pack): calibrate
/// keeps these at the target's values and fits only the compiler-dependent overheads, so that a
/// calibrated breakdown still says how many loads and multiplies the kernel runs.
bool insnFeatureIsExact(InsnFeature f);
/// The coefficient a target without calibration uses: the instructions the event takes in
/// straightforward code (e.g. 1 per load, 2 per loop iteration).
double defaultInsnCoefficient(InsnFeature f);

/// Event counts of one nest.
struct InsnFeatures {
    std::array<double, kInsnFeatureCount> count{};
    double& operator[](InsnFeature f) { return count[static_cast<int>(f)]; }
    double operator[](InsnFeature f) const { return count[static_cast<int>(f)]; }
};

/// The prediction, with where the instructions go.
struct InstructionReport {
    bool available = false;     ///< a CPU target (not an accelerator)
    int64_t predicted = 0;      ///< kernel + copies
    int64_t kernel = 0;
    int64_t copies = 0;
    std::vector<std::pair<std::string, int64_t>> breakdown;  ///< category -> instructions, kernel first, copies last
    InsnFeatures features;
    std::string calibration;    ///< what the coefficients were fitted for ("" = defaults)
};

/// The events inside one loop the compiled code keeps (its nested loops included).
struct LoopFeatures {
    int stmt = -1;              ///< the For statement
    InsnFeatures features;
    int parent = -1;            ///< the record of the kept loop around it (-1: none)
    /// An innermost kept loop: the values the model counts live across an iteration in the
    /// general registers (pointers, guard expressions, counter and temporaries, accumulators,
    /// operands shared by unrolled copies, invariant addresses) and in the FPU's; those beyond
    /// the allocatable registers are spilled. -1: a loop with a kept loop inside.
    double registers = -1;
    double fpRegisters = -1;
};

/// Counts the events of the code generated for `nest`. `executions` gives, per statement of the
/// nest, how often it runs (the cost model's exact counts; for a For, how often it is entered).
/// With `loops`, also the events inside each loop the compiled code keeps, outermost first.
InsnFeatures instructionFeatures(const lower::LoopNest& nest, const std::vector<int64_t>& executions,
                                 std::vector<LoopFeatures>* loops = nullptr);

/// Iterations of a For as the C writes it (a DSP loop steps by its lanes).
int64_t loopTrips(const lower::LoopNest& nest, const lower::Stmt& loop);
/// The model's estimate of the size of a loop's body in straight-line statements (unrolled copies
/// and inner loops counted out), which decides whether the compiler unrolls a two-step DSP loop
/// (a two-iteration innermost loop off the DSP path is weighed by GCC's statements instead:
/// LoopDecision::gccSize).
int loopBodySize(const lower::LoopNest& nest, int stmt);
/// Whether the compiled code keeps statement `stmt` as a loop: a For not unrolled by the
/// schedule, of more than one iteration, and not one of two iterations around a little
/// straight-line code, which GCC -O2 unrolls completely (cunroll: when the unrolled copy is
/// estimated no larger than the loop).
bool compilerKeepsLoop(const lower::LoopNest& nest, int stmt);
/// Whether a For only zeroes accumulators in memory (GCC -O2 turns it into a call of memset).
bool isMemsetLoop(const lower::LoopNest& nest, int stmt);

/// General registers GCC allocates in an Armv7-M loop (r0-r12 and lr), and the FPU's
/// single-precision registers (s0-s31): what an innermost kept loop's live values are held to.
inline constexpr double kAllocatableRegisters = 14;
inline constexpr double kFpRegisters = 32;

/// What the instruction model makes of one loop of the nest (`loopscope-cli analyze --loops`):
/// how the C writes it and how GCC -O2 is expected to compile it, and for the loops the code
/// keeps the instructions predicted inside them.
struct LoopDecision {
    enum class Compiled {
        Loop,               ///< kept as a loop
        UnrolledBySchedule, ///< an unroll step (or a vectorized loop the C writes out): straight-line copies
        UnrolledByCompiler, ///< two iterations around little code: GCC unrolls it completely
        OneIteration,       ///< one iteration (as the C writes it): no loop
        Memset,             ///< zeroes an accumulator in memory: calls of memset
        Memcpy,             ///< copies elements unchanged to or from an accumulator in memory: calls of memcpy
        ZeroedInLine,       ///< the same zeroing, in runs too short for a call: stores in line
        CopiedInLine,       ///< the same copying, in runs too short for a call: loads and STMs in line
    };
    int stmt = -1;
    std::string name;
    int depth = 0;              ///< For statements around it
    int64_t entries = 0;        ///< times the loop is entered
    int64_t trips = 0;          ///< iterations per entry as the C writes them (a DSP loop steps by its lanes)
    Compiled compiled = Compiled::Loop;
    bool dsp = false;           ///< vectorized on the DSP path (SMLAD)
    int bodySize = 0;           ///< loopBodySize
    /// A two-iteration innermost loop (not on the DSP path): GCC's size estimate of it as the
    /// model reconstructs it (cunroll's statements, counter and exit included) and how many of
    /// them fold away in the copies; the loop is unrolled when 2/3 of the two copies' remaining
    /// statements are no more than the size. -1 for other loops.
    int gccSize = -1;
    int gccFolded = -1;
    double instructions = -1;   ///< kept loops: the predicted kernel instructions inside (nested loops included)
    double spills = -1;         ///< kept loops: of them, the stack accesses of spilled values (the "spills" category)
    /// kept loops: the model's events inside (nested loops included) that occur, by feature name
    /// (insnFeatureName), in the order of the features: what the instructions are made of
    std::vector<std::pair<std::string, double>> events;
    double registers = -1;      ///< innermost kept loops: LoopFeatures::registers
    double fpRegisters = -1;
};
const char* compiledName(LoopDecision::Compiled c);
/// Every For of the nest in the C's order, with the model's decisions and figures on `target`.
std::vector<LoopDecision> loopDecisions(const lower::LoopNest& nest, const hw::Target& target);

/// The coefficient of each feature on `target` (its calibration, else the defaults).
std::array<double, kInsnFeatureCount> insnCoefficients(const hw::Target& target);

/// Weighs the features with the target's coefficients.
InstructionReport predictInstructions(const InsnFeatures& features, const hw::Target& target);

namespace detail {
/// Tests only: while one is alive on a thread, the memcpy counts of that thread enumerate every
/// value of the loops around a copy, as the general count does (lattice_count.h), instead of
/// summing them in closed form: the reference the closed forms are tested against. Scopes nest.
class EnumerateCopiesScope {
public:
    EnumerateCopiesScope();
    ~EnumerateCopiesScope();
    EnumerateCopiesScope(const EnumerateCopiesScope&) = delete;
    EnumerateCopiesScope& operator=(const EnumerateCopiesScope&) = delete;

private:
    bool m_previous;
};
/// Tests only: the copies whose memcpy count this thread has summed in closed form so far (over
/// at least one loop, or factorised by region dimension).
int64_t closedFormCopies();
/// Tests only: the loop values this thread's memcpy counts have enumerated so far, per copy
/// statement the product of the extents of the loops its count was not summed over in closed
/// form (a count or guard those loops set: partial tiles, padding halos).
int64_t enumeratedPoints();
} // namespace detail

/// Instructions newlib's memcpy (arm, memcpy-armv7m.S, as linked by the export harness) takes for
/// `bytes` bytes from and to addresses with the given remainders modulo 4.
int64_t memcpyInstructions(int64_t bytes, int srcMod4, int dstMod4);

/// Instructions newlib's memset (the C one, as arm-none-eabi's multilibs for the M7 and M4 build
/// it) takes for `bytes` bytes from an address with the given remainder modulo 4.
int64_t memsetInstructions(int64_t bytes, int dstMod4);

} // namespace loopscope::analysis
