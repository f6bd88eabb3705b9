#pragma once

#include <simdjson.h>

#include <string_view>

namespace svcplane::api::codec::internal {

// UTF-8 validation with a fast path for short ASCII strings, which are most strings of an
// object (names, labels, timestamps, enum values): for them simdjson's dispatch to its SIMD
// kernel costs more than the check itself.
inline bool ValidUtf8(std::string_view s) {
  if (s.size() <= 64) {
    unsigned char any = 0;
    for (char c : s) any |= static_cast<unsigned char>(c);
    if (any < 0x80) return true;
  }
  return simdjson::validate_utf8(s.data(), s.size());
}

}  // namespace svcplane::api::codec::internal
