#include "sim/heartbeats.h"

#include <utility>

#include "sim/node_factory.h"

namespace svcplane::sim {

using api::coordination::v1::Lease;

NodeHeartbeats::NodeHeartbeats(client::ResourceClient<Lease>& leases,
                               client::ResourceClient<api::core::v1::Node>* nodes,
                               const SimOptions& opts, const Clock& clock, uint64_t seed)
    : clients_for_([&leases, nodes](const std::string&) {
        return NodeClients{&leases, nodes};
      }),
      opts_(opts),
      clock_(clock),
      queue_(client::QueueConfig{"", nullptr, &clock}),
      rng_(seed) {}

NodeHeartbeats::NodeHeartbeats(std::function<client::Clientset&(const std::string& node)> kubelet,
                               const SimOptions& opts, const Clock& clock, uint64_t seed)
    : clients_for_([kubelet = std::move(kubelet)](const std::string& node) {
        client::Clientset& cs = kubelet(node);
        return NodeClients{&cs.Leases(), &cs.Nodes()};
      }),
      opts_(opts),
      clock_(clock),
      queue_(client::QueueConfig{"", nullptr, &clock}),
      rng_(seed) {}

NodeHeartbeats::~NodeHeartbeats() { Shutdown(); }

void NodeHeartbeats::Add(const std::string& node, const std::string& zone) {
  {
    std::lock_guard<std::mutex> l(mu_);
    if (nodes_.count(node)) return;
    client::heartbeat::HeartbeatOptions o;
    o.holder_identity = node;
    o.namespace_ = kNodeLeaseNamespace;
    o.lease_duration_seconds = opts_.lease_duration_seconds;
    o.renew_interval = opts_.heartbeat_interval;
    o.clock = &clock_;
    const NodeClients clients = clients_for_(node);
    if (clients.nodes != nullptr) {
      o.new_lease_post_process = client::heartbeat::SetNodeOwner(*clients.nodes, node);
    }
    nodes_.emplace(
        node, Entry{zone, std::make_unique<client::heartbeat::LeaseHeartbeat>(*clients.leases, o)});
  }
  queue_.Add(node);  // the create: now, not at the first renewal
}

void NodeHeartbeats::Start() {
  if (started_.exchange(true)) return;
  for (int i = 0; i < std::max(1, opts_.heartbeat_workers); ++i) {
    workers_.emplace_back([this] { Work(); });
  }
}

void NodeHeartbeats::Shutdown() {
  stop_.request_stop();
  queue_.ShutDown();
  for (std::thread& t : workers_) t.join();
  workers_.clear();
}

void NodeHeartbeats::StopZone(const std::string& zone) {
  std::lock_guard<std::mutex> l(mu_);
  stopped_zones_.insert(zone);
}
void NodeHeartbeats::ResumeZone(const std::string& zone) {
  std::vector<std::string> nodes = NodesInZone(zone);
  {
    std::lock_guard<std::mutex> l(mu_);
    stopped_zones_.erase(zone);
  }
  for (const std::string& n : nodes) queue_.AddAfter(n, Duration::zero());
}
void NodeHeartbeats::StopNode(const std::string& node) {
  std::lock_guard<std::mutex> l(mu_);
  stopped_nodes_.insert(node);
}
void NodeHeartbeats::ResumeNode(const std::string& node) {
  {
    std::lock_guard<std::mutex> l(mu_);
    stopped_nodes_.erase(node);
    if (!nodes_.count(node)) return;  // not ours: nothing to renew
  }
  queue_.AddAfter(node, Duration::zero());
}

bool NodeHeartbeats::Alive(const std::string& node) const {
  std::lock_guard<std::mutex> l(mu_);
  auto it = nodes_.find(node);
  return it != nodes_.end() && !stopped_nodes_.count(node) &&
         !stopped_zones_.count(it->second.zone);
}

std::vector<std::string> NodeHeartbeats::NodesInZone(const std::string& zone) const {
  std::lock_guard<std::mutex> l(mu_);
  std::vector<std::string> out;
  for (const auto& [name, e] : nodes_) {
    if (e.zone == zone) out.push_back(name);
  }
  return out;
}

HeartbeatStats NodeHeartbeats::Stats() const {
  std::lock_guard<std::mutex> l(mu_);
  return stats_;
}

Duration NodeHeartbeats::NextInterval(const std::string& node) {
  std::lock_guard<std::mutex> l(mu_);
  auto it = nodes_.find(node);
  if (it != nodes_.end() && !std::exchange(it->second.phased, true)) {
    std::uniform_real_distribution<double> phase(0.0, 1.0);
    return std::chrono::duration_cast<Duration>(opts_.heartbeat_interval * phase(rng_));
  }
  std::uniform_real_distribution<double> jitter(1.0 - opts_.heartbeat_jitter,
                                                1.0 + opts_.heartbeat_jitter);
  return std::chrono::duration_cast<Duration>(opts_.heartbeat_interval * jitter(rng_));
}

void NodeHeartbeats::Work() {
  while (auto node = queue_.Get()) {
    Duration next = NextInterval(*node);
    if (!Alive(*node)) {
      std::lock_guard<std::mutex> l(mu_);
      ++stats_.skipped;
    } else if (Status st = Renew(*node); !st.ok()) {
      std::lock_guard<std::mutex> l(mu_);
      ++stats_.failures;
      next = std::min<Duration>(next, std::chrono::seconds(1));
    }
    queue_.Done(*node);
    queue_.AddAfter(*node, next);
  }
}

Status NodeHeartbeats::Renew(const std::string& node) {
  client::heartbeat::LeaseHeartbeat* heartbeat;
  {
    std::lock_guard<std::mutex> l(mu_);
    auto it = nodes_.find(node);
    if (it == nodes_.end()) return NotFoundError("node " + node + " is not simulated");
    heartbeat = it->second.heartbeat.get();  // entries are never removed
  }
  // Sync reports nothing; a tick renewed the Lease iff it wrote a new one.
  client::ObjectPtr<Lease> before = heartbeat->latest_lease();
  heartbeat->Sync(stop_.get_token());
  client::ObjectPtr<Lease> after = heartbeat->latest_lease();
  if (after == nullptr || after == before) {
    return UnavailableError("the Lease of node " + node + " was not renewed");
  }
  std::lock_guard<std::mutex> l(mu_);
  ++stats_.renewals;
  return Status::Ok();
}

}  // namespace svcplane::sim
