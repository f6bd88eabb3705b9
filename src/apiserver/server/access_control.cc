#include "apiserver/server/access_control.h"

#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>

#include "apiserver/audit/context.h"
#include "apiserver/authorization/bootstrap_policy.h"
#include "apiserver/authorization/forbidden.h"
#include "apiserver/authorization/impersonation.h"
#include "apiserver/authorization/reconcile.h"
#include "apiserver/authorization/request_attributes.h"
#include "apiserver/rest/status_body.h"
#include "apiserver/server/registry_feed.h"
#include "base/logging.h"

namespace svcplane::apiserver::server {

namespace {

using api::rbac::v1::ClusterRole;
using api::rbac::v1::ClusterRoleBinding;
using api::rbac::v1::Role;
using api::rbac::v1::RoleBinding;
using authorization::Decision;

// The Node authorizer's view of pods and nodes: this server's cache (upstream: the node graph
// fed by informers; a stored spec.nodeName is the same fact, and never staler than an informer).
class RegistryNodeGraph final : public authorization::NodeGraph {
 public:
  RegistryNodeGraph(registry::Registry<api::core::v1::Pod>* pods,
                    registry::Registry<api::core::v1::Node>* nodes)
      : pods_(pods), nodes_(nodes) {}

  std::optional<std::string> PodNodeName(std::string_view ns,
                                         std::string_view name) const override {
    auto pod = pods_->GetCached(ns, name);
    if (!pod.ok() || !pod->obj) return std::nullopt;
    return pod->obj->spec.node_name;
  }
  std::optional<std::string> NodeUid(std::string_view name) const override {
    auto node = nodes_->GetCached("", name);
    if (!node.ok() || !node->obj) return std::nullopt;
    return node->obj->metadata.uid;
  }

 private:
  registry::Registry<api::core::v1::Pod>* pods_;
  registry::Registry<api::core::v1::Node>* nodes_;
};

// Names (ns/name) a feed applied last, so a re-list can delete the ones that went away.
using NameSet = std::set<std::pair<std::string, std::string>>;

template <typename T>
std::pair<std::string, std::string> NameOf(const T& obj) {
  return {obj.metadata.namespace_, obj.metadata.name};
}

}  // namespace

struct AccessControl::Impl {
  explicit Impl(AccessControlRegistries r)
      : registries(r), graph(r.pods, r.nodes), node(graph), chain({&privileged, &node, &rbac}) {}

  // A feed of one RBAC kind into the index: upsert/delete per event, and on a (re-)list the
  // difference from what it applied before.
  template <typename T>
  std::unique_ptr<RegistryFeed<T>> FeedOf(registry::Registry<T>* reg,
                                          std::function<void(const T&)> upsert,
                                          std::function<void(const T&)> remove) {
    auto names = std::make_shared<NameSet>();
    typename RegistryFeed<T>::Callbacks cb;
    cb.replace = [names, upsert, remove](std::vector<std::shared_ptr<const T>> all) {
      NameSet now;
      for (const auto& obj : all) {
        now.insert(NameOf(*obj));
        upsert(*obj);
      }
      for (const auto& [ns, name] : *names) {
        if (now.count({ns, name})) continue;
        T gone;
        gone.metadata.namespace_ = ns;
        gone.metadata.name = name;
        remove(gone);
      }
      *names = std::move(now);
    };
    cb.upsert = [names, upsert](std::shared_ptr<const T> obj) {
      names->insert(NameOf(*obj));
      upsert(*obj);
    };
    cb.remove = [names, remove](const T& last) {
      names->erase(NameOf(last));
      remove(last);
    };
    return std::make_unique<RegistryFeed<T>>(reg, std::move(cb));
  }

  AccessControlRegistries registries;
  RegistryNodeGraph graph;
  authorization::PrivilegedGroupAuthorizer privileged;
  authorization::NodeAuthorizer node;
  authorization::RbacAuthorizer rbac;
  authorization::AuthorizerChain chain;
  std::unique_ptr<RegistryFeed<Role>> roles;
  std::unique_ptr<RegistryFeed<ClusterRole>> cluster_roles;
  std::unique_ptr<RegistryFeed<RoleBinding>> role_bindings;
  std::unique_ptr<RegistryFeed<ClusterRoleBinding>> cluster_role_bindings;
};

void AnnotateAudit(const http::Request& request, const AccessDecision& decided) {
  if (decided.impersonated) audit::SetImpersonatedUser(request, *decided.impersonated);
  if (decided.authorizer_error) {
    audit::AddAnnotation(request, audit::kReasonAnnotation, "internal error");
  } else if (decided.authorized) {
    audit::SetAuthorizationDecision(request, decided.allowed, decided.reason);
  }
}

AccessControl::AccessControl(AccessControlRegistries registries)
    : impl_(std::make_unique<Impl>(registries)) {}

AccessControl::~AccessControl() {
  // Feeds first: their callbacks write into the index.
  impl_->roles.reset();
  impl_->cluster_roles.reset();
  impl_->role_bindings.reset();
  impl_->cluster_role_bindings.reset();
}

Status AccessControl::Start(std::chrono::milliseconds timeout) {
  auto& rbac = impl_->rbac;
  impl_->roles = impl_->FeedOf<Role>(
      impl_->registries.roles, [&rbac](const Role& r) { rbac.UpsertRole(r); },
      [&rbac](const Role& r) { rbac.DeleteRole(r.metadata.namespace_, r.metadata.name); });
  impl_->cluster_roles = impl_->FeedOf<ClusterRole>(
      impl_->registries.cluster_roles, [&rbac](const ClusterRole& r) { rbac.UpsertClusterRole(r); },
      [&rbac](const ClusterRole& r) { rbac.DeleteClusterRole(r.metadata.name); });
  impl_->role_bindings = impl_->FeedOf<RoleBinding>(
      impl_->registries.role_bindings, [&rbac](const RoleBinding& b) { rbac.UpsertRoleBinding(b); },
      [&rbac](const RoleBinding& b) {
        rbac.DeleteRoleBinding(b.metadata.namespace_, b.metadata.name);
      });
  impl_->cluster_role_bindings = impl_->FeedOf<ClusterRoleBinding>(
      impl_->registries.cluster_role_bindings,
      [&rbac](const ClusterRoleBinding& b) { rbac.UpsertClusterRoleBinding(b); },
      [&rbac](const ClusterRoleBinding& b) { rbac.DeleteClusterRoleBinding(b.metadata.name); });
  impl_->roles->Start("rbac-roles");
  impl_->cluster_roles->Start("rbac-croles");
  impl_->role_bindings->Start("rbac-rbinds");
  impl_->cluster_role_bindings->Start("rbac-crbinds");
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!(impl_->roles->synced() && impl_->cluster_roles->synced() &&
           impl_->role_bindings->synced() && impl_->cluster_role_bindings->synced())) {
    if (std::chrono::steady_clock::now() > deadline) {
      return UnavailableError("the RBAC authorizer did not load the stored roles and bindings");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return Status::Ok();
}

namespace {

// One bootstrap object through the pure reconciler, written with the server's own authority.
template <typename T, typename ReconcileFn>
Status ReconcileOne(registry::Registry<T>& reg, const T& bootstrap, ReconcileFn reconcile) {
  for (int attempt = 0; attempt < 5; ++attempt) {
    auto current = reg.Get("", bootstrap.metadata.name);
    if (!current.ok() && current.status().code() != Code::kNotFound) return current.status();
    const T* existing = current.ok() ? current->obj.get() : nullptr;
    auto decided = reconcile(existing, bootstrap);
    Status written = Status::Ok();
    switch (decided.action) {
      case authorization::ReconcileAction::kNone:
        return Status::Ok();
      case authorization::ReconcileAction::kCreate: {
        auto r = reg.Create("", std::move(decided.object), {});
        written = r.ok() ? Status::Ok() : r.status();
        break;
      }
      case authorization::ReconcileAction::kUpdate: {
        decided.object.metadata.resource_version = existing->metadata.resource_version;
        auto r = reg.Update("", bootstrap.metadata.name, registry::Subresource::kNone,
                            std::move(decided.object), {});
        written = r.ok() ? Status::Ok() : r.status();
        break;
      }
      case authorization::ReconcileAction::kRecreate: {
        auto d = reg.Delete("", bootstrap.metadata.name, {});
        if (!d.ok() && d.status().code() != Code::kNotFound) return d.status();
        decided.object.metadata.resource_version.clear();
        auto r = reg.Create("", std::move(decided.object), {});
        written = r.ok() ? Status::Ok() : r.status();
        break;
      }
    }
    // Another server reconciling at the same moment: read again and redo.
    if (written.ok()) return written;
    if (written.code() != Code::kConflict && written.code() != Code::kAlreadyExists) {
      return written;
    }
  }
  return ConflictError("bootstrap policy object \"" + bootstrap.metadata.name +
                       "\" kept changing while being reconciled");
}

}  // namespace

Status AccessControl::ReconcileBootstrapPolicy() {
  for (const auto& role : authorization::BootstrapClusterRoles()) {
    Status st = ReconcileOne(*impl_->registries.cluster_roles, role,
                             [](const ClusterRole* existing, const ClusterRole& want) {
                               return authorization::ReconcileClusterRole(existing, want);
                             });
    if (!st.ok()) {
      return Status(st.code(),
                    "reconciling ClusterRole " + role.metadata.name + ": " + st.message());
    }
  }
  for (const auto& binding : authorization::BootstrapClusterRoleBindings()) {
    Status st =
        ReconcileOne(*impl_->registries.cluster_role_bindings, binding,
                     [](const ClusterRoleBinding* existing, const ClusterRoleBinding& want) {
                       return authorization::ReconcileClusterRoleBinding(existing, want);
                     });
    if (!st.ok()) {
      return Status(st.code(), "reconciling ClusterRoleBinding " + binding.metadata.name + ": " +
                                   st.message());
    }
  }
  return Status::Ok();
}

Status AccessControl::BindClusterAdminsOnce(const std::string& group) {
  auto& roles = *impl_->registries.cluster_roles;
  auto& bindings = *impl_->registries.cluster_role_bindings;
  for (int attempt = 0; attempt < 5; ++attempt) {
    auto admin_role = roles.Get("", "cluster-admin");  // reconciled just before
    if (!admin_role.ok()) return admin_role.status();
    if (admin_role->obj->metadata.annotations.contains(kClusterAdminsBoundAnnotation)) {
      return Status::Ok();  // done once already; a missing binding was revoked on purpose
    }
    ClusterRoleBinding binding;
    binding.metadata.name = group;
    binding.role_ref = {
        .api_group = "rbac.authorization.k8s.io", .kind = "ClusterRole", .name = "cluster-admin"};
    binding.subjects.push_back(
        {.kind = "Group", .api_group = "rbac.authorization.k8s.io", .name = group});
    auto created = bindings.Create("", std::move(binding), {});
    if (!created.ok() && created.status().code() != Code::kAlreadyExists) {
      return Status(created.status().code(),
                    "creating ClusterRoleBinding " + group + ": " + created.status().message());
    }
    // The mark after the binding: a crash in between creates it again (AlreadyExists).
    ClusterRole marked = *admin_role->obj;
    marked.metadata.annotations[std::string(kClusterAdminsBoundAnnotation)] = group;
    auto updated =
        roles.Update("", "cluster-admin", registry::Subresource::kNone, std::move(marked), {});
    if (updated.ok()) {
      spdlog::info("bound group {} to ClusterRole cluster-admin (DATA_DIR/kubeconfig's user)",
                   group);
      return Status::Ok();
    }
    if (updated.status().code() != Code::kConflict) return updated.status();
  }
  return ConflictError("ClusterRole cluster-admin kept changing while being marked");
}

AccessDecision AccessControl::Check(const http::Request& request) const {
  AccessDecision out;
  const http::Identity* who = &request.identity;
  auto imp = authorization::Impersonate(request.identity, request.headers, impl_->chain);
  switch (imp.kind) {
    case authorization::ImpersonationOutcome::Kind::kNone:
      break;
    case authorization::ImpersonationOutcome::Kind::kImpersonated:
      out.impersonated = std::move(imp.identity);
      who = &*out.impersonated;
      break;
    case authorization::ImpersonationOutcome::Kind::kForbidden:
      out.reason = imp.reason;
      out.response = authorization::ForbiddenResponse(imp.denied, imp.reason);
      return out;
    case authorization::ImpersonationOutcome::Kind::kBadRequest:
      out.response = rest::ErrorResponse(BadRequestError(imp.message));
      return out;
  }
  authorization::Attributes attributes = authorization::AttributesFromRequest(request);
  attributes.user = who;
  authorization::Result decision = impl_->chain.Authorize(attributes);
  out.authorized = true;
  out.reason = decision.reason;
  if (decision.decision == Decision::kAllow) {
    out.allowed = true;
    return out;
  }
  if (decision.decision != Decision::kDeny && !decision.error.empty()) {
    spdlog::error("authorizing {} {}: {}", request.method, request.target, decision.error);
    out.authorizer_error = true;
    out.reason = "internal error";
    out.response = authorization::InternalErrorResponse(request.target, decision.error);
    return out;
  }
  out.response = authorization::ForbiddenResponse(attributes, decision.reason);
  return out;
}

api::authorization::v1::SubjectAccessReviewStatus AccessControl::ReviewAccess(
    const api::authorization::v1::SelfSubjectAccessReview& review,
    const http::Identity& user) const {
  authorization::Attributes a;
  a.user = &user;
  if (const auto& r = review.spec.resource_attributes) {
    a.resource_request = true;
    a.verb = r->verb;
    a.ns = r->ns;
    a.api_group = r->group;
    a.api_version = r->version;
    a.resource = r->resource;
    a.subresource = r->subresource;
    a.name = r->name;
    if (r->field_selector) a.field_selector = r->field_selector->raw_selector;
    if (r->label_selector) a.label_selector = r->label_selector->raw_selector;
  } else if (const auto& n = review.spec.non_resource_attributes) {
    a.path = n->path;
    a.verb = n->verb;
  }
  authorization::Result decided = impl_->chain.Authorize(a);
  api::authorization::v1::SubjectAccessReviewStatus status;
  status.allowed = decided.decision == Decision::kAllow;
  status.denied = decided.decision == Decision::kDeny;
  status.reason = decided.reason;
  status.evaluation_error = decided.error;
  return status;
}

api::authorization::v1::SubjectRulesReviewStatus AccessControl::ReviewRules(
    std::string_view ns, const http::Identity& user) const {
  authorization::RulesResult rules = impl_->chain.RulesFor(user, ns);
  api::authorization::v1::SubjectRulesReviewStatus status;
  for (auto& r : rules.resource_rules) {
    status.resource_rules.push_back({.verbs = std::move(r.verbs),
                                     .api_groups = std::move(r.api_groups),
                                     .resources = std::move(r.resources),
                                     .resource_names = std::move(r.resource_names)});
  }
  for (auto& r : rules.non_resource_rules) {
    status.non_resource_rules.push_back(
        {.verbs = std::move(r.verbs), .non_resource_urls = std::move(r.non_resource_urls)});
  }
  status.incomplete = rules.incomplete;
  status.evaluation_error = std::move(rules.evaluation_error);
  return status;
}

const authorization::AuthorizerWithRules& AccessControl::chain() const { return impl_->chain; }
const authorization::RbacAuthorizer& AccessControl::rbac() const { return impl_->rbac; }
const authorization::NodeGraph& AccessControl::node_graph() const { return impl_->graph; }

}  // namespace svcplane::apiserver::server
