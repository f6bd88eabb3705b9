#include "controllers/replicaset/controller.h"

#include <spdlog/spdlog.h>

#include <mutex>
#include <optional>
#include <set>

#include "client/errors.h"
#include "controllers/endpointslice/controller.h"  // SplitKey

namespace svcplane::controllers::replicaset {
namespace {

using client::informers::ResourceEventHandler;

std::string KeyOf(const api::meta::ObjectMeta& m) { return m.namespace_ + "/" + m.name; }

bool NamespaceTerminating(const Status& s) {
  for (const auto& cause : s.causes()) {
    if (cause.type == "NamespaceTerminating") return true;
  }
  return false;
}

// Errors of several pods in one message, as utilerrors.NewAggregate words them.
Status Aggregate(const std::vector<Status>& errors) {
  if (errors.empty()) return Status::Ok();
  if (errors.size() == 1) return errors[0];
  std::string msg = "[";
  for (size_t i = 0; i < errors.size(); ++i) {
    if (i > 0) msg += ", ";
    msg += errors[i].message();
  }
  msg += "]";
  return Status(errors[0].code(), std::move(msg));
}

}  // namespace

ReplicaSetController::ReplicaSetController(client::informers::InformerFactory& informers,
                                           client::Clientset& client,
                                           endpointslice::EventSink& events,
                                           MetricsRegistry* metrics, const Clock& clock,
                                           ReplicaSetControllerOptions options)
    : client_(client),
      events_(events),
      clock_(clock),
      options_(options),
      replica_sets_(informers.ReplicaSets()),
      pods_(informers.Pods()),
      expectations_(clock) {
  queue_ = std::make_unique<endpointslice::KeyQueue>(
      client::NewControllerRateLimiter<std::string>(clock, options_.retry_base, options_.retry_max),
      client::QueueConfig{"replicaset", metrics, &clock});
  workers_ = std::make_unique<endpointslice::KeyWorkerPool>(
      "replicaset", *queue_, [this](const std::string& key) { return Sync(key); },
      options_.max_retries);
  RegisterHandlers();
}

ReplicaSetController::~ReplicaSetController() { Shutdown(); }

void ReplicaSetController::RegisterHandlers() {
  ResourceEventHandler<ReplicaSet> rs;
  rs.on_add = [this](const ReplicaSetPtr& r, bool) { Enqueue(*r); };
  rs.on_update = [this](const ReplicaSetPtr& old_rs, const ReplicaSetPtr& r) {
    // A new UID under the same name: the old one was deleted (its expectations go with it).
    if (old_rs->metadata.uid != r->metadata.uid) expectations_.Delete(KeyOf(old_rs->metadata));
    Enqueue(*r);
  };
  rs.on_delete = [this](const ReplicaSetPtr& r, bool) {
    expectations_.Delete(KeyOf(r->metadata));
    Enqueue(*r);
  };
  registrations_.push_back(replica_sets_.AddEventHandler(std::move(rs)));

  ResourceEventHandler<Pod> pod;
  pod.on_add = [this](const PodPtr& p, bool) { OnPodAdd(p); };
  pod.on_update = [this](const PodPtr& old_pod, const PodPtr& p) { OnPodUpdate(old_pod, p); };
  pod.on_delete = [this](const PodPtr& p, bool) { OnPodDelete(p); };
  registrations_.push_back(pods_.AddEventHandler(std::move(pod)));
}

void ReplicaSetController::Enqueue(const ReplicaSet& rs) { queue_->Add(KeyOf(rs.metadata)); }

ReplicaSetController::ReplicaSetPtr ReplicaSetController::ResolveControllerRef(
    const std::string& ns, const api::meta::OwnerReference& ref) {
  if (ref.kind != "ReplicaSet") return nullptr;
  auto rs = replica_sets_.lister().Get(ns, ref.name);
  if (rs == nullptr || rs->metadata.uid != ref.uid) return nullptr;
  return rs;
}

std::vector<ReplicaSetController::ReplicaSetPtr> ReplicaSetController::ReplicaSetsForPod(
    const Pod& pod) {
  std::vector<ReplicaSetPtr> out;
  if (pod.metadata.labels.empty()) return out;
  for (auto& rs : replica_sets_.lister().List(pod.metadata.namespace_)) {
    if (!rs->spec.selector.has_value()) continue;
    auto selector = api::selectors::SelectorFromSpec(&*rs->spec.selector);
    // A nil or empty selector matches nothing here, not everything.
    if (!selector.ok() || selector->Empty()) continue;
    if (selector->Matches(pod.metadata.labels)) out.push_back(std::move(rs));
  }
  return out;
}

void ReplicaSetController::OnPodAdd(const PodPtr& pod) {
  // Seen already terminating (e.g. after a restart): count it as a deletion.
  if (pod->metadata.deletion_timestamp.has_value()) return OnPodDelete(pod);
  if (const auto* ref = ControllerOf(pod->metadata); ref != nullptr) {
    auto rs = ResolveControllerRef(pod->metadata.namespace_, *ref);
    if (rs == nullptr) return;
    const std::string key = KeyOf(rs->metadata);
    expectations_.CreationObserved(key);
    queue_->Add(key);
    return;
  }
  // An orphan: every matching ReplicaSet may want to adopt it.
  for (const auto& rs : ReplicaSetsForPod(*pod)) Enqueue(*rs);
}

void ReplicaSetController::OnPodUpdate(const PodPtr& old_pod, const PodPtr& pod) {
  // Periodic resyncs send the same version; nothing changed.
  if (old_pod->metadata.resource_version == pod->metadata.resource_version) return;
  const bool labels_changed = old_pod->metadata.labels != pod->metadata.labels;
  if (pod->metadata.deletion_timestamp.has_value()) {
    // Graceful deletion began: count the deletion now, so a replacement is not held back for
    // the whole grace period. Old labels may have matched another ReplicaSet too.
    OnPodDelete(pod);
    if (labels_changed) OnPodDelete(old_pod);
    return;
  }
  const auto* cur_ref = ControllerOf(pod->metadata);
  const auto* old_ref = ControllerOf(old_pod->metadata);
  const bool ref_changed = (cur_ref == nullptr) != (old_ref == nullptr) ||
                           (cur_ref != nullptr && !(*cur_ref == *old_ref));
  if (ref_changed && old_ref != nullptr) {
    if (auto rs = ResolveControllerRef(old_pod->metadata.namespace_, *old_ref)) Enqueue(*rs);
  }
  if (cur_ref != nullptr) {
    auto rs = ResolveControllerRef(pod->metadata.namespace_, *cur_ref);
    if (rs == nullptr) return;
    Enqueue(*rs);
    // Once Ready, count it available after minReadySeconds.
    if (!IsPodReady(*old_pod) && IsPodReady(*pod) && rs->spec.min_ready_seconds > 0) {
      queue_->AddAfter(KeyOf(rs->metadata),
                       std::chrono::seconds(rs->spec.min_ready_seconds) + std::chrono::seconds(1));
    }
    return;
  }
  if (labels_changed || ref_changed) {
    for (const auto& rs : ReplicaSetsForPod(*pod)) Enqueue(*rs);
  }
}

void ReplicaSetController::OnPodDelete(const PodPtr& pod) {
  const auto* ref = ControllerOf(pod->metadata);
  if (ref == nullptr) return;
  auto rs = ResolveControllerRef(pod->metadata.namespace_, *ref);
  if (rs == nullptr) return;
  const std::string key = KeyOf(rs->metadata);
  expectations_.DeletionObserved(key, PodKey(*pod));
  queue_->Add(key);
}

bool ReplicaSetController::CachesSynced() const {
  if (!replica_sets_.HasSynced() || !pods_.HasSynced()) return false;
  for (const auto& r : registrations_) {
    if (!r->HasSynced()) return false;
  }
  return true;
}

void ReplicaSetController::Run(int workers) {
  if (workers <= 0) workers = options_.workers;
  workers_->Start(workers, [this] { return CachesSynced(); });
}

void ReplicaSetController::Shutdown() {
  if (workers_) workers_->Shutdown();
}

void ReplicaSetController::Emit(const ReplicaSet& rs, const char* type, const char* reason,
                                std::string message) {
  events_.Emit(kEventComponent, endpointslice::ReferenceTo(rs, "ReplicaSet", "apps/v1"),
               endpointslice::Event{type, reason, std::move(message)});
}

Status ReplicaSetController::Sync(const std::string& key) {
  auto split = endpointslice::SplitKey(key);
  if (!split.ok()) return Status::Ok();  // a malformed key never becomes valid
  const auto& [ns, name] = *split;
  ReplicaSetPtr rs = replica_sets_.lister().Get(ns, name);
  if (rs == nullptr) {
    expectations_.Delete(key);
    return Status::Ok();
  }
  const bool needs_sync = expectations_.Satisfied(key);
  auto selector = api::selectors::SelectorFromSpec(
      rs->spec.selector.has_value() ? &*rs->spec.selector : nullptr);
  if (!selector.ok()) {
    spdlog::error("replicaset-controller: error converting pod selector to selector for rs {}: {}",
                  key, selector.status().message());
    return Status::Ok();
  }
  std::vector<PodPtr> active;
  for (auto& p : pods_.lister().List(ns)) {
    if (IsPodActive(*p)) active.push_back(std::move(p));
  }
  auto claimed = ClaimPods(*rs, *selector, active);
  if (!claimed.ok()) return claimed.status();

  Status manage_error;
  if (needs_sync && !rs->metadata.deletion_timestamp.has_value()) {
    manage_error = ManageReplicas(*rs, *claimed);
  }
  const WallTime now = clock_.WallNow();
  ReplicaSetStatus status = CalculateStatus(*rs, *claimed, manage_error, now);
  auto updated = WriteStatus(rs, std::move(status));
  if (!updated.ok()) return updated.status();
  if (manage_error.ok()) {
    if (auto wait = NextAvailabilityCheck(**updated, *claimed, now)) queue_->AddAfter(key, *wait);
  }
  return manage_error;
}

Result<std::vector<PodPtr>> ReplicaSetController::ClaimPods(
    const ReplicaSet& rs, const api::selectors::LabelSelector& selector,
    const std::vector<PodPtr>& active) {
  std::vector<PodPtr> claimed;
  std::vector<Status> errors;
  // CanAdopt: once per sync, an uncached read that the ReplicaSet still exists, is the same
  // one, and is not being deleted (RecheckDeletionTimestamp).
  std::optional<Status> can_adopt;
  auto check_adopt = [&]() -> Status {
    if (can_adopt) return *can_adopt;
    auto fresh = client_.ReplicaSets().Get(rs.metadata.namespace_, rs.metadata.name);
    if (!fresh.ok()) {
      can_adopt = fresh.status();
    } else if ((*fresh)->metadata.uid != rs.metadata.uid) {
      can_adopt =
          Status(Code::kConflict, "original ReplicaSet " + rs.metadata.namespace_ + "/" +
                                      rs.metadata.name + " is gone: got uid " +
                                      (*fresh)->metadata.uid + ", wanted " + rs.metadata.uid);
    } else if ((*fresh)->metadata.deletion_timestamp.has_value()) {
      can_adopt = Status(Code::kConflict, rs.metadata.namespace_ + "/" + rs.metadata.name +
                                              " has just been deleted");
    } else {
      can_adopt = Status::Ok();
    }
    return *can_adopt;
  };
  auto& pods = client_.Pods();
  for (const auto& pod : active) {
    const auto& m = pod->metadata;
    switch (DecideClaim(rs, selector, *pod)) {
      case ClaimAction::kKeep:
        claimed.push_back(pod);
        break;
      case ClaimAction::kIgnore:
      case ClaimAction::kSkip:
        break;
      case ClaimAction::kAdopt: {
        if (Status s = check_adopt(); !s.ok()) {
          errors.push_back(Status(s.code(), "can't adopt Pod " + m.namespace_ + "/" + m.name +
                                                " (" + m.uid + "): " + s.message()));
          break;
        }
        auto r = pods.Patch(m.namespace_, m.name, client::PatchType::kStrategicMerge,
                            AdoptPatch(rs, m.uid));
        if (r.ok()) {
          claimed.push_back(pod);
        } else if (!client::IsNotFound(r.status())) {
          errors.push_back(r.status());
        }
        break;
      }
      case ClaimAction::kRelease: {
        auto r = pods.Patch(m.namespace_, m.name, client::PatchType::kStrategicMerge,
                            ReleasePatch(rs.metadata.uid, m.uid));
        // NotFound: gone. Invalid: no such owner reference any more, or a pod of another UID
        // under this name. Either way nothing of ours to release.
        if (!r.ok() && !client::IsNotFound(r.status()) && !client::IsInvalid(r.status())) {
          errors.push_back(r.status());
        }
        break;
      }
    }
  }
  if (!errors.empty()) return Aggregate(errors);
  return claimed;
}

Status ReplicaSetController::CreatePod(const ReplicaSet& rs) {
  auto pod = PodFromTemplate(rs);
  if (!pod.ok()) return pod.status();
  auto created = client_.Pods().Create(*pod);
  if (!created.ok()) {
    if (NamespaceTerminating(created.status())) return created.status();
    Emit(rs, "Warning", "FailedCreate", "Error creating: " + created.status().message());
    return created.status();
  }
  Emit(rs, "Normal", "SuccessfulCreate", "Created pod: " + (*created)->metadata.name);
  return Status::Ok();
}

Status ReplicaSetController::ManageReplicas(const ReplicaSet& rs,
                                            const std::vector<PodPtr>& active) {
  const std::string key = KeyOf(rs.metadata);
  const int64_t diff = static_cast<int64_t>(active.size()) - DesiredReplicas(rs);
  if (diff < 0) {
    const int n = static_cast<int>(std::min<int64_t>(-diff, options_.burst_replicas));
    // Expect them all before the first request, so no watch event comes too early.
    expectations_.ExpectCreations(key, n);
    auto result = SlowStartBatch(n, kSlowStartInitialBatch, [&] {
      Status s = CreatePod(rs);
      // The namespace is going away: nothing to retry, nothing to report.
      return NamespaceTerminating(s) ? Status::Ok() : s;
    });
    // The creations never attempted (or failed) will not be observed.
    for (int skipped = n - result.successes; skipped > 0; --skipped) {
      expectations_.CreationObserved(key);
    }
    return result.error;
  }
  if (diff > 0) {
    const size_t n = static_cast<size_t>(std::min<int64_t>(diff, options_.burst_replicas));
    std::vector<PodPtr> to_delete = PodsToDelete(active, RelatedPods(rs), n, clock_.WallNow());
    std::vector<std::string> keys;
    for (const auto& p : to_delete) keys.push_back(PodKey(*p));
    expectations_.ExpectDeletions(key, keys);
    std::mutex mu;
    std::vector<Status> errors;
    size_t next = 0;
    // In parallel, one call per pod, as upstream.
    RunInParallel(static_cast<int>(to_delete.size()), [&]() -> Status {
      PodPtr pod;
      {
        std::lock_guard<std::mutex> l(mu);
        pod = to_delete[next++];
      }
      Status s = client_.Pods().Delete(pod->metadata.namespace_, pod->metadata.name);
      if (s.ok()) {
        Emit(rs, "Normal", "SuccessfulDelete", "Deleted pod: " + pod->metadata.name);
        return s;
      }
      // Its deletion will not be observed through us.
      expectations_.DeletionObserved(key, PodKey(*pod));
      if (client::IsNotFound(s)) return Status::Ok();
      Emit(rs, "Warning", "FailedDelete", "Error deleting: " + s.message());
      std::lock_guard<std::mutex> l(mu);
      errors.push_back(Status(s.code(), "unable to delete pods: " + s.message()));
      return s;
    });
    if (!errors.empty()) return errors.front();
  }
  return Status::Ok();
}

std::vector<PodPtr> ReplicaSetController::RelatedPods(const ReplicaSet& rs) {
  std::vector<PodPtr> related;
  // Upstream: a ReplicaSet without a controller has no related ReplicaSets, hence no ranks.
  const auto* owner = ControllerOf(rs.metadata);
  if (owner == nullptr) return related;
  std::set<std::string> seen;
  for (const auto& other : replica_sets_.lister().List(rs.metadata.namespace_)) {
    const auto* ref = ControllerOf(other->metadata);
    if (ref == nullptr || ref->uid != owner->uid || !other->spec.selector.has_value()) continue;
    auto selector = api::selectors::SelectorFromSpec(&*other->spec.selector);
    if (!selector.ok()) continue;
    for (auto& p : pods_.lister().List(rs.metadata.namespace_, *selector)) {
      if (seen.insert(p->metadata.uid).second) related.push_back(std::move(p));
    }
  }
  return related;
}

Result<ReplicaSetController::ReplicaSetPtr> ReplicaSetController::WriteStatus(
    const ReplicaSetPtr& rs, ReplicaSetStatus status) {
  if (StatusUpToDate(*rs, status)) return rs;
  status.observed_generation = Generation(*rs);
  ReplicaSet copy = *rs;
  copy.status = status;
  auto& client = client_.ReplicaSets();
  auto updated = client.UpdateStatus(copy);
  if (updated.ok()) return *updated;
  // One retry on the latest version; a failed GET is the more telling error.
  auto fresh = client.Get(rs->metadata.namespace_, rs->metadata.name);
  if (!fresh.ok()) return fresh.status();
  copy = **fresh;
  copy.status = std::move(status);
  updated = client.UpdateStatus(copy);
  if (updated.ok()) return *updated;
  return updated.status();
}

}  // namespace svcplane::controllers::replicaset
