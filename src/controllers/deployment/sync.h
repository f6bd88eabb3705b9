#pragma once

// One sync of one Deployment (upstream syncDeployment and everything it calls: sync.go,
// rolling.go, recreate.go, progress.go; workloads.md §3.2-§3.10). The Syncer reads through a
// Cluster (the informer caches, plus one uncached GET for adoption) and writes through it too,
// so tests drive it over an in-memory Cluster and the controller over listers and a Clientset.
//
//   Syncer syncer(cluster, events, clock);
//   SyncOutcome out = syncer.Sync(*cached_deployment);
//   if (!out.status.ok()) queue.AddRateLimited(key) ... else if (out.requeue_after) ...

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/core/v1/pod.h"
#include "base/clock.h"
#include "base/result.h"
#include "controllers/deployment/util.h"
#include "controllers/endpointslice/event_sink.h"

namespace svcplane::controllers::deployment {

inline constexpr char kEventComponent[] = "deployment-controller";

using DeploymentPtr = std::shared_ptr<const Deployment>;
using PodPtr = std::shared_ptr<const api::core::v1::Pod>;

// What a sync reads and writes. Reads are the controller's caches; writes go to the API and
// return the object as stored. Errors carry Kubernetes reasons (client/errors.h).
class Cluster {
 public:
  virtual ~Cluster() = default;

  // Cached: every ReplicaSet of a namespace, one by name (null if absent), and the pods of a
  // namespace matching `selector`.
  virtual RSList ReplicaSets(std::string_view ns) = 0;
  virtual RSPtr CachedReplicaSet(std::string_view ns, std::string_view name) = 0;
  virtual std::vector<PodPtr> Pods(std::string_view ns,
                                   const api::selectors::LabelSelector& selector) = 0;

  // Uncached GET of the Deployment, to check it before adopting (RecheckDeletionTimestamp).
  virtual Result<DeploymentPtr> GetDeployment(std::string_view ns, std::string_view name) = 0;
  virtual Result<DeploymentPtr> UpdateDeploymentStatus(const Deployment& d) = 0;
  virtual Result<RSPtr> CreateReplicaSet(const ReplicaSet& rs) = 0;
  virtual Result<RSPtr> UpdateReplicaSet(const ReplicaSet& rs) = 0;
  // A strategic-merge patch (adoption and release of ReplicaSets).
  virtual Result<RSPtr> PatchReplicaSet(std::string_view ns, std::string_view name,
                                        std::string_view strategic_merge_patch) = 0;
  virtual Status DeleteReplicaSet(std::string_view ns, std::string_view name) = 0;
};

struct SyncOutcome {
  Status status;  // not OK: retry with backoff
  // Check the Deployment again after this long (progress deadline pending); zero: at once,
  // rate-limited (requeueStuckDeployment).
  std::optional<Duration> requeue_after;
};

class Syncer {
 public:
  // All must outlive the Syncer. Safe to call Sync from several threads for different keys.
  Syncer(Cluster& cluster, endpointslice::EventSink& events, const Clock& clock)
      : cluster_(cluster), events_(events), clock_(clock) {}

  // syncDeployment for the cached object `cached` (which is not modified).
  SyncOutcome Sync(const Deployment& cached);

  // Claims the namespace's ReplicaSets for `d` (adopt orphans that match, release owned ones
  // that no longer match) and returns those it controls (getReplicaSetsForDeployment).
  Result<RSList> ClaimReplicaSets(const Deployment& d);

 private:
  // The state of one sync: the working copy of the Deployment (status and revision annotation
  // updated as the sync writes them) and where to requeue.
  struct Run {
    Deployment d;
    RSList rss;  // the claimed ReplicaSets, replaced by what each write returned
    std::optional<Duration> requeue_after;
    void Remember(const RSPtr& written);
  };
  struct NewAndOld {
    RSPtr new_rs;  // may be null
    RSList old;    // every other claimed ReplicaSet
  };

  // sync.go
  Status SyncStatusOnly(Run& run);
  Status SyncScaleAndStatus(Run& run);
  Status CheckPausedConditions(Run& run);
  Result<NewAndOld> GetAllReplicaSetsAndSyncRevision(Run& run, bool create);
  Result<RSPtr> GetNewReplicaSet(Run& run, const RSList& old, bool create);
  Status Scale(Run& run, const RSPtr& new_rs, const RSList& old);
  Result<bool> IsScalingEvent(Run& run);
  // Returns whether the size changed and the ReplicaSet as stored.
  Result<std::pair<bool, RSPtr>> ScaleReplicaSetAndRecordEvent(Run& run, const RSPtr& rs,
                                                               int32_t new_scale);
  Result<std::pair<bool, RSPtr>> ScaleReplicaSet(Run& run, const RSPtr& rs, int32_t new_scale,
                                                 const std::string& operation);
  Status CleanupDeployment(Run& run, const RSList& old);
  Status SyncDeploymentStatus(Run& run, const RSList& all, const RSPtr& new_rs);
  Status WriteStatus(Run& run);

  // rolling.go
  Status RolloutRolling(Run& run);
  Result<bool> ReconcileNewReplicaSet(Run& run, const RSList& all, const RSPtr& new_rs);
  Result<bool> ReconcileOldReplicaSets(Run& run, const RSList& all, RSList old_active,
                                       const RSPtr& new_rs);
  Result<int32_t> CleanupUnhealthyReplicas(Run& run, RSList& old_active, int32_t max_cleanup);
  Result<int32_t> ScaleDownOldForRollingUpdate(Run& run, const RSList& all, RSList old_active);

  // recreate.go
  Status RolloutRecreate(Run& run, const std::vector<PodPtr>& pods);

  // progress.go
  Status SyncRolloutStatus(Run& run, const RSList& all, const RSPtr& new_rs);

  void Emit(const Deployment& d, std::string type, std::string reason, std::string message);
  WallTime Now() const { return clock_.WallNow(); }

  Cluster& cluster_;
  endpointslice::EventSink& events_;
  const Clock& clock_;
};

// The adoption and release patches of a ReplicaSet (controller_ref_manager.go), exposed for tests.
std::string AdoptReplicaSetPatch(const Deployment& d, std::string_view rs_uid);
std::string ReleaseReplicaSetPatch(const Deployment& d, std::string_view rs_uid);

}  // namespace svcplane::controllers::deployment
