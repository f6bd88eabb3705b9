#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "api/meta/types.h"

namespace svcplane::api::core::v1 {

using meta::F;
using meta::kAlways;
using meta::kOmitEmpty;
using meta::Tag;

// ResourceList: {"cpu": "4", "memory": "16318360Ki", "pods": "110"}.
using ResourceList = std::map<std::string, meta::Quantity, std::less<>>;

struct Taint {
  std::string key;
  std::string value;
  std::string effect;
  std::optional<meta::Time> time_added;
  meta::UnknownFields unknown;
  bool operator==(const Taint&) const = default;
};
constexpr auto FieldsOf(Tag<Taint>) {
  using T = Taint;
  return std::make_tuple(F("key", &T::key, kAlways, 1), F("value", &T::value, kOmitEmpty, 2),
                         F("effect", &T::effect, kAlways, 3),
                         F("timeAdded", &T::time_added, kOmitEmpty, 4));
}

struct NodeSpec {
  std::string pod_cidr;
  std::vector<std::string> pod_cidrs;
  std::string provider_id;
  bool unschedulable = false;
  std::vector<Taint> taints;
  meta::UnknownFields unknown;
  bool operator==(const NodeSpec&) const = default;
};
constexpr auto FieldsOf(Tag<NodeSpec>) {
  using T = NodeSpec;
  return std::make_tuple(
      F("podCIDR", &T::pod_cidr, kOmitEmpty, 1), F("podCIDRs", &T::pod_cidrs, kOmitEmpty, 7),
      F("providerID", &T::provider_id, kOmitEmpty, 3),
      F("unschedulable", &T::unschedulable, kOmitEmpty, 4), F("taints", &T::taints, kOmitEmpty, 5));
}

struct NodeCondition {
  std::string type;
  std::string status;
  meta::Time last_heartbeat_time;
  meta::Time last_transition_time;
  std::string reason;
  std::string message;
  meta::UnknownFields unknown;
  bool operator==(const NodeCondition&) const = default;
};
constexpr auto FieldsOf(Tag<NodeCondition>) {
  using T = NodeCondition;
  return std::make_tuple(F("type", &T::type, kAlways, 1), F("status", &T::status, kAlways, 2),
                         F("lastHeartbeatTime", &T::last_heartbeat_time, kAlways, 3),
                         F("lastTransitionTime", &T::last_transition_time, kAlways, 4),
                         F("reason", &T::reason, kOmitEmpty, 5),
                         F("message", &T::message, kOmitEmpty, 6));
}

struct NodeAddress {
  std::string type;
  std::string address;
  meta::UnknownFields unknown;
  bool operator==(const NodeAddress&) const = default;
};
constexpr auto FieldsOf(Tag<NodeAddress>) {
  return std::make_tuple(F("type", &NodeAddress::type, kAlways, 1),
                         F("address", &NodeAddress::address, kAlways, 2));
}

struct DaemonEndpoint {
  int32_t port = 0;
  meta::UnknownFields unknown;
  bool operator==(const DaemonEndpoint&) const = default;
};
constexpr auto FieldsOf(Tag<DaemonEndpoint>) {
  return std::make_tuple(F("Port", &DaemonEndpoint::port, kAlways, 1));
}

struct NodeDaemonEndpoints {
  DaemonEndpoint kubelet_endpoint;
  meta::UnknownFields unknown;
  bool operator==(const NodeDaemonEndpoints&) const = default;
};
constexpr auto FieldsOf(Tag<NodeDaemonEndpoints>) {
  return std::make_tuple(F("kubeletEndpoint", &NodeDaemonEndpoints::kubelet_endpoint, kAlways, 1));
}

struct NodeSystemInfo {
  std::string machine_id, system_uuid, boot_id, kernel_version, os_image;
  std::string container_runtime_version, kubelet_version, kube_proxy_version;
  std::string operating_system, architecture;
  meta::UnknownFields unknown;
  bool operator==(const NodeSystemInfo&) const = default;
};
constexpr auto FieldsOf(Tag<NodeSystemInfo>) {
  using T = NodeSystemInfo;
  return std::make_tuple(
      F("machineID", &T::machine_id, kAlways, 1), F("systemUUID", &T::system_uuid, kAlways, 2),
      F("bootID", &T::boot_id, kAlways, 3), F("kernelVersion", &T::kernel_version, kAlways, 4),
      F("osImage", &T::os_image, kAlways, 5),
      F("containerRuntimeVersion", &T::container_runtime_version, kAlways, 6),
      F("kubeletVersion", &T::kubelet_version, kAlways, 7),
      F("kubeProxyVersion", &T::kube_proxy_version, kAlways, 8),
      F("operatingSystem", &T::operating_system, kAlways, 9),
      F("architecture", &T::architecture, kAlways, 10));
}

struct NodeStatus {
  ResourceList capacity;
  ResourceList allocatable;
  std::string phase;
  std::vector<NodeCondition> conditions;
  std::vector<NodeAddress> addresses;
  NodeDaemonEndpoints daemon_endpoints;
  NodeSystemInfo node_info;
  std::vector<meta::RawJson> images;
  meta::UnknownFields unknown;
  bool operator==(const NodeStatus&) const = default;
};
constexpr auto FieldsOf(Tag<NodeStatus>) {
  using T = NodeStatus;
  return std::make_tuple(
      F("capacity", &T::capacity, kOmitEmpty, 1), F("allocatable", &T::allocatable, kOmitEmpty, 2),
      F("phase", &T::phase, kOmitEmpty, 3), F("conditions", &T::conditions, kOmitEmpty, 4),
      F("addresses", &T::addresses, kOmitEmpty, 5),
      F("daemonEndpoints", &T::daemon_endpoints, kAlways, 6),
      F("nodeInfo", &T::node_info, kAlways, 7), F("images", &T::images, kOmitEmpty, 8));
}

struct Node {
  std::string kind;
  std::string api_version;
  meta::ObjectMeta metadata;
  NodeSpec spec;
  NodeStatus status;
  meta::UnknownFields unknown;
  bool operator==(const Node&) const = default;
};
constexpr auto FieldsOf(Tag<Node>) {
  using T = Node;
  return std::make_tuple(F("kind", &T::kind), F("apiVersion", &T::api_version),
                         F("metadata", &T::metadata, kAlways, 1), F("spec", &T::spec, kAlways, 2),
                         F("status", &T::status, kAlways, 3));
}

}  // namespace svcplane::api::core::v1
