#include "apiserver/fieldmanager/internal/go_quote.h"

namespace svcplane::apiserver::fieldmanager::internal {
namespace {

constexpr char kHex[] = "0123456789abcdef";

void AppendHexEscape(std::string& out, const char* prefix, uint32_t r, int digits) {
  out += prefix;
  for (int shift = (digits - 1) * 4; shift >= 0; shift -= 4)
    out.push_back(kHex[(r >> shift) & 0xF]);
}

}  // namespace

size_t DecodeUtf8(std::string_view s, size_t i, uint32_t* rune) {
  auto c = static_cast<unsigned char>(s[i]);
  size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  uint32_t r = n == 1 ? c : n == 2 ? (c & 0x1F) : n == 3 ? (c & 0x0F) : (c & 0x07);
  for (size_t k = 1; k < n; ++k) {
    auto cc = static_cast<unsigned char>(s[i + k]);
    if ((cc & 0xC0) != 0x80) return 0;
    r = (r << 6) | (cc & 0x3F);
  }
  static constexpr uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
  if (r < kMin[n] || r > 0x10FFFF || (r >= 0xD800 && r <= 0xDFFF)) return 0;
  *rune = r;
  return n;
}

bool GoIsPrint(uint32_t r) {
  if (r < 0x80) return r >= 0x20 && r < 0x7F;
  return !(r < 0xA1 || r == 0xAD || r == 0x2028 || r == 0x2029 || r == 0xFEFF ||
           (r >= 0x2000 && r <= 0x200F) || r == 0x3000 || r == 0x1680 || r == 0x202F ||
           r == 0x205F);
}

std::string GoQuote(std::string_view s) {
  std::string out = "\"";
  for (size_t i = 0; i < s.size();) {
    uint32_t r = 0;
    size_t n = DecodeUtf8(s, i, &r);
    if (n == 0) {
      AppendHexEscape(out, "\\x", static_cast<unsigned char>(s[i]), 2);
      ++i;
      continue;
    }
    switch (r) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\a':
        out += "\\a";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\v':
        out += "\\v";
        break;
      default:
        if (GoIsPrint(r)) {
          out.append(s.substr(i, n));
        } else if (r < 0x80) {
          AppendHexEscape(out, "\\x", r, 2);
        } else if (r < 0x10000) {
          AppendHexEscape(out, "\\u", r, 4);
        } else {
          AppendHexEscape(out, "\\U", r, 8);
        }
    }
    i += n;
  }
  out.push_back('"');
  return out;
}

}  // namespace svcplane::apiserver::fieldmanager::internal
