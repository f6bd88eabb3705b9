#pragma once

// Generic protobuf encoder/decoder over the field lists declared next to each API type
// (api/meta/fields.h), with the field numbers of upstream's generated.proto. It follows Go's
// generated Marshal byte for byte for the modelled fields: fields in ascending number order,
// non-pointer scalars and strings always written (even zero or empty), pointers (std::optional)
// when set, structs always, map entries in key order. What the model keeps as JSON
// (UnknownFields, RawJson) is transcoded through the schema (proto_transcode.h).

#include <simdjson.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "api/codec/internal/json_writer.h"
#include "api/codec/internal/proto_names.h"
#include "api/codec/internal/proto_schema.h"
#include "api/codec/internal/proto_transcode.h"
#include "api/codec/internal/proto_wire.h"
#include "api/codec/internal/utf8.h"
#include "api/meta/fields.h"
#include "api/meta/scalars.h"

namespace svcplane::api::codec::internal {

template <meta::Reflected T>
const ProtoMessage* SchemaOf() {
  static const ProtoMessage* m = ProtoSchema::Builtin().Find(ProtoName(meta::Tag<T>{}));
  return m;
}

// --- encode ------------------------------------------------------------------------------------

template <meta::Reflected T>
void EncodeBody(ProtoWriter& w, const T& v);

inline void EncodeField(ProtoWriter& w, uint32_t n, const std::string& v, const ProtoField*) {
  w.Bytes(n, v);
}
inline void EncodeField(ProtoWriter& w, uint32_t n, bool v, const ProtoField*) { w.Bool(n, v); }
inline void EncodeField(ProtoWriter& w, uint32_t n, const meta::Bytes& v, const ProtoField*) {
  w.Bytes(n, v.data);
}
inline void EncodeField(ProtoWriter& w, uint32_t n, int32_t v, const ProtoField*) { w.Int(n, v); }
inline void EncodeField(ProtoWriter& w, uint32_t n, int64_t v, const ProtoField*) { w.Int(n, v); }
// metav1.Time: an empty message when zero; whole seconds otherwise (Go drops the nanos).
inline void EncodeField(ProtoWriter& w, uint32_t n, const meta::Time& v, const ProtoField*) {
  size_t mark = w.Begin(n);
  if (v.set) {
    w.Int(1, v.unix_seconds);
    w.Int(2, 0);
  }
  w.End(mark);
}
inline void EncodeField(ProtoWriter& w, uint32_t n, const meta::MicroTime& v, const ProtoField*) {
  size_t mark = w.Begin(n);
  if (v.set) {
    int64_t secs = v.unix_micros / 1000000 - (v.unix_micros % 1000000 < 0);
    w.Int(1, secs);
    w.Int(2, (v.unix_micros - secs * 1000000) * 1000);
  }
  w.End(mark);
}
inline void EncodeField(ProtoWriter& w, uint32_t n, const meta::IntOrString& v, const ProtoField*) {
  size_t mark = w.Begin(n);
  w.Int(1, v.is_string ? 1 : 0);
  w.Int(2, v.int_value);
  w.Bytes(3, v.str_value);
  w.End(mark);
}
inline void EncodeField(ProtoWriter& w, uint32_t n, const meta::Quantity& v, const ProtoField*) {
  size_t mark = w.Begin(n);
  w.Bytes(1, v.text);
  w.End(mark);
}
// A struct kept as JSON: transcoded through its schema. Go writes non-pointer structs always,
// so an empty RawJson is an empty message. JSON that does not fit the schema (possible only for
// unknown members the JSON path kept verbatim) is dropped rather than failing the response.
inline void EncodeField(ProtoWriter& w, uint32_t n, const meta::RawJson& v, const ProtoField* sf) {
  size_t mark = w.Begin(n);
  if (!v.text.empty() && sf && sf->message) {
    std::string error;
    if (!JsonMessageToProto(*sf->message, v.text, w, &error)) w.buffer()->resize(mark);
  }
  w.End(mark);
}
template <meta::Reflected T>
void EncodeField(ProtoWriter& w, uint32_t n, const T& v, const ProtoField*) {
  // Guess the length's size from the last message of this type (most are alike): a right guess
  // saves moving the body.
  thread_local bool big = false;
  size_t mark = w.Begin(n, big);
  EncodeBody(w, v);
  const size_t len = w.buffer()->size() - mark;
  big = len >= 0x80 && len < 0x4000;
  w.End(mark);
}
template <typename T>
void EncodeField(ProtoWriter& w, uint32_t n, const std::optional<T>& v, const ProtoField* sf) {
  if (v.has_value()) EncodeField(w, n, *v, sf);
}
template <typename T>
void EncodeField(ProtoWriter& w, uint32_t n, const std::vector<T>& v, const ProtoField* sf) {
  for (const auto& e : v) EncodeField(w, n, e, sf);
}
template <typename V>
void EncodeField(ProtoWriter& w, uint32_t n, const std::map<std::string, V, std::less<>>& v,
                 const ProtoField* sf) {
  for (const auto& [key, val] : v) {
    size_t mark = w.Begin(n);
    w.Bytes(1, key);
    EncodeField(w, 2, val, sf);
    w.End(mark);
  }
}
// map<string, ExtraValue> (authentication UserInfo.extra): each value is an ExtraValue message
// {items = 1} in protobuf, a plain string array in JSON.
inline void EncodeField(ProtoWriter& w, uint32_t n,
                        const std::map<std::string, std::vector<std::string>, std::less<>>& v,
                        const ProtoField*) {
  for (const auto& [key, val] : v) {
    size_t mark = w.Begin(n);
    w.Bytes(1, key);
    size_t items = w.Begin(2);
    for (const auto& item : val) w.Bytes(1, item);
    w.End(items);
    w.End(mark);
  }
}

template <meta::Reflected T>
struct FieldEncoder {
  uint32_t number;
  void (*encode)(ProtoWriter& w, const T& v, const ProtoMessage* schema);
};

// Members kept as JSON need their schema field; the others do not look it up.
template <typename M>
struct HoldsRawJson : std::is_same<M, meta::RawJson> {};
template <typename M>
struct HoldsRawJson<std::optional<M>> : HoldsRawJson<M> {};
template <typename M>
struct HoldsRawJson<std::vector<M>> : HoldsRawJson<M> {};
template <typename K, typename M, typename C>
struct HoldsRawJson<std::map<K, M, C>> : HoldsRawJson<M> {};

template <meta::Reflected T, size_t I>
void EncodeFieldAt(ProtoWriter& w, const T& v, const ProtoMessage* schema) {
  const auto& f = std::get<I>(meta::kFieldsOf<T>);
  using M = typename std::decay_t<decltype(f)>::MemberType;
  const ProtoField* sf = nullptr;
  if constexpr (HoldsRawJson<M>::value) {
    if (schema) sf = schema->FieldByNumber(static_cast<uint32_t>(f.proto));
  }
  EncodeField(w, static_cast<uint32_t>(f.proto), f.Get(v), sf);
}

template <meta::Reflected T, size_t... I>
constexpr auto MakeFieldEncoders(std::index_sequence<I...>) {
  std::array<FieldEncoder<T>, sizeof...(I)> a{FieldEncoder<T>{
      static_cast<uint32_t>(std::get<I>(meta::kFieldsOf<T>).proto), &EncodeFieldAt<T, I>}...};
  std::sort(a.begin(), a.end(), [](const auto& x, const auto& y) { return x.number < y.number; });
  return a;
}

template <meta::Reflected T>
inline constexpr size_t kFieldCount = std::tuple_size_v<std::decay_t<decltype(meta::kFieldsOf<T>)>>;

// Modelled fields in ascending field-number order (JSON-only fields, number 0, first).
template <meta::Reflected T>
inline constexpr auto kFieldEncoders =
    MakeFieldEncoders<T>(std::make_index_sequence<kFieldCount<T>>());

template <meta::Reflected T>
bool IsModelled(uint32_t number) {  // NOLINT: a function pointer for JsonMembersToProto
  for (const auto& e : kFieldEncoders<T>) {
    if (e.number == number) return true;
  }
  return false;
}

template <meta::Reflected T>
void EncodeBody(ProtoWriter& w, const T& v) {
  const ProtoMessage* schema = SchemaOf<T>();
  // The unknown JSON members the schema knows, encoded up front (one parse for all of them) and
  // merged in by field number below.
  std::string extra_bytes;
  std::vector<FieldSpan> extras;
  if constexpr (meta::HasUnknownFields<T>) {
    if (!v.unknown.empty() && schema) {
      std::string obj;
      JsonWriter jw(&obj);
      jw.Char('{');
      for (size_t i = 0; i < v.unknown.items.size(); ++i) {
        if (i) jw.Char(',');
        jw.String(v.unknown.items[i].first);
        jw.Char(':');
        jw.Raw(v.unknown.items[i].second);
      }
      jw.Char('}');
      std::string error;
      if (!JsonMembersToProto(*schema, obj, &IsModelled<T>, &extra_bytes, &extras, &error)) {
        extras.clear();
      }
    }
  }
  size_t next_extra = 0;
  auto flush_extras_below = [&](uint32_t number) {
    while (next_extra < extras.size() && extras[next_extra].number < number) {
      const FieldSpan& e = extras[next_extra++];
      w.buffer()->append(extra_bytes, e.offset, e.size);
    }
  };
  for (const auto& enc : kFieldEncoders<T>) {
    if (enc.number == 0) continue;
    flush_extras_below(enc.number);
    enc.encode(w, v, schema);
  }
  flush_extras_below(UINT32_MAX);
}

// --- decode ------------------------------------------------------------------------------------

struct ProtoDecodeState {
  std::string error;
  int depth = 0;

  bool Fail(std::string_view what) {
    if (error.empty()) error = std::string(what);
    return false;
  }
};

template <meta::Reflected T>
bool DecodeBody(std::string_view body, T& out, ProtoDecodeState& st);

inline bool ReadVarintValue(WireType wt, std::string_view raw, uint64_t* v) {
  return wt == kVarint && DecodeVarint(raw, v);
}

inline bool DecodeField(WireType wt, std::string_view raw, std::string& out, ProtoDecodeState& st,
                        const ProtoField*) {
  if (wt != kLen) return st.Fail("expected a string");
  if (!ValidUtf8(raw)) return st.Fail("invalid UTF-8 in string");
  out.assign(raw);
  return true;
}
inline bool DecodeField(WireType wt, std::string_view raw, meta::Bytes& out, ProtoDecodeState& st,
                        const ProtoField*) {
  if (wt != kLen) return st.Fail("expected bytes");
  out.data.assign(raw);  // any bytes: no UTF-8 check
  return true;
}
inline bool DecodeField(WireType wt, std::string_view raw, bool& out, ProtoDecodeState& st,
                        const ProtoField*) {
  uint64_t v;
  if (!ReadVarintValue(wt, raw, &v)) return st.Fail("expected a varint");
  out = v != 0;
  return true;
}
inline bool DecodeField(WireType wt, std::string_view raw, int32_t& out, ProtoDecodeState& st,
                        const ProtoField*) {
  uint64_t v;
  if (!ReadVarintValue(wt, raw, &v)) return st.Fail("expected a varint");
  out = static_cast<int32_t>(static_cast<uint32_t>(v));
  return true;
}
inline bool DecodeField(WireType wt, std::string_view raw, int64_t& out, ProtoDecodeState& st,
                        const ProtoField*) {
  uint64_t v;
  if (!ReadVarintValue(wt, raw, &v)) return st.Fail("expected a varint");
  out = static_cast<int64_t>(v);
  return true;
}

// Fields 1..3 of a small message as integers and strings (Time, MicroTime, IntOrString, Quantity).
struct SmallMessage {
  int64_t ints[4] = {0, 0, 0, 0};
  std::string_view strs[4];
  bool any = false;
};
inline bool ReadSmall(WireType wt, std::string_view raw, SmallMessage* m, ProtoDecodeState& st) {
  if (wt != kLen) return st.Fail("expected a message");
  ProtoReader r(raw);
  while (!r.done()) {
    uint32_t num;
    WireType fwt;
    std::string_view v;
    if (!r.ReadTag(&num, &fwt) || !r.ReadRaw(fwt, &v)) return st.Fail("truncated message");
    m->any = true;
    if (num > 3) continue;
    if (fwt == kLen) {
      m->strs[num] = v;
    } else if (fwt == kVarint) {
      uint64_t u;
      if (!DecodeVarint(v, &u)) return st.Fail("malformed varint");
      m->ints[num] = static_cast<int64_t>(u);
    }
  }
  return true;
}
inline bool DecodeField(WireType wt, std::string_view raw, meta::Time& out, ProtoDecodeState& st,
                        const ProtoField*) {
  SmallMessage m;
  if (!ReadSmall(wt, raw, &m, st)) return false;
  out = m.any ? meta::Time::FromUnix(m.ints[1]) : meta::Time{};
  return true;
}
inline bool DecodeField(WireType wt, std::string_view raw, meta::MicroTime& out,
                        ProtoDecodeState& st, const ProtoField*) {
  SmallMessage m;
  if (!ReadSmall(wt, raw, &m, st)) return false;
  int32_t nanos = static_cast<int32_t>(m.ints[2]);
  if (nanos < 0 || nanos > 999999999) return st.Fail("MicroTime nanos out of range");
  if (m.ints[1] > INT64_MAX / 1000000 - 1 || m.ints[1] < INT64_MIN / 1000000 + 1) {
    return st.Fail("MicroTime seconds out of range");
  }
  out = m.any ? meta::MicroTime::FromUnixMicros(m.ints[1] * 1000000 + nanos / 1000)
              : meta::MicroTime{};
  return true;
}
inline bool DecodeField(WireType wt, std::string_view raw, meta::IntOrString& out,
                        ProtoDecodeState& st, const ProtoField*) {
  SmallMessage m;
  if (!ReadSmall(wt, raw, &m, st)) return false;
  if (!ValidUtf8(m.strs[3])) {
    return st.Fail("invalid UTF-8 in string");
  }
  out = m.ints[1] == 1 ? meta::IntOrString::FromString(std::string(m.strs[3]))
                       : meta::IntOrString::FromInt(static_cast<int32_t>(m.ints[2]));
  return true;
}
inline bool DecodeField(WireType wt, std::string_view raw, meta::Quantity& out,
                        ProtoDecodeState& st, const ProtoField*) {
  SmallMessage m;
  if (!ReadSmall(wt, raw, &m, st)) return false;
  if (!ValidUtf8(m.strs[1])) {
    return st.Fail("invalid UTF-8 in string");
  }
  out.text.assign(m.strs[1]);
  return true;
}
inline bool DecodeField(WireType wt, std::string_view raw, meta::RawJson& out, ProtoDecodeState& st,
                        const ProtoField* sf) {
  if (wt != kLen) return st.Fail("expected a message");
  if (!sf || !sf->message) return st.Fail("no schema for a JSON-kept field");
  // Written into a reused scratch string, then copied once at its exact size: growing
  // out.text itself would reallocate several times and leave up to half of it as spare
  // capacity, which every cached object keeps (~1 KB per Pod, and pages to fault in).
  thread_local std::string scratch;
  scratch.clear();
  JsonWriter jw(&scratch);
  std::string error;
  if (!ProtoMessageToJson(*sf->message, raw, jw, &error)) return st.Fail(error);
  out.text.assign(scratch);
  if (scratch.capacity() > (size_t{1} << 20)) scratch = std::string();  // keep no huge buffer
  return true;
}
template <meta::Reflected T>
bool DecodeField(WireType wt, std::string_view raw, T& out, ProtoDecodeState& st,
                 const ProtoField*) {
  if (wt != kLen) return st.Fail("expected a message");
  return DecodeBody(raw, out, st);  // repeated occurrences merge, as protobuf does
}
template <typename T>
bool DecodeField(WireType wt, std::string_view raw, std::optional<T>& out, ProtoDecodeState& st,
                 const ProtoField* sf) {
  if (!out.has_value()) out.emplace();
  return DecodeField(wt, raw, *out, st, sf);
}
template <typename T>
bool DecodeField(WireType wt, std::string_view raw, std::vector<T>& out, ProtoDecodeState& st,
                 const ProtoField* sf) {
  return DecodeField(wt, raw, out.emplace_back(), st, sf);
}
template <typename V>
bool DecodeField(WireType wt, std::string_view raw, std::map<std::string, V, std::less<>>& out,
                 ProtoDecodeState& st, const ProtoField* sf) {
  if (wt != kLen) return st.Fail("expected a map entry");
  ProtoReader r(raw);
  std::string key;
  V val{};
  while (!r.done()) {
    uint32_t num;
    WireType fwt;
    std::string_view v;
    if (!r.ReadTag(&num, &fwt) || !r.ReadRaw(fwt, &v)) return st.Fail("truncated map entry");
    if (num == 1) {
      if (!DecodeField(fwt, v, key, st, sf)) return false;
    } else if (num == 2) {
      if (!DecodeField(fwt, v, val, st, sf)) return false;
    }
  }
  out.insert_or_assign(std::move(key), std::move(val));
  return true;
}
inline bool DecodeField(WireType wt, std::string_view raw,
                        std::map<std::string, std::vector<std::string>, std::less<>>& out,
                        ProtoDecodeState& st, const ProtoField*) {
  if (wt != kLen) return st.Fail("expected a map entry");
  ProtoReader r(raw);
  std::string key;
  std::vector<std::string> val;
  while (!r.done()) {
    uint32_t num;
    WireType fwt;
    std::string_view v;
    if (!r.ReadTag(&num, &fwt) || !r.ReadRaw(fwt, &v)) return st.Fail("truncated map entry");
    if (num == 1) {
      if (fwt != kLen) return st.Fail("expected a string map key");
      key.assign(v);
    } else if (num == 2) {
      if (fwt != kLen) return st.Fail("expected an ExtraValue");
      ProtoReader items(v);
      while (!items.done()) {
        uint32_t inum;
        WireType iwt;
        std::string_view item;
        if (!items.ReadTag(&inum, &iwt) || !items.ReadRaw(iwt, &item)) {
          return st.Fail("truncated ExtraValue");
        }
        if (inum == 1 && iwt == kLen) val.emplace_back(item);
      }
    }
  }
  out.insert_or_assign(std::move(key), std::move(val));
  return true;
}

template <meta::Reflected T>
using FieldDecodeFn = bool (*)(WireType wt, std::string_view raw, T& out, ProtoDecodeState& st,
                               const ProtoMessage* schema);

template <meta::Reflected T, size_t I>
bool DecodeFieldAt(WireType wt, std::string_view raw, T& out, ProtoDecodeState& st,
                   const ProtoMessage* schema) {
  const auto& f = std::get<I>(meta::kFieldsOf<T>);
  using M = typename std::decay_t<decltype(f)>::MemberType;
  const ProtoField* sf = nullptr;
  if constexpr (HoldsRawJson<M>::value) {
    if (schema) sf = schema->FieldByNumber(static_cast<uint32_t>(f.proto));
  }
  if (!f.Decode(out, [&](auto& m) { return DecodeField(wt, raw, m, st, sf); })) {
    // Build the path outwards: ".spec.containers.name: invalid UTF-8 in string".
    st.error = "." + std::string(f.json_name) + (st.error.starts_with(".") ? "" : ": ") + st.error;
    return false;
  }
  return true;
}

template <meta::Reflected T, size_t... I>
constexpr auto MakeFieldDecoders(std::index_sequence<I...>) {
  constexpr uint32_t kMax =
      std::max({uint32_t{0}, static_cast<uint32_t>(std::get<I>(meta::kFieldsOf<T>).proto)...});
  std::array<FieldDecodeFn<T>, kMax + 1> a{};
  ((std::get<I>(meta::kFieldsOf<T>).proto > 0
        ? (void)(a[std::get<I>(meta::kFieldsOf<T>).proto] = &DecodeFieldAt<T, I>)
        : (void)0),
   ...);
  return a;
}

// Decoders indexed by field number; null where the model has no field.
template <meta::Reflected T>
inline constexpr auto kProtoFieldDecoders =
    MakeFieldDecoders<T>(std::make_index_sequence<kFieldCount<T>>());

constexpr int kMaxDecodeDepth = 64;

template <meta::Reflected T>
bool DecodeBody(std::string_view body, T& out, ProtoDecodeState& st) {
  if (++st.depth > kMaxDecodeDepth) return st.Fail("nested too deeply");
  const ProtoMessage* schema = SchemaOf<T>();
  const auto& table = kProtoFieldDecoders<T>;
  std::vector<std::pair<const ProtoField*, std::vector<WireValue>>> extras;
  ProtoReader r(body);
  while (!r.done()) {
    uint32_t num;
    WireType wt;
    std::string_view raw;
    if (!r.ReadTag(&num, &wt)) return st.Fail("malformed field tag");
    if (!r.ReadRaw(wt, &raw)) return st.Fail("truncated field");
    if (num < table.size() && table[num]) {
      if (!table[num](wt, raw, out, st, schema)) {
        return false;
      }
      continue;
    }
    if constexpr (meta::HasUnknownFields<T>) {
      const ProtoField* f = schema ? schema->FieldByNumber(num) : nullptr;
      if (!f) continue;  // unknown to upstream's schema too: dropped, as Go drops it
      auto it =
          std::find_if(extras.begin(), extras.end(), [&](const auto& e) { return e.first == f; });
      if (it == extras.end()) {
        extras.emplace_back(f, std::vector<WireValue>{});
        it = extras.end() - 1;
      }
      it->second.push_back({wt, raw});
    }
  }
  if constexpr (meta::HasUnknownFields<T>) {
    // In declaration order (Go's JSON order).
    std::sort(extras.begin(), extras.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& [f, values] : extras) {
      if (OmitInJson(*f, values)) continue;
      // A reused scratch string, copied at its exact size (see the RawJson decoder).
      thread_local std::string scratch;
      scratch.clear();
      JsonWriter jw(&scratch);
      std::string error;
      if (!ProtoFieldToJson(*f, values, jw, &error)) return st.Fail(error);
      out.unknown.items.emplace_back(f->name, scratch);
      if (scratch.capacity() > (size_t{1} << 20)) scratch = std::string();
    }
  }
  --st.depth;
  return true;
}

}  // namespace svcplane::api::codec::internal
