#pragma once

#include <string>
#include <string_view>

#include "api/meta/types.h"

namespace svcplane::api::core::v1 {

using meta::F;
using meta::kAlways;
using meta::Tag;

// The body of POST pods/{name}/binding (what kube-scheduler sends): assigns the Pod named by
// metadata.name to the Node named by target.name. Never stored; metadata.uid and
// metadata.resourceVersion, when set, are preconditions on the Pod.
struct Binding {
  std::string kind;
  std::string api_version;
  meta::ObjectMeta metadata;
  meta::ObjectReference target;
  meta::UnknownFields unknown;
  bool operator==(const Binding&) const = default;
};

// What Clientset::BindPod sends: Pod ns/name onto Node `node`, `uid` (may be empty) as the
// Pod's precondition.
inline Binding BindingOf(std::string_view ns, std::string_view name, std::string_view node,
                         std::string_view uid) {
  Binding b;
  b.metadata.name = std::string(name);
  b.metadata.namespace_ = std::string(ns);
  b.metadata.uid = std::string(uid);
  b.target.kind = "Node";
  b.target.name = std::string(node);
  return b;
}
constexpr auto FieldsOf(Tag<Binding>) {
  using T = Binding;
  return std::make_tuple(F("kind", &T::kind), F("apiVersion", &T::api_version),
                         F("metadata", &T::metadata, kAlways, 1),
                         F("target", &T::target, kAlways, 2));
}

}  // namespace svcplane::api::core::v1
