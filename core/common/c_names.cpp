// The names the exported C cannot take from a kernel file (see c_names.h). The lists follow the
// C standard's keywords and the headers the exported files include; gemmini.h and the harness
// templates are in resources/firmware.
#include "common/c_names.h"

#include <algorithm>
#include <iterator>
#include <cctype>
#include <string_view>

namespace loopscope {

namespace {

constexpr std::string_view kCKeywords[] = {
    // C89, C99, C11
    "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else", "enum", "extern", "float", "for",
    "goto", "if", "inline", "int", "long", "register", "restrict", "return", "short", "signed", "sizeof", "static", "struct",
    "switch", "typedef", "union", "unsigned", "void", "volatile", "while",
    // C23 (the underscored C11 forms are reserved identifiers anyway)
    "alignas", "alignof", "bool", "constexpr", "false", "nullptr", "static_assert", "thread_local", "true", "typeof",
    "typeof_unqual",
    // GNU C (the exports build with gcc's default dialect) and C++ words shared with C's headers
    "asm", "and", "or", "not", "xor", "and_eq", "or_eq", "not_eq", "xor_eq"};

/// The header is meant for C++ too (its extern "C" block): a parameter may not be a C++ keyword.
constexpr std::string_view kCppKeywords[] = {
    "bitand", "bitor", "catch", "char8_t", "char16_t", "char32_t", "class", "co_await", "co_return", "co_yield", "compl",
    "concept", "const_cast", "consteval", "constinit", "decltype", "delete", "dynamic_cast", "explicit", "export", "friend",
    "mutable", "namespace", "new", "noexcept", "operator", "private", "protected", "public", "reinterpret_cast", "requires",
    "static_cast", "template", "this", "throw", "try", "typeid", "typename"};

/// Types and macros of <stddef.h>, <stdint.h> (besides the patterns in isStdintName),
/// <stdbool.h>, <stdio.h>, <stdlib.h>, <math.h>, <errno.h> and gemmini.h: any of them as a
/// parameter or a loop counter would be read as the type or expanded as the macro.
constexpr std::string_view kHeaderNames[] = {
    // <stddef.h>
    "size_t", "ptrdiff_t", "wchar_t", "max_align_t", "nullptr_t", "NULL", "offsetof",
    // <stdint.h> limits without a width in their name
    "PTRDIFF_MIN", "PTRDIFF_MAX", "SIZE_MAX", "SIG_ATOMIC_MIN", "SIG_ATOMIC_MAX", "WCHAR_MIN", "WCHAR_MAX", "WINT_MIN",
    "WINT_MAX", "wint_t",
    // <stdio.h>
    "FILE", "fpos_t", "EOF", "BUFSIZ", "FILENAME_MAX", "FOPEN_MAX", "L_tmpnam", "SEEK_CUR", "SEEK_END", "SEEK_SET",
    "TMP_MAX", "stdin", "stdout", "stderr",
    // <stdlib.h>
    "div_t", "ldiv_t", "lldiv_t", "EXIT_FAILURE", "EXIT_SUCCESS", "RAND_MAX", "MB_CUR_MAX",
    // <math.h>
    "float_t", "double_t", "HUGE_VAL", "HUGE_VALF", "HUGE_VALL", "INFINITY", "NAN", "FP_INFINITE", "FP_NAN", "FP_NORMAL",
    "FP_SUBNORMAL", "FP_ZERO", "MATH_ERRNO", "MATH_ERREXCEPT", "math_errhandling",
    // <errno.h>
    "errno", "EDOM", "ERANGE", "EILSEQ",
    // gemmini.h (resources/firmware/gemmini)
    "DIM", "ADDR_LEN", "BANK_NUM", "BANK_ROWS", "ACC_ROWS", "MAX_BYTES", "MAX_BLOCK_LEN", "MAX_BLOCK_LEN_ACC",
    "GARBAGE_ADDR", "NO_ACTIVATION", "RELU", "RELU6", "OUTPUT_STATIONARY", "WEIGHT_STATIONARY", "CONFIG_EX", "CONFIG_LD",
    "CONFIG_ST", "MVIN_SCALE_IDENTITY", "ACC_SCALE_IDENTITY", "elem_t", "acc_t", "scale_t", "acc_scale_t",
    "gemmini_compute_accumulated", "gemmini_compute_preloaded", "gemmini_config_ex", "gemmini_config_ld", "gemmini_config_st",
    "gemmini_extended2_config_ld", "gemmini_extended3_config_ld", "gemmini_extended_compute_accumulated",
    "gemmini_extended_compute_preloaded", "gemmini_extended_config_ex", "gemmini_extended_config_ld",
    "gemmini_extended_config_st", "gemmini_extended_mvin", "gemmini_extended_mvin2", "gemmini_extended_mvin3",
    "gemmini_extended_mvout", "gemmini_extended_preload", "gemmini_fence", "gemmini_flush", "gemmini_mvin", "gemmini_mvout",
    "gemmini_preload", "gemmini_preload_zeros"};

/// Functions of <stdio.h>, <string.h>, <stdlib.h> and <math.h> (the f and l forms of the math
/// functions are derived): a kernel of that name would clash with the library; a parameter or
/// loop counter would hide the function from the code, which gcc's -Wshadow (the harness's
/// flags) reports for its built-in functions.
constexpr std::string_view kLibraryFunctions[] = {
    // <stdio.h>
    "remove", "rename", "tmpfile", "tmpnam", "fclose", "fflush", "fopen", "freopen", "setbuf", "setvbuf", "fprintf", "fscanf",
    "printf", "scanf", "snprintf", "sprintf", "sscanf", "vfprintf", "vfscanf", "vprintf", "vscanf", "vsnprintf", "vsprintf",
    "vsscanf", "fgetc", "fgets", "fputc", "fputs", "getc", "getchar", "gets", "putc", "putchar", "puts", "ungetc", "fread",
    "fwrite", "fgetpos", "fseek", "fsetpos", "ftell", "rewind", "clearerr", "feof", "ferror", "perror",
    // <string.h>
    "memcpy", "memmove", "memccpy", "strcpy", "strncpy", "strcat", "strncat", "memcmp", "strcmp", "strcoll", "strncmp",
    "strxfrm", "memchr", "strchr", "strcspn", "strpbrk", "strrchr", "strspn", "strstr", "strtok", "memset", "strerror",
    "strlen", "strdup", "strndup",
    // <stdlib.h>
    "atof", "atoi", "atol", "atoll", "strtod", "strtof", "strtold", "strtol", "strtoll", "strtoul", "strtoull", "rand",
    "srand", "aligned_alloc", "calloc", "free", "malloc", "realloc", "abort", "atexit", "at_quick_exit", "exit",
    "getenv", "quick_exit", "system", "bsearch", "qsort", "abs", "labs", "llabs", "div", "ldiv", "lldiv", "mblen",
    "mbtowc", "wctomb", "mbstowcs", "wcstombs",
    // <ctype.h> and <wctype.h> (gcc built-ins)
    "isalnum", "isalpha", "isblank", "iscntrl", "isdigit", "isgraph", "islower", "isprint", "ispunct", "isspace", "isupper",
    "isxdigit", "tolower", "toupper", "iswalnum", "iswalpha", "iswblank", "iswcntrl", "iswdigit", "iswgraph", "iswlower",
    "iswprint", "iswpunct", "iswspace", "iswupper", "iswxdigit", "towlower", "towupper", "imaxabs",
    // gcc's built-ins outside ISO C (recognised in the gnu99 of the Gemmini harness)
    "alloca", "bcmp", "bzero", "dcgettext", "dgettext", "gettext", "ffs", "ffsl", "ffsll", "fprintf_unlocked",
    "fputs_unlocked", "printf_unlocked", "index", "rindex", "isascii", "toascii", "mempcpy", "stpcpy", "stpncpy",
    "strcasecmp", "strncasecmp", "strfmon", "strnlen", "signbitf", "signbitl", "gamma_r", "gammaf_r", "gammal_r",
    "lgamma_r", "lgammaf_r", "lgammal_r", "sincos", "sincosf", "sincosl",
    // <math.h> macros
    "fpclassify", "isfinite", "isinf", "isnan", "isnormal", "signbit", "isgreater", "isgreaterequal", "isless",
    "islessequal", "islessgreater", "isunordered",
    // <math.h> functions (double forms; the f and l forms follow)
    "acos", "asin", "atan", "atan2", "cos", "sin", "tan", "acosh", "asinh", "atanh", "cosh", "sinh", "tanh", "exp", "exp2",
    "expm1", "frexp", "ilogb", "ldexp", "log", "log10", "log1p", "log2", "logb", "modf", "scalbn", "scalbln", "cbrt",
    "fabs", "hypot", "pow", "sqrt", "erf", "erfc", "lgamma", "tgamma", "ceil", "floor", "nearbyint", "rint", "lrint",
    "llrint", "round", "lround", "llround", "trunc", "fmod", "remainder", "remquo", "copysign", "nan", "nextafter",
    "nexttoward", "fdim", "fmax", "fmin", "fma",
    // gcc's math built-ins outside ISO C
    "drem", "exp10", "pow10", "gamma", "j0", "j1", "jn", "y0", "y1", "yn", "scalb", "significand", "roundeven",
    // <complex.h> (gcc built-ins in C99)
    "cabs", "cacos", "cacosh", "carg", "casin", "casinh", "catan", "catanh", "ccos", "ccosh", "cexp", "cimag", "clog",
    "conj", "cpow", "cproj", "creal", "csin", "csinh", "csqrt", "ctan", "ctanh"};

/// The first math function in kLibraryFunctions: from here on, "<name>f" and "<name>l" too.
constexpr std::string_view kFirstMathFunction = "acos";

/// File-scope names of the harness (main.c and its support files) and the base names of the
/// files it ships: a kernel of that name would define them twice or overwrite one. (The locals
/// of main(), which calls the kernel, carry the ls_ prefix.)
constexpr std::string_view kHarnessNames[] = {
    "main", "startup", "fill_inputs", "reference", "check_requantize", "Reset_Handler", "reset_continue",
    "Fault_Handler", "Default_Handler", "report_fault_entry", "report_fault", "zero_words", "semihost", "put_str",
    "put_hex", "gemmini", "gemmini_model", "trap", "insn_count"};

/// Macros the exported code defines or tests with the LOOPSCOPE_ prefix, which a level's
/// section macro LOOPSCOPE_<LEVEL> must not be.
constexpr std::string_view kOwnMacros[] = {
    "ALIGNED", "RESTRICT", "PARALLEL", "VECTORIZE", "NO_DSP", "USE_DSP", "NO_SAT", "WEAK", "NO_DEFAULT_DMA",
    "HARNESS_DEFAULT_DMA", "KERNEL", "GEMMINI_H", "GEMMINI_HOST", "GEMMINI_TRACE", "GEMMINI_TRANSFER",
    "GEMMINI_TRANSFERS"};

template <size_t N>
bool in(const std::string_view (&list)[N], std::string_view name)
{
    return std::find(std::begin(list), std::end(list), name) != std::end(list);
}

bool startsWith(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

std::string lower(std::string_view s)
{
    std::string out(s);
    for (char& c : out)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

std::string upper(std::string_view s)
{
    std::string out(s);
    for (char& c : out)
        c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return out;
}

/// int8_t, uint_least16_t, int_fast64_t, intptr_t, uintmax_t and their limits and constant
/// macros (INT8_MIN, UINT_FAST32_MAX, INT64_C, INTPTR_MAX, UINTMAX_C, ...).
bool isStdintName(std::string_view s)
{
    std::string_view r = s;
    if (!r.empty() && (r[0] == 'I' || r[0] == 'U')) {
        if (startsWith(r, "U"))
            r.remove_prefix(1);
        if (!startsWith(r, "INT"))
            return false;
        r.remove_prefix(3);
        if (startsWith(r, "PTR_") || startsWith(r, "MAX_")) {
            r.remove_prefix(4);
            return r == "MIN" || r == "MAX" || r == "C";
        }
        if (startsWith(r, "_LEAST"))
            r.remove_prefix(6);
        else if (startsWith(r, "_FAST"))
            r.remove_prefix(5);
        for (std::string_view w : {"8_", "16_", "32_", "64_"})
            if (startsWith(r, w)) {
                r.remove_prefix(w.size());
                return r == "MIN" || r == "MAX" || r == "C";
            }
        return false;
    }
    if (startsWith(r, "u"))
        r.remove_prefix(1);
    if (!startsWith(r, "int"))
        return false;
    r.remove_prefix(3);
    if (r == "ptr_t" || r == "max_t")
        return true;
    if (startsWith(r, "_least"))
        r.remove_prefix(6);
    else if (startsWith(r, "_fast"))
        r.remove_prefix(5);
    return r == "8_t" || r == "16_t" || r == "32_t" || r == "64_t";
}

bool isLibraryFunction(std::string_view s)
{
    if (in(kLibraryFunctions, s))
        return true;
    const auto math = std::find(std::begin(kLibraryFunctions), std::end(kLibraryFunctions), kFirstMathFunction);
    if (s.size() > 1 && (s.back() == 'f' || s.back() == 'l'))
        return std::find(math, std::end(kLibraryFunctions), s.substr(0, s.size() - 1)) != std::end(kLibraryFunctions);
    return false;
}

} // namespace

std::string cNameProblem(const std::string& name, CNameUse use)
{
    if (in(kCKeywords, name))
        return "is a C keyword";
    if (in(kCppKeywords, name))
        return "is a C++ keyword (the exported header is also C++)";
    if (startsWith(name, "__") || (name.size() > 1 && name[0] == '_' && std::isupper(static_cast<unsigned char>(name[1]))))
        return "is reserved by C (a leading '__' or '_' and a capital letter)";
    if (use == CNameUse::Kernel && startsWith(name, "_"))
        return "is reserved by C for file-scope names (a leading '_')";
    const std::string low = lower(name);
    for (std::string_view prefix : {"ls_", "loopscope_"})
        if (startsWith(low, prefix))
            return "starts with '" + name.substr(0, prefix.size()) + "', which the exported code reserves for its own names";
    if (isStdintName(name))
        return "is a name of <stdint.h>";
    if (in(kHeaderNames, name))
        return "is a type or macro of a header the exported code includes";
    if (startsWith(name, "k_") && name.size() > 2 && std::isupper(static_cast<unsigned char>(name[2])))
        return "has the form of gemmini.h's instruction codes (k_MVIN, ...)";
    // A kernel of that name would clash with the library; a parameter or loop counter would
    // hide memcpy from the code that calls it, or a built-in function (gcc -Wshadow).
    if (isLibraryFunction(name))
        return "is a function of the C library";
    if (use == CNameUse::Kernel && in(kHarnessNames, name))
        return "is used by the export harness (main.c and its support files)";
    return {};
}

std::string derivedNameClash(const std::string& name, const std::string& kernel)
{
    if (name == kernel + "_transfers" || name == kernel + "_prepare")
        return "is the name of the export's '" + name + "' for kernel '" + kernel + "'";
    if (name == upper(kernel) + "_TRANSFER_COUNT")
        return "is the macro " + name + " the export's header defines for kernel '" + kernel + "'";
    if (kernel == "t_" + name || kernel == "ref_" + name)
        return "gives the harness's array '" + kernel + "', which is also the kernel's name";
    return {};
}

std::string levelMacroClash(const std::string& level)
{
    std::string macro;
    for (char c : level)
        macro += std::isalnum(static_cast<unsigned char>(c)) ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : '_';
    if (in(kOwnMacros, macro))
        return "its section macro LOOPSCOPE_" + macro + " is one of the exported code's own macros";
    return {};
}

} // namespace loopscope
