#pragma once

// The pure parts of the ReplicaSet controller's sync (workloads.md §2.3–§2.5; upstream
// replica_set.go, replica_set_utils.go, controller_utils.go, controller_ref_manager.go): slow-start
// batches, the Pod built from the template, the adopt/release patches, the claim decision for
// one pod, and the status computation. No I/O; the controller applies what these decide.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "api/apps/v1/apps.h"
#include "api/selectors/label_selector.h"
#include "base/clock.h"
#include "base/status.h"
#include "controllers/replicaset/pods.h"

namespace svcplane::controllers::replicaset {

using api::apps::v1::ReplicaSet;
using api::apps::v1::ReplicaSetStatus;

inline constexpr int kBurstReplicas = 500;        // pods created or deleted per sync at most
inline constexpr int kSlowStartInitialBatch = 1;  // controller.SlowStartInitialBatchSize
inline constexpr char kReplicaFailure[] = "ReplicaFailure";

// slowStartBatch: calls `fn` `count` times in batches of 1, 2, 4, ... (each min(2×previous,
// remaining)); the calls of one batch run in parallel (`run_batch` runs `size` calls and returns
// their results; the default runs one thread per call). Stops after the first batch with an
// error. Returns the number of successful calls and the first error of the failed batch.
struct SlowStartResult {
  int successes = 0;
  Status error;
};
using BatchRunner = std::function<std::vector<Status>(int size, const std::function<Status()>& fn)>;
std::vector<Status> RunInParallel(int size, const std::function<Status()>& fn);
SlowStartResult SlowStartBatch(int count, int initial_batch, const std::function<Status()>& fn,
                               const BatchRunner& run_batch = RunInParallel);

// The batch sizes SlowStartBatch uses for `count` calls without errors (1,2,4,...,remainder).
std::vector<int> SlowStartBatchSizes(int count, int initial_batch);

// controller.GetPodFromTemplate + the ReplicaSet's controller reference: generateName
// "<rs>-" (the bare name when "<rs>-" is no valid name prefix), labels, annotations and
// finalizers of the template, its spec copied, one ownerReference (apps/v1 ReplicaSet,
// controller and blockOwnerDeletion), in the ReplicaSet's namespace. Error without labels:
// "unable to create pods, no labels".
Result<Pod> PodFromTemplate(const ReplicaSet& rs);

// The ownerReference a ReplicaSet puts on its pods.
api::meta::OwnerReference ControllerRef(const ReplicaSet& rs);

// Strategic-merge patch bodies, byte for byte as upstream marshals them. `pod_uid` in
// metadata acts as a precondition: the server refuses the patch for a pod of another UID.
std::string AdoptPatch(const ReplicaSet& rs, const std::string& pod_uid);
std::string ReleasePatch(const std::string& rs_uid, const std::string& pod_uid);

// ClaimObject's decision for one active pod.
enum class ClaimAction {
  kIgnore,   // owned by someone else, or an orphan we must not adopt
  kKeep,     // ours and matching
  kRelease,  // ours, no longer matching: patch our ownerReference away
  kAdopt,    // orphan matching: patch our ownerReference in (after the uncached RS recheck)
  kSkip,     // ours, no longer matching, but the ReplicaSet is being deleted
};
ClaimAction DecideClaim(const ReplicaSet& rs, const api::selectors::LabelSelector& selector,
                        const Pod& pod);

// calculateStatus: counts over the active claimed pods, and the ReplicaFailure condition added
// (reason FailedCreate when fewer pods than spec.replicas, FailedDelete when more, message the
// error) when manageReplicas failed and there is none, removed when it succeeded. `now` stamps
// a new condition and decides availability with minReadySeconds. observedGeneration is left
// as it was (the write sets it).
ReplicaSetStatus CalculateStatus(const ReplicaSet& rs, const std::vector<PodPtr>& active_pods,
                                 const Status& manage_error, WallTime now);

// updateReplicaSetStatus's skip rule: counters and conditions equal and the generation
// already observed.
bool StatusUpToDate(const ReplicaSet& rs, const ReplicaSetStatus& status);

// When to sync again so that pods Ready but not yet available (minReadySeconds) are counted
// once they are: the earliest readyTime + minReadySeconds among them, plus a second (times have
// second precision and availability needs "strictly before now"). Nullopt when none waits.
// Upstream 1.28 requeues after minReadySeconds only once every wanted pod is ready; this
// covers that case and partial readiness alike.
std::optional<Duration> NextAvailabilityCheck(const ReplicaSet& rs,
                                              const std::vector<PodPtr>& active_pods, WallTime now);

// The ReplicaSet's spec.replicas (nil: 1, the default).
int32_t DesiredReplicas(const ReplicaSet& rs);
int64_t Generation(const ReplicaSet& rs);

}  // namespace svcplane::controllers::replicaset
