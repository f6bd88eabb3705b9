#pragma once

// Generic simdjson On-Demand decoder over the field lists declared next to each API type.
// Every value is validated, including the unknown subtrees we keep verbatim (On-Demand only
// validates what is visited), so what we store is always well-formed JSON. Errors carry the JSON
// path of the offending value: "spec.ports[0].port: expected integer, got string".

#include <simdjson.h>

#include <array>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <variant>
#include <vector>

#include "api/meta/fields.h"
#include "api/meta/scalars.h"

namespace svcplane::api::codec::internal {

namespace od = simdjson::ondemand;

class DecodeContext {
 public:
  explicit DecodeContext(od::document* doc) : doc_(doc) { path_.reserve(32); }

  void Push(std::string_view field) { path_.emplace_back(field); }
  void PushIndex(size_t i) { path_.emplace_back(i); }
  void PushKey(std::string_view key) { path_.emplace_back(Key{key}); }
  void Pop() { path_.pop_back(); }

  // Records the first error with the current path; always returns false for `return Fail(..)`.
  bool Fail(std::string_view what);
  bool FailSimdjson(simdjson::error_code code, std::string_view expected, od::value* v);
  const std::string& error() const { return error_; }
  od::document* doc() { return doc_; }

 private:
  struct Key {
    std::string_view key;
  };
  std::vector<std::variant<std::string_view, size_t, Key>> path_;
  std::string error_;
  od::document* doc_;
};

// Validates v fully and, when out is not null, copies its raw JSON text there.
bool CaptureRaw(od::value v, std::string* out, DecodeContext& ctx);

// --- scalars -----------------------------------------------------------------------------------
bool DecodeValue(od::value v, std::string& out, DecodeContext& ctx);
bool DecodeValue(od::value v, bool& out, DecodeContext& ctx);
bool DecodeValue(od::value v, int32_t& out, DecodeContext& ctx);
bool DecodeValue(od::value v, int64_t& out, DecodeContext& ctx);
bool DecodeValue(od::value v, meta::Time& out, DecodeContext& ctx);
bool DecodeValue(od::value v, meta::MicroTime& out, DecodeContext& ctx);
bool DecodeValue(od::value v, meta::IntOrString& out, DecodeContext& ctx);
bool DecodeValue(od::value v, meta::Quantity& out, DecodeContext& ctx);
bool DecodeValue(od::value v, meta::RawJson& out, DecodeContext& ctx);
bool DecodeValue(od::value v, meta::Bytes& out, DecodeContext& ctx);

// True (and the value consumed) when v is JSON null.
inline bool TakeNull(od::value& v) {
  bool is_null = false;
  return !v.is_null().get(is_null) && is_null;
}

template <meta::Reflected T>
bool DecodeValue(od::value v, T& out, DecodeContext& ctx);
template <meta::Reflected T>
bool DecodeObject(od::object obj, T& out, DecodeContext& ctx);

template <typename T>
bool DecodeValue(od::value v, std::optional<T>& out, DecodeContext& ctx) {
  if (TakeNull(v)) {
    out.reset();
    return true;
  }
  out.emplace();
  return DecodeValue(v, *out, ctx);
}

template <typename T>
bool DecodeValue(od::value v, std::vector<T>& out, DecodeContext& ctx) {
  out.clear();
  if (TakeNull(v)) return true;
  od::array arr;
  if (auto err = v.get_array().get(arr)) return ctx.FailSimdjson(err, "array", &v);
  if constexpr (sizeof(T) > 64) {
    // Big elements (a List's items): one structural pre-pass beats repeated reallocation.
    size_t n = 0;
    if (!arr.count_elements().get(n)) out.reserve(n);
  }
  size_t i = 0;
  for (auto elem : arr) {
    od::value ev;
    if (auto err = elem.get(ev)) return ctx.FailSimdjson(err, "value", nullptr);
    ctx.PushIndex(i++);
    if (!DecodeValue(ev, out.emplace_back(), ctx)) return false;
    ctx.Pop();
  }
  return true;
}

template <typename V>
bool DecodeValue(od::value v, std::map<std::string, V, std::less<>>& out, DecodeContext& ctx) {
  out.clear();
  if (TakeNull(v)) return true;
  od::object obj;
  if (auto err = v.get_object().get(obj)) return ctx.FailSimdjson(err, "object", &v);
  for (auto field : obj) {
    std::string_view key;
    if (auto err = field.unescaped_key().get(key)) return ctx.FailSimdjson(err, "key", nullptr);
    od::value fv;
    if (auto err = field.value().get(fv)) return ctx.FailSimdjson(err, "value", nullptr);
    ctx.PushKey(key);
    V val{};
    if (!DecodeValue(fv, val, ctx)) return false;
    ctx.Pop();
    out.insert_or_assign(std::string(key), std::move(val));
  }
  return true;
}

// A dispatch table per type: each field's name and a decoder for it, so that a key is matched
// by index instead of walking the whole field tuple.
template <meta::Reflected T>
struct FieldDecoder {
  std::string_view name;
  bool (*decode)(od::value v, T& out, DecodeContext& ctx);
};

template <meta::Reflected T, size_t I>
bool DecodeFieldAt(od::value v, T& out, DecodeContext& ctx) {
  const auto& f = std::get<I>(meta::kFieldsOf<T>);
  ctx.Push(f.json_name);
  if (!f.Decode(out, [&](auto& m) { return DecodeValue(v, m, ctx); })) return false;
  ctx.Pop();
  return true;
}

template <meta::Reflected T, size_t... I>
constexpr auto MakeFieldDecoders(std::index_sequence<I...>) {
  return std::array<FieldDecoder<T>, sizeof...(I)>{
      FieldDecoder<T>{std::get<I>(meta::kFieldsOf<T>).json_name, &DecodeFieldAt<T, I>}...};
}

template <meta::Reflected T>
inline constexpr auto kFieldDecoders = MakeFieldDecoders<T>(
    std::make_index_sequence<std::tuple_size_v<std::decay_t<decltype(meta::kFieldsOf<T>)>>>());

// Finds the field named `key` and decodes into it; false if none matches. `*hint` is where the
// previous key matched: JSON written by Kubernetes (and by us) lists fields in declaration
// order, so the next key is usually the next field and matches on the first comparison.
template <meta::Reflected T>
bool DecodeKnownField(std::string_view key, od::value v, T& out, DecodeContext& ctx, bool* ok,
                      size_t* hint) {
  const auto& table = kFieldDecoders<T>;
  const size_t n = table.size();
  for (size_t k = 0; k < n; ++k) {
    size_t i = *hint + k;
    if (i >= n) i -= n;
    if (table[i].name == key) {
      *hint = i + 1 < n ? i + 1 : 0;
      *ok = table[i].decode(v, out, ctx);
      return true;
    }
  }
  return false;
}

template <meta::Reflected T>
bool DecodeObject(od::object obj, T& out, DecodeContext& ctx) {
  size_t hint = 0;
  for (auto field : obj) {
    std::string_view key;
    if (auto err = field.unescaped_key().get(key)) return ctx.FailSimdjson(err, "key", nullptr);
    od::value fv;
    if (auto err = field.value().get(fv)) return ctx.FailSimdjson(err, "value", nullptr);
    bool ok = true;
    if (DecodeKnownField(key, fv, out, ctx, &ok, &hint)) {
      if (!ok) return false;
      continue;
    }
    if constexpr (meta::HasUnknownFields<T>) {
      ctx.Push(key);
      std::string raw;
      if (!CaptureRaw(fv, &raw, ctx)) return false;
      ctx.Pop();
      auto& items = out.unknown.items;
      bool replaced = false;  // a repeated key keeps the last value, as Go does
      for (auto& [k, r] : items) {
        if (k == key) {
          r = std::move(raw);
          replaced = true;
        }
      }
      if (!replaced) items.emplace_back(std::string(key), std::move(raw));
    } else {
      ctx.Push(key);
      return ctx.Fail("unknown field");
    }
  }
  return true;
}

// Like Go's decoder, fields absent from the JSON (or a null object) leave `out` untouched; callers
// decode into fresh objects.
template <meta::Reflected T>
bool DecodeValue(od::value v, T& out, DecodeContext& ctx) {
  if (TakeNull(v)) return true;
  od::object obj;
  if (auto err = v.get_object().get(obj)) return ctx.FailSimdjson(err, "object", &v);
  return DecodeObject(obj, out, ctx);
}

}  // namespace svcplane::api::codec::internal
