#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "api/validation/admit.h"
#include "api/validation/internal/test_util.h"
#include "api/validation/validation.h"

namespace svcplane::api::validation {
namespace {

using rbac::v1::ClusterRole;
using rbac::v1::ClusterRoleBinding;
using rbac::v1::PolicyRule;
using rbac::v1::Role;
using rbac::v1::RoleBinding;
using rbac::v1::Subject;
using ::testing::ElementsAre;
using testing::Errs;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

PolicyRule PodReader() {
  PolicyRule r;
  r.verbs = {"get", "list"};
  r.api_groups = {""};
  r.resources = {"pods"};
  return r;
}

Role ValidRole() {
  Role role;
  role.metadata.name = "system:pod-reader";  // colons are fine in RBAC names
  role.metadata.namespace_ = "demo";
  role.rules = {PodReader()};
  return role;
}

RoleBinding ValidRoleBinding() {
  RoleBinding rb;
  rb.metadata.name = "jane-view";
  rb.metadata.namespace_ = "demo";
  rb.role_ref = {"rbac.authorization.k8s.io", "ClusterRole", "view", {}};
  rb.subjects = {Subject{"User", "rbac.authorization.k8s.io", "jane", "", {}},
                 Subject{"ServiceAccount", "", "sa", "demo", {}}};
  return rb;
}

TEST(RbacValidationTest, ValidObjectsPass) {
  EXPECT_THAT(Errs(ValidateCreate(ValidRole())), IsEmpty());
  EXPECT_THAT(Errs(ValidateCreate(ValidRoleBinding())), IsEmpty());
  ClusterRole cr;
  cr.metadata.name = "metrics";
  PolicyRule urls;
  urls.verbs = {"get"};
  urls.non_resource_urls = {"/metrics", "/healthz/*"};
  cr.rules = {PodReader(), urls};
  EXPECT_THAT(Errs(ValidateCreate(cr)), IsEmpty());
}

TEST(RbacValidationTest, PathSegmentNames) {
  Role role = ValidRole();
  role.metadata.name = "a/b";
  EXPECT_THAT(Errs(ValidateCreate(role)),
              ElementsAre("metadata.name: Invalid value: \"a/b\": may not contain '/'"));
  role.metadata.name = "..";
  EXPECT_THAT(Errs(ValidateCreate(role)),
              ElementsAre("metadata.name: Invalid value: \"..\": may not be '..'"));
  RoleBinding rb = ValidRoleBinding();
  rb.role_ref.name = "x%y";
  EXPECT_THAT(Errs(ValidateCreate(rb)),
              ElementsAre("roleRef.name: Invalid value: \"x%y\": may not contain '%'"));
  rb.role_ref.name = "";
  EXPECT_THAT(Errs(ValidateCreate(rb)), ElementsAre("roleRef.name: Required value"));
}

TEST(RbacValidationTest, RuleChecks) {
  Role role = ValidRole();
  role.rules[0].verbs.clear();
  role.rules[0].api_groups.clear();
  EXPECT_THAT(Errs(ValidateCreate(role)),
              ElementsAre("rules[0].verbs: Required value: verbs must contain at least one value",
                          "rules[0].apiGroups: Required value: resource rules must supply at "
                          "least one api group"));
  role = ValidRole();
  role.rules[0].resources.clear();
  EXPECT_THAT(Errs(ValidateCreate(role)),
              ElementsAre("rules[0].resources: Required value: resource rules must supply at "
                          "least one resource"));
  role = ValidRole();
  role.rules[0].resource_names = {"p1"};
  role.rules[0].resources = {"pods", "services"};
  EXPECT_THAT(Errs(ValidateCreate(role)),
              ElementsAre("rules[0].resourceNames: Required value: resource names cannot apply "
                          "to multiple resources"));
}

TEST(RbacValidationTest, NonResourceUrls) {
  Role role = ValidRole();
  PolicyRule urls;
  urls.verbs = {"get"};
  urls.non_resource_urls = {"/metrics"};
  role.rules = {urls};
  EXPECT_THAT(Errs(ValidateCreate(role)),
              ElementsAre("rules[0].nonResourceURLs: Invalid value: []string{\"/metrics\"}: "
                          "namespaced rules cannot apply to non-resource URLs"));
  ClusterRole cr;
  cr.metadata.name = "mixed";
  urls.resources = {"pods"};
  cr.rules = {urls};
  EXPECT_THAT(Errs(ValidateCreate(cr)),
              ElementsAre("rules[0].nonResourceURLs: Invalid value: []string{\"/metrics\"}: "
                          "rules cannot apply to both regular resources and non-resource URLs"));
}

TEST(RbacValidationTest, AggregationRule) {
  ClusterRole cr;
  cr.metadata.name = "agg";
  cr.aggregation_rule.emplace();
  EXPECT_THAT(Errs(ValidateCreate(cr)),
              ElementsAre("aggregationRule.clusterRoleSelectors: Required value: at least one "
                          "clusterRoleSelector required if aggregationRule is non-nil"));
  selectors::LabelSelectorSpec sel;
  sel.match_labels["team"] = "x";
  cr.aggregation_rule->cluster_role_selectors = {sel};
  EXPECT_THAT(Errs(ValidateCreate(cr)), IsEmpty());
  sel.match_labels["bad key!"] = "x";
  cr.aggregation_rule->cluster_role_selectors = {sel};
  auto errs = Errs(ValidateCreate(cr));
  ASSERT_FALSE(errs.empty());
  EXPECT_THAT(errs.front(), HasSubstr("aggregationRule.clusterRoleSelectors[0].matchLabels"));
  EXPECT_EQ(errs.back(),
            "aggregationRule.clusterRoleSelectors[0]: Invalid value: \"null\": invalid label "
            "selector.");
}

TEST(RbacValidationTest, RoleRefKindAndGroup) {
  RoleBinding rb = ValidRoleBinding();
  rb.role_ref.kind = "Foo";
  EXPECT_THAT(Errs(ValidateCreate(rb)),
              ElementsAre("roleRef.kind: Unsupported value: \"Foo\": supported values: "
                          "\"Role\", \"ClusterRole\""));
  ClusterRoleBinding crb;
  crb.metadata.name = "c";
  crb.role_ref = {"rbac.authorization.k8s.io", "Role", "r", {}};
  EXPECT_THAT(Errs(ValidateCreate(crb)),
              ElementsAre("roleRef.kind: Unsupported value: \"Role\": supported values: "
                          "\"ClusterRole\""));
  crb.role_ref = {"example.com", "ClusterRole", "r", {}};
  EXPECT_THAT(Errs(ValidateCreate(crb)),
              ElementsAre("roleRef.apiGroup: Unsupported value: \"example.com\": supported "
                          "values: \"rbac.authorization.k8s.io\""));
}

TEST(RbacValidationTest, Subjects) {
  RoleBinding rb = ValidRoleBinding();
  rb.subjects = {Subject{"Robot", "", "r2", "", {}}, Subject{"User", "", "", "", {}},
                 Subject{"ServiceAccount", "x", "Bad_Name", "", {}}};
  EXPECT_THAT(
      Errs(ValidateCreate(rb)),
      ElementsAre("subjects[0].kind: Unsupported value: \"Robot\": supported values: "
                  "\"ServiceAccount\", \"User\", \"Group\"",
                  "subjects[1].name: Required value",
                  "subjects[1].name: Invalid value: \"\": user name cannot be empty",
                  "subjects[1].apiGroup: Unsupported value: \"\": supported values: "
                  "\"rbac.authorization.k8s.io\"",
                  HasSubstr("subjects[2].name: Invalid value: \"Bad_Name\": a lowercase RFC 1123 "
                            "subdomain"),
                  "subjects[2].apiGroup: Unsupported value: \"x\": supported values: \"\""));
  // A ServiceAccount in a ClusterRoleBinding needs its namespace.
  ClusterRoleBinding crb;
  crb.metadata.name = "c";
  crb.role_ref = {"rbac.authorization.k8s.io", "ClusterRole", "view", {}};
  crb.subjects = {Subject{"ServiceAccount", "", "sa", "", {}}};
  EXPECT_THAT(Errs(ValidateCreate(crb)), ElementsAre("subjects[0].namespace: Required value"));
}

TEST(RbacValidationTest, RoleRefImmutable) {
  RoleBinding old = ValidRoleBinding();
  old.metadata.resource_version = "5";
  RoleBinding rb = old;
  rb.role_ref.name = "edit";
  EXPECT_THAT(Errs(ValidateUpdate(rb, old)),
              ElementsAre("roleRef: Invalid value: rbac.RoleRef{APIGroup:"
                          "\"rbac.authorization.k8s.io\", Kind:\"ClusterRole\", Name:\"edit\"}: "
                          "cannot change roleRef"));
  rb = old;
  rb.subjects.pop_back();
  EXPECT_THAT(Errs(ValidateUpdate(rb, old)), IsEmpty());
}

TEST(RbacDefaultsTest, SubjectAndRoleRefApiGroup) {
  RoleBinding rb;
  rb.metadata.name = "b";
  rb.metadata.namespace_ = "demo";
  rb.role_ref = {"", "ClusterRole", "view", {}};
  rb.subjects = {Subject{"User", "", "jane", "", {}}, Subject{"Group", "", "dev", "", {}},
                 Subject{"ServiceAccount", "", "sa", "demo", {}}};
  Default(rb);
  EXPECT_EQ(rb.role_ref.api_group, "rbac.authorization.k8s.io");
  EXPECT_EQ(rb.subjects[0].api_group, "rbac.authorization.k8s.io");
  EXPECT_EQ(rb.subjects[1].api_group, "rbac.authorization.k8s.io");
  EXPECT_EQ(rb.subjects[2].api_group, "");
  ClusterRoleBinding crb;
  crb.subjects = {Subject{"User", "", "jane", "", {}}};
  Default(crb);
  EXPECT_EQ(crb.role_ref.api_group, "rbac.authorization.k8s.io");
  EXPECT_EQ(crb.subjects[0].api_group, "rbac.authorization.k8s.io");
}

TEST(RbacAdmitTest, InvalidStatusNamesTheQualifiedKind) {
  RoleBinding rb = ValidRoleBinding();
  rb.role_ref.kind = "Foo";
  Status st = AdmitCreate(rb);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(),
            "RoleBinding.rbac.authorization.k8s.io \"jane-view\" is invalid: roleRef.kind: "
            "Unsupported value: \"Foo\": supported values: \"Role\", \"ClusterRole\"");
  // Defaulting runs first: a User subject without apiGroup is accepted.
  rb = ValidRoleBinding();
  rb.subjects[0].api_group.clear();
  EXPECT_TRUE(AdmitCreate(rb).ok());
  EXPECT_EQ(rb.subjects[0].api_group, "rbac.authorization.k8s.io");
}

}  // namespace
}  // namespace svcplane::api::validation
