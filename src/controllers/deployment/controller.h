#pragma once

// The Deployment controller's wiring (workloads.md §3.1): Deployment, ReplicaSet and (for
// Recreate) Pod-deletion events become Deployment keys on a rate-limited queue; workers sync
// each key with a Syncer (sync.h) that reads the informer caches and writes through the
// Clientset.
//
//   DeploymentController c(factory, clientset, events, &registry, RealClock::Get(), options);
//   factory.Start();
//   c.Run(options.workers);   // returns at once; workers start when the caches have synced
//   ...
//   c.Shutdown();             // then factory.Shutdown(), then destroy both
//
// Handlers stay registered with the informers, so the factory must stop delivering before the
// controller is destroyed.

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/metrics.h"
#include "client/informers/interface.h"
#include "client/typed/interface.h"
#include "controllers/deployment/sync.h"
#include "controllers/endpointslice/event_sink.h"
#include "controllers/endpointslice/worker_pool.h"

namespace svcplane::controllers::deployment {

// kube-controller-manager's settings for this controller, with their defaults.
struct DeploymentControllerOptions {
  int workers = 5;  // --concurrent-deployment-syncs
  int max_retries = 15;
  Duration retry_base = std::chrono::milliseconds(5);  // client-go's default controller limiter
  Duration retry_max = std::chrono::seconds(1000);
};

class DeploymentController {
 public:
  // Registers handlers on the factory's Deployment, ReplicaSet and Pod informers. Everything
  // passed in must outlive the controller; `metrics` (workqueue series) may be null.
  DeploymentController(client::informers::InformerFactory& informers, client::Clientset& client,
                       endpointslice::EventSink& events, MetricsRegistry* metrics,
                       const Clock& clock, DeploymentControllerOptions options);
  ~DeploymentController();
  DeploymentController(const DeploymentController&) = delete;
  DeploymentController& operator=(const DeploymentController&) = delete;

  // Starts `workers` sync threads (0: options.workers) once the caches have synced; returns.
  void Run(int workers = 0);
  // Stops the queue and joins the workers. Idempotent.
  void Shutdown();

  Status SyncForTest(const std::string& key) { return Sync(key); }
  endpointslice::KeyQueue& QueueForTest() { return *queue_; }
  bool IdleForTest() const { return workers_->IdleForTest(); }
  bool CachesSyncedForTest() const { return CachesSynced(); }

 private:
  Status Sync(const std::string& key);
  bool CachesSynced() const;
  void RegisterHandlers();
  void Enqueue(const api::meta::ObjectMeta& deployment);
  // The Deployment a controller reference names, if it is in the cache with that UID.
  DeploymentPtr ResolveControllerRef(const std::string& ns,
                                     const api::meta::OwnerReference& ref) const;
  // Deployments whose (non-empty) selector matches an orphan ReplicaSet's labels.
  std::vector<DeploymentPtr> DeploymentsForReplicaSet(const ReplicaSet& rs) const;
  void OnReplicaSetAdd(const RSPtr& rs);
  void OnReplicaSetUpdate(const RSPtr& old_rs, const RSPtr& rs);
  void OnReplicaSetDelete(const RSPtr& rs);
  void OnPodDelete(const PodPtr& pod);

  const DeploymentControllerOptions options_;
  client::informers::SharedInformer<Deployment>& deployments_;
  client::informers::SharedInformer<ReplicaSet>& replica_sets_;
  client::informers::SharedInformer<api::core::v1::Pod>& pods_;
  std::vector<std::shared_ptr<client::informers::HandlerRegistration>> registrations_;

  std::unique_ptr<Cluster> cluster_;
  std::unique_ptr<Syncer> syncer_;
  std::unique_ptr<endpointslice::KeyQueue> queue_;
  std::unique_ptr<endpointslice::KeyWorkerPool> workers_;
};

}  // namespace svcplane::controllers::deployment
