#include "base/json_string.h"

#include <array>
#include <cstdint>

namespace svcplane {
namespace {

// 0: copy as is; 1: needs escaping; 2: lead byte of a possible U+2028/U+2029 (0xE2).
constexpr std::array<uint8_t, 256> MakeTable() {
  std::array<uint8_t, 256> t{};
  for (int c = 0; c < 0x20; ++c) t[c] = 1;
  t['"'] = t['\\'] = t['<'] = t['>'] = t['&'] = 1;
  t[0xE2] = 2;
  return t;
}
constexpr auto kEscape = MakeTable();
constexpr char kHex[] = "0123456789abcdef";

}  // namespace

// Copies unescaped runs in one append each: this is the codec's hot path for every string field.
void AppendJsonString(std::string& out, std::string_view s) {
  out.push_back('"');
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  size_t n = s.size();
  size_t run = 0;  // start of the pending unescaped run
  for (size_t i = 0; i < n; ++i) {
    uint8_t kind = kEscape[p[i]];
    if (kind == 0) continue;
    if (kind == 2) {
      if (i + 2 < n && p[i + 1] == 0x80 && (p[i + 2] == 0xA8 || p[i + 2] == 0xA9)) {
        out.append(s.data() + run, i - run);
        out.append(p[i + 2] == 0xA8 ? "\\u2028" : "\\u2029", 6);
        i += 2;
        run = i + 1;
      }
      continue;
    }
    out.append(s.data() + run, i - run);
    unsigned char c = p[i];
    switch (c) {
      case '"':
        out.append("\\\"", 2);
        break;
      case '\\':
        out.append("\\\\", 2);
        break;
      case '\n':
        out.append("\\n", 2);
        break;
      case '\r':
        out.append("\\r", 2);
        break;
      case '\t':
        out.append("\\t", 2);
        break;
      default: {
        char esc[6] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 0xF]};
        out.append(esc, 6);
      }
    }
    run = i + 1;
  }
  out.append(s.data() + run, n - run);
  out.push_back('"');
}

std::string JsonQuote(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  AppendJsonString(out, s);
  return out;
}

}  // namespace svcplane
