#include "common/printable_text.h"

#include <cstdint>

namespace loopscope {

size_t utf8Length(std::string_view s, size_t i)
{
    const auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
    const unsigned char c = b(i);
    size_t n = 0;
    uint32_t cp = 0;
    if (c >= 0xc2 && c <= 0xdf) { n = 2; cp = c & 0x1f; }
    else if (c >= 0xe0 && c <= 0xef) { n = 3; cp = c & 0x0f; }
    else if (c >= 0xf0 && c <= 0xf4) { n = 4; cp = c & 0x07; }
    else return 0;
    if (i + n > s.size())
        return 0;
    for (size_t k = 1; k < n; ++k) {
        if ((b(i + k) & 0xc0) != 0x80)
            return 0;
        cp = (cp << 6) | (b(i + k) & 0x3f);
    }
    if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return n;
}

bool isUtf8(std::string_view text)
{
    for (size_t i = 0; i < text.size();) {
        if (static_cast<unsigned char>(text[i]) < 0x80)
            ++i;
        else if (const size_t n = utf8Length(text, i); n > 0)
            i += n;
        else
            return false;
    }
    return true;
}

namespace {

/// Whether the UTF-8 character of `n` bytes at `s[i]` is a C1 control (U+0080-U+009F) or one of
/// the bidirectional embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069), which
/// reorder what a terminal shows after them.
bool isControl(std::string_view s, size_t i, size_t n)
{
    const auto b = [&](size_t k) { return static_cast<unsigned char>(s[i + k]); };
    if (n == 2)
        return b(0) == 0xc2 && b(1) < 0xa0;
    return n == 3 && b(0) == 0xe2
           && ((b(1) == 0x80 && b(2) >= 0xaa && b(2) <= 0xae) || (b(1) == 0x81 && b(2) >= 0xa6 && b(2) <= 0xa9));
}

} // namespace

std::string printableText(std::string_view text, bool keepLineBreaks)
{
    static const char* hex = "0123456789abcdef";
    std::string out;
    out.reserve(text.size());
    for (size_t i = 0; i < text.size();) {
        const auto c = static_cast<unsigned char>(text[i]);
        if ((c >= 0x20 && c < 0x7f) || (keepLineBreaks && (c == '\n' || c == '\t'))) {
            out += static_cast<char>(c);
            ++i;
        } else if (keepLineBreaks && c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') {   // a CRLF line end
            out += static_cast<char>(c);
            ++i;
        } else if (size_t n = c >= 0x80 ? utf8Length(text, i) : 0; n > 0 && !isControl(text, i, n)) {
            out.append(text.substr(i, n));
            i += n;
        } else {
            out += "\\x";
            out += hex[c >> 4];
            out += hex[c & 15];
            ++i;
        }
    }
    return out;
}

} // namespace loopscope
