#include "sim/pod_status.h"

#include <gtest/gtest.h>

#include <set>

namespace svcplane::sim {
namespace {

namespace core = api::core::v1;

core::Pod MakePod() {
  core::Pod p;
  p.metadata.name = "web-1";
  p.metadata.namespace_ = "default";
  p.metadata.uid = "uid-1";
  p.spec.node_name = "sim-node-0001";
  core::Container c;
  c.name = "web";
  c.image = "nginx";
  p.spec.containers.push_back(c);
  return p;
}

std::string Status(const core::PodStatus& s, const std::string& type) {
  for (const auto& c : s.conditions) {
    if (c.type == type) return c.status;
  }
  return "";
}

const WallTime kNow = WallTime{} + std::chrono::seconds(1700000000);

TEST(PodStatusTest, RunningAndReadyWithIpsAndContainerStatuses) {
  core::Pod p = MakePod();
  core::PodStatus s = RunningStatus(p, "172.18.0.2", "10.244.0.2", true, kNow);
  EXPECT_EQ(s.phase, "Running");
  EXPECT_EQ(s.pod_ip, "10.244.0.2");
  ASSERT_EQ(s.pod_ips.size(), 1u);
  EXPECT_EQ(s.pod_ips[0].ip, "10.244.0.2");
  EXPECT_EQ(s.rest->host_ip, "172.18.0.2");
  for (const char* t : {"PodScheduled", "Initialized", "ContainersReady", "Ready"}) {
    EXPECT_EQ(Status(s, t), "True") << t;
  }
  ASSERT_EQ(s.rest->container_statuses.size(), 1u);
  const std::string& cs = s.rest->container_statuses[0].text;
  EXPECT_NE(cs.find("\"ready\":true"), std::string::npos) << cs;
  EXPECT_NE(cs.find("\"started\":true"), std::string::npos) << cs;
  EXPECT_NE(cs.find("\"running\":{\"startedAt\":\"2023-11-14T22:13:20Z\"}"), std::string::npos)
      << cs;
}

TEST(PodStatusTest, RewritingTheSameStatusLaterChangesNothing) {
  core::Pod p = MakePod();
  p.status = RunningStatus(p, "172.18.0.2", "10.244.0.2", true, kNow);
  core::PodStatus again =
      RunningStatus(p, "172.18.0.2", "10.244.0.2", true, kNow + std::chrono::seconds(30));
  EXPECT_FALSE(StatusDiffers(p.status, again));
  core::PodStatus down =
      RunningStatus(p, "172.18.0.2", "10.244.0.2", false, kNow + std::chrono::seconds(30));
  EXPECT_TRUE(StatusDiffers(p.status, down));
  EXPECT_EQ(Status(down, "Ready"), "False");
  EXPECT_EQ(Status(down, "ContainersReady"), "False");
  EXPECT_EQ(Status(down, "PodScheduled"), "True");
}

TEST(PodStatusTest, ReadinessGateHoldsReadyUntilItsConditionIsTrue) {
  core::Pod p = MakePod();
  p.spec.readiness_gates.push_back({"example.com/lb-ready", {}});
  core::PodStatus s = RunningStatus(p, "172.18.0.2", "10.244.0.2", true, kNow);
  EXPECT_EQ(Status(s, "ContainersReady"), "True");
  EXPECT_EQ(Status(s, "Ready"), "False");
  p.status = s;
  core::PodCondition gate;
  gate.type = "example.com/lb-ready";
  gate.status = "True";
  p.status.conditions.push_back(gate);
  s = RunningStatus(p, "172.18.0.2", "10.244.0.2", true, kNow);
  EXPECT_EQ(Status(s, "Ready"), "True");
  EXPECT_EQ(Status(s, "example.com/lb-ready"), "True");  // kept
}

const core::PodCondition& Cond(const core::PodStatus& s, const std::string& type) {
  for (const auto& c : s.conditions) {
    if (c.type == type) return c;
  }
  static const core::PodCondition none;
  ADD_FAILURE() << "no condition " << type;
  return none;
}

TEST(PodStatusTest, CreatingStagePendingWithContainersBeingCreated) {
  core::Pod p = MakePod();
  core::Container sidecar;
  sidecar.name = "proxy";
  sidecar.image = "envoy";
  p.spec.containers.push_back(sidecar);
  core::PodStatus s = CreatingStatus(p, "172.18.0.2", "10.244.0.2", kNow);
  EXPECT_EQ(s.phase, "Pending");
  ASSERT_TRUE(s.rest->start_time.has_value());
  EXPECT_EQ(s.rest->start_time->unix_seconds, 1700000000);
  EXPECT_EQ(s.rest->host_ip, "172.18.0.2");
  ASSERT_EQ(s.rest->host_ips.size(), 1u);
  EXPECT_EQ(s.pod_ip, "10.244.0.2");
  ASSERT_EQ(s.pod_ips.size(), 1u);
  for (const char* t : {"PodScheduled", "Initialized", "PodReadyToStartContainers"}) {
    EXPECT_EQ(Status(s, t), "True") << t;
  }
  for (const char* t : {"Ready", "ContainersReady"}) {
    const core::PodCondition& c = Cond(s, t);
    EXPECT_EQ(c.status, "False") << t;
    EXPECT_EQ(c.rest->reason, "ContainersNotReady") << t;
    EXPECT_EQ(c.rest->message, "containers with unready status: [web proxy]") << t;
    EXPECT_EQ(c.last_transition_time.unix_seconds, 1700000000) << t;
  }
  ASSERT_EQ(s.rest->container_statuses.size(), 2u);
  EXPECT_EQ(s.rest->container_statuses[0].text,
            "{\"name\":\"web\",\"state\":{\"waiting\":{\"reason\":\"ContainerCreating\"}},"
            "\"lastState\":{},\"ready\":false,\"restartCount\":0,\"image\":\"nginx\","
            "\"imageID\":\"\",\"started\":false}");
  EXPECT_NE(s.rest->container_statuses[1].text.find("\"name\":\"proxy\""), std::string::npos);
  // Rewriting it later changes nothing.
  p.status = s;
  EXPECT_FALSE(StatusDiffers(
      s, CreatingStatus(p, "172.18.0.2", "10.244.0.2", kNow + std::chrono::seconds(3))));
}

TEST(PodStatusTest, RunningAfterCreatingTurnsReadyNowAndKeepsStartTime) {
  core::Pod p = MakePod();
  p.status = CreatingStatus(p, "172.18.0.2", "10.244.0.2", kNow);
  const WallTime later = kNow + std::chrono::seconds(4);
  core::PodStatus s = RunningStatus(p, "172.18.0.2", "10.244.0.2", true, later);
  EXPECT_EQ(s.phase, "Running");
  EXPECT_EQ(s.rest->start_time->unix_seconds, 1700000000);  // set by the create stage
  // Ready's lastTransitionTime is when it turned True (minReadySeconds counts from it).
  EXPECT_EQ(Cond(s, "Ready").status, "True");
  EXPECT_EQ(Cond(s, "Ready").last_transition_time.unix_seconds, 1700000004);
  EXPECT_EQ(Cond(s, "Ready").rest->reason, "");
  EXPECT_EQ(Cond(s, "Ready").rest->message, "");
  EXPECT_EQ(Cond(s, "ContainersReady").last_transition_time.unix_seconds, 1700000004);
  EXPECT_EQ(Cond(s, "Initialized").last_transition_time.unix_seconds, 1700000000);
  const std::string& cs = s.rest->container_statuses[0].text;
  EXPECT_NE(cs.find("\"running\":{\"startedAt\":\"2023-11-14T22:13:24Z\"}"), std::string::npos)
      << cs;
  EXPECT_NE(cs.find("\"ready\":true"), std::string::npos) << cs;
  // The containers' start time survives later rewrites (node not ready and back).
  p.status = s;
  core::PodStatus down =
      RunningStatus(p, "172.18.0.2", "10.244.0.2", false, later + std::chrono::seconds(60));
  EXPECT_NE(down.rest->container_statuses[0].text.find("2023-11-14T22:13:24Z"), std::string::npos);
  EXPECT_EQ(Cond(down, "Ready").rest->reason, "ContainersNotReady");
  EXPECT_EQ(Cond(down, "Ready").rest->message, "containers with unready status: [web]");
  p.status = down;
  core::PodStatus up =
      RunningStatus(p, "172.18.0.2", "10.244.0.2", true, later + std::chrono::seconds(90));
  EXPECT_NE(up.rest->container_statuses[0].text.find("2023-11-14T22:13:24Z"), std::string::npos);
  EXPECT_EQ(Cond(up, "Ready").last_transition_time.unix_seconds, 1700000094);
}

TEST(PodStatusTest, RunningStartedAtFallsBackToStartTimeNotNow) {
  // A status another writer formatted differently: the start time stays put instead of
  // changing at every rewrite.
  core::Pod p = MakePod();
  p.status = RunningStatus(p, "172.18.0.2", "10.244.0.2", true, kNow);
  p.status.rest->container_statuses[0].text = "{\"name\":\"web\",\"ready\":true}";
  core::PodStatus s =
      RunningStatus(p, "172.18.0.2", "10.244.0.2", true, kNow + std::chrono::seconds(9));
  EXPECT_NE(s.rest->container_statuses[0].text.find("2023-11-14T22:13:20Z"), std::string::npos);
}

TEST(PodIpPoolTest, AssignsDistinctHostAddressesAndReusesReleasedOnes) {
  PodIpPool pool(*Ipv4Cidr::Parse("10.244.1.0/29"));  // .2 .. .6 usable
  std::set<std::string> ips;
  for (int i = 0; i < 5; ++i) {
    auto ip = pool.Assign("uid-" + std::to_string(i));
    ASSERT_TRUE(ip.ok()) << i;
    ips.insert(*ip);
  }
  EXPECT_EQ(ips, (std::set<std::string>{"10.244.1.2", "10.244.1.3", "10.244.1.4", "10.244.1.5",
                                        "10.244.1.6"}));
  EXPECT_EQ(pool.Assign("uid-5").status().code(), Code::kUnavailable);
  EXPECT_EQ(*pool.Assign("uid-2"), "10.244.1.4");  // same Pod, same IP
  pool.Release("uid-2");
  EXPECT_EQ(*pool.Assign("uid-9"), "10.244.1.4");
  EXPECT_EQ(pool.InUse(), 5u);
}

TEST(PodIpPoolTest, ReserveKeepsIpsPodsAlreadyHave) {
  PodIpPool pool(*Ipv4Cidr::Parse("10.244.1.0/24"));
  pool.Reserve("old", "10.244.1.2");
  pool.Reserve("outside", "10.9.9.9");
  EXPECT_EQ(pool.InUse(), 1u);
  EXPECT_EQ(*pool.Assign("new"), "10.244.1.3");
  EXPECT_EQ(*pool.Assign("old"), "10.244.1.2");
}

}  // namespace
}  // namespace svcplane::sim
