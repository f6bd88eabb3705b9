#include "api/validation/strategy.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string_view>

#include <boost/json.hpp>

#include "api/codec/json.h"
#include "api/validation/internal/raw_json.h"

namespace svcplane::api::validation {
namespace {

using core::v1::Service;

// ---- Service helpers (strategy.go).

bool NeedsClusterIP(const Service& s) { return s.spec.type != "ExternalName"; }
bool NeedsNodePort(const Service& s) {
  return s.spec.type == "NodePort" || s.spec.type == "LoadBalancer";
}
bool NeedsHCNodePort(const Service& s) {
  return s.spec.type == "LoadBalancer" && s.spec.external_traffic_policy == "Local";
}

void PatchAllocatedValues(Service& svc, const Service& old) {
  if (NeedsClusterIP(old) && NeedsClusterIP(svc)) {
    if (svc.spec.cluster_ip.empty()) svc.spec.cluster_ip = old.spec.cluster_ip;
    if (svc.spec.cluster_ips.empty()) svc.spec.cluster_ips = old.spec.cluster_ips;
  }
  if (NeedsNodePort(old) && NeedsNodePort(svc)) {
    // Matched by port name: the user may have changed other properties of the port.
    std::map<std::string, int32_t> by_name;
    for (const auto& p : old.spec.ports) by_name[p.name] = p.node_port;
    for (auto& p : svc.spec.ports) {
      if (p.node_port == 0) p.node_port = by_name.count(p.name) ? by_name[p.name] : 0;
    }
  }
  if (NeedsHCNodePort(old) && NeedsHCNodePort(svc) && svc.spec.health_check_node_port == 0) {
    svc.spec.health_check_node_port = old.spec.health_check_node_port;
  }
}

// NormalizeClusterIPs: keeps the singular and plural fields in step for old clients.
void NormalizeClusterIPs(const Service* old, Service& svc) {
  auto& ip = svc.spec.cluster_ip;
  auto& ips = svc.spec.cluster_ips;
  if (!old) {
    if (!ip.empty() && ips.empty()) ips = {ip};
    return;
  }
  if (!old->spec.cluster_ips.empty() && ips.empty() && old->spec.cluster_ip == ip) {
    ips = old->spec.cluster_ips;
  }
  if (old->spec.cluster_ip != ip) {
    if (!old->spec.cluster_ip.empty() && ip.empty()) {
      if (old->spec.cluster_ips == ips) ips.clear();
    } else if (old->spec.cluster_ips == ips) {
      ips = {ip};
    }
  }
}

void DropTypeDependentFields(Service& svc, const Service& old) {
  if (NeedsClusterIP(old) && !NeedsClusterIP(svc)) {
    if (old.spec.cluster_ip == svc.spec.cluster_ip &&
        old.spec.cluster_ips == svc.spec.cluster_ips) {
      svc.spec.cluster_ip.clear();
      svc.spec.cluster_ips.clear();
    }
    if (old.spec.ip_families == svc.spec.ip_families) svc.spec.ip_families.clear();
    if (old.spec.ip_family_policy.value_or("") == svc.spec.ip_family_policy.value_or("")) {
      svc.spec.ip_family_policy.reset();
    }
  }
  if (NeedsNodePort(old) && !NeedsNodePort(svc)) {
    // Only when no net-new node port was asked for.
    std::set<int32_t> old_ports;
    for (const auto& p : old.spec.ports) {
      if (p.node_port != 0) old_ports.insert(p.node_port);
    }
    bool superset = std::all_of(svc.spec.ports.begin(), svc.spec.ports.end(), [&](const auto& p) {
      return p.node_port == 0 || old_ports.count(p.node_port);
    });
    if (superset) {
      for (auto& p : svc.spec.ports) p.node_port = 0;
    }
  }
  if (NeedsHCNodePort(old) && !NeedsHCNodePort(svc) &&
      old.spec.health_check_node_port == svc.spec.health_check_node_port) {
    svc.spec.health_check_node_port = 0;
  }
  if (old.spec.type == "LoadBalancer" && svc.spec.type != "LoadBalancer" &&
      svc.spec.allocate_load_balancer_node_ports && old.spec.allocate_load_balancer_node_ports &&
      *svc.spec.allocate_load_balancer_node_ports == *old.spec.allocate_load_balancer_node_ports) {
    svc.spec.allocate_load_balancer_node_ports.reset();
  }
  if (old.spec.type == "LoadBalancer" && svc.spec.type != "LoadBalancer" &&
      old.spec.load_balancer_class == svc.spec.load_balancer_class) {
    svc.spec.load_balancer_class.reset();
  }
}

void TrimFieldsForDualStackDowngrade(Service& svc, const Service& old) {
  std::string old_policy = old.spec.ip_family_policy.value_or("");
  bool old_dual = old_policy == "RequireDualStack" || old_policy == "PreferDualStack";
  if (old_dual && svc.spec.ip_family_policy.value_or("") == "SingleStack") {
    if (svc.spec.cluster_ips.size() > 1) svc.spec.cluster_ips.resize(1);
    if (svc.spec.ip_families.size() > 1) svc.spec.ip_families.resize(1);
  }
}

void EnsureNamespaceLabel(core::v1::Namespace& ns) {
  if (!ns.metadata.name.empty()) {
    ns.metadata.labels["kubernetes.io/metadata.name"] = ns.metadata.name;
  }
}

}  // namespace

void PrepareObjectMetaForCreate(meta::ObjectMeta& meta) {
  meta.deletion_timestamp.reset();
  meta.rest->deletion_grace_period_seconds.reset();
}

void PrepareObjectMetaForUpdate(meta::ObjectMeta& new_meta, const meta::ObjectMeta& old_meta) {
  new_meta.rest->generation = old_meta.rest->generation;
  if (new_meta.uid.empty()) new_meta.uid = old_meta.uid;
  if (!old_meta.creation_timestamp.IsZero()) {
    new_meta.creation_timestamp = old_meta.creation_timestamp;
  }
  if (old_meta.deletion_timestamp) new_meta.deletion_timestamp = old_meta.deletion_timestamp;
  if (old_meta.rest->deletion_grace_period_seconds &&
      !new_meta.rest->deletion_grace_period_seconds) {
    new_meta.rest->deletion_grace_period_seconds = old_meta.rest->deletion_grace_period_seconds;
  }
}

// ---- Namespace

void PrepareForCreate(core::v1::Namespace& ns) {
  PrepareObjectMetaForCreate(ns.metadata);
  ns.status = core::v1::NamespaceStatus{};
  ns.status.phase = "Active";
  auto& fin = ns.spec.finalizers;
  if (std::find(fin.begin(), fin.end(), "kubernetes") == fin.end()) fin.push_back("kubernetes");
  EnsureNamespaceLabel(ns);
}

void PrepareForUpdate(core::v1::Namespace& ns, const core::v1::Namespace& old) {
  PrepareObjectMetaForUpdate(ns.metadata, old.metadata);
  ns.spec.finalizers = old.spec.finalizers;
  ns.status = old.status;
  EnsureNamespaceLabel(ns);
}

void PrepareForStatusUpdate(core::v1::Namespace& ns, const core::v1::Namespace& old) {
  PrepareObjectMetaForUpdate(ns.metadata, old.metadata);
  ns.spec = old.spec;
  EnsureNamespaceLabel(ns);
}

void PrepareForFinalizeUpdate(core::v1::Namespace& ns, const core::v1::Namespace& old) {
  PrepareObjectMetaForUpdate(ns.metadata, old.metadata);
  ns.status = old.status;
  EnsureNamespaceLabel(ns);
}

// ---- Service

void PrepareForCreate(Service& svc) {
  PrepareObjectMetaForCreate(svc.metadata);
  svc.status = core::v1::ServiceStatus{};
  NormalizeClusterIPs(nullptr, svc);
}

void PrepareForUpdate(Service& svc, const Service& old) {
  PrepareObjectMetaForUpdate(svc.metadata, old.metadata);
  svc.status = old.status;
  PatchAllocatedValues(svc, old);
  NormalizeClusterIPs(&old, svc);
  DropTypeDependentFields(svc, old);
  TrimFieldsForDualStackDowngrade(svc, old);
}

void PrepareForStatusUpdate(Service& svc, const Service& old) {
  PrepareObjectMetaForUpdate(svc.metadata, old.metadata);
  svc.spec = old.spec;
}

// ---- Pod

// upstream's GetPodQOS (pkg/apis/core/helper/qos). Only cpu and memory count, so the sums are
// two fields, not the maps upstream builds: this runs on every Pod create.
std::string PodQOSClass(const core::v1::Pod& pod) {
  struct Sums {
    int64_t cpu = 0, memory = 0;
    bool has_cpu = false, has_memory = false;
    void Add(std::string_view name, int64_t milli) {
      if (name == "cpu") {
        cpu += milli;
        has_cpu = true;
      } else {
        memory += milli;
        has_memory = true;
      }
    }
    bool Empty() const { return !has_cpu && !has_memory; }
  } requests, limits;
  auto supported = [](std::string_view name) { return name == "cpu" || name == "memory"; };
  auto positive_milli = [](const std::string& q) {
    return meta::Quantity{q}.MilliValue().value_or(0);
  };
  bool guaranteed = true;
  auto visit = [&](const core::v1::Container& c) {
    // The cpu and memory entries of limits and requests (the last one if a key repeats).
    std::optional<std::string> lim[2], req[2];
    std::optional<internal::RawMembers> members;
    if (!c.rest->resources.text.empty()) {
      members = internal::ParseObjectMembers(c.rest->resources.text);
    }
    if (members) {
      for (const auto& member : *members) {
        const bool is_limits = member.first == "limits";
        if (!is_limits && member.first != "requests") continue;
        std::optional<internal::RawMembers> list = internal::ParseObjectMembers(member.second);
        if (!list) continue;
        for (const auto& entry : *list) {
          if (!supported(entry.first)) continue;
          if (auto text = internal::ScalarText(entry.second)) {
            (is_limits ? lim : req)[entry.first == "cpu" ? 0 : 1] = std::move(*text);
          }
        }
      }
    }
    bool limit_found[2] = {false, false};
    for (int i = 0; i < 2; ++i) {
      const std::string_view name = i == 0 ? "cpu" : "memory";
      // v1 defaulting copies limits into missing requests before QoS is computed.
      const std::optional<std::string>& request = req[i] ? req[i] : lim[i];
      if (request) {
        if (int64_t milli = positive_milli(*request); milli > 0) requests.Add(name, milli);
      }
      if (lim[i]) {
        if (int64_t milli = positive_milli(*lim[i]); milli > 0) {
          limit_found[i] = true;
          limits.Add(name, milli);
        }
      }
    }
    if (!limit_found[0] || !limit_found[1]) guaranteed = false;
  };
  for (const auto& c : pod.spec.rest->init_containers) visit(c);
  for (const auto& c : pod.spec.containers) visit(c);
  if (requests.Empty() && limits.Empty()) return "BestEffort";
  // Every requested resource has an equal limit, and no limit lacks a request.
  if (guaranteed && requests.has_cpu == limits.has_cpu && requests.cpu == limits.cpu &&
      requests.has_memory == limits.has_memory && requests.memory == limits.memory) {
    return "Guaranteed";
  }
  return "Burstable";
}

void PrepareForCreate(core::v1::Pod& pod) {
  PrepareObjectMetaForCreate(pod.metadata);
  pod.metadata.rest->generation = 1;
  pod.status = core::v1::PodStatus{};
  pod.status.phase = "Pending";
  pod.status.rest->qos_class = PodQOSClass(pod);
}

void PrepareForUpdate(core::v1::Pod& pod, const core::v1::Pod& old) {
  PrepareObjectMetaForUpdate(pod.metadata, old.metadata);
  pod.status = old.status;
  if (pod.spec != old.spec) ++pod.metadata.rest->generation;
}

void PrepareForStatusUpdate(core::v1::Pod& pod, const core::v1::Pod& old) {
  PrepareObjectMetaForUpdate(pod.metadata, old.metadata);
  pod.spec = old.spec;
  // Old kubelets corrupt owner references; /status may not touch them or the deletion mark.
  pod.metadata.deletion_timestamp = old.metadata.deletion_timestamp;
  pod.metadata.owner_references = old.metadata.owner_references;
  if (pod.status.rest->qos_class.empty()) pod.status.rest->qos_class = old.status.rest->qos_class;
}

// ---- Node

void PrepareForCreate(core::v1::Node& node) { PrepareObjectMetaForCreate(node.metadata); }

void PrepareForUpdate(core::v1::Node& node, const core::v1::Node& old) {
  PrepareObjectMetaForUpdate(node.metadata, old.metadata);
  node.status = old.status;
}

void PrepareForStatusUpdate(core::v1::Node& node, const core::v1::Node& old) {
  PrepareObjectMetaForUpdate(node.metadata, old.metadata);
  node.spec = old.spec;
}

// ---- EndpointSlice

void PrepareForCreate(discovery::v1::EndpointSlice& slice) {
  PrepareObjectMetaForCreate(slice.metadata);
  slice.metadata.rest->generation = 1;
}

void PrepareForUpdate(discovery::v1::EndpointSlice& slice,
                      const discovery::v1::EndpointSlice& old) {
  PrepareObjectMetaForUpdate(slice.metadata, old.metadata);
  // Everything but metadata (and kind/apiVersion, which upstream's internal type lacks).
  bool changed = slice.address_type != old.address_type || slice.endpoints != old.endpoints ||
                 slice.ports != old.ports || slice.unknown != old.unknown ||
                 slice.metadata.labels != old.metadata.labels;
  if (changed) slice.metadata.rest->generation = old.metadata.rest->generation + 1;
}

// ---- Endpoints, Lease, Event

void PrepareForCreate(core::v1::Endpoints& ep) { PrepareObjectMetaForCreate(ep.metadata); }
void PrepareForUpdate(core::v1::Endpoints& ep, const core::v1::Endpoints& old) {
  PrepareObjectMetaForUpdate(ep.metadata, old.metadata);
}
void PrepareForCreate(coordination::v1::Lease& lease) {
  PrepareObjectMetaForCreate(lease.metadata);
}
void PrepareForUpdate(coordination::v1::Lease& lease, const coordination::v1::Lease& old) {
  PrepareObjectMetaForUpdate(lease.metadata, old.metadata);
}
void PrepareForCreate(core::v1::Event& event) { PrepareObjectMetaForCreate(event.metadata); }

// ---- ConfigMap, Secret, ServiceAccount (pkg/registry/core/*/strategy.go: nothing of their own)

void PrepareForCreate(core::v1::ConfigMap& cm) { PrepareObjectMetaForCreate(cm.metadata); }
void PrepareForUpdate(core::v1::ConfigMap& cm, const core::v1::ConfigMap& old) {
  PrepareObjectMetaForUpdate(cm.metadata, old.metadata);
}
void PrepareForCreate(core::v1::Secret& secret) { PrepareObjectMetaForCreate(secret.metadata); }
void PrepareForUpdate(core::v1::Secret& secret, const core::v1::Secret& old) {
  PrepareObjectMetaForUpdate(secret.metadata, old.metadata);
}
void PrepareForCreate(core::v1::ServiceAccount& sa) { PrepareObjectMetaForCreate(sa.metadata); }
void PrepareForUpdate(core::v1::ServiceAccount& sa, const core::v1::ServiceAccount& old) {
  PrepareObjectMetaForUpdate(sa.metadata, old.metadata);
}
void PrepareForUpdate(core::v1::Event& event, const core::v1::Event& old) {
  PrepareObjectMetaForUpdate(event.metadata, old.metadata);
}

// ---- RBAC

void PrepareForCreate(rbac::v1::Role& role) { PrepareObjectMetaForCreate(role.metadata); }
void PrepareForUpdate(rbac::v1::Role& role, const rbac::v1::Role& old) {
  PrepareObjectMetaForUpdate(role.metadata, old.metadata);
}
void PrepareForCreate(rbac::v1::ClusterRole& role) { PrepareObjectMetaForCreate(role.metadata); }
void PrepareForUpdate(rbac::v1::ClusterRole& role, const rbac::v1::ClusterRole& old) {
  PrepareObjectMetaForUpdate(role.metadata, old.metadata);
}
void PrepareForCreate(rbac::v1::RoleBinding& binding) {
  PrepareObjectMetaForCreate(binding.metadata);
}
void PrepareForUpdate(rbac::v1::RoleBinding& binding, const rbac::v1::RoleBinding& old) {
  PrepareObjectMetaForUpdate(binding.metadata, old.metadata);
}
void PrepareForCreate(rbac::v1::ClusterRoleBinding& binding) {
  PrepareObjectMetaForCreate(binding.metadata);
}
void PrepareForUpdate(rbac::v1::ClusterRoleBinding& binding,
                      const rbac::v1::ClusterRoleBinding& old) {
  PrepareObjectMetaForUpdate(binding.metadata, old.metadata);
}

// ---- apps/v1 (pkg/registry/apps/{deployment,replicaset}/strategy.go)

namespace {

// apiequality.Semantic.DeepEqual of two specs: the same JSON value, member order aside.
// Struct equality alone is too strict: the fields of a pod template kept as JSON text (unknown
// fields) come in the protobuf schema's order from a protobuf request and in the client's
// (kubectl: alphabetical) order from a JSON one, and a generation bump without a change would
// look like a new rollout to the controllers.
template <typename T>
bool SameSpec(const T& a, const T& b) {
  if (a.spec == b.spec) return true;
  T x, y;
  x.spec = a.spec;
  y.spec = b.spec;
  return boost::json::parse(codec::EncodeJson(x)) == boost::json::parse(codec::EncodeJson(y));
}

}  // namespace

void PrepareForCreate(apps::v1::Deployment& d) {
  PrepareObjectMetaForCreate(d.metadata);
  d.status = apps::v1::DeploymentStatus{};
  d.metadata.rest->generation = 1;
}

void PrepareForUpdate(apps::v1::Deployment& d, const apps::v1::Deployment& old) {
  PrepareObjectMetaForUpdate(d.metadata, old.metadata);
  d.status = old.status;
  // Annotations count: `kubectl rollout undo` of old clients wrote the rollback request there.
  if (!SameSpec(d, old) || d.metadata.annotations != old.metadata.annotations) {
    ++d.metadata.rest->generation;
  }
}

void PrepareForStatusUpdate(apps::v1::Deployment& d, const apps::v1::Deployment& old) {
  PrepareObjectMetaForUpdate(d.metadata, old.metadata);
  d.spec = old.spec;
  // Annotations stay writable: the controller records the revision with UpdateStatus.
  d.metadata.labels = old.metadata.labels;
}

void PrepareForCreate(apps::v1::ReplicaSet& rs) {
  PrepareObjectMetaForCreate(rs.metadata);
  rs.status = apps::v1::ReplicaSetStatus{};
  rs.metadata.rest->generation = 1;
}

void PrepareForUpdate(apps::v1::ReplicaSet& rs, const apps::v1::ReplicaSet& old) {
  PrepareObjectMetaForUpdate(rs.metadata, old.metadata);
  rs.status = old.status;
  if (!SameSpec(rs, old)) ++rs.metadata.rest->generation;
}

void PrepareForStatusUpdate(apps::v1::ReplicaSet& rs, const apps::v1::ReplicaSet& old) {
  PrepareObjectMetaForUpdate(rs.metadata, old.metadata);
  rs.spec = old.spec;
}

}  // namespace svcplane::api::validation
