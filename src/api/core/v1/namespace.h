#pragma once

#include <string>
#include <vector>

#include "api/meta/types.h"

namespace svcplane::api::core::v1 {

using meta::F;
using meta::kAlways;
using meta::kOmitEmpty;
using meta::Tag;

struct NamespaceCondition {
  std::string type;
  std::string status;
  meta::Time last_transition_time;
  std::string reason;
  std::string message;
  meta::UnknownFields unknown;
  bool operator==(const NamespaceCondition&) const = default;
};
constexpr auto FieldsOf(Tag<NamespaceCondition>) {
  using T = NamespaceCondition;
  return std::make_tuple(F("type", &T::type, kOmitEmpty, 1), F("status", &T::status, kOmitEmpty, 2),
                         F("lastTransitionTime", &T::last_transition_time, kAlways, 4),
                         F("reason", &T::reason, kOmitEmpty, 5),
                         F("message", &T::message, kOmitEmpty, 6));
}

struct NamespaceSpec {
  std::vector<std::string> finalizers;
  meta::UnknownFields unknown;
  bool operator==(const NamespaceSpec&) const = default;
};
constexpr auto FieldsOf(Tag<NamespaceSpec>) {
  return std::make_tuple(F("finalizers", &NamespaceSpec::finalizers, kOmitEmpty, 1));
}

struct NamespaceStatus {
  std::string phase;  // Active | Terminating
  std::vector<NamespaceCondition> conditions;
  meta::UnknownFields unknown;
  bool operator==(const NamespaceStatus&) const = default;
};
constexpr auto FieldsOf(Tag<NamespaceStatus>) {
  using T = NamespaceStatus;
  return std::make_tuple(F("phase", &T::phase, kOmitEmpty, 1),
                         F("conditions", &T::conditions, kOmitEmpty, 2));
}

struct Namespace {
  std::string kind;
  std::string api_version;
  meta::ObjectMeta metadata;
  NamespaceSpec spec;
  NamespaceStatus status;
  meta::UnknownFields unknown;
  bool operator==(const Namespace&) const = default;
};
constexpr auto FieldsOf(Tag<Namespace>) {
  using T = Namespace;
  return std::make_tuple(F("kind", &T::kind), F("apiVersion", &T::api_version),
                         F("metadata", &T::metadata, kAlways, 1), F("spec", &T::spec, kAlways, 2),
                         F("status", &T::status, kAlways, 3));
}

}  // namespace svcplane::api::core::v1
