#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/rbac/v1/rbac.h"
#include "apiserver/authorization/authorizer.h"

// The RBAC authorizer (upstream plugin/pkg/auth/authorizer/rbac, spec §3.2, §3.5, §3.9) over an
// in-memory index of the four RBAC kinds.
//
// Readers work on an immutable snapshot reached through one atomic shared_ptr: bindings are
// indexed by subject (user name, group; ServiceAccount subjects by their username), so a
// decision looks only at the bindings naming the requester, then at the rules of their roles.
// Writers (fed by watches) upsert or delete one object at a time under a mutex; a change
// rebuilds only the part it touches: one namespace's Roles or RoleBindings, the
// ClusterRoleBinding index, or the ClusterRole table, and shares the rest with the old snapshot.
namespace svcplane::apiserver::authorization {

namespace internal {
struct RbacSnapshot;
}

// The raw rules a user holds in a namespace (for escalation checks), plus role-resolution
// errors, aggregated as upstream's rule resolver reports them.
struct PolicyRules {
  std::vector<api::rbac::v1::PolicyRule> rules;
  std::string error;  // "" when every referenced role resolved
};

// Upstream validation.AuthorizationRuleResolver, as the escalation checks need it.
class PolicyRuleResolver {
 public:
  virtual ~PolicyRuleResolver() = default;
  // Every rule of every ClusterRoleBinding, then (ns != "") RoleBinding of `ns`, naming `user`.
  virtual PolicyRules PolicyRulesFor(const http::Identity& user, std::string_view ns) const = 0;
  // The rules of the role a binding in `binding_namespace` refers to; nullopt if it is missing.
  virtual std::optional<std::vector<api::rbac::v1::PolicyRule>> RoleReferenceRules(
      const api::rbac::v1::RoleRef& ref, std::string_view binding_namespace) const = 0;
};

class RbacAuthorizer final : public AuthorizerWithRules, public PolicyRuleResolver {
 public:
  RbacAuthorizer();
  ~RbacAuthorizer() override;

  // Decision: Allow with `RBAC: allowed by ...`, else NoOpinion with "" or
  // `RBAC: <role resolution errors>`. Never Deny.
  Result Authorize(const Attributes& attributes) const override;
  // SelfSubjectRulesReview: ClusterRoleBindings first, then RoleBindings of `ns`; unmerged.
  // Role resolution errors go to evaluation_error (incomplete stays false, as upstream).
  RulesResult RulesFor(const http::Identity& user, std::string_view ns) const override;
  PolicyRules PolicyRulesFor(const http::Identity& user, std::string_view ns) const override;
  std::optional<std::vector<api::rbac::v1::PolicyRule>> RoleReferenceRules(
      const api::rbac::v1::RoleRef& ref, std::string_view binding_namespace) const override;

  // Writers. Safe from any thread; each publishes a new snapshot before returning.
  void UpsertRole(const api::rbac::v1::Role& role);
  void DeleteRole(std::string_view ns, std::string_view name);
  void UpsertClusterRole(const api::rbac::v1::ClusterRole& role);
  void DeleteClusterRole(std::string_view name);
  void UpsertRoleBinding(const api::rbac::v1::RoleBinding& binding);
  void DeleteRoleBinding(std::string_view ns, std::string_view name);
  void UpsertClusterRoleBinding(const api::rbac::v1::ClusterRoleBinding& binding);
  void DeleteClusterRoleBinding(std::string_view name);

  // Initial load (after a LIST): replaces everything and publishes once.
  struct Objects {
    std::vector<api::rbac::v1::Role> roles;
    std::vector<api::rbac::v1::ClusterRole> cluster_roles;
    std::vector<api::rbac::v1::RoleBinding> role_bindings;
    std::vector<api::rbac::v1::ClusterRoleBinding> cluster_role_bindings;
  };
  void ReplaceAll(const Objects& objects);

 private:
  std::shared_ptr<const internal::RbacSnapshot> Load() const;
  // The current snapshot for a reader on this thread, without touching the shared reference
  // count (each thread keeps its own reference until the version changes), so readers on many
  // cores do not contend on one cache line. Valid until this thread's next ReadSnapshot call.
  const internal::RbacSnapshot& ReadSnapshot() const;
  // Applies `change` to a copy of the current snapshot and publishes it. Writers serialize on
  // mu_; readers never take it.
  template <typename Change>
  void Update(Change&& change);
  void Publish(std::shared_ptr<const internal::RbacSnapshot> next);

  std::atomic<std::shared_ptr<const internal::RbacSnapshot>> snapshot_;
  // Process-wide unique per publication, so a thread's cached snapshot can never be taken for
  // another authorizer's.
  std::atomic<uint64_t> version_{0};
  std::mutex mu_;
};

}  // namespace svcplane::apiserver::authorization
