#include "api/meta/scalars.h"

#include <array>
#include <charconv>
#include <cmath>
#include <string_view>
#include <system_error>

#include "base/civil_date.h"

namespace svcplane::api::meta {
namespace {

// A number that spans all of `text`, with an optional sign (from_chars takes only '-').
template <typename Number>
bool ParseWhole(std::string_view text, Number* out) {
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  if (text.empty() || text.front() == '+') return false;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, *out);
  return ec == std::errc() && ptr == end;
}

int64_t FloorDiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

void AppendDigits(std::string* out, int64_t v, int width) {
  char buf[24];
  for (int i = width - 1; i >= 0; --i) {
    buf[i] = static_cast<char>('0' + v % 10);
    v /= 10;
  }
  out->append(buf, static_cast<size_t>(width));
}

void AppendDateTime(std::string* out, int64_t secs) {
  int64_t days = FloorDiv(secs, 86400);
  int64_t rem = secs - days * 86400;
  int64_t y;
  unsigned m, d;
  CivilFromDays(days, &y, &m, &d);
  AppendDigits(out, y, 4);
  out->push_back('-');
  AppendDigits(out, m, 2);
  out->push_back('-');
  AppendDigits(out, d, 2);
  out->push_back('T');
  AppendDigits(out, rem / 3600, 2);
  out->push_back(':');
  AppendDigits(out, rem / 60 % 60, 2);
  out->push_back(':');
  AppendDigits(out, rem % 60, 2);
}

bool ReadInt(std::string_view s, size_t pos, size_t n, int64_t* v) {
  if (pos + n > s.size()) return false;
  int64_t r = 0;
  for (size_t i = pos; i < pos + n; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    r = r * 10 + (s[i] - '0');
  }
  *v = r;
  return true;
}

}  // namespace

std::string FormatRFC3339(int64_t unix_seconds) {
  std::string out;
  out.reserve(20);
  AppendDateTime(&out, unix_seconds);
  out.push_back('Z');
  return out;
}

std::string FormatRFC3339Micro(int64_t unix_micros) {
  int64_t secs = FloorDiv(unix_micros, 1000000);
  std::string out;
  out.reserve(27);
  AppendDateTime(&out, secs);
  out.push_back('.');
  AppendDigits(&out, unix_micros - secs * 1000000, 6);
  out.push_back('Z');
  return out;
}

std::optional<int64_t> ParseRFC3339Micros(std::string_view s) {
  // YYYY-MM-DDTHH:MM:SS[.frac](Z|±HH:MM)
  int64_t y, mo, d, h, mi, se;
  if (s.size() < 20 || !ReadInt(s, 0, 4, &y) || s[4] != '-' || !ReadInt(s, 5, 2, &mo) ||
      s[7] != '-' || !ReadInt(s, 8, 2, &d) || (s[10] != 'T' && s[10] != 't') ||
      !ReadInt(s, 11, 2, &h) || s[13] != ':' || !ReadInt(s, 14, 2, &mi) || s[16] != ':' ||
      !ReadInt(s, 17, 2, &se)) {
    return std::nullopt;
  }
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 60) return std::nullopt;
  size_t pos = 19;
  int64_t micros = 0;
  if (pos < s.size() && s[pos] == '.') {
    ++pos;
    int digits = 0;
    while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') {
      if (digits < 6) micros = micros * 10 + (s[pos] - '0');
      ++digits;
      ++pos;
    }
    if (digits == 0 || digits > 9) return std::nullopt;
    for (int i = digits; i < 6; ++i) micros *= 10;
  }
  int64_t offset = 0;
  if (pos < s.size() && (s[pos] == 'Z' || s[pos] == 'z')) {
    ++pos;
  } else if (pos < s.size() && (s[pos] == '+' || s[pos] == '-')) {
    int64_t oh, om;
    if (!ReadInt(s, pos + 1, 2, &oh) || pos + 3 >= s.size() || s[pos + 3] != ':' ||
        !ReadInt(s, pos + 4, 2, &om) || oh > 23 || om > 59) {
      return std::nullopt;
    }
    offset = (oh * 3600 + om * 60) * (s[pos] == '+' ? 1 : -1);
    pos += 6;
  } else {
    return std::nullopt;
  }
  if (pos != s.size()) return std::nullopt;
  int64_t secs = DaysFromCivil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d)) * 86400 +
                 h * 3600 + mi * 60 + se - offset;
  return secs * 1000000 + micros;
}

std::optional<int64_t> Quantity::MilliValue() const {
  // <signedNumber><suffix>; suffixes: binary Ki..Ei, decimal m,k,M,G,T,P,E, exponent eN/EN.
  std::string_view s = text;
  size_t i = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  while (i < s.size() && ((s[i] >= '0' && s[i] <= '9') || s[i] == '.')) ++i;
  if (i == 0) return std::nullopt;
  // from_chars, not sscanf: this runs for every container on every Pod create (QoS), and
  // sscanf cost a string copy and a locale-aware scan (0.7% of the create path). It must use
  // every digit: "1.2.3" is not a number (sscanf read "1.2" and dropped the rest).
  double number = 0;
  if (!ParseWhole(s.substr(0, i), &number)) return std::nullopt;
  std::string_view suffix = s.substr(i);
  double mult = 1;
  static constexpr std::array<std::pair<std::string_view, double>, 13> kSuffixes = {{
      {"", 1},
      {"m", 1e-3},
      {"k", 1e3},
      {"M", 1e6},
      {"G", 1e9},
      {"T", 1e12},
      {"P", 1e15},
      {"Ki", 1024.0},
      {"Mi", 1048576.0},
      {"Gi", 1073741824.0},
      {"Ti", 1099511627776.0},
      {"Pi", 1125899906842624.0},
      {"E", 1e18},
  }};
  bool found = false;
  for (const auto& [sfx, m] : kSuffixes) {
    if (suffix == sfx) {
      mult = m;
      found = true;
      break;
    }
  }
  if (!found && suffix.size() >= 2 && (suffix[0] == 'e' || suffix[0] == 'E')) {
    int exp = 0;
    if (!ParseWhole(suffix.substr(1), &exp)) return std::nullopt;
    mult = std::pow(10.0, exp);
    found = true;
  }
  if (!found) return std::nullopt;
  double milli = number * mult * 1000.0;
  if (!std::isfinite(milli) || std::fabs(milli) > 9.2e18) return std::nullopt;
  return static_cast<int64_t>(std::ceil(milli - 1e-9));
}

}  // namespace svcplane::api::meta
