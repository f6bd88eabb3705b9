#pragma once

#include <string_view>
#include <vector>

namespace svcplane::api::selectors::internal {

// The token kinds of apimachinery's label selector lexer.
enum class Token {
  kError,
  kEndOfString,
  kClosedPar,
  kComma,
  kDoesNotExist,
  kDoubleEquals,
  kEquals,
  kGreaterThan,
  kIdentifier,
  kIn,
  kLessThan,
  kNotEquals,
  kNotIn,
  kOpenPar,
};

struct ScannedItem {
  Token tok;
  std::string_view literal;  // points into the input
};

// labels.Lexer: one token per call, the longest special-symbol token first ("!=" over "!"),
// keywords "in"/"notin" recognised wherever they stand. Returns kEndOfString at the end or at
// a NUL byte that starts a token (Go's read() returns 0 for both).
class Lexer {
 public:
  explicit Lexer(std::string_view s) : s_(s) {}
  ScannedItem Lex();

 private:
  char Read();
  void Unread() { --pos_; }
  char SkipWhiteSpaces(char ch);
  ScannedItem ScanIdOrKeyword();
  ScannedItem ScanSpecialSymbol();

  std::string_view s_;
  size_t pos_ = 0;
};

// Every token up to and including kEndOfString (Parser.scan).
std::vector<ScannedItem> ScanAll(std::string_view s);

}  // namespace svcplane::api::selectors::internal
