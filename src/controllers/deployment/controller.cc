#include "controllers/deployment/controller.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "controllers/endpointslice/controller.h"  // SplitKey

namespace svcplane::controllers::deployment {
namespace {

using api::core::v1::Pod;
using client::informers::ResourceEventHandler;

const api::meta::OwnerReference* ControllerOf(const api::meta::ObjectMeta& m) {
  for (const auto& ref : m.owner_references) {
    if (ref.controller.value_or(false)) return &ref;
  }
  return nullptr;
}

// The Syncer's view: reads from the informer caches, writes through the typed client.
class InformerCluster final : public Cluster {
 public:
  InformerCluster(client::Clientset& client, const client::informers::Lister<ReplicaSet>& rss,
                  const client::informers::Lister<Pod>& pods)
      : client_(client), rss_(rss), pods_(pods) {}

  RSList ReplicaSets(std::string_view ns) override { return rss_.List(ns); }
  RSPtr CachedReplicaSet(std::string_view ns, std::string_view name) override {
    return rss_.Get(ns, name);
  }
  std::vector<PodPtr> Pods(std::string_view ns,
                           const api::selectors::LabelSelector& selector) override {
    return pods_.List(ns, selector);
  }
  Result<DeploymentPtr> GetDeployment(std::string_view ns, std::string_view name) override {
    return client_.Deployments().Get(ns, name);
  }
  Result<DeploymentPtr> UpdateDeploymentStatus(const Deployment& d) override {
    return client_.Deployments().UpdateStatus(d);
  }
  Result<RSPtr> CreateReplicaSet(const ReplicaSet& rs) override {
    return client_.ReplicaSets().Create(rs);
  }
  Result<RSPtr> UpdateReplicaSet(const ReplicaSet& rs) override {
    return client_.ReplicaSets().Update(rs);
  }
  Result<RSPtr> PatchReplicaSet(std::string_view ns, std::string_view name,
                                std::string_view patch) override {
    return client_.ReplicaSets().Patch(ns, name, client::PatchType::kStrategicMerge, patch);
  }
  Status DeleteReplicaSet(std::string_view ns, std::string_view name) override {
    return client_.ReplicaSets().Delete(ns, name);
  }

 private:
  client::Clientset& client_;
  const client::informers::Lister<ReplicaSet>& rss_;
  const client::informers::Lister<Pod>& pods_;
};

bool IsNamespaceTerminating(const Status& s) {
  return std::any_of(s.causes().begin(), s.causes().end(),
                     [](const StatusCause& c) { return c.type == "NamespaceTerminating"; });
}

}  // namespace

DeploymentController::DeploymentController(client::informers::InformerFactory& informers,
                                           client::Clientset& client,
                                           endpointslice::EventSink& events,
                                           MetricsRegistry* metrics, const Clock& clock,
                                           DeploymentControllerOptions options)
    : options_(options),
      deployments_(informers.Deployments()),
      replica_sets_(informers.ReplicaSets()),
      pods_(informers.Pods()) {
  cluster_ = std::make_unique<InformerCluster>(client, replica_sets_.lister(), pods_.lister());
  syncer_ = std::make_unique<Syncer>(*cluster_, events, clock);
  queue_ = std::make_unique<endpointslice::KeyQueue>(
      client::NewControllerRateLimiter<std::string>(clock, options_.retry_base, options_.retry_max),
      client::QueueConfig{"deployment", metrics, &clock});
  workers_ = std::make_unique<endpointslice::KeyWorkerPool>(
      "deployment", *queue_, [this](const std::string& key) { return Sync(key); },
      options_.max_retries);
  RegisterHandlers();
}

DeploymentController::~DeploymentController() { Shutdown(); }

void DeploymentController::Enqueue(const api::meta::ObjectMeta& d) {
  queue_->Add(d.namespace_ + "/" + d.name);
}

void DeploymentController::RegisterHandlers() {
  ResourceEventHandler<Deployment> dh;
  dh.on_add = [this](const DeploymentPtr& d, bool) { Enqueue(d->metadata); };
  dh.on_update = [this](const DeploymentPtr&, const DeploymentPtr& d) { Enqueue(d->metadata); };
  dh.on_delete = [this](const DeploymentPtr& d, bool) { Enqueue(d->metadata); };
  registrations_.push_back(deployments_.AddEventHandler(std::move(dh)));

  ResourceEventHandler<ReplicaSet> rh;
  rh.on_add = [this](const RSPtr& rs, bool) { OnReplicaSetAdd(rs); };
  rh.on_update = [this](const RSPtr& old_rs, const RSPtr& rs) { OnReplicaSetUpdate(old_rs, rs); };
  rh.on_delete = [this](const RSPtr& rs, bool) { OnReplicaSetDelete(rs); };
  registrations_.push_back(replica_sets_.AddEventHandler(std::move(rh)));

  // Pod adds and updates are not watched: progress comes from ReplicaSet status. Only a Recreate
  // rollout waits on pods themselves (every old pod gone).
  ResourceEventHandler<Pod> ph;
  ph.on_delete = [this](const PodPtr& pod, bool) { OnPodDelete(pod); };
  registrations_.push_back(pods_.AddEventHandler(std::move(ph)));
}

DeploymentPtr DeploymentController::ResolveControllerRef(
    const std::string& ns, const api::meta::OwnerReference& ref) const {
  if (ref.kind != "Deployment") return nullptr;
  DeploymentPtr d = deployments_.lister().Get(ns, ref.name);
  if (d == nullptr || d->metadata.uid != ref.uid) return nullptr;  // a namesake, not the owner
  return d;
}

std::vector<DeploymentPtr> DeploymentController::DeploymentsForReplicaSet(
    const ReplicaSet& rs) const {
  std::vector<DeploymentPtr> out;
  if (rs.metadata.labels.empty()) return out;
  for (const auto& d : deployments_.lister().List(rs.metadata.namespace_)) {
    if (!d->spec.selector.has_value()) continue;
    auto selector = api::selectors::SelectorFromSpec(&*d->spec.selector);
    // An invalid or empty selector selects nothing here (upstream skips both).
    if (!selector.ok() || selector->Empty()) continue;
    if (selector->Matches(rs.metadata.labels)) out.push_back(d);
  }
  return out;
}

void DeploymentController::OnReplicaSetAdd(const RSPtr& rs) {
  if (rs->metadata.deletion_timestamp.has_value()) {
    // Seen for the first time already being deleted (e.g. after a relist).
    OnReplicaSetDelete(rs);
    return;
  }
  if (const auto* ref = ControllerOf(rs->metadata); ref != nullptr) {
    if (auto d = ResolveControllerRef(rs->metadata.namespace_, *ref)) Enqueue(d->metadata);
    return;
  }
  // An orphan: every Deployment that could adopt it syncs.
  for (const auto& d : DeploymentsForReplicaSet(*rs)) Enqueue(d->metadata);
}

void DeploymentController::OnReplicaSetUpdate(const RSPtr& old_rs, const RSPtr& rs) {
  // Periodic resyncs send the same object; nothing changed.
  if (old_rs->metadata.resource_version == rs->metadata.resource_version) return;
  const auto* cur_ref = ControllerOf(rs->metadata);
  const auto* old_ref = ControllerOf(old_rs->metadata);
  const bool ref_changed = (cur_ref == nullptr) != (old_ref == nullptr) ||
                           (cur_ref != nullptr && !(*cur_ref == *old_ref));
  if (ref_changed && old_ref != nullptr) {
    // The old owner lost it: let it know.
    if (auto d = ResolveControllerRef(old_rs->metadata.namespace_, *old_ref)) {
      Enqueue(d->metadata);
    }
  }
  if (cur_ref != nullptr) {
    if (auto d = ResolveControllerRef(rs->metadata.namespace_, *cur_ref)) Enqueue(d->metadata);
    return;
  }
  // An orphan whose labels or owner changed may now be adoptable.
  if (ref_changed || rs->metadata.labels != old_rs->metadata.labels) {
    for (const auto& d : DeploymentsForReplicaSet(*rs)) Enqueue(d->metadata);
  }
}

void DeploymentController::OnReplicaSetDelete(const RSPtr& rs) {
  const auto* ref = ControllerOf(rs->metadata);
  if (ref == nullptr) return;  // an orphan's deletion concerns no Deployment
  if (auto d = ResolveControllerRef(rs->metadata.namespace_, *ref)) Enqueue(d->metadata);
}

void DeploymentController::OnPodDelete(const PodPtr& pod) {
  // pod -> its ReplicaSet -> that ReplicaSet's Deployment (getDeploymentForPod).
  const auto* pod_ref = ControllerOf(pod->metadata);
  if (pod_ref == nullptr || pod_ref->kind != "ReplicaSet") return;
  RSPtr rs = replica_sets_.lister().Get(pod->metadata.namespace_, pod_ref->name);
  if (rs == nullptr || rs->metadata.uid != pod_ref->uid) return;
  const auto* rs_ref = ControllerOf(rs->metadata);
  if (rs_ref == nullptr) return;
  DeploymentPtr d = ResolveControllerRef(rs->metadata.namespace_, *rs_ref);
  if (d == nullptr || d->spec.strategy.type != api::apps::v1::kRecreateStrategy) return;
  // Sync once the Deployment has no pods left (its Recreate rollout waits for that).
  if (!d->spec.selector.has_value()) return;
  auto selector = api::selectors::SelectorFromSpec(&*d->spec.selector);
  if (!selector.ok()) return;
  std::vector<std::string> rs_uids;
  for (const auto& candidate : replica_sets_.lister().List(d->metadata.namespace_)) {
    const auto* ref = ControllerOf(candidate->metadata);
    if (ref != nullptr && ref->uid == d->metadata.uid) rs_uids.push_back(candidate->metadata.uid);
  }
  for (const auto& p : pods_.lister().List(d->metadata.namespace_, *selector)) {
    const auto* ref = ControllerOf(p->metadata);
    if (ref != nullptr && std::find(rs_uids.begin(), rs_uids.end(), ref->uid) != rs_uids.end()) {
      return;  // pods remain
    }
  }
  Enqueue(d->metadata);
}

bool DeploymentController::CachesSynced() const {
  if (!deployments_.HasSynced() || !replica_sets_.HasSynced() || !pods_.HasSynced()) return false;
  for (const auto& r : registrations_) {
    if (!r->HasSynced()) return false;
  }
  return true;
}

void DeploymentController::Run(int workers) {
  if (workers <= 0) workers = options_.workers;
  workers_->Start(workers, [this] { return CachesSynced(); });
}

void DeploymentController::Shutdown() {
  if (workers_) workers_->Shutdown();
}

Status DeploymentController::Sync(const std::string& key) {
  auto split = endpointslice::SplitKey(key);
  if (!split.ok()) return Status::Ok();  // a malformed key is dropped, never retried
  const auto& [ns, name] = *split;
  DeploymentPtr d = deployments_.lister().Get(ns, name);
  if (d == nullptr) return Status::Ok();  // deleted: the garbage collector removes its RSs
  SyncOutcome out = syncer_->Sync(*d);
  // A namespace being deleted takes the Deployment with it: no point retrying.
  if (!out.status.ok() && IsNamespaceTerminating(out.status)) return Status::Ok();
  if (out.status.ok() && out.requeue_after.has_value()) {
    if (*out.requeue_after == Duration::zero()) {
      queue_->AddRateLimited(key);
    } else {
      queue_->AddAfter(key, *out.requeue_after);
    }
  }
  if (!out.status.ok()) {
    spdlog::debug("deployment-controller: syncing {}: {}", key, out.status.ToString());
  }
  return out.status;
}

}  // namespace svcplane::controllers::deployment
