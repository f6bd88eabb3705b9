#pragma once

// Pure builders of the objects a simulated node consists of, marked as kwok marks its nodes so
// nobody mistakes them for real ones. No I/O: the simulator writes what these return.

#include <cstdint>
#include <string>
#include <string_view>

#include "api/types.h"
#include "base/clock.h"
#include "base/result.h"
#include "sim/sim_options.h"

namespace svcplane::sim {

// kwok's markers: the annotation, the `type` label and the NoSchedule taint.
inline constexpr char kKwokNodeKey[] = "kwok.x-k8s.io/node";
inline constexpr char kKwokNodeValue[] = "fake";
inline constexpr char kZoneLabel[] = "topology.kubernetes.io/zone";
inline constexpr char kRegionLabel[] = "topology.kubernetes.io/region";
inline constexpr char kHostnameLabel[] = "kubernetes.io/hostname";
inline constexpr char kNodeLeaseNamespace[] = "kube-node-lease";

// An IPv4 prefix, "10.244.0.0/16".
struct Ipv4Cidr {
  uint32_t base = 0;  // network address, host order
  int prefix = 0;

  static Result<Ipv4Cidr> Parse(std::string_view text);
  std::string ToString() const;
  uint64_t Size() const { return uint64_t{1} << (32 - prefix); }
  // The `index`-th subnet of length `sub_prefix`; InvalidError when it does not fit.
  Result<Ipv4Cidr> Subnet(uint64_t index, int sub_prefix) const;
  // The address at `offset` from the network address (no bounds check beyond the prefix).
  Result<uint32_t> Address(uint64_t offset) const;
  bool Contains(uint32_t ip) const;
};

std::string FormatIpv4(uint32_t ip);
Result<uint32_t> ParseIpv4(std::string_view text);

// Index from 0; name, zone and addresses follow from it alone.
std::string NodeName(const SimOptions& opts, int index);
const std::string& ZoneOf(const SimOptions& opts, int index);
// True if `node` carries kwok's annotation (whoever created it).
bool IsSimulatedNode(const api::core::v1::Node& node);

// The Node to create for `index`: labels, annotation, taint, podCIDR(s), capacity/allocatable,
// InternalIP and Hostname addresses, Ready=True. Errors if the ranges are too small.
Result<api::core::v1::Node> MakeNode(const SimOptions& opts, int index, WallTime now);

// The kubelet's conditions for a healthy node (Ready=True; pressures False).
void SetHealthyConditions(api::core::v1::Node& node, WallTime now);

// The node's Lease in kube-node-lease, held by the node, renewed now.
api::coordination::v1::Lease MakeNodeLease(const SimOptions& opts, std::string_view node_name,
                                           WallTime now);

api::meta::MicroTime ToMicroTime(WallTime t);
api::meta::Time ToTime(WallTime t);
WallTime FromMicroTime(const api::meta::MicroTime& t);

}  // namespace svcplane::sim
