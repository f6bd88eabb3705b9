#pragma once

// Pure part of the node lifecycle loop (kube-controller-manager's node lifecycle controller,
// cut down to the monitor): a node whose kubelet stopped renewing its Lease for the grace period
// gets Ready=Unknown with reason NodeStatusUnknown, and its Pods' Ready condition is set False
// so that Endpoints and EndpointSlices drop them.

#include <optional>

#include "api/types.h"
#include "base/clock.h"

namespace svcplane::sim {

inline constexpr char kNodeStatusUnknown[] = "NodeStatusUnknown";

// The last time the node's kubelet showed life: the later of its Lease's renewTime and its
// Ready condition's lastHeartbeatTime. Null lease is allowed.
WallTime LastHeartbeat(const api::core::v1::Node& node, const api::coordination::v1::Lease* lease);

// True if the node has not shown life for longer than `grace` at `now`.
bool HeartbeatExpired(const api::core::v1::Node& node, const api::coordination::v1::Lease* lease,
                      WallTime now, Duration grace);

// The node's status with every condition the kubelet owns set to Unknown (reason
// NodeStatusUnknown, "Kubelet stopped posting node status."), as upstream's
// tryUpdateNodeHealth does; nullopt if it already is.
std::optional<api::core::v1::NodeStatus> UnknownStatus(const api::core::v1::Node& node,
                                                       WallTime now);

// The Pod with Ready set False (reason as upstream's MarkPodsNotReady leaves it); nullopt if it
// is not Ready already.
std::optional<api::core::v1::PodStatus> NotReadyStatus(const api::core::v1::Pod& pod, WallTime now);

}  // namespace svcplane::sim
