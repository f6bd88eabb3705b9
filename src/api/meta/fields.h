#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "api/meta/boxed.h"
#include "api/meta/scalars.h"

namespace svcplane::api::meta {

// How a field is written when it holds its zero value, following the Go struct tags of upstream's
// types (which decide what `kubectl get -o json` shows).
enum FieldFlags : uint32_t {
  kAlways = 0,           // no omitempty: written even when zero ("" / 0 / false / [] / null time)
  kOmitEmpty = 1u << 0,  // `json:",omitempty"`: left out when zero or empty
  // A struct-typed field the model keeps as RawJson: Go always writes it, `{}` when empty.
  kEmptyObject = 1u << 1,
  // A slice without omitempty that upstream only ever serves nil when empty: every object
  // kube-apiserver returns went through protobuf in etcd, which has no empty-vs-nil, so an empty
  // `rules` comes back as `null` (a ClusterRole built by aggregation shows `rules: null`).
  kNullWhenEmpty = 1u << 2,
};

// A struct kept as RawJson with kEmptyObject is written `{}` when empty (JSON) or as an empty
// message (protobuf, which decodes back to `{}`). Decoders store that `{}` as the empty RawJson
// it encodes from: otherwise decode -> encode -> decode gives a different object ("" vs "{}"), and
// every decoded Container would allocate its boxed rest just to hold `resources: {}`.
template <typename Member>
void NormalizeDecoded(Member& m, uint32_t flags) {
  if constexpr (std::is_same_v<Member, RawJson>) {
    if ((flags & kEmptyObject) && m.text == "{}") m.text.clear();
  }
}

// One field of a struct: its JSON name, the member, the Go tag semantics and the protobuf field
// number from upstream's generated.proto (0 when the field is JSON-only).
template <typename Class, typename Member>
struct Field {
  using MemberType = Member;
  std::string_view json_name;
  Member Class::*member;
  uint32_t flags;
  int proto;

  constexpr const Member& Get(const Class& c) const { return c.*member; }
  constexpr Member& Mut(Class& c) const { return c.*member; }
  // Decoders write through this: decode(Member&) -> bool.
  template <typename Fn>
  bool Decode(Class& c, Fn&& decode) const {
    if (!decode(c.*member)) return false;
    NormalizeDecoded(c.*member, flags);
    return true;
  }
};

// A field kept in a Boxed<Rest> member of Class (see boxed.h) but on the wire a member of Class
// like any other: codecs reach it through Get (never allocates) and Mut (allocates the box).
template <typename Class, typename Rest, typename Member>
struct BoxedField {
  using MemberType = Member;
  std::string_view json_name;
  Boxed<Rest> Class::*box;
  Member Rest::*member;
  uint32_t flags;
  int proto;

  const Member& Get(const Class& c) const { return (c.*box).get().*member; }
  Member& Mut(Class& c) const { return (c.*box).mut().*member; }
  // A zero value decoded into an empty box leaves it empty: protobuf writes every scalar and
  // string, zero or not, and a decoded object should not carry a box of zeros.
  template <typename Fn>
  bool Decode(Class& c, Fn&& decode) const {
    Boxed<Rest>& b = c.*box;
    if (b.allocated()) {
      if (!decode(b.mut().*member)) return false;
      NormalizeDecoded(b.mut().*member, flags);
      return true;
    }
    Member tmp{};
    if (!decode(tmp)) return false;
    NormalizeDecoded(tmp, flags);
    if (!(tmp == Member{})) b.mut().*member = std::move(tmp);
    return true;
  }
};

template <typename Class, typename Member>
constexpr Field<Class, Member> F(std::string_view name, Member Class::*member,
                                 uint32_t flags = kOmitEmpty, int proto = 0) {
  return {name, member, flags, proto};
}

// A field of the boxed rest of Class: FR("volumes", &T::rest, &PodSpecRest::volumes, ...).
template <typename Class, typename Rest, typename Member>
constexpr BoxedField<Class, Rest, Member> FR(std::string_view name, Boxed<Rest> Class::*box,
                                             Member Rest::*member, uint32_t flags = kOmitEmpty,
                                             int proto = 0) {
  return {name, box, member, flags, proto};
}

// Each API struct declares its fields once, next to its definition:
//   constexpr auto FieldsOf(Tag<ServicePort>) { return std::make_tuple(F("name", ...), ...); }
// The JSON codec, protobuf codec and OpenAPI generator all walk this list, so a field added in
// one place is known everywhere. Found through ADL on Tag<T>.
template <typename T>
struct Tag {};

template <typename T>
concept Reflected = requires {
  FieldsOf(Tag<T>{});
};

// JSON members the model does not know, kept verbatim (raw key text, raw value text) so that a
// decode → store → encode round trip loses nothing: users' Pods carry far more than we read.
// Boxed: every struct of every object has one and almost all are empty.
struct UnknownFields {
  BoxedVector<std::pair<std::string, std::string>> items;

  bool empty() const { return items.empty(); }
  bool operator==(const UnknownFields&) const = default;
};

template <typename T>
concept HasUnknownFields = requires(T t) {
  { t.unknown } -> std::convertible_to<UnknownFields&>;
};

// Calls fn(field) for every field of T, in declaration order.
template <Reflected T>
inline constexpr auto kFieldsOf = FieldsOf(Tag<T>{});

template <Reflected T, typename Fn>
constexpr void ForEachField(Fn&& fn) {
  std::apply([&](const auto&... f) { (fn(f), ...); }, kFieldsOf<T>);
}

}  // namespace svcplane::api::meta
