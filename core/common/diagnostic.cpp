// Formatting of source locations and diagnostics.
#include "common/diagnostic.h"

#include "common/printable_text.h"

namespace loopscope {

std::string SourceLoc::str() const
{
    if (!known())
        return file;
    return file + ":" + std::to_string(line) + ":" + std::to_string(column);
}

std::string Diagnostic::str() const
{
    const char* sev = severity == Severity::Error ? "error" : severity == Severity::Warning ? "warning" : "hint";
    // Printable: a name in the message or the file's path may hold a control character (a YAML
    // escape, an argument), which a terminal would obey.
    std::string where = printableText(loc.str());
    return (where.empty() ? std::string() : where + ": ") + sev + ": " + printableText(message, true);
}

std::string joinDiagnostics(const std::vector<Diagnostic>& ds)
{
    std::string out;
    for (const auto& d : ds) {
        if (!out.empty())
            out += '\n';
        out += d.str();
    }
    return out;
}

} // namespace loopscope
