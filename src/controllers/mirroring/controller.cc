#include "controllers/mirroring/controller.h"

#include <algorithm>

#include "api/selectors/label_selector.h"
#include "controllers/endpointslice/client_slice_writer.h"
#include "controllers/endpointslice/controller.h"  // SplitKey
#include "controllers/endpointslice/pod_handlers.h"
#include "controllers/endpointslice/utils.h"

namespace svcplane::controllers::mirroring {
namespace {

using api::core::v1::Service;
using client::informers::ResourceEventHandler;

std::string KeyOf(const api::meta::ObjectMeta& m) { return m.namespace_ + "/" + m.name; }

}  // namespace

MirroringController::MirroringController(client::informers::InformerFactory& informers,
                                         client::Clientset& client,
                                         endpointslice::EventSink& events, MetricsRegistry* metrics,
                                         const Clock& clock, MirroringControllerOptions options)
    : client_(client),
      events_(events),
      clock_(clock),
      options_(options),
      endpoints_(informers.Endpoints()),
      services_(informers.Services()),
      slices_(informers.EndpointSlices()),
      metrics_(metrics) {
  queue_ = std::make_unique<endpointslice::KeyQueue>(
      client::NewControllerRateLimiter<std::string>(clock, options_.retry_base, options_.retry_max),
      client::QueueConfig{"endpoint_slice_mirroring", metrics, &clock});
  workers_ = std::make_unique<endpointslice::KeyWorkerPool>(
      "endpointslice-mirroring", *queue_, [this](const std::string& key) { return Sync(key); },
      options_.max_retries);
  slice_index_ = endpointslice::AddSliceServiceIndex(slices_);
  RegisterHandlers();
}

MirroringController::~MirroringController() { Shutdown(); }

void MirroringController::RegisterHandlers() {
  ResourceEventHandler<Endpoints> ep;
  ep.on_add = [this](const client::ObjectPtr<Endpoints>& e, bool) {
    if (ShouldMirror(*e)) queue_->Add(KeyOf(e->metadata));
  };
  ep.on_update = [this](const client::ObjectPtr<Endpoints>& old_ep,
                        const client::ObjectPtr<Endpoints>& e) {
    // Either side: adding the skip label must clean up what was mirrored.
    if (ShouldMirror(*e) || ShouldMirror(*old_ep)) queue_->Add(KeyOf(e->metadata));
  };
  ep.on_delete = [this](const client::ObjectPtr<Endpoints>& e, bool) {
    if (ShouldMirror(*e)) queue_->Add(KeyOf(e->metadata));
  };
  registrations_.push_back(endpoints_.AddEventHandler(std::move(ep)));

  ResourceEventHandler<Service> svc;
  svc.on_add = [this](const client::ObjectPtr<Service>& s, bool) {
    if (s->spec.selector.empty()) queue_->Add(KeyOf(s->metadata));
  };
  svc.on_update = [this](const client::ObjectPtr<Service>& old_svc,
                         const client::ObjectPtr<Service>& s) {
    if (old_svc->spec.selector.empty() != s->spec.selector.empty()) {
      queue_->Add(KeyOf(s->metadata));
    }
  };
  svc.on_delete = [this](const client::ObjectPtr<Service>& s, bool) {
    if (s->spec.selector.empty()) queue_->Add(KeyOf(s->metadata));
  };
  registrations_.push_back(services_.AddEventHandler(std::move(svc)));

  ResourceEventHandler<EndpointSlice> slice;
  slice.on_add = [this](const client::ObjectPtr<EndpointSlice>& s, bool) {
    for (const auto& key : EndpointsToSyncForSliceChange(nullptr, *s, tracker_.ShouldSync(*s))) {
      queue_->AddAfter(key, options_.batch_period);
    }
  };
  slice.on_update = [this](const client::ObjectPtr<EndpointSlice>& old_slice,
                           const client::ObjectPtr<EndpointSlice>& s) {
    for (const auto& key :
         EndpointsToSyncForSliceChange(old_slice.get(), *s, tracker_.ShouldSync(*s))) {
      queue_->AddAfter(key, options_.batch_period);
    }
  };
  slice.on_delete = [this](const client::ObjectPtr<EndpointSlice>& s, bool) {
    if (!ManagedByMirroring(*s) || !tracker_.Has(*s)) return;
    const std::string key = endpointslice::ServiceKeyForSlice(*s);
    if (!key.empty() && !tracker_.HandleDeletion(*s)) queue_->AddAfter(key, options_.batch_period);
  };
  registrations_.push_back(slices_.AddEventHandler(std::move(slice)));
}

bool MirroringController::CachesSynced() const {
  if (!endpoints_.HasSynced() || !services_.HasSynced() || !slices_.HasSynced()) return false;
  for (const auto& r : registrations_) {
    if (!r->HasSynced()) return false;
  }
  return true;
}

void MirroringController::Run(int workers) {
  if (workers <= 0) workers = options_.workers;
  workers_->Start(workers, [this] { return CachesSynced(); });
}

void MirroringController::Shutdown() {
  if (workers_) workers_->Shutdown();
}

std::vector<SlicePtr> MirroringController::ListMirrored(const Endpoints& endpoints) const {
  auto listed = endpointslice::SlicesLabelledFor(slices_.lister(), slice_index_,
                                                 endpoints.metadata.namespace_,
                                                 endpoints.metadata.name, kControllerName);
  return MirroredSlices(endpoints, listed);
}

Status MirroringController::DeleteMirrored(const std::string& ns, const std::string& name) {
  // Forget our writes before listing (spec §4 steps 1-3, as upstream). The cache may not show a
  // slice we created yet: listed after the forgetting, its add event then finds the tracker
  // ignorant of it and queues this key again, and that sync deletes it. Kept, the tracker would
  // take the add for our own write already seen, and the slice would stay mirrored for good.
  tracker_.DeleteService(ns, name);
  metrics_.Forget(ns + "/" + name);
  Endpoints stub;
  stub.metadata.namespace_ = ns;
  stub.metadata.name = name;
  MirrorPlan plan = PlanCleanup(ListMirrored(stub));
  if (plan.to_delete.empty()) return Status::Ok();
  endpointslice::ClientSliceWriter writer(client_.EndpointSlices());
  return ApplyCleanup(ns, name, plan, writer, &tracker_);
}

Status MirroringController::Sync(const std::string& key) {
  const TimePoint start = clock_.Now();
  auto split = endpointslice::SplitKey(key);
  if (!split.ok()) return split.status();
  Status s = SyncLocked(split->first, split->second);
  metrics_.ObserveSyncDuration(std::chrono::duration<double>(clock_.Now() - start).count());
  return s;
}

Status MirroringController::SyncLocked(const std::string& ns, const std::string& name) {
  const std::string key = ns + "/" + name;
  auto endpoints = endpoints_.lister().Get(ns, name);
  if (endpoints == nullptr) return DeleteMirrored(ns, name);
  if (!ShouldMirror(*endpoints)) return DeleteMirrored(ns, name);
  auto service = services_.lister().Get(ns, name);
  if (service == nullptr || !service->spec.selector.empty()) return DeleteMirrored(ns, name);

  auto slices = ListMirrored(*endpoints);
  if (tracker_.StaleSlices(*service, slices)) {
    return Status(Code::kConflict, "EndpointSlice informer cache is out of date");
  }
  MirroringOptions opts;
  opts.max_endpoints_per_subset = std::clamp(options_.max_endpoints_per_subset, 1, 1000);
  MirrorPlan plan = Plan(*endpoints, slices, opts);
  endpointslice::ClientSliceWriter writer(client_.EndpointSlices());
  Status s =
      Apply(ns, name, endpoints->metadata.deletion_timestamp.has_value(), plan, writer, &tracker_);
  if (!plan.events.empty()) {
    const auto ref = endpointslice::ReferenceTo(*endpoints, "Endpoints", "v1");
    for (const auto& e : plan.events) events_.Emit(kEventComponent, ref, e);
  }
  metrics_.ObserveReconcile(key, plan.metrics, writer.creates, writer.updates, writer.deletes);
  return s;
}

}  // namespace svcplane::controllers::mirroring
