#pragma once

// The kind -> accessor map that every "one member per kind" interface shares: Clientset,
// InformerFactory and their fakes name their accessors after the resource (Pods(), Leases()...),
// so one template serves all their For<T>(). A new kind is one line here.

#include <type_traits>

#include "api/types.h"

namespace svcplane::client {

// ByKind<api::core::v1::Pod>(set) is set.Pods(), with the accessor's own return type.
template <typename T, typename PerKind>
decltype(auto) ByKind(PerKind& set) {
  namespace core = api::core::v1;
  if constexpr (std::is_same_v<T, core::Namespace>)
    return set.Namespaces();
  else if constexpr (std::is_same_v<T, core::Service>)
    return set.Services();
  else if constexpr (std::is_same_v<T, core::Pod>)
    return set.Pods();
  else if constexpr (std::is_same_v<T, core::Node>)
    return set.Nodes();
  else if constexpr (std::is_same_v<T, core::Endpoints>)
    return set.Endpoints();
  else if constexpr (std::is_same_v<T, core::Event>)
    return set.Events();
  else if constexpr (std::is_same_v<T, api::discovery::v1::EndpointSlice>)
    return set.EndpointSlices();
  else if constexpr (std::is_same_v<T, api::coordination::v1::Lease>)
    return set.Leases();
  else if constexpr (std::is_same_v<T, api::rbac::v1::Role>)
    return set.Roles();
  else if constexpr (std::is_same_v<T, api::rbac::v1::ClusterRole>)
    return set.ClusterRoles();
  else if constexpr (std::is_same_v<T, api::rbac::v1::RoleBinding>)
    return set.RoleBindings();
  else if constexpr (std::is_same_v<T, api::rbac::v1::ClusterRoleBinding>)
    return set.ClusterRoleBindings();
  else if constexpr (std::is_same_v<T, api::apps::v1::Deployment>)
    return set.Deployments();
  else if constexpr (std::is_same_v<T, api::apps::v1::ReplicaSet>)
    return set.ReplicaSets();
  else
    static_assert(sizeof(T) == 0, "not a kind svcplane serves");
}

}  // namespace svcplane::client
