#pragma once

#include <string>

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
constexpr auto FieldsOf(Tag<Binding>) {
  using T = Binding;
  return std::make_tuple(F("kind", &T::kind), F("apiVersion", &T::api_version),
                         F("metadata", &T::metadata, kAlways, 1),
                         F("target", &T::target, kAlways, 2));
}

}  // namespace svcplane::api::core::v1
