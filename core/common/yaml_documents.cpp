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

/// "e9" for 0xe9.
std::string hexByte(unsigned char c)
{
    static const char* hex = "0123456789abcdef";
    return {hex[c >> 4], hex[c & 15]};
}

} // namespace

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
        out.message = printableText(e.msg.empty() ? std::string(e.what()) : e.msg);
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
        out.message = n > 0 ? "'" + printableText(std::string_view(text).substr(at, n)) + "'" : "input";
    } else if (documents.content[n - 1]) {
        out.kind = YamlDocuments::Kind::Second;
        out.line = last.line;
        out.column = last.column;
    }
    return out;
}

} // namespace loopscope
