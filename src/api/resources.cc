#include "api/resources.h"

#include <algorithm>

namespace svcplane::api {
namespace {

const std::vector<std::string_view> kAllVerbs = {"create", "delete", "deletecollection", "get",
                                                 "list",   "patch",  "update",           "watch"};
const std::vector<std::string_view> kStatusVerbs = {"get", "patch", "update"};

std::vector<ResourceInfo> MakeResources() {
  using Sub = ResourceInfo::Subresource;
  std::vector<ResourceInfo> r;
  // pkg/registry/core/{configmap,secret,serviceaccount}/storage.
  r.push_back({"",
               "v1",
               "configmaps",
               "configmap",
               "ConfigMap",
               "ConfigMapList",
               true,
               kAllVerbs,
               {"cm"},
               {},
               {},
               "/registry/configmaps"});
  r.push_back({"",
               "v1",
               "endpoints",
               "endpoints",
               "Endpoints",
               "EndpointsList",
               true,
               kAllVerbs,
               {"ep"},
               {},
               {},
               "/registry/services/endpoints"});
  r.push_back({"",
               "v1",
               "events",
               "event",
               "Event",
               "EventList",
               true,
               kAllVerbs,
               {"ev"},
               {},
               {},
               "/registry/events"});
  r.push_back({"",
               "v1",
               "namespaces",
               "namespace",
               "Namespace",
               "NamespaceList",
               false,
               {"create", "delete", "get", "list", "patch", "update", "watch"},
               {"ns"},
               {},
               {Sub{"finalize", {"update"}}, Sub{"status", kStatusVerbs}},
               "/registry/namespaces"});
  r.push_back({"",
               "v1",
               "nodes",
               "node",
               "Node",
               "NodeList",
               false,
               kAllVerbs,
               {"no"},
               {},
               {Sub{"status", kStatusVerbs}},
               "/registry/minions"});
  r.push_back({"",
               "v1",
               "pods",
               "pod",
               "Pod",
               "PodList",
               true,
               kAllVerbs,
               {"po"},
               {"all"},
               {Sub{"binding", {"create"}, "Binding"}, Sub{"status", kStatusVerbs}},
               "/registry/pods"});
  r.push_back({"",
               "v1",
               "secrets",
               "secret",
               "Secret",
               "SecretList",
               true,
               kAllVerbs,
               {},
               {},
               {},
               "/registry/secrets"});
  r.push_back({"",
               "v1",
               "serviceaccounts",
               "serviceaccount",
               "ServiceAccount",
               "ServiceAccountList",
               true,
               kAllVerbs,
               {"sa"},
               {},
               {},
               "/registry/serviceaccounts"});
  r.push_back({"",
               "v1",
               "services",
               "service",
               "Service",
               "ServiceList",
               true,
               kAllVerbs,
               {"svc"},
               {"all"},
               {Sub{"status", kStatusVerbs}},
               "/registry/services/specs"});
  // The review kinds: create only, never stored (no List kind, no storage prefix).
  r.push_back({"authentication.k8s.io",
               "v1",
               "selfsubjectreviews",
               "selfsubjectreview",
               "SelfSubjectReview",
               "",
               false,
               {"create"},
               {},
               {},
               {},
               ""});
  r.push_back({"authentication.k8s.io",
               "v1beta1",
               "selfsubjectreviews",
               "selfsubjectreview",
               "SelfSubjectReview",
               "",
               false,
               {"create"},
               {},
               {},
               {},
               ""});
  r.push_back({"authorization.k8s.io",
               "v1",
               "selfsubjectaccessreviews",
               "selfsubjectaccessreview",
               "SelfSubjectAccessReview",
               "",
               false,
               {"create"},
               {},
               {},
               {},
               ""});
  r.push_back({"authorization.k8s.io",
               "v1",
               "selfsubjectrulesreviews",
               "selfsubjectrulesreview",
               "SelfSubjectRulesReview",
               "",
               false,
               {"create"},
               {},
               {},
               {},
               ""});
  // pkg/registry/apps/{deployment,replicaset}/storage. The scale subresource takes and returns
  // an autoscaling/v1 Scale.
  r.push_back({"apps",
               "v1",
               "deployments",
               "deployment",
               "Deployment",
               "DeploymentList",
               true,
               kAllVerbs,
               {"deploy"},
               {"all"},
               {Sub{"scale", kStatusVerbs, "Scale"}, Sub{"status", kStatusVerbs}},
               "/registry/deployments"});
  r.push_back({"apps",
               "v1",
               "replicasets",
               "replicaset",
               "ReplicaSet",
               "ReplicaSetList",
               true,
               kAllVerbs,
               {"rs"},
               {"all"},
               {Sub{"scale", kStatusVerbs, "Scale"}, Sub{"status", kStatusVerbs}},
               "/registry/replicasets"});
  r.push_back({"coordination.k8s.io",
               "v1",
               "leases",
               "lease",
               "Lease",
               "LeaseList",
               true,
               kAllVerbs,
               {},
               {},
               {},
               "/registry/leases"});
  r.push_back({"discovery.k8s.io",
               "v1",
               "endpointslices",
               "endpointslice",
               "EndpointSlice",
               "EndpointSliceList",
               true,
               kAllVerbs,
               {},
               {},
               {},
               "/registry/endpointslices"});
  // pkg/registry/rbac/*/storage: the store's key prefix is the resource name.
  r.push_back({"rbac.authorization.k8s.io",
               "v1",
               "clusterrolebindings",
               "clusterrolebinding",
               "ClusterRoleBinding",
               "ClusterRoleBindingList",
               false,
               kAllVerbs,
               {},
               {},
               {},
               "/registry/clusterrolebindings"});
  r.push_back({"rbac.authorization.k8s.io",
               "v1",
               "clusterroles",
               "clusterrole",
               "ClusterRole",
               "ClusterRoleList",
               false,
               kAllVerbs,
               {},
               {},
               {},
               "/registry/clusterroles"});
  r.push_back({"rbac.authorization.k8s.io",
               "v1",
               "rolebindings",
               "rolebinding",
               "RoleBinding",
               "RoleBindingList",
               true,
               kAllVerbs,
               {},
               {},
               {},
               "/registry/rolebindings"});
  r.push_back({"rbac.authorization.k8s.io",
               "v1",
               "roles",
               "role",
               "Role",
               "RoleList",
               true,
               kAllVerbs,
               {},
               {},
               {},
               "/registry/roles"});
  return r;
}

const std::vector<ResourceInfo>& Resources() {
  static const std::vector<ResourceInfo> resources = MakeResources();
  return resources;
}

}  // namespace

std::string ResourceInfo::GroupVersion() const {
  if (group.empty()) return std::string(version);
  return std::string(group) + "/" + std::string(version);
}

bool ResourceInfo::HasSubresource(std::string_view name) const {
  return std::any_of(subresources.begin(), subresources.end(),
                     [&](const Subresource& s) { return s.name == name; });
}

std::span<const ResourceInfo> AllResources() { return Resources(); }

const ResourceInfo* FindResource(std::string_view group, std::string_view resource) {
  for (const auto& r : Resources()) {
    if (r.group == group && r.resource == resource) return &r;
  }
  return nullptr;
}

const ResourceInfo* FindResource(std::string_view group, std::string_view version,
                                 std::string_view resource) {
  for (const auto& r : Resources()) {
    if (r.group == group && r.version == version && r.resource == resource) return &r;
  }
  return nullptr;
}

const ResourceInfo* FindResourceByKind(std::string_view kind) {
  for (const auto& r : Resources()) {
    if (r.kind == kind) return &r;
  }
  return nullptr;
}

std::vector<std::string_view> ApiGroups() {
  return {"apps",
          "authentication.k8s.io",
          "authorization.k8s.io",
          "coordination.k8s.io",
          "discovery.k8s.io",
          "rbac.authorization.k8s.io"};
}

}  // namespace svcplane::api
