#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "api/rbac/v1/rbac.h"

// The immutable state an RbacAuthorizer decision reads. Pieces are shared between successive
// snapshots, so one change copies only the pieces (and the pointers) it touches.
namespace svcplane::apiserver::authorization::internal {

struct StringHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};
template <typename V>
using StringMap = std::unordered_map<std::string, V, StringHash, std::equal_to<>>;

using RuleList = std::vector<api::rbac::v1::PolicyRule>;
// Role (or ClusterRole) name → its rules.
using RuleTable = StringMap<std::shared_ptr<const RuleList>>;

struct IndexedBinding {
  std::string name;
  std::string ns;  // "" for a ClusterRoleBinding
  api::rbac::v1::RoleRef role_ref;
  std::vector<api::rbac::v1::Subject> subjects;
};

// Bindings in name order, and for each user name (ServiceAccount subjects by their username)
// and group the positions of the bindings naming it, ascending.
struct BindingIndex {
  std::vector<std::shared_ptr<const IndexedBinding>> bindings;
  StringMap<std::vector<uint32_t>> by_user;
  StringMap<std::vector<uint32_t>> by_group;
};

struct NamespacePolicy {
  std::shared_ptr<const RuleTable> roles;
  std::shared_ptr<const BindingIndex> bindings;
};

struct RbacSnapshot {
  std::shared_ptr<const RuleTable> cluster_roles;
  std::shared_ptr<const BindingIndex> cluster_bindings;
  std::shared_ptr<const StringMap<std::shared_ptr<const NamespacePolicy>>> namespaces;
};

// A new index over `bindings` (sorted by name here).
std::shared_ptr<const BindingIndex> BuildBindingIndex(
    std::vector<std::shared_ptr<const IndexedBinding>> bindings);

}  // namespace svcplane::apiserver::authorization::internal
