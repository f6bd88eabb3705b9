#pragma once

// The Deployment controller's pure rules (upstream pkg/controller/deployment/util and the
// arithmetic of sync.go / rolling.go / progress.go; workloads.md §3): annotations and revisions,
// maxSurge/maxUnavailable, new/old ReplicaSets, proportional scaling, conditions and status,
// history cleanup. Nothing here writes or reads the API; sync.h does, through an ApiWriter.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/apps/v1/apps.h"
#include "base/clock.h"
#include "base/result.h"

namespace svcplane::controllers::deployment {

using api::apps::v1::Deployment;
using api::apps::v1::DeploymentCondition;
using api::apps::v1::DeploymentStatus;
using api::apps::v1::ReplicaSet;
using RSPtr = std::shared_ptr<const ReplicaSet>;
using RSList = std::vector<RSPtr>;

// Annotations (deployment_util.go).
inline constexpr char kRevisionAnnotation[] = "deployment.kubernetes.io/revision";
inline constexpr char kRevisionHistoryAnnotation[] = "deployment.kubernetes.io/revision-history";
inline constexpr char kDesiredReplicasAnnotation[] = "deployment.kubernetes.io/desired-replicas";
inline constexpr char kMaxReplicasAnnotation[] = "deployment.kubernetes.io/max-replicas";
inline constexpr char kLastAppliedConfigAnnotation[] =
    "kubectl.kubernetes.io/last-applied-configuration";
inline constexpr char kDeprecatedRollbackToAnnotation[] = "deprecated.deployment.rollback.to";
// The controller's limit on revision-history (maxRevHistoryLengthInChars).
inline constexpr size_t kMaxRevisionHistoryLengthInChars = 2000;

// Condition types and reasons.
inline constexpr char kAvailableCondition[] = "Available";
inline constexpr char kProgressingCondition[] = "Progressing";
inline constexpr char kReplicaFailureCondition[] = "ReplicaFailure";
inline constexpr char kReplicaSetUpdatedReason[] = "ReplicaSetUpdated";
inline constexpr char kFailedRSCreateReason[] = "ReplicaSetCreateError";
inline constexpr char kNewReplicaSetReason[] = "NewReplicaSetCreated";
inline constexpr char kFoundNewRSReason[] = "FoundNewReplicaSet";
inline constexpr char kNewRSAvailableReason[] = "NewReplicaSetAvailable";
inline constexpr char kTimedOutReason[] = "ProgressDeadlineExceeded";
inline constexpr char kPausedDeployReason[] = "DeploymentPaused";
inline constexpr char kResumedDeployReason[] = "DeploymentResumed";
inline constexpr char kMinimumReplicasAvailable[] = "MinimumReplicasAvailable";
inline constexpr char kMinimumReplicasUnavailable[] = "MinimumReplicasUnavailable";

// spec.replicas as defaulting leaves it (absent = 1).
int32_t Replicas(const Deployment& d);
int32_t Replicas(const ReplicaSet& rs);

// --- maxSurge / maxUnavailable -----------------------------------------------------------------

// intstr.GetScaledValueFromIntOrPercent: an int as is; "N%" of `total`, rounded up or down.
// Other strings are kBadRequest ("invalid value for IntOrString: ...").
Result<int32_t> ScaledValueFromIntOrPercent(const api::meta::IntOrString& v, int32_t total,
                                            bool round_up);

struct Fenceposts {
  int32_t max_surge = 0;
  int32_t max_unavailable = 0;
};
// ResolveFenceposts: surge rounds up, unavailable down (an absent value is 0); both 0 ->
// unavailable 1, so that a rollout can always make progress.
Result<Fenceposts> ResolveFenceposts(const std::optional<api::meta::IntOrString>& max_surge,
                                     const std::optional<api::meta::IntOrString>& max_unavailable,
                                     int32_t desired);

bool IsRollingUpdate(const Deployment& d);
// 0 unless RollingUpdate. Values that do not resolve (validation forbids them) count as 0.
int32_t MaxSurge(const Deployment& d);
// 0 unless RollingUpdate with replicas > 0; capped at spec.replicas.
int32_t MaxUnavailable(const Deployment& d);
// spec.replicas - MaxUnavailable for RollingUpdate, else 0.
int32_t MinAvailable(const Deployment& d);
// progressDeadlineSeconds set and not MaxInt32.
bool HasProgressDeadline(const Deployment& d);
// revisionHistoryLimit set and not MaxInt32.
bool HasRevisionHistoryLimit(const Deployment& d);

// --- Revisions and annotations -----------------------------------------------------------------

// The revision annotation: absent = 0, unparsable = error.
Result<int64_t> Revision(const api::meta::ObjectMeta& meta);
// The highest parsable revision (0 if none).
int64_t MaxRevision(const RSList& rss);
// Whether deployment annotation `key` is never copied to a ReplicaSet.
bool SkipCopyAnnotation(std::string_view key);
// SetNewReplicaSetAnnotations: copies the Deployment's annotations (minus the skip list) onto
// `rs`, raises its revision to `new_revision` if lower (recording a previous revision in
// revision-history, trimmed from the front to `history_limit_chars`), and for a ReplicaSet about
// to be created (`exists` false) sets desired/max-replicas. True if anything changed.
bool SetNewReplicaSetAnnotations(const Deployment& d, ReplicaSet& rs,
                                 const std::string& new_revision, bool exists,
                                 size_t history_limit_chars = kMaxRevisionHistoryLengthInChars);
// desired-replicas / max-replicas; true if changed.
bool SetReplicasAnnotations(ReplicaSet& rs, int32_t desired, int32_t max);
bool ReplicasAnnotationsNeedUpdate(const ReplicaSet& rs, int32_t desired, int32_t max);
// An integer annotation of `rs` (Atoi), nullopt if absent or unparsable.
std::optional<int32_t> IntAnnotation(const ReplicaSet& rs, std::string_view key);
// Sets the Deployment's revision annotation; true if it changed.
bool SetDeploymentRevision(Deployment& d, const std::string& revision);

// --- New and old ReplicaSets -------------------------------------------------------------------

// Templates equal once the pod-template-hash label is dropped from both and what our types do
// not model is compared as Go compares typed values (CanonicalTemplate).
bool EqualIgnoreHash(const api::core::v1::PodTemplateSpec& a,
                     const api::core::v1::PodTemplateSpec& b);
// ReplicaSetsByCreationTimestamp: older first, then by name.
bool CreatedBefore(const ReplicaSet& a, const ReplicaSet& b);
void SortByCreation(RSList& rss);
// ReplicaSetsBySizeNewer: larger first, newer first on ties (proportional scale-up order).
void SortBySizeNewer(RSList& rss);
// ReplicaSetsBySizeOlder: larger first, older first on ties (proportional scale-down order).
void SortBySizeOlder(RSList& rss);
// ReplicaSetsByRevision: lower revision first; ties or unparsable revisions by creation.
void SortByRevision(RSList& rss);
// The oldest ReplicaSet whose template equals the Deployment's (EqualIgnoreHash), or null.
RSPtr FindNewReplicaSet(const Deployment& d, const RSList& rss);
// Every ReplicaSet but `new_rs`.
RSList FindOldReplicaSets(const RSList& rss, const RSPtr& new_rs);
// Those with spec.replicas > 0 (nulls dropped).
RSList FilterActive(const RSList& rss);
// FindActiveOrLatest: the only active ReplicaSet; if none is active the new one, else the
// newest old one; null when several are active (they get scaled proportionally).
RSPtr FindActiveOrLatest(const RSPtr& new_rs, const RSList& old_rss);

// Sums over non-null entries: spec.replicas, status.replicas, readyReplicas, availableReplicas.
int32_t SumSpecReplicas(const RSList& rss);
int32_t SumStatusReplicas(const RSList& rss);
int32_t SumReadyReplicas(const RSList& rss);
int32_t SumAvailableReplicas(const RSList& rss);

// --- Scaling arithmetic ------------------------------------------------------------------------

// NewRSNewReplicas: the size the new ReplicaSet may grow to now. RollingUpdate: up to
// spec + maxSurge pods in total and never past spec; Recreate: spec.replicas.
Result<int32_t> NewRSNewReplicas(const Deployment& d, const RSList& all, const ReplicaSet& new_rs);
// rolling.go reconcileOldReplicaSets: how many old pods may go now, all pods counted minus
// the minimum available minus the new ReplicaSet's pods not yet available (<= 0: none).
int32_t MaxScaledDown(const Deployment& d, const RSList& all, const ReplicaSet& new_rs);
// IsSaturated: the new ReplicaSet holds all desired replicas, believes so (desired-replicas),
// and all are available.
bool IsSaturated(const Deployment& d, const RSPtr& rs);
// GetProportion: how much of `to_add` (negative: to remove) `rs` takes, given `added` so far.
int32_t GetProportion(const ReplicaSet& rs, const Deployment& d, int32_t to_add, int32_t added);

// The sizes sync.go `scale` gives each active ReplicaSet of a RollingUpdate Deployment with
// several active ones: spec + maxSurge shared in proportion to max-replicas, the leftover to
// the first in scaling order. `active` is sorted into that order; the result is parallel to it.
struct ProportionalPlan {
  RSList order;
  std::vector<int32_t> sizes;
  std::string operation;  // "up", "down" or "" (nothing to add)
};
ProportionalPlan PlanProportionalScale(const Deployment& d, RSList active);

// --- Conditions and status ---------------------------------------------------------------------

api::meta::Time ToMetaTime(WallTime t);
DeploymentCondition NewCondition(std::string type, std::string status, std::string reason,
                                 std::string message, api::meta::Time now);
const DeploymentCondition* GetCondition(const DeploymentStatus& s, std::string_view type);
// No-op when status and reason are unchanged; otherwise the old entry is removed and the new
// one appended, keeping lastTransitionTime if only the reason changed.
void SetCondition(DeploymentStatus& s, DeploymentCondition c);
void RemoveCondition(DeploymentStatus& s, std::string_view type);

// calculateStatus: counters from the ReplicaSets (`all` may hold a null new RS), conditions
// copied, Available set from availability vs spec - maxUnavailable.
DeploymentStatus CalculateStatus(const RSList& all, const RSPtr& new_rs, const Deployment& d,
                                 api::meta::Time now);
// DeploymentComplete: updated == replicas == available == spec, observedGeneration current.
bool DeploymentComplete(const Deployment& d, const DeploymentStatus& s);
// DeploymentProgressing: new status shows more updated, fewer old, more ready or more available
// pods than the Deployment's stored status.
bool DeploymentProgressing(const Deployment& d, const DeploymentStatus& s);
// DeploymentTimedOut: the Progressing condition of `s` is already TimedOut, or its
// lastUpdateTime + deadline is before `now` (never when it says NewReplicaSetAvailable).
bool DeploymentTimedOut(const Deployment& d, const DeploymentStatus& s, WallTime now);
// syncRolloutStatus's status: calculateStatus plus the Progressing condition (complete,
// progressing or timed out) and ReplicaFailure copied from the ReplicaSets.
DeploymentStatus RolloutStatus(const RSList& all, const RSPtr& new_rs, const Deployment& d,
                               WallTime now);
// requeueStuckDeployment: when an unchanged status still waits on the progress deadline, how
// long until it should be checked again (lastUpdateTime + deadline - now + 1s). Zero means
// "now, rate-limited"; nullopt means no requeue is needed.
std::optional<Duration> StuckRequeueDelay(const Deployment& d, const DeploymentStatus& new_status,
                                          WallTime now);

// --- History -----------------------------------------------------------------------------------

// cleanupDeployment's choice: when more old ReplicaSets (not being deleted) than
// revisionHistoryLimit exist, the oldest `count - limit` by revision, minus those that still
// have replicas or whose status is behind their generation.
RSList HistoryToDelete(const Deployment& d, const RSList& old_rss);

}  // namespace svcplane::controllers::deployment
