#pragma once

// Admission of the writes users make (spec authn-authz-audit §1 step 9, §3.6, §3.8): the
// checks that need the object, after authorization let the request in. Installed on the
// registries as their admission hook (registry::Registry::SetAdmission), so they see the
// decoded and defaulted object, and on updates and patches (every patch type, status
// subresources included) the stored object it replaces, before anything is validated or stored:
//   - NodeRestriction (upstream plugin/pkg/admission/noderestriction) on pods, nodes and leases,
//     for users system:node:<n> in group system:nodes;
//   - the RBAC storage's privilege-escalation checks (upstream pkg/registry/rbac/*/policybased)
//     on roles, clusterroles, rolebindings and clusterrolebindings; system:masters bypasses.
// The in-process components' writes are admitted as their identities (IdentityClientset passes
// its user down through client::WriteOptions::user). Writes the server makes itself carry no
// user and are not admitted (upstream: the loopback client is system:apiserver in
// system:masters, which every check lets through).

#include <fmt/format.h>

#include <string>

#include "api/coordination/v1/lease.h"
#include "api/core/v1/endpoints.h"
#include "api/core/v1/event.h"
#include "api/core/v1/node.h"
#include "api/core/v1/pod.h"
#include "api/core/v1/service.h"
#include "api/meta/types.h"
#include "api/rbac/v1/rbac.h"
#include "apiserver/authorization/authorizer.h"
#include "apiserver/authorization/node_authorizer.h"
#include "apiserver/authorization/rbac_authorizer.h"
#include "apiserver/registry/registry.h"
#include "base/status.h"

namespace svcplane::apiserver::server {

class AccessControl;

struct AdmissionRegistries {
  registry::Registry<api::core::v1::Pod>* pods = nullptr;
  registry::Registry<api::core::v1::Node>* nodes = nullptr;
  registry::Registry<api::coordination::v1::Lease>* leases = nullptr;
  registry::Registry<api::rbac::v1::Role>* roles = nullptr;
  registry::Registry<api::rbac::v1::ClusterRole>* cluster_roles = nullptr;
  registry::Registry<api::rbac::v1::RoleBinding>* role_bindings = nullptr;
  registry::Registry<api::rbac::v1::ClusterRoleBinding>* cluster_role_bindings = nullptr;
  // Kinds with no checks of their own, admitted for the create-on-update authorization only.
  registry::Registry<api::core::v1::Service>* services = nullptr;
  registry::Registry<api::core::v1::Endpoints>* endpoints = nullptr;
  registry::Registry<api::core::v1::Event>* events = nullptr;
};

// Sets each registry's admission hook to the checks below, answered by `access`'s authorizer
// chain, RBAC rules and node graph. `access` must outlive the registries' use. Call before the
// registries serve requests.
void InstallAdmission(const AccessControl& access, const AdmissionRegistries& registries);

// A PUT that creates (create-on-update kinds: services, endpoints, events, leases and the RBAC
// kinds) is authorized for `create` as well (upstream endpoints/handlers/update.go
// withAuthorization): `update` alone must not let a user create. Refused: 403
// `<resource>.<group> "<name>" is forbidden: <the authorizer's reason>`, as upstream's
// NewForbidden words it; an authorizer error without an allow is a 500.
template <typename T>
Status AuthorizeCreateOnUpdate(const registry::AdmissionRequest<T>& a,
                               const authorization::Authorizer& chain) {
  if (a.operation != registry::AdmissionOperation::kCreate || a.path_name.empty()) {
    return Status::Ok();
  }
  const api::ResourceInfo& info = registry::InfoOf<T>();
  const http::Identity user{a.user.username, a.user.groups, a.user.uid, a.user.extra};
  authorization::Attributes attrs;
  attrs.user = &user;
  attrs.verb = "create";
  attrs.resource_request = true;
  attrs.api_group = std::string(info.group);
  attrs.api_version = std::string(info.version);
  attrs.resource = std::string(info.resource);
  attrs.ns = std::string(a.ns);
  attrs.name = std::string(a.path_name);
  const authorization::Result decided = chain.Authorize(attrs);
  if (decided.decision == authorization::Decision::kAllow) return Status::Ok();
  if (!decided.error.empty()) return InternalError(decided.error);
  const std::string resource = info.group.empty() ? std::string(info.resource)
                                                  : fmt::format("{}.{}", info.resource, info.group);
  return Status(Code::kForbidden,
                fmt::format("{} \"{}\" is forbidden: {}", resource, a.path_name, decided.reason));
}

// The checks themselves. Each returns OK or the error the write fails with: 403 Forbidden with
// upstream's text (the handler adds the details from the request), 404 when a binding's role
// is missing, 500 for a roleRef of an unknown kind.
Status AdmitPod(const registry::AdmissionRequest<api::core::v1::Pod>& request,
                const authorization::NodeGraph& graph);
Status AdmitNode(const registry::AdmissionRequest<api::core::v1::Node>& request);
Status AdmitLease(const registry::AdmissionRequest<api::coordination::v1::Lease>& request);

// What the escalation checks consult.
struct EscalationAuthority {
  const authorization::Authorizer& authorizer;        // the chain, for `escalate` and `bind`
  const authorization::PolicyRuleResolver& resolver;  // the RBAC rules users hold
};
Status AdmitRole(const registry::AdmissionRequest<api::rbac::v1::Role>& request,
                 const EscalationAuthority& authority);
Status AdmitClusterRole(const registry::AdmissionRequest<api::rbac::v1::ClusterRole>& request,
                        const EscalationAuthority& authority);
Status AdmitRoleBinding(const registry::AdmissionRequest<api::rbac::v1::RoleBinding>& request,
                        const EscalationAuthority& authority);
Status AdmitClusterRoleBinding(
    const registry::AdmissionRequest<api::rbac::v1::ClusterRoleBinding>& request,
    const EscalationAuthority& authority);

// rbacregistry.IsOnlyMutatingGCFields: `now` equals `before` once its ownerReferences,
// finalizers, selfLink and managedFields (and type meta) are taken from `before`.
template <typename T>
bool OnlyGcFieldsChanged(const T& now, const T& before) {
  T copy = now;
  copy.kind = before.kind;
  copy.api_version = before.api_version;
  copy.metadata.owner_references = before.metadata.owner_references;
  copy.metadata.finalizers = before.metadata.finalizers;
  copy.metadata.rest->self_link = before.metadata.rest->self_link;
  copy.metadata.rest->managed_fields = before.metadata.rest->managed_fields;
  return copy == before;
}

}  // namespace svcplane::apiserver::server
