#include "sim/heartbeats.h"

#include "client/errors.h"
#include "sim/node_factory.h"

namespace svcplane::sim {

using api::coordination::v1::Lease;

NodeHeartbeats::NodeHeartbeats(client::ResourceClient<Lease>& leases, const SimOptions& opts,
                               const Clock& clock, uint64_t seed)
    : leases_(leases),
      opts_(opts),
      clock_(clock),
      queue_(client::QueueConfig{"", nullptr, &clock}),
      rng_(seed) {}

NodeHeartbeats::~NodeHeartbeats() { Shutdown(); }

void NodeHeartbeats::Add(const std::string& node, const std::string& zone) {
  Duration first;
  {
    std::lock_guard<std::mutex> l(mu_);
    if (!nodes_.emplace(node, Entry{zone, nullptr}).second) return;
    std::uniform_real_distribution<double> phase(0.0, 1.0);
    first = std::chrono::duration_cast<Duration>(opts_.heartbeat_interval * phase(rng_));
  }
  queue_.AddAfter(node, first);
}

void NodeHeartbeats::Start() {
  if (started_.exchange(true)) return;
  for (int i = 0; i < std::max(1, opts_.heartbeat_workers); ++i) {
    workers_.emplace_back([this] { Work(); });
  }
}

void NodeHeartbeats::Shutdown() {
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

Duration NodeHeartbeats::NextInterval() {
  std::lock_guard<std::mutex> l(mu_);
  std::uniform_real_distribution<double> jitter(1.0 - opts_.heartbeat_jitter,
                                                1.0 + opts_.heartbeat_jitter);
  return std::chrono::duration_cast<Duration>(opts_.heartbeat_interval * jitter(rng_));
}

void NodeHeartbeats::Work() {
  while (auto node = queue_.Get()) {
    Duration next = NextInterval();
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
  std::shared_ptr<const Lease> latest;
  {
    std::lock_guard<std::mutex> l(mu_);
    auto it = nodes_.find(node);
    if (it == nodes_.end()) return NotFoundError("node " + node + " is not simulated");
    latest = it->second.latest;
  }
  const WallTime now = clock_.WallNow();
  Result<client::ObjectPtr<Lease>> written = NotFoundError("");
  if (latest) {
    Lease next = *latest;
    next.spec.renew_time = ToMicroTime(now);
    written = leases_.Update(next);
  }
  if (!latest || client::IsConflict(written.status()) || client::IsNotFound(written.status())) {
    auto cur = leases_.Get(kNodeLeaseNamespace, node);
    if (cur.ok()) {
      Lease next = **cur;
      next.spec.renew_time = ToMicroTime(now);
      next.spec.holder_identity = node;
      next.spec.lease_duration_seconds = opts_.lease_duration_seconds;
      written = leases_.Update(next);
    } else if (client::IsNotFound(cur.status())) {
      written = leases_.Create(MakeNodeLease(opts_, node, now));
    } else {
      written = cur.status();
    }
  }
  if (!written.ok()) return written.status();
  std::lock_guard<std::mutex> l(mu_);
  nodes_[node].latest = *written;
  ++stats_.renewals;
  return Status::Ok();
}

}  // namespace svcplane::sim
