#include "common/yaml_documents.h"

#include <algorithm>
#include <cstdint>
#include <sstream>
#include <vector>

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

namespace loopscope {

namespace {

/// Records where each document of a YAML stream starts, and whether it holds a node (an empty
/// document, the `---` some editors leave at the end, is only an OnNull).
class DocumentStarts : public YAML::EventHandler {
public:
    std::vector<YAML::Mark> starts;
    std::vector<bool> content;

    void OnDocumentStart(const YAML::Mark& mark) override
    {
        starts.push_back(mark);
        content.push_back(false);
    }
    void OnDocumentEnd() override {}
    void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
    void OnAlias(const YAML::Mark&, YAML::anchor_t) override { held(); }
    void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override { held(); }
    void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override { held(); }
    void OnSequenceEnd() override {}
    void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override { held(); }
    void OnMapEnd() override {}

private:
    void held()
    {
        if (!content.empty())
            content.back() = true;
    }
};

/// Bytes of the UTF-8 character starting at `s[i]` (0: none starts there, or it is malformed,
/// overlong or a surrogate).
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

std::string hexByte(unsigned char c)
{
    static const char* hex = "0123456789abcdef";
    return {hex[c >> 4], hex[c & 15]};
}

} // namespace

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

std::string printableYamlMessage(std::string_view message)
{
    std::string out;
    out.reserve(message.size());
    for (size_t i = 0; i < message.size();) {
        const auto c = static_cast<unsigned char>(message[i]);
        if (c >= 0x20 && c < 0x7f) {
            out += static_cast<char>(c);
            ++i;
        } else if (size_t n = c >= 0x80 ? utf8Length(message, i) : 0;
                   n > 0 && !(c == 0xc2 && static_cast<unsigned char>(message[i + 1]) < 0xa0)) {   // not a C1 control
            out.append(message.substr(i, n));
            i += n;
        } else {
            out += "\\x" + hexByte(c);
            ++i;
        }
    }
    return out;
}

YamlDocuments scanYamlDocuments(const std::string& text)
{
    YamlDocuments out;
    // UTF-16 and UTF-32 start with a byte-order mark or have a zero byte among the first four.
    const bool wide = text.find('\0') < 4 || text.rfind("\xff\xfe", 0) == 0 || text.rfind("\xfe\xff", 0) == 0;
    if (!wide) {
        size_t lineStart = 0;
        for (size_t i = 0; i < text.size();) {
            const auto c = static_cast<unsigned char>(text[i]);
            if (c < 0x80) {
                // Lines end at \n, \r\n or a lone \r, as yaml-cpp counts them.
                if (c == '\n' || (c == '\r' && (i + 1 == text.size() || text[i + 1] != '\n'))) {
                    ++out.line;
                    lineStart = i + 1;
                }
                ++i;
                continue;
            }
            if (const size_t n = utf8Length(text, i); n > 0) {
                i += n;
                continue;
            }
            out.kind = YamlDocuments::Kind::NotUtf8;
            out.column = static_cast<int>(i - lineStart);
            out.message = "the file is not UTF-8 text: byte 0x" + hexByte(c) +
                          " (save it as UTF-8)";
            return out;
        }
        out.line = 0;
    }
    DocumentStarts documents;
    try {
        std::istringstream in(text);
        YAML::Parser parser(in);
        // Empty documents after the first are skipped; a second one with a node stops the scan,
        // as does one that starts where the previous one did (the parser stuck on a character).
        // Every document but a stuck one moves on in the text: at most one per character.
        for (size_t guard = 0; guard <= text.size() + 1 && parser.HandleNextDocument(documents); ++guard) {
            const size_t n = documents.starts.size();
            if (n >= 2 && (documents.starts[n - 1].pos == documents.starts[n - 2].pos || documents.content[n - 1]))
                break;
        }
    } catch (const YAML::Exception& e) {
        out.kind = YamlDocuments::Kind::SyntaxError;
        out.line = e.mark.line;
        out.column = e.mark.column;
        out.message = printableYamlMessage(e.msg.empty() ? std::string(e.what()) : e.msg);
        return out;
    }
    const size_t n = documents.starts.size();
    out.count = static_cast<int>(std::min<size_t>(n, 2));
    if (n > 0) {
        out.firstLine = documents.starts[0].line;
        out.firstColumn = documents.starts[0].column;
    }
    if (n < 2)
        return out;
    const YAML::Mark& previous = documents.starts[n - 2];
    const YAML::Mark& last = documents.starts[n - 1];
    if (last.pos == previous.pos) {
        out.kind = YamlDocuments::Kind::Stuck;
        out.line = last.line;
        out.column = last.column;
        const size_t at = last.pos >= 0 ? static_cast<size_t>(last.pos) : 0;
        // The character there: a UTF-8 one whole, else its byte as \xNN.
        const size_t n = at < text.size() ? std::max<size_t>(1, utf8Length(text, at)) : 0;
        out.message = n > 0 ? "'" + printableYamlMessage(std::string_view(text).substr(at, n)) + "'" : "input";
    } else if (documents.content[n - 1]) {
        out.kind = YamlDocuments::Kind::Second;
        out.line = last.line;
        out.column = last.column;
    }
    return out;
}

} // namespace loopscope
