#include "apiserver/table/duration.h"

#include <fmt/format.h>

namespace svcplane::apiserver::table {

std::string HumanDuration(std::chrono::microseconds d) {
  using namespace std::chrono;
  // Go converts with int(), which truncates toward zero; so does duration_cast.
  const int64_t seconds = duration_cast<std::chrono::seconds>(d).count();
  if (seconds < -1) return "<invalid>";
  if (seconds < 0) return "0s";
  if (seconds < 60 * 2) return fmt::format("{}s", seconds);
  const int64_t minutes = duration_cast<std::chrono::minutes>(d).count();
  if (minutes < 10) {
    const int64_t s = seconds % 60;
    if (s == 0) return fmt::format("{}m", minutes);
    return fmt::format("{}m{}s", minutes, s);
  }
  if (minutes < 60 * 3) return fmt::format("{}m", minutes);
  const int64_t hours = duration_cast<std::chrono::hours>(d).count();
  if (hours < 8) {
    const int64_t m = minutes % 60;
    if (m == 0) return fmt::format("{}h", hours);
    return fmt::format("{}h{}m", hours, m);
  }
  if (hours < 48) return fmt::format("{}h", hours);
  if (hours < 24 * 8) {
    const int64_t h = hours % 24;
    if (h == 0) return fmt::format("{}d", hours / 24);
    return fmt::format("{}d{}h", hours / 24, h);
  }
  if (hours < 24 * 365 * 2) return fmt::format("{}d", hours / 24);
  if (hours < 24 * 365 * 8) {
    const int64_t dy = (hours / 24) % 365;
    if (dy == 0) return fmt::format("{}y", hours / 24 / 365);
    return fmt::format("{}y{}d", hours / 24 / 365, dy);
  }
  return fmt::format("{}y", hours / 24 / 365);
}

std::string TimestampSince(int64_t unix_micros, bool set, TimePoint now) {
  if (!set) return "<unknown>";
  auto now_us =
      std::chrono::duration_cast<std::chrono::microseconds>(now.time_since_epoch()).count();
  return HumanDuration(std::chrono::microseconds(now_us - unix_micros));
}

std::string TimestampSince(const api::meta::Time& t, TimePoint now) {
  return TimestampSince(t.unix_seconds * 1000000, t.set, now);
}

std::string TimestampSince(const api::meta::MicroTime& t, TimePoint now) {
  return TimestampSince(t.unix_micros, t.set, now);
}

}  // namespace svcplane::apiserver::table
