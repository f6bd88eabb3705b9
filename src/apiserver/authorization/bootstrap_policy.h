#pragma once

#include <vector>

#include "api/rbac/v1/rbac.h"

// The bootstrap RBAC policy (upstream plugin/pkg/auth/authorizer/rbac/bootstrappolicy, as its
// testdata/*.yaml shows it; spec §4.1, §4.2): the ClusterRoles and ClusterRoleBindings the
// server reconciles at every start. Full upstream rules, also for kinds svcplane does not
// serve, so coverage checks and `kubectl get clusterrole -o yaml` behave as upstream. Each
// object carries label kubernetes.io/bootstrapping=rbac-defaults and annotation
// rbac.authorization.kubernetes.io/autoupdate="true". Rule lists are sorted as upstream's rule
// builder sorts them.
namespace svcplane::apiserver::authorization {

inline constexpr std::string_view kAutoUpdateAnnotation =
    "rbac.authorization.kubernetes.io/autoupdate";
inline constexpr std::string_view kBootstrappingLabel = "kubernetes.io/bootstrapping";

// ClusterRoles, sorted by name (the API-server ones, then system:controller:*).
const std::vector<api::rbac::v1::ClusterRole>& BootstrapClusterRoles();
// ClusterRoleBindings, sorted by name.
const std::vector<api::rbac::v1::ClusterRoleBinding>& BootstrapClusterRoleBindings();

// The rules of ClusterRole system:node: what the Node authorizer allows statically.
const std::vector<api::rbac::v1::PolicyRule>& NodeRules();

}  // namespace svcplane::apiserver::authorization
