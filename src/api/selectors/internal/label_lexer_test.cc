#include "api/selectors/internal/label_lexer.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace svcplane::api::selectors::internal {
namespace {

// Upstream TestLexer: the first token of each input and its literal.
TEST(LabelLexer, SingleTokens) {
  struct Case {
    std::string_view s;
    Token t;
  };
  const Case cases[] = {
      {"", Token::kEndOfString},  {",", Token::kComma},       {"notin", Token::kNotIn},
      {"in", Token::kIn},         {"=", Token::kEquals},      {"==", Token::kDoubleEquals},
      {">", Token::kGreaterThan}, {"<", Token::kLessThan},    {"!", Token::kDoesNotExist},
      {"!=", Token::kNotEquals},  {"(", Token::kOpenPar},     {")", Token::kClosedPar},
      {"~", Token::kIdentifier},  {"||", Token::kIdentifier},
  };
  for (const Case& c : cases) {
    Lexer lexer(c.s);
    ScannedItem item = lexer.Lex();
    EXPECT_EQ(item.tok, c.t) << c.s;
    EXPECT_EQ(item.literal, c.s);
  }
}

std::vector<Token> Tokens(std::string_view s) {
  std::vector<Token> out;
  for (const ScannedItem& item : ScanAll(s)) out.push_back(item.tok);
  return out;
}

// Upstream TestLexerSequence / TestParserLookahead.
TEST(LabelLexer, Sequences) {
  using T = Token;
  EXPECT_EQ(Tokens("key in ( value )"),
            (std::vector<T>{T::kIdentifier, T::kIn, T::kOpenPar, T::kIdentifier, T::kClosedPar,
                            T::kEndOfString}));
  EXPECT_EQ(Tokens("key notin ( value )"),
            (std::vector<T>{T::kIdentifier, T::kNotIn, T::kOpenPar, T::kIdentifier, T::kClosedPar,
                            T::kEndOfString}));
  EXPECT_EQ(Tokens("key in ( value1, value2 )"),
            (std::vector<T>{T::kIdentifier, T::kIn, T::kOpenPar, T::kIdentifier, T::kComma,
                            T::kIdentifier, T::kClosedPar, T::kEndOfString}));
  EXPECT_EQ(Tokens("key"), (std::vector<T>{T::kIdentifier, T::kEndOfString}));
  EXPECT_EQ(Tokens("!key"), (std::vector<T>{T::kDoesNotExist, T::kIdentifier, T::kEndOfString}));
  EXPECT_EQ(Tokens("()"), (std::vector<T>{T::kOpenPar, T::kClosedPar, T::kEndOfString}));
  EXPECT_EQ(Tokens(""), (std::vector<T>{T::kEndOfString}));
  EXPECT_EQ(Tokens("x in (),y"), (std::vector<T>{T::kIdentifier, T::kIn, T::kOpenPar, T::kClosedPar,
                                                 T::kComma, T::kIdentifier, T::kEndOfString}));
  EXPECT_EQ(Tokens("== != (), = notin"),
            (std::vector<T>{T::kDoubleEquals, T::kNotEquals, T::kOpenPar, T::kClosedPar, T::kComma,
                            T::kEquals, T::kNotIn, T::kEndOfString}));
  EXPECT_EQ(Tokens("key>2"),
            (std::vector<T>{T::kIdentifier, T::kGreaterThan, T::kIdentifier, T::kEndOfString}));
  EXPECT_EQ(Tokens("key<1"),
            (std::vector<T>{T::kIdentifier, T::kLessThan, T::kIdentifier, T::kEndOfString}));
}

TEST(LabelLexer, LongestSpecialTokenAndLiterals) {
  auto items = ScanAll("a!==b!(c<=d");
  std::vector<std::string> lits;
  for (const ScannedItem& item : items) lits.emplace_back(item.literal);
  EXPECT_EQ(lits,
            (std::vector<std::string>{"a", "!=", "=", "b", "!", "(", "c", "<", "=", "d", ""}));
  // Keywords are whole identifiers only.
  EXPECT_EQ(ScanAll("inx")[0].tok, Token::kIdentifier);
  EXPECT_EQ(ScanAll("IN")[0].tok, Token::kIdentifier);
  EXPECT_EQ(ScanAll("notin(")[0].tok, Token::kNotIn);
}

TEST(LabelLexer, NulBytes) {
  // Inside an identifier a NUL ends it and is consumed; at a token start it ends the input.
  auto mid = ScanAll(std::string_view("ab\0cd", 5));
  ASSERT_EQ(mid.size(), 3u);
  EXPECT_EQ(mid[0].literal, "ab");
  EXPECT_EQ(mid[1].literal, "cd");
  auto start = ScanAll(std::string_view("a \0cd", 5));
  ASSERT_EQ(start.size(), 2u);
  EXPECT_EQ(start[1].tok, Token::kEndOfString);
}

}  // namespace
}  // namespace svcplane::api::selectors::internal
