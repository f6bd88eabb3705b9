#pragma once

// The EndpointSlice mirroring controller's wiring (endpointslice-mirroring.md §1–§4): Endpoints,
// Service and mirrored-EndpointSlice events become Endpoints keys on a rate-limited queue; workers
// sync each key by reading the listers, planning with mirroring::Plan and writing through the
// Clientset.
//
//   MirroringController c(factory, clientset, events, &registry, RealClock::Get(), options);
//   factory.Start();
//   c.Run(options.workers);   // returns at once; workers start when the caches have synced
//   ...
//   c.Shutdown();             // then factory.Shutdown(), then destroy both

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/metrics.h"
#include "client/informers/interface.h"
#include "client/typed/interface.h"
#include "controllers/endpointslice/event_sink.h"
#include "controllers/endpointslice/slice_tracker.h"
#include "controllers/endpointslice/worker_pool.h"
#include "controllers/mirroring/metrics.h"
#include "controllers/mirroring/reconciler.h"

namespace svcplane::controllers::mirroring {

inline constexpr char kEventComponent[] = "endpoint-slice-mirroring-controller";

// kube-controller-manager's flags for this controller, with their defaults.
struct MirroringControllerOptions {
  int workers = 5;                      // --mirroring-concurrent-service-endpoint-syncs (1..50)
  int max_endpoints_per_subset = 1000;  // --mirroring-max-endpoints-per-subset (1..1000)
  Duration batch_period = Duration::zero();  // --mirroring-endpointslice-updates-batch-period
  int max_retries = 15;
  Duration retry_base = std::chrono::seconds(1);   // per-key backoff 1 s · 2^n ...
  Duration retry_max = std::chrono::seconds(100);  // ... capped at 100 s
};

class MirroringController {
 public:
  // Registers handlers on the factory's Endpoints, Service and EndpointSlice informers.
  // Everything passed in must outlive the controller; `metrics` may be null.
  MirroringController(client::informers::InformerFactory& informers, client::Clientset& client,
                      endpointslice::EventSink& events, MetricsRegistry* metrics,
                      const Clock& clock, MirroringControllerOptions options);
  ~MirroringController();
  MirroringController(const MirroringController&) = delete;
  MirroringController& operator=(const MirroringController&) = delete;

  void Run(int workers = 0);
  void Shutdown();

  Status SyncForTest(const std::string& key) { return Sync(key); }
  endpointslice::KeyQueue& QueueForTest() { return *queue_; }

 private:
  Status Sync(const std::string& key);
  Status SyncLocked(const std::string& ns, const std::string& name);
  Status DeleteMirrored(const std::string& ns, const std::string& name);
  std::vector<SlicePtr> ListMirrored(const Endpoints& endpoints) const;
  bool CachesSynced() const;
  void RegisterHandlers();

  // Constant after construction.
  client::Clientset& client_;
  endpointslice::EventSink& events_;
  const Clock& clock_;
  const MirroringControllerOptions options_;
  client::informers::SharedInformer<Endpoints>& endpoints_;
  client::informers::SharedInformer<api::core::v1::Service>& services_;
  client::informers::SharedInformer<EndpointSlice>& slices_;
  std::vector<std::shared_ptr<client::informers::HandlerRegistration>> registrations_;

  bool slice_index_ = false;
  endpointslice::SliceTracker tracker_;
  MirroringMetrics metrics_;
  std::unique_ptr<endpointslice::KeyQueue> queue_;
  std::unique_ptr<endpointslice::KeyWorkerPool> workers_;
};

}  // namespace svcplane::controllers::mirroring
