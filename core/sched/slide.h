// Sliding-window caches (cache_read's `slide`): when a cache's tile overlaps between consecutive
// iterations of its loop, the buffer keeps the overlap and each iteration fetches only the new
// part. The preconditions, re-checked after every step, and the geometry lowering needs.
#pragma once

#include "sched/program.h"

#include <cstdint>
#include <optional>

namespace loopscope::sched {

/// Where a sliding cache's tile moves: along one tensor dimension, forward, by `shift` elements per
/// iteration of the loop, in a window `width` elements wide (so width - shift are kept).
struct SlideGeometry {
    int axis = -1;        ///< the stage axis the loop steps
    int dim = -1;         ///< the tensor dimension the tile moves along
    int64_t shift = 0;    ///< elements the window advances per iteration of the loop
    int64_t width = 0;    ///< the window's largest extent along `dim`
};

/// Whether cache `cache` of `p` (CacheStage::slideVar set) can slide: nothing (and `out` filled),
/// or the error naming the loop and the tensor. Requires a cache_read placed at the loop it slides
/// along; a loop that steps one stage axis monotonically (an axis or a part of its split, not a
/// fused loop); a tile that moves forward along exactly one dimension of the tensor, unit-stepped
/// there, by less than its width (the tiles overlap); no double_buffer; a stage that is not
/// tensorized; a serial loop (not parallel); a tensor that is not an intermediate computed inside
/// a consumer's loop.
std::optional<ScheduleError> checkSlide(const Program& p, int cache, SlideGeometry* out = nullptr);

} // namespace loopscope::sched
