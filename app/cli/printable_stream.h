// The CLI's output as a terminal can show it: every byte the commands write to stdout and
// stderr passes through printableText (control characters as \xNN, line breaks and tabs kept),
// so a kernel's key written with a YAML escape ("\e[31m"), a variant's name or a path typed with
// a control character cannot drive the terminal. JSON needs nothing: nlohmann escapes them.
#pragma once

#include "common/printable_text.h"

#include <ostream>
#include <streambuf>
#include <string>

namespace loopscope::cli {

/// A stream buffer that writes whole lines (or, on a flush, everything up to a UTF-8 character
/// the next write may complete) through printableText to another stream's buffer.
class PrintableStreambuf : public std::streambuf {
public:
    explicit PrintableStreambuf(std::ostream& target) : m_target(*target.rdbuf()) {}
    ~PrintableStreambuf() override
    {
        pass(m_pending.size());
        m_target.pubsync();
    }
    PrintableStreambuf(const PrintableStreambuf&) = delete;
    PrintableStreambuf& operator=(const PrintableStreambuf&) = delete;

protected:
    int_type overflow(int_type c) override
    {
        if (traits_type::eq_int_type(c, traits_type::eof()))
            return traits_type::not_eof(c);
        const char ch = traits_type::to_char_type(c);
        m_pending += ch;
        if (ch == '\n')
            pass(m_pending.size());
        return c;
    }
    std::streamsize xsputn(const char* s, std::streamsize n) override
    {
        m_pending.append(s, static_cast<size_t>(n));
        if (const size_t nl = m_pending.rfind('\n'); nl != std::string::npos)
            pass(nl + 1);
        return n;
    }
    int sync() override
    {
        // Keep the start of a character cut by the flush (at most three bytes that a longer
        // character could begin with), so that it is not written as \xNN.
        size_t keep = 0;
        for (size_t k = 1; k <= 3 && k <= m_pending.size(); ++k) {
            const auto c = static_cast<unsigned char>(m_pending[m_pending.size() - k]);
            if (c >= 0xc0) {
                const size_t need = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
                keep = need > k ? k : 0;
                break;
            }
            if ((c & 0xc0) != 0x80)
                break;
        }
        pass(m_pending.size() - keep);
        return m_target.pubsync();
    }

private:
    void pass(size_t n)
    {
        if (n == 0)
            return;
        const std::string text = printableText(std::string_view(m_pending).substr(0, n), true);
        m_target.sputn(text.data(), static_cast<std::streamsize>(text.size()));
        m_pending.erase(0, n);
    }

    std::streambuf& m_target;
    std::string m_pending;
};

} // namespace loopscope::cli
