// apps/v1 Deployment and ReplicaSet through the JSON and protobuf codecs: upstream's JSON shape
// of a defaulted object (`kubectl get deploy -o json` on a real cluster), the always-written
// ReplicaSet status.replicas, pointer fields kept apart from zero, and lossless round trips.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "api/codec/json.h"
#include "api/codec/protobuf.h"
#include "api/types.h"
#include "api/validation/defaults.h"

namespace svcplane::api::codec {
namespace {

using apps::v1::Deployment;
using apps::v1::ReplicaSet;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr std::string_view kGv = "apps/v1";

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

constexpr std::string_view kCreateBody =
    R"({"kind":"Deployment","apiVersion":"apps/v1","metadata":{"name":"web","namespace":)"
    R"("default","creationTimestamp":null,"labels":{"app":"web"}},"spec":{"replicas":3,)"
    R"("selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"creationTimestamp":)"
    R"(null,"labels":{"app":"web"}},"spec":{"containers":[{"name":"nginx","image":"nginx",)"
    R"("resources":{}}]}},"strategy":{}},"status":{}})";

TEST(AppsCodecTest, DefaultedDeploymentJsonShape) {
  auto d = DecodeJson<Deployment>(kCreateBody);
  ASSERT_TRUE(d.ok()) << d.status().message();
  validation::Default(*d);
  EXPECT_EQ(
      EncodeJson(*d),
      R"({"kind":"Deployment","apiVersion":"apps/v1","metadata":{"name":"web","namespace":)"
      R"("default","creationTimestamp":null,"labels":{"app":"web"}},"spec":{"replicas":3,)"
      R"("selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"creationTimestamp":)"
      R"(null,"labels":{"app":"web"}},"spec":{"containers":[{"name":"nginx","image":"nginx",)"
      R"("resources":{},"terminationMessagePath":"/dev/termination-log",)"
      R"("terminationMessagePolicy":"File","imagePullPolicy":"Always"}],"restartPolicy":)"
      R"("Always","terminationGracePeriodSeconds":30,"dnsPolicy":"ClusterFirst",)"
      R"("securityContext":{},"schedulerName":"default-scheduler"}},"strategy":{"type":)"
      R"("RollingUpdate","rollingUpdate":{"maxUnavailable":"25%","maxSurge":"25%"}},)"
      R"("revisionHistoryLimit":10,"progressDeadlineSeconds":600},"status":{}})");
  EXPECT_EQ(ViaJson(*d), *d);
  EXPECT_EQ(ViaProtobuf(*d, "Deployment"), *d);
}

TEST(AppsCodecTest, DeploymentStatusAndPointers) {
  auto d = DecodeJson<Deployment>(kCreateBody);
  ASSERT_TRUE(d.ok());
  d->spec.replicas = 0;  // explicit zero is kept (a pointer upstream)
  d->spec.revision_history_limit = 0;
  d->spec.paused = true;
  d->status.observed_generation = 2;
  d->status.replicas = 3;
  d->status.updated_replicas = 3;
  d->status.ready_replicas = 2;
  d->status.available_replicas = 2;
  d->status.unavailable_replicas = 1;
  d->status.collision_count = 0;
  apps::v1::DeploymentCondition c;
  c.type = "Available";
  c.status = "True";
  c.reason = "MinimumReplicasAvailable";
  c.message = "Deployment has minimum availability.";
  c.last_update_time = meta::Time::FromUnix(1714557600);
  c.last_transition_time = meta::Time::FromUnix(1714557600);
  d->status.conditions.push_back(c);
  std::string json = EncodeJson(*d);
  EXPECT_THAT(json, HasSubstr(R"("spec":{"replicas":0,)"));
  EXPECT_THAT(json, HasSubstr(R"("revisionHistoryLimit":0,"paused":true)"));
  EXPECT_THAT(json,
              HasSubstr(R"("status":{"observedGeneration":2,"replicas":3,"updatedReplicas":3,)"
                        R"("readyReplicas":2,"availableReplicas":2,"unavailableReplicas":1,)"
                        R"("conditions":[{"type":"Available","status":"True","lastUpdateTime":)"
                        R"("2024-05-01T10:00:00Z","lastTransitionTime":"2024-05-01T10:00:00Z",)"
                        R"("reason":"MinimumReplicasAvailable","message":"Deployment has )"
                        R"(minimum availability."}],"collisionCount":0})"));
  EXPECT_EQ(ViaJson(*d), *d);
  EXPECT_EQ(ViaProtobuf(*d, "Deployment"), *d);
  // Protobuf keeps a set pointer apart from an unset one.
  Deployment unset = *d;
  unset.spec.replicas.reset();
  unset.status.collision_count.reset();
  Deployment back = ViaProtobuf(unset, "Deployment");
  EXPECT_FALSE(back.spec.replicas.has_value());
  EXPECT_FALSE(back.status.collision_count.has_value());
}

TEST(AppsCodecTest, ReplicaSetStatusReplicasAlwaysWritten) {
  auto rs = DecodeJson<ReplicaSet>(
      R"({"kind":"ReplicaSet","apiVersion":"apps/v1","metadata":{"name":"web-1"},)"
      R"("spec":{"replicas":2,"selector":{"matchExpressions":[{"key":"app","operator":"In",)"
      R"("values":["web"]}]},"template":{"metadata":{"labels":{"app":"web"}},"spec":)"
      R"({"containers":[{"name":"c","image":"i","env":[{"name":"A","value":"1"}]}]}}}})");
  ASSERT_TRUE(rs.ok()) << rs.status().message();
  std::string json = EncodeJson(*rs);
  EXPECT_THAT(json, HasSubstr(R"("status":{"replicas":0})"));
  // Fields the model does not type ride along verbatim.
  EXPECT_THAT(json, HasSubstr(R"("env":[{"name":"A","value":"1"}])"));
  EXPECT_THAT(json, Not(HasSubstr("minReadySeconds")));
  EXPECT_EQ(ViaJson(*rs), *rs);
  ReplicaSet back = ViaProtobuf(*rs, "ReplicaSet");
  EXPECT_EQ(EncodeJson(back), json);
}

TEST(AppsCodecTest, ListsRoundTrip) {
  DeploymentList list;
  list.metadata.resource_version = "7";
  auto d = DecodeJson<Deployment>(kCreateBody);
  ASSERT_TRUE(d.ok());
  list.items.push_back(*d);
  auto back = DecodeProtobuf<DeploymentList>(EncodeProtobuf(list, kGv, "DeploymentList"));
  ASSERT_TRUE(back.ok()) << back.status().message();
  ASSERT_EQ(back->items.size(), 1u);
  EXPECT_EQ(back->items[0].spec, d->spec);
}

}  // namespace
}  // namespace svcplane::api::codec
