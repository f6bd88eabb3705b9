#include "base/go_duration.h"

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <cstdint>
#include <exception>
#include <string>

namespace svcplane {

Result<Duration> ParseGoDuration(std::string_view text) {
  const std::string original(text);
  auto bad = [&] { return InvalidError("time: invalid duration \"" + original + "\""); };
  bool negative = false;
  if (!text.empty() && (text[0] == '-' || text[0] == '+')) {
    negative = text[0] == '-';
    text.remove_prefix(1);
  }
  if (text == "0") return Duration::zero();
  if (text.empty()) return bad();
  long double total_ns = 0;
  while (!text.empty()) {
    size_t i = 0;
    while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.'))
      ++i;
    if (i == 0) return bad();
    long double value;
    try {
      value = std::stold(std::string(text.substr(0, i)));
    } catch (const std::exception&) {
      return bad();
    }
    text.remove_prefix(i);
    size_t u = 0;
    while (u < text.size() && !std::isdigit(static_cast<unsigned char>(text[u])) && text[u] != '.')
      ++u;
    std::string_view unit = text.substr(0, u);
    text.remove_prefix(u);
    long double scale;
    if (unit == "ns") {
      scale = 1;
    } else if (unit == "us" || unit == "\xC2\xB5s" || unit == "\xCE\xBCs") {
      scale = 1e3;
    } else if (unit == "ms") {
      scale = 1e6;
    } else if (unit == "s") {
      scale = 1e9;
    } else if (unit == "m") {
      scale = 60e9;
    } else if (unit == "h") {
      scale = 3600e9;
    } else {
      return unit.empty() ? InvalidError("time: missing unit in duration \"" + original + "\"")
                          : InvalidError("time: unknown unit \"" + std::string(unit) +
                                         "\" in duration \"" + original + "\"");
    }
    total_ns += value * scale;
  }
  if (total_ns > 9.2e18L) return bad();
  auto ns = static_cast<int64_t>(std::llround(total_ns));
  return Duration(negative ? -ns : ns);
}

std::string FormatGoDuration(Duration d) {
  using namespace std::chrono;
  if (d == Duration::zero()) return "0s";
  if (d < seconds(1)) {
    if (d % milliseconds(1) == Duration::zero()) {
      return std::to_string(duration_cast<milliseconds>(d).count()) + "ms";
    }
    return std::to_string(d.count()) + "ns";
  }
  std::string out;
  auto h = duration_cast<hours>(d);
  d -= h;
  auto m = duration_cast<minutes>(d);
  d -= m;
  if (h.count() > 0) out += std::to_string(h.count()) + "h";
  if (h.count() > 0 || m.count() > 0) out += std::to_string(m.count()) + "m";
  double s = static_cast<double>(d.count()) / 1e9;
  out += fmt::format("{}s", s);
  return out;
}

}  // namespace svcplane
