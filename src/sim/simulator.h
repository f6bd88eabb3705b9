#pragma once

// svcplane's kwok: simulated Nodes, their Leases, a scheduler and a kubelet stand-in for the
// Pods bound to them, and the node lifecycle monitor that marks silent nodes and their Pods not
// ready. It is a client like any other: everything goes through a Clientset and informers, so
// the same code runs inside `svcplane serve --simulate-nodes N` (loopback client) and in
// `svcplane simulate --kubeconfig FILE` against any server.
//
// Wiring: construct (registers handlers and indexers on the factory's Pod, Node and Lease
// informers), start the factory, then Start(). Shutdown stops the simulator's threads. The
// informer interface cannot remove handlers, so shut the factory down before destroying the
// Simulator.
//
// Binding: as kube-scheduler, through the pods/binding subresource (ClientBinder: one write, the
// Pod keeps its UID). Against a server without it (Kubernetes forbids changing spec.nodeName by
// update) the binder falls back to recreating the unscheduled Pod with spec.nodeName set
// (RecreateBinder: delete with its UID as precondition and grace 0, then create; name, labels
// and spec are kept, the UID changes).

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "base/clock.h"
#include "client/delaying_queue.h"
#include "client/informers/interface.h"
#include "client/record/event_broadcaster.h"
#include "client/typed/interface.h"
#include "sim/heartbeats.h"
#include "sim/pod_status.h"
#include "sim/pod_timing.h"
#include "sim/scheduling.h"
#include "sim/sim_options.h"

namespace svcplane::sim {

// Puts an unscheduled Pod on a node. Returns the error of the write that failed.
class Binder {
 public:
  virtual ~Binder() = default;
  virtual Status Bind(const api::core::v1::Pod& pod, const std::string& node_name) = 0;
};

// See the header comment.
class RecreateBinder final : public Binder {
 public:
  explicit RecreateBinder(client::Clientset& cs) : cs_(cs) {}
  Status Bind(const api::core::v1::Pod& pod, const std::string& node_name) override;

 private:
  client::Clientset& cs_;
};

// pods/binding through Clientset::BindPod, with the Pod's UID as precondition. Switches to
// RecreateBinder for good the first time the server (or clientset) shows it does not serve the
// subresource: MethodNotAllowed, or NotFound with the API's generic "could not find the requested
// resource" (a missing Pod is `pods "x" not found`). Safe from any thread.
class ClientBinder final : public Binder {
 public:
  explicit ClientBinder(client::Clientset& cs) : cs_(cs), fallback_(cs) {}
  Status Bind(const api::core::v1::Pod& pod, const std::string& node_name) override;
  // Whether the fallback is in use (tests, logs).
  bool recreating() const { return unsupported_.load(std::memory_order_relaxed); }

 private:
  client::Clientset& cs_;
  RecreateBinder fallback_;
  std::atomic<bool> unsupported_{false};
};

struct SimStats {
  int64_t nodes_registered = 0;
  int64_t pods_bound = 0;
  int64_t pod_status_writes = 0;
  int64_t pods_deleted = 0;
  int64_t nodes_marked_unknown = 0;
  int64_t pods_marked_not_ready = 0;
  int64_t killing_events = 0;       // one per container of each Pod seen terminating
  int64_t invalid_annotations = 0;  // Pods whose ready-after annotation was ignored
  int64_t write_errors = 0;
  HeartbeatStats heartbeats;
};

// `kubectl annotate node NAME sim.svcplane.io/heartbeats=stopped` kills a simulated node's
// kubelet (no Lease renewals, no Pod status) until the annotation is removed or changed: the
// "what happens when a node dies" demo, in-process or standalone, without a control channel.
inline constexpr char kHeartbeatsAnnotation[] = "sim.svcplane.io/heartbeats";

// Index of Pods by spec.nodeName added to the Pod informer.
inline constexpr char kPodNodeIndex[] = "sim.svcplane.io/node";

// Whom each part of the simulator acts as (in-process: the upstream identities, see
// cmd/component_clients.h). Unset: the Simulator's one client, as `svcplane simulate
// --kubeconfig` runs with one credential like kwok.
struct SimClients {
  client::Clientset* scheduler = nullptr;       // binds Pods (system:kube-scheduler)
  client::Clientset* node_lifecycle = nullptr;  // marks silent nodes and their Pods
  // A node's kubelet: registers the Node, renews its Lease, writes its Pods' status and Events,
  // deletes them once terminated (system:node:<name>).
  std::function<client::Clientset&(const std::string& node)> kubelet;
};

class Simulator {
 public:
  // `cs` reads (the informers are the caller's) and, unless `clients` says otherwise, writes.
  Simulator(client::Clientset& cs, client::informers::InformerFactory& informers, SimOptions opts,
            const Clock& clock = RealClock::Get(), std::unique_ptr<Binder> binder = nullptr,
            SimClients clients = {});
  ~Simulator();
  Simulator(const Simulator&) = delete;
  Simulator& operator=(const Simulator&) = delete;

  // Registers (or adopts, when they exist and carry kwok's annotation) the N Nodes, then starts
  // heartbeats, workers and the lifecycle loop. Returns the first registration error; a Node of
  // that name that is not simulated is an AlreadyExists error.
  Status Start();
  void Shutdown();

  // Dead kubelets for tests and demos: Lease renewals of a zone (or node) stop until resumed;
  // the kubelet stand-in stops acting for those nodes too.
  void StopHeartbeats(const std::string& zone);
  void ResumeHeartbeats(const std::string& zone);
  void StopNodeHeartbeats(const std::string& node);
  void ResumeNodeHeartbeats(const std::string& node);

  // One pass of the node lifecycle monitor now (the loop runs it every node_monitor_period).
  void MonitorNodesForTest() { MonitorNodes(); }
  SimStats Stats() const;
  const std::vector<std::string>& node_names() const { return node_names_; }

 private:
  using Pod = api::core::v1::Pod;
  using Node = api::core::v1::Node;

  void RegisterHandlers();
  Status RegisterNodes();
  void Work();
  void SyncPod(const std::string& key);
  void SyncNode(const std::string& name);
  void Schedule(const client::ObjectPtr<Pod>& pod, const std::string& key);
  void RunKubelet(const client::ObjectPtr<Pod>& pod, const Node& node, const std::string& key);
  void Terminate(const client::ObjectPtr<Pod>& pod, const std::string& key);
  // The kubelet's `Killing` Events ("Stopping container <name>"), one per container.
  void RecordKilling(const Pod& pod);
  void MonitorLoop();
  void MonitorNodes();
  void EnqueuePodsOn(const std::string& node);
  void ApplyHeartbeatAnnotation(const Node& node);
  std::vector<client::ObjectPtr<Node>> NodeSnapshot();
  void CountError(const Status& st);

  client::Clientset& Kubelet(const std::string& node) { return kubelet_ ? kubelet_(node) : cs_; }
  // The Event recorder of `node`'s kubelet (source kubelet/<node>), made on first use.
  client::record::EventRecorder& KubeletRecorder(const std::string& node);

  client::Clientset& cs_;
  client::Clientset& node_lifecycle_;
  const std::function<client::Clientset&(const std::string& node)> kubelet_;
  client::informers::InformerFactory& informers_;
  const SimOptions opts_;
  const Clock& clock_;
  std::unique_ptr<Binder> binder_;
  NodeHeartbeats heartbeats_;
  // Keys: "p/<ns>/<name>" for Pods, "n/<name>" for Nodes.
  client::DelayingQueue<std::string> queue_;
  // Every kubelet's Events go through one broadcaster (one thread), each written by the
  // kubelet of the node it names as source.host.
  std::unique_ptr<client::record::EventSink> event_sink_;
  std::unique_ptr<client::record::EventBroadcaster> events_;
  std::vector<std::string> node_names_;  // constant after Start

  mutable std::mutex mu_;
  PodPlacer placer_;                                         // guarded by mu_
  std::unordered_map<std::string, PodIpPool> ip_pools_;      // by node; guarded by mu_
  std::unordered_map<std::string, TimePoint> bound_seen_;    // by pod key; guarded by mu_
  std::unordered_map<std::string, TimePoint> terminate_at_;  // by pod key; guarded by mu_
  std::vector<client::ObjectPtr<Node>> node_snapshot_;       // guarded by mu_
  bool node_snapshot_stale_ = true;                          // guarded by mu_
  std::unordered_set<std::string> annotation_stopped_;       // guarded by mu_
  SimStats stats_;                                           // guarded by mu_
  // By node; guarded by mu_. Destroyed before events_ (declared after it).
  std::unordered_map<std::string, std::unique_ptr<client::record::EventRecorder>> recorders_;

  std::vector<std::thread> threads_;
  std::mutex stop_mu_;
  std::condition_variable stop_cv_;
  bool stopping_ = false;  // guarded by stop_mu_
  std::atomic<bool> started_{false};
};

}  // namespace svcplane::sim
