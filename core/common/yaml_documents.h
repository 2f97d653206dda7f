// How many YAML documents a file holds, found without building its nodes: every file Loopscope
// reads (kernel, schedule, target) is one document, and a second one would otherwise be dropped
// without a word (YAML::Load reads the first).
#pragma once

#include "common/printable_text.h"  // isUtf8, printableText: what callers of the scan need

#include <string>
#include <string_view>

namespace loopscope {

struct YamlDocuments {
    enum class Kind {
        One,          ///< one document, or none (an empty file), empty ones after it allowed (a trailing `---`): read it with YAML::Load
        Second,       ///< a second document with a node starts at (line, column)
        Stuck,        ///< the parser cannot use the character at (line, column): `message` names it
        SyntaxError,  ///< a syntax error at (line, column): `message` is the parser's
        NotUtf8,      ///< a byte at (line, column) is no part of a UTF-8 character: `message` names it
    };
    Kind kind = Kind::One;
    int line = 0, column = 0;  ///< 0-based, as YAML::Mark counts
    std::string message;
    int count = 0;                       ///< documents found, up to 2 (0: an empty stream); empty ones counted
    int firstLine = 0, firstColumn = 0;  ///< where the first one starts (count > 0)
};

/// Parses `text` as a YAML stream up to its second document, building nothing. A text that
/// does not start as UTF-16 or UTF-32 (a byte-order mark or a zero byte, which yaml-cpp decodes)
/// must be UTF-8: yaml-cpp passes other bytes on into keys and values, and so into messages,
/// file names and JSON, which cannot hold them (Kind::NotUtf8, checked first). Not
/// YAML::LoadAll: in yaml-cpp 0.7 it loops forever, allocating, on a stray ',' (jbeder/yaml-cpp
/// #1040, fixed upstream in #1319); a document that starts where the previous one did means the
/// parser is stuck on a character it cannot use (Kind::Stuck).
YamlDocuments scanYamlDocuments(const std::string& text);

} // namespace loopscope
