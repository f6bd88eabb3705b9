#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/core/v1/pod.h"
#include "api/meta/types.h"
#include "api/selectors/label_selector.h"

// apps/v1 Deployment and ReplicaSet (k8s.io/api/apps/v1/types.go). Field numbers are upstream's
// generated.proto; the JSON order is the Go struct order (which differs from the field numbers
// for the newer status counters). Pointer fields of Go (*int32) are std::optional: present on
// the wire means "set", absent is defaulted (workloads.md §1.2).
namespace svcplane::api::apps::v1 {

using meta::F;
using meta::kAlways;
using meta::kOmitEmpty;
using meta::Tag;

inline constexpr std::string_view kGroupName = "apps";

// DeploymentStrategy types.
inline constexpr std::string_view kRecreateStrategy = "Recreate";
inline constexpr std::string_view kRollingUpdateStrategy = "RollingUpdate";

struct RollingUpdateDeployment {
  std::optional<meta::IntOrString> max_unavailable;
  std::optional<meta::IntOrString> max_surge;
  meta::UnknownFields unknown;
  bool operator==(const RollingUpdateDeployment&) const = default;
};
constexpr auto FieldsOf(Tag<RollingUpdateDeployment>) {
  using T = RollingUpdateDeployment;
  return std::make_tuple(F("maxUnavailable", &T::max_unavailable, kOmitEmpty, 1),
                         F("maxSurge", &T::max_surge, kOmitEmpty, 2));
}

struct DeploymentStrategy {
  std::string type;
  std::optional<RollingUpdateDeployment> rolling_update;
  meta::UnknownFields unknown;
  bool operator==(const DeploymentStrategy&) const = default;
};
constexpr auto FieldsOf(Tag<DeploymentStrategy>) {
  using T = DeploymentStrategy;
  return std::make_tuple(F("type", &T::type, kOmitEmpty, 1),
                         F("rollingUpdate", &T::rolling_update, kOmitEmpty, 2));
}

struct DeploymentSpec {
  std::optional<int32_t> replicas;
  std::optional<selectors::LabelSelectorSpec> selector;
  core::v1::PodTemplateSpec template_;
  DeploymentStrategy strategy;
  int32_t min_ready_seconds = 0;
  std::optional<int32_t> revision_history_limit;
  bool paused = false;
  std::optional<int32_t> progress_deadline_seconds;
  meta::UnknownFields unknown;
  bool operator==(const DeploymentSpec&) const = default;
};
constexpr auto FieldsOf(Tag<DeploymentSpec>) {
  using T = DeploymentSpec;
  return std::make_tuple(
      F("replicas", &T::replicas, kOmitEmpty, 1), F("selector", &T::selector, kOmitEmpty, 2),
      F("template", &T::template_, kAlways, 3), F("strategy", &T::strategy, kOmitEmpty, 4),
      F("minReadySeconds", &T::min_ready_seconds, kOmitEmpty, 5),
      F("revisionHistoryLimit", &T::revision_history_limit, kOmitEmpty, 6),
      F("paused", &T::paused, kOmitEmpty, 7),
      F("progressDeadlineSeconds", &T::progress_deadline_seconds, kOmitEmpty, 9));
}

struct DeploymentCondition {
  std::string type;
  std::string status;
  meta::Time last_update_time;
  meta::Time last_transition_time;
  std::string reason;
  std::string message;
  meta::UnknownFields unknown;
  bool operator==(const DeploymentCondition&) const = default;
};
constexpr auto FieldsOf(Tag<DeploymentCondition>) {
  using T = DeploymentCondition;
  return std::make_tuple(F("type", &T::type, kAlways, 1), F("status", &T::status, kAlways, 2),
                         F("lastUpdateTime", &T::last_update_time, kAlways, 6),
                         F("lastTransitionTime", &T::last_transition_time, kAlways, 7),
                         F("reason", &T::reason, kOmitEmpty, 4),
                         F("message", &T::message, kOmitEmpty, 5));
}

// Every member omitempty: a fresh status is `{}`.
struct DeploymentStatus {
  int64_t observed_generation = 0;
  int32_t replicas = 0;
  int32_t updated_replicas = 0;
  int32_t ready_replicas = 0;
  int32_t available_replicas = 0;
  int32_t unavailable_replicas = 0;
  // Feature DeploymentReplicaSetTerminatingReplicas (off through 1.34): never set by us.
  std::optional<int32_t> terminating_replicas;
  std::vector<DeploymentCondition> conditions;
  std::optional<int32_t> collision_count;
  meta::UnknownFields unknown;
  bool operator==(const DeploymentStatus&) const = default;
};
constexpr auto FieldsOf(Tag<DeploymentStatus>) {
  using T = DeploymentStatus;
  return std::make_tuple(F("observedGeneration", &T::observed_generation, kOmitEmpty, 1),
                         F("replicas", &T::replicas, kOmitEmpty, 2),
                         F("updatedReplicas", &T::updated_replicas, kOmitEmpty, 3),
                         F("readyReplicas", &T::ready_replicas, kOmitEmpty, 7),
                         F("availableReplicas", &T::available_replicas, kOmitEmpty, 4),
                         F("unavailableReplicas", &T::unavailable_replicas, kOmitEmpty, 5),
                         F("terminatingReplicas", &T::terminating_replicas, kOmitEmpty, 9),
                         F("conditions", &T::conditions, kOmitEmpty, 6),
                         F("collisionCount", &T::collision_count, kOmitEmpty, 8));
}

struct Deployment {
  std::string kind;
  std::string api_version;
  meta::ObjectMeta metadata;
  DeploymentSpec spec;
  DeploymentStatus status;
  meta::UnknownFields unknown;
  bool operator==(const Deployment&) const = default;
};
constexpr auto FieldsOf(Tag<Deployment>) {
  using T = Deployment;
  return std::make_tuple(F("kind", &T::kind), F("apiVersion", &T::api_version),
                         F("metadata", &T::metadata, kAlways, 1), F("spec", &T::spec, kAlways, 2),
                         F("status", &T::status, kAlways, 3));
}

struct ReplicaSetSpec {
  std::optional<int32_t> replicas;
  int32_t min_ready_seconds = 0;
  std::optional<selectors::LabelSelectorSpec> selector;
  core::v1::PodTemplateSpec template_;
  meta::UnknownFields unknown;
  bool operator==(const ReplicaSetSpec&) const = default;
};
constexpr auto FieldsOf(Tag<ReplicaSetSpec>) {
  using T = ReplicaSetSpec;
  return std::make_tuple(F("replicas", &T::replicas, kOmitEmpty, 1),
                         F("minReadySeconds", &T::min_ready_seconds, kOmitEmpty, 4),
                         F("selector", &T::selector, kOmitEmpty, 2),
                         F("template", &T::template_, kOmitEmpty, 3));
}

struct ReplicaSetCondition {
  std::string type;
  std::string status;
  meta::Time last_transition_time;
  std::string reason;
  std::string message;
  meta::UnknownFields unknown;
  bool operator==(const ReplicaSetCondition&) const = default;
};
constexpr auto FieldsOf(Tag<ReplicaSetCondition>) {
  using T = ReplicaSetCondition;
  return std::make_tuple(F("type", &T::type, kAlways, 1), F("status", &T::status, kAlways, 2),
                         F("lastTransitionTime", &T::last_transition_time, kAlways, 3),
                         F("reason", &T::reason, kOmitEmpty, 4),
                         F("message", &T::message, kOmitEmpty, 5));
}

// `replicas` has no omitempty: a fresh status is `{"replicas":0}`.
struct ReplicaSetStatus {
  int32_t replicas = 0;
  int32_t fully_labeled_replicas = 0;
  int32_t ready_replicas = 0;
  int32_t available_replicas = 0;
  std::optional<int32_t> terminating_replicas;
  int64_t observed_generation = 0;
  std::vector<ReplicaSetCondition> conditions;
  meta::UnknownFields unknown;
  bool operator==(const ReplicaSetStatus&) const = default;
};
constexpr auto FieldsOf(Tag<ReplicaSetStatus>) {
  using T = ReplicaSetStatus;
  return std::make_tuple(F("replicas", &T::replicas, kAlways, 1),
                         F("fullyLabeledReplicas", &T::fully_labeled_replicas, kOmitEmpty, 2),
                         F("readyReplicas", &T::ready_replicas, kOmitEmpty, 4),
                         F("availableReplicas", &T::available_replicas, kOmitEmpty, 5),
                         F("terminatingReplicas", &T::terminating_replicas, kOmitEmpty, 7),
                         F("observedGeneration", &T::observed_generation, kOmitEmpty, 3),
                         F("conditions", &T::conditions, kOmitEmpty, 6));
}

struct ReplicaSet {
  std::string kind;
  std::string api_version;
  meta::ObjectMeta metadata;
  ReplicaSetSpec spec;
  ReplicaSetStatus status;
  meta::UnknownFields unknown;
  bool operator==(const ReplicaSet&) const = default;
};
constexpr auto FieldsOf(Tag<ReplicaSet>) {
  using T = ReplicaSet;
  return std::make_tuple(F("kind", &T::kind), F("apiVersion", &T::api_version),
                         F("metadata", &T::metadata, kAlways, 1), F("spec", &T::spec, kAlways, 2),
                         F("status", &T::status, kAlways, 3));
}

}  // namespace svcplane::api::apps::v1
