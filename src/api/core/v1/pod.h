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
// Each big struct keeps the fields the service controllers read inline and the others in a
// meta::Boxed `rest` (pod.spec.rest->volumes): an informer that drops them (client/informers/
// transforms.h) caches a Pod in well under 2 KiB. The wire format is unchanged.

// hostIP is almost never set; boxed so that each port costs 24 bytes less.
struct ContainerPortRest {
  std::string host_ip;
  bool operator==(const ContainerPortRest&) const = default;
};

struct ContainerPort {
  std::string name;
  int32_t host_port = 0;
  int32_t container_port = 0;
  std::string protocol;
  meta::Boxed<ContainerPortRest> rest;
  meta::UnknownFields unknown;
  bool operator==(const ContainerPort&) const = default;
};
constexpr auto FieldsOf(Tag<ContainerPort>) {
  using T = ContainerPort;
  return std::make_tuple(F("name", &T::name, kOmitEmpty, 1),
                         F("hostPort", &T::host_port, kOmitEmpty, 2),
                         F("containerPort", &T::container_port, kAlways, 3),
                         F("protocol", &T::protocol, kOmitEmpty, 4),
                         meta::FR("hostIP", &T::rest, &ContainerPortRest::host_ip, kOmitEmpty, 5));
}

// The parts of a Container that no controller here reads; see meta::Boxed.
struct ContainerRest {
  meta::RawJson resources;  // ResourceRequirements: a struct, so always written ({} when empty)
  std::string termination_message_path;
  std::string termination_message_policy;
  std::string image_pull_policy;
  bool operator==(const ContainerRest&) const = default;
};

struct Container {
  std::string name;
  std::string image;  // inline: validation, defaulting and every test fixture set it
  std::vector<ContainerPort> ports;
  meta::Boxed<ContainerRest> rest;
  meta::UnknownFields unknown;
  bool operator==(const Container&) const = default;
};
constexpr auto FieldsOf(Tag<Container>) {
  using T = Container;
  using R = ContainerRest;
  using meta::FR;
  return std::make_tuple(
      F("name", &T::name, kAlways, 1), F("image", &T::image, kOmitEmpty, 2),
      F("ports", &T::ports, kOmitEmpty, 6),
      FR("resources", &T::rest, &R::resources, meta::kEmptyObject, 8),
      FR("terminationMessagePath", &T::rest, &R::termination_message_path, kOmitEmpty, 13),
      FR("terminationMessagePolicy", &T::rest, &R::termination_message_policy, kOmitEmpty, 20),
      FR("imagePullPolicy", &T::rest, &R::image_pull_policy, kOmitEmpty, 14));
}

struct PodReadinessGate {
  std::string condition_type;
  meta::UnknownFields unknown;
  bool operator==(const PodReadinessGate&) const = default;
};
constexpr auto FieldsOf(Tag<PodReadinessGate>) {
  return std::make_tuple(F("conditionType", &PodReadinessGate::condition_type, kAlways, 1));
}

// The parts of a PodSpec that the service controllers never read (scheduling, volumes,
// identity...), boxed so that a Pod without them (an informer's transformed copy) stays small.
struct PodSpecRest {
  std::vector<meta::RawJson> volumes;
  std::vector<Container> init_containers;
  std::string restart_policy;
  std::optional<int64_t> termination_grace_period_seconds;
  std::optional<int64_t> active_deadline_seconds;
  std::string dns_policy;
  meta::StringMap node_selector;
  std::string service_account_name;
  std::string service_account;
  bool host_network = false;
  std::optional<meta::RawJson> security_context;
  std::string scheduler_name;
  std::vector<meta::RawJson> tolerations;
  std::optional<int32_t> priority;
  std::optional<bool> enable_service_links;
  std::optional<std::string> preemption_policy;
  std::optional<bool> set_hostname_as_fqdn;
  bool operator==(const PodSpecRest&) const = default;
};

struct PodSpec {
  std::vector<Container> containers;
  std::string node_name;
  std::string hostname;
  std::string subdomain;
  std::vector<PodReadinessGate> readiness_gates;
  meta::Boxed<PodSpecRest> rest;
  meta::UnknownFields unknown;
  bool operator==(const PodSpec&) const = default;
};
constexpr auto FieldsOf(Tag<PodSpec>) {
  using T = PodSpec;
  using R = PodSpecRest;
  using meta::FR;
  return std::make_tuple(
      FR("volumes", &T::rest, &R::volumes, kOmitEmpty, 1),
      FR("initContainers", &T::rest, &R::init_containers, kOmitEmpty, 20),
      F("containers", &T::containers, kAlways, 2),
      FR("restartPolicy", &T::rest, &R::restart_policy, kOmitEmpty, 3),
      FR("terminationGracePeriodSeconds", &T::rest, &R::termination_grace_period_seconds,
         kOmitEmpty, 4),
      FR("activeDeadlineSeconds", &T::rest, &R::active_deadline_seconds, kOmitEmpty, 5),
      FR("dnsPolicy", &T::rest, &R::dns_policy, kOmitEmpty, 6),
      FR("nodeSelector", &T::rest, &R::node_selector, kOmitEmpty, 7),
      FR("serviceAccountName", &T::rest, &R::service_account_name, kOmitEmpty, 8),
      FR("serviceAccount", &T::rest, &R::service_account, kOmitEmpty, 9),
      F("nodeName", &T::node_name, kOmitEmpty, 10),
      FR("hostNetwork", &T::rest, &R::host_network, kOmitEmpty, 11),
      FR("securityContext", &T::rest, &R::security_context, kOmitEmpty, 14),
      F("hostname", &T::hostname, kOmitEmpty, 16), F("subdomain", &T::subdomain, kOmitEmpty, 17),
      FR("schedulerName", &T::rest, &R::scheduler_name, kOmitEmpty, 19),
      FR("tolerations", &T::rest, &R::tolerations, kOmitEmpty, 22),
      FR("priority", &T::rest, &R::priority, kOmitEmpty, 25),
      F("readinessGates", &T::readiness_gates, kOmitEmpty, 28),
      FR("enableServiceLinks", &T::rest, &R::enable_service_links, kOmitEmpty, 30),
      FR("preemptionPolicy", &T::rest, &R::preemption_policy, kOmitEmpty, 31),
      FR("setHostnameAsFQDN", &T::rest, &R::set_hostname_as_fqdn, kOmitEmpty, 35));
}

// A Pod's metadata and spec as a workload's template (Deployment, ReplicaSet spec.template).
struct PodTemplateSpec {
  meta::ObjectMeta metadata;
  PodSpec spec;
  meta::UnknownFields unknown;
  bool operator==(const PodTemplateSpec&) const = default;
};
constexpr auto FieldsOf(Tag<PodTemplateSpec>) {
  using T = PodTemplateSpec;
  return std::make_tuple(F("metadata", &T::metadata, kAlways, 1), F("spec", &T::spec, kAlways, 2));
}

// What readiness checks (podutil.IsPodReady) don't read of a PodCondition.
struct PodConditionRest {
  meta::Time last_probe_time;
  std::string reason;
  std::string message;
  bool operator==(const PodConditionRest&) const = default;
};

struct PodCondition {
  std::string type;
  std::string status;
  meta::Time last_transition_time;
  meta::Boxed<PodConditionRest> rest;
  meta::UnknownFields unknown;
  bool operator==(const PodCondition&) const = default;
};
constexpr auto FieldsOf(Tag<PodCondition>) {
  using T = PodCondition;
  using R = PodConditionRest;
  using meta::FR;
  return std::make_tuple(F("type", &T::type, kAlways, 1), F("status", &T::status, kAlways, 2),
                         FR("lastProbeTime", &T::rest, &R::last_probe_time, kAlways, 3),
                         F("lastTransitionTime", &T::last_transition_time, kAlways, 4),
                         FR("reason", &T::rest, &R::reason, kOmitEmpty, 5),
                         FR("message", &T::rest, &R::message, kOmitEmpty, 6));
}

// PodIP and HostIP: {"ip": "..."}.
struct PodIP {
  std::string ip;
  meta::UnknownFields unknown;
  bool operator==(const PodIP&) const = default;
};
constexpr auto FieldsOf(Tag<PodIP>) { return std::make_tuple(F("ip", &PodIP::ip, kOmitEmpty, 1)); }

// The parts of a PodStatus that the service controllers never read.
struct PodStatusRest {
  std::string message;
  std::string reason;
  std::string nominated_node_name;
  std::string host_ip;
  std::vector<PodIP> host_ips;
  std::optional<meta::Time> start_time;
  std::vector<meta::RawJson> init_container_statuses;
  std::vector<meta::RawJson> container_statuses;
  std::string qos_class;
  bool operator==(const PodStatusRest&) const = default;
};

struct PodStatus {
  std::string phase;
  std::vector<PodCondition> conditions;
  std::string pod_ip;
  std::vector<PodIP> pod_ips;
  meta::Boxed<PodStatusRest> rest;
  meta::UnknownFields unknown;
  bool operator==(const PodStatus&) const = default;
};
constexpr auto FieldsOf(Tag<PodStatus>) {
  using T = PodStatus;
  using R = PodStatusRest;
  using meta::FR;
  return std::make_tuple(
      F("phase", &T::phase, kOmitEmpty, 1), F("conditions", &T::conditions, kOmitEmpty, 2),
      FR("message", &T::rest, &R::message, kOmitEmpty, 3),
      FR("reason", &T::rest, &R::reason, kOmitEmpty, 4),
      FR("nominatedNodeName", &T::rest, &R::nominated_node_name, kOmitEmpty, 11),
      FR("hostIP", &T::rest, &R::host_ip, kOmitEmpty, 5),
      FR("hostIPs", &T::rest, &R::host_ips, kOmitEmpty, 16), F("podIP", &T::pod_ip, kOmitEmpty, 6),
      F("podIPs", &T::pod_ips, kOmitEmpty, 12),
      FR("startTime", &T::rest, &R::start_time, kOmitEmpty, 7),
      FR("initContainerStatuses", &T::rest, &R::init_container_statuses, kOmitEmpty, 10),
      FR("containerStatuses", &T::rest, &R::container_statuses, kOmitEmpty, 8),
      FR("qosClass", &T::rest, &R::qos_class, kOmitEmpty, 9));
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
