#pragma once

// The EndpointSlice controller's wiring (spec §2–§3): informer handlers turn Service, Pod,
// EndpointSlice and Node events into Service keys on a rate-limited queue; workers sync each key
// by reading the listers, planning with the Reconciler and writing through the Clientset.
//
//   EndpointSliceController c(factory, clientset, events, &registry, RealClock::Get(), options);
//   factory.Start();
//   c.Run(options.workers);   // returns at once; workers start when the caches have synced
//   ...
//   c.Shutdown();             // before factory.Shutdown() and before destroying the factory
//
// Handlers stay registered with the informers (the contract has no removal), so the factory must
// stop delivering (InformerFactory::Shutdown) before the controller is destroyed.

#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "base/clock.h"
#include "base/metrics.h"
#include "base/status.h"
#include "client/informers/interface.h"
#include "client/typed/interface.h"
#include "controllers/endpointslice/event_sink.h"
#include "controllers/endpointslice/metrics.h"
#include "controllers/endpointslice/pod_handlers.h"
#include "controllers/endpointslice/reconciler.h"
#include "controllers/endpointslice/slice_tracker.h"
#include "controllers/endpointslice/topology_cache.h"
#include "controllers/endpointslice/trigger_time_tracker.h"
#include "controllers/endpointslice/worker_pool.h"

namespace svcplane::controllers::endpointslice {

inline constexpr char kEventComponent[] = "endpoint-slice-controller";

// kube-controller-manager's flags for this controller, with their defaults.
struct EndpointSliceControllerOptions {
  int workers = 5;                           // --concurrent-service-endpoint-syncs
  int max_endpoints_per_slice = 100;         // --max-endpoints-per-slice (1..1000)
  Duration batch_period = Duration::zero();  // --endpointslice-updates-batch-period
  bool rebalance = false;                    // --endpointslice-rebalance (ours)
  double rebalance_slack = 0.10;             // --endpointslice-rebalance-slack
  int rebalance_max_extra_writes = 10;       // --endpointslice-rebalance-max-writes
  int max_retries = 15;
  // Beyond upstream: upstream leaves a deleted Service's slices to the garbage collector (their
  // ownerReference). svcplane has no garbage collector, so the controller deletes them itself,
  // and on start enqueues every Service its slices name (to catch deletions it missed). Harmless
  // next to a garbage collector (NotFound is success).
  bool delete_orphaned_slices = true;
  Duration retry_base = std::chrono::seconds(1);    // per-key backoff 1 s · 2^n ...
  Duration retry_max = std::chrono::seconds(1000);  // ... capped at 1000 s
};

class EndpointSliceController {
 public:
  // Registers handlers on the factory's Service, Pod, Node and EndpointSlice informers (call
  // before factory.Start() or after; late handlers get the cache replayed). Everything passed in
  // must outlive the controller; `metrics` may be null.
  EndpointSliceController(client::informers::InformerFactory& informers, client::Clientset& client,
                          EventSink& events, MetricsRegistry* metrics, const Clock& clock,
                          EndpointSliceControllerOptions options);
  ~EndpointSliceController();
  EndpointSliceController(const EndpointSliceController&) = delete;
  EndpointSliceController& operator=(const EndpointSliceController&) = delete;

  // Starts `workers` sync threads (0: options.workers) and the topology worker; returns at once.
  void Run(int workers = 0);
  // Stops the queues and joins every thread. Idempotent.
  void Shutdown();

  // One sync of "ns/name" on the calling thread (what a worker does for a key).
  Status SyncForTest(const std::string& key) { return Sync(key); }
  KeyQueue& QueueForTest() { return *queue_; }
  bool ParkedForTest(const std::string& key) const { return workers_->ParkedForTest(key); }
  bool IdleForTest() const { return workers_->IdleForTest() && topology_worker_->IdleForTest(); }
  const EndpointSliceControllerOptions& options() const { return options_; }

 private:
  Status Sync(const std::string& key);
  bool CachesSynced() const;
  void RegisterHandlers();
  void EnqueueService(const api::core::v1::Service& service);
  void EnqueueForPod(const api::core::v1::Pod* old_pod, const api::core::v1::Pod& pod);
  void OnSliceChange(const api::discovery::v1::EndpointSlice* old_slice,
                     const api::discovery::v1::EndpointSlice& slice);
  void OnSliceDelete(const api::discovery::v1::EndpointSlice& slice);
  void OnNodeChange();
  // The Nodes a sync plans with. Plans read only their names and zones, so the list is taken
  // again only after a Node was added or deleted or changed zone: listing 5,000 Nodes for every
  // sync was a fifth of the server's CPU while 50,000 Pods became ready.
  std::shared_ptr<const std::vector<std::shared_ptr<const api::core::v1::Node>>> NodesForPlan();
  void ForgetNodesForPlan();
  Status SyncTopology();
  Status DeleteOrphanedSlices(const std::string& ns, const std::string& name);
  void EnqueueServicesOfAllSlices();

  // Constant after construction.
  client::informers::InformerFactory& informers_;
  client::Clientset& client_;
  EventSink& events_;
  const EndpointSliceControllerOptions options_;
  client::informers::SharedInformer<api::core::v1::Service>& services_;
  client::informers::SharedInformer<api::core::v1::Pod>& pods_;
  client::informers::SharedInformer<api::core::v1::Node>& nodes_;
  client::informers::SharedInformer<api::discovery::v1::EndpointSlice>& slices_;
  std::vector<std::shared_ptr<client::informers::HandlerRegistration>> registrations_;
  SelectionIndexes indexes_;
  bool slice_index_ = false;

  TopologyCache topology_;
  Reconciler reconciler_;
  SliceTracker tracker_;
  TriggerTimeTracker trigger_times_;
  SliceControllerMetrics metrics_;
  std::unique_ptr<KeyQueue> queue_;
  std::unique_ptr<KeyQueue> topology_queue_;
  std::unique_ptr<KeyWorkerPool> workers_;
  std::unique_ptr<KeyWorkerPool> topology_worker_;

  std::mutex node_snapshot_mu_;
  // Null: take the list again (NodesForPlan).
  std::shared_ptr<const std::vector<std::shared_ptr<const api::core::v1::Node>>>
      node_snapshot_;  // guarded by node_snapshot_mu_
};

// "ns/name" -> {ns, name}; error for anything else.
Result<std::pair<std::string, std::string>> SplitKey(const std::string& key);

}  // namespace svcplane::controllers::endpointslice
