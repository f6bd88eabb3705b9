#pragma once

// The ReplicaSet controller's wiring (workloads.md §2; upstream pkg/controller/replicaset):
// ReplicaSet and Pod events become ReplicaSet keys on the rate-limited queue `replicaset`;
// workers sync each key: claim pods (adopt/release), create or delete pods towards
// spec.replicas in slow-start batches guarded by expectations, and write the status.
//
//   ReplicaSetController c(factory, clientset, events, &registry, RealClock::Get(), options);
//   factory.Start();
//   c.Run();        // returns at once; workers start when the caches have synced
//   ...
//   c.Shutdown();   // then factory.Shutdown(), then destroy both
//
// Handlers stay registered with the informers (the contract has no removal), so the factory must
// stop delivering before the controller is destroyed.

#include <chrono>
#include <climits>
#include <memory>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/metrics.h"
#include "client/informers/interface.h"
#include "client/typed/interface.h"
#include "controllers/endpointslice/event_sink.h"
#include "controllers/endpointslice/worker_pool.h"
#include "controllers/replicaset/expectations.h"
#include "controllers/replicaset/replica_set_utils.h"

namespace svcplane::controllers::replicaset {

inline constexpr char kEventComponent[] = "replicaset-controller";

// kube-controller-manager's settings for this controller, with their defaults.
struct ReplicaSetControllerOptions {
  int workers = 5;                      // --concurrent-replicaset-syncs
  int burst_replicas = kBurstReplicas;  // pods created/deleted per sync at most
  // Upstream retries without limit (every error: AddRateLimited).
  int max_retries = INT_MAX;
  Duration retry_base = std::chrono::milliseconds(5);  // client-go's default controller limiter
  Duration retry_max = std::chrono::seconds(1000);
};

class ReplicaSetController {
 public:
  // Registers handlers on the factory's ReplicaSet and Pod informers. Everything passed in must
  // outlive the controller; `metrics` (workqueue series of queue "replicaset") may be null.
  ReplicaSetController(client::informers::InformerFactory& informers, client::Clientset& client,
                       endpointslice::EventSink& events, MetricsRegistry* metrics,
                       const Clock& clock, ReplicaSetControllerOptions options);
  ~ReplicaSetController();
  ReplicaSetController(const ReplicaSetController&) = delete;
  ReplicaSetController& operator=(const ReplicaSetController&) = delete;

  // Starts `workers` sync threads (0: options.workers) and returns.
  void Run(int workers = 0);
  // Stops the queue and joins the workers. Idempotent.
  void Shutdown();

  // One sync of "ns/name" on the calling thread (what a worker does for a key).
  Status SyncForTest(const std::string& key) { return Sync(key); }
  endpointslice::KeyQueue& QueueForTest() { return *queue_; }
  Expectations& ExpectationsForTest() { return expectations_; }
  bool IdleForTest() const { return workers_->IdleForTest(); }

 private:
  using ReplicaSetPtr = client::ObjectPtr<ReplicaSet>;

  Status Sync(const std::string& key);
  bool CachesSynced() const;
  void RegisterHandlers();

  void Enqueue(const ReplicaSet& rs);
  void OnPodAdd(const PodPtr& pod);
  void OnPodUpdate(const PodPtr& old_pod, const PodPtr& pod);
  void OnPodDelete(const PodPtr& pod);
  // resolveControllerRef: the cached ReplicaSet `ref` names, if kind, name and UID match.
  ReplicaSetPtr ResolveControllerRef(const std::string& ns, const api::meta::OwnerReference& ref);
  // getPodReplicaSets: cached ReplicaSets of the pod's namespace whose (non-empty) selector
  // matches its labels.
  std::vector<ReplicaSetPtr> ReplicaSetsForPod(const Pod& pod);

  // claimPods: the active pods this ReplicaSet owns after adopting and releasing.
  Result<std::vector<PodPtr>> ClaimPods(const ReplicaSet& rs,
                                        const api::selectors::LabelSelector& selector,
                                        const std::vector<PodPtr>& active);
  Status ManageReplicas(const ReplicaSet& rs, const std::vector<PodPtr>& active);
  Status CreatePod(const ReplicaSet& rs);
  // getIndirectlyRelatedPods: pods of every ReplicaSet with this one's controller.
  std::vector<PodPtr> RelatedPods(const ReplicaSet& rs);
  // updateReplicaSetStatus: PUT /status, once more after a GET on failure.
  Result<ReplicaSetPtr> WriteStatus(const ReplicaSetPtr& rs, ReplicaSetStatus status);
  void Emit(const ReplicaSet& rs, const char* type, const char* reason, std::string message);

  // Constant after construction.
  client::Clientset& client_;
  endpointslice::EventSink& events_;
  const Clock& clock_;
  const ReplicaSetControllerOptions options_;
  client::informers::SharedInformer<ReplicaSet>& replica_sets_;
  client::informers::SharedInformer<Pod>& pods_;
  std::vector<std::shared_ptr<client::informers::HandlerRegistration>> registrations_;

  Expectations expectations_;
  std::unique_ptr<endpointslice::KeyQueue> queue_;
  std::unique_ptr<endpointslice::KeyWorkerPool> workers_;
};

}  // namespace svcplane::controllers::replicaset
