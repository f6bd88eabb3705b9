#include "sim/node_lifecycle.h"

#include <gtest/gtest.h>

#include "sim/node_factory.h"
#include "sim/pod_status.h"

namespace svcplane::sim {
namespace {

namespace core = api::core::v1;
using std::chrono::seconds;

const WallTime kStart = WallTime{} + seconds(1700000000);

TEST(NodeLifecycleTest, ExpiresAfterGraceSinceTheLastLeaseRenewal) {
  SimOptions opts;
  core::Node node = *MakeNode(opts, 0, kStart);
  auto lease = MakeNodeLease(opts, node.metadata.name, kStart + seconds(30));
  EXPECT_EQ(LastHeartbeat(node, &lease), kStart + seconds(30));
  EXPECT_FALSE(HeartbeatExpired(node, &lease, kStart + seconds(70), seconds(40)));
  EXPECT_TRUE(HeartbeatExpired(node, &lease, kStart + seconds(71), seconds(40)));
  // Without a Lease the Ready condition's heartbeat counts.
  EXPECT_FALSE(HeartbeatExpired(node, nullptr, kStart + seconds(40), seconds(40)));
  EXPECT_TRUE(HeartbeatExpired(node, nullptr, kStart + seconds(41), seconds(40)));
}

TEST(NodeLifecycleTest, UnknownStatusAsUpstreamWordsIt) {
  core::Node node = *MakeNode(SimOptions{}, 0, kStart);
  auto status = UnknownStatus(node, kStart + seconds(50));
  ASSERT_TRUE(status.has_value());
  for (const core::NodeCondition& c : status->conditions) {
    EXPECT_EQ(c.status, "Unknown") << c.type;
    EXPECT_EQ(c.reason, "NodeStatusUnknown");
    EXPECT_EQ(c.message, "Kubelet stopped posting node status.");
    EXPECT_EQ(c.last_transition_time.unix_seconds, 1700000050);
    EXPECT_EQ(c.last_heartbeat_time.unix_seconds, 1700000000);  // unchanged: nobody posted
  }
  node.status = *status;
  EXPECT_FALSE(UnknownStatus(node, kStart + seconds(60)).has_value());
}

TEST(NodeLifecycleTest, PodsOnTheNodeBecomeNotReady) {
  core::Pod pod;
  pod.metadata.name = "p";
  pod.spec.containers.push_back(core::Container{});
  pod.spec.containers[0].name = "c";
  pod.status = RunningStatus(pod, "172.18.0.2", "10.244.0.2", true, kStart);
  ASSERT_TRUE(IsPodReady(pod));
  auto status = NotReadyStatus(pod, kStart + seconds(50));
  ASSERT_TRUE(status.has_value());
  pod.status = *status;
  EXPECT_FALSE(IsPodReady(pod));
  EXPECT_EQ(FindCondition(pod, "Ready")->rest->reason, "NodeNotReady");
  EXPECT_EQ(pod.status.pod_ip, "10.244.0.2");  // IPs stay; only readiness changes
  EXPECT_FALSE(NotReadyStatus(pod, kStart + seconds(60)).has_value());
}

}  // namespace
}  // namespace svcplane::sim
