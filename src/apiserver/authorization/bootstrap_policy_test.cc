#include "apiserver/authorization/bootstrap_policy.h"

#include <gtest/gtest.h>

#include <set>

#include "apiserver/authorization/rbac_authorizer.h"
#include "apiserver/authorization/reconcile.h"
#include "apiserver/authorization/testing_util.h"

namespace svcplane::apiserver::authorization {
namespace {

using namespace testing;

const ClusterRole& Find(std::string_view name) {
  for (const auto& r : BootstrapClusterRoles()) {
    if (r.metadata.name == name) return r;
  }
  ADD_FAILURE() << "no bootstrap role " << name;
  static ClusterRole none;
  return none;
}

TEST(BootstrapPolicy, EveryRoleTheSpecLists) {
  std::set<std::string> names;
  for (const auto& r : BootstrapClusterRoles()) {
    names.insert(r.metadata.name);
    EXPECT_EQ(r.metadata.labels.at("kubernetes.io/bootstrapping"), "rbac-defaults");
    EXPECT_EQ(r.metadata.annotations.at("rbac.authorization.kubernetes.io/autoupdate"), "true");
  }
  for (const char* n : {"cluster-admin",
                        "system:discovery",
                        "system:public-info-viewer",
                        "system:basic-user",
                        "system:monitoring",
                        "view",
                        "edit",
                        "admin",
                        "system:aggregate-to-view",
                        "system:aggregate-to-edit",
                        "system:aggregate-to-admin",
                        "system:kube-controller-manager",
                        "system:kube-scheduler",
                        "system:node-proxier",
                        "system:node",
                        "system:kube-dns",
                        "system:controller:deployment-controller",
                        "system:controller:endpoint-controller",
                        "system:controller:endpointslice-controller",
                        "system:controller:endpointslicemirroring-controller",
                        "system:controller:namespace-controller",
                        "system:controller:node-controller",
                        "system:controller:pod-garbage-collector",
                        "system:controller:replicaset-controller",
                        "system:controller:clusterrole-aggregation-controller"}) {
    EXPECT_TRUE(names.contains(n)) << n;
  }
  EXPECT_EQ(
      Find("system:discovery").rules[0].non_resource_urls,
      (std::vector<std::string>{"/api", "/api/*", "/apis", "/apis/*", "/healthz", "/livez",
                                "/openapi", "/openapi/*", "/readyz", "/version", "/version/"}));
  EXPECT_EQ(Find("view").metadata.labels.at("rbac.authorization.k8s.io/aggregate-to-edit"), "true");
  EXPECT_TRUE(Find("view").rules.empty());
  EXPECT_EQ(Find("edit").aggregation_rule->cluster_role_selectors[0].match_labels.at(
                "rbac.authorization.k8s.io/aggregate-to-edit"),
            "true");
  // Events rule as upstream's builder sorts it.
  EXPECT_EQ(Find("system:controller:endpoint-controller").rules.back().api_groups,
            (std::vector<std::string>{"", "events.k8s.io"}));
}

TEST(BootstrapPolicy, BindingsAsSpecified) {
  std::map<std::string, ClusterRoleBinding> by_name;
  for (const auto& b : BootstrapClusterRoleBindings()) {
    EXPECT_EQ(b.role_ref.name, b.metadata.name);
    by_name[b.metadata.name] = b;
  }
  EXPECT_EQ(by_name.at("cluster-admin").subjects[0].name, "system:masters");
  EXPECT_EQ(by_name.at("system:public-info-viewer").subjects.size(), 2u);
  EXPECT_TRUE(by_name.at("system:node").subjects.empty());
  const auto& dns = by_name.at("system:kube-dns").subjects[0];
  EXPECT_EQ(dns.kind, "ServiceAccount");
  EXPECT_EQ(dns.ns, "kube-system");
  EXPECT_EQ(dns.api_group, "");
  EXPECT_EQ(by_name.at("system:controller:endpointslice-controller").subjects[0].name,
            "endpointslice-controller");
  EXPECT_FALSE(by_name.contains("admin"));
}

TEST(BootstrapPolicy, DefaultAccess) {
  RbacAuthorizer rbac;
  for (const auto& r : BootstrapClusterRoles()) rbac.UpsertClusterRole(r);
  for (const auto& b : BootstrapClusterRoleBindings()) rbac.UpsertClusterRoleBinding(b);
  http::Identity anon{"system:anonymous", {"system:unauthenticated"}, "", {}};
  auto path = [](const http::Identity& u, std::string p) {
    Attributes a;
    a.user = &u;
    a.verb = "get";
    a.path = std::move(p);
    return a;
  };
  EXPECT_EQ(rbac.Authorize(path(anon, "/healthz")).decision, Decision::kAllow);
  EXPECT_EQ(rbac.Authorize(path(anon, "/version/")).decision, Decision::kAllow);
  EXPECT_EQ(rbac.Authorize(path(anon, "/api")).decision, Decision::kNoOpinion);
  http::Identity kp{"system:kube-proxy", {"system:authenticated"}, "", {}};
  EXPECT_EQ(
      rbac.Authorize(ResourceAttributes(kp, "watch", "", "discovery.k8s.io", "endpointslices"))
          .decision,
      Decision::kAllow);
  EXPECT_EQ(rbac.Authorize(ResourceAttributes(kp, "get", "demo", "discovery.k8s.io",
                                              "endpointslices", "", "s"))
                .decision,
            Decision::kNoOpinion);
  http::Identity eps{"system:serviceaccount:kube-system:endpointslice-controller",
                     {"system:serviceaccounts", "system:authenticated"},
                     "",
                     {}};
  EXPECT_EQ(rbac.Authorize(
                    ResourceAttributes(eps, "create", "demo", "discovery.k8s.io", "endpointslices"))
                .reason,
            "RBAC: allowed by ClusterRoleBinding \"system:controller:endpointslice-controller\" "
            "of ClusterRole \"system:controller:endpointslice-controller\" to ServiceAccount "
            "\"endpointslice-controller/kube-system\"");
  EXPECT_EQ(rbac.Authorize(ResourceAttributes(eps, "create", "demo", "", "endpoints")).decision,
            Decision::kNoOpinion);
}

TEST(Reconcile, ClusterRoleCreateLeaveUpdate) {
  const ClusterRole& discovery = Find("system:discovery");
  auto created = ReconcileClusterRole(nullptr, discovery);
  EXPECT_EQ(created.action, ReconcileAction::kCreate);
  EXPECT_EQ(created.object, discovery);
  EXPECT_EQ(ReconcileClusterRole(&discovery, discovery).action, ReconcileAction::kNone);

  // Scenario 25: /version removed → restored as a missing atom; extra rules kept.
  ClusterRole edited = discovery;
  auto& urls = edited.rules[0].non_resource_urls;
  urls.erase(std::find(urls.begin(), urls.end(), "/version"));
  edited.rules.push_back(UrlRule({"get"}, {"/extra"}));
  edited.metadata.labels["mine"] = "x";
  edited.metadata.labels["kubernetes.io/bootstrapping"] = "custom";
  auto updated = ReconcileClusterRole(&edited, discovery);
  ASSERT_EQ(updated.action, ReconcileAction::kUpdate);
  ASSERT_EQ(updated.object.rules.size(), 3u);
  EXPECT_EQ(updated.object.rules[1].non_resource_urls, std::vector<std::string>{"/extra"});
  EXPECT_EQ(updated.object.rules[2].non_resource_urls, std::vector<std::string>{"/version"});
  EXPECT_EQ(updated.object.metadata.labels.at("mine"), "x");
  EXPECT_EQ(updated.object.metadata.labels.at("kubernetes.io/bootstrapping"), "custom");

  // autoupdate "false": the edit stays.
  edited.metadata.annotations["rbac.authorization.kubernetes.io/autoupdate"] = "false";
  EXPECT_EQ(ReconcileClusterRole(&edited, discovery).action, ReconcileAction::kNone);
  edited.metadata.annotations["rbac.authorization.kubernetes.io/autoupdate"] = "False";
  EXPECT_EQ(ReconcileClusterRole(&edited, discovery).action, ReconcileAction::kUpdate);

  // Missing annotation and labels are added.
  ClusterRole bare = discovery;
  bare.metadata.labels.clear();
  bare.metadata.annotations.clear();
  auto meta = ReconcileClusterRole(&bare, discovery);
  EXPECT_EQ(meta.action, ReconcileAction::kUpdate);
  EXPECT_EQ(meta.object.metadata, discovery.metadata);
}

TEST(Reconcile, AggregationRules) {
  const ClusterRole& view = Find("view");
  // Aggregated rules the controller filled in are not "extra": nothing to do.
  ClusterRole filled = view;
  filled.rules.push_back(Rule({"get"}, {""}, {"pods"}));
  EXPECT_EQ(ReconcileClusterRole(&filled, view).action, ReconcileAction::kNone);
  ClusterRole no_selectors = view;
  no_selectors.aggregation_rule.reset();
  auto added = ReconcileClusterRole(&no_selectors, view);
  ASSERT_EQ(added.action, ReconcileAction::kUpdate);
  EXPECT_EQ(added.object.aggregation_rule, view.aggregation_rule);
  ClusterRole odd = Find("system:discovery");
  odd.aggregation_rule = view.aggregation_rule;
  auto removed = ReconcileClusterRole(&odd, Find("system:discovery"));
  ASSERT_EQ(removed.action, ReconcileAction::kUpdate);
  EXPECT_FALSE(removed.object.aggregation_rule.has_value());
}

TEST(Reconcile, ClusterRoleBindings) {
  ClusterRoleBinding expected;
  for (const auto& b : BootstrapClusterRoleBindings()) {
    if (b.metadata.name == "system:public-info-viewer") expected = b;
  }
  EXPECT_EQ(ReconcileClusterRoleBinding(nullptr, expected).action, ReconcileAction::kCreate);
  EXPECT_EQ(ReconcileClusterRoleBinding(&expected, expected).action, ReconcileAction::kNone);
  ClusterRoleBinding trimmed = expected;
  trimmed.subjects.erase(trimmed.subjects.begin());
  trimmed.subjects.push_back(UserSubject("extra"));
  auto updated = ReconcileClusterRoleBinding(&trimmed, expected);
  ASSERT_EQ(updated.action, ReconcileAction::kUpdate);
  ASSERT_EQ(updated.object.subjects.size(), 3u);
  EXPECT_EQ(updated.object.subjects[1].name, "extra");
  EXPECT_EQ(updated.object.subjects[2].name, "system:authenticated");
  ClusterRoleBinding moved = expected;
  moved.role_ref.name = "other";
  auto recreated = ReconcileClusterRoleBinding(&moved, expected);
  EXPECT_EQ(recreated.action, ReconcileAction::kRecreate);
  EXPECT_EQ(recreated.object, expected);
  moved.metadata.annotations["rbac.authorization.kubernetes.io/autoupdate"] = "false";
  EXPECT_EQ(ReconcileClusterRoleBinding(&moved, expected).action, ReconcileAction::kNone);
}

}  // namespace
}  // namespace svcplane::apiserver::authorization
