// How much C a schedule may become: unrolled loops copy their bodies, so a few nested unrolls
// would make gigabytes of code (three of 256: 16.7 million copies). Export, measure and the
// app's code view refuse such a nest before writing any of it (docs/export.md, "Limits").
#pragma once

#include "lower/loop_nest.h"

#include <cstdint>
#include <string>

namespace loopscope::codegen {

/// The most statements the C of a kernel may hold once unrolled loops are written out: 2^16.
/// The shipped examples write at most a few hundred; at some 100 bytes a line this keeps a
/// kernel's C under about 8 MiB, which compilers and the code view handle in seconds.
inline constexpr int64_t kMaxWrittenStatements = int64_t(1) << 16;

/// Statements the kernel's C writes: each statement of the nest counts once per iteration of
/// the written-out (unrolled, or vectorized and written out) loops around it. Saturates at
/// INT64_MAX.
int64_t writtenStatements(const lower::LoopNest& nest);

/// Empty when the nest's C stays within kMaxWrittenStatements, else why not: how many
/// statements, which written-out loops multiply them, and what to change.
std::string generatedCodeSizeError(const lower::LoopNest& nest);

/// What the app's code view shows for a nest: the kernel's C as export writes it (the gemmini.h
/// code for a tensorized nest), or a C comment saying why there is none (too large to write,
/// or a tensorized nest that cannot be exported).
std::string codeViewText(const lower::LoopNest& nest);

/// Whether `text` (from codeViewText) is the comment saying why no code is shown.
bool codeViewShowsNoCode(const std::string& text);

} // namespace loopscope::codegen
