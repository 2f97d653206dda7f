// A schedule step: one primitive with its parameters, as plain data (the trace's element).
#pragma once

#include "common/diagnostic.h"

#include <cstdint>
#include <string>
#include <vector>

namespace loopscope::sched {

enum class Primitive {
    Split,
    Tile,
    Reorder,
    Fuse,
    Unroll,
    Vectorize,
    Parallel,
    CacheRead,
    CacheWrite,
    ComputeAt,
    ComputeInline,
    DoubleBuffer,
    Tensorize,
};

/// "split", "cache_read", ... as written in schedule files.
const char* primitiveName(Primitive p);
bool parsePrimitive(const std::string& name, Primitive& out);

/// One primitive application. Which fields matter depends on the primitive:
///  - split:          loops[0], factor or nparts
///  - tile:           loops[0] (x), loops[1] (y), factors[0], factors[1]
///  - reorder:        loops (the new relative order)
///  - fuse:           loops[0] (outer), loops[1] (the loop directly inside it)
///  - unroll/vectorize/parallel: loops[0]
///  - cache_read:     tensor, level, at ("root" or a loop of the reading stage), layout,
///                    dtype (optional "int16": an int8 tensor widened in the buffer, see
///                    CacheStage::dtype), slide (optional: the loop `at` names, along which the
///                    buffer keeps the overlap of consecutive tiles; CacheStage::slideVar)
///  - cache_write:    tensor, level, at (a loop of the producing stage, or "root"), layout
///                    (layout: optional storage order of the tensor's dimensions in the
///                    buffer, outermost first, e.g. [0, 1, 3, 2]; default row-major)
///  - compute_at:     either tensor+level (move that cache stage) or producer (a stage),
///                    and at (a loop of `stage`); level optionally names where the
///                    producer's output lives (default: the innermost level)
///  - compute_inline: producer
///  - double_buffer:  tensor, level (optional when the tensor has one cache stage)
///  - tensorize:      loops [i, j, k] (the three innermost loops), intrinsic ("gemmini_matmul"),
///                    dataflow ("weight_stationary" or "output_stationary"); see sched/tensorize.h
/// `stage` names the stage whose loops are meant; it may be left empty when the loop names
/// are unique across stages.
struct Step {
    Primitive primitive = Primitive::Split;
    std::string stage;
    std::vector<std::string> loops;
    int64_t factor = 0;
    int64_t nparts = 0;
    std::vector<int64_t> factors;
    std::vector<int64_t> layout;
    std::string tensor;
    std::string level;
    std::string at;
    std::string producer;
    std::string intrinsic;  ///< tensorize
    std::string dataflow;   ///< tensorize
    std::string dtype;      ///< cache_read: the buffer's element type when it widens ("" = the tensor's)
    std::string slide;      ///< cache_read: the loop whose consecutive tiles overlap ("" = none)
    SourceLoc loc;  ///< where the step was written (schedule file), for messages

    bool operator==(const Step& o) const;
};

/// A short human description: "split i by 16", "cache_read A into SRAM at j.outer".
std::string describe(const Step& s);

} // namespace loopscope::sched
