// The input offset of a stage without padding folded into its bias, for the C export (see
// OffsetFold): which stages qualify and which value nodes lose their offset.
#pragma once

#include "lower/loop_nest.h"

namespace loopscope::lower {

/// Finds the stages of `nest` whose input offset the C export folds into the bias and records
/// them in nest.offsetFolds and nest.foldedValues. A stage qualifies when it is an integer
/// reduction without padding, `(x + offset) * w` with one operand offset, a per-channel bias
/// used by nothing else, and w an input indexed by the output channel's axes and the reduction
/// axes only (so sum(w) over the reduction is one number per channel); and when every Compute
/// of the stage in the nest still adds the offset to a load of x (a widening cache adds it in
/// its fill instead, and then nothing is folded). Nests with accelerator blocks are left alone.
void findOffsetFolds(LoopNest& nest);

} // namespace loopscope::lower
