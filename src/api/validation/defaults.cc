#include "api/validation/defaults.h"

#include <algorithm>
#include <map>

#include "api/validation/internal/raw_json.h"

namespace svcplane::api::validation {
namespace {

constexpr int32_t kDefaultClientIPServiceAffinitySeconds = 10800;
constexpr int64_t kDefaultTerminationGracePeriodSeconds = 30;

// SetDefaults_Pod: a resource with a limit but no request gets the limit as its request. The
// model keeps `resources` as raw JSON, so the object is rewritten (in Go's field order: limits,
// requests, then the rest) only when a request is actually added.
void DefaultRequestsFromLimits(meta::RawJson& resources) {
  if (resources.text.empty()) return;
  auto members = internal::ParseObjectMembers(resources.text);
  if (!members) return;
  std::optional<internal::RawMembers> limits;
  std::map<std::string, std::string> requests;  // name -> quantity text, sorted like Go's maps
  std::string limits_raw;
  for (const auto& [key, raw] : *members) {
    if (key == "limits") {
      limits = internal::ParseObjectMembers(raw);
      limits_raw = raw;
    } else if (key == "requests") {
      if (auto list = internal::ParseObjectMembers(raw)) {
        for (const auto& [name, value] : *list) {
          if (auto text = internal::ScalarText(value)) requests[name] = *text;
        }
      } else if (raw != "null") {
        return;
      }
    }
  }
  if (!limits) return;
  bool added = false;
  for (const auto& [name, value] : *limits) {
    auto text = internal::ScalarText(value);
    if (text && !requests.count(name)) {
      requests[name] = *text;
      added = true;
    }
  }
  if (!added) return;
  std::string out = "{\"limits\":" + limits_raw + ",\"requests\":{";
  bool first = true;
  for (const auto& [name, text] : requests) {
    if (!first) out += ",";
    first = false;
    out += "\"" + name + "\":\"" + text + "\"";
  }
  out += "}";
  for (const auto& [key, raw] : *members) {
    if (key == "limits" || key == "requests") continue;
    out += ",\"" + key + "\":" + raw;
  }
  resources.text = out + "}";
}

// `pod_only`: the parts of SetDefaults_Pod (requests from limits) that a template does not get.
void DefaultContainer(core::v1::Container& c, bool host_network, bool pod_only = true) {
  if (pod_only) DefaultRequestsFromLimits(c.rest->resources);
  if (c.rest->image_pull_policy.empty())
    c.rest->image_pull_policy = DefaultImagePullPolicy(c.image);
  if (c.rest->termination_message_path.empty())
    c.rest->termination_message_path = "/dev/termination-log";
  if (c.rest->termination_message_policy.empty()) c.rest->termination_message_policy = "File";
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

  // LoadBalancerIPMode (GA): an ingress IP without ipMode gets "VIP". Entries are raw JSON, so
  // one that needs it is rewritten with ipMode after ip/hostname, as Go orders the fields.
  if (spec.type == "LoadBalancer") {
    for (meta::RawJson& ing : svc.status.load_balancer.ingress) {
      auto members = internal::ParseObjectMembers(ing.text);
      if (!members) continue;
      bool has_ip = false, has_mode = false;
      for (const auto& [key, value] : *members) {
        if (key == "ip") has_ip = internal::ScalarText(value).value_or("") != "";
        if (key == "ipMode") has_mode = value != "null";
      }
      if (!has_ip || has_mode) continue;
      std::string out = "{";
      auto emit = [&](std::string_view key, std::string_view value) {
        if (out.size() > 1) out += ",";
        out += "\"" + std::string(key) + "\":" + std::string(value);
      };
      for (std::string_view known : {"ip", "hostname"}) {
        for (const auto& [key, value] : *members) {
          if (key == known) emit(key, value);
        }
      }
      emit("ipMode", "\"VIP\"");
      for (const auto& [key, value] : *members) {
        if (key != "ip" && key != "hostname" && key != "ipMode") emit(key, value);
      }
      ing.text = out + "}";
    }
  }
}

// SetDefaults_PodSpec plus the container defaults and the serviceAccount conversion: what a Pod
// and a workload's pod template both get. SetDefaults_Pod adds requests from limits and
// enableServiceLinks for Pods only.
void DefaultPodSpec(core::v1::PodSpec& spec, bool pod_only) {
  if (spec.rest->dns_policy.empty()) spec.rest->dns_policy = "ClusterFirst";
  if (spec.rest->restart_policy.empty()) spec.rest->restart_policy = "Always";
  if (!spec.rest->security_context) spec.rest->security_context = meta::RawJson{"{}"};
  if (!spec.rest->termination_grace_period_seconds) {
    spec.rest->termination_grace_period_seconds = kDefaultTerminationGracePeriodSeconds;
  }
  if (spec.rest->scheduler_name.empty()) spec.rest->scheduler_name = "default-scheduler";
  if (pod_only && !spec.rest->enable_service_links) spec.rest->enable_service_links = true;
  // v1 conversion: serviceAccountName falls back to the deprecated serviceAccount, and the
  // deprecated field is always written back as a copy.
  if (spec.rest->service_account_name.empty())
    spec.rest->service_account_name = spec.rest->service_account;
  spec.rest->service_account = spec.rest->service_account_name;
  for (core::v1::Container& c : spec.containers)
    DefaultContainer(c, spec.rest->host_network, pod_only);
  for (core::v1::Container& c : spec.rest->init_containers)
    DefaultContainer(c, spec.rest->host_network, pod_only);
}

void Default(core::v1::Pod& pod) {
  DefaultPodSpec(pod.spec, /*pod_only=*/true);

  // v1 -> internal -> v1 round trip of the singular/plural IP fields: the singular one wins when
  // both are set and disagree (older kubelets), and is always written back as plural[0].
  auto sync = [](std::string& single, std::vector<core::v1::PodIP>& plural) {
    if (!single.empty() && (plural.empty() || plural[0].ip != single)) {
      plural.assign(1, core::v1::PodIP{});
      plural[0].ip = single;
    }
    single = plural.empty() ? std::string() : plural[0].ip;
  };
  sync(pod.status.pod_ip, pod.status.pod_ips);
  sync(pod.status.rest->host_ip, pod.status.rest->host_ips);
}

void Default(core::v1::Node& node) {
  // Conversion round trip, as for Pod IPs: podCIDR wins when it disagrees with podCIDRs[0].
  std::string& cidr = node.spec.pod_cidr;
  std::vector<std::string>& cidrs = node.spec.pod_cidrs;
  if (!cidr.empty() && (cidrs.empty() || cidrs[0] != cidr)) cidrs = {cidr};
  cidr = cidrs.empty() ? std::string() : cidrs[0];
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

void Default(core::v1::ConfigMap& /*cm*/) {}
void Default(core::v1::ServiceAccount& /*sa*/) {}

void Default(core::v1::Secret& secret) {
  if (secret.type.empty()) secret.type = std::string(core::v1::kSecretTypeOpaque);
  for (auto& [key, value] : secret.string_data) {
    secret.data.insert_or_assign(key, meta::Bytes{std::move(value)});
  }
  secret.string_data.clear();
}

namespace {
void DefaultRoleRef(rbac::v1::RoleRef& ref) {
  if (ref.api_group.empty()) ref.api_group = std::string(rbac::v1::kGroupName);
}
void DefaultSubjects(std::vector<rbac::v1::Subject>& subjects) {
  for (auto& s : subjects) {
    if (s.api_group.empty() && (s.kind == rbac::v1::kUserKind || s.kind == rbac::v1::kGroupKind)) {
      s.api_group = std::string(rbac::v1::kGroupName);
    }
  }
}
}  // namespace

void Default(rbac::v1::Role& /*role*/) {}
void Default(rbac::v1::ClusterRole& /*role*/) {}
void Default(rbac::v1::RoleBinding& binding) {
  DefaultRoleRef(binding.role_ref);
  DefaultSubjects(binding.subjects);
}
void Default(rbac::v1::ClusterRoleBinding& binding) {
  DefaultRoleRef(binding.role_ref);
  DefaultSubjects(binding.subjects);
}
void Default(core::v1::Event& /*event*/) {}

namespace {
// pkg/apis/apps/v1/defaults.go; the template gets the pod-spec defaults (identically for both
// kinds: the Deployment controller finds its ReplicaSet by comparing templates).
void DefaultTemplate(core::v1::PodTemplateSpec& t) { DefaultPodSpec(t.spec, /*pod_only=*/false); }
}  // namespace

void Default(apps::v1::Deployment& d) {
  apps::v1::DeploymentSpec& spec = d.spec;
  if (!spec.replicas) spec.replicas = 1;
  if (spec.strategy.type.empty())
    spec.strategy.type = std::string(apps::v1::kRollingUpdateStrategy);
  if (spec.strategy.type == apps::v1::kRollingUpdateStrategy) {
    if (!spec.strategy.rolling_update) spec.strategy.rolling_update.emplace();
    auto& ru = *spec.strategy.rolling_update;
    if (!ru.max_unavailable) ru.max_unavailable = meta::IntOrString::FromString("25%");
    if (!ru.max_surge) ru.max_surge = meta::IntOrString::FromString("25%");
  }
  if (!spec.revision_history_limit) spec.revision_history_limit = 10;
  if (!spec.progress_deadline_seconds) spec.progress_deadline_seconds = 600;
  DefaultTemplate(spec.template_);
}

void Default(apps::v1::ReplicaSet& rs) {
  if (!rs.spec.replicas) rs.spec.replicas = 1;
  DefaultTemplate(rs.spec.template_);
}

}  // namespace svcplane::api::validation
