#include "api/validation/defaults.h"

namespace svcplane::api::validation {
namespace {

constexpr int32_t kDefaultClientIPServiceAffinitySeconds = 10800;
constexpr int64_t kDefaultTerminationGracePeriodSeconds = 30;

void DefaultContainer(core::v1::Container& c, bool host_network) {
  if (c.image_pull_policy.empty()) c.image_pull_policy = DefaultImagePullPolicy(c.image);
  if (c.termination_message_path.empty()) c.termination_message_path = "/dev/termination-log";
  if (c.termination_message_policy.empty()) c.termination_message_policy = "File";
  for (core::v1::ContainerPort& p : c.ports) {
    if (p.protocol.empty()) p.protocol = "TCP";
    // defaultHostNetworkPorts: with the host's network the container port is the host port.
    if (host_network && p.host_port == 0) p.host_port = p.container_port;
  }
}

}  // namespace

std::string DefaultImagePullPolicy(std::string_view image) {
  // parsers.ParseImageName: an unparsable reference yields no tag, hence IfNotPresent.
  if (image.empty()) return "IfNotPresent";
  std::string_view name = image;
  bool has_digest = false;
  if (size_t at = name.find('@'); at != std::string_view::npos) {
    has_digest = true;
    name = name.substr(0, at);
  }
  std::string_view tag;
  size_t colon = name.rfind(':');
  size_t slash = name.rfind('/');
  if (colon != std::string_view::npos && (slash == std::string_view::npos || colon > slash)) {
    tag = name.substr(colon + 1);
  } else if (!has_digest) {
    tag = "latest";
  }
  return tag == "latest" ? "Always" : "IfNotPresent";
}

void Default(core::v1::Namespace& ns) {
  if (!ns.metadata.name.empty()) {
    ns.metadata.labels["kubernetes.io/metadata.name"] = ns.metadata.name;
  }
  if (ns.status.phase.empty()) ns.status.phase = "Active";
}

void Default(core::v1::Service& svc) {
  core::v1::ServiceSpec& spec = svc.spec;
  if (spec.session_affinity.empty()) spec.session_affinity = "None";
  if (spec.session_affinity == "None") spec.session_affinity_config.reset();
  if (spec.session_affinity == "ClientIP") {
    auto& cfg = spec.session_affinity_config;
    if (!cfg || !cfg->client_ip || !cfg->client_ip->timeout_seconds) {
      cfg.emplace().client_ip.emplace().timeout_seconds = kDefaultClientIPServiceAffinitySeconds;
    }
  }
  if (spec.type.empty()) spec.type = "ClusterIP";
  for (core::v1::ServicePort& p : spec.ports) {
    if (p.protocol.empty()) p.protocol = "TCP";
    if (p.target_port.IsZero() || (p.target_port.is_string && p.target_port.str_value.empty())) {
      p.target_port = meta::IntOrString::FromInt(p.port);
    }
  }
  bool externally_accessible = spec.type == "LoadBalancer" || spec.type == "NodePort" ||
                               (spec.type == "ClusterIP" && !spec.external_ips.empty());
  if (externally_accessible && spec.external_traffic_policy.empty()) {
    spec.external_traffic_policy = "Cluster";
  }
  if (!spec.internal_traffic_policy &&
      (spec.type == "NodePort" || spec.type == "LoadBalancer" || spec.type == "ClusterIP")) {
    spec.internal_traffic_policy = "Cluster";
  }
  if (spec.type == "LoadBalancer" && !spec.allocate_load_balancer_node_ports) {
    spec.allocate_load_balancer_node_ports = true;
  }
  // Allocation hook: clusterIP(s), ipFamilies, ipFamilyPolicy and node ports are filled by the
  // Service allocator, not here (see header).
}

void Default(core::v1::Pod& pod) {
  core::v1::PodSpec& spec = pod.spec;
  if (spec.dns_policy.empty()) spec.dns_policy = "ClusterFirst";
  if (spec.restart_policy.empty()) spec.restart_policy = "Always";
  if (!spec.security_context) spec.security_context = meta::RawJson{"{}"};
  if (!spec.termination_grace_period_seconds) {
    spec.termination_grace_period_seconds = kDefaultTerminationGracePeriodSeconds;
  }
  if (spec.scheduler_name.empty()) spec.scheduler_name = "default-scheduler";
  if (!spec.enable_service_links) spec.enable_service_links = true;
  // v1 conversion: serviceAccountName falls back to the deprecated serviceAccount, and the
  // deprecated field is always written back as a copy.
  if (spec.service_account_name.empty()) spec.service_account_name = spec.service_account;
  spec.service_account = spec.service_account_name;
  for (core::v1::Container& c : spec.containers) DefaultContainer(c, spec.host_network);
  for (core::v1::Container& c : spec.init_containers) DefaultContainer(c, spec.host_network);
}

void Default(core::v1::Node& node) {
  if (node.status.allocatable.empty() && !node.status.capacity.empty()) {
    node.status.allocatable = node.status.capacity;
  }
}

void Default(core::v1::Endpoints& ep) {
  for (core::v1::EndpointSubset& ss : ep.subsets) {
    for (core::v1::EndpointPort& p : ss.ports) {
      if (p.protocol.empty()) p.protocol = "TCP";
    }
  }
}

void Default(discovery::v1::EndpointSlice& slice) {
  if (!slice.ports) return;
  for (discovery::v1::EndpointPort& p : *slice.ports) {
    if (!p.name) p.name = "";
    if (!p.protocol) p.protocol = "TCP";
  }
}

void Default(coordination::v1::Lease& /*lease*/) {}
void Default(core::v1::Event& /*event*/) {}

}  // namespace svcplane::api::validation
