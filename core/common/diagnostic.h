// Source locations and user-facing error values shared by every layer.
#pragma once

#include "common/text_file.h"  // readTextFile, which most readers of user files use with diagnostics

#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace loopscope {

/// A position in a user-edited file; line and column are 1-based, 0 = unknown.
struct SourceLoc {
    std::string file;
    int line = 0;
    int column = 0;

    bool known() const { return line > 0; }
    /// "file:line:column" (or just "file" when the position is unknown).
    std::string str() const;
};

enum class Severity { Error, Warning, Hint };

/// One problem found in user input, ready to show: where and what.
struct Diagnostic {
    Severity severity = Severity::Error;
    SourceLoc loc;
    std::string message;

    /// "file:line:column: error: message", control characters written as \xNN (printableText)
    std::string str() const;
};

/// A value or a list of diagnostics (at least one error). Readers and loaders return this
/// instead of throwing, so callers must decide what to show.
template <typename T>
class Result {
public:
    Result(T value) : m_v(std::move(value)) {}
    Result(Diagnostic d) : m_v(std::vector<Diagnostic>{std::move(d)}) {}
    Result(std::vector<Diagnostic> ds) : m_v(std::move(ds)) {}

    bool ok() const { return m_v.index() == 0; }
    explicit operator bool() const { return ok(); }
    T& value() { return std::get<0>(m_v); }
    const T& value() const { return std::get<0>(m_v); }
    T& operator*() { return value(); }
    const T& operator*() const { return value(); }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }
    const std::vector<Diagnostic>& errors() const { return std::get<1>(m_v); }
    /// All diagnostics joined by newlines.
    std::string errorText() const;

private:
    std::variant<T, std::vector<Diagnostic>> m_v;
};

std::string joinDiagnostics(const std::vector<Diagnostic>& ds);

template <typename T>
std::string Result<T>::errorText() const
{
    return ok() ? std::string() : joinDiagnostics(errors());
}

} // namespace loopscope
