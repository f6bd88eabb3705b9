#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace svcplane::api::meta {

// metav1.Time: whole seconds, RFC 3339 in UTC on the wire ("2024-05-01T10:00:00Z"). The zero
// value encodes as `null`, as upstream's does.
struct Time {
  int64_t unix_seconds = 0;
  bool set = false;

  static Time FromUnix(int64_t s) { return Time{s, true}; }
  bool IsZero() const { return !set; }
  auto operator<=>(const Time&) const = default;
};

// metav1.MicroTime: microsecond precision; always written with exactly six fractional digits
// because client-go parses it with a fixed layout.
struct MicroTime {
  int64_t unix_micros = 0;
  bool set = false;

  static MicroTime FromUnixMicros(int64_t us) { return MicroTime{us, true}; }
  bool IsZero() const { return !set; }
  auto operator<=>(const MicroTime&) const = default;
};

// "2024-05-01T10:00:00Z". Parsing accepts fractional seconds and numeric offsets.
std::string FormatRFC3339(int64_t unix_seconds);
std::string FormatRFC3339Micro(int64_t unix_micros);
std::optional<int64_t> ParseRFC3339Micros(std::string_view text);

// intstr.IntOrString (Service targetPort): a JSON number or a string.
struct IntOrString {
  bool is_string = false;
  int32_t int_value = 0;
  std::string str_value;

  static IntOrString FromInt(int32_t v) { return IntOrString{false, v, {}}; }
  static IntOrString FromString(std::string s) { return IntOrString{true, 0, std::move(s)}; }
  bool IsZero() const { return !is_string && int_value == 0; }
  std::string ToString() const { return is_string ? str_value : std::to_string(int_value); }
  bool operator==(const IntOrString&) const = default;
};

// resource.Quantity ("4", "250m", "16318360Ki"), kept in the text form it arrived in.
struct Quantity {
  std::string text;

  bool IsZero() const { return text.empty(); }
  bool operator==(const Quantity&) const = default;
  // Value in milli-units ("250m" → 250, "2" → 2000, "1Ki" → 1024000); nullopt if unparsable.
  std::optional<int64_t> MilliValue() const;
};

// A JSON value the model does not type (probes, volumes, resources...), kept as its raw text.
struct RawJson {
  std::string text;

  bool IsZero() const { return text.empty(); }
  bool operator==(const RawJson&) const = default;
};

// A Go []byte (Secret.data, ConfigMap.binaryData values): base64 in JSON, raw bytes in protobuf.
// Any bytes, not necessarily UTF-8.
struct Bytes {
  std::string data;

  bool IsZero() const { return data.empty(); }
  bool operator==(const Bytes&) const = default;
};

}  // namespace svcplane::api::meta
