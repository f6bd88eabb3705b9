#include "controllers/endpointslice/controller.h"

#include <algorithm>

#include "api/selectors/label_selector.h"
#include "controllers/endpointslice/client_slice_writer.h"
#include "controllers/endpointslice/pod_handlers.h"
#include "controllers/endpointslice/utils.h"

namespace svcplane::controllers::endpointslice {
namespace {

using api::core::v1::Node;
using api::core::v1::Pod;
using api::core::v1::Service;
using client::informers::ResourceEventHandler;

constexpr char kTopologyKey[] = "topology";
// Slice events are batched at least this long (spec §1: max(1 s, batch period)).
constexpr Duration kMinSliceBatch = std::chrono::seconds(1);

bool NodeReady(const Node& node) {
  for (const auto& c : node.status.conditions) {
    if (c.type == "Ready") return c.status == "True";
  }
  return false;
}

std::string NodeZone(const Node& node) {
  auto it = node.metadata.labels.find(kZoneLabel);
  return it == node.metadata.labels.end() ? std::string() : it->second;
}

}  // namespace

Result<std::pair<std::string, std::string>> SplitKey(const std::string& key) {
  auto slash = key.find('/');
  if (slash == std::string::npos || key.find('/', slash + 1) != std::string::npos ||
      slash + 1 == key.size()) {
    return BadRequestError("unexpected key format: \"" + key + "\"");
  }
  return std::make_pair(key.substr(0, slash), key.substr(slash + 1));
}

EndpointSliceController::EndpointSliceController(client::informers::InformerFactory& informers,
                                                 client::Clientset& client, EventSink& events,
                                                 MetricsRegistry* metrics, const Clock& clock,
                                                 EndpointSliceControllerOptions options)
    : informers_(informers),
      client_(client),
      events_(events),
      options_(options),
      services_(informers.Services()),
      pods_(informers.Pods()),
      nodes_(informers.Nodes()),
      slices_(informers.EndpointSlices()),
      reconciler_(
          [&] {
            ReconcilerOptions o;
            o.max_endpoints_per_slice = std::clamp(options.max_endpoints_per_slice, 1, 1000);
            o.rebalance = options.rebalance;
            o.rebalance_slack = options.rebalance_slack;
            o.rebalance_max_extra_writes = options.rebalance_max_extra_writes;
            return o;
          }(),
          &topology_),
      metrics_(metrics) {
  queue_ = std::make_unique<KeyQueue>(
      client::NewControllerRateLimiter<std::string>(clock, options_.retry_base, options_.retry_max),
      client::QueueConfig{"endpoint_slice", metrics, &clock});
  topology_queue_ =
      std::make_unique<KeyQueue>(client::DefaultControllerRateLimiter<std::string>(clock),
                                 client::QueueConfig{"endpoint_slice_topology", metrics, &clock});
  workers_ = std::make_unique<KeyWorkerPool>(
      "endpointslice", *queue_, [this](const std::string& key) { return Sync(key); },
      options_.max_retries);
  topology_worker_ = std::make_unique<KeyWorkerPool>(
      "endpointslice-topology", *topology_queue_,
      [this](const std::string&) { return SyncTopology(); }, options_.max_retries);
  indexes_ = AddSelectionIndexes(pods_, services_);
  slice_index_ = AddSliceServiceIndex(slices_);
  RegisterHandlers();
}

EndpointSliceController::~EndpointSliceController() { Shutdown(); }

void EndpointSliceController::RegisterHandlers() {
  ResourceEventHandler<Service> svc;
  svc.on_add = [this](const client::ObjectPtr<Service>& s, bool) { EnqueueService(*s); };
  svc.on_update = [this](const client::ObjectPtr<Service>&, const client::ObjectPtr<Service>& s) {
    EnqueueService(*s);
  };
  svc.on_delete = [this](const client::ObjectPtr<Service>& s, bool) { EnqueueService(*s); };
  registrations_.push_back(services_.AddEventHandler(std::move(svc)));

  ResourceEventHandler<Pod> pod;
  pod.on_add = [this](const client::ObjectPtr<Pod>& p, bool) { EnqueueForPod(nullptr, *p); };
  pod.on_update = [this](const client::ObjectPtr<Pod>& old_pod, const client::ObjectPtr<Pod>& p) {
    EnqueueForPod(old_pod.get(), *p);
  };
  pod.on_delete = [this](const client::ObjectPtr<Pod>& p, bool) { EnqueueForPod(nullptr, *p); };
  registrations_.push_back(pods_.AddEventHandler(std::move(pod)));

  ResourceEventHandler<api::discovery::v1::EndpointSlice> slice;
  slice.on_add = [this](const client::ObjectPtr<api::discovery::v1::EndpointSlice>& s, bool) {
    OnSliceChange(nullptr, *s);
  };
  slice.on_update = [this](const client::ObjectPtr<api::discovery::v1::EndpointSlice>& old_slice,
                           const client::ObjectPtr<api::discovery::v1::EndpointSlice>& s) {
    OnSliceChange(old_slice.get(), *s);
  };
  slice.on_delete = [this](const client::ObjectPtr<api::discovery::v1::EndpointSlice>& s, bool) {
    OnSliceDelete(*s);
  };
  registrations_.push_back(slices_.AddEventHandler(std::move(slice)));

  ResourceEventHandler<Node> node;
  node.on_add = [this](const client::ObjectPtr<Node>&, bool) {
    ForgetNodesForPlan();
    OnNodeChange();
  };
  node.on_update = [this](const client::ObjectPtr<Node>& old_node,
                          const client::ObjectPtr<Node>& n) {
    // Only readiness and zone feed the topology cache; only the zone feeds plans.
    const bool zone_changed = NodeZone(*old_node) != NodeZone(*n);
    if (zone_changed) ForgetNodesForPlan();
    if (NodeReady(*old_node) != NodeReady(*n) || zone_changed) OnNodeChange();
  };
  node.on_delete = [this](const client::ObjectPtr<Node>&, bool) {
    ForgetNodesForPlan();
    OnNodeChange();
  };
  registrations_.push_back(nodes_.AddEventHandler(std::move(node)));
}

void EndpointSliceController::EnqueueService(const Service& service) {
  queue_->Add(service.metadata.namespace_ + "/" + service.metadata.name);
}

void EndpointSliceController::EnqueueForPod(const Pod* old_pod, const Pod& pod) {
  for (const auto& key : ServicesForPodEvent(services_.lister(), old_pod, pod, indexes_)) {
    queue_->AddAfter(key, options_.batch_period);
  }
}

void EndpointSliceController::OnSliceChange(const api::discovery::v1::EndpointSlice* old_slice,
                                            const api::discovery::v1::EndpointSlice& slice) {
  const Duration delay = std::max(kMinSliceBatch, options_.batch_period);
  for (const auto& key :
       ServicesToSyncForSliceChange(old_slice, slice, tracker_.ShouldSync(slice))) {
    queue_->AddAfter(key, delay);
  }
  // Our own write reached the cache: a sync parked waiting for it can go on.
  const std::string key = ServiceKeyForSlice(slice);
  if (!key.empty()) workers_->Unpark(key);
}

void EndpointSliceController::OnSliceDelete(const api::discovery::v1::EndpointSlice& slice) {
  const std::string key = ServiceKeyForSlice(slice);
  if (key.empty()) return;
  auto managed = slice.metadata.labels.find(kManagedByLabel);
  if (managed == slice.metadata.labels.end() || managed->second != kControllerName) return;
  if (!tracker_.Has(slice)) return;
  // A deletion we did not make (or expect): the Service needs its slices back.
  if (!tracker_.HandleDeletion(slice)) {
    queue_->AddAfter(key, std::max(kMinSliceBatch, options_.batch_period));
  }
  workers_->Unpark(key);  // our own deletion reached the cache
}

void EndpointSliceController::OnNodeChange() { topology_queue_->Add(kTopologyKey); }

std::shared_ptr<const std::vector<std::shared_ptr<const Node>>>
EndpointSliceController::NodesForPlan() {
  std::lock_guard lock(node_snapshot_mu_);
  if (node_snapshot_ == nullptr) {
    node_snapshot_ =
        std::make_shared<const std::vector<std::shared_ptr<const Node>>>(nodes_.lister().List());
  }
  return node_snapshot_;
}

void EndpointSliceController::ForgetNodesForPlan() {
  std::lock_guard lock(node_snapshot_mu_);
  node_snapshot_.reset();
}

Status EndpointSliceController::SyncTopology() {
  topology_.SetNodes(nodes_.lister().List());
  for (const auto& key : topology_.GetOverloadedServices()) queue_->Add(key);
  return Status::Ok();
}

bool EndpointSliceController::CachesSynced() const {
  if (!services_.HasSynced() || !pods_.HasSynced() || !nodes_.HasSynced() || !slices_.HasSynced()) {
    return false;
  }
  for (const auto& r : registrations_) {
    if (!r->HasSynced()) return false;
  }
  return true;
}

void EndpointSliceController::Run(int workers) {
  if (workers <= 0) workers = options_.workers;
  workers_->Start(
      workers, [this] { return CachesSynced(); },
      [this] {
        if (options_.delete_orphaned_slices) EnqueueServicesOfAllSlices();
      });
  topology_worker_->Start(1, [this] { return CachesSynced(); });
}

void EndpointSliceController::Shutdown() {
  if (workers_) workers_->Shutdown();
  if (topology_worker_) topology_worker_->Shutdown();
}

void EndpointSliceController::EnqueueServicesOfAllSlices() {
  for (const auto& s : slices_.lister().List()) {
    auto managed = s->metadata.labels.find(kManagedByLabel);
    if (managed == s->metadata.labels.end() || managed->second != kControllerName) continue;
    std::string key = ServiceKeyForSlice(*s);
    if (!key.empty()) queue_->Add(key);
  }
}

Status EndpointSliceController::DeleteOrphanedSlices(const std::string& ns,
                                                     const std::string& name) {
  auto slices = SlicesLabelledFor(slices_.lister(), slice_index_, ns, name, kControllerName);
  Status first;
  for (const auto& s : slices) {
    if (s->metadata.deletion_timestamp) continue;
    Status st = client_.EndpointSlices().Delete(ns, s->metadata.name);
    if (!st.ok() && st.code() != Code::kNotFound && first.ok()) first = st;
  }
  return first;
}

Status EndpointSliceController::Sync(const std::string& key) {
  auto split = SplitKey(key);
  if (!split.ok()) return split.status();
  const auto& [ns, name] = *split;
  auto service = services_.lister().Get(ns, name);
  if (service == nullptr) {
    // Slices go with the Service through their ownerReference (garbage collection).
    trigger_times_.Delete(key);
    reconciler_.Forget(ns, name);
    tracker_.DeleteService(ns, name);
    metrics_.ForgetService(key);
    return options_.delete_orphaned_slices ? DeleteOrphanedSlices(ns, name) : Status::Ok();
  }
  if (service->spec.type == "ExternalName" || service->spec.selector.empty()) {
    return Status::Ok();
  }
  metrics_.SetTrafficDistribution(key, service->spec.traffic_distribution.value_or(""));
  const api::meta::ObjectReference ref = ReferenceTo(*service, "Service", "v1");

  auto pods = PodsForService(pods_.lister(), *service, indexes_);
  auto listed = SlicesLabelledFor(slices_.lister(), slice_index_, ns, name, kControllerName);
  auto slices = SlicesForService(*service, listed);
  if (tracker_.StaleSlices(*service, slices)) {
    // The cache lacks one of our own writes: wait for its event rather than back off (upstream
    // returns an error here, and every such retry then waited for the shared 10 qps bucket).
    metrics_.ObserveSync("stale");
    workers_->Park(key);
    auto again = SlicesForService(
        *service, SlicesLabelledFor(slices_.lister(), slice_index_, ns, name, kControllerName));
    if (!tracker_.StaleSlices(*service, again)) workers_->Unpark(key);
    return Status::Ok();
  }
  auto trigger = trigger_times_.Compute(key, *service, pods);
  const auto nodes = NodesForPlan();
  SlicePlan plan = reconciler_.Plan(service, pods, *nodes, slices, trigger);
  ClientSliceWriter writer(client_.EndpointSlices());
  Status s = reconciler_.Apply(*service, plan, writer, &tracker_);
  for (const auto& e : plan.events) events_.Emit(kEventComponent, ref, e);
  metrics_.ObserveReconcile(key, plan.metrics, writer.creates, writer.updates, writer.deletes);
  if (!s.ok()) {
    events_.Emit(kEventComponent, ref,
                 {"Warning", "FailedToUpdateEndpointSlices",
                  "Error updating Endpoint Slices for Service " + key + ": " + s.message()});
    metrics_.ObserveSync("error");
    return s;
  }
  metrics_.ObserveSync("success");
  return Status::Ok();
}

}  // namespace svcplane::controllers::endpointslice
