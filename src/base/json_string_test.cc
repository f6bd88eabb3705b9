#include "base/json_string.h"

#include <gtest/gtest.h>

#include <string>

namespace svcplane {
namespace {

using namespace std::string_literals;

TEST(JsonQuoteTest, PlainTextIsOnlyQuoted) {
  EXPECT_EQ(JsonQuote(""), R"("")");
  EXPECT_EQ(JsonQuote("services \"web\""), R"("services \"web\"")");
  EXPECT_EQ(JsonQuote("a/b c:d"), R"("a/b c:d")");
}

TEST(JsonQuoteTest, EscapesQuoteBackslashAndShortForms) {
  EXPECT_EQ(JsonQuote("\"\\\n\r\t"), R"("\"\\\n\r\t")");
}

TEST(JsonQuoteTest, OtherControlCharactersUseFourHexDigits) {
  EXPECT_EQ(JsonQuote("a\x01z"), R"("a\u0001z")");
  EXPECT_EQ(JsonQuote("\x1f\b\f"), R"("\u001f\u0008\u000c")");
  EXPECT_EQ(JsonQuote("nul\0end"s), R"("nul\u0000end")");
}

TEST(JsonQuoteTest, EscapesHtmlCharactersAsGoDoes) {
  EXPECT_EQ(JsonQuote("<a href=x>&</a>"), R"("\u003ca href=x\u003e\u0026\u003c/a\u003e")");
}

TEST(JsonQuoteTest, EscapesLineAndParagraphSeparatorsOnly) {
  EXPECT_EQ(JsonQuote("a\u2028b\u2029c"), R"("a\u2028b\u2029c")");
  // Other characters with the same lead byte, and a truncated sequence, are copied as they are.
  EXPECT_EQ(JsonQuote("\u2026\u2030"), "\"\u2026\u2030\"");
  EXPECT_EQ(JsonQuote("x\xE2\x80"), "\"x\xE2\x80\"");
  EXPECT_EQ(JsonQuote("h\u00e9 \u65e5\u672c"), "\"h\u00e9 \u65e5\u672c\"");
}

TEST(JsonQuoteTest, AppendKeepsWhatIsThere) {
  std::string out = "{\"k\":";
  AppendJsonString(out, "v\n");
  EXPECT_EQ(out, R"({"k":"v\n")");
}

}  // namespace
}  // namespace svcplane
