// Text from users' files and arguments as a terminal and a dialog can show it. A name written
// with a YAML escape ("\e[31m") or a path typed with a control character reaches messages,
// tables and file names; printed as it is, it would drive the terminal (colours, a cleared
// screen, a changed title) or, in a file that is not UTF-8, show as replacement characters.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace loopscope {

/// Bytes of the UTF-8 character starting at `s[i]` (0: none starts there, or it is malformed,
/// overlong, a surrogate or cut off by the end of `s`).
size_t utf8Length(std::string_view s, size_t i);

/// Whether `text` is UTF-8 throughout (no overlong forms, surrogates or cut-off characters).
bool isUtf8(std::string_view text);

/// `text` with control characters (C0, DEL, the C1 controls U+0080-U+009F and the
/// bidirectional overrides and isolates U+202A-U+202E, U+2066-U+2069) and bytes that are no part
/// of a UTF-8 character written as \xNN, one per byte; everything else, UTF-8 included, as it
/// is. With `keepLineBreaks`, '\n', "\r\n" and '\t' stay (a message of several lines; a lone
/// '\r' would let the rest of a line overwrite its start).
std::string printableText(std::string_view text, bool keepLineBreaks = false);

} // namespace loopscope
