#include "apiserver/authorization/rbac_authorizer.h"

#include <gtest/gtest.h>

#include <thread>

#include "apiserver/authorization/rbac_rules.h"

namespace svcplane::apiserver::authorization {
namespace {

using namespace api::rbac::v1;

PolicyRule Rule(std::vector<std::string> verbs, std::vector<std::string> groups,
                std::vector<std::string> resources, std::vector<std::string> names = {}) {
  PolicyRule r;
  r.verbs = std::move(verbs);
  r.api_groups = std::move(groups);
  r.resources = std::move(resources);
  r.resource_names = std::move(names);
  return r;
}

PolicyRule UrlRule(std::vector<std::string> verbs, std::vector<std::string> urls) {
  PolicyRule r;
  r.verbs = std::move(verbs);
  r.non_resource_urls = std::move(urls);
  return r;
}

Subject User(std::string name) { return Subject{"User", std::string(kGroupName), name, "", {}}; }
Subject Group(std::string name) { return Subject{"Group", std::string(kGroupName), name, "", {}}; }
Subject SA(std::string name, std::string ns = "") {
  return Subject{"ServiceAccount", "", name, ns, {}};
}

Role MakeRole(std::string ns, std::string name, std::vector<PolicyRule> rules) {
  Role r;
  r.metadata.namespace_ = ns;
  r.metadata.name = name;
  r.rules = std::move(rules);
  return r;
}
ClusterRole MakeClusterRole(std::string name, std::vector<PolicyRule> rules) {
  ClusterRole r;
  r.metadata.name = name;
  r.rules = std::move(rules);
  return r;
}
RoleBinding MakeRB(std::string ns, std::string name, std::string kind, std::string role,
                   std::vector<Subject> subjects) {
  RoleBinding b;
  b.metadata.namespace_ = ns;
  b.metadata.name = name;
  b.role_ref = RoleRef{std::string(kGroupName), kind, role, {}};
  b.subjects = std::move(subjects);
  return b;
}
ClusterRoleBinding MakeCRB(std::string name, std::string role, std::vector<Subject> subjects) {
  ClusterRoleBinding b;
  b.metadata.name = name;
  b.role_ref = RoleRef{std::string(kGroupName), "ClusterRole", role, {}};
  b.subjects = std::move(subjects);
  return b;
}

Attributes Res(const http::Identity& u, std::string verb, std::string ns, std::string group,
               std::string resource, std::string sub = "", std::string name = "") {
  Attributes a;
  a.user = &u;
  a.resource_request = true;
  a.verb = std::move(verb);
  a.ns = std::move(ns);
  a.api_group = std::move(group);
  a.resource = std::move(resource);
  a.subresource = std::move(sub);
  a.name = std::move(name);
  return a;
}
Attributes Path(const http::Identity& u, std::string verb, std::string path) {
  Attributes a;
  a.user = &u;
  a.verb = std::move(verb);
  a.path = std::move(path);
  return a;
}

const http::Identity kJane{"jane", {"dev", "system:authenticated"}, "", {}};
const http::Identity kBob{"bob", {"system:authenticated"}, "", {}};

TEST(RuleMatching, ResourcesAndSubresources) {
  PolicyRule pods = Rule({"get"}, {""}, {"pods"});
  EXPECT_TRUE(ResourceMatches(pods, "pods", ""));
  EXPECT_FALSE(ResourceMatches(pods, "pods", "status"));
  PolicyRule status = Rule({"patch"}, {""}, {"*/status"});
  EXPECT_TRUE(ResourceMatches(status, "pods", "status"));
  EXPECT_TRUE(ResourceMatches(status, "nodes", "status"));
  EXPECT_FALSE(ResourceMatches(status, "pods", ""));
  EXPECT_FALSE(ResourceMatches(status, "pods", "log"));
  PolicyRule exact = Rule({"patch"}, {""}, {"pods/status"});
  EXPECT_TRUE(ResourceMatches(exact, "pods", "status"));
  EXPECT_FALSE(ResourceMatches(exact, "nodes", "status"));
  EXPECT_TRUE(ResourceMatches(Rule({"*"}, {"*"}, {"*"}), "pods", "status"));
}

TEST(RuleMatching, VerbsGroupsNames) {
  PolicyRule r = Rule({"get", "list"}, {"", "apps"}, {"pods"}, {"p1"});
  EXPECT_TRUE(RuleAllows(Res(kJane, "get", "demo", "", "pods", "", "p1"), r));
  EXPECT_FALSE(RuleAllows(Res(kJane, "get", "demo", "", "pods", "", "p2"), r));
  EXPECT_FALSE(RuleAllows(Res(kJane, "list", "demo", "", "pods"), r));  // no name
  EXPECT_TRUE(RuleAllows(Res(kJane, "list", "demo", "apps", "pods", "", "p1"), r));
  EXPECT_FALSE(RuleAllows(Res(kJane, "list", "demo", "batch", "pods", "", "p1"), r));
  EXPECT_FALSE(RuleAllows(Res(kJane, "delete", "demo", "", "pods", "", "p1"), r));
  EXPECT_TRUE(RuleAllows(Res(kJane, "escalate", "", "x", "y"), Rule({"*"}, {"*"}, {"*"})));
}

TEST(RuleMatching, NonResourceUrls) {
  PolicyRule r = UrlRule({"get"}, {"/metrics", "/healthz/*"});
  EXPECT_TRUE(RuleAllows(Path(kBob, "get", "/metrics"), r));
  EXPECT_TRUE(RuleAllows(Path(kBob, "get", "/healthz/ping"), r));
  EXPECT_TRUE(RuleAllows(Path(kBob, "get", "/healthz/"), r));
  EXPECT_FALSE(RuleAllows(Path(kBob, "get", "/healthz"), r));
  EXPECT_FALSE(RuleAllows(Path(kBob, "get", "/livez/ping"), r));
  EXPECT_FALSE(RuleAllows(Path(kBob, "post", "/metrics"), r));
  EXPECT_TRUE(RuleAllows(Path(kBob, "post", "/anything"), UrlRule({"*"}, {"*"})));
  // Resource rules never match non-resource requests and vice versa.
  EXPECT_FALSE(RuleAllows(Path(kBob, "get", "/api"), Rule({"*"}, {"*"}, {"*"})));
  EXPECT_FALSE(RuleAllows(Res(kBob, "get", "", "", "pods"), UrlRule({"*"}, {"*"})));
}

TEST(SubjectMatching, UsersGroupsServiceAccounts) {
  http::Identity sa{"system:serviceaccount:demo:sa", {"system:serviceaccounts"}, "", {}};
  EXPECT_TRUE(SubjectMatches(kJane, User("jane"), ""));
  EXPECT_FALSE(SubjectMatches(kJane, User("Jane"), ""));
  EXPECT_TRUE(SubjectMatches(kJane, Group("dev"), ""));
  EXPECT_TRUE(SubjectMatches(sa, SA("sa"), "demo"));
  EXPECT_TRUE(SubjectMatches(sa, SA("sa", "demo"), "other"));
  EXPECT_FALSE(SubjectMatches(sa, SA("sa"), ""));  // ClusterRoleBinding without namespace
  EXPECT_FALSE(SubjectMatches(sa, SA("sa", "other"), "demo"));
  EXPECT_FALSE(SubjectMatches(sa, SA("s"), "demo"));
  EXPECT_FALSE(SubjectMatches(sa, Subject{"Robot", "", "x", "", {}}, ""));
}

class RbacAuthorizerTest : public ::testing::Test {
 protected:
  RbacAuthorizer rbac;
};

TEST_F(RbacAuthorizerTest, ClusterRoleBindingReason) {
  rbac.UpsertClusterRole(MakeClusterRole("reader", {Rule({"get", "list"}, {""}, {"pods"})}));
  rbac.UpsertClusterRoleBinding(MakeCRB("jane-reader", "reader", {User("jane")}));
  Result r = rbac.Authorize(Res(kJane, "list", "", "", "pods"));
  EXPECT_EQ(r.decision, Decision::kAllow);
  EXPECT_EQ(r.reason,
            "RBAC: allowed by ClusterRoleBinding \"jane-reader\" of ClusterRole \"reader\" to "
            "User \"jane\"");
  Result no = rbac.Authorize(Res(kBob, "list", "", "", "pods"));
  EXPECT_EQ(no.decision, Decision::kNoOpinion);
  EXPECT_EQ(no.reason, "");
}

TEST_F(RbacAuthorizerTest, RoleBindingReasonsForGroupAndServiceAccount) {
  rbac.UpsertClusterRole(MakeClusterRole("view", {Rule({"get", "list", "watch"}, {""}, {"pods"})}));
  rbac.UpsertRoleBinding(MakeRB("demo", "jane-view", "ClusterRole", "view", {Group("dev")}));
  Result r = rbac.Authorize(Res(kJane, "list", "demo", "", "pods"));
  EXPECT_EQ(r.reason,
            "RBAC: allowed by RoleBinding \"jane-view/demo\" of ClusterRole \"view\" to Group "
            "\"dev\"");
  // A RoleBinding grants a ClusterRole's rules only inside its namespace.
  EXPECT_EQ(rbac.Authorize(Res(kJane, "list", "other", "", "pods")).decision, Decision::kNoOpinion);
  EXPECT_EQ(rbac.Authorize(Res(kJane, "list", "", "", "pods")).decision, Decision::kNoOpinion);

  http::Identity sa{"system:serviceaccount:demo:sa", {"system:serviceaccounts"}, "", {}};
  rbac.UpsertRoleBinding(MakeRB("demo", "sa-view", "ClusterRole", "view", {SA("sa")}));
  EXPECT_EQ(rbac.Authorize(Res(sa, "list", "demo", "", "pods")).reason,
            "RBAC: allowed by RoleBinding \"sa-view/demo\" of ClusterRole \"view\" to "
            "ServiceAccount \"sa/demo\"");
}

// Spec scenario 15/18: a binding to a missing role never denies the others; without an allow
// the reason names the resolution error.
TEST_F(RbacAuthorizerTest, MissingRoleReportsErrorOnlyWithoutAllow) {
  rbac.UpsertRole(
      MakeRole("demo", "p1-reader", {Rule({"get", "list", "watch"}, {""}, {"pods"}, {"p1"})}));
  rbac.UpsertRoleBinding(MakeRB("demo", "bob-p1", "Role", "p1-reader", {User("bob")}));
  rbac.UpsertRoleBinding(MakeRB("demo", "bob-ghost", "Role", "ghost", {User("bob")}));
  EXPECT_EQ(rbac.Authorize(Res(kBob, "get", "demo", "", "pods", "", "p1")).decision,
            Decision::kAllow);
  Result r = rbac.Authorize(Res(kBob, "get", "demo", "", "pods", "", "p2"));
  EXPECT_EQ(r.decision, Decision::kNoOpinion);
  EXPECT_EQ(r.reason, "RBAC: role.rbac.authorization.k8s.io \"ghost\" not found");
  rbac.UpsertClusterRoleBinding(MakeCRB("bob-x", "missing", {User("bob")}));
  EXPECT_EQ(rbac.Authorize(Res(kBob, "get", "demo", "", "pods", "", "p2")).reason,
            "RBAC: [clusterrole.rbac.authorization.k8s.io \"missing\" not found, "
            "role.rbac.authorization.k8s.io \"ghost\" not found]");
}

TEST_F(RbacAuthorizerTest, ClusterRoleBindingToARoleNeverResolves) {
  ClusterRoleBinding b = MakeCRB("odd", "r", {User("bob")});
  b.role_ref.kind = "Role";
  rbac.UpsertClusterRoleBinding(b);
  EXPECT_EQ(rbac.Authorize(Res(kBob, "get", "", "", "pods")).reason,
            "RBAC: role.rbac.authorization.k8s.io \"r\" not found");
  b.role_ref.kind = "Thing";
  rbac.UpsertClusterRoleBinding(b);
  EXPECT_EQ(rbac.Authorize(Res(kBob, "get", "", "", "pods")).reason,
            "RBAC: unsupported role reference kind: \"Thing\"");
}

TEST_F(RbacAuthorizerTest, UpdatesAndDeletesTakeEffect) {
  rbac.UpsertRole(MakeRole("demo", "r", {Rule({"get"}, {""}, {"pods"})}));
  rbac.UpsertRoleBinding(MakeRB("demo", "b", "Role", "r", {User("bob")}));
  Attributes get = Res(kBob, "get", "demo", "", "pods", "", "p");
  Attributes patch = Res(kBob, "patch", "demo", "", "pods", "status", "p");
  EXPECT_EQ(rbac.Authorize(get).decision, Decision::kAllow);
  EXPECT_EQ(rbac.Authorize(patch).decision, Decision::kNoOpinion);
  rbac.UpsertRole(
      MakeRole("demo", "r", {Rule({"get"}, {""}, {"pods"}), Rule({"patch"}, {""}, {"*/status"})}));
  EXPECT_EQ(rbac.Authorize(patch).decision, Decision::kAllow);
  rbac.UpsertRoleBinding(MakeRB("demo", "b", "Role", "r", {User("carol")}));
  EXPECT_EQ(rbac.Authorize(get).decision, Decision::kNoOpinion);
  rbac.UpsertRoleBinding(MakeRB("demo", "b", "Role", "r", {User("bob")}));
  rbac.DeleteRole("demo", "r");
  EXPECT_EQ(rbac.Authorize(get).reason, "RBAC: role.rbac.authorization.k8s.io \"r\" not found");
  rbac.DeleteRoleBinding("demo", "b");
  EXPECT_EQ(rbac.Authorize(get).reason, "");

  rbac.UpsertClusterRole(MakeClusterRole("c", {UrlRule({"get"}, {"/metrics"})}));
  rbac.UpsertClusterRoleBinding(MakeCRB("c", "c", {Group("system:authenticated")}));
  EXPECT_EQ(rbac.Authorize(Path(kBob, "get", "/metrics")).decision, Decision::kAllow);
  rbac.DeleteClusterRole("c");
  EXPECT_EQ(rbac.Authorize(Path(kBob, "get", "/metrics")).decision, Decision::kNoOpinion);
  rbac.UpsertClusterRole(MakeClusterRole("c", {UrlRule({"get"}, {"/metrics"})}));
  rbac.DeleteClusterRoleBinding("c");
  EXPECT_EQ(rbac.Authorize(Path(kBob, "get", "/metrics")).decision, Decision::kNoOpinion);
}

TEST_F(RbacAuthorizerTest, ReplaceAllLoadsEverything) {
  RbacAuthorizer::Objects objects;
  objects.cluster_roles.push_back(MakeClusterRole("view", {Rule({"get"}, {""}, {"pods"})}));
  objects.roles.push_back(MakeRole("demo", "w", {Rule({"create"}, {""}, {"pods"})}));
  objects.role_bindings.push_back(MakeRB("demo", "a", "Role", "w", {User("jane")}));
  objects.cluster_role_bindings.push_back(MakeCRB("v", "view", {Group("dev")}));
  rbac.ReplaceAll(objects);
  EXPECT_EQ(rbac.Authorize(Res(kJane, "create", "demo", "", "pods")).decision, Decision::kAllow);
  EXPECT_EQ(rbac.Authorize(Res(kJane, "get", "x", "", "pods", "", "p")).decision, Decision::kAllow);
  rbac.ReplaceAll({});
  EXPECT_EQ(rbac.Authorize(Res(kJane, "get", "x", "", "pods", "", "p")).decision,
            Decision::kNoOpinion);
}

// SelfSubjectRulesReview order: ClusterRoleBindings first, then RoleBindings; unmerged.
TEST_F(RbacAuthorizerTest, RulesForListsClusterBindingsFirst) {
  rbac.UpsertClusterRole(MakeClusterRole(
      "basic", {Rule({"create"}, {"authorization.k8s.io"}, {"selfsubjectaccessreviews"})}));
  rbac.UpsertClusterRole(MakeClusterRole("disc", {UrlRule({"get"}, {"/api", "/api/*"})}));
  rbac.UpsertClusterRole(MakeClusterRole("view", {Rule({"get", "list"}, {""}, {"pods"})}));
  rbac.UpsertClusterRoleBinding(MakeCRB("basic", "basic", {Group("system:authenticated")}));
  rbac.UpsertClusterRoleBinding(MakeCRB("disc", "disc", {Group("system:authenticated")}));
  rbac.UpsertRoleBinding(MakeRB("demo", "jane-view", "ClusterRole", "view", {User("jane")}));
  rbac.UpsertRoleBinding(MakeRB("demo", "ghost", "Role", "ghost", {User("jane")}));
  RulesResult r = rbac.RulesFor(kJane, "demo");
  ASSERT_EQ(r.resource_rules.size(), 2u);
  EXPECT_EQ(r.resource_rules[0].resources, std::vector<std::string>{"selfsubjectaccessreviews"});
  EXPECT_EQ(r.resource_rules[1].resources, std::vector<std::string>{"pods"});
  ASSERT_EQ(r.non_resource_rules.size(), 1u);
  EXPECT_EQ(r.non_resource_rules[0].non_resource_urls,
            (std::vector<std::string>{"/api", "/api/*"}));
  EXPECT_FALSE(r.incomplete);
  EXPECT_EQ(r.evaluation_error, "role.rbac.authorization.k8s.io \"ghost\" not found");
  EXPECT_EQ(rbac.RulesFor(kJane, "other").resource_rules.size(), 1u);
}

TEST_F(RbacAuthorizerTest, RoleReferenceRules) {
  rbac.UpsertRole(MakeRole("demo", "r", {Rule({"get"}, {""}, {"pods"})}));
  rbac.UpsertClusterRole(MakeClusterRole("c", {Rule({"list"}, {""}, {"pods"})}));
  RoleRef role{std::string(kGroupName), "Role", "r", {}};
  RoleRef cluster{std::string(kGroupName), "ClusterRole", "c", {}};
  ASSERT_TRUE(rbac.RoleReferenceRules(role, "demo").has_value());
  EXPECT_FALSE(rbac.RoleReferenceRules(role, "other").has_value());
  EXPECT_EQ(rbac.RoleReferenceRules(cluster, "other")->at(0).verbs,
            std::vector<std::string>{"list"});
}

TEST_F(RbacAuthorizerTest, ReadersSeeConsistentSnapshotsWhileWriting) {
  rbac.UpsertClusterRole(MakeClusterRole("view", {Rule({"get"}, {""}, {"pods"})}));
  rbac.UpsertClusterRoleBinding(MakeCRB("always", "view", {User("jane")}));
  std::atomic<bool> stop{false};
  std::atomic<int> wrong{0};
  std::thread reader([&] {
    Attributes a = Res(kJane, "get", "demo", "", "pods", "", "p");
    while (!stop.load()) {
      if (rbac.Authorize(a).decision != Decision::kAllow) wrong.fetch_add(1);
    }
  });
  for (int i = 0; i < 300; ++i) {
    rbac.UpsertRoleBinding(MakeRB("ns" + std::to_string(i % 7), "b" + std::to_string(i),
                                  "ClusterRole", "view", {User("u" + std::to_string(i))}));
    if (i % 3 == 0) rbac.DeleteRoleBinding("ns" + std::to_string(i % 7), "b" + std::to_string(i));
  }
  stop.store(true);
  reader.join();
  EXPECT_EQ(wrong.load(), 0);
}

// Each thread caches the snapshot it read; two authorizers used alternately on one thread must
// never answer from each other's policy.
TEST(RbacAuthorizerCache, InstancesOnOneThreadStayApart) {
  RbacAuthorizer a;
  RbacAuthorizer b;
  a.UpsertClusterRole(MakeClusterRole("r", {Rule({"get"}, {""}, {"pods"})}));
  a.UpsertClusterRoleBinding(MakeCRB("x", "r", {User("jane")}));
  Attributes get = Res(kJane, "get", "", "", "pods", "", "p");
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(a.Authorize(get).decision, Decision::kAllow);
    EXPECT_EQ(b.Authorize(get).decision, Decision::kNoOpinion);
  }
  {
    RbacAuthorizer c;
    EXPECT_EQ(c.Authorize(get).decision, Decision::kNoOpinion);
  }
  RbacAuthorizer d;  // may reuse c's address
  EXPECT_EQ(d.Authorize(get).decision, Decision::kNoOpinion);
}

TEST(Chain, FirstDecisionWinsAndReasonsJoin) {
  struct Fixed : AuthorizerWithRules {
    Result r;
    RulesResult rules;
    Result Authorize(const Attributes&) const override { return r; }
    RulesResult RulesFor(const http::Identity&, std::string_view) const override { return rules; }
  };
  Fixed a, b, c;
  a.r = {Decision::kNoOpinion, "first", ""};
  b.r = {Decision::kNoOpinion, "", "boom"};
  c.r = {Decision::kNoOpinion, "third", ""};
  AuthorizerChain chain({&a, &b, &c});
  Attributes attrs = Path(kBob, "get", "/x");
  Result r = chain.Authorize(attrs);
  EXPECT_EQ(r.decision, Decision::kNoOpinion);
  EXPECT_EQ(r.reason, "first\nthird");
  EXPECT_EQ(r.error, "boom");
  b.r = {Decision::kAllow, "ok", ""};
  EXPECT_EQ(chain.Authorize(attrs).reason, "ok");
  b.r = {Decision::kDeny, "no", ""};
  EXPECT_EQ(chain.Authorize(attrs).decision, Decision::kDeny);

  a.rules.incomplete = true;
  a.rules.evaluation_error = "node authorizer does not support user rule resolution";
  c.rules.resource_rules.push_back(Rule({"get"}, {""}, {"pods"}));
  RulesResult rr = chain.RulesFor(kBob, "demo");
  EXPECT_TRUE(rr.incomplete);
  EXPECT_EQ(rr.evaluation_error, "node authorizer does not support user rule resolution");
  EXPECT_EQ(rr.resource_rules.size(), 1u);
}

TEST(PrivilegedGroup, AllowsSystemMastersWithEmptyReason) {
  PrivilegedGroupAuthorizer p;
  http::Identity admin{"admin", {"system:masters", "system:authenticated"}, "", {}};
  Result r = p.Authorize(Path(admin, "delete", "/anything"));
  EXPECT_EQ(r.decision, Decision::kAllow);
  EXPECT_EQ(r.reason, "");
  EXPECT_EQ(p.Authorize(Path(kBob, "get", "/x")).decision, Decision::kNoOpinion);
  RulesResult rules = p.RulesFor(admin, "demo");
  EXPECT_TRUE(rules.resource_rules.empty());
  EXPECT_FALSE(rules.incomplete);
}

TEST(AggregateErrors, Format) {
  EXPECT_EQ(AggregateErrors({}), "");
  EXPECT_EQ(AggregateErrors({"a"}), "a");
  EXPECT_EQ(AggregateErrors({"a", "b", "a"}), "[a, b]");
}

}  // namespace
}  // namespace svcplane::apiserver::authorization
