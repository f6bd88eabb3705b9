#include "api/selectors/internal/label_lexer.h"

#include <utility>

namespace svcplane::api::selectors::internal {
namespace {

// string2token: the literal tokens. Identifiers are everything else.
bool LookupToken(std::string_view s, Token* tok) {
  static constexpr std::pair<std::string_view, Token> kTokens[] = {
      {")", Token::kClosedPar},     {",", Token::kComma},    {"!", Token::kDoesNotExist},
      {"==", Token::kDoubleEquals}, {"=", Token::kEquals},   {">", Token::kGreaterThan},
      {"in", Token::kIn},           {"<", Token::kLessThan}, {"!=", Token::kNotEquals},
      {"notin", Token::kNotIn},     {"(", Token::kOpenPar},
  };
  for (const auto& [lit, t] : kTokens) {
    if (lit == s) {
      *tok = t;
      return true;
    }
  }
  return false;
}

bool IsWhitespace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

bool IsSpecialSymbol(char c) {
  switch (c) {
    case '=':
    case '!':
    case '(':
    case ')':
    case ',':
    case '>':
    case '<':
      return true;
    default:
      return false;
  }
}

}  // namespace

ScannedItem Lexer::Lex() {
  char ch = SkipWhiteSpaces(Read());
  if (ch == 0) return {Token::kEndOfString, {}};
  Unread();
  return IsSpecialSymbol(ch) ? ScanSpecialSymbol() : ScanIdOrKeyword();
}

char Lexer::Read() {
  if (pos_ < s_.size()) return s_[pos_++];
  return 0;
}

char Lexer::SkipWhiteSpaces(char ch) {
  while (IsWhitespace(ch)) ch = Read();
  return ch;
}

ScannedItem Lexer::ScanIdOrKeyword() {
  size_t start = pos_;
  size_t len = 0;
  while (true) {
    char ch = Read();
    if (ch == 0) break;
    if (IsSpecialSymbol(ch) || IsWhitespace(ch)) {
      Unread();
      break;
    }
    ++len;
  }
  std::string_view lit = s_.substr(start, len);
  Token tok;
  if (LookupToken(lit, &tok)) return {tok, lit};
  return {Token::kIdentifier, lit};
}

// Longest run of special symbols that still forms a token ("!=", but "!" then "(" for "!(").
ScannedItem Lexer::ScanSpecialSymbol() {
  size_t start = pos_;
  size_t len = 0;
  ScannedItem last{Token::kError, {}};
  while (true) {
    char ch = Read();
    if (ch == 0) break;
    if (!IsSpecialSymbol(ch)) {
      Unread();
      break;
    }
    ++len;
    Token tok;
    if (LookupToken(s_.substr(start, len), &tok)) {
      last = {tok, s_.substr(start, len)};
    } else if (last.tok != Token::kError) {
      Unread();
      break;
    }
  }
  if (last.tok == Token::kError) {
    // Unreachable in practice (every single special symbol is a token), kept for parity.
    return {Token::kError, s_.substr(start, len)};
  }
  return last;
}

std::vector<ScannedItem> ScanAll(std::string_view s) {
  std::vector<ScannedItem> items;
  Lexer lexer(s);
  while (true) {
    items.push_back(lexer.Lex());
    if (items.back().tok == Token::kEndOfString) return items;
  }
}

}  // namespace svcplane::api::selectors::internal
