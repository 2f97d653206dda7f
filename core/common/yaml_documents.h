// How many YAML documents a file holds, found without building its nodes: every file Loopscope
// reads (kernel, schedule, target) is one document, and a second one would otherwise be dropped
// without a word (YAML::Load reads the first).
#pragma once

#include <string>

namespace loopscope {

struct YamlDocuments {
    enum class Kind {
        One,          ///< one document, or none (an empty file), empty ones after it allowed (a trailing `---`): read it with YAML::Load
        Second,       ///< a second document with a node starts at (line, column)
        Stuck,        ///< the parser cannot use the character at (line, column): `message` names it
        SyntaxError,  ///< a syntax error at (line, column): `message` is the parser's
    };
    Kind kind = Kind::One;
    int line = 0, column = 0;  ///< 0-based, as YAML::Mark counts
    std::string message;
    int count = 0;                       ///< documents found, up to 2 (0: an empty stream); empty ones counted
    int firstLine = 0, firstColumn = 0;  ///< where the first one starts (count > 0)
};

/// Parses `text` as a YAML stream up to its second document, building nothing. Not
/// YAML::LoadAll: in yaml-cpp 0.7 it loops forever, allocating, on a stray ',' (jbeder/yaml-cpp
/// #1040, fixed upstream in #1319); a document that starts where the previous one did means the
/// parser is stuck on a character it cannot use (Kind::Stuck).
YamlDocuments scanYamlDocuments(const std::string& text);

} // namespace loopscope
