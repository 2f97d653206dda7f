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
    bool gemminiAccScale = false;  ///< Gemmini exports: requantize with acc_scale (codegen/gemmini_codegen.h)
};

/// C identifier derived from a kernel name ("matmul-f32" -> "matmul_f32").
std::string cIdentifier(const std::string& name);
/// The C type of a dtype ("int8_t", "float", ...).
const char* cType(ir::DType t);
/// C source defining LS_UNUSED (if not yet defined), which the generated helpers carry so that
/// unused ones draw no warning; requantizeFunctionC() starts with it.
const char* unusedMacroC();
/// C source of the kernel's requantization: `ls_requantize(acc, multiplier, shift, offset)`
/// (TFLite's MultiplyByQuantizedMultiplier plus the offset, bit-exact, without branches; SSAT/USAT
/// where the core has them), `ls_clamp(v, lo, hi)` and `LS_SAT(v, bits, lo, hi)`.
const char* requantizeFunctionC();
/// C source of `ls_ref_requantize(acc, multiplier, shift, offset, lo, hi)`: the same function
/// written as TFLite writes it, for the harness's naive reference.
const char* referenceRequantizeFunctionC();
/// C source of `loopscope_widen_copy` (declared in the header of an export with a widening cache):
/// `rows` rows of `row_elements` int8 elements stored as int16 plus `offset`, strides in elements.
/// `attributes` precede the definition (LOOPSCOPE_WEAK for the kernel's default, the harness's
/// section for its counting copy); `countBytes`: add the int16 bytes written to ls_bytes[transfer]
/// (the harness's byte count, which the cost model's transfers equal).
std::string widenCopyFunctionC(const std::string& attributes, bool countBytes);
/// The C expression requantizing `acc` and clamping it to [lo, hi] (one SSAT when the range is
/// that of a signed integer of some width).
std::string requantizeCall(const std::string& acc, const std::string& mult, const std::string& shift, int64_t offset, int64_t lo, int64_t hi);

/// <kernel>.h: the entry function with const-correct tensor pointers, documented.
std::string generateHeader(const lower::LoopNest& nest);
/// <kernel>.c: the kernel, its static on-chip buffers and the default DMA hooks.
std::string generateSource(const lower::LoopNest& nest);
/// main.c: deterministic inputs, the kernel, a naive reference, checksum and mismatch count,
/// and DMA hooks that count bytes per transfer.
std::string generateHarnessMain(const lower::LoopNest& nest, uint64_t seed = 1);

/// Empty when exportFiles(nest, options) can write the nest, otherwise why not, for the user:
/// its C would be too large (generatedCodeSizeError, codegen/code_size.h), it is a tensorized
/// nest the Gemmini generator cannot write (gemminiExportError), or the harness cannot take the
/// kernel's name (harnessKernelNameError). Every exporter asks this before writing anything.
std::string exportError(const lower::LoopNest& nest, const ExportOptions& options);

/// Every file of an export: <kernel>.h, <kernel>.c and, with options.harness, main.c plus
/// the support files of harnessSupportFiles().
std::vector<GeneratedFile> exportFiles(const lower::LoopNest& nest, const ExportOptions& options);

} // namespace loopscope::codegen
