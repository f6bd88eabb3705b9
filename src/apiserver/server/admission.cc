#include "apiserver/server/admission.h"

#include <fmt/format.h>

#include <optional>
#include <string>
#include <string_view>

#include "apiserver/authorization/escalation.h"
#include "apiserver/authorization/forbidden.h"
#include "apiserver/authorization/node_restriction.h"
#include "apiserver/server/access_control.h"

namespace svcplane::apiserver::server {

namespace {

using api::authentication::v1::UserInfo;
using api::coordination::v1::Lease;
using api::core::v1::Node;
using api::core::v1::Pod;
using api::rbac::v1::ClusterRole;
using api::rbac::v1::ClusterRoleBinding;
using api::rbac::v1::Role;
using api::rbac::v1::RoleBinding;
using registry::AdmissionOperation;
using registry::AdmissionRequest;

constexpr std::string_view kNodeUserPrefix = "system:node:";

http::Identity IdentityOf(const UserInfo& user) {
  return http::Identity{user.username, user.groups, user.uid, user.extra};
}

bool InGroup(const UserInfo& user, std::string_view group) {
  for (const std::string& g : user.groups) {
    if (g == group) return true;
  }
  return false;
}

// The library's answers are Status objects; the registry hands a Status up, and the REST
// handler writes the details (the request's resource and name) itself.
Status FromStatusObject(const std::optional<api::meta::StatusObject>& st) {
  if (!st) return Status::Ok();
  switch (st->code) {
    case 403:
      return Status(Code::kForbidden, st->message);
    case 404:
      return NotFoundError(st->message);
    default:
      return InternalError(st->message);
  }
}

// The node a request comes from (NodeIdentity): nullopt for everyone else. Most writers are
// not nodes, and are told apart without copying their identity.
std::optional<std::string> NodeOf(const UserInfo& user) {
  if (!user.username.starts_with(kNodeUserPrefix)) return std::nullopt;
  return authorization::NodeNameOf(IdentityOf(user));
}

authorization::AdmissionOperation LibraryOperation(AdmissionOperation op) {
  switch (op) {
    case AdmissionOperation::kCreate:
      return authorization::AdmissionOperation::kCreate;
    case AdmissionOperation::kUpdate:
      return authorization::AdmissionOperation::kUpdate;
    case AdmissionOperation::kDelete:
      break;
  }
  return authorization::AdmissionOperation::kDelete;
}

// admission.NewForbidden(a, err): the object is named by the request, else by the body's name,
// else its generateName, else "Unknown".
template <typename T>
std::string AdmissionName(const AdmissionRequest<T>& a) {
  if (!a.name.empty()) return std::string(a.name);
  if (a.object != nullptr && !a.object->metadata.rest->generate_name.empty()) {
    return a.object->metadata.rest->generate_name;
  }
  return "Unknown";
}

// Upstream's Admit refuses a user named exactly system:node: (in system:nodes).
template <typename T>
Status UnknownNode(const AdmissionRequest<T>& a, std::string_view group,
                   std::string_view resource) {
  return FromStatusObject(
      authorization::UnknownNodeStatus(a.user.username, group, resource, AdmissionName(a)));
}

// The request as upstream's RequestInfo describes it, for the `escalate` check.
authorization::Attributes RoleRequest(std::string_view resource, std::string_view ns,
                                      std::string_view path_name, AdmissionOperation op) {
  authorization::Attributes a;
  a.resource_request = true;
  a.verb = op == AdmissionOperation::kCreate ? "create" : "update";
  a.api_group = std::string(api::rbac::v1::kGroupName);
  a.api_version = "v1";
  a.resource = std::string(resource);
  a.ns = std::string(ns);
  a.name = std::string(path_name);
  return a;
}

// Whether the escalation checks concern this write at all: deletes never do, and members of
// system:masters may grant anything (rbacregistry.EscalationAllowed).
template <typename T>
bool EscalationChecked(const AdmissionRequest<T>& a) {
  return a.operation != AdmissionOperation::kDelete && a.object != nullptr &&
         !InGroup(a.user, authorization::kSystemMasters);
}

template <typename T>
bool OnlyGc(const AdmissionRequest<T>& a) {
  return a.old != nullptr && OnlyGcFieldsChanged(*a.object, *a.old);
}

}  // namespace

Status AdmitPod(const AdmissionRequest<Pod>& a, const authorization::NodeGraph& graph) {
  std::optional<std::string> node = NodeOf(a.user);
  if (!node) return Status::Ok();
  if (node->empty()) return UnknownNode(a, "", "pods");
  const bool status = a.subresource == registry::Subresource::kStatus;
  const auto op = LibraryOperation(a.operation);
  if (auto refused = authorization::AdmitPodOperation(*node, op, status, a.name)) {
    return FromStatusObject(refused);
  }
  if (status) {
    return FromStatusObject(authorization::AdmitPodStatusUpdate(*node, *a.old, *a.object));
  }
  if (a.operation == AdmissionOperation::kDelete) {
    return FromStatusObject(authorization::AdmitPodDelete(*node, a.ns, a.name, a.old));
  }
  if (!a.object->metadata.name.empty()) {
    return FromStatusObject(authorization::AdmitPodCreate(*node, *a.object, graph));
  }
  // Named as upstream names an object whose name is not generated yet.
  Pod named = *a.object;
  named.metadata.name = AdmissionName(a);
  return FromStatusObject(authorization::AdmitPodCreate(*node, named, graph));
}

Status AdmitNode(const AdmissionRequest<Node>& a) {
  std::optional<std::string> node = NodeOf(a.user);
  if (!node) return Status::Ok();
  if (node->empty()) return UnknownNode(a, "", "nodes");
  // A delete has no new object: only the name is checked, against the stored one. The name
  // compared is the request's (a generated name is not known yet, and never the node's).
  const Node& now = a.object != nullptr ? *a.object : *a.old;
  return FromStatusObject(
      authorization::AdmitNodeWrite(*node, LibraryOperation(a.operation), a.name, now, a.old));
}

Status AdmitLease(const AdmissionRequest<Lease>& a) {
  std::optional<std::string> node = NodeOf(a.user);
  if (!node) return Status::Ok();
  if (node->empty()) return UnknownNode(a, "coordination.k8s.io", "leases");
  return FromStatusObject(
      authorization::AdmitLease(*node, LibraryOperation(a.operation), a.ns, a.name, a.object));
}

Status AdmitRole(const AdmissionRequest<Role>& a, const EscalationAuthority& authority) {
  if (!EscalationChecked(a)) return Status::Ok();
  const http::Identity user = IdentityOf(a.user);
  authorization::EscalationContext ctx{user, authority.authorizer, authority.resolver};
  return FromStatusObject(
      authorization::CheckRoleWrite(ctx, RoleRequest("roles", a.ns, a.path_name, a.operation),
                                    a.object->metadata.name, a.object->rules, OnlyGc(a)));
}

Status AdmitClusterRole(const AdmissionRequest<ClusterRole>& a,
                        const EscalationAuthority& authority) {
  if (!EscalationChecked(a)) return Status::Ok();
  const http::Identity user = IdentityOf(a.user);
  authorization::EscalationContext ctx{user, authority.authorizer, authority.resolver};
  return FromStatusObject(authorization::CheckClusterRoleWrite(
      ctx, RoleRequest("clusterroles", "", a.path_name, a.operation), *a.object, a.old, OnlyGc(a)));
}

Status AdmitRoleBinding(const AdmissionRequest<RoleBinding>& a,
                        const EscalationAuthority& authority) {
  if (!EscalationChecked(a)) return Status::Ok();
  const http::Identity user = IdentityOf(a.user);
  authorization::EscalationContext ctx{user, authority.authorizer, authority.resolver};
  return FromStatusObject(authorization::CheckBindingWrite(ctx, a.ns, a.object->metadata.name,
                                                           a.object->role_ref, OnlyGc(a)));
}

Status AdmitClusterRoleBinding(const AdmissionRequest<ClusterRoleBinding>& a,
                               const EscalationAuthority& authority) {
  if (!EscalationChecked(a)) return Status::Ok();
  const http::Identity user = IdentityOf(a.user);
  authorization::EscalationContext ctx{user, authority.authorizer, authority.resolver};
  return FromStatusObject(authorization::CheckBindingWrite(ctx, "", a.object->metadata.name,
                                                           a.object->role_ref, OnlyGc(a)));
}

namespace {

// Sets `reg`'s admission: for a kind that creates on update, the `create` authorization of such
// a PUT first (upstream authorizes it before admission), then the kind's own checks, if any.
template <typename T>
void Admit(registry::Registry<T>* reg, const authorization::Authorizer& chain,
           std::function<Status(const AdmissionRequest<T>&)> kind_checks = nullptr) {
  if (reg == nullptr) return;
  reg->SetAdmission([&chain, kind_checks = std::move(kind_checks)](const AdmissionRequest<T>& a) {
    if constexpr (registry::KindTraits<T>::kCreateOnUpdate) {
      SVC_RETURN_IF_ERROR(AuthorizeCreateOnUpdate(a, chain));
    }
    return kind_checks ? kind_checks(a) : Status::Ok();
  });
}

}  // namespace

void InstallAdmission(const AccessControl& access, const AdmissionRegistries& r) {
  const authorization::Authorizer& chain = access.chain();
  const authorization::NodeGraph* graph = &access.node_graph();
  Admit<Pod>(r.pods, chain,
             [graph](const AdmissionRequest<Pod>& a) { return AdmitPod(a, *graph); });
  Admit<Node>(r.nodes, chain, AdmitNode);
  Admit<Lease>(r.leases, chain, AdmitLease);
  const EscalationAuthority authority{access.chain(), access.rbac()};
  Admit<Role>(r.roles, chain,
              [authority](const AdmissionRequest<Role>& a) { return AdmitRole(a, authority); });
  Admit<ClusterRole>(r.cluster_roles, chain, [authority](const AdmissionRequest<ClusterRole>& a) {
    return AdmitClusterRole(a, authority);
  });
  Admit<RoleBinding>(r.role_bindings, chain, [authority](const AdmissionRequest<RoleBinding>& a) {
    return AdmitRoleBinding(a, authority);
  });
  Admit<ClusterRoleBinding>(r.cluster_role_bindings, chain,
                            [authority](const AdmissionRequest<ClusterRoleBinding>& a) {
                              return AdmitClusterRoleBinding(a, authority);
                            });
  Admit<api::core::v1::Service>(r.services, chain);
  Admit<api::core::v1::Endpoints>(r.endpoints, chain);
  Admit<api::core::v1::Event>(r.events, chain);
}

}  // namespace svcplane::apiserver::server
