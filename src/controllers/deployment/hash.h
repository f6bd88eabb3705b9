#pragma once

// The pod-template-hash label of a Deployment's ReplicaSets (workloads.md §3.3).
//
// Upstream hashes a go-spew dump of the Go struct, which no other implementation can reproduce
// (it depends on the in-memory layout of every type reachable from v1.PodTemplateSpec for one
// Kubernetes version, and upstream's own value changes across releases). What clients rely on is
// kept: FNV-1a 32-bit over a deterministic serialization of the template, then the collision
// count as 4 little-endian bytes plus 4 zero bytes (as upstream writes it), rendered as the
// decimal of the sum through rand.SafeEncodeString. Nothing matches ReplicaSets by hash; the
// controller finds its new ReplicaSet by template equality (EqualIgnoreHash).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "api/core/v1/pod.h"

namespace svcplane::controllers::deployment {

// apps.DefaultDeploymentUniqueLabelKey.
inline constexpr char kPodTemplateHashLabel[] = "pod-template-hash";

// The template as the controller compares and hashes it: without its pod-template-hash label,
// and with the JSON members our types do not model normalized. Go compares typed values, where
// an explicit zero ("stdin": false, as a protobuf client sends it) equals an absent field and
// member order means nothing; so unknown members holding false, 0, "", null or [] are dropped
// and the rest sorted by name (in the template, its metadata and spec, and each container).
api::core::v1::PodTemplateSpec CanonicalTemplate(const api::core::v1::PodTemplateSpec& t);

// k8s.io/apimachinery/pkg/util/rand.SafeEncodeString: each byte c becomes
// "bcdfghjklmnpqrstvwxz2456789"[c % 27] (no vowels, no 0/1/3, so no words and no look-alikes).
std::string SafeEncodeString(std::string_view s);

// FNV-1a 32-bit of `data` continuing from `hash` (start with kFnv32Offset).
inline constexpr uint32_t kFnv32Offset = 2166136261u;
uint32_t Fnv1a32(std::string_view data, uint32_t hash = kFnv32Offset);

// controller.ComputeHash: the label value for `template_` (its pod-template-hash label, if any,
// is ignored) and the Deployment's status.collisionCount. Matches ^[4-9bcdf]{1,10}$.
std::string ComputePodTemplateHash(const api::core::v1::PodTemplateSpec& template_,
                                   std::optional<int32_t> collision_count);

}  // namespace svcplane::controllers::deployment
