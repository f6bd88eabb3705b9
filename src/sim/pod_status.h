#pragma once

// Pure helpers of the kubelet stand-in: the status a simulated kubelet reports for a Pod.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "api/types.h"
#include "base/clock.h"
#include "base/result.h"
#include "sim/node_factory.h"

namespace svcplane::sim {

// The condition of `type` in `pod`'s status, or null.
const api::core::v1::PodCondition* FindCondition(const api::core::v1::Pod& pod,
                                                 std::string_view type);
bool IsPodReady(const api::core::v1::Pod& pod);

// The kubelet stand-in's first stage: the Pod is placed (startTime, hostIP(s), podIP(s)) and its
// containers are being created: phase Pending, containers waiting with reason
// ContainerCreating, PodScheduled/Initialized True, Ready/ContainersReady False
// (ContainersNotReady). As kwok's pod-create stage.
api::core::v1::PodStatus CreatingStatus(const api::core::v1::Pod& pod, std::string_view host_ip,
                                        std::string_view pod_ip, WallTime now);

// The status of a Pod whose containers run on a node: phase Running, hostIP(s), podIP(s),
// containerStatuses, and PodScheduled/Initialized/ContainersReady/Ready conditions.
// `ready` is the node's and the containers' health; readiness gates whose condition is not
// True in `pod` keep Ready False (containers stay ready), as the kubelet does.
// Transition times of conditions whose status did not change are kept, and so is the time the
// containers started running, so rewriting the same status later changes nothing.
api::core::v1::PodStatus RunningStatus(const api::core::v1::Pod& pod, std::string_view host_ip,
                                       std::string_view pod_ip, bool ready, WallTime now);

// True if writing `want` over `have` would change what a reader sees (ignores timestamps of
// unchanged conditions, which RunningStatus keeps anyway).
bool StatusDiffers(const api::core::v1::PodStatus& have, const api::core::v1::PodStatus& want);

// Pod IPs from one node's podCIDR. Skips the network address, the gateway (.1) and the
// broadcast address. Not thread-safe: the simulator guards it.
class PodIpPool {
 public:
  explicit PodIpPool(Ipv4Cidr cidr) : cidr_(cidr) {}
  // Returns the IP of `pod_uid`, assigning the lowest free one on first use;
  // UnavailableError when the range is full.
  Result<std::string> Assign(const std::string& pod_uid);
  // Records an IP the Pod already has (after a restart); ignored if outside the range or taken.
  void Reserve(const std::string& pod_uid, std::string_view ip);
  void Release(const std::string& pod_uid);
  size_t InUse() const { return by_uid_.size(); }

 private:
  Ipv4Cidr cidr_;
  std::vector<bool> used_;  // by offset
  std::unordered_map<std::string, uint32_t> by_uid_;
  uint32_t next_ = 2;  // first offset to try
};

}  // namespace svcplane::sim
