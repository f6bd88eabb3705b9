#include "apiserver/authorization/escalation.h"

#include <gtest/gtest.h>

#include "apiserver/authorization/bootstrap_policy.h"
#include "apiserver/authorization/testing_util.h"

namespace svcplane::apiserver::authorization {
namespace {

using namespace testing;

TEST(Covers, AtomsAndWildcards) {
  std::vector<PolicyRule> owner = {Rule({"get", "list"}, {""}, {"pods", "*/status"}),
                                   Rule({"get"}, {"apps"}, {"deployments"}, {"d1"}),
                                   UrlRule({"get"}, {"/healthz/*"})};
  EXPECT_TRUE(Covers(owner, {Rule({"get"}, {""}, {"pods", "nodes/status"})}).covered);
  EXPECT_TRUE(Covers(owner, {Rule({"get"}, {""}, {"pods"}, {"p1", "p2"})}).covered);
  EXPECT_TRUE(Covers(owner, {Rule({"get"}, {"apps"}, {"deployments"}, {"d1"})}).covered);
  EXPECT_FALSE(Covers(owner, {Rule({"get"}, {"apps"}, {"deployments"})}).covered);
  EXPECT_TRUE(Covers(owner, {UrlRule({"get"}, {"/healthz/etcd", "/healthz/"})}).covered);
  EXPECT_FALSE(Covers(owner, {UrlRule({"get"}, {"/healthz"})}).covered);
  // A requested `*` verb needs an owner `*`.
  Coverage star = Covers(owner, {Rule({"*"}, {""}, {"pods"})});
  ASSERT_FALSE(star.covered);
  EXPECT_EQ(star.missing.size(), 1u);
  EXPECT_TRUE(Covers({Rule({"*"}, {"*"}, {"*"})}, {Rule({"*"}, {"x"}, {"y/z"}, {"n"})}).covered);
  // Resource rules never cover URLs.
  EXPECT_FALSE(Covers({Rule({"*"}, {"*"}, {"*"})}, {UrlRule({"get"}, {"/x"})}).covered);
  Coverage partial = Covers(owner, {Rule({"get", "delete"}, {""}, {"pods", "nodes"})});
  ASSERT_EQ(partial.missing.size(), 3u);
  EXPECT_EQ(CompactString(partial.missing[0]),
            "{APIGroups:[\"\"], Resources:[\"pods\"], Verbs:[\"delete\"]}");
}

TEST(CompactRules, MergesSimpleRulesAndFormats) {
  std::vector<PolicyRule> atoms = {Rule({"get"}, {""}, {"nodes"}), Rule({"list"}, {""}, {"nodes"}),
                                   Rule({"get"}, {""}, {"pods"}, {"p1"}),
                                   UrlRule({"get"}, {"/metrics"})};
  std::vector<PolicyRule> c = CompactRules(atoms);
  ASSERT_EQ(c.size(), 3u);
  EXPECT_EQ(CompactString(c[0]), "{NonResourceURLs:[\"/metrics\"], Verbs:[\"get\"]}");
  EXPECT_EQ(CompactString(c[1]),
            "{APIGroups:[\"\"], Resources:[\"nodes\"], Verbs:[\"get\" \"list\"]}");
  EXPECT_EQ(CompactString(c[2]),
            "{APIGroups:[\"\"], Resources:[\"pods\"], ResourceNames:[\"p1\"], Verbs:[\"get\"]}");
}

// Spec §7 scenarios 20–23 on the RBAC authorizer the server runs.
class EscalationScenarios : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const auto& r : BootstrapClusterRoles()) rbac.UpsertClusterRole(r);
    for (const auto& b : BootstrapClusterRoleBindings()) rbac.UpsertClusterRoleBinding(b);
    // `admin` as the aggregation controller leaves it (the parts that matter here).
    rbac.UpsertClusterRole(MakeClusterRole(
        "admin",
        {Rule({"get", "list", "watch"}, {""}, {"pods", "services"}),
         Rule({"create", "delete", "deletecollection", "patch", "update"}, {""}, {"pods"}),
         Rule({"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"},
              {"rbac.authorization.k8s.io"}, {"rolebindings", "roles"})}));
    rbac.UpsertRoleBinding(
        MakeRoleBinding("demo", "jane-admin", "ClusterRole", "admin", {UserSubject("jane")}));
  }
  Attributes RoleCreate(const http::Identity& u) {
    return ResourceAttributes(u, "create", "demo", "rbac.authorization.k8s.io", "roles");
  }
  RbacAuthorizer rbac;
  PrivilegedGroupAuthorizer privileged;
  AuthorizerChain chain{{&privileged, &rbac}};
  http::Identity jane{"jane", {"dev", "system:authenticated"}, "", {}};
  http::Identity bob{"bob", {"system:authenticated"}, "", {}};
  http::Identity admin{"admin", {"system:masters", "system:authenticated"}, "", {}};
  EscalationContext jane_ctx{jane, chain, rbac};
};

TEST_F(EscalationScenarios, Scenario20RoleBeyondHeldRights) {
  auto denied = CheckRoleWrite(jane_ctx, RoleCreate(jane), "r", {Rule({"get"}, {""}, {"nodes"})});
  ASSERT_TRUE(denied.has_value());
  EXPECT_EQ(denied->code, 403);
  EXPECT_EQ(denied->reason, "Forbidden");
  EXPECT_EQ(denied->message,
            "roles.rbac.authorization.k8s.io \"r\" is forbidden: user \"jane\" "
            "(groups=[\"dev\" \"system:authenticated\"]) is attempting to grant RBAC permissions "
            "not currently held:\n{APIGroups:[\"\"], Resources:[\"nodes\"], Verbs:[\"get\"]}");
  EXPECT_EQ(denied->details->name, "r");
  EXPECT_EQ(denied->details->group, "rbac.authorization.k8s.io");
  EXPECT_EQ(denied->details->kind, "roles");
  EXPECT_FALSE(CheckRoleWrite(jane_ctx, RoleCreate(jane), "r", {Rule({"get"}, {""}, {"pods"})}));
  // An update that touches only GC fields is not checked.
  EXPECT_FALSE(CheckRoleWrite(jane_ctx, RoleCreate(jane), "r", {Rule({"get"}, {""}, {"nodes"})},
                              /*only_gc_fields_changed=*/true));
}

TEST_F(EscalationScenarios, Scenario21Escalate) {
  rbac.UpsertRole(MakeRole("demo", "escalator",
                           {Rule({"escalate"}, {"rbac.authorization.k8s.io"}, {"roles"})}));
  rbac.UpsertRoleBinding(
      MakeRoleBinding("demo", "jane-escalate", "Role", "escalator", {UserSubject("jane")}));
  EXPECT_FALSE(CheckRoleWrite(jane_ctx, RoleCreate(jane), "r", {Rule({"get"}, {""}, {"nodes"})}));
  // escalate in demo says nothing about another namespace.
  Attributes other = RoleCreate(jane);
  other.ns = "other";
  EXPECT_TRUE(CheckRoleWrite(jane_ctx, other, "r", {Rule({"get"}, {""}, {"nodes"})}));
}

TEST_F(EscalationScenarios, Scenario22BindIsPerRoleName) {
  RoleRef cluster_admin{"rbac.authorization.k8s.io", "ClusterRole", "cluster-admin", {}};
  RoleRef system_node{"rbac.authorization.k8s.io", "ClusterRole", "system:node", {}};
  auto a = CheckBindingWrite(jane_ctx, "demo", "x", cluster_admin);
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->message,
            "rolebindings.rbac.authorization.k8s.io \"x\" is forbidden: user \"jane\" "
            "(groups=[\"dev\" \"system:authenticated\"]) is attempting to grant RBAC permissions "
            "not currently held:\n{APIGroups:[\"*\"], Resources:[\"*\"], Verbs:[\"*\"]}\n"
            "{NonResourceURLs:[\"*\"], Verbs:[\"*\"]}");
  rbac.UpsertRole(MakeRole(
      "demo", "binder",
      {Rule({"bind"}, {"rbac.authorization.k8s.io"}, {"clusterroles"}, {"cluster-admin"})}));
  rbac.UpsertRoleBinding(
      MakeRoleBinding("demo", "jane-bind", "Role", "binder", {UserSubject("jane")}));
  EXPECT_TRUE(CheckBindingWrite(jane_ctx, "demo", "y", system_node).has_value());
  EXPECT_FALSE(CheckBindingWrite(jane_ctx, "demo", "x", cluster_admin).has_value());
  // bind in demo does not allow a ClusterRoleBinding.
  auto crb = CheckBindingWrite(jane_ctx, "", "x", cluster_admin);
  ASSERT_TRUE(crb.has_value());
  EXPECT_TRUE(crb->message.starts_with("clusterrolebindings.rbac.authorization.k8s.io \"x\""));
}

TEST_F(EscalationScenarios, BindingToRulesHeldIsAllowedAndMissingRoleIs404) {
  rbac.UpsertRole(MakeRole("demo", "reader", {Rule({"get"}, {""}, {"pods"})}));
  RoleRef reader{"rbac.authorization.k8s.io", "Role", "reader", {}};
  EXPECT_FALSE(CheckBindingWrite(jane_ctx, "demo", "b", reader).has_value());
  RoleRef ghost{"rbac.authorization.k8s.io", "Role", "ghost", {}};
  auto missing = CheckBindingWrite(jane_ctx, "demo", "b", ghost);
  ASSERT_TRUE(missing.has_value());
  EXPECT_EQ(missing->code, 404);
  EXPECT_EQ(missing->message, "roles.rbac.authorization.k8s.io \"ghost\" not found");
}

TEST_F(EscalationScenarios, Scenario23AggregationRuleNeedsClusterAdmin) {
  rbac.UpsertClusterRole(MakeClusterRole(
      "cr-creator", {Rule({"create"}, {"rbac.authorization.k8s.io"}, {"clusterroles"})}));
  rbac.UpsertClusterRoleBinding(
      MakeClusterRoleBinding("bob-cr", "cr-creator", {UserSubject("bob")}));
  EscalationContext bob_ctx{bob, chain, rbac};
  Attributes create =
      ResourceAttributes(bob, "create", "", "rbac.authorization.k8s.io", "clusterroles");
  ClusterRole agg = MakeClusterRole("agg", {});
  agg.aggregation_rule.emplace();
  api::selectors::LabelSelectorSpec sel;
  sel.match_labels["team"] = "x";
  agg.aggregation_rule->cluster_role_selectors.push_back(sel);
  auto denied = CheckClusterRoleWrite(bob_ctx, create, agg);
  ASSERT_TRUE(denied.has_value());
  EXPECT_EQ(denied->message,
            "clusterroles.rbac.authorization.k8s.io \"agg\" is forbidden: must have "
            "cluster-admin privileges to use the aggregationRule");
  EXPECT_FALSE(CheckClusterRoleWrite(bob_ctx, create, MakeClusterRole("agg2", {})).has_value());
  // Removing an aggregationRule on update also needs it.
  EXPECT_TRUE(CheckClusterRoleWrite(bob_ctx, create, MakeClusterRole("agg", {}), &agg));
  EscalationContext admin_ctx{admin, chain, rbac};
  EXPECT_FALSE(
      CheckClusterRoleWrite(
          admin_ctx,
          ResourceAttributes(admin, "create", "", "rbac.authorization.k8s.io", "clusterroles"), agg)
          .has_value());
}

TEST_F(EscalationScenarios, Scenario26SystemMastersBypass) {
  EscalationContext admin_ctx{admin, chain, rbac};
  RoleRef anything{"rbac.authorization.k8s.io", "ClusterRole", "does-not-exist", {}};
  EXPECT_FALSE(CheckBindingWrite(admin_ctx, "", "b", anything).has_value());
  EXPECT_FALSE(CheckRoleWrite(admin_ctx, RoleCreate(admin), "r", {Rule({"*"}, {"*"}, {"*"})}));
}

TEST_F(EscalationScenarios, ResolutionErrorsAreAppended) {
  rbac.UpsertRoleBinding(MakeRoleBinding("demo", "ghost", "Role", "ghost", {UserSubject("jane")}));
  auto denied = CheckRoleWrite(jane_ctx, RoleCreate(jane), "r", {Rule({"get"}, {""}, {"nodes"})});
  ASSERT_TRUE(denied.has_value());
  EXPECT_TRUE(denied->message.ends_with(
      "Verbs:[\"get\"]}; resolution errors: [role.rbac.authorization.k8s.io \"ghost\" not "
      "found]"))
      << denied->message;
}

}  // namespace
}  // namespace svcplane::apiserver::authorization
