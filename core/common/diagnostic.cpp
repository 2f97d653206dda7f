// Formatting of source locations and diagnostics.
#include "common/diagnostic.h"


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
    std::string where = loc.str();
    return (where.empty() ? std::string() : where + ": ") + sev + ": " + message;
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
