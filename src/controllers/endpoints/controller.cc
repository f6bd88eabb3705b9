#include "controllers/endpoints/controller.h"

#include "api/selectors/label_selector.h"
#include "controllers/endpointslice/controller.h"  // SplitKey
#include "controllers/endpointslice/pod_handlers.h"

namespace svcplane::controllers::endpoints {
namespace {

using client::informers::ResourceEventHandler;

// EndpointsWriter over the typed client.
class ClientEndpointsWriter final : public EndpointsWriter {
 public:
  explicit ClientEndpointsWriter(client::ResourceClient<Endpoints>& client) : client_(client) {}
  Result<Endpoints> Create(const Endpoints& e) override {
    auto r = client_.Create(e);
    if (!r.ok()) return r.status();
    return **r;
  }
  Result<Endpoints> Update(const Endpoints& e) override {
    auto r = client_.Update(e);
    if (!r.ok()) return r.status();
    return **r;
  }
  Status Delete(const std::string& ns, const std::string& name) override {
    return client_.Delete(ns, name);
  }

 private:
  client::ResourceClient<Endpoints>& client_;
};

std::string KeyOf(const api::meta::ObjectMeta& m) { return m.namespace_ + "/" + m.name; }

}  // namespace

EndpointsController::EndpointsController(client::informers::InformerFactory& informers,
                                         client::Clientset& client,
                                         endpointslice::EventSink& events, MetricsRegistry* metrics,
                                         const Clock& clock, EndpointsControllerOptions options)
    : client_(client),
      events_(events),
      options_(options),
      services_(informers.Services()),
      pods_(informers.Pods()),
      endpoints_(informers.Endpoints()) {
  queue_ = std::make_unique<endpointslice::KeyQueue>(
      client::NewControllerRateLimiter<std::string>(clock, options_.retry_base, options_.retry_max),
      client::QueueConfig{"endpoint", metrics, &clock});
  workers_ = std::make_unique<endpointslice::KeyWorkerPool>(
      "endpoints", *queue_, [this](const std::string& key) { return Sync(key); },
      options_.max_retries);
  indexes_ = endpointslice::AddSelectionIndexes(pods_, services_);
  RegisterHandlers();
}

EndpointsController::~EndpointsController() { Shutdown(); }

void EndpointsController::RegisterHandlers() {
  ResourceEventHandler<Service> svc;
  svc.on_add = [this](const client::ObjectPtr<Service>& s, bool) {
    queue_->Add(KeyOf(s->metadata));
  };
  svc.on_update = [this](const client::ObjectPtr<Service>&, const client::ObjectPtr<Service>& s) {
    queue_->Add(KeyOf(s->metadata));
  };
  svc.on_delete = [this](const client::ObjectPtr<Service>& s, bool) {
    queue_->Add(KeyOf(s->metadata));
  };
  registrations_.push_back(services_.AddEventHandler(std::move(svc)));

  auto pod_event = [this](const Pod* old_pod, const Pod& pod) {
    for (const auto& key :
         endpointslice::ServicesForPodEvent(services_.lister(), old_pod, pod, indexes_)) {
      queue_->AddAfter(key, options_.batch_period);
    }
  };
  ResourceEventHandler<Pod> pod;
  pod.on_add = [pod_event](const client::ObjectPtr<Pod>& p, bool) { pod_event(nullptr, *p); };
  pod.on_update = [pod_event](const client::ObjectPtr<Pod>& old_pod,
                              const client::ObjectPtr<Pod>& p) { pod_event(old_pod.get(), *p); };
  pod.on_delete = [pod_event](const client::ObjectPtr<Pod>& p, bool) { pod_event(nullptr, *p); };
  registrations_.push_back(pods_.AddEventHandler(std::move(pod)));

  // A Service whose Endpoints vanished needs them back. Adds and updates matter only to a sync
  // parked until the cache shows our own write (KeyWorkerPool::Park).
  ResourceEventHandler<Endpoints> ep;
  ep.on_add = [this](const client::ObjectPtr<Endpoints>& e, bool) {
    workers_->Unpark(KeyOf(e->metadata));
  };
  ep.on_update = [this](const client::ObjectPtr<Endpoints>&,
                        const client::ObjectPtr<Endpoints>& e) {
    workers_->Unpark(KeyOf(e->metadata));
  };
  ep.on_delete = [this](const client::ObjectPtr<Endpoints>& e, bool) {
    const std::string key = KeyOf(e->metadata);
    reconciler_.ObserveDeletion(key);
    workers_->Unpark(key);
    queue_->Add(key);
  };
  registrations_.push_back(endpoints_.AddEventHandler(std::move(ep)));
}

bool EndpointsController::CachesSynced() const {
  if (!services_.HasSynced() || !pods_.HasSynced() || !endpoints_.HasSynced()) return false;
  for (const auto& r : registrations_) {
    if (!r->HasSynced()) return false;
  }
  return true;
}

void EndpointsController::EnqueueAllEndpoints() {
  for (const auto& e : endpoints_.lister().List()) {
    if (e->metadata.annotations.contains(kLeaderAnnotation)) continue;
    queue_->Add(KeyOf(e->metadata));
  }
}

void EndpointsController::Run(int workers) {
  if (workers <= 0) workers = options_.workers;
  workers_->Start(
      workers, [this] { return CachesSynced(); }, [this] { EnqueueAllEndpoints(); });
}

void EndpointsController::Shutdown() {
  if (workers_) workers_->Shutdown();
}

Status EndpointsController::Sync(const std::string& key) {
  auto split = endpointslice::SplitKey(key);
  if (!split.ok()) return split.status();
  const auto& [ns, name] = *split;
  auto service = services_.lister().Get(ns, name);
  std::vector<std::shared_ptr<const Pod>> pods;
  if (service != nullptr && !service->spec.selector.empty() &&
      service->spec.type != "ExternalName") {
    pods = endpointslice::PodsForService(pods_.lister(), *service, indexes_);
  }
  auto current = endpoints_.lister().Get(ns, name);
  if (service != nullptr && reconciler_.CacheBehind(key, current.get())) {
    // Our last write is not in the cache yet: wait for its event rather than back off (upstream
    // returns an error, and every such retry then waits for the shared 10 qps bucket).
    workers_->Park(key);
    auto again = endpoints_.lister().Get(ns, name);
    if (!reconciler_.CacheBehind(key, again.get())) workers_->Unpark(key);
    return Status::Ok();
  }
  auto plan = reconciler_.Plan(ns, name, service.get(), pods, current.get());
  if (!plan.ok()) return plan.status();
  ClientEndpointsWriter writer(client_.Endpoints());
  ApplyResult result = reconciler_.Apply(*plan, writer);
  if (!result.events.empty()) {
    api::meta::ObjectReference ref;
    ref.kind = "Endpoints";
    ref.api_version = "v1";
    ref.namespace_ = ns;
    ref.name = name;
    if (current != nullptr) {
      ref.uid = current->metadata.uid;
      ref.resource_version = current->metadata.resource_version;
    }
    for (const auto& e : result.events) events_.Emit(kEventComponent, ref, e);
  }
  return result.status;
}

}  // namespace svcplane::controllers::endpoints
