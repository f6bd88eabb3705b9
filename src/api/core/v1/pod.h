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

// Fields of a Pod that controllers, defaulting and validation read are typed; everything else
// (command, env, probes, volumes, resources...) rides along in `unknown` / RawJson untouched.

struct ContainerPort {
  std::string name;
  int32_t host_port = 0;
  int32_t container_port = 0;
  std::string protocol;
  std::string host_ip;
  meta::UnknownFields unknown;
  bool operator==(const ContainerPort&) const = default;
};
constexpr auto FieldsOf(Tag<ContainerPort>) {
  using T = ContainerPort;
  return std::make_tuple(
      F("name", &T::name, kOmitEmpty, 1), F("hostPort", &T::host_port, kOmitEmpty, 2),
      F("containerPort", &T::container_port, kAlways, 3),
      F("protocol", &T::protocol, kOmitEmpty, 4), F("hostIP", &T::host_ip, kOmitEmpty, 5));
}

struct Container {
  std::string name;
  std::string image;
  std::vector<ContainerPort> ports;
  meta::RawJson resources;  // ResourceRequirements: a struct, so always written ({} when empty)
  std::string termination_message_path;
  std::string termination_message_policy;
  std::string image_pull_policy;
  meta::UnknownFields unknown;
  bool operator==(const Container&) const = default;
};
constexpr auto FieldsOf(Tag<Container>) {
  using T = Container;
  return std::make_tuple(
      F("name", &T::name, kAlways, 1), F("image", &T::image, kOmitEmpty, 2),
      F("ports", &T::ports, kOmitEmpty, 6), F("resources", &T::resources, meta::kEmptyObject, 8),
      F("terminationMessagePath", &T::termination_message_path, kOmitEmpty, 13),
      F("terminationMessagePolicy", &T::termination_message_policy, kOmitEmpty, 20),
      F("imagePullPolicy", &T::image_pull_policy, kOmitEmpty, 14));
}

struct PodReadinessGate {
  std::string condition_type;
  meta::UnknownFields unknown;
  bool operator==(const PodReadinessGate&) const = default;
};
constexpr auto FieldsOf(Tag<PodReadinessGate>) {
  return std::make_tuple(F("conditionType", &PodReadinessGate::condition_type, kAlways, 1));
}

struct PodSpec {
  std::vector<meta::RawJson> volumes;
  std::vector<Container> init_containers;
  std::vector<Container> containers;
  std::string restart_policy;
  std::optional<int64_t> termination_grace_period_seconds;
  std::optional<int64_t> active_deadline_seconds;
  std::string dns_policy;
  meta::StringMap node_selector;
  std::string service_account_name;
  std::string service_account;
  std::string node_name;
  bool host_network = false;
  std::optional<meta::RawJson> security_context;
  std::string hostname;
  std::string subdomain;
  std::string scheduler_name;
  std::vector<meta::RawJson> tolerations;
  std::optional<int32_t> priority;
  std::vector<PodReadinessGate> readiness_gates;
  std::optional<bool> enable_service_links;
  std::optional<std::string> preemption_policy;
  std::optional<bool> set_hostname_as_fqdn;
  meta::UnknownFields unknown;
  bool operator==(const PodSpec&) const = default;
};
constexpr auto FieldsOf(Tag<PodSpec>) {
  using T = PodSpec;
  return std::make_tuple(
      F("volumes", &T::volumes, kOmitEmpty, 1),
      F("initContainers", &T::init_containers, kOmitEmpty, 20),
      F("containers", &T::containers, kAlways, 2),
      F("restartPolicy", &T::restart_policy, kOmitEmpty, 3),
      F("terminationGracePeriodSeconds", &T::termination_grace_period_seconds, kOmitEmpty, 4),
      F("activeDeadlineSeconds", &T::active_deadline_seconds, kOmitEmpty, 5),
      F("dnsPolicy", &T::dns_policy, kOmitEmpty, 6),
      F("nodeSelector", &T::node_selector, kOmitEmpty, 7),
      F("serviceAccountName", &T::service_account_name, kOmitEmpty, 8),
      F("serviceAccount", &T::service_account, kOmitEmpty, 9),
      F("nodeName", &T::node_name, kOmitEmpty, 10),
      F("hostNetwork", &T::host_network, kOmitEmpty, 11),
      F("securityContext", &T::security_context, kOmitEmpty, 14),
      F("hostname", &T::hostname, kOmitEmpty, 16), F("subdomain", &T::subdomain, kOmitEmpty, 17),
      F("schedulerName", &T::scheduler_name, kOmitEmpty, 19),
      F("tolerations", &T::tolerations, kOmitEmpty, 22),
      F("priority", &T::priority, kOmitEmpty, 25),
      F("readinessGates", &T::readiness_gates, kOmitEmpty, 28),
      F("enableServiceLinks", &T::enable_service_links, kOmitEmpty, 30),
      F("preemptionPolicy", &T::preemption_policy, kOmitEmpty, 31),
      F("setHostnameAsFQDN", &T::set_hostname_as_fqdn, kOmitEmpty, 35));
}

struct PodCondition {
  std::string type;
  std::string status;
  meta::Time last_probe_time;
  meta::Time last_transition_time;
  std::string reason;
  std::string message;
  meta::UnknownFields unknown;
  bool operator==(const PodCondition&) const = default;
};
constexpr auto FieldsOf(Tag<PodCondition>) {
  using T = PodCondition;
  return std::make_tuple(F("type", &T::type, kAlways, 1), F("status", &T::status, kAlways, 2),
                         F("lastProbeTime", &T::last_probe_time, kAlways, 3),
                         F("lastTransitionTime", &T::last_transition_time, kAlways, 4),
                         F("reason", &T::reason, kOmitEmpty, 5),
                         F("message", &T::message, kOmitEmpty, 6));
}

// PodIP and HostIP: {"ip": "..."}.
struct PodIP {
  std::string ip;
  meta::UnknownFields unknown;
  bool operator==(const PodIP&) const = default;
};
constexpr auto FieldsOf(Tag<PodIP>) { return std::make_tuple(F("ip", &PodIP::ip, kOmitEmpty, 1)); }

struct PodStatus {
  std::string phase;
  std::vector<PodCondition> conditions;
  std::string message;
  std::string reason;
  std::string nominated_node_name;
  std::string host_ip;
  std::vector<PodIP> host_ips;
  std::string pod_ip;
  std::vector<PodIP> pod_ips;
  std::optional<meta::Time> start_time;
  std::vector<meta::RawJson> init_container_statuses;
  std::vector<meta::RawJson> container_statuses;
  std::string qos_class;
  meta::UnknownFields unknown;
  bool operator==(const PodStatus&) const = default;
};
constexpr auto FieldsOf(Tag<PodStatus>) {
  using T = PodStatus;
  return std::make_tuple(
      F("phase", &T::phase, kOmitEmpty, 1), F("conditions", &T::conditions, kOmitEmpty, 2),
      F("message", &T::message, kOmitEmpty, 3), F("reason", &T::reason, kOmitEmpty, 4),
      F("nominatedNodeName", &T::nominated_node_name, kOmitEmpty, 11),
      F("hostIP", &T::host_ip, kOmitEmpty, 5), F("hostIPs", &T::host_ips, kOmitEmpty, 16),
      F("podIP", &T::pod_ip, kOmitEmpty, 6), F("podIPs", &T::pod_ips, kOmitEmpty, 12),
      F("startTime", &T::start_time, kOmitEmpty, 7),
      F("initContainerStatuses", &T::init_container_statuses, kOmitEmpty, 10),
      F("containerStatuses", &T::container_statuses, kOmitEmpty, 8),
      F("qosClass", &T::qos_class, kOmitEmpty, 9));
}

struct Pod {
  std::string kind;
  std::string api_version;
  meta::ObjectMeta metadata;
  PodSpec spec;
  PodStatus status;
  meta::UnknownFields unknown;
  bool operator==(const Pod&) const = default;
};
constexpr auto FieldsOf(Tag<Pod>) {
  using T = Pod;
  return std::make_tuple(F("kind", &T::kind), F("apiVersion", &T::api_version),
                         F("metadata", &T::metadata, kAlways, 1), F("spec", &T::spec, kAlways, 2),
                         F("status", &T::status, kAlways, 3));
}

}  // namespace svcplane::api::core::v1
