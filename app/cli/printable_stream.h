// The CLI's output as a terminal can show it: every byte the commands write to stdout and
// stderr passes through printableText (control characters as \xNN, line breaks and tabs kept),
// so a kernel's key written with a YAML escape ("\e[31m"), a variant's name or a path typed with
// a control character cannot drive the terminal. JSON passes unchanged: jsonText writes every
// such character as \uXXXX.
#pragma once

#include "common/printable_text.h"

#include <ostream>
#include <streambuf>
#include <string>
#include <string_view>

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
        if (m_failed)
            return traits_type::eof();
        const char ch = traits_type::to_char_type(c);
        m_pending += ch;
        if (ch == '\n')
            pass(m_pending.size());
        return c;
    }
    std::streamsize xsputn(const char* s, std::streamsize n) override
    {
        if (m_failed)
            return 0;
        // Only the new text is searched for a line's end: a long line written in small pieces
        // is not scanned again at each.
        const size_t before = m_pending.size();
        m_pending.append(s, static_cast<size_t>(n));
        if (const size_t nl = std::string_view(s, static_cast<size_t>(n)).rfind('\n'); nl != std::string_view::npos)
            pass(before + nl + 1);
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
        return m_failed ? -1 : m_target.pubsync();
    }

private:
    void pass(size_t n)
    {
        if (n == 0)
            return;
        const std::string text = printableText(std::string_view(m_pending).substr(0, n), true);
        // A stream that cannot be written (stdout closed, a full disk) fails the stream, as it would
        // have without this buffer.
        if (m_target.sputn(text.data(), static_cast<std::streamsize>(text.size())) != static_cast<std::streamsize>(text.size()))
            m_failed = true;
        m_pending.erase(0, n);
    }

    std::streambuf& m_target;
    std::string m_pending;
    bool m_failed = false;
};

} // namespace loopscope::cli
