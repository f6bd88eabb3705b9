#pragma once

// The Endpoints controller's wiring (endpoints-controller.md §1–§4, §12–§13): Service, Pod and
// Endpoints-deletion events become Service keys on a rate-limited queue; workers sync each key
// by reading the listers, planning with the Reconciler and writing through the Clientset.
//
//   EndpointsController c(factory, clientset, events, &registry, RealClock::Get(), options);
//   factory.Start();
//   c.Run(options.workers);   // returns at once; workers start when the caches have synced
//   ...
//   c.Shutdown();             // then factory.Shutdown(), then destroy both
//
// Handlers stay registered with the informers (the contract has no removal), so the factory must
// stop delivering before the controller is destroyed.

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/metrics.h"
#include "client/informers/interface.h"
#include "client/typed/interface.h"
#include "controllers/endpoints/reconciler.h"
#include "controllers/endpointslice/event_sink.h"
#include "controllers/endpointslice/pod_handlers.h"
#include "controllers/endpointslice/worker_pool.h"

namespace svcplane::controllers::endpoints {

inline constexpr char kEventComponent[] = "endpoint-controller";

// kube-controller-manager's flags for this controller, with their defaults.
struct EndpointsControllerOptions {
  int workers = 5;                           // --concurrent-endpoint-syncs
  Duration batch_period = Duration::zero();  // --endpoint-updates-batch-period
  int max_retries = 15;
  Duration retry_base = std::chrono::milliseconds(5);  // client-go's default controller limiter
  Duration retry_max = std::chrono::seconds(1000);
};

class EndpointsController {
 public:
  // Registers handlers on the factory's Service, Pod and Endpoints informers. Everything passed
  // in must outlive the controller; `metrics` (workqueue series) may be null.
  EndpointsController(client::informers::InformerFactory& informers, client::Clientset& client,
                      endpointslice::EventSink& events, MetricsRegistry* metrics,
                      const Clock& clock, EndpointsControllerOptions options);
  ~EndpointsController();
  EndpointsController(const EndpointsController&) = delete;
  EndpointsController& operator=(const EndpointsController&) = delete;

  // Starts `workers` sync threads (0: options.workers) and returns. Once the caches have synced,
  // every cached Endpoints without the leader-election annotation is enqueued once (§13), so
  // Endpoints of Services deleted while the controller was down are removed.
  void Run(int workers = 0);
  // Stops the queue and joins the workers. Idempotent.
  void Shutdown();

  Status SyncForTest(const std::string& key) { return Sync(key); }
  endpointslice::KeyQueue& QueueForTest() { return *queue_; }
  bool ParkedForTest(const std::string& key) const { return workers_->ParkedForTest(key); }
  void EnqueueOrphansForTest() { EnqueueAllEndpoints(); }
  bool IdleForTest() const { return workers_->IdleForTest(); }

 private:
  Status Sync(const std::string& key);
  bool CachesSynced() const;
  void RegisterHandlers();
  void EnqueueAllEndpoints();

  // Constant after construction.
  client::Clientset& client_;
  endpointslice::EventSink& events_;
  const EndpointsControllerOptions options_;
  client::informers::SharedInformer<Service>& services_;
  client::informers::SharedInformer<Pod>& pods_;
  client::informers::SharedInformer<Endpoints>& endpoints_;
  std::vector<std::shared_ptr<client::informers::HandlerRegistration>> registrations_;
  endpointslice::SelectionIndexes indexes_;

  Reconciler reconciler_;
  std::unique_ptr<endpointslice::KeyQueue> queue_;
  std::unique_ptr<endpointslice::KeyWorkerPool> workers_;
};

}  // namespace svcplane::controllers::endpoints
