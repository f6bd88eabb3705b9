// apps/v1 Deployment and ReplicaSet: defaulting (workloads.md §1.3), registry strategy (§1.4)
// and validation with upstream's texts (§1.5).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "api/codec/json.h"
#include "api/validation/admit.h"
#include "api/validation/internal/test_util.h"
#include "api/validation/validation.h"

namespace svcplane::api::validation {
namespace {

using apps::v1::Deployment;
using apps::v1::ReplicaSet;
using ::testing::Contains;
using ::testing::ElementsAre;
using testing::Errs;
using ::testing::IsEmpty;

// What `kubectl create deployment web --image=nginx` sends, decoded.
Deployment WebDeployment() {
  auto d = codec::DecodeJson<Deployment>(
      R"({"kind":"Deployment","apiVersion":"apps/v1","metadata":{"name":"web","namespace":)"
      R"("default","labels":{"app":"web"}},"spec":{"replicas":3,"selector":{"matchLabels":)"
      R"({"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":)"
      R"([{"name":"nginx","image":"nginx"}]}},"strategy":{}},"status":{}})");
  EXPECT_TRUE(d.ok()) << d.status().message();
  return d.ok() ? *d : Deployment{};
}

ReplicaSet WebReplicaSet() {
  ReplicaSet rs;
  rs.metadata.name = "web-5d9c7";
  rs.metadata.namespace_ = "default";
  rs.spec.selector.emplace();
  rs.spec.selector->match_labels = {{"app", "web"}};
  rs.spec.template_ = WebDeployment().spec.template_;
  return rs;
}

Deployment Defaulted(Deployment d) {
  Default(d);
  PrepareForCreate(d);
  return d;
}

TEST(AppsDefaultsTest, Deployment) {
  Deployment d = Defaulted(WebDeployment());
  EXPECT_EQ(d.spec.replicas, 3);
  EXPECT_EQ(d.spec.strategy.type, "RollingUpdate");
  ASSERT_TRUE(d.spec.strategy.rolling_update.has_value());
  EXPECT_EQ(d.spec.strategy.rolling_update->max_unavailable, meta::IntOrString::FromString("25%"));
  EXPECT_EQ(d.spec.strategy.rolling_update->max_surge, meta::IntOrString::FromString("25%"));
  EXPECT_EQ(d.spec.revision_history_limit, 10);
  EXPECT_EQ(d.spec.progress_deadline_seconds, 600);
  const auto& ps = d.spec.template_.spec;
  EXPECT_EQ(ps.rest->restart_policy, "Always");
  EXPECT_EQ(ps.rest->dns_policy, "ClusterFirst");
  EXPECT_EQ(ps.rest->termination_grace_period_seconds, 30);
  EXPECT_EQ(ps.rest->scheduler_name, "default-scheduler");
  // Pods only: enableServiceLinks is not set on templates.
  EXPECT_FALSE(ps.rest->enable_service_links.has_value());
  EXPECT_EQ(ps.containers[0].rest->image_pull_policy, "Always");
  EXPECT_EQ(ps.containers[0].rest->termination_message_path, "/dev/termination-log");
  EXPECT_EQ(d.metadata.rest->generation, 1);
  EXPECT_THAT(Errs(ValidateCreate(d)), IsEmpty());

  Deployment recreate = WebDeployment();
  recreate.spec.replicas.reset();
  recreate.spec.strategy.type = "Recreate";
  Default(recreate);
  EXPECT_EQ(recreate.spec.replicas, 1);
  EXPECT_FALSE(recreate.spec.strategy.rolling_update.has_value());
}

TEST(AppsDefaultsTest, ReplicaSetTemplateDefaultsMatchDeployment) {
  ReplicaSet rs = WebReplicaSet();
  Default(rs);
  EXPECT_EQ(rs.spec.replicas, 1);
  EXPECT_EQ(rs.spec.template_, Defaulted(WebDeployment()).spec.template_);
}

TEST(AppsStrategyTest, DeploymentGenerationAndStatus) {
  Deployment old = Defaulted(WebDeployment());
  old.status.replicas = 3;
  Deployment n = old;
  n.status = {};
  PrepareForUpdate(n, old);
  EXPECT_EQ(n.metadata.rest->generation, 1);  // nothing changed
  EXPECT_EQ(n.status.replicas, 3);            // status comes from the stored object
  n.spec.replicas = 5;
  PrepareForUpdate(n, old);
  EXPECT_EQ(n.metadata.rest->generation, 2);
  Deployment annotated = old;
  annotated.metadata.annotations["kubernetes.io/change-cause"] = "x";
  PrepareForUpdate(annotated, old);
  EXPECT_EQ(annotated.metadata.rest->generation, 2);

  Deployment status = old;
  status.spec.replicas = 9;
  status.metadata.labels["extra"] = "x";
  status.metadata.annotations["deployment.kubernetes.io/revision"] = "1";
  status.status.replicas = 7;
  PrepareForStatusUpdate(status, old);
  EXPECT_EQ(status.spec, old.spec);
  EXPECT_EQ(status.metadata.labels, old.metadata.labels);
  EXPECT_EQ(status.metadata.annotations.at("deployment.kubernetes.io/revision"), "1");
  EXPECT_EQ(status.status.replicas, 7);
  EXPECT_EQ(status.metadata.rest->generation, 1);
}

// The same template from a protobuf and from a JSON request: unknown fields in another order.
TEST(AppsStrategyTest, UnknownFieldOrderIsNoSpecChange) {
  Deployment old = Defaulted(WebDeployment());
  auto& unknown = old.spec.template_.spec.unknown.items;
  unknown.push_back({"hostPID", "false"});
  unknown.push_back({"hostIPC", "false"});
  Deployment n = old;
  std::swap(n.spec.template_.spec.unknown.items[0], n.spec.template_.spec.unknown.items[1]);
  ASSERT_NE(n.spec, old.spec);
  PrepareForUpdate(n, old);
  EXPECT_EQ(n.metadata.rest->generation, 1);
  n.spec.template_.spec.unknown.items[0].second = "true";
  PrepareForUpdate(n, old);
  EXPECT_EQ(n.metadata.rest->generation, 2);
}

TEST(AppsStrategyTest, ReplicaSetGenerationIgnoresAnnotations) {
  ReplicaSet old = WebReplicaSet();
  Default(old);
  PrepareForCreate(old);
  ReplicaSet n = old;
  n.metadata.annotations["a"] = "b";
  PrepareForUpdate(n, old);
  EXPECT_EQ(n.metadata.rest->generation, 1);
  n.spec.replicas = 4;
  PrepareForUpdate(n, old);
  EXPECT_EQ(n.metadata.rest->generation, 2);
}

TEST(AppsValidationTest, SelectorRules) {
  Deployment d = Defaulted(WebDeployment());
  d.spec.selector.reset();
  EXPECT_THAT(Errs(ValidateCreate(d)),
              ElementsAre("spec.selector: Required value",
                          "spec.template.metadata.labels: Invalid value: "
                          "map[string]string{\"app\":\"web\"}: `selector` does not match "
                          "template `labels`"));
  d.spec.selector.emplace();
  EXPECT_THAT(Errs(ValidateCreate(d)),
              ElementsAre("spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]"
                          "string(nil), MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: "
                          "empty selector is invalid for deployment"));
  d.spec.selector->match_labels = {{"app", "other"}};
  EXPECT_THAT(Errs(ValidateCreate(d)),
              ElementsAre("spec.template.metadata.labels: Invalid value: "
                          "map[string]string{\"app\":\"web\"}: `selector` does not match "
                          "template `labels`"));
}

TEST(AppsValidationTest, SelectorImmutable) {
  Deployment old = Defaulted(WebDeployment());
  old.metadata.resource_version = "1";
  Deployment n = old;
  n.spec.selector->match_labels = {{"app", "web2"}};
  n.spec.template_.metadata.labels = {{"app", "web2"}};
  EXPECT_THAT(Errs(ValidateUpdate(n, old)),
              ElementsAre("spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]"
                          "string{\"app\":\"web2\"}, MatchExpressions:[]v1.LabelSelectorRequirement"
                          "(nil)}: field is immutable"));
  ReplicaSet rs_old = WebReplicaSet();
  Default(rs_old);
  rs_old.metadata.resource_version = "1";
  ReplicaSet rs = rs_old;
  rs.spec.selector->match_expressions.push_back({"tier", "In", {"a"}});
  EXPECT_THAT(Errs(ValidateUpdate(rs, rs_old)),
              Contains(::testing::HasSubstr("field is immutable")));
}

TEST(AppsValidationTest, Counters) {
  Deployment d = Defaulted(WebDeployment());
  d.spec.replicas = -1;
  d.spec.min_ready_seconds = 10;
  d.spec.progress_deadline_seconds = 5;
  d.spec.revision_history_limit = -2;
  EXPECT_THAT(Errs(ValidateCreate(d)),
              ElementsAre("spec.replicas: Invalid value: -1: must be greater than or equal to 0",
                          "spec.revisionHistoryLimit: Invalid value: -2: must be greater than or "
                          "equal to 0",
                          "spec.progressDeadlineSeconds: Invalid value: 5: must be greater than "
                          "minReadySeconds"));
}

TEST(AppsValidationTest, Strategy) {
  Deployment d = Defaulted(WebDeployment());
  d.spec.strategy.rolling_update->max_surge = meta::IntOrString::FromInt(0);
  d.spec.strategy.rolling_update->max_unavailable = meta::IntOrString::FromInt(0);
  EXPECT_THAT(Errs(ValidateCreate(d)),
              ElementsAre("spec.strategy.rollingUpdate.maxUnavailable: Invalid value: "
                          "intstr.IntOrString{Type:0, IntVal:0, StrVal:\"\"}: may not be 0 when "
                          "`maxSurge` is 0"));
  d.spec.strategy.rolling_update->max_surge = meta::IntOrString::FromString("abc");
  d.spec.strategy.rolling_update->max_unavailable = meta::IntOrString::FromString("110%");
  EXPECT_THAT(Errs(ValidateCreate(d)),
              ElementsAre("spec.strategy.rollingUpdate.maxSurge: Invalid value: "
                          "intstr.IntOrString{Type:1, IntVal:0, StrVal:\"abc\"}: a valid percent "
                          "string must be a numeric string followed by an ending '%' (e.g. '1%',  "
                          "or '93%', regex used for validation is '[0-9]+%')",
                          "spec.strategy.rollingUpdate.maxUnavailable: Invalid value: "
                          "intstr.IntOrString{Type:1, IntVal:0, StrVal:\"110%\"}: must not be "
                          "greater than 100%"));
  d.spec.strategy.rolling_update->max_surge = meta::IntOrString::FromInt(-1);
  d.spec.strategy.rolling_update->max_unavailable = meta::IntOrString::FromInt(1);
  EXPECT_THAT(Errs(ValidateCreate(d)),
              ElementsAre("spec.strategy.rollingUpdate.maxSurge: Invalid value: -1: must be "
                          "greater than or equal to 0"));
  d.spec.strategy.type = "Recreate";
  EXPECT_THAT(Errs(ValidateCreate(d)),
              ElementsAre("spec.strategy.rollingUpdate: Forbidden: may not be specified when "
                          "strategy `type` is 'Recreate'"));
  d.spec.strategy.type = "Foo";
  d.spec.strategy.rolling_update.reset();
  EXPECT_THAT(Errs(ValidateCreate(d)),
              ElementsAre("spec.strategy: Unsupported value: apps.DeploymentStrategy{Type:\"Foo\", "
                          "RollingUpdate:(*apps.RollingUpdateDeployment)(nil)}: supported values: "
                          "\"Recreate\", \"RollingUpdate\""));
}

TEST(AppsValidationTest, TemplateRules) {
  Deployment d = Defaulted(WebDeployment());
  d.spec.template_.spec.rest->restart_policy = "Never";
  d.spec.template_.spec.rest->active_deadline_seconds = 5;
  EXPECT_THAT(Errs(ValidateCreate(d)),
              ElementsAre("spec.template.spec.restartPolicy: Unsupported value: \"Never\": "
                          "supported values: \"Always\"",
                          "spec.template.spec.activeDeadlineSeconds: Forbidden: "
                          "activeDeadlineSeconds in ReplicaSet is not Supported"));
  Deployment no_image = Defaulted(WebDeployment());
  no_image.spec.template_.spec.containers[0].image.clear();
  EXPECT_THAT(Errs(ValidateCreate(no_image)),
              ElementsAre("spec.template.spec.containers[0].image: Required value"));
}

TEST(AppsValidationTest, InvalidStatusText) {
  Deployment d = WebDeployment();
  d.spec.replicas = -1;
  Status st = AdmitCreate(d);
  EXPECT_EQ(st.message(),
            "Deployment.apps \"web\" is invalid: spec.replicas: Invalid value: -1: must be "
            "greater than or equal to 0");
  ReplicaSet rs = WebReplicaSet();
  rs.spec.selector->match_labels = {{"app", "x"}};
  EXPECT_EQ(AdmitCreate(rs).message(),
            "ReplicaSet.apps \"web-5d9c7\" is invalid: spec.template.metadata.labels: Invalid "
            "value: map[string]string{\"app\":\"web\"}: `selector` does not match template "
            "`labels`");
}

TEST(AppsValidationTest, StatusUpdates) {
  Deployment old = Defaulted(WebDeployment());
  old.metadata.resource_version = "1";
  old.status.collision_count = 2;
  Deployment n = old;
  n.status.replicas = 1;
  n.status.updated_replicas = 2;
  n.status.ready_replicas = 1;
  n.status.available_replicas = 2;
  n.status.collision_count = 0;
  EXPECT_THAT(
      Errs(ValidateStatusUpdate(n, old)),
      ElementsAre(
          "status.updatedReplicas: Invalid value: 2: cannot be greater than status.replicas",
          "status.availableReplicas: Invalid value: 2: cannot be greater than "
          "status.replicas",
          "status.availableReplicas: Invalid value: 2: cannot be greater than "
          "readyReplicas",
          "status.collisionCount: Invalid value: 0: cannot be decremented"));
  ReplicaSet rs_old = WebReplicaSet();
  Default(rs_old);
  rs_old.metadata.resource_version = "1";
  ReplicaSet rs = rs_old;
  rs.status.observed_generation = -1;
  rs.status.fully_labeled_replicas = 1;
  EXPECT_THAT(Errs(ValidateStatusUpdate(rs, rs_old)),
              ElementsAre("status.observedGeneration: Invalid value: -1: must be greater than "
                          "or equal to 0",
                          "status.fullyLabeledReplicas: Invalid value: 1: cannot be greater than "
                          "status.replicas"));
}

}  // namespace
}  // namespace svcplane::api::validation
