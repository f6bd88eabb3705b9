#include "sim/scheduling.h"

#include <gtest/gtest.h>

#include <map>

#include "sim/node_factory.h"

namespace svcplane::sim {
namespace {

namespace core = api::core::v1;
using NodeList = std::vector<std::shared_ptr<const core::Node>>;

NodeList MakeNodes(int n) {
  SimOptions opts;
  NodeList nodes;
  for (int i = 0; i < n; ++i) {
    nodes.push_back(std::make_shared<const core::Node>(*MakeNode(opts, i, WallTime{})));
  }
  return nodes;
}

core::Pod MakePod(int i) {
  core::Pod p;
  p.metadata.namespace_ = "default";
  p.metadata.name = "p" + std::to_string(i);
  return p;
}

TEST(SchedulingTest, SpreadsPodsEvenlyOverNodes) {
  NodeList nodes = MakeNodes(4);
  PodPlacer placer;
  std::map<std::string, int> count;
  for (int i = 0; i < 40; ++i) {
    int idx = placer.Pick(MakePod(i), nodes);
    ASSERT_GE(idx, 0);
    ++count[nodes[idx]->metadata.name];
  }
  ASSERT_EQ(count.size(), 4u);
  for (const auto& [name, n] : count) EXPECT_EQ(n, 10) << name;
}

TEST(SchedulingTest, PrefersTheLeastLoadedNode) {
  NodeList nodes = MakeNodes(3);
  PodPlacer placer;
  for (int i = 0; i < 5; ++i) placer.Observe("default/x" + std::to_string(i), "sim-node-0001");
  placer.Observe("default/y", "sim-node-0002");
  EXPECT_EQ(nodes[placer.Pick(MakePod(0), nodes)]->metadata.name, "sim-node-0003");
  EXPECT_EQ(nodes[placer.Pick(MakePod(1), nodes)]->metadata.name, "sim-node-0002");
  placer.Forget("default/x0");
  placer.Forget("default/x1");
  placer.Forget("default/x2");
  placer.Forget("default/x3");
  EXPECT_EQ(placer.Load("sim-node-0001"), 1);
}

TEST(SchedulingTest, IgnoresKwokTaintButNotOthersNotReadyOrCordoned) {
  NodeList nodes = MakeNodes(4);
  core::Node tainted = *nodes[0];
  tainted.spec.taints.push_back({"dedicated", "gpu", "NoSchedule", {}, {}});
  core::Node cordoned = *nodes[1];
  cordoned.spec.unschedulable = true;
  core::Node down = *nodes[2];
  for (auto& c : down.status.conditions) {
    if (c.type == "Ready") c.status = "Unknown";
  }
  core::Pod pod = MakePod(0);
  EXPECT_FALSE(Fits(pod, tainted));
  EXPECT_FALSE(Fits(pod, cordoned));
  EXPECT_FALSE(Fits(pod, down));
  EXPECT_TRUE(Fits(pod, *nodes[3]));  // only the kwok taint
  NodeList candidates = {std::make_shared<const core::Node>(tainted),
                         std::make_shared<const core::Node>(cordoned),
                         std::make_shared<const core::Node>(down), nodes[3]};
  PodPlacer placer;
  for (int i = 0; i < 3; ++i) EXPECT_EQ(placer.Pick(MakePod(i), candidates), 3);
  EXPECT_EQ(placer.Pick(pod, {candidates[0], candidates[1]}), -1);
}

TEST(SchedulingTest, NodeSelectorMustMatch) {
  NodeList nodes = MakeNodes(3);
  core::Pod pod = MakePod(0);
  pod.spec.rest->node_selector["topology.kubernetes.io/zone"] = "zone-c";
  PodPlacer placer;
  for (int i = 0; i < 3; ++i) EXPECT_EQ(placer.Pick(pod, nodes), 2);
}

TEST(SchedulingTest, OnlyUnboundPodsOfOurSchedulerNeedScheduling) {
  core::Pod pod = MakePod(0);
  EXPECT_TRUE(NeedsScheduling(pod, "default-scheduler"));
  pod.spec.rest->scheduler_name = "default-scheduler";
  EXPECT_TRUE(NeedsScheduling(pod, "default-scheduler"));
  pod.spec.rest->scheduler_name = "other";
  EXPECT_FALSE(NeedsScheduling(pod, "default-scheduler"));
  pod.spec.rest->scheduler_name = "";
  pod.spec.node_name = "n";
  EXPECT_FALSE(NeedsScheduling(pod, "default-scheduler"));
  pod.spec.node_name = "";
  pod.metadata.deletion_timestamp = api::meta::Time::FromUnix(1);
  EXPECT_FALSE(NeedsScheduling(pod, "default-scheduler"));
}

}  // namespace
}  // namespace svcplane::sim
