#pragma once

#include <cstdint>
#include <string>

#include "api/meta/types.h"

// autoscaling/v1 Scale (k8s.io/api/autoscaling/v1/types.go): what the `scale` subresource of
// Deployments and ReplicaSets takes and returns (`kubectl scale`). Never stored.
namespace svcplane::api::autoscaling::v1 {

using meta::F;
using meta::kAlways;
using meta::kOmitEmpty;
using meta::Tag;

inline constexpr std::string_view kGroupVersion = "autoscaling/v1";

struct ScaleSpec {
  int32_t replicas = 0;
  meta::UnknownFields unknown;
  bool operator==(const ScaleSpec&) const = default;
};
constexpr auto FieldsOf(Tag<ScaleSpec>) {
  return std::make_tuple(F("replicas", &ScaleSpec::replicas, kOmitEmpty, 1));
}

struct ScaleStatus {
  int32_t replicas = 0;  // no omitempty upstream
  std::string selector;  // label query in string form ("app=web")
  meta::UnknownFields unknown;
  bool operator==(const ScaleStatus&) const = default;
};
constexpr auto FieldsOf(Tag<ScaleStatus>) {
  using T = ScaleStatus;
  return std::make_tuple(F("replicas", &T::replicas, kAlways, 1),
                         F("selector", &T::selector, kOmitEmpty, 2));
}

struct Scale {
  std::string kind;
  std::string api_version;
  meta::ObjectMeta metadata;
  ScaleSpec spec;
  ScaleStatus status;
  meta::UnknownFields unknown;
  bool operator==(const Scale&) const = default;
};
constexpr auto FieldsOf(Tag<Scale>) {
  using T = Scale;
  return std::make_tuple(F("kind", &T::kind), F("apiVersion", &T::api_version),
                         F("metadata", &T::metadata, kAlways, 1), F("spec", &T::spec, kAlways, 2),
                         F("status", &T::status, kAlways, 3));
}

}  // namespace svcplane::api::autoscaling::v1
