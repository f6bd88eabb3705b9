// The rollout strategies and the rollout status of Syncer (upstream rolling.go, recreate.go,
// progress.go; workloads.md §3.4, §3.5, §3.8).

#include <algorithm>

#include "controllers/deployment/sync.h"

namespace svcplane::controllers::deployment {
namespace {

RSList Append(RSList list, const RSPtr& rs) {
  list.push_back(rs);
  return list;
}

}  // namespace

// --- RollingUpdate -----------------------------------------------------------------------------

Status Syncer::RolloutRolling(Run& run) {
  auto no = GetAllReplicaSetsAndSyncRevision(run, /*create=*/true);
  if (!no.ok()) return no.status();
  const RSList all = Append(no->old, no->new_rs);

  // Scale up first if we can (maxSurge), then scale down old ReplicaSets if we can
  // (maxUnavailable); each step that wrote ends this sync: the ReplicaSet events bring the next.
  auto up = ReconcileNewReplicaSet(run, all, no->new_rs);
  if (!up.ok()) return up.status();
  if (*up) return SyncRolloutStatus(run, all, no->new_rs);

  auto down = ReconcileOldReplicaSets(run, all, FilterActive(no->old), no->new_rs);
  if (!down.ok()) return down.status();
  if (*down) return SyncRolloutStatus(run, all, no->new_rs);

  if (DeploymentComplete(run.d, run.d.status)) {
    if (Status s = CleanupDeployment(run, no->old); !s.ok()) return s;
  }
  return SyncRolloutStatus(run, all, no->new_rs);
}

Result<bool> Syncer::ReconcileNewReplicaSet(Run& run, const RSList& all, const RSPtr& new_rs) {
  const int32_t want = Replicas(run.d);
  if (Replicas(*new_rs) == want) return false;  // already saturated
  if (Replicas(*new_rs) > want) {
    auto r = ScaleReplicaSetAndRecordEvent(run, new_rs, want);
    if (!r.ok()) return r.status();
    return r->first;
  }
  auto count = NewRSNewReplicas(run.d, all, *new_rs);
  if (!count.ok()) return count.status();
  auto r = ScaleReplicaSetAndRecordEvent(run, new_rs, *count);
  if (!r.ok()) return r.status();
  return r->first;
}

Result<bool> Syncer::ReconcileOldReplicaSets(Run& run, const RSList& all, RSList old_active,
                                             const RSPtr& new_rs) {
  if (SumSpecReplicas(old_active) == 0) return false;  // nothing left to scale down
  const int32_t max_scaled_down = MaxScaledDown(run.d, all, *new_rs);
  if (max_scaled_down <= 0) return false;

  // Unhealthy old replicas go first: they cost no availability.
  auto cleaned = CleanupUnhealthyReplicas(run, old_active, max_scaled_down);
  if (!cleaned.ok()) return cleaned.status();
  // Then as many more as availability allows.
  auto scaled = ScaleDownOldForRollingUpdate(run, Append(old_active, new_rs), old_active);
  if (!scaled.ok()) return scaled.status();
  return *cleaned + *scaled > 0;
}

Result<int32_t> Syncer::CleanupUnhealthyReplicas(Run& run, RSList& old_active,
                                                 int32_t max_cleanup) {
  SortByCreation(old_active);
  int32_t total = 0;
  for (auto& rs : old_active) {
    if (total >= max_cleanup) break;
    if (Replicas(*rs) == 0) continue;
    if (Replicas(*rs) == rs->status.available_replicas) continue;  // all healthy
    const int32_t down =
        std::min(max_cleanup - total, Replicas(*rs) - rs->status.available_replicas);
    const int32_t new_count = Replicas(*rs) - down;
    if (new_count > Replicas(*rs)) {
      return Status(Code::kInternal,
                    "when cleaning up unhealthy replicas, got invalid request to scale down " +
                        rs->metadata.namespace_ + "/" + rs->metadata.name + " " +
                        std::to_string(Replicas(*rs)) + " -> " + std::to_string(new_count));
    }
    auto r = ScaleReplicaSetAndRecordEvent(run, rs, new_count);
    if (!r.ok()) return r.status();
    total += down;
    rs = r->second;
  }
  return total;
}

Result<int32_t> Syncer::ScaleDownOldForRollingUpdate(Run& run, const RSList& all,
                                                     RSList old_active) {
  const int32_t min_available = Replicas(run.d) - MaxUnavailable(run.d);
  const int32_t available = SumAvailableReplicas(all);
  if (available <= min_available) return 0;  // cannot scale down further
  SortByCreation(old_active);
  const int32_t budget = available - min_available;
  int32_t total = 0;
  for (const auto& rs : old_active) {
    if (total >= budget) break;
    if (Replicas(*rs) == 0) continue;
    const int32_t down = std::min(Replicas(*rs), budget - total);
    const int32_t new_count = Replicas(*rs) - down;
    auto r = ScaleReplicaSetAndRecordEvent(run, rs, new_count);
    if (!r.ok()) return r.status();
    total += down;
  }
  return total;
}

// --- Recreate ----------------------------------------------------------------------------------

namespace {

// oldPodsRunning: old ReplicaSets still report pods, or a pod of one of them (terminating ones
// too) is not in a terminal phase.
bool OldPodsRunning(const RSPtr& new_rs, const RSList& old, const std::vector<PodPtr>& pods) {
  if (SumStatusReplicas(old) > 0) return true;
  for (const auto& pod : pods) {
    bool of_new = false;
    for (const auto& ref : pod->metadata.owner_references) {
      if (ref.controller.value_or(false) && new_rs != nullptr && ref.uid == new_rs->metadata.uid) {
        of_new = true;
      }
    }
    if (of_new) continue;
    if (pod->status.phase == "Failed" || pod->status.phase == "Succeeded") continue;
    return true;
  }
  return false;
}

}  // namespace

Status Syncer::RolloutRecreate(Run& run, const std::vector<PodPtr>& pods) {
  // The new ReplicaSet is not created before every old pod is gone.
  auto no = GetAllReplicaSetsAndSyncRevision(run, /*create=*/false);
  if (!no.ok()) return no.status();
  RSPtr new_rs = no->new_rs;
  RSList old = no->old;
  RSList all = Append(old, new_rs);

  bool scaled_down = false;
  for (const auto& rs : FilterActive(old)) {
    auto r = ScaleReplicaSetAndRecordEvent(run, rs, 0);
    if (!r.ok()) return r.status();
    scaled_down = scaled_down || r->first;
  }
  if (scaled_down) return SyncRolloutStatus(run, all, new_rs);
  // Wait for the old pods to go; the last pod's deletion enqueues the Deployment.
  if (OldPodsRunning(new_rs, old, pods)) return SyncRolloutStatus(run, all, new_rs);

  if (new_rs == nullptr) {
    auto created = GetAllReplicaSetsAndSyncRevision(run, /*create=*/true);
    if (!created.ok()) return created.status();
    new_rs = created->new_rs;
    old = created->old;
    all = Append(old, new_rs);
  }
  if (auto r = ScaleReplicaSetAndRecordEvent(run, new_rs, Replicas(run.d)); !r.ok()) {
    return r.status();
  }
  if (DeploymentComplete(run.d, run.d.status)) {
    if (Status s = CleanupDeployment(run, old); !s.ok()) return s;
  }
  return SyncRolloutStatus(run, all, new_rs);
}

// --- Rollout status ----------------------------------------------------------------------------

Status Syncer::SyncRolloutStatus(Run& run, const RSList& all, const RSPtr& new_rs) {
  const WallTime now = Now();
  DeploymentStatus status = RolloutStatus(all, new_rs, run.d, now);
  if (status == run.d.status) {
    // Nothing new: if the rollout is waiting on its deadline, look again when it passes.
    run.requeue_after = StuckRequeueDelay(run.d, status, now);
    return Status::Ok();
  }
  run.d.status = std::move(status);
  return WriteStatus(run);
}

}  // namespace svcplane::controllers::deployment
