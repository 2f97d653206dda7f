// scanYamlDocuments: every file Loopscope reads is one YAML document; a second one with a node is
// refused (it would be dropped without a word), empty ones after it are not (a trailing `---`);
// a file that is not UTF-8 (nor UTF-16/32) is refused at its first stray byte.
#include "common/diagnostic.h"
#include "common/yaml_documents.h"

#include <gtest/gtest.h>

using loopscope::scanYamlDocuments;
using Kind = loopscope::YamlDocuments::Kind;

TEST(YamlDocuments, OneDocumentWithOrWithoutMarkers)
{
    for (const char* text : {"a: 1\n", "---\na: 1\n", "a: 1\n...\n", "a: 1\n---\n", "a: 1\n---\n---\n", "# only a comment\n", "", "---\n"})
        EXPECT_EQ(scanYamlDocuments(text).kind, Kind::One) << text;
    EXPECT_EQ(scanYamlDocuments("").count, 0);
    EXPECT_EQ(scanYamlDocuments("a: 1\n").count, 1);
}

TEST(YamlDocuments, ASecondDocumentWithANodeIsNamedWhereItStarts)
{
    const auto d = scanYamlDocuments("a: 1\n---\nb: 2\n");
    EXPECT_EQ(d.kind, Kind::Second);
    EXPECT_EQ(d.line, 1);  // 0-based: the `---` on the second line
    EXPECT_EQ(d.column, 0);
    // After empty ones too.
    const auto later = scanYamlDocuments("a: 1\n---\n---\n- x\n");
    EXPECT_EQ(later.kind, Kind::Second);
    EXPECT_EQ(later.line, 2);
}

TEST(YamlDocuments, SyntaxErrorsAndAStuckParserEndTheScan)
{
    EXPECT_EQ(scanYamlDocuments("a: [1, 2\n").kind, Kind::SyntaxError);
    // yaml-cpp 0.7 loops on a stray ',' (jbeder/yaml-cpp#1040): the scan stops and says where.
    const auto stuck = scanYamlDocuments(",\n");
    EXPECT_TRUE(stuck.kind == Kind::Stuck || stuck.kind == Kind::SyntaxError) << static_cast<int>(stuck.kind);
}

TEST(YamlDocuments, AFileThatIsNotUtf8IsNamedAtItsFirstStrayByte)
{
    // A Latin-1 'é' (0xe9) on the second line, fifth column.
    const auto latin1 = scanYamlDocuments("a: 1\nb: x\xe9y\n");
    EXPECT_EQ(latin1.kind, Kind::NotUtf8);
    EXPECT_EQ(latin1.line, 1);
    EXPECT_EQ(latin1.column, 4);
    EXPECT_EQ(latin1.message, "the file is not UTF-8 text: byte 0xe9 (save it as UTF-8)");
    // Lines end where yaml-cpp ends them: at \r\n and at a lone \r too.
    const auto crlf = scanYamlDocuments("a: 1\r\nb: 2\rc: x\xe9\n");
    EXPECT_EQ(crlf.kind, Kind::NotUtf8);
    EXPECT_EQ(crlf.line, 2);
    EXPECT_EQ(crlf.column, 4);
    // UTF-8 text is read, with or without its byte-order mark.
    EXPECT_EQ(scanYamlDocuments("a: caf\xc3\xa9 \xe2\x80\x94 \xf0\x9f\x98\x80\n").kind, Kind::One);
    EXPECT_EQ(scanYamlDocuments("\xef\xbb\xbf" "a: 1\n").kind, Kind::One);
    // Overlong forms, surrogates and a sequence cut off at the end are not UTF-8.
    for (const char* text : {"a: \xc0\xaf\n", "a: \xed\xa0\x80\n", "a: \xe2\x80", "a: \xf5\x80\x80\x80\n", "a: \x80\n"})
        EXPECT_EQ(scanYamlDocuments(text).kind, Kind::NotUtf8) << text;
    // UTF-16 (a byte-order mark, or zero bytes) is left to yaml-cpp, which decodes it.
    const std::string utf16le("\xff\xfe" "a\0:\0 \0" "1\0\n\0", 12);
    EXPECT_EQ(scanYamlDocuments(utf16le).kind, Kind::One);
}

TEST(YamlDocuments, MessagesShowStrayBytesAsHex)
{
    using loopscope::printableText;
    // yaml-cpp quotes the byte it could not use as it is (a binary file's 0xd5).
    EXPECT_EQ(printableText("unknown escape character: \xd5"), "unknown escape character: \\xd5");
    EXPECT_EQ(printableText("tab\there\x01"), "tab\\x09here\\x01");
    EXPECT_EQ(printableText("caf\xc3\xa9 \xe2\x80\x94 ok"), "caf\xc3\xa9 \xe2\x80\x94 ok");
    EXPECT_EQ(printableText("\xc3"), "\\xc3");
    EXPECT_EQ(printableText("c1\xc2\x85."), "c1\\xc2\\x85.");   // U+0085, a C1 control
}

TEST(PrintableText, ControlsAreHexLineBreaksStayWhenAsked)
{
    using loopscope::printableText;
    EXPECT_EQ(printableText("a\nb\tc\x1b[0m\x7f"), "a\\x0ab\\x09c\\x1b[0m\\x7f");
    EXPECT_EQ(printableText("a\nb\tc\x1b[0m\x7f", true), "a\nb\tc\\x1b[0m\\x7f");
    EXPECT_EQ(printableText("a\r\nb\rc", true), "a\r\nb\\x0dc");   // a CRLF line end stays, a lone CR does not
    EXPECT_EQ(printableText("\xc2\xa0\xc2\x9b", true), "\xc2\xa0\\xc2\\x9b");   // NBSP stays, CSI does not
    EXPECT_EQ(printableText("a\xe2\x80\xae" "b\xe2\x81\xa6" "c\xe2\x80\x94"), "a\\xe2\\x80\\xae" "b\\xe2\\x81\\xa6" "c\xe2\x80\x94");   // RLO, LRI; the dash stays
    const loopscope::Diagnostic d{loopscope::Severity::Error, {"k\x1b.yaml", 3, 1}, "unknown key 'a\x07'\nsecond line"};
    EXPECT_EQ(d.str(), "k\\x1b.yaml:3:1: error: unknown key 'a\\x07'\nsecond line");
}
