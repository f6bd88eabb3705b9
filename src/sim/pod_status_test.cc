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
