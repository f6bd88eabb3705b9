#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/meta/types.h"
#include "api/rbac/v1/rbac.h"
#include "apiserver/authorization/authorizer.h"
#include "apiserver/authorization/rbac_authorizer.h"

// Privilege-escalation prevention for writes of the RBAC kinds (spec §3.6; upstream
// pkg/registry/rbac/{escalation_check.go,validation/rule.go} and the policybased storages).
// The RBAC storage calls these after the request itself was authorized; each returns nothing
// when the write may go ahead, else the Status to answer with.
namespace svcplane::apiserver::authorization {

using api::rbac::v1::PolicyRule;

// One requested rule split into atoms: (group, resource, verb[, name]) for each combination,
// then (URL, verb).
std::vector<PolicyRule> BreakdownRule(const PolicyRule& rule);
// Whether `owner` covers one atom: `*` covers anything in its slot (a requested verb `*` needs
// an owner `*`), owner `*/sub` covers `x/sub`, owner URL `p*` covers every URL starting with p,
// an owner without resourceNames covers any name.
bool RuleCovers(const PolicyRule& owner, const PolicyRule& atom);

struct Coverage {
  bool covered = true;
  std::vector<PolicyRule> missing;  // the uncovered atoms, in breakdown order
};
// validation.Covers: every atom of every requested rule is covered by some owner rule.
Coverage Covers(const std::vector<PolicyRule>& owner_rules,
                const std::vector<PolicyRule>& requested);

// validation.CompactRules: simple rules (one group, one resource, at most one name, nothing
// else) for the same (group, resource, name) are merged by appending their verbs.
std::vector<PolicyRule> CompactRules(const std::vector<PolicyRule>& rules);
// rbacv1helpers.CompactString: {APIGroups:["a"], Resources:["b"], NonResourceURLs:[...],
// ResourceNames:[...], Verbs:["get"]} with empty parts left out.
std::string CompactString(const PolicyRule& rule);

// Who is writing, and what the checks consult. All borrowed for the call.
struct EscalationContext {
  const http::Identity& user;
  const Authorizer& authorizer;        // the full chain, for `escalate` / `bind`
  const PolicyRuleResolver& resolver;  // the RBAC rules the user holds
};

// validation.ConfirmNoEscalation: nullopt if the rules `user` holds in `ns` ("" = cluster
// bindings only) cover `rules`; else the error text `user "<u>" (groups=[...]) is attempting
// to grant RBAC permissions not currently held:\n<compacted, sorted>[; resolution errors: [..]]`.
std::optional<std::string> ConfirmNoEscalation(const EscalationContext& ctx, std::string_view ns,
                                               const std::vector<PolicyRule>& rules);

// rbacregistry.EscalationAllowed: the user is in system:masters.
bool EscalationAllowed(const http::Identity& user);

// A Role or ClusterRole create/update. `request` is the authorized request (resource roles or
// clusterroles, group rbac, its namespace and name); `rules` the object's rules. Allowed when
// escalation is allowed, when `escalate` is authorized for the request, when only the GC fields
// (ownerReferences, finalizers) change on update, or when the user covers the rules.
std::optional<api::meta::StatusObject> CheckRoleWrite(const EscalationContext& ctx,
                                                      const Attributes& request,
                                                      std::string_view object_name,
                                                      const std::vector<PolicyRule>& rules,
                                                      bool only_gc_fields_changed = false);

// A ClusterRole create/update: CheckRoleWrite, then with an aggregationRule on the new (or, on
// update, the old) object the user must hold cluster-admin (`*` on `*.*` and URL `*`), else
// `clusterroles.rbac.authorization.k8s.io "<n>" is forbidden: must have cluster-admin
// privileges to use the aggregationRule`.
std::optional<api::meta::StatusObject> CheckClusterRoleWrite(
    const EscalationContext& ctx, const Attributes& request, const api::rbac::v1::ClusterRole& role,
    const api::rbac::v1::ClusterRole* old_role = nullptr, bool only_gc_fields_changed = false);

// A RoleBinding (binding_namespace != "") or ClusterRoleBinding (binding_namespace "")
// create/update. Allowed when escalation is allowed, when `bind` is authorized on the referenced
// role (resource roles/clusterroles, name = roleRef.name, namespace = the binding's), or when
// the user covers the referenced role's rules in the binding's namespace. A referenced role that
// does not exist (and no bind) answers 404 `<roles|clusterroles>.rbac.authorization.k8s.io
// "<n>" not found`.
std::optional<api::meta::StatusObject> CheckBindingWrite(const EscalationContext& ctx,
                                                         std::string_view binding_namespace,
                                                         std::string_view binding_name,
                                                         const api::rbac::v1::RoleRef& role_ref,
                                                         bool only_gc_fields_changed = false);

}  // namespace svcplane::apiserver::authorization
