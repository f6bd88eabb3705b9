#pragma once

// Pod predicates and the scale-down order of the ReplicaSet controller (workloads.md §2.4,
// upstream controller_utils.go: IsPodActive, podutil.IsPodReady/IsPodAvailable,
// ActivePodsWithRanks). Pure functions: "now" is always passed in.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "api/core/v1/pod.h"
#include "api/meta/types.h"
#include "base/clock.h"

namespace svcplane::controllers::replicaset {

using api::core::v1::Pod;
using PodPtr = std::shared_ptr<const Pod>;

// Not Succeeded, not Failed, no deletionTimestamp.
bool IsPodActive(const Pod& pod);
// The Ready condition, if any.
const api::core::v1::PodCondition* ReadyCondition(const Pod& pod);
// Ready condition with status "True".
bool IsPodReady(const Pod& pod);
// Ready, and either minReadySeconds is 0 or Ready's lastTransitionTime + minReadySeconds is
// before `now` (a zero transition time never becomes available with minReadySeconds > 0).
bool IsPodAvailable(const Pod& pod, int32_t min_ready_seconds, WallTime now);
// The highest restartCount among status.containerStatuses (0 without statuses).
int32_t MaxContainerRestarts(const Pod& pod);
// controller.kubernetes.io/pod-deletion-cost as int32; missing or invalid is 0.
int32_t PodDeletionCost(const Pod& pod);
// "ns/name" (controller.PodKey), the key deletion expectations track.
std::string PodKey(const Pod& pod);
// The ownerReference with controller: true, if any (metav1.GetControllerOf).
const api::meta::OwnerReference* ControllerOf(const api::meta::ObjectMeta& meta);

inline constexpr char kPodDeletionCostAnnotation[] = "controller.kubernetes.io/pod-deletion-cost";

// A pod with its rank: the number of active related pods on its node (§2.4 rule 5).
struct RankedPod {
  PodPtr pod;
  int rank = 0;
};

// ActivePodsWithRanks.Less with PodDeletionCost and LogarithmicScaleDown on: true when `a`
// should be deleted before `b`.
bool DeleteBefore(const RankedPod& a, const RankedPod& b, WallTime now);

// getPodsToDelete: the first `n` of `active` in deletion order. `related` are the pods of every
// ReplicaSet sharing this one's controller (the ReplicaSet's own pods included); they give each
// candidate its rank. Sorting happens only when some pods survive (n < size).
std::vector<PodPtr> PodsToDelete(std::vector<PodPtr> active, const std::vector<PodPtr>& related,
                                 size_t n, WallTime now);

}  // namespace svcplane::controllers::replicaset
