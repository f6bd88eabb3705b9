#include "controllers/deployment/sync.h"

#include <algorithm>

#include "api/meta/controller_ref.h"
#include "base/json_string.h"
#include "client/errors.h"
#include "controllers/deployment/hash.h"

namespace svcplane::controllers::deployment {
namespace {

const api::meta::OwnerReference* ControllerOf(const api::meta::ObjectMeta& m) {
  for (const auto& ref : m.owner_references) {
    if (ref.controller.value_or(false)) return &ref;
  }
  return nullptr;
}

bool IsNamespaceTerminating(const Status& s) {
  return std::any_of(s.causes().begin(), s.causes().end(),
                     [](const StatusCause& c) { return c.type == "NamespaceTerminating"; });
}

int64_t Generation(const Deployment& d) { return d.metadata.rest->generation; }

RSList Append(RSList list, const RSPtr& rs) {
  list.push_back(rs);
  return list;
}

}  // namespace

std::string AdoptReplicaSetPatch(const Deployment& d, std::string_view rs_uid) {
  return R"({"metadata":{"ownerReferences":[{"apiVersion":"apps/v1","kind":"Deployment","name":)" +
         JsonQuote(d.metadata.name) + R"(,"uid":)" + JsonQuote(d.metadata.uid) +
         R"(,"controller":true,"blockOwnerDeletion":true}],"uid":)" + JsonQuote(rs_uid) + "}}";
}

std::string ReleaseReplicaSetPatch(const Deployment& d, std::string_view rs_uid) {
  return R"({"metadata":{"ownerReferences":[{"$patch":"delete","uid":)" +
         JsonQuote(d.metadata.uid) + R"(}],"uid":)" + JsonQuote(rs_uid) + "}}";
}

void Syncer::Emit(const Deployment& d, std::string type, std::string reason, std::string message) {
  events_.Emit(kEventComponent, endpointslice::ReferenceTo(d, "Deployment", "apps/v1"),
               endpointslice::Event{std::move(type), std::move(reason), std::move(message)});
}

void Syncer::Run::Remember(const RSPtr& written) {
  for (auto& rs : rss) {
    if (rs->metadata.uid == written->metadata.uid) {
      rs = written;
      return;
    }
  }
  rss.push_back(written);
}

SyncOutcome Syncer::Sync(const Deployment& cached) {
  Run run{cached, {}, std::nullopt};
  Deployment& d = run.d;
  auto finish = [&run](Status s) { return SyncOutcome{std::move(s), run.requeue_after}; };

  const auto& sel = d.spec.selector;
  if (sel.has_value() && sel->match_labels.empty() && sel->match_expressions.empty()) {
    Emit(d, "Warning", "SelectingAll",
         "This deployment is selecting all pods. A non-empty selector is required.");
    if (d.status.observed_generation < Generation(d)) {
      d.status.observed_generation = Generation(d);
      (void)cluster_.UpdateDeploymentStatus(d);  // best effort, as upstream
    }
    return finish(Status::Ok());
  }

  auto rss = ClaimReplicaSets(d);
  if (!rss.ok()) return finish(rss.status());
  run.rss = std::move(*rss);

  if (d.metadata.deletion_timestamp.has_value()) return finish(SyncStatusOnly(run));
  if (Status s = CheckPausedConditions(run); !s.ok()) return finish(s);
  if (d.spec.paused) return finish(SyncScaleAndStatus(run));

  auto scaling = IsScalingEvent(run);
  if (!scaling.ok()) return finish(scaling.status());
  if (*scaling) return finish(SyncScaleAndStatus(run));

  const std::string& type = d.spec.strategy.type;
  if (type == api::apps::v1::kRecreateStrategy) {
    // The pods of the claimed ReplicaSets (getPodMapForDeployment), for "old pods gone".
    auto selector = api::selectors::SelectorFromSpec(sel.has_value() ? &*sel : nullptr);
    if (!selector.ok()) return finish(selector.status());
    std::vector<PodPtr> owned;
    for (auto& pod : cluster_.Pods(d.metadata.namespace_, *selector)) {
      const auto* ref = ControllerOf(pod->metadata);
      if (ref == nullptr) continue;
      const bool ours = std::any_of(run.rss.begin(), run.rss.end(),
                                    [&](const RSPtr& rs) { return rs->metadata.uid == ref->uid; });
      if (ours) owned.push_back(std::move(pod));
    }
    return finish(RolloutRecreate(run, owned));
  }
  if (type == api::apps::v1::kRollingUpdateStrategy) return finish(RolloutRolling(run));
  return finish(Status(Code::kInternal, "unexpected deployment strategy type: " + type));
}

Result<RSList> Syncer::ClaimReplicaSets(const Deployment& d) {
  const auto& sel = d.spec.selector;
  auto selector = api::selectors::SelectorFromSpec(sel.has_value() ? &*sel : nullptr);
  if (!selector.ok()) {
    return Status(Code::kBadRequest,
                  "deployment " + d.metadata.namespace_ + "/" + d.metadata.name +
                      " has invalid label selector: " + selector.status().message());
  }
  RSList claimed;
  Status first_error;
  std::optional<Status> can_adopt;  // checked once, on the first orphan (RecheckDeletionTimestamp)
  for (const auto& rs : cluster_.ReplicaSets(d.metadata.namespace_)) {
    const auto* ref = ControllerOf(rs->metadata);
    const bool matches = selector->Matches(rs->metadata.labels);
    if (ref != nullptr) {
      if (ref->uid != d.metadata.uid) continue;  // someone else's
      if (matches) {
        claimed.push_back(rs);
        continue;
      }
      // Ours but no longer selected: release it, unless we are being deleted.
      if (d.metadata.deletion_timestamp.has_value()) continue;
      auto r = cluster_.PatchReplicaSet(rs->metadata.namespace_, rs->metadata.name,
                                        ReleaseReplicaSetPatch(d, rs->metadata.uid));
      if (!r.ok() && !client::IsNotFound(r.status()) && first_error.ok()) {
        first_error = r.status();
      }
      continue;
    }
    // An orphan: adopt it if it matches and neither side is being deleted.
    if (d.metadata.deletion_timestamp.has_value() || !matches) continue;
    if (rs->metadata.deletion_timestamp.has_value()) continue;
    if (rs->metadata.namespace_ != d.metadata.namespace_) continue;
    if (!can_adopt.has_value()) {
      auto fresh = cluster_.GetDeployment(d.metadata.namespace_, d.metadata.name);
      if (!fresh.ok()) {
        can_adopt = fresh.status();
      } else if ((*fresh)->metadata.uid != d.metadata.uid) {
        can_adopt =
            Status(Code::kConflict, "original Deployment " + d.metadata.namespace_ + "/" +
                                        d.metadata.name + " is gone: got uid " +
                                        (*fresh)->metadata.uid + ", wanted " + d.metadata.uid);
      } else if ((*fresh)->metadata.deletion_timestamp.has_value()) {
        can_adopt = Status(Code::kConflict, d.metadata.namespace_ + "/" + d.metadata.name +
                                                " has just been deleted");
      } else {
        can_adopt = Status::Ok();
      }
    }
    if (!can_adopt->ok()) {
      if (first_error.ok()) first_error = *can_adopt;
      continue;
    }
    auto r = cluster_.PatchReplicaSet(rs->metadata.namespace_, rs->metadata.name,
                                      AdoptReplicaSetPatch(d, rs->metadata.uid));
    if (!r.ok()) {
      if (!client::IsNotFound(r.status()) && first_error.ok()) first_error = r.status();
      continue;
    }
    claimed.push_back(*r);
  }
  if (!first_error.ok()) return first_error;
  return claimed;
}

Status Syncer::SyncStatusOnly(Run& run) {
  auto no = GetAllReplicaSetsAndSyncRevision(run, /*create=*/false);
  if (!no.ok()) return no.status();
  return SyncDeploymentStatus(run, Append(no->old, no->new_rs), no->new_rs);
}

Status Syncer::SyncScaleAndStatus(Run& run) {
  auto no = GetAllReplicaSetsAndSyncRevision(run, /*create=*/false);
  if (!no.ok()) return no.status();
  if (Status s = Scale(run, no->new_rs, no->old); !s.ok()) return s;
  if (run.d.spec.paused && !run.d.metadata.annotations.contains(kDeprecatedRollbackToAnnotation)) {
    if (Status s = CleanupDeployment(run, no->old); !s.ok()) return s;
  }
  return SyncDeploymentStatus(run, Append(no->old, no->new_rs), no->new_rs);
}

Status Syncer::CheckPausedConditions(Run& run) {
  Deployment& d = run.d;
  if (!HasProgressDeadline(d)) return Status::Ok();
  const DeploymentCondition* cond = GetCondition(d.status, kProgressingCondition);
  // A reported lack of progress is not overwritten by a paused condition.
  if (cond != nullptr && cond->reason == kTimedOutReason) return Status::Ok();
  const bool paused_exists = cond != nullptr && cond->reason == kPausedDeployReason;
  const api::meta::Time now = ToMetaTime(Now());
  if (d.spec.paused && !paused_exists) {
    SetCondition(d.status, NewCondition(kProgressingCondition, "Unknown", kPausedDeployReason,
                                        "Deployment is paused", now));
  } else if (!d.spec.paused && paused_exists) {
    SetCondition(d.status, NewCondition(kProgressingCondition, "Unknown", kResumedDeployReason,
                                        "Deployment is resumed", now));
  } else {
    return Status::Ok();
  }
  return WriteStatus(run);
}

Result<Syncer::NewAndOld> Syncer::GetAllReplicaSetsAndSyncRevision(Run& run, bool create) {
  RSList old = FindOldReplicaSets(run.rss, FindNewReplicaSet(run.d, run.rss));
  auto new_rs = GetNewReplicaSet(run, old, create);
  if (!new_rs.ok()) return new_rs.status();
  return NewAndOld{*new_rs, std::move(old)};
}

Result<RSPtr> Syncer::GetNewReplicaSet(Run& run, const RSList& old, bool create) {
  Deployment& d = run.d;
  RSPtr existing = FindNewReplicaSet(d, run.rss);
  const std::string new_revision = std::to_string(MaxRevision(old) + 1);
  const api::meta::Time now = ToMetaTime(Now());

  if (existing != nullptr) {
    // Bring the new ReplicaSet's annotations (revision, copied Deployment annotations) and
    // minReadySeconds up to date first; the Deployment's revision follows on the next sync.
    ReplicaSet copy = *existing;
    const bool annotations_changed =
        SetNewReplicaSetAnnotations(d, copy, new_revision, /*exists=*/true);
    if (annotations_changed || copy.spec.min_ready_seconds != d.spec.min_ready_seconds) {
      copy.spec.min_ready_seconds = d.spec.min_ready_seconds;
      auto updated = cluster_.UpdateReplicaSet(copy);
      if (updated.ok()) run.Remember(*updated);
      return updated;
    }
    bool needs_update = SetDeploymentRevision(d, copy.metadata.annotations[kRevisionAnnotation]);
    if (HasProgressDeadline(d) && GetCondition(d.status, kProgressingCondition) == nullptr) {
      SetCondition(d.status,
                   NewCondition(kProgressingCondition, "True", kFoundNewRSReason,
                                "Found new replica set \"" + copy.metadata.name + "\"", now));
      needs_update = true;
    }
    if (needs_update) {
      if (Status s = WriteStatus(run); !s.ok()) return s;
    }
    return existing;
  }
  if (!create) return RSPtr();

  const std::string hash = ComputePodTemplateHash(d.spec.template_, d.status.collision_count);
  ReplicaSet rs;
  rs.metadata.name = d.metadata.name + "-" + hash;
  rs.metadata.namespace_ = d.metadata.namespace_;
  rs.metadata.owner_references.push_back(
      api::meta::NewControllerRef(d.metadata, "apps/v1", "Deployment"));
  rs.spec.template_ = d.spec.template_;
  rs.spec.template_.metadata.labels[kPodTemplateHashLabel] = hash;
  rs.metadata.labels = rs.spec.template_.metadata.labels;
  rs.spec.selector = d.spec.selector.value_or(api::selectors::LabelSelectorSpec{});
  rs.spec.selector->match_labels[kPodTemplateHashLabel] = hash;
  rs.spec.min_ready_seconds = d.spec.min_ready_seconds;
  rs.spec.replicas = 0;
  auto count = NewRSNewReplicas(d, Append(old, std::make_shared<ReplicaSet>(rs)), rs);
  if (!count.ok()) return count.status();
  rs.spec.replicas = *count;
  SetNewReplicaSetAnnotations(d, rs, new_revision, /*exists=*/false);

  RSPtr created;
  bool already_exists = false;
  auto r = cluster_.CreateReplicaSet(rs);
  if (r.ok()) {
    created = *r;
  } else if (client::IsAlreadyExists(r.status())) {
    already_exists = true;
    RSPtr found = cluster_.CachedReplicaSet(rs.metadata.namespace_, rs.metadata.name);
    if (found == nullptr) {
      return Status(Code::kNotFound, "replicaset.apps \"" + rs.metadata.name + "\" not found");
    }
    const auto* ref = ControllerOf(found->metadata);
    if (ref != nullptr && ref->uid == d.metadata.uid &&
        EqualIgnoreHash(d.spec.template_, found->spec.template_)) {
      created = found;  // ours: an earlier sync created it and the cache had not shown it yet
    } else {
      // A hash collision: a different ReplicaSet holds the name. Hash again with a higher
      // collisionCount on the next sync.
      d.status.collision_count = d.status.collision_count.value_or(0) + 1;
      (void)WriteStatus(run);
      return r.status();
    }
  } else if (IsNamespaceTerminating(r.status())) {
    return r.status();
  } else {
    const std::string msg =
        "Failed to create new replica set \"" + rs.metadata.name + "\": " + r.status().message();
    if (HasProgressDeadline(d)) {
      SetCondition(d.status,
                   NewCondition(kProgressingCondition, "False", kFailedRSCreateReason, msg, now));
      (void)WriteStatus(run);
    }
    Emit(d, "Warning", kFailedRSCreateReason, msg);
    return r.status();
  }
  if (!already_exists && *count > 0) {
    Emit(
        d, "Normal", "ScalingReplicaSet",
        "Scaled up replica set " + created->metadata.name + " from 0 to " + std::to_string(*count));
  }
  bool needs_update = SetDeploymentRevision(d, new_revision);
  if (!already_exists && HasProgressDeadline(d)) {
    SetCondition(d.status,
                 NewCondition(kProgressingCondition, "True", kNewReplicaSetReason,
                              "Created new replica set \"" + created->metadata.name + "\"", now));
    needs_update = true;
  }
  run.Remember(created);
  if (needs_update) {
    if (Status s = WriteStatus(run); !s.ok()) return s;
  }
  return created;
}

Result<bool> Syncer::IsScalingEvent(Run& run) {
  auto no = GetAllReplicaSetsAndSyncRevision(run, /*create=*/false);
  if (!no.ok()) return no.status();
  for (const auto& rs : FilterActive(Append(no->old, no->new_rs))) {
    auto desired = IntAnnotation(*rs, kDesiredReplicasAnnotation);
    if (desired.has_value() && *desired != Replicas(run.d)) return true;
  }
  return false;
}

Status Syncer::Scale(Run& run, const RSPtr& new_rs, const RSList& old) {
  const Deployment& d = run.d;
  // One active ReplicaSet (or none active): it alone follows spec.replicas.
  if (RSPtr only = FindActiveOrLatest(new_rs, old); only != nullptr) {
    if (Replicas(*only) == Replicas(d)) return Status::Ok();
    return ScaleReplicaSetAndRecordEvent(run, only, Replicas(d)).status();
  }
  // The new ReplicaSet already holds everything: the old ones go.
  if (IsSaturated(d, new_rs)) {
    for (const auto& rs : FilterActive(old)) {
      if (auto r = ScaleReplicaSetAndRecordEvent(run, rs, 0); !r.ok()) return r.status();
    }
    return Status::Ok();
  }
  // Mid-rollout scaling: share the change in proportion (Recreate never gets here with
  // several active ReplicaSets for long, and upstream leaves it alone).
  if (!IsRollingUpdate(d)) return Status::Ok();
  ProportionalPlan plan = PlanProportionalScale(d, FilterActive(Append(old, new_rs)));
  for (size_t i = 0; i < plan.order.size(); ++i) {
    if (auto r = ScaleReplicaSet(run, plan.order[i], plan.sizes[i], plan.operation); !r.ok()) {
      return r.status();
    }
  }
  return Status::Ok();
}

Result<std::pair<bool, RSPtr>> Syncer::ScaleReplicaSetAndRecordEvent(Run& run, const RSPtr& rs,
                                                                     int32_t new_scale) {
  if (Replicas(*rs) == new_scale) return std::make_pair(false, rs);
  return ScaleReplicaSet(run, rs, new_scale, Replicas(*rs) < new_scale ? "up" : "down");
}

Result<std::pair<bool, RSPtr>> Syncer::ScaleReplicaSet(Run& run, const RSPtr& rs, int32_t new_scale,
                                                       const std::string& operation) {
  const Deployment& d = run.d;
  const int32_t desired = Replicas(d);
  const int32_t max = Replicas(d) + MaxSurge(d);
  const bool size_changes = Replicas(*rs) != new_scale;
  if (!size_changes && !ReplicasAnnotationsNeedUpdate(*rs, desired, max)) {
    return std::make_pair(false, rs);
  }
  const int32_t old_scale = Replicas(*rs);
  ReplicaSet copy = *rs;
  copy.spec.replicas = new_scale;
  SetReplicasAnnotations(copy, desired, max);
  auto r = cluster_.UpdateReplicaSet(copy);
  if (!r.ok()) return r.status();
  run.Remember(*r);
  if (size_changes) {
    Emit(d, "Normal", "ScalingReplicaSet",
         "Scaled " + operation + " replica set " + (*r)->metadata.name + " from " +
             std::to_string(old_scale) + " to " + std::to_string(new_scale));
  }
  return std::make_pair(size_changes, *r);
}

Status Syncer::CleanupDeployment(Run& run, const RSList& old) {
  for (const auto& rs : HistoryToDelete(run.d, old)) {
    Status s = cluster_.DeleteReplicaSet(rs->metadata.namespace_, rs->metadata.name);
    if (!s.ok() && !client::IsNotFound(s)) return s;
  }
  return Status::Ok();
}

Status Syncer::SyncDeploymentStatus(Run& run, const RSList& all, const RSPtr& new_rs) {
  DeploymentStatus status = CalculateStatus(all, new_rs, run.d, ToMetaTime(Now()));
  if (status == run.d.status) return Status::Ok();
  run.d.status = std::move(status);
  return WriteStatus(run);
}

Status Syncer::WriteStatus(Run& run) {
  auto r = cluster_.UpdateDeploymentStatus(run.d);
  if (!r.ok()) return r.status();
  // Later writes of this sync build on this one (upstream re-sends the old resourceVersion and
  // takes a conflict and a retry instead).
  run.d.metadata.resource_version = (*r)->metadata.resource_version;
  return Status::Ok();
}

}  // namespace svcplane::controllers::deployment
