#include "sim/node_lifecycle.h"

#include <algorithm>

#include "sim/node_factory.h"

namespace svcplane::sim {

namespace core = api::core::v1;

WallTime LastHeartbeat(const core::Node& node, const api::coordination::v1::Lease* lease) {
  WallTime last{};
  for (const core::NodeCondition& c : node.status.conditions) {
    if (c.type == "Ready" && c.last_heartbeat_time.set) {
      last = WallTime{} + std::chrono::seconds(c.last_heartbeat_time.unix_seconds);
    }
  }
  if (lease != nullptr && lease->spec.renew_time && lease->spec.renew_time->set) {
    last = std::max(last, FromMicroTime(*lease->spec.renew_time));
  }
  return last;
}

bool HeartbeatExpired(const core::Node& node, const api::coordination::v1::Lease* lease,
                      WallTime now, Duration grace) {
  return now - LastHeartbeat(node, lease) > grace;
}

std::optional<core::NodeStatus> UnknownStatus(const core::Node& node, WallTime now) {
  core::NodeStatus s = node.status;
  const api::meta::Time t = ToTime(now);
  bool changed = false;
  bool has_ready = false;
  for (core::NodeCondition& c : s.conditions) {
    has_ready = has_ready || c.type == "Ready";
    if (c.status == "Unknown") continue;
    c.status = "Unknown";
    c.reason = kNodeStatusUnknown;
    c.message = "Kubelet stopped posting node status.";
    c.last_transition_time = t;
    changed = true;
  }
  if (!has_ready) {
    core::NodeCondition ready;
    ready.type = "Ready";
    ready.status = "Unknown";
    ready.reason = kNodeStatusUnknown;
    ready.message = "Kubelet never posted node status.";
    ready.last_heartbeat_time = t;
    ready.last_transition_time = t;
    s.conditions.push_back(ready);
    changed = true;
  }
  if (!changed) return std::nullopt;
  return s;
}

std::optional<core::PodStatus> NotReadyStatus(const core::Pod& pod, WallTime now) {
  core::PodStatus s = pod.status;
  bool changed = false;
  for (core::PodCondition& c : s.conditions) {
    if (c.type != "Ready" || c.status == "False") continue;
    c.status = "False";
    c.last_transition_time = ToTime(now);
    c.rest->reason = "NodeNotReady";  // node lifecycle controller's wording
    c.rest->message = "";
    changed = true;
  }
  if (!changed) return std::nullopt;
  return s;
}

}  // namespace svcplane::sim
