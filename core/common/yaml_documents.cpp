#include "common/yaml_documents.h"

#include <sstream>
#include <vector>

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

namespace loopscope {

namespace {

/// Records where each document of a YAML stream starts.
class DocumentStarts : public YAML::EventHandler {
public:
    std::vector<YAML::Mark> starts;

    void OnDocumentStart(const YAML::Mark& mark) override { starts.push_back(mark); }
    void OnDocumentEnd() override {}
    void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
    void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
    void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
    void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
    void OnSequenceEnd() override {}
    void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
    void OnMapEnd() override {}
};

} // namespace

YamlDocuments scanYamlDocuments(const std::string& text)
{
    YamlDocuments out;
    DocumentStarts documents;
    try {
        std::istringstream in(text);
        YAML::Parser parser(in);
        while (documents.starts.size() < 2 && parser.HandleNextDocument(documents)) {
        }
    } catch (const YAML::Exception& e) {
        out.kind = YamlDocuments::Kind::SyntaxError;
        out.line = e.mark.line;
        out.column = e.mark.column;
        out.message = e.msg.empty() ? std::string(e.what()) : e.msg;
        return out;
    }
    out.count = static_cast<int>(documents.starts.size());
    if (!documents.starts.empty()) {
        out.firstLine = documents.starts[0].line;
        out.firstColumn = documents.starts[0].column;
    }
    if (documents.starts.size() < 2)
        return out;
    const YAML::Mark& first = documents.starts[0];
    const YAML::Mark& second = documents.starts[1];
    out.line = second.line;
    out.column = second.column;
    if (second.pos == first.pos) {
        out.kind = YamlDocuments::Kind::Stuck;
        const size_t at = second.pos >= 0 ? static_cast<size_t>(second.pos) : 0;
        out.message = at < text.size() ? "'" + std::string(1, text[at]) + "'" : "input";
    } else {
        out.kind = YamlDocuments::Kind::Second;
    }
    return out;
}

} // namespace loopscope
