#include "controllers/replicaset/pods.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

namespace svcplane::controllers::replicaset {
namespace {

using ::testing::ElementsAre;

const WallTime kNow = WallTime{} + std::chrono::seconds(1'800'000'000);

int64_t NowSeconds() {
  return std::chrono::duration_cast<std::chrono::seconds>(kNow.time_since_epoch()).count();
}

struct PodBuilder {
  Pod pod;
  explicit PodBuilder(std::string name) {
    pod.metadata.name = name;
    pod.metadata.namespace_ = "default";
    pod.metadata.uid = "uid-" + name;
    pod.metadata.creation_timestamp = api::meta::Time::FromUnix(NowSeconds() - 1000);
    pod.spec.node_name = "node-a";
    pod.status.phase = "Running";
  }
  PodBuilder& Node(std::string n) {
    pod.spec.node_name = std::move(n);
    return *this;
  }
  PodBuilder& Phase(std::string p) {
    pod.status.phase = std::move(p);
    return *this;
  }
  // Ready since `seconds_ago` (or not ready with ready=false).
  PodBuilder& Ready(bool ready = true, int64_t seconds_ago = 1000) {
    api::core::v1::PodCondition c;
    c.type = "Ready";
    c.status = ready ? "True" : "False";
    c.last_transition_time = api::meta::Time::FromUnix(NowSeconds() - seconds_ago);
    pod.status.conditions.push_back(c);
    return *this;
  }
  PodBuilder& Cost(std::string v) {
    pod.metadata.annotations[kPodDeletionCostAnnotation] = std::move(v);
    return *this;
  }
  PodBuilder& Restarts(int n) {
    pod.status.rest->container_statuses.push_back(
        {R"({"name":"c","state":{"running":{}},"ready":true, "restartCount" : )" +
         std::to_string(n) + "}"});
    return *this;
  }
  PodBuilder& CreatedAgo(int64_t seconds) {
    pod.metadata.creation_timestamp = api::meta::Time::FromUnix(NowSeconds() - seconds);
    return *this;
  }
  PodBuilder& Uid(std::string u) {
    pod.metadata.uid = std::move(u);
    return *this;
  }
  PodPtr Build() const { return std::make_shared<const Pod>(pod); }
};

bool Before(const PodPtr& a, const PodPtr& b, int rank_a = 0, int rank_b = 0) {
  return DeleteBefore({a, rank_a}, {b, rank_b}, kNow);
}

TEST(PodsTest, ActiveReadyAvailable) {
  EXPECT_TRUE(IsPodActive(*PodBuilder("a").Build()));
  EXPECT_FALSE(IsPodActive(*PodBuilder("a").Phase("Succeeded").Build()));
  EXPECT_FALSE(IsPodActive(*PodBuilder("a").Phase("Failed").Build()));
  PodBuilder deleting("d");
  deleting.pod.metadata.deletion_timestamp = api::meta::Time::FromUnix(1);
  EXPECT_FALSE(IsPodActive(*deleting.Build()));

  EXPECT_FALSE(IsPodReady(*PodBuilder("a").Build()));
  EXPECT_FALSE(IsPodReady(*PodBuilder("a").Ready(false).Build()));
  auto ready10 = PodBuilder("a").Ready(true, 10).Build();
  EXPECT_TRUE(IsPodReady(*ready10));
  EXPECT_TRUE(IsPodAvailable(*ready10, 0, kNow));
  EXPECT_TRUE(IsPodAvailable(*ready10, 9, kNow));
  // lastTransitionTime + minReadySeconds must be strictly before now.
  EXPECT_FALSE(IsPodAvailable(*ready10, 10, kNow));
  EXPECT_FALSE(IsPodAvailable(*ready10, 30, kNow));
  EXPECT_FALSE(IsPodAvailable(*PodBuilder("a").Ready(false).Build(), 0, kNow));
}

TEST(PodsTest, DeletionCostAndRestarts) {
  EXPECT_EQ(PodDeletionCost(*PodBuilder("a").Build()), 0);
  EXPECT_EQ(PodDeletionCost(*PodBuilder("a").Cost("-100").Build()), -100);
  EXPECT_EQ(PodDeletionCost(*PodBuilder("a").Cost("+7").Build()), 7);
  EXPECT_EQ(PodDeletionCost(*PodBuilder("a").Cost("abc").Build()), 0);
  EXPECT_EQ(PodDeletionCost(*PodBuilder("a").Cost("99999999999").Build()), 0);
  EXPECT_EQ(PodDeletionCost(*PodBuilder("a").Cost("1 ").Build()), 0);
  EXPECT_EQ(MaxContainerRestarts(*PodBuilder("a").Build()), 0);
  EXPECT_EQ(MaxContainerRestarts(*PodBuilder("a").Restarts(3).Restarts(5).Restarts(1).Build()), 5);
}

TEST(RankingTest, Rule1UnassignedFirst) {
  auto unassigned = PodBuilder("u").Node("").Phase("Pending").Build();
  auto assigned = PodBuilder("a").Phase("Pending").Build();
  EXPECT_TRUE(Before(unassigned, assigned));
  EXPECT_FALSE(Before(assigned, unassigned));
}

TEST(RankingTest, Rule2PendingUnknownRunning) {
  auto pending = PodBuilder("p").Phase("Pending").Build();
  auto unknown = PodBuilder("u").Phase("Unknown").Build();
  auto running = PodBuilder("r").Phase("Running").Build();
  EXPECT_TRUE(Before(pending, unknown));
  EXPECT_TRUE(Before(unknown, running));
  EXPECT_TRUE(Before(pending, running));
  EXPECT_FALSE(Before(running, unknown));
}

TEST(RankingTest, Rule3NotReadyFirst) {
  auto not_ready = PodBuilder("n").Ready(false).Build();
  auto ready = PodBuilder("r").Ready().Build();
  EXPECT_TRUE(Before(not_ready, ready));
  EXPECT_FALSE(Before(ready, not_ready));
}

TEST(RankingTest, Rule4LowerDeletionCostFirst) {
  auto cheap = PodBuilder("c").Ready().Cost("-100").Build();
  auto normal = PodBuilder("n").Ready().Build();
  EXPECT_TRUE(Before(cheap, normal));
  EXPECT_FALSE(Before(normal, cheap));
  // Cost outranks node crowding (rule 5).
  EXPECT_TRUE(Before(cheap, normal, 1, 3));
}

TEST(RankingTest, Rule5CrowdedNodeFirst) {
  auto a = PodBuilder("a").Ready().Build();
  auto b = PodBuilder("b").Ready().Build();
  EXPECT_TRUE(Before(a, b, 3, 1));
  EXPECT_FALSE(Before(a, b, 1, 3));
}

TEST(RankingTest, Rule6ReadyForLessTimeFirstInLogBuckets) {
  auto recent = PodBuilder("z-recent").Ready(true, 10).Build();
  auto old = PodBuilder("a-old").Ready(true, 100000).Build();
  EXPECT_TRUE(Before(recent, old));
  EXPECT_FALSE(Before(old, recent));
  // 1000 s and 1100 s ago share a log2(ns) bucket (2^39 ns ≈ 550 s .. 2^40 ns ≈ 1100 s):
  // the lower UID goes first, and the restart counts (rule 7) are never consulted.
  auto p1 = PodBuilder("p1").Uid("b").Ready(true, 1000).Restarts(9).Build();
  auto p2 = PodBuilder("p2").Uid("a").Ready(true, 1090).Build();
  EXPECT_TRUE(Before(p2, p1));
  EXPECT_FALSE(Before(p1, p2));
}

TEST(RankingTest, Rule7MoreRestartsFirst) {
  auto flappy = PodBuilder("f").Ready().Restarts(4).Build();
  auto stable = PodBuilder("s").Ready().Restarts(1).Build();
  EXPECT_TRUE(Before(flappy, stable));
  EXPECT_FALSE(Before(stable, flappy));
}

TEST(RankingTest, Rule8NewerFirstInLogBucketsZeroFirst) {
  auto newer = PodBuilder("n").CreatedAgo(5).Build();
  auto older = PodBuilder("o").CreatedAgo(50000).Build();
  EXPECT_TRUE(Before(newer, older));
  EXPECT_FALSE(Before(older, newer));
  auto b1 = PodBuilder("b1").Uid("2").CreatedAgo(1000).Build();
  auto b2 = PodBuilder("b2").Uid("1").CreatedAgo(1050).Build();
  EXPECT_TRUE(Before(b2, b1));  // same bucket: lower UID
  PodBuilder zero("zero");
  zero.pod.metadata.creation_timestamp = {};
  EXPECT_TRUE(Before(zero.Build(), newer));
}

TEST(RankingTest, Rule9EqualPodsAreNotOrdered) {
  auto a = PodBuilder("a").Ready().Build();
  auto b = PodBuilder("a").Ready().Build();
  EXPECT_FALSE(Before(a, b));
  EXPECT_FALSE(Before(b, a));
}

std::vector<std::string> Names(const std::vector<PodPtr>& pods) {
  std::vector<std::string> out;
  for (const auto& p : pods) out.push_back(p->metadata.name);
  return out;
}

// §7 scenario 28: one unscheduled, one Pending, one Running not Ready, one Running Ready →
// scaled to 1, the Ready one survives, deleted in that order.
TEST(PodsToDeleteTest, Scenario28LeastReadyGoFirst) {
  std::vector<PodPtr> pods = {PodBuilder("ready").Ready().Build(),
                              PodBuilder("running").Ready(false).Build(),
                              PodBuilder("pending").Phase("Pending").Build(),
                              PodBuilder("unscheduled").Node("").Phase("Pending").Build()};
  EXPECT_THAT(Names(PodsToDelete(pods, pods, 3, kNow)),
              ElementsAre("unscheduled", "pending", "running"));
}

TEST(PodsToDeleteTest, CrowdedNodeByRelatedPods) {
  // Two candidates on different nodes; the related pods (of a sibling ReplicaSet too) put 3 on
  // node-a and 1 on node-b.
  auto on_a = PodBuilder("on-a").Node("node-a").Ready().Build();
  auto on_b = PodBuilder("on-b").Node("node-b").Ready().Build();
  std::vector<PodPtr> related = {on_a, on_b, PodBuilder("s1").Node("node-a").Build(),
                                 PodBuilder("s2").Node("node-a").Build(),
                                 PodBuilder("gone").Node("node-b").Phase("Failed").Build()};
  EXPECT_THAT(Names(PodsToDelete({on_b, on_a}, related, 1, kNow)), ElementsAre("on-a"));
}

TEST(PodsToDeleteTest, DeletionCostFirstAndAllWhenNotFewer) {
  auto a = PodBuilder("a").Ready().Build();
  auto b = PodBuilder("b").Ready().Cost("-100").Build();
  auto c = PodBuilder("c").Ready().Build();
  EXPECT_THAT(Names(PodsToDelete({a, b, c}, {a, b, c}, 1, kNow)), ElementsAre("b"));
  // n >= size: everything, unsorted.
  EXPECT_THAT(Names(PodsToDelete({a, b, c}, {a, b, c}, 3, kNow)), ElementsAre("a", "b", "c"));
  EXPECT_THAT(Names(PodsToDelete({a, b, c}, {a, b, c}, 5, kNow)), ElementsAre("a", "b", "c"));
}

TEST(PodsTest, ControllerOfAndKey) {
  Pod p = *PodBuilder("x").Build();
  EXPECT_EQ(ControllerOf(p.metadata), nullptr);
  api::meta::OwnerReference other;
  other.uid = "o";
  p.metadata.owner_references.push_back(other);
  EXPECT_EQ(ControllerOf(p.metadata), nullptr);
  api::meta::OwnerReference ctrl;
  ctrl.uid = "c";
  ctrl.controller = true;
  p.metadata.owner_references.push_back(ctrl);
  ASSERT_NE(ControllerOf(p.metadata), nullptr);
  EXPECT_EQ(ControllerOf(p.metadata)->uid, "c");
  EXPECT_EQ(PodKey(p), "default/x");
}

}  // namespace
}  // namespace svcplane::controllers::replicaset
