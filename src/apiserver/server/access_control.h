#pragma once

// Who may do what on this server (issue 22): kube-apiserver's --authorization-mode=Node,RBAC.
// Owns the authorizer chain (system:masters → Node → RBAC), keeps the RBAC index current from
// the server's own registries, reconciles the bootstrap policy, and filters every request that
// passed authentication: impersonation, then authorization (spec authn-authz-audit §1).

#include <memory>
#include <optional>

#include "api/authorization/v1/reviews.h"
#include "api/core/v1/node.h"
#include "api/core/v1/pod.h"
#include "api/rbac/v1/rbac.h"
#include "apiserver/authorization/authorizer.h"
#include "apiserver/authorization/node_authorizer.h"
#include "apiserver/authorization/rbac_authorizer.h"
#include "apiserver/http/handler.h"
#include "apiserver/registry/registry.h"
#include "base/status.h"

namespace svcplane::apiserver::server {

struct AccessControlRegistries {
  registry::Registry<api::rbac::v1::Role>* roles = nullptr;
  registry::Registry<api::rbac::v1::ClusterRole>* cluster_roles = nullptr;
  registry::Registry<api::rbac::v1::RoleBinding>* role_bindings = nullptr;
  registry::Registry<api::rbac::v1::ClusterRoleBinding>* cluster_role_bindings = nullptr;
  registry::Registry<api::core::v1::Pod>* pods = nullptr;
  registry::Registry<api::core::v1::Node>* nodes = nullptr;
};

// What the filter decided for one request.
struct AccessDecision {
  // Set: answer this instead of handling the request (400, 403 or 500).
  std::optional<http::Response> response;
  // Set: the request continues as this identity (impersonation).
  std::optional<http::Identity> impersonated;
  // For the audit log's annotations: whether the request reached authorization, its decision
  // ("allow" / "forbid") and the authorizer's reason, or that the authorizer failed.
  bool authorized = false;
  bool allowed = false;
  bool authorizer_error = false;
  std::string reason;
};

inline constexpr std::string_view kClusterAdminsBoundAnnotation =
    "svcplane.io/cluster-admins-bound";

// Writes what the filter decided into the request's audit context (impersonated user, the
// authorization decision and reason, or the authorizer's failure).
void AnnotateAudit(const http::Request& request, const AccessDecision& decided);

class AccessControl {
 public:
  explicit AccessControl(AccessControlRegistries registries);
  ~AccessControl();
  AccessControl(const AccessControl&) = delete;
  AccessControl& operator=(const AccessControl&) = delete;

  // Starts keeping the RBAC index current; returns once it holds everything stored now (or
  // after `timeout`, with an error).
  Status Start(std::chrono::milliseconds timeout);

  // The rbac/bootstrap-roles post-start hook (spec §4.3): creates missing bootstrap ClusterRoles
  // and ClusterRoleBindings and adds what is missing from ones not annotated autoupdate=false.
  Status ReconcileBootstrapPolicy();

  // The revocable admin (issue 22, as kubeadm's kubeadm:cluster-admins): the first time a
  // cluster starts, binds `group` (the admin kubeconfig's) to cluster-admin through a
  // ClusterRoleBinding named after it, and marks ClusterRole cluster-admin with
  // kClusterAdminsBoundAnnotation so that a later start never creates it again: deleting the
  // binding revokes the admin credential for good (break glass: system:masters).
  Status BindClusterAdminsOnce(const std::string& group);

  // Impersonation then authorization of a request the authenticator accepted.
  AccessDecision Check(const http::Request& request) const;

  // SelfSubjectAccessReview / SelfSubjectRulesReview answered by the chain (spec §3.9).
  api::authorization::v1::SubjectAccessReviewStatus ReviewAccess(
      const api::authorization::v1::SelfSubjectAccessReview& review,
      const http::Identity& user) const;
  api::authorization::v1::SubjectRulesReviewStatus ReviewRules(std::string_view ns,
                                                               const http::Identity& user) const;

  // The whole chain, for SelfSubjectAccessReview / SelfSubjectRulesReview and escalation checks.
  const authorization::AuthorizerWithRules& chain() const;
  const authorization::RbacAuthorizer& rbac() const;
  const authorization::NodeGraph& node_graph() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace svcplane::apiserver::server
