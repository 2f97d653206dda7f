// JSON text for output and for the workspace.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace loopscope::cli {

/// `j` as text, `indent` spaces per level (-1: one line). Bytes that are no part of a UTF-8
/// character (a Latin-1 file or folder name, a --name typed in a Latin-1 terminal) become U+FFFD
/// instead of nlohmann's exception, which made `workspace list --json` an internal error.
/// Characters nlohmann writes as they are although a terminal obeys them (DEL, the C1 controls,
/// the bidirectional overrides and isolates, which printableText writes as \xNN, no JSON) are
/// written as \uXXXX: JSON parsers read them back as they were.
template <typename Json>
std::string jsonText(const Json& j, int indent = 2)
{
    const std::string text = j.dump(indent, ' ', false, Json::error_handler_t::replace);
    static const char* hex = "0123456789abcdef";
    auto u = [&](std::string& out, unsigned cp) {
        out += "\\u";
        for (int shift = 12; shift >= 0; shift -= 4)
            out += hex[(cp >> shift) & 15];
    };
    std::string out;
    out.reserve(text.size());
    for (size_t i = 0; i < text.size(); ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        const auto next = [&](size_t k) { return i + k < text.size() ? static_cast<unsigned char>(text[i + k]) : 0u; };
        if (c == 0x7f) {
            u(out, 0x7f);
        } else if (c == 0xc2 && next(1) >= 0x80 && next(1) < 0xa0) {
            u(out, next(1));
            i += 1;
        } else if (c == 0xe2 && ((next(1) == 0x80 && next(2) >= 0xaa && next(2) <= 0xae) || (next(1) == 0x81 && next(2) >= 0xa6 && next(2) <= 0xa9))) {
            u(out, 0x2000u + ((next(1) & 0x3fu) << 6) + (next(2) & 0x3fu));
            i += 2;
        } else {
            out += static_cast<char>(c);
        }
    }
    return out;
}

} // namespace loopscope::cli
