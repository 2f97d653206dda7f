// <kernel>_prepare of a C export whose stages fold their input offset into the bias
// (lower::OffsetFold): its signature, its definition and the notes the header carries.
#pragma once

#include "lower/loop_nest.h"

#include <string>
#include <vector>

namespace loopscope::codegen {

/// The C name of the folded bias a fold's <kernel>_prepare writes ("bias_folded").
std::string foldedBiasName(const lower::LoopNest& nest, const lower::OffsetFold& fold);
/// The tensors <kernel>_prepare reads (each fold's weights and bias, once each, in kernel order).
std::vector<int> prepareInputs(const lower::LoopNest& nest);
/// `void <kernel>_prepare(weights and biases..., int32_t *<bias>_folded...)` (no semicolon).
std::string prepareSignatureC(const lower::LoopNest& nest);
/// The definition of <kernel>_prepare: per fold and output channel, bias + offset * sum(w) over
/// the reduction. Empty without folds.
std::string prepareFunctionC(const lower::LoopNest& nest);
/// The header's explanation of the folds (" * ..." lines), empty without folds.
std::string prepareNoteC(const lower::LoopNest& nest);

} // namespace loopscope::codegen
