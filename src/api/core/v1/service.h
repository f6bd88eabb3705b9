#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/meta/types.h"

namespace svcplane::api::core::v1 {

using meta::F;
using meta::kAlways;
using meta::kOmitEmpty;
using meta::Tag;

struct ServicePort {
  std::string name;
  std::string protocol;  // TCP (default) | UDP | SCTP
  std::optional<std::string> app_protocol;
  int32_t port = 0;
  meta::IntOrString target_port;
  int32_t node_port = 0;
  meta::UnknownFields unknown;
  bool operator==(const ServicePort&) const = default;
};
constexpr auto FieldsOf(Tag<ServicePort>) {
  using T = ServicePort;
  return std::make_tuple(
      F("name", &T::name, kOmitEmpty, 1), F("protocol", &T::protocol, kOmitEmpty, 2),
      F("appProtocol", &T::app_protocol, kOmitEmpty, 6), F("port", &T::port, kAlways, 3),
      F("targetPort", &T::target_port, kOmitEmpty, 4), F("nodePort", &T::node_port, kOmitEmpty, 5));
}

struct ClientIPConfig {
  std::optional<int32_t> timeout_seconds;
  meta::UnknownFields unknown;
  bool operator==(const ClientIPConfig&) const = default;
};
constexpr auto FieldsOf(Tag<ClientIPConfig>) {
  return std::make_tuple(F("timeoutSeconds", &ClientIPConfig::timeout_seconds, kOmitEmpty, 1));
}

struct SessionAffinityConfig {
  std::optional<ClientIPConfig> client_ip;
  meta::UnknownFields unknown;
  bool operator==(const SessionAffinityConfig&) const = default;
};
constexpr auto FieldsOf(Tag<SessionAffinityConfig>) {
  return std::make_tuple(F("clientIP", &SessionAffinityConfig::client_ip, kOmitEmpty, 1));
}

struct ServiceSpec {
  std::vector<ServicePort> ports;
  meta::StringMap selector;
  std::string cluster_ip;
  std::vector<std::string> cluster_ips;
  std::string type;  // ClusterIP | NodePort | LoadBalancer | ExternalName
  std::vector<std::string> external_ips;
  std::string session_affinity;
  std::string load_balancer_ip;
  std::vector<std::string> load_balancer_source_ranges;
  std::string external_name;
  std::string external_traffic_policy;
  int32_t health_check_node_port = 0;
  bool publish_not_ready_addresses = false;
  std::optional<SessionAffinityConfig> session_affinity_config;
  std::vector<std::string> ip_families;
  std::optional<std::string> ip_family_policy;
  std::optional<bool> allocate_load_balancer_node_ports;
  std::optional<std::string> load_balancer_class;
  std::optional<std::string> internal_traffic_policy;
  std::optional<std::string> traffic_distribution;
  meta::UnknownFields unknown;
  bool operator==(const ServiceSpec&) const = default;
};
constexpr auto FieldsOf(Tag<ServiceSpec>) {
  using T = ServiceSpec;
  return std::make_tuple(
      F("ports", &T::ports, kOmitEmpty, 1), F("selector", &T::selector, kOmitEmpty, 2),
      F("clusterIP", &T::cluster_ip, kOmitEmpty, 3),
      F("clusterIPs", &T::cluster_ips, kOmitEmpty, 18), F("type", &T::type, kOmitEmpty, 4),
      F("externalIPs", &T::external_ips, kOmitEmpty, 5),
      F("sessionAffinity", &T::session_affinity, kOmitEmpty, 7),
      F("loadBalancerIP", &T::load_balancer_ip, kOmitEmpty, 8),
      F("loadBalancerSourceRanges", &T::load_balancer_source_ranges, kOmitEmpty, 9),
      F("externalName", &T::external_name, kOmitEmpty, 10),
      F("externalTrafficPolicy", &T::external_traffic_policy, kOmitEmpty, 11),
      F("healthCheckNodePort", &T::health_check_node_port, kOmitEmpty, 12),
      F("publishNotReadyAddresses", &T::publish_not_ready_addresses, kOmitEmpty, 13),
      F("sessionAffinityConfig", &T::session_affinity_config, kOmitEmpty, 14),
      F("ipFamilies", &T::ip_families, kOmitEmpty, 19),
      F("ipFamilyPolicy", &T::ip_family_policy, kOmitEmpty, 17),
      F("allocateLoadBalancerNodePorts", &T::allocate_load_balancer_node_ports, kOmitEmpty, 20),
      F("loadBalancerClass", &T::load_balancer_class, kOmitEmpty, 21),
      F("internalTrafficPolicy", &T::internal_traffic_policy, kOmitEmpty, 22),
      F("trafficDistribution", &T::traffic_distribution, kOmitEmpty, 23));
}

struct LoadBalancerStatus {
  std::vector<meta::RawJson> ingress;
  meta::UnknownFields unknown;
  bool operator==(const LoadBalancerStatus&) const = default;
};
constexpr auto FieldsOf(Tag<LoadBalancerStatus>) {
  return std::make_tuple(F("ingress", &LoadBalancerStatus::ingress, kOmitEmpty, 1));
}

struct ServiceStatus {
  LoadBalancerStatus load_balancer;
  std::vector<meta::RawJson> conditions;
  meta::UnknownFields unknown;
  bool operator==(const ServiceStatus&) const = default;
};
constexpr auto FieldsOf(Tag<ServiceStatus>) {
  using T = ServiceStatus;
  return std::make_tuple(F("loadBalancer", &T::load_balancer, kAlways, 1),
                         F("conditions", &T::conditions, kOmitEmpty, 2));
}

struct Service {
  std::string kind;
  std::string api_version;
  meta::ObjectMeta metadata;
  ServiceSpec spec;
  ServiceStatus status;
  meta::UnknownFields unknown;
  bool operator==(const Service&) const = default;
};
constexpr auto FieldsOf(Tag<Service>) {
  using T = Service;
  return std::make_tuple(F("kind", &T::kind), F("apiVersion", &T::api_version),
                         F("metadata", &T::metadata, kAlways, 1), F("spec", &T::spec, kAlways, 2),
                         F("status", &T::status, kAlways, 3));
}

}  // namespace svcplane::api::core::v1
