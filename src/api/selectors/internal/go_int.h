#pragma once

#include <charconv>
#include <cstdint>
#include <string_view>

namespace svcplane::api::selectors::internal {

// strconv.ParseInt(s, 10, 64): optional '+' or '-', then one or more decimal digits, no
// spaces, no overflow. Never allocates.
inline bool ParseGoInt64(std::string_view s, int64_t* out) {
  bool neg = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    neg = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s.empty()) return false;
  uint64_t mag = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), mag);
  if (ec != std::errc() || ptr != s.data() + s.size()) return false;
  constexpr uint64_t kMaxPos = static_cast<uint64_t>(INT64_MAX);
  if (neg) {
    if (mag > kMaxPos + 1) return false;
    *out = mag == kMaxPos + 1 ? INT64_MIN : -static_cast<int64_t>(mag);
  } else {
    if (mag > kMaxPos) return false;
    *out = static_cast<int64_t>(mag);
  }
  return true;
}

}  // namespace svcplane::api::selectors::internal
