#pragma once

// Node Lease renewal for many simulated nodes at once: one DelayingQueue (a single timer
// thread holding every node's next renewal) feeds a few workers, so 5,000 nodes cost 5,000
// timer entries and no thread each. Each due renewal is one tick (Sync) of that node's
// client/heartbeat LeaseHeartbeat, the kubelet's lease controller: an Update of the cached Lease,
// Get/Create on conflict or absence, ownerReferences to the Node. Heartbeats of a zone or a node
// can be stopped to simulate dead kubelets.

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <random>
#include <stop_token>
#include <string>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "base/clock.h"
#include "client/delaying_queue.h"
#include "client/heartbeat/lease_heartbeat.h"
#include "client/typed/interface.h"
#include "sim/sim_options.h"

namespace svcplane::sim {

struct HeartbeatStats {
  int64_t renewals = 0;  // successful Lease writes
  int64_t failures = 0;  // failed attempts (retried after a second)
  int64_t skipped = 0;   // due while stopped
};

// Safe from any thread.
class NodeHeartbeats {
 public:
  // `nodes` (optional) lets each Lease be owned by its Node, as the kubelet sets it.
  NodeHeartbeats(client::ResourceClient<api::coordination::v1::Lease>& leases,
                 client::ResourceClient<api::core::v1::Node>* nodes, const SimOptions& opts,
                 const Clock& clock, uint64_t seed);
  // Each node's Lease written with that node's own client (a kubelet's credential).
  NodeHeartbeats(std::function<client::Clientset&(const std::string& node)> kubelet,
                 const SimOptions& opts, const Clock& clock, uint64_t seed);
  ~NodeHeartbeats();

  // Registers a node. Its Lease is created at once, as a kubelet creates it right after
  // registering its Node; the first renewal then comes at a random point of the first interval,
  // so the renewals of many nodes registered together spread evenly. Call before or after
  // Start (before, the create waits for Start).
  void Add(const std::string& node, const std::string& zone);
  void Start();
  void Shutdown();

  // Dead kubelets: renewals of the zone (or node) stop until resumed.
  void StopZone(const std::string& zone);
  void ResumeZone(const std::string& zone);
  void StopNode(const std::string& node);
  void ResumeNode(const std::string& node);
  bool Alive(const std::string& node) const;
  std::vector<std::string> NodesInZone(const std::string& zone) const;

  // Renews `node` now on the calling thread (what a worker does).
  Status RenewForTest(const std::string& node) { return Renew(node); }
  HeartbeatStats Stats() const;

 private:
  struct Entry {
    std::string zone;
    std::unique_ptr<client::heartbeat::LeaseHeartbeat> heartbeat;
    bool phased = false;  // the first wait after the create, a random phase, was drawn
  };

  void Work();
  Status Renew(const std::string& node);
  // The wait before `node`'s next renewal: a random phase after the create, then the interval
  // with jitter.
  Duration NextInterval(const std::string& node);

  struct NodeClients {
    client::ResourceClient<api::coordination::v1::Lease>* leases;
    client::ResourceClient<api::core::v1::Node>* nodes;  // may be null
  };
  const std::function<NodeClients(const std::string& node)> clients_for_;
  const SimOptions opts_;
  const Clock& clock_;
  client::DelayingQueue<std::string> queue_;

  mutable std::mutex mu_;
  std::unordered_map<std::string, Entry> nodes_;   // guarded by mu_
  std::unordered_set<std::string> stopped_zones_;  // guarded by mu_
  std::unordered_set<std::string> stopped_nodes_;  // guarded by mu_
  std::mt19937_64 rng_;                            // guarded by mu_
  HeartbeatStats stats_;                           // guarded by mu_
  std::stop_source stop_;                          // ends a tick's backoff at shutdown
  std::vector<std::thread> workers_;
  std::atomic<bool> started_{false};
};

}  // namespace svcplane::sim
