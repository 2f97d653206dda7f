// C99 code generation for microcontrollers from a lowered loop nest: the kernel (.h/.c) and a
// self-checking harness (main.c). The same text is shown by the GUI's code view.
#pragma once

#include "codegen/generated_file.h"
#include "lower/loop_nest.h"

#include <string>
#include <vector>

namespace loopscope::codegen {

struct ExportOptions {
    bool harness = false;   ///< also main.c and the build files for host / Cortex-M on qemu
    uint64_t seed = 1;      ///< seed of the harness's input data
};

/// C identifier derived from a kernel name ("matmul-f32" -> "matmul_f32").
std::string cIdentifier(const std::string& name);
/// The C type of a dtype ("int8_t", "float", ...).
const char* cType(ir::DType t);
/// C source of `static inline int32_t ls_requantize(acc, multiplier, shift, offset, lo, hi)`,
/// TFLite's requantization, shared by the kernel and the harness.
const char* requantizeFunctionC();

/// <kernel>.h: the entry function with const-correct tensor pointers, documented.
std::string generateHeader(const lower::LoopNest& nest);
/// <kernel>.c: the kernel, its static on-chip buffers and the default DMA hooks.
std::string generateSource(const lower::LoopNest& nest);
/// main.c: deterministic inputs, the kernel, a naive reference, checksum and mismatch count,
/// and DMA hooks that count bytes per transfer.
std::string generateHarnessMain(const lower::LoopNest& nest, uint64_t seed = 1);

/// Every file of an export: <kernel>.h, <kernel>.c and, with options.harness, main.c plus
/// the support files of harnessSupportFiles().
std::vector<GeneratedFile> exportFiles(const lower::LoopNest& nest, const ExportOptions& options);

} // namespace loopscope::codegen
