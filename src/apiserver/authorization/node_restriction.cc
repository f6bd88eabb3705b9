#include "apiserver/authorization/node_restriction.h"

#include <set>

#include "apiserver/authorization/forbidden.h"
#include "apiserver/authorization/internal/go_quote.h"

namespace svcplane::apiserver::authorization {

using internal::GoQuote;

namespace {

constexpr std::string_view kMirrorPodAnnotation = "kubernetes.io/config.mirror";

std::string_view LabelNamespace(std::string_view key) {
  size_t slash = key.find('/');
  return slash == std::string_view::npos ? std::string_view() : key.substr(0, slash);
}

bool InDomain(std::string_view ns, std::string_view domain) {
  return ns == domain || (ns.size() > domain.size() && ns.ends_with(domain) &&
                          ns[ns.size() - domain.size() - 1] == '.');
}

bool IsKubernetesLabel(std::string_view key) {
  std::string_view ns = LabelNamespace(key);
  return InDomain(ns, "kubernetes.io") || InDomain(ns, "k8s.io");
}

bool IsKubeletLabel(std::string_view key) {
  static const std::set<std::string, std::less<>> kLabels = {
      "kubernetes.io/hostname",
      "topology.kubernetes.io/zone",
      "topology.kubernetes.io/region",
      "failure-domain.beta.kubernetes.io/zone",
      "failure-domain.beta.kubernetes.io/region",
      "beta.kubernetes.io/instance-type",
      "node.kubernetes.io/instance-type",
      "kubernetes.io/os",
      "kubernetes.io/arch",
      "beta.kubernetes.io/os",
      "beta.kubernetes.io/arch",
  };
  if (kLabels.contains(key)) return true;
  std::string_view ns = LabelNamespace(key);
  return InDomain(ns, "kubelet.kubernetes.io") || InDomain(ns, "node.kubernetes.io");
}

// Keys added, removed or changed between old and new, sorted.
std::set<std::string> ModifiedLabels(const api::meta::StringMap& now,
                                     const api::meta::StringMap* before) {
  std::set<std::string> out;
  for (const auto& [k, v] : now) {
    if (before == nullptr) {
      out.insert(k);
      continue;
    }
    auto it = before->find(k);
    if (it == before->end() || it->second != v) out.insert(k);
  }
  if (before != nullptr) {
    for (const auto& [k, v] : *before) {
      if (now.find(k) == now.end()) out.insert(k);
    }
  }
  return out;
}

std::string ForbiddenLabels(const std::set<std::string>& modified) {
  std::string out;
  for (const std::string& k : modified) {
    if (KubeletMaySetLabel(k)) continue;
    if (!out.empty()) out += ", ";
    out += k;
  }
  return out;
}

api::meta::StatusObject Forbid(std::string_view group, std::string_view resource,
                               std::string_view name, std::string_view msg) {
  return ForbiddenStatus(group, resource, name, msg);
}

}  // namespace

bool KubeletMaySetLabel(std::string_view key) {
  std::string_view ns = LabelNamespace(key);
  if (InDomain(ns, "node-restriction.kubernetes.io")) return false;
  return !IsKubernetesLabel(key) || IsKubeletLabel(key);
}

std::optional<api::meta::StatusObject> AdmitNodeWrite(std::string_view node, AdmissionOperation op,
                                                      std::string_view requested_name,
                                                      const api::core::v1::Node& new_node,
                                                      const api::core::v1::Node* old_node) {
  auto forbid = [&](std::string_view msg) { return Forbid("", "nodes", requested_name, msg); };
  if (requested_name != node) {
    return forbid("node " + GoQuote(node) + " is not allowed to modify node " +
                  GoQuote(requested_name));
  }
  if (op == AdmissionOperation::kCreate) {
    std::string bad = ForbiddenLabels(ModifiedLabels(new_node.metadata.labels, nullptr));
    if (!bad.empty()) {
      return forbid("node " + GoQuote(node) +
                    " is not allowed to set the following labels: " + bad);
    }
  }
  if (op == AdmissionOperation::kUpdate && old_node != nullptr) {
    if (new_node.spec.taints != old_node->spec.taints) {
      return forbid("node " + GoQuote(node) + " is not allowed to modify taints");
    }
    std::string bad =
        ForbiddenLabels(ModifiedLabels(new_node.metadata.labels, &old_node->metadata.labels));
    if (!bad.empty()) return forbid("is not allowed to modify labels: " + bad);
  }
  return std::nullopt;
}

std::optional<api::meta::StatusObject> AdmitPodCreate(std::string_view node,
                                                      const api::core::v1::Pod& pod,
                                                      const NodeGraph& graph) {
  auto forbid = [&](std::string_view msg) { return Forbid("", "pods", pod.metadata.name, msg); };
  std::string n = GoQuote(node);
  if (pod.metadata.annotations.find(kMirrorPodAnnotation) == pod.metadata.annotations.end()) {
    return forbid("pod does not have \"kubernetes.io/config.mirror\" annotation, node " + n +
                  " can only create mirror pods");
  }
  if (pod.spec.node_name != node) {
    return forbid("node " + n + " can only create pods with spec.nodeName set to itself");
  }
  const auto& owners = pod.metadata.owner_references;
  if (owners.size() > 1) {
    return forbid("node " + n +
                  " can only create pods with a single owner reference set to itself");
  }
  if (owners.empty()) {
    return forbid("node " + n + " can only create pods with an owner reference set to itself");
  }
  const auto& owner = owners[0];
  if (owner.api_version != "v1" || owner.kind != "Node" || owner.name != node) {
    return forbid("node " + n + " can only create pods with an owner reference set to itself");
  }
  if (!owner.controller.value_or(false)) {
    return forbid("node " + n +
                  " can only create pods with a controller owner reference set to itself");
  }
  if (owner.block_owner_deletion.value_or(false)) {
    return forbid("node " + n + " must not set blockOwnerDeletion on an owner reference");
  }
  std::optional<std::string> uid = graph.NodeUid(node);
  if (!uid) {
    api::meta::StatusObject st;
    st.status = "Failure";
    st.reason = "NotFound";
    st.code = 404;
    st.message = "nodes " + n + " not found";
    st.details.emplace();
    st.details->name = std::string(node);
    st.details->kind = "nodes";
    return st;
  }
  if (owner.uid != *uid) {
    return forbid("node " + std::string(node) + " UID mismatch: expected " + *uid + " got " +
                  owner.uid);
  }
  if (!pod.spec.rest->service_account_name.empty()) {
    return forbid("node " + n + " can not create pods that reference a service account");
  }
  return std::nullopt;
}

std::optional<api::meta::StatusObject> AdmitPodDelete(std::string_view node, std::string_view ns,
                                                      std::string_view name,
                                                      const api::core::v1::Pod* existing) {
  if (existing == nullptr) {
    api::meta::StatusObject st;
    st.status = "Failure";
    st.reason = "NotFound";
    st.code = 404;
    st.message = "pods " + GoQuote(name) + " not found";
    st.details.emplace();
    st.details->name = std::string(name);
    st.details->kind = "pods";
    (void)ns;
    return st;
  }
  if (existing->spec.node_name != node) {
    return Forbid(
        "", "pods", name,
        "node " + GoQuote(node) + " can only delete pods with spec.nodeName set to itself");
  }
  return std::nullopt;
}

std::optional<api::meta::StatusObject> AdmitPodStatusUpdate(std::string_view node,
                                                            const api::core::v1::Pod& old_pod,
                                                            const api::core::v1::Pod& new_pod) {
  const std::string& name = old_pod.metadata.name;
  if (old_pod.spec.node_name != node) {
    return Forbid("", "pods", name,
                  "node " + GoQuote(node) +
                      " can only update pod status for pods with spec.nodeName set to itself");
  }
  if (old_pod.metadata.labels != new_pod.metadata.labels) {
    return Forbid("", "pods", name,
                  "node " + GoQuote(node) + " cannot update labels through pod status");
  }
  return std::nullopt;
}

std::optional<api::meta::StatusObject> AdmitPodOperation(std::string_view node,
                                                         AdmissionOperation op, bool status,
                                                         std::string_view name) {
  std::string_view op_name = op == AdmissionOperation::kCreate   ? "CREATE"
                             : op == AdmissionOperation::kUpdate ? "UPDATE"
                                                                 : "DELETE";
  if (status) {
    if (op == AdmissionOperation::kUpdate) return std::nullopt;
    return Forbid("", "pods", name, "unexpected operation " + GoQuote(op_name));
  }
  if (op != AdmissionOperation::kUpdate) return std::nullopt;
  return Forbid("", "pods", name,
                "unexpected operation " + GoQuote(op_name) + ", node " + GoQuote(node) +
                    " can only create and delete mirror pods");
}

api::meta::StatusObject UnknownNodeStatus(std::string_view user, std::string_view group,
                                          std::string_view resource, std::string_view name) {
  return Forbid(group, resource, name, "could not determine node from user " + GoQuote(user));
}

std::optional<api::meta::StatusObject> AdmitLease(std::string_view node, AdmissionOperation op,
                                                  std::string_view ns,
                                                  std::string_view requested_name,
                                                  const api::coordination::v1::Lease* new_lease) {
  std::string_view name = requested_name;
  if (op == AdmissionOperation::kCreate && new_lease != nullptr) name = new_lease->metadata.name;
  auto forbid = [&](std::string_view msg) {
    return Forbid("coordination.k8s.io", "leases", name, msg);
  };
  if (ns != kNodeLeaseNamespace) {
    return forbid("can only access leases in the \"kube-node-lease\" system namespace");
  }
  if (name != node) {
    return forbid("can only access node lease with the same name as the requesting node");
  }
  return std::nullopt;
}

}  // namespace svcplane::apiserver::authorization
