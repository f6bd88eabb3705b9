// The rbac.authorization.k8s.io/v1 kinds through the JSON and protobuf codecs: upstream's JSON
// shapes (nil slices as `null`, omitempty subjects and aggregationRule) and lossless round trips.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "api/codec/json.h"
#include "api/codec/protobuf.h"
#include "api/types.h"

namespace svcplane::api::codec {
namespace {

using rbac::v1::ClusterRole;
using rbac::v1::ClusterRoleBinding;
using rbac::v1::PolicyRule;
using rbac::v1::Role;
using rbac::v1::RoleBinding;
using rbac::v1::Subject;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr std::string_view kGv = "rbac.authorization.k8s.io/v1";

template <typename T>
T ViaProtobuf(const T& obj, std::string_view kind) {
  auto back = DecodeProtobuf<T>(EncodeProtobuf(obj, kGv, kind));
  EXPECT_TRUE(back.ok()) << back.status().message();
  return back.ok() ? *back : T{};
}

template <typename T>
T ViaJson(const T& obj) {
  auto back = DecodeJson<T>(EncodeJson(obj));
  EXPECT_TRUE(back.ok()) << back.status().message();
  return back.ok() ? *back : T{};
}

TEST(RbacCodecTest, RoleJsonShape) {
  auto role = DecodeJson<Role>(
      R"({"kind":"Role","apiVersion":"rbac.authorization.k8s.io/v1",)"
      R"("metadata":{"name":"r","namespace":"demo"},)"
      R"("rules":[{"verbs":["get","list"],"apiGroups":[""],"resources":["pods"]}]})");
  ASSERT_TRUE(role.ok()) << role.status().message();
  ASSERT_EQ(role->rules.size(), 1u);
  EXPECT_EQ(role->rules[0].api_groups, std::vector<std::string>{""});
  EXPECT_EQ(EncodeJson(*role),
            R"({"kind":"Role","apiVersion":"rbac.authorization.k8s.io/v1",)"
            R"("metadata":{"name":"r","namespace":"demo","creationTimestamp":null},)"
            R"("rules":[{"verbs":["get","list"],"apiGroups":[""],"resources":["pods"]}]})");
  EXPECT_EQ(ViaProtobuf(*role, "Role"), *role);
  EXPECT_EQ(ViaJson(*role), *role);
}

TEST(RbacCodecTest, AggregatedClusterRoleHasNullRules) {
  // What `kubectl create clusterrole agg --aggregation-rule=team=x` sends: no rules at all.
  auto cr = DecodeJson<ClusterRole>(
      R"({"kind":"ClusterRole","apiVersion":"rbac.authorization.k8s.io/v1",)"
      R"("metadata":{"name":"agg"},"aggregationRule":{"clusterRoleSelectors":)"
      R"([{"matchLabels":{"team":"x"}}]}})");
  ASSERT_TRUE(cr.ok()) << cr.status().message();
  ASSERT_TRUE(cr->aggregation_rule.has_value());
  EXPECT_EQ(cr->aggregation_rule->cluster_role_selectors.at(0).match_labels.at("team"), "x");
  std::string json = EncodeJson(*cr);
  EXPECT_THAT(json, HasSubstr(R"("rules":null)"));
  EXPECT_THAT(json, HasSubstr(R"("aggregationRule":{"clusterRoleSelectors":[{"matchLabels":)"
                              R"({"team":"x"}}]})"));
  EXPECT_EQ(ViaProtobuf(*cr, "ClusterRole"), *cr);
  // `rules: []` is served as upstream serves it after etcd: null.
  auto empty = DecodeJson<ClusterRole>(R"({"metadata":{"name":"e"},"rules":[]})");
  ASSERT_TRUE(empty.ok());
  EXPECT_THAT(EncodeJson(*empty), HasSubstr(R"("rules":null)"));
  EXPECT_THAT(EncodeJson(*empty), Not(HasSubstr("aggregationRule")));
}

TEST(RbacCodecTest, MatchExpressionsRoundTrip) {
  ClusterRole cr;
  cr.kind = "ClusterRole";
  cr.api_version = std::string(kGv);
  cr.metadata.name = "agg";
  selectors::LabelSelectorSpec sel;
  sel.match_expressions.push_back({"tier", "In", {"a", "b"}});
  sel.match_expressions.push_back({"gone", "DoesNotExist", {}});
  cr.aggregation_rule.emplace();
  cr.aggregation_rule->cluster_role_selectors = {sel};
  PolicyRule urls;
  urls.verbs = {"get"};
  urls.non_resource_urls = {"/healthz", "/healthz/*"};
  cr.rules = {urls};
  EXPECT_EQ(ViaProtobuf(cr, "ClusterRole"), cr);
  EXPECT_EQ(ViaJson(cr), cr);
  EXPECT_THAT(EncodeJson(cr), HasSubstr(R"({"verbs":["get"],"nonResourceURLs":["/healthz",)"
                                        R"("/healthz/*"]})"));
}

TEST(RbacCodecTest, BindingsRoundTrip) {
  RoleBinding rb;
  rb.kind = "RoleBinding";
  rb.api_version = std::string(kGv);
  rb.metadata.name = "jane-view";
  rb.metadata.namespace_ = "demo";
  rb.role_ref = {"rbac.authorization.k8s.io", "ClusterRole", "view", {}};
  rb.subjects = {Subject{"User", "rbac.authorization.k8s.io", "jane", "", {}},
                 Subject{"ServiceAccount", "", "sa", "demo", {}}};
  EXPECT_EQ(ViaProtobuf(rb, "RoleBinding"), rb);
  EXPECT_EQ(ViaJson(rb), rb);
  EXPECT_THAT(EncodeJson(rb),
              HasSubstr(R"("subjects":[{"kind":"User","apiGroup":"rbac.authorization.k8s.io",)"
                        R"("name":"jane"},{"kind":"ServiceAccount","name":"sa",)"
                        R"("namespace":"demo"}],"roleRef":{"apiGroup":)"
                        R"("rbac.authorization.k8s.io","kind":"ClusterRole","name":"view"}})"));

  // No subjects: omitted (omitempty), roleRef always written.
  ClusterRoleBinding crb;
  crb.kind = "ClusterRoleBinding";
  crb.api_version = std::string(kGv);
  crb.metadata.name = "b";
  crb.role_ref = {"rbac.authorization.k8s.io", "ClusterRole", "cluster-admin", {}};
  std::string json = EncodeJson(crb);
  EXPECT_THAT(json, Not(HasSubstr("subjects")));
  EXPECT_EQ(ViaProtobuf(crb, "ClusterRoleBinding"), crb);
}

TEST(RbacCodecTest, ListsRoundTrip) {
  RoleBindingList list;
  list.metadata.resource_version = "7";
  RoleBinding rb;
  rb.metadata.name = "x";
  rb.role_ref = {"rbac.authorization.k8s.io", "Role", "r", {}};
  list.items = {rb, rb};
  auto back = DecodeProtobuf<RoleBindingList>(EncodeProtobuf(list, kGv, "RoleBindingList"));
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->items.size(), 2u);
  EXPECT_EQ(back->items[1].role_ref.name, "r");
}

TEST(RbacCodecTest, UnknownFieldsSurviveProtobuf) {
  // A field the model does not know but upstream's schema does not have either is dropped by
  // protobuf (as Go drops it); JSON keeps it.
  auto role = DecodeJson<Role>(R"({"metadata":{"name":"r"},"rules":[],"extra":1})");
  ASSERT_TRUE(role.ok());
  EXPECT_THAT(EncodeJson(*role), HasSubstr(R"("extra":1)"));
  EXPECT_THAT(EncodeJson(ViaProtobuf(*role, "Role")), Not(HasSubstr("extra")));
}

}  // namespace
}  // namespace svcplane::api::codec
