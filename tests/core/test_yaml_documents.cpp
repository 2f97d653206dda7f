// scanYamlDocuments: every file Loopscope reads is one YAML document; a second one with a node is
// refused (it would be dropped without a word), empty ones after it are not (a trailing `---`).
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
