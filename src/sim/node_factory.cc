#include "sim/node_factory.h"

#include <charconv>
#include <cstdio>

namespace svcplane::sim {

namespace core = api::core::v1;

Result<uint32_t> ParseIpv4(std::string_view text) {
  uint32_t ip = 0;
  const char* p = text.data();
  const char* end = text.data() + text.size();
  for (int i = 0; i < 4; ++i) {
    unsigned octet = 0;
    auto [next, ec] = std::from_chars(p, end, octet);
    if (ec != std::errc() || octet > 255) break;
    ip = (ip << 8) | octet;
    p = next;
    if (i == 3) {
      if (p == end) return ip;
      break;
    }
    if (p == end || *p != '.') break;
    ++p;
  }
  return InvalidError("not an IPv4 address: \"" + std::string(text) + "\"");
}

std::string FormatIpv4(uint32_t ip) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "%u.%u.%u.%u", ip >> 24, (ip >> 16) & 255, (ip >> 8) & 255,
                ip & 255);
  return buf;
}

Result<Ipv4Cidr> Ipv4Cidr::Parse(std::string_view text) {
  size_t slash = text.find('/');
  if (slash == std::string_view::npos) {
    return InvalidError("not a CIDR: \"" + std::string(text) + "\"");
  }
  auto ip = ParseIpv4(text.substr(0, slash));
  if (!ip.ok()) return ip.status();
  int prefix = -1;
  std::string_view bits = text.substr(slash + 1);
  auto [p, ec] = std::from_chars(bits.data(), bits.data() + bits.size(), prefix);
  if (ec != std::errc() || p != bits.data() + bits.size() || prefix < 0 || prefix > 32) {
    return InvalidError("bad prefix length in \"" + std::string(text) + "\"");
  }
  uint32_t mask = prefix == 0 ? 0 : ~uint32_t{0} << (32 - prefix);
  return Ipv4Cidr{*ip & mask, prefix};
}

std::string Ipv4Cidr::ToString() const { return FormatIpv4(base) + "/" + std::to_string(prefix); }

Result<Ipv4Cidr> Ipv4Cidr::Subnet(uint64_t index, int sub_prefix) const {
  if (sub_prefix < prefix || sub_prefix > 32) {
    return InvalidError("a /" + std::to_string(sub_prefix) + " does not split " + ToString());
  }
  if (index >= (uint64_t{1} << (sub_prefix - prefix))) {
    return InvalidError(ToString() + " has no room for subnet #" + std::to_string(index) + " /" +
                        std::to_string(sub_prefix));
  }
  return Ipv4Cidr{base + static_cast<uint32_t>(index << (32 - sub_prefix)), sub_prefix};
}

Result<uint32_t> Ipv4Cidr::Address(uint64_t offset) const {
  if (offset >= Size()) {
    return InvalidError(ToString() + " has no address #" + std::to_string(offset));
  }
  return base + static_cast<uint32_t>(offset);
}

bool Ipv4Cidr::Contains(uint32_t ip) const {
  uint32_t mask = prefix == 0 ? 0 : ~uint32_t{0} << (32 - prefix);
  return (ip & mask) == base;
}

std::string NodeName(const SimOptions& opts, int index) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "%04d", index + 1);
  return opts.node_prefix + buf;
}

const std::string& ZoneOf(const SimOptions& opts, int index) {
  return opts.zones[static_cast<size_t>(index) % opts.zones.size()];
}

bool IsSimulatedNode(const core::Node& node) {
  auto it = node.metadata.annotations.find(kKwokNodeKey);
  return it != node.metadata.annotations.end() && it->second == kKwokNodeValue;
}

api::meta::MicroTime ToMicroTime(WallTime t) {
  return api::meta::MicroTime::FromUnixMicros(
      std::chrono::duration_cast<std::chrono::microseconds>(t.time_since_epoch()).count());
}

api::meta::Time ToTime(WallTime t) {
  return api::meta::Time::FromUnix(
      std::chrono::duration_cast<std::chrono::seconds>(t.time_since_epoch()).count());
}

WallTime FromMicroTime(const api::meta::MicroTime& t) {
  return WallTime{} + std::chrono::microseconds(t.unix_micros);
}

void SetHealthyConditions(core::Node& node, WallTime now) {
  api::meta::Time t = ToTime(now);
  auto cond = [&](const char* type, const char* status, const char* reason, const char* msg) {
    core::NodeCondition c;
    c.type = type;
    c.status = status;
    c.last_heartbeat_time = t;
    c.last_transition_time = t;
    c.reason = reason;
    c.message = msg;
    return c;
  };
  node.status.conditions = {
      cond("MemoryPressure", "False", "KubeletHasSufficientMemory",
           "kubelet has sufficient memory available"),
      cond("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
      cond("PIDPressure", "False", "KubeletHasSufficientPID",
           "kubelet has sufficient PID available"),
      cond("Ready", "True", "KubeletReady", "kubelet is posting ready status"),
  };
}

Result<core::Node> MakeNode(const SimOptions& opts, int index, WallTime now) {
  auto cluster = Ipv4Cidr::Parse(opts.cluster_cidr);
  if (!cluster.ok()) return cluster.status();
  auto pod_cidr = cluster->Subnet(static_cast<uint64_t>(index), opts.node_cidr_prefix);
  if (!pod_cidr.ok()) return pod_cidr.status();
  auto node_range = Ipv4Cidr::Parse(opts.node_ip_range);
  if (!node_range.ok()) return node_range.status();
  // Skip the network address and the gateway (.1), as a docker network does for kind/kwok.
  auto node_ip = node_range->Address(static_cast<uint64_t>(index) + 2);
  if (!node_ip.ok()) return node_ip.status();

  core::Node node;
  node.kind = "Node";
  node.api_version = "v1";
  const std::string name = NodeName(opts, index);
  node.metadata.name = name;
  auto& labels = node.metadata.labels;
  labels["beta.kubernetes.io/arch"] = "amd64";
  labels["beta.kubernetes.io/os"] = "linux";
  labels["kubernetes.io/arch"] = "amd64";
  labels["kubernetes.io/os"] = "linux";
  labels[kHostnameLabel] = name;
  labels["node.kubernetes.io/exclude-from-external-load-balancers"] = "true";
  labels[kZoneLabel] = ZoneOf(opts, index);
  labels[kRegionLabel] = opts.region;
  labels["type"] = "kwok";
  node.metadata.annotations[kKwokNodeKey] = kKwokNodeValue;
  node.metadata.annotations["node.alpha.kubernetes.io/ttl"] = "0";

  node.spec.pod_cidr = pod_cidr->ToString();
  node.spec.pod_cidrs = {node.spec.pod_cidr};
  node.spec.provider_id = "kwok://" + name;
  node.spec.taints.push_back(core::Taint{kKwokNodeKey, kKwokNodeValue, "NoSchedule", {}, {}});

  core::ResourceList resources = {{"cpu", {opts.cpu}},
                                  {"memory", {opts.memory}},
                                  {"pods", {opts.max_pods}},
                                  {"ephemeral-storage", {"100Gi"}}};
  node.status.capacity = resources;
  node.status.allocatable = resources;
  node.status.phase = "Running";
  SetHealthyConditions(node, now);
  node.status.addresses = {{"InternalIP", FormatIpv4(*node_ip), {}}, {"Hostname", name, {}}};
  node.status.daemon_endpoints.kubelet_endpoint.port = 10250;
  auto& info = node.status.node_info;
  info.architecture = "amd64";
  info.operating_system = "linux";
  info.kubelet_version = "v1.33.0-kwok";
  info.kube_proxy_version = "v1.33.0-kwok";
  info.os_image = "kwok";
  info.kernel_version = "kwok";
  info.container_runtime_version = "kwok";
  info.machine_id = name;
  info.system_uuid = name;
  info.boot_id = name;
  return node;
}

api::coordination::v1::Lease MakeNodeLease(const SimOptions& opts, std::string_view node_name,
                                           WallTime now) {
  api::coordination::v1::Lease lease;
  lease.kind = "Lease";
  lease.api_version = "coordination.k8s.io/v1";
  lease.metadata.name = std::string(node_name);
  lease.metadata.namespace_ = kNodeLeaseNamespace;
  lease.spec.holder_identity = std::string(node_name);
  lease.spec.lease_duration_seconds = opts.lease_duration_seconds;
  lease.spec.renew_time = ToMicroTime(now);
  return lease;
}

}  // namespace svcplane::sim
