#include "apiserver/http/token_file.h"

#include <gtest/gtest.h>

namespace svcplane::apiserver::http {
namespace {

using Strings = std::vector<std::string>;

TEST(CsvTest, QuotingFollowsRfc4180) {
  auto r = ParseCsv("a,b,\"c,d\"\n\"x\"\"y\",,\"multi\nline\"\r\n\nlast,no-newline");
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->size(), 3u);
  EXPECT_EQ((*r)[0], (Strings{"a", "b", "c,d"}));
  EXPECT_EQ((*r)[1], (Strings{"x\"y", "", "multi\nline"}));
  EXPECT_EQ((*r)[2], (Strings{"last", "no-newline"}));
}

TEST(CsvTest, NoTrimmingAndVariableFieldCounts) {
  auto r = ParseCsv(" a , b\nc\n");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)[0], (Strings{" a ", " b"}));
  EXPECT_EQ((*r)[1], (Strings{"c"}));
}

TEST(CsvTest, BadQuotesAreErrorsWithLineAndColumn) {
  auto bare = ParseCsv("ok,1,2\nab\"c,1,2\n");
  ASSERT_FALSE(bare.ok());
  EXPECT_EQ(bare.status().message(),
            "parse error on line 2, column 3: bare \" in non-quoted-field");
  auto extraneous = ParseCsv("\"ab\"c,1,2\n");
  ASSERT_FALSE(extraneous.ok());
  EXPECT_EQ(extraneous.status().message(),
            "parse error on line 1, column 5: extraneous or missing \" in quoted-field");
  EXPECT_FALSE(ParseCsv("\"never closed,1,2\n").ok());
}

TEST(TokenFileTest, ParsesUsersUidsAndGroups) {
  auto f =
      TokenFile::Parse("tokens.csv",
                       "admintok,admin,u-admin,\"system:masters\"\n"
                       "janetok,jane,u-jane,\"dev\"\n"
                       "bobtok,bob,u-bob\n"
                       "sa,system:serviceaccount:kube-system:coredns,u-c,"
                       "\"system:serviceaccounts,system:serviceaccounts:kube-system\",ignored\n"
                       "spaced,s,,\"a, b\"\n");
  ASSERT_TRUE(f.ok()) << f.status().message();
  EXPECT_EQ(f->size(), 5u);
  const Identity* jane = f->Lookup("janetok");
  ASSERT_NE(jane, nullptr);
  EXPECT_EQ(*jane, (Identity{"jane", {"dev"}, "u-jane", {}}));
  const Identity* bob = f->Lookup("bobtok");
  ASSERT_NE(bob, nullptr);
  EXPECT_EQ(*bob, (Identity{"bob", {}, "u-bob", {}}));
  const Identity* sa = f->Lookup("sa");
  ASSERT_NE(sa, nullptr);
  EXPECT_EQ(sa->groups, (Strings{"system:serviceaccounts", "system:serviceaccounts:kube-system"}));
  const Identity* spaced = f->Lookup("spaced");
  ASSERT_NE(spaced, nullptr);
  EXPECT_EQ(spaced->groups, (Strings{"a", " b"}));  // no trimming
  EXPECT_EQ(spaced->uid, "");
  EXPECT_EQ(f->Lookup("nope"), nullptr);
  EXPECT_EQ(f->Lookup("janeto"), nullptr);
  EXPECT_EQ(f->Lookup(""), nullptr);
}

TEST(TokenFileTest, EmptyFourthColumnIsOneEmptyGroupAsInGo) {
  auto f = TokenFile::Parse("t.csv", "tok,u,id,\n");
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->Lookup("tok")->groups, (Strings{""}));
}

TEST(TokenFileTest, TooFewColumnsIsTheUpstreamError) {
  auto f = TokenFile::Parse("/etc/tokens.csv", "a,b,c\nonly,two\n");
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.status().message(),
            "token file '/etc/tokens.csv' must have at least 3 columns (token, user name, user "
            "uid), found 2");
  // No comment syntax: "# x" is a one-column record.
  auto comment = TokenFile::Parse("t.csv", "# tokens\n");
  ASSERT_FALSE(comment.ok());
  EXPECT_NE(comment.status().message().find("found 1"), std::string::npos);
}

TEST(TokenFileTest, DuplicateTokenLastWinsAndEmptyTokenIsSkipped) {
  std::vector<std::string> warnings;
  auto f = TokenFile::Parse("t.csv", "dup,first,1\n,nobody,2\ndup,second,3\n", &warnings);
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->size(), 1u);
  EXPECT_EQ(f->Lookup("dup")->user, "second");
  ASSERT_EQ(warnings.size(), 2u);
  EXPECT_EQ(warnings[0], "empty token has been found in token file 't.csv', record number '2'");
  EXPECT_EQ(warnings[1], "duplicate token has been found in token file 't.csv', record number '3'");
}

TEST(TokenFileTest, CsvErrorsNameTheFile) {
  auto f = TokenFile::Parse("t.csv", "a\"b,c,d\n");
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.status().message(),
            "token file 't.csv': parse error on line 1, column 2: bare \" in non-quoted-field");
}

TEST(TokenFileTest, MissingFileIsAnError) {
  auto f = TokenFile::Load("/nonexistent/tokens.csv");
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.status().message(), "token file '/nonexistent/tokens.csv' cannot be read");
}

}  // namespace
}  // namespace svcplane::apiserver::http
