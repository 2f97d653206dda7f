// The state a schedule builds: per stage the loop variables and their order, and the
// cache stages. `apply` (apply.h) is the only way to change it.
#pragma once

#include "hw/target.h"
#include "ir/kernel.h"
#include "sched/step.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace loopscope::sched {

enum class LoopKind { Serial, Unrolled, Vectorized, Parallel };
const char* loopKindName(LoopKind k);

/// A loop variable of a stage. Variables are never removed: a split or fused variable stays
/// in the list (no longer active) so that axis values can be derived from the active loops.
struct LoopVar {
    enum class Origin { Axis, SplitOuter, SplitInner, Fused };
    std::string name;
    int64_t extent = 1;
    Origin origin = Origin::Axis;
    bool reduction = false;
    LoopKind kind = LoopKind::Serial;
    int axis = -1;          ///< Origin::Axis: the stage axis
    int parent = -1;        ///< SplitOuter/SplitInner: the variable that was split
    int64_t factor = 1;     ///< SplitOuter/SplitInner: extent of the inner part
    int fusedOuter = -1;    ///< Fused: its two parts
    int fusedInner = -1;
    int splitOuter = -1;    ///< set on a variable once split: its two parts
    int splitInner = -1;
    int fusedInto = -1;     ///< set on a variable once fused: the fused variable
    bool active = true;
};

/// Where a stage's nest (or a cache stage's buffer) lives: at the root of its stage's nest
/// or inside the body of a loop of some stage.
struct Attach {
    int stage = -1;         ///< -1: root of the whole program
    int var = -1;           ///< -1: root of `stage`'s nest
    bool isRoot() const { return var < 0; }
    bool operator==(const Attach&) const = default;
};

/// How a PE array computes a block: weights held in the PEs (B preloaded) or partial sums held
/// in the PEs (the output block stays in the array across consecutive computes).
enum class Dataflow { WeightStationary, OutputStationary };
/// "weight_stationary", "output_stationary" (as in target and schedule files).
const char* dataflowName(Dataflow d);
bool parseDataflow(const std::string& name, Dataflow& out);

/// A tensorize applied to a stage: its three innermost loops run as one accelerator operation
/// per block (sched/tensorize.h).
struct TensorizeSpec {
    int i = -1;                 ///< loop variable of the block's rows (spatial: rows of A and C)
    int j = -1;                 ///< columns (spatial: columns of B and C)
    int k = -1;                 ///< depth (reduction: columns of A, rows of B)
    std::string intrinsic;      ///< "gemmini_matmul"
    Dataflow dataflow = Dataflow::WeightStationary;
    int step = -1;              ///< 0-based trace step that applied it
};

struct StageSchedule {
    std::vector<LoopVar> vars;
    std::vector<int> order;     ///< active variables, outermost first
    Attach computeAt;           ///< stage = consumer stage when computed at one of its loops
    int storeLevel = -1;        ///< level of the produced intermediate when computed at a loop
    bool inlined = false;
    std::optional<TensorizeSpec> tensorize;

    int findVar(const std::string& name) const;      ///< any variable (active or not)
    int findLoop(const std::string& name) const;     ///< active only
    int position(int var) const;                     ///< index in order, or -1
};

/// A cache_read or cache_write stage: a buffer of `tensor` in `level`, placed in the body of
/// `at` (a loop of `stage`, or its root), filled (read) or written back (write) once per
/// iteration of that body.
struct CacheStage {
    int tensor = -1;
    int level = -1;
    bool write = false;
    int stage = -1;         ///< the stage whose loads (read) or stores (write) it serves
    int var = -1;           ///< loop variable of `stage` it sits in; -1 = root of the stage
    bool doubleBuffer = false;
    std::vector<int> layout;  ///< storage order of the tensor's dimensions; empty = row-major
    /// The buffer's element type. A widening cache_read keeps an int8 tensor as int16, plus the
    /// constant every load of it in the stage adds (`(I[...] + 128)`: the buffer holds I + 128 and
    /// the stage's expression drops the addition, widenedOffset), so that the DSP path loads
    /// int16 pairs with one word load and no unpacking. The fill runs on the CPU
    /// (loopscope_widen_copy in the exported C), never through the DMA hooks.
    std::optional<ir::DType> dtype;
    /// A sliding window (cache_read's `slide`): the buffer lives across the iterations of its
    /// loop `var` (allocated in the body of the loop outside it) and keeps, along the one tensor
    /// dimension the tile moves in, the part of the previous tile the next one overlaps; each
    /// iteration after the first fetches only the new part. -1: refilled whole every iteration.
    int slideVar = -1;
};

/// A kernel, a target and the result of replaying a trace. Copyable value; apply() returns a
/// new one.
struct Program {
    std::shared_ptr<const ir::Kernel> kernel;
    std::shared_ptr<const hw::Target> target;
    std::vector<StageSchedule> stages;
    std::vector<CacheStage> caches;
    std::vector<Step> trace;

    /// The unscheduled program: one loop per axis in axis order, nothing cached.
    static Program initial(std::shared_ptr<const ir::Kernel> kernel,
                           std::shared_ptr<const hw::Target> target);

    const LoopVar& var(int stage, int v) const { return stages[stage].vars[v]; }
    /// Home level of every tensor (the outermost level).
    int homeLevel() const { return 0; }
    /// Cache stage for tensor/level (any stage), or -1.
    int findCache(int tensor, int level, int stage = -1) const;
    /// "i.outer" or "P/h" when a stage name is needed to be unambiguous.
    std::string loopLabel(int stage, int var) const;
};

/// A stage's value expression with the stages inlined by compute_inline substituted.
ir::ExprPtr effectiveValue(const Program& p, int stage);
/// The loads of effectiveValue, in evaluation order.
std::vector<ir::Access> effectiveLoads(const Program& p, int stage);
/// Calls `f` on the loads of effectiveValue in effectiveLoads' order, without copying them.
void visitEffectiveLoads(const Program& p, int stage, const std::function<void(const ir::Access&)>& f);

/// The constant a widening cache of `tensor` for `stage` adds to every element: the `c` of
/// `T[...] + c` (or `c + T[...]`) when every load of the tensor in the stage's effective value has
/// that form with the same c and int8 + c fits in int16; 0 otherwise (the buffer then holds the
/// plain values and the expression keeps its addition).
int64_t widenedOffset(const Program& p, int stage, int tensor);

/// Whether the values a stage's axis takes inside the body of loop `var` (every loop outside
/// it fixed) form one contiguous range. False, for example, for i when i.outer runs inside
/// the body and i.inner outside it: the values are strided.
bool axisContiguousInside(const StageSchedule& ss, int axis, int var);

/// Typed schedule error: what failed, why, and what to highlight.
struct ScheduleError {
    int stepIndex = -1;         ///< 0-based index in the trace; -1 when not from a trace
    Primitive primitive = Primitive::Split;
    std::string message;        ///< short: "j.inner is not a loop of stage C"
    std::string detail;         ///< longer explanation / how to fix it
    std::vector<std::string> loops;    ///< loops to highlight
    std::vector<std::string> tensors;  ///< tensors to highlight
    SourceLoc loc;              ///< the step in its file, when known

    /// "file:line:col: step 3 (reorder): j.inner is not a loop of stage C" (1-based step).
    std::string str() const;
    /// The same as a diagnostic: the place in its location, said once.
    Diagnostic diagnostic() const;
};

/// The result of applying one step: the new program or the error (the old program is untouched).
class ApplyResult {
public:
    ApplyResult(Program p) : m_program(std::move(p)), m_ok(true) {}
    ApplyResult(ScheduleError e) : m_error(std::move(e)), m_ok(false) {}
    bool ok() const { return m_ok; }
    const Program& program() const { return m_program; }
    Program& program() { return m_program; }
    const ScheduleError& error() const { return m_error; }

private:
    Program m_program;
    ScheduleError m_error;
    bool m_ok;
};

/// Applies one step to a program (pure). On success the step is appended to the trace.
ApplyResult apply(const Program& program, const Step& step);
/// The same on a program the caller no longer needs: it is moved into the result instead of
/// copied (a copy holds the whole trace, so replaying by copies is quadratic in its length).
/// When the step fails, `program` is left empty.
ApplyResult apply(Program&& program, const Step& step);

/// Replays a whole trace from the initial program; stops at the first failing step. Linear in
/// the length of the trace: no step copies the program.
ApplyResult replay(std::shared_ptr<const ir::Kernel> kernel,
                   std::shared_ptr<const hw::Target> target, const std::vector<Step>& steps);

} // namespace loopscope::sched
