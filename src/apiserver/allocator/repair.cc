#include "apiserver/allocator/repair.h"

#include <spdlog/spdlog.h>

#include <set>

namespace svcplane::apiserver::allocator {

using api::core::v1::Service;

namespace {

constexpr int kMaxRunAttempts = 8;

bool Retriable(const Status& st) {
  return st.code() == Code::kConflict || st.code() == Code::kAlreadyExists ||
         st.code() == Code::kNotFound;
}

// The leak bookkeeping both loops share: entries left in `stored` are unused.
template <typename Describe>
void CheckLeaked(const Bitmap& stored, Bitmap& rebuilt, std::map<size_t, int>& leaks,
                 Describe describe) {
  stored.ForEach([&](size_t offset) {
    auto it = leaks.find(offset);
    int count = it == leaks.end() ? kRepairsBeforeLeakCleanup - 1 : it->second;
    if (it == leaks.end()) {
      spdlog::warn("the {} may have leaked: flagging for later clean up", describe(offset));
    }
    if (count > 0) {
      leaks[offset] = count - 1;  // pretend it is in use until the count runs out
      rebuilt.Allocate(offset);
    } else {
      spdlog::warn("the {} appears to have leaked: cleaning up", describe(offset));
      leaks.erase(offset);
    }
  });
}

}  // namespace

ClusterIpRepair::ClusterIpRepair(std::vector<IpAllocator*> allocators, ListServicesFn list,
                                 EventSinkFn sink)
    : allocators_(std::move(allocators)),
      list_(std::move(list)),
      sink_(std::move(sink)),
      leaks_(allocators_.size()) {}

Status ClusterIpRepair::RunOnce() {
  Status st;
  for (int attempt = 0; attempt < kMaxRunAttempts; ++attempt) {
    st = TryOnce();
    if (!Retriable(st)) return st;
  }
  return st;
}

Status ClusterIpRepair::TryOnce() {
  // The snapshot first, then the Services: an allocation in between makes the write conflict,
  // and a Service created after the list shows as a leak, which the grace of runs forgives.
  std::vector<RangeSnapshot> stored;
  for (IpAllocator* a : allocators_) {
    auto snap = a->stored().Read();
    if (!snap.ok()) return snap.status();
    stored.push_back(std::move(*snap));
  }
  auto services = list_();
  if (!services.ok()) {
    return Status(services.status().code(),
                  "unable to refresh the service IP block: " + services.status().message());
  }
  std::vector<Bitmap> rebuilt;
  for (IpAllocator* a : allocators_) {
    rebuilt.emplace_back(a->cidr().Size(), a->cidr().BandOffset());
  }
  for (const Service& svc : *services) {
    const auto& spec = svc.spec;
    if (spec.cluster_ip.empty() || spec.cluster_ip == "None") continue;
    std::vector<std::string> ips = spec.cluster_ips;
    if (ips.empty()) ips.push_back(spec.cluster_ip);
    for (const std::string& text : ips) {
      auto ip = ParseIp(text);
      if (!ip) {
        sink_(svc, kIpRepairComponent, "ClusterIPNotValid",
              "Cluster IP " + text + " is not a valid IP; please recreate service");
        continue;
      }
      size_t i = 0;
      while (i < allocators_.size() && allocators_[i]->family() != FamilyOf(text)) ++i;
      if (i == allocators_.size()) {
        sink_(svc, kIpRepairComponent, "ClusterIPNotValid",
              "Cluster IP " + text + "(" + std::string(FamilyOf(text)) +
                  ") is of ip family that is no longer configured on cluster; please recreate "
                  "service");
        continue;
      }
      const CidrRange& cidr = allocators_[i]->cidr();
      auto offset = cidr.OffsetOf(*ip);
      if (!offset) {
        sink_(svc, kIpRepairComponent, "ClusterIPOutOfRange",
              "Cluster IP " + text + " is not within the service CIDR " + cidr.text() +
                  "; please recreate service");
        continue;
      }
      if (!rebuilt[i].Allocate(*offset)) {
        sink_(svc, kIpRepairComponent, "ClusterIPAlreadyAllocated",
              "Cluster IP " + text + " was assigned to multiple services; please recreate service");
        continue;
      }
      if (stored[i].map.Has(*offset)) {
        stored[i].map.Release(*offset);  // what remains in `stored` afterwards is unused
      } else {
        spdlog::warn("the cluster IP {} for service {}/{} is not allocated; repairing", text,
                     svc.metadata.namespace_, svc.metadata.name);
        sink_(svc, kIpRepairComponent, "ClusterIPNotAllocated",
              "Cluster IP " + text + " is not allocated; repairing");
      }
      leaks_[i].erase(*offset);
    }
  }
  for (size_t i = 0; i < allocators_.size(); ++i) {
    const CidrRange& cidr = allocators_[i]->cidr();
    CheckLeaked(stored[i].map, rebuilt[i], leaks_[i],
                [&](size_t off) { return "cluster IP " + FormatIp(cidr.At(off)); });
    Status st = allocators_[i]->stored().Write(rebuilt[i], stored[i].revision);
    if (!st.ok()) {
      if (Retriable(st)) return st;
      return Status(st.code(),
                    "unable to persist the updated service IP allocations: " + st.message());
    }
  }
  return Status::Ok();
}

NodePortRepair::NodePortRepair(PortAllocator* allocator, ListServicesFn list, EventSinkFn sink)
    : allocator_(allocator), list_(std::move(list)), sink_(std::move(sink)) {}

Status NodePortRepair::RunOnce() {
  Status st;
  for (int attempt = 0; attempt < kMaxRunAttempts; ++attempt) {
    st = TryOnce();
    if (!Retriable(st)) return st;
  }
  return st;
}

// The node ports a Service counts for: one per (port, protocol) pair, so the same port on TCP
// and UDP counts once and twice on one protocol is a duplicate; healthCheckNodePort counts
// unless seen only with other protocols (upstream's collectServiceNodePorts).
static std::vector<int> CountedPorts(const Service& svc) {
  std::map<int, std::set<std::string>> protocols;
  std::vector<int> out;
  for (const auto& p : svc.spec.ports) {
    if (p.node_port == 0) continue;
    auto& seen = protocols[p.node_port];
    if (seen.empty() || seen.count(p.protocol)) out.push_back(p.node_port);
    seen.insert(p.protocol);
  }
  int hc = svc.spec.health_check_node_port;
  if (hc != 0) {
    auto it = protocols.find(hc);
    if (it == protocols.end() || it->second.count("TCP")) out.push_back(hc);
  }
  return out;
}

Status NodePortRepair::TryOnce() {
  auto snap = allocator_->stored().Read();
  if (!snap.ok()) return snap.status();
  auto services = list_();
  if (!services.ok()) {
    return Status(services.status().code(),
                  "unable to refresh the port block: " + services.status().message());
  }
  const PortRange& range = allocator_->range();
  Bitmap rebuilt(range.Size(), range.BandOffset());
  for (const Service& svc : *services) {
    for (int port : CountedPorts(svc)) {
      std::string p = std::to_string(port);
      auto offset = range.OffsetOf(port);
      if (!offset) {
        sink_(svc, kPortRepairComponent, "PortOutOfRange",
              "Port " + p + " is not within the port range " + range.text() +
                  "; please recreate service");
        continue;
      }
      if (!rebuilt.Allocate(*offset)) {
        sink_(svc, kPortRepairComponent, "PortAlreadyAllocated",
              "Port " + p + " was assigned to multiple services; please recreate service");
        continue;
      }
      if (snap->map.Has(*offset)) {
        snap->map.Release(*offset);
      } else {
        spdlog::warn("the node port {} for service {}/{} is not allocated; repairing", port,
                     svc.metadata.namespace_, svc.metadata.name);
        sink_(svc, kPortRepairComponent, "PortNotAllocated",
              "Port " + p + " is not allocated; repairing");
      }
      leaks_.erase(*offset);
    }
  }
  CheckLeaked(snap->map, rebuilt, leaks_,
              [&](size_t off) { return "node port " + std::to_string(range.At(off)); });
  Status st = allocator_->stored().Write(rebuilt, snap->revision);
  if (!st.ok() && !Retriable(st)) {
    return Status(st.code(), "unable to persist the updated port allocations: " + st.message());
  }
  return st;
}

RepairLoop::RepairLoop(const Clock& clock, Duration interval, std::function<Status()> pass)
    : clock_(clock), interval_(interval), pass_(std::move(pass)) {}

RepairLoop::~RepairLoop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void RepairLoop::Start() {
  thread_ = std::thread([this] { Loop(); });
}

Status RepairLoop::RunNow() {
  std::lock_guard<std::mutex> lock(run_mu_);
  return pass_();
}

void RepairLoop::Loop() {
  while (true) {
    {
      std::unique_lock<std::mutex> lock(mu_);
      if (clock_.WaitUntil(lock, cv_, clock_.Now() + interval_, [this] { return stop_; })) {
        return;
      }
    }
    if (Status st = RunNow(); !st.ok()) {
      spdlog::error("allocation repair: {}", st.message());
    }
  }
}

}  // namespace svcplane::apiserver::allocator
