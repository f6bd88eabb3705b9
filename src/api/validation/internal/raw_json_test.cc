#include "api/validation/internal/raw_json.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace svcplane::api::validation::internal {
namespace {

using ::testing::ElementsAre;
using ::testing::Pair;

TEST(RawJsonTest, ObjectMembersKeepRawValues) {
  auto m =
      ParseObjectMembers(R"( {"a": "x", "b" : {"c": [1, {"d": null}]}, "e": -2.5e3, "f": true} )");
  ASSERT_TRUE(m.has_value());
  EXPECT_THAT(*m, ElementsAre(Pair("a", "\"x\""), Pair("b", R"({"c": [1, {"d": null}]})"),
                              Pair("e", "-2.5e3"), Pair("f", "true")));
  auto empty = ParseObjectMembers("{}");
  ASSERT_TRUE(empty.has_value());
  EXPECT_TRUE(empty->empty());
}

TEST(RawJsonTest, EscapedKeysAndStrings) {
  auto m = ParseObjectMembers(R"({"a\"b": "c\\d"})");
  ASSERT_TRUE(m.has_value());
  EXPECT_THAT(*m, ElementsAre(Pair("a\"b", R"("c\\d")")));
}

TEST(RawJsonTest, EscapesBetweenPlainRunsAndJsonWhitespace) {
  auto m = ParseObjectMembers("{\t\"ab\\\"cd\\\\ef\"\r\n:\n\"x\\\"y\" ,\"k\":\"\"}");
  ASSERT_TRUE(m.has_value());
  EXPECT_THAT(*m, ElementsAre(Pair("ab\"cd\\ef", R"("x\"y")"), Pair("k", R"("")")));
  EXPECT_FALSE(ParseObjectMembers(R"({"unterminated: 1})").has_value());
  EXPECT_FALSE(ParseObjectMembers(R"({"a": "ends in a backslash\)").has_value());
}

TEST(RawJsonTest, RejectsNonObjectsAndGarbage) {
  EXPECT_FALSE(ParseObjectMembers("[]").has_value());
  EXPECT_FALSE(ParseObjectMembers("").has_value());
  EXPECT_FALSE(ParseObjectMembers(R"({"a":1)").has_value());
  EXPECT_FALSE(ParseObjectMembers(R"({"a":1} x)").has_value());
  EXPECT_FALSE(ParseObjectMembers(R"({"a" 1})").has_value());
  EXPECT_FALSE(ParseObjectMembers(R"({"a":})").has_value());
}

TEST(RawJsonTest, ScalarText) {
  EXPECT_EQ(ScalarText("\"250m\""), "250m");
  EXPECT_EQ(ScalarText("2"), "2");
  EXPECT_EQ(ScalarText("-1"), "-1");
  EXPECT_FALSE(ScalarText("null").has_value());
  EXPECT_FALSE(ScalarText("{}").has_value());
  EXPECT_FALSE(ScalarText("").has_value());
}

}  // namespace
}  // namespace svcplane::api::validation::internal
