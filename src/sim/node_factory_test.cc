#include "sim/node_factory.h"

#include <gtest/gtest.h>

namespace svcplane::sim {
namespace {

TEST(Ipv4CidrTest, ParsesAndSplitsAClusterCidrPerNode) {
  auto cidr = Ipv4Cidr::Parse("10.244.0.0/16");
  ASSERT_TRUE(cidr.ok());
  EXPECT_EQ(cidr->ToString(), "10.244.0.0/16");
  EXPECT_EQ(cidr->Subnet(0, 24)->ToString(), "10.244.0.0/24");
  EXPECT_EQ(cidr->Subnet(1, 24)->ToString(), "10.244.1.0/24");
  EXPECT_EQ(cidr->Subnet(255, 24)->ToString(), "10.244.255.0/24");
  EXPECT_EQ(cidr->Subnet(256, 24).status().code(), Code::kInvalid);  // a /16 holds 256 /24s
  EXPECT_EQ(cidr->Subnet(0, 8).status().code(), Code::kInvalid);
}

TEST(Ipv4CidrTest, MasksHostBitsAndRejectsGarbage) {
  EXPECT_EQ(Ipv4Cidr::Parse("10.244.3.7/16")->ToString(), "10.244.0.0/16");
  EXPECT_FALSE(Ipv4Cidr::Parse("10.244.0.0").ok());
  EXPECT_FALSE(Ipv4Cidr::Parse("10.244.0/16").ok());
  EXPECT_FALSE(Ipv4Cidr::Parse("10.244.0.0/33").ok());
  EXPECT_FALSE(Ipv4Cidr::Parse("10.256.0.0/16").ok());
  EXPECT_FALSE(ParseIpv4("1.2.3.4x").ok());
  EXPECT_EQ(FormatIpv4(*ParseIpv4("192.168.10.254")), "192.168.10.254");
}

TEST(NodeFactoryTest, NodeIsMarkedAsKwokMarksItsNodes) {
  SimOptions opts;
  auto node = MakeNode(opts, 0, WallTime{} + std::chrono::seconds(1700000000));
  ASSERT_TRUE(node.ok()) << node.status().ToString();
  EXPECT_EQ(node->metadata.name, "sim-node-0001");
  EXPECT_EQ(node->metadata.annotations.at("kwok.x-k8s.io/node"), "fake");
  EXPECT_EQ(node->metadata.labels.at("type"), "kwok");
  EXPECT_EQ(node->metadata.labels.at("kubernetes.io/hostname"), "sim-node-0001");
  EXPECT_EQ(node->metadata.labels.at("topology.kubernetes.io/region"), "region-1");
  ASSERT_EQ(node->spec.taints.size(), 1u);
  EXPECT_EQ(node->spec.taints[0].key, "kwok.x-k8s.io/node");
  EXPECT_EQ(node->spec.taints[0].value, "fake");
  EXPECT_EQ(node->spec.taints[0].effect, "NoSchedule");
  EXPECT_TRUE(IsSimulatedNode(*node));
}

TEST(NodeFactoryTest, ZonesCidrsAndAddressesFollowTheIndex) {
  SimOptions opts;
  const WallTime now = WallTime{} + std::chrono::seconds(1700000000);
  std::vector<std::string> zones;
  for (int i = 0; i < 6; ++i)
    zones.push_back(MakeNode(opts, i, now)->metadata.labels.at(kZoneLabel));
  EXPECT_EQ(zones,
            (std::vector<std::string>{"zone-a", "zone-b", "zone-c", "zone-a", "zone-b", "zone-c"}));
  auto n = MakeNode(opts, 41, now);
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(n->metadata.name, "sim-node-0042");
  EXPECT_EQ(n->spec.pod_cidr, "10.244.41.0/24");
  EXPECT_EQ(n->spec.pod_cidrs, std::vector<std::string>{"10.244.41.0/24"});
  ASSERT_EQ(n->status.addresses.size(), 2u);
  EXPECT_EQ(n->status.addresses[0].type, "InternalIP");
  EXPECT_EQ(n->status.addresses[0].address, "172.18.0.43");
  EXPECT_EQ(n->status.allocatable.at("pods").text, "110");
  EXPECT_EQ(n->status.allocatable.at("cpu").text, "32");
  bool ready = false;
  for (const auto& c : n->status.conditions) {
    if (c.type == "Ready")
      ready = c.status == "True" && c.last_heartbeat_time.unix_seconds == 1700000000;
  }
  EXPECT_TRUE(ready);
}

TEST(NodeFactoryTest, TooManyNodesForTheClusterCidrIsAnError) {
  SimOptions opts;
  EXPECT_TRUE(MakeNode(opts, 255, WallTime{}).ok());
  EXPECT_EQ(MakeNode(opts, 256, WallTime{}).status().code(), Code::kInvalid);
  opts.cluster_cidr = "10.0.0.0/8";  // the 5,000-node envelope needs a larger range
  EXPECT_EQ(MakeNode(opts, 4999, WallTime{})->spec.pod_cidr, "10.19.135.0/24");
}

TEST(NodeFactoryTest, LeaseIsHeldByTheNodeInKubeNodeLease) {
  SimOptions opts;
  const WallTime now = WallTime{} + std::chrono::microseconds(1700000000123456);
  auto lease = MakeNodeLease(opts, "sim-node-0007", now);
  EXPECT_EQ(lease.metadata.namespace_, "kube-node-lease");
  EXPECT_EQ(lease.metadata.name, "sim-node-0007");
  EXPECT_EQ(lease.spec.holder_identity, "sim-node-0007");
  EXPECT_EQ(lease.spec.lease_duration_seconds, 40);
  EXPECT_EQ(lease.spec.renew_time->unix_micros, 1700000000123456);
  EXPECT_EQ(FromMicroTime(*lease.spec.renew_time), now);
}

}  // namespace
}  // namespace svcplane::sim
