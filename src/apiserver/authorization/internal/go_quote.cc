#include "apiserver/authorization/internal/go_quote.h"

#include <cstdint>

namespace svcplane::apiserver::authorization::internal {
namespace {

// Length of the valid UTF-8 sequence starting at s[i], or 0.
size_t Utf8Length(std::string_view s, size_t i) {
  auto c = static_cast<uint8_t>(s[i]);
  size_t n = c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 && c < 0xE0 ? 2 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    if ((static_cast<uint8_t>(s[i + k]) & 0xC0) != 0x80) return 0;
  }
  auto c1 = static_cast<uint8_t>(s[i + 1]);
  if (c == 0xE0 && c1 < 0xA0) return 0;   // overlong
  if (c == 0xED && c1 >= 0xA0) return 0;  // surrogates
  if (c == 0xF0 && c1 < 0x90) return 0;
  if (c == 0xF4 && c1 >= 0x90) return 0;
  return n;
}

}  // namespace

void AppendGoQuote(std::string_view s, std::string* out) {
  static constexpr char kHex[] = "0123456789abcdef";
  out->push_back('"');
  for (size_t i = 0; i < s.size();) {
    auto c = static_cast<uint8_t>(s[i]);
    if (c >= 0x80) {
      size_t n = Utf8Length(s, i);
      if (n > 0) {
        out->append(s.substr(i, n));
        i += n;
        continue;
      }
    }
    switch (c) {
      case '"':
        out->append("\\\"");
        break;
      case '\\':
        out->append("\\\\");
        break;
      case '\a':
        out->append("\\a");
        break;
      case '\b':
        out->append("\\b");
        break;
      case '\f':
        out->append("\\f");
        break;
      case '\n':
        out->append("\\n");
        break;
      case '\r':
        out->append("\\r");
        break;
      case '\t':
        out->append("\\t");
        break;
      case '\v':
        out->append("\\v");
        break;
      default:
        if (c < 0x20 || c >= 0x7f) {
          out->append("\\x");
          out->push_back(kHex[c >> 4]);
          out->push_back(kHex[c & 0xf]);
        } else {
          out->push_back(static_cast<char>(c));
        }
    }
    ++i;
  }
  out->push_back('"');
}

std::string GoQuote(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  AppendGoQuote(s, &out);
  return out;
}

std::string GoQuoteList(const std::vector<std::string>& values) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out.push_back(' ');
    AppendGoQuote(values[i], &out);
  }
  out.push_back(']');
  return out;
}

}  // namespace svcplane::apiserver::authorization::internal
