#include "apiserver/discovery/discovery.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <array>
#include <boost/json.hpp>
#include <tuple>

namespace svcplane::apiserver::discovery {
namespace {

namespace json = boost::json;

json::object Parse(const std::string& s) { return json::parse(s).as_object(); }

std::vector<std::string> StringsOf(const json::value& v) {
  std::vector<std::string> out;
  for (const auto& s : v.as_array()) out.emplace_back(s.as_string());
  return out;
}

const json::object* FindByKey(const json::array& a, std::string_view key, std::string_view value) {
  for (const auto& e : a) {
    const auto& o = e.as_object();
    if (o.contains(key) && o.at(key).as_string() == value) return &o;
  }
  return nullptr;
}

TEST(DiscoveryTest, VersionAdvertises130) {
  Documents d("127.0.0.1:6443");
  auto v = Parse(d.Version());
  EXPECT_EQ(v.at("major").as_string(), "1");
  EXPECT_EQ(v.at("minor").as_string(), "30");
  EXPECT_EQ(v.at("gitVersion").as_string(), "v1.30.0");
  EXPECT_EQ(v.at("platform").as_string(), "linux/amd64");
}

TEST(DiscoveryTest, LegacyApiHasServerAddressAndNoApiVersion) {
  Documents d("127.0.0.1:6443");
  EXPECT_EQ(d.LegacyApi(),
            R"({"kind":"APIVersions","versions":["v1"],"serverAddressByClientCIDRs":)"
            R"([{"clientCIDR":"0.0.0.0/0","serverAddress":"127.0.0.1:6443"}]})");
}

TEST(DiscoveryTest, LegacyApisListsEveryGroupWithPreferredVersion) {
  Documents d("h:1");
  auto o = Parse(d.LegacyApis());
  EXPECT_EQ(o.at("kind").as_string(), "APIGroupList");
  EXPECT_EQ(o.at("apiVersion").as_string(), "v1");
  const auto& groups = o.at("groups").as_array();
  ASSERT_EQ(groups.size(), 6u);
  const auto* g = FindByKey(groups, "name", "discovery.k8s.io");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(json::serialize(g->at("preferredVersion")),
            R"({"groupVersion":"discovery.k8s.io/v1","version":"v1"})");
  EXPECT_EQ(json::serialize(g->at("versions")),
            R"([{"groupVersion":"discovery.k8s.io/v1","version":"v1"}])");
  EXPECT_NE(FindByKey(groups, "name", "coordination.k8s.io"), nullptr);
  EXPECT_NE(FindByKey(groups, "name", "rbac.authorization.k8s.io"), nullptr);
}

TEST(DiscoveryTest, SingleGroup) {
  Documents d("h:1");
  ASSERT_NE(d.Group("coordination.k8s.io"), nullptr);
  auto g = Parse(*d.Group("coordination.k8s.io"));
  EXPECT_EQ(g.at("kind").as_string(), "APIGroup");
  EXPECT_EQ(g.at("apiVersion").as_string(), "v1");
  EXPECT_EQ(g.at("name").as_string(), "coordination.k8s.io");
  EXPECT_EQ(d.Group("batch"), nullptr);
  EXPECT_EQ(d.Group(""), nullptr);
}

TEST(DiscoveryTest, CoreResourceListMatchesUpstreamTable) {
  Documents d("h:1");
  ASSERT_NE(d.ResourceList("", "v1"), nullptr);
  auto o = Parse(*d.ResourceList("", "v1"));
  EXPECT_EQ(o.at("kind").as_string(), "APIResourceList");
  EXPECT_FALSE(o.contains("apiVersion"));
  EXPECT_EQ(o.at("groupVersion").as_string(), "v1");
  const auto& rs = o.at("resources").as_array();
  std::vector<std::string> names;
  for (const auto& r : rs) names.emplace_back(r.at("name").as_string());
  EXPECT_THAT(names,
              ::testing::ElementsAre("configmaps", "endpoints", "events", "namespaces",
                                     "namespaces/finalize", "namespaces/status", "nodes",
                                     "nodes/status", "pods", "pods/binding", "pods/status",
                                     "secrets", "serviceaccounts", "services", "services/status"));
  // Upstream's bytes (api/discovery/api__v1.json) for the kinds every app manifest carries.
  EXPECT_EQ(json::serialize(*FindByKey(rs, "name", "configmaps")),
            R"({"name":"configmaps","singularName":"configmap","namespaced":true,)"
            R"("kind":"ConfigMap","verbs":["create","delete","deletecollection","get","list",)"
            R"("patch","update","watch"],"shortNames":["cm"],)"
            R"("storageVersionHash":"qFsyl6wFWjQ="})");
  EXPECT_EQ(json::serialize(*FindByKey(rs, "name", "secrets")),
            R"({"name":"secrets","singularName":"secret","namespaced":true,"kind":"Secret",)"
            R"("verbs":["create","delete","deletecollection","get","list","patch","update",)"
            R"("watch"],"storageVersionHash":"S6u1pOWzb84="})");
  EXPECT_THAT(StringsOf(FindByKey(rs, "name", "serviceaccounts")->at("shortNames")),
              ::testing::ElementsAre("sa"));
  // kube-scheduler's way to assign a pod (upstream's api__v1.json entry).
  EXPECT_EQ(json::serialize(*FindByKey(rs, "name", "pods/binding")),
            R"({"name":"pods/binding","singularName":"","namespaced":true,"kind":"Binding",)"
            R"("verbs":["create"]})");
  // Upstream's own bytes for the services entry (api/discovery/api__v1.json).
  EXPECT_EQ(json::serialize(*FindByKey(rs, "name", "services")),
            R"({"name":"services","singularName":"service","namespaced":true,"kind":"Service",)"
            R"("verbs":["create","delete","deletecollection","get","list","patch","update",)"
            R"("watch"],"shortNames":["svc"],"categories":["all"],)"
            R"("storageVersionHash":"0/CO1lhkEBI="})");
  EXPECT_EQ(json::serialize(*FindByKey(rs, "name", "services/status")),
            R"({"name":"services/status","singularName":"","namespaced":true,"kind":"Service",)"
            R"("verbs":["get","patch","update"]})");
  EXPECT_THAT(
      StringsOf(FindByKey(rs, "name", "namespaces")->at("verbs")),
      ::testing::ElementsAre("create", "delete", "get", "list", "patch", "update", "watch"));
  EXPECT_THAT(StringsOf(FindByKey(rs, "name", "namespaces/finalize")->at("verbs")),
              ::testing::ElementsAre("update"));
  EXPECT_FALSE(FindByKey(rs, "name", "nodes")->at("namespaced").as_bool());
  EXPECT_THAT(StringsOf(FindByKey(rs, "name", "pods")->at("shortNames")),
              ::testing::ElementsAre("po"));
  for (const auto& r : rs) {
    for (auto key : {"name", "singularName", "namespaced", "kind", "verbs"}) {
      EXPECT_TRUE(r.as_object().contains(key)) << key << " missing in " << json::serialize(r);
    }
  }
}

TEST(DiscoveryTest, GroupResourceListsCarryApiVersion) {
  Documents d("h:1");
  ASSERT_NE(d.ResourceList("discovery.k8s.io", "v1"), nullptr);
  auto o = Parse(*d.ResourceList("discovery.k8s.io", "v1"));
  EXPECT_EQ(o.at("apiVersion").as_string(), "v1");
  EXPECT_EQ(o.at("groupVersion").as_string(), "discovery.k8s.io/v1");
  EXPECT_EQ(json::serialize(o.at("resources")),
            R"([{"name":"endpointslices","singularName":"endpointslice","namespaced":true,)"
            R"("kind":"EndpointSlice","verbs":["create","delete","deletecollection","get",)"
            R"("list","patch","update","watch"],"storageVersionHash":"Nx3SIv6I0mE="}])");
  ASSERT_NE(d.ResourceList("coordination.k8s.io", "v1"), nullptr);
  auto l = Parse(*d.ResourceList("coordination.k8s.io", "v1"));
  EXPECT_THAT(StringsOf(l.at("resources").at(0).at("verbs")), ::testing::Contains("watch"));
  EXPECT_EQ(d.ResourceList("discovery.k8s.io", "v1beta1"), nullptr);
  EXPECT_EQ(d.ResourceList("apps", "v2"), nullptr);
}

// apps/v1 as upstream lists it (workloads.md §1.1): the scale subresource names the
// autoscaling/v1 Scale kind.
TEST(DiscoveryTest, AppsResourceList) {
  Documents d("h:1");
  ASSERT_NE(d.ResourceList("apps", "v1"), nullptr);
  auto o = Parse(*d.ResourceList("apps", "v1"));
  const auto& resources = o.at("resources").as_array();
  EXPECT_EQ(json::serialize(*FindByKey(resources, "name", "deployments")),
            R"({"name":"deployments","singularName":"deployment","namespaced":true,)"
            R"("kind":"Deployment","verbs":["create","delete","deletecollection","get","list",)"
            R"("patch","update","watch"],"shortNames":["deploy"],"categories":["all"],)"
            R"("storageVersionHash":"8aSe+NMegvE="})");
  EXPECT_EQ(json::serialize(*FindByKey(resources, "name", "deployments/scale")),
            R"({"name":"deployments/scale","singularName":"","namespaced":true,)"
            R"("group":"autoscaling","version":"v1","kind":"Scale","verbs":["get","patch",)"
            R"("update"]})");
  EXPECT_EQ(json::serialize(*FindByKey(resources, "name", "replicasets/status")),
            R"({"name":"replicasets/status","singularName":"","namespaced":true,)"
            R"("kind":"ReplicaSet","verbs":["get","patch","update"]})");
  const auto* rs = FindByKey(resources, "name", "replicasets");
  ASSERT_NE(rs, nullptr);
  EXPECT_EQ(rs->at("storageVersionHash").as_string(), "P1RzHs8/mWQ=");
}

TEST(DiscoveryTest, AggregatedCoreDocument) {
  Documents d("h:1");
  auto o = Parse(d.AggregatedApi());
  EXPECT_EQ(o.at("kind").as_string(), "APIGroupDiscoveryList");
  EXPECT_EQ(o.at("apiVersion").as_string(), "apidiscovery.k8s.io/v2");
  const auto& items = o.at("items").as_array();
  ASSERT_EQ(items.size(), 1u);
  EXPECT_EQ(items[0].at("metadata").at("name").as_string(), "");
  const auto& v = items[0].at("versions").at(0).as_object();
  EXPECT_EQ(v.at("version").as_string(), "v1");
  EXPECT_EQ(v.at("freshness").as_string(), "Current");
  const auto* pods = FindByKey(v.at("resources").as_array(), "resource", "pods");
  ASSERT_NE(pods, nullptr);
  EXPECT_EQ(json::serialize(*pods),
            R"({"resource":"pods","responseKind":{"group":"","version":"","kind":"Pod"},)"
            R"("scope":"Namespaced","singularResource":"pod","verbs":["create","delete",)"
            R"("deletecollection","get","list","patch","update","watch"],"shortNames":["po"],)"
            R"("categories":["all"],"subresources":[{"subresource":"binding","responseKind":)"
            R"({"group":"","version":"","kind":"Binding"},"verbs":["create"]},)"
            R"({"subresource":"status","responseKind":)"
            R"({"group":"","version":"","kind":"Pod"},"verbs":["get","patch","update"]}]})");
  const auto* nodes = FindByKey(v.at("resources").as_array(), "resource", "nodes");
  EXPECT_EQ(nodes->at("scope").as_string(), "Cluster");
}

TEST(DiscoveryTest, AggregatedGroupsDocument) {
  Documents d("h:1");
  auto o = Parse(d.AggregatedApis());
  const auto& items = o.at("items").as_array();
  ASSERT_EQ(items.size(), 6u);
  std::vector<std::string> names;
  for (const auto& i : items) names.emplace_back(i.at("metadata").at("name").as_string());
  EXPECT_THAT(names, ::testing::ElementsAre("apps", "authentication.k8s.io", "authorization.k8s.io",
                                            "coordination.k8s.io", "discovery.k8s.io",
                                            "rbac.authorization.k8s.io"));
  for (const auto& i : items) {
    EXPECT_TRUE(i.at("metadata").at("creationTimestamp").is_null());
    const bool two = i.at("metadata").at("name").as_string() == "authentication.k8s.io";
    EXPECT_EQ(i.at("versions").as_array().size(), two ? 2u : 1u);
  }
}

// The review kinds (spec authn §0): cluster-scoped, create only, no storage version hash;
// authentication.k8s.io serves v1 (preferred) and v1beta1.
TEST(DiscoveryTest, ReviewKinds) {
  Documents d("h:1");
  auto g = Parse(*d.Group("authentication.k8s.io"));
  EXPECT_EQ(g.at("preferredVersion").at("version").as_string(), "v1");
  EXPECT_EQ(g.at("versions").as_array().size(), 2u);
  for (auto [group, version, resource, kind] : std::vector<std::array<std::string_view, 4>>{
           {"authentication.k8s.io", "v1", "selfsubjectreviews", "SelfSubjectReview"},
           {"authentication.k8s.io", "v1beta1", "selfsubjectreviews", "SelfSubjectReview"},
           {"authorization.k8s.io", "v1", "selfsubjectaccessreviews", "SelfSubjectAccessReview"},
           {"authorization.k8s.io", "v1", "selfsubjectrulesreviews", "SelfSubjectRulesReview"}}) {
    const std::string* list = d.ResourceList(group, version);
    ASSERT_NE(list, nullptr) << group << "/" << version;
    auto l = Parse(*list);
    const auto* r = FindByKey(l.at("resources").as_array(), "name", resource);
    ASSERT_NE(r, nullptr) << resource;
    EXPECT_EQ(r->at("kind").as_string(), kind);
    EXPECT_FALSE(r->at("namespaced").as_bool());
    EXPECT_EQ(json::serialize(r->at("verbs")), R"(["create"])");
    EXPECT_FALSE(r->contains("storageVersionHash"));
  }
}

TEST(DiscoveryTest, AcceptsAggregated) {
  EXPECT_TRUE(AcceptsAggregated(
      "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/"
      "json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json"));
  EXPECT_TRUE(AcceptsAggregated(
      "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList;profile=nopeer,"
      "application/json"));
  EXPECT_TRUE(
      AcceptsAggregated("application/json; as=APIGroupDiscoveryList; v=v2; "
                        "g=apidiscovery.k8s.io"));
  // Only v2beta1 asked for: we do not serve it, fall through to the plain JSON clause.
  EXPECT_FALSE(AcceptsAggregated(
      "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/"
      "json"));
  EXPECT_FALSE(AcceptsAggregated("application/json"));
  EXPECT_FALSE(AcceptsAggregated(""));
  EXPECT_FALSE(AcceptsAggregated("*/*"));
  EXPECT_FALSE(AcceptsAggregated(
      "application/json,application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"));
  EXPECT_FALSE(AcceptsAggregated("application/vnd.kubernetes.protobuf"));
}

}  // namespace
}  // namespace svcplane::apiserver::discovery

namespace svcplane::apiserver::discovery {
namespace {

// The four RBAC kinds as upstream lists them (spec authn-authz-audit.md §0).
TEST(DiscoveryTest, RbacResourceList) {
  Documents d("h:1");
  const std::string* list = d.ResourceList("rbac.authorization.k8s.io", "v1");
  ASSERT_NE(list, nullptr);
  auto o = Parse(*list);
  EXPECT_EQ(o.at("groupVersion").as_string(), "rbac.authorization.k8s.io/v1");
  const auto& resources = o.at("resources").as_array();
  ASSERT_EQ(resources.size(), 4u);
  const std::vector<std::tuple<std::string, std::string, bool, std::string>> want = {
      {"clusterrolebindings", "ClusterRoleBinding", false, "48tpQ8gZHFc="},
      {"clusterroles", "ClusterRole", false, "bYE5ZWDrJ44="},
      {"rolebindings", "RoleBinding", true, "eGsCzGH6b1g="},
      {"roles", "Role", true, "7FuwZcIIItM="}};
  for (const auto& [name, kind, namespaced, hash] : want) {
    const auto* r = FindByKey(resources, "name", name);
    ASSERT_NE(r, nullptr) << name;
    EXPECT_EQ(r->at("kind").as_string(), kind);
    EXPECT_EQ(r->at("namespaced").as_bool(), namespaced);
    EXPECT_EQ(r->at("storageVersionHash").as_string(), hash);
    EXPECT_EQ(json::serialize(r->at("verbs")),
              R"(["create","delete","deletecollection","get","list","patch","update","watch"])");
    EXPECT_FALSE(r->contains("shortNames"));
  }
}

}  // namespace
}  // namespace svcplane::apiserver::discovery
