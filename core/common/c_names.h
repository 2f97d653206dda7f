// Which names a kernel file may give its kernel, tensors and axes: each becomes a C identifier
// of the exported code (the function, its parameters, its loop counters), so a name that C, the
// headers the export includes or the export's own vocabulary already use would not compile.
#pragma once

#include <string>

namespace loopscope {

/// Where a user's name ends up in the exported C.
enum class CNameUse {
    Kernel,  ///< the kernel function and the <name>.c / <name>.h files (file scope)
    Tensor,  ///< a parameter of the kernel function (block scope)
    Axis,    ///< a loop counter inside the kernel function (block scope)
};

/// Empty when `name` (already an identifier, [A-Za-z_][A-Za-z0-9_]*) can be used as `use`,
/// otherwise why not, as the end of a sentence: "is a C keyword", "is a type of <stdint.h>",
/// "starts with 'ls_', which the exported code reserves for its own names". The rules
/// (docs/kernels.md, "Names"): C keywords (C89 to C23); identifiers C reserves (a leading '__'
/// or '_' and a capital; any leading '_' for a kernel); the types, macros and functions of the
/// headers the exported files include (<stddef.h>, <stdint.h>, <stdbool.h>, <stdio.h>,
/// <string.h>, <stdlib.h>, <math.h>, gemmini.h); the prefixes ls_, LS_, loopscope_ and
/// LOOPSCOPE_ (any case); and, for a kernel, the names of the harness's files and functions.
std::string cNameProblem(const std::string& name, CNameUse use);

/// Empty when a tensor or axis called `name` does not collide with a name the export derives
/// from the kernel's name `kernel` (<kernel>_transfers, <kernel>_prepare,
/// <KERNEL>_TRANSFER_COUNT), otherwise why it does.
std::string derivedNameClash(const std::string& name, const std::string& kernel);

/// Empty when a memory level called `level` gives a section macro LOOPSCOPE_<LEVEL> that is not
/// one of the export's own LOOPSCOPE_ macros (LOOPSCOPE_ALIGNED, LOOPSCOPE_USE_DSP, ...),
/// otherwise why it is.
std::string levelMacroClash(const std::string& level);

} // namespace loopscope
