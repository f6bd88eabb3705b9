#pragma once

// Generic encoder over the field lists declared next to each API type (api/meta/fields.h).
// Go's encoding rules: omitempty drops zero values; structs are always written; nil pointers
// without omitempty are `null`; zero metav1.Time is `null`.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "api/codec/internal/json_writer.h"
#include "api/meta/fields.h"
#include "api/meta/scalars.h"

namespace svcplane::api::codec::internal {

template <typename T>
struct IsOptional : std::false_type {};
template <typename T>
struct IsOptional<std::optional<T>> : std::true_type {};

// --- emptiness, for omitempty -------------------------------------------------------------
inline bool IsEmpty(const std::string& v) { return v.empty(); }
inline bool IsEmpty(bool v) { return !v; }
inline bool IsEmpty(int32_t v) { return v == 0; }
inline bool IsEmpty(int64_t v) { return v == 0; }
inline bool IsEmpty(const meta::Time& v) { return v.IsZero(); }
inline bool IsEmpty(const meta::MicroTime& v) { return v.IsZero(); }
inline bool IsEmpty(const meta::IntOrString& v) { return v.IsZero(); }
inline bool IsEmpty(const meta::Quantity& v) { return v.IsZero(); }
inline bool IsEmpty(const meta::RawJson& v) { return v.IsZero(); }
inline bool IsEmpty(const meta::Bytes& v) { return v.IsZero(); }
template <typename T>
bool IsEmpty(const std::optional<T>& v) {
  return !v.has_value();
}
template <typename T>
bool IsEmpty(const std::vector<T>& v) {
  return v.empty();
}
template <typename V>
bool IsEmpty(const std::map<std::string, V, std::less<>>& v) {
  return v.empty();
}
template <meta::Reflected T>
bool IsEmpty(const T&) {
  return false;
}  // Go never omits a struct

// --- values ----------------------------------------------------------------------------------
inline void EncodeValue(JsonWriter& w, const std::string& v) { w.String(v); }
inline void EncodeValue(JsonWriter& w, bool v) { w.Bool(v); }
inline void EncodeValue(JsonWriter& w, int32_t v) { w.Int(v); }
inline void EncodeValue(JsonWriter& w, int64_t v) { w.Int(v); }
inline void EncodeValue(JsonWriter& w, const meta::Time& v) {
  if (v.IsZero()) return w.Null();
  w.Char('"');
  w.Raw(meta::FormatRFC3339(v.unix_seconds));
  w.Char('"');
}
inline void EncodeValue(JsonWriter& w, const meta::MicroTime& v) {
  if (v.IsZero()) return w.Null();
  w.Char('"');
  w.Raw(meta::FormatRFC3339Micro(v.unix_micros));
  w.Char('"');
}
inline void EncodeValue(JsonWriter& w, const meta::IntOrString& v) {
  v.is_string ? w.String(v.str_value) : w.Int(v.int_value);
}
inline void EncodeValue(JsonWriter& w, const meta::Quantity& v) { w.String(v.text); }
inline void EncodeValue(JsonWriter& w, const meta::RawJson& v) {
  v.text.empty() ? w.Null() : w.Raw(v.text);
}

// Go's encoding/json writes []byte as standard base64.
void EncodeValue(JsonWriter& w, const meta::Bytes& v);

template <meta::Reflected T>
void EncodeValue(JsonWriter& w, const T& v);

template <typename T>
void EncodeValue(JsonWriter& w, const std::optional<T>& v) {
  v.has_value() ? EncodeValue(w, *v) : w.Null();
}
template <typename T>
void EncodeValue(JsonWriter& w, const std::vector<T>& v) {
  w.Char('[');
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) w.Char(',');
    EncodeValue(w, v[i]);
  }
  w.Char(']');
}
template <typename V>
void EncodeValue(JsonWriter& w, const std::map<std::string, V, std::less<>>& v) {
  w.Char('{');
  bool first = true;
  for (const auto& [key, val] : v) {
    if (!first) w.Char(',');
    first = false;
    w.String(key);
    w.Char(':');
    EncodeValue(w, val);
  }
  w.Char('}');
}

template <meta::Reflected T>
void EncodeValue(JsonWriter& w, const T& v) {
  w.Char('{');
  bool first = true;
  meta::ForEachField<T>([&](const auto& f) {
    const auto& member = f.Get(v);
    using M = std::decay_t<decltype(member)>;
    bool raw_as_object = false;
    if constexpr (std::is_same_v<M, meta::RawJson>) {
      raw_as_object = (f.flags & meta::kEmptyObject) && member.text.empty();
    }
    if ((f.flags & meta::kOmitEmpty) && IsEmpty(member)) return;
    if (!first) w.Char(',');
    first = false;
    w.Key(f.json_name);
    if ((f.flags & meta::kNullWhenEmpty) && IsEmpty(member)) {
      w.Null();
    } else if (raw_as_object) {
      w.Raw("{}");
    } else {
      EncodeValue(w, member);
    }
  });
  if constexpr (meta::HasUnknownFields<T>) {
    for (const auto& [key, raw] : v.unknown.items) {
      if (!first) w.Char(',');
      first = false;
      w.String(key);
      w.Char(':');
      w.Raw(raw);
    }
  }
  w.Char('}');
}

}  // namespace svcplane::api::codec::internal
