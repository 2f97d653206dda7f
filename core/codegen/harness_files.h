// Build files and bare-metal support of the export harness (`loopscope-cli export --harness`):
// the Makefile, the Cortex-M start-up and linker scripts for qemu's MPS2 boards, the qemu
// instruction-counting plugin and the README, from the templates in resources/firmware.
#pragma once

#include "codegen/generated_file.h"

#include <string>
#include <vector>

namespace loopscope::codegen {

/// Build files and bare-metal support for the export harness of kernel `kernelName` (a C
/// identifier, also the base name of <kernelName>.c/.h written by the C generator; main.c
/// is the harness). The files, sorted by path:
///   Makefile, README.md, cortex-m/mps2-an386.ld, cortex-m/mps2-an500.ld,
///   cortex-m/sections.ld, cortex-m/startup.c, qemu/insn_count.c
/// None of them is <kernelName>.c/.h or main.c. Throws std::invalid_argument when
/// `kernelName` is not a valid kernel name (see harnessKernelNameError).
std::vector<GeneratedFile> harnessSupportFiles(const std::string& kernelName);

/// The templates under `prefix` (e.g. "gemmini/": the Gemmini harness), with the prefix
/// removed from their paths and the kernel name substituted; harnessSupportFiles() leaves them out.
std::vector<GeneratedFile> harnessSupportFiles(const std::string& kernelName, const std::string& prefix);

/// Empty when `kernelName` can name the harness's kernel, otherwise why not: it must be a C
/// identifier ([A-Za-z_][A-Za-z0-9_]*) that cNameProblem (common/c_names.h) accepts for a
/// kernel: no C keyword, no name of the C library or of the harness ("main", "startup", ...).
std::string harnessKernelNameError(const std::string& kernelName);

} // namespace loopscope::codegen
