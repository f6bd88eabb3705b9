#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace svcplane::api {

// One REST resource svcplane serves, as discovery describes it (api-discovery.md §3).
struct ResourceInfo {
  std::string_view group;      // "" for core
  std::string_view version;    // "v1"
  std::string_view resource;   // plural: "pods"
  std::string_view singular;   // "pod"
  std::string_view kind;       // "Pod"
  std::string_view list_kind;  // "PodList"
  bool namespaced = true;
  std::vector<std::string_view> verbs;        // sorted, as upstream lists them
  std::vector<std::string_view> short_names;  // "po"
  std::vector<std::string_view> categories;   // "all"
  // Subresources served (e.g. "status", "finalize") with their verbs.
  struct Subresource {
    std::string_view name;
    std::vector<std::string_view> verbs;
    std::string_view kind = {};  // what it takes and returns, if not the resource's kind
  };
  std::vector<Subresource> subresources;
  // etcd-compatible storage prefix, without the trailing slash: "/registry/pods".
  std::string_view storage_prefix;

  // "v1" or "discovery.k8s.io/v1".
  std::string GroupVersion() const;
  bool HasSubresource(std::string_view name) const;
};

// Every resource, in a stable order (core first, then groups alphabetically).
std::span<const ResourceInfo> AllResources();

// Lookup by group and plural resource name; nullptr if not served.
const ResourceInfo* FindResource(std::string_view group, std::string_view resource);
// The same for one version (a group may serve a resource in several: authentication.k8s.io
// v1 and v1beta1 selfsubjectreviews).
const ResourceInfo* FindResource(std::string_view group, std::string_view version,
                                 std::string_view resource);
// Lookup by Kind (all our kinds have unique names); nullptr if unknown.
const ResourceInfo* FindResourceByKind(std::string_view kind);

// The API groups other than core, in discovery order: "coordination.k8s.io", "discovery.k8s.io",
// "rbac.authorization.k8s.io".
std::vector<std::string_view> ApiGroups();

}  // namespace svcplane::api
