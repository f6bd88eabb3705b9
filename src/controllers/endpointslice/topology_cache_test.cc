#include "controllers/endpointslice/topology_cache.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "controllers/endpointslice/testing/fixtures.h"
#include "controllers/endpointslice/testing/reconciler_harness.h"
#include "controllers/endpointslice/utils.h"

namespace svcplane::controllers::endpointslice {
namespace {

using ::testing::ElementsAre;
using testing::Harness;
using ::testing::IsEmpty;
using testing::MakeNode;
using testing::MakePod;
using testing::MakeService;
using testing::Share;
using Nodes = std::vector<std::shared_ptr<const Node>>;

Nodes ZonesWithCpu(std::vector<std::pair<std::string, std::string>> zone_cpu) {
  Nodes out;
  int i = 0;
  for (auto& [zone, cpu] : zone_cpu) {
    out.push_back(Share(MakeNode("node-" + std::to_string(i++), zone, cpu)));
  }
  return out;
}

Endpoint Ep(std::string zone, std::optional<bool> ready) {
  Endpoint e;
  static int n = 0;
  e.addresses = {"10.0.0." + std::to_string(++n)};
  if (!zone.empty()) e.zone = zone;
  e.conditions.ready = ready;
  return e;
}

std::string HintOf(const Endpoint& e) {
  if (!e.hints) return "-";
  std::string out;
  for (const auto& z : e.hints->for_zones) out += z.name;
  return out;
}

SliceInfo InfoWith(std::vector<Endpoint> endpoints) {
  SliceInfo info;
  info.service_key = "ns/svc";
  info.address_type = "IPv4";
  EndpointSlice s = NewSlice(MakeService(), {}, "IPv4");
  s.endpoints = std::move(endpoints);
  info.to_create.push_back(std::move(s));
  return info;
}

// Scenario 26.
TEST(TopologyCache, SetNodesNeedsTwoReadyZonesWithCpu) {
  TopologyCache c;
  c.SetNodes(ZonesWithCpu({{"zone-a", "1"}, {"zone-a", "1"}}));
  EXPECT_FALSE(c.SufficientNodeInfoForTest());
  Nodes nodes = ZonesWithCpu({{"zone-a", "1"}});
  nodes.push_back(Share(MakeNode("unready", "zone-b", "1", /*ready=*/false)));
  c.SetNodes(nodes);
  EXPECT_FALSE(c.SufficientNodeInfoForTest());
  c.SetNodes(ZonesWithCpu({{"zone-a", "1"}, {"", "1"}}));
  EXPECT_FALSE(c.SufficientNodeInfoForTest());
  EXPECT_TRUE(c.CpuRatiosForTest().empty());

  nodes = ZonesWithCpu({{"zone-a", "1"}, {"zone-b", "1"}});
  auto cp = MakeNode("cp", "zone-c", "8");
  cp.metadata.labels["node-role.kubernetes.io/control-plane"] = "";
  nodes.push_back(Share(cp));
  c.SetNodes(nodes);
  EXPECT_TRUE(c.SufficientNodeInfoForTest());
  EXPECT_EQ(c.CpuRatiosForTest(),
            (std::map<std::string, double>{{"zone-a", 0.5}, {"zone-b", 0.5}}));
}

// Scenario 23.
TEST(TopologyCache, HintsOwnZoneAndSkipsUnready) {
  TopologyCache c;
  c.SetNodes(ZonesWithCpu({{"zone-a", "450m"}, {"zone-b", "550m"}}));
  SliceInfo info = InfoWith(
      {Ep("zone-a", true), Ep("zone-b", true), Ep("zone-a", false), Ep("zone-b", std::nullopt)});
  auto events = c.AddHints(info);
  ASSERT_EQ(info.to_create.size(), 1u);
  const auto& eps = info.to_create[0].endpoints;
  EXPECT_EQ(HintOf(eps[0]), "zone-a");
  EXPECT_EQ(HintOf(eps[1]), "zone-b");
  EXPECT_EQ(HintOf(eps[2]), "-");
  EXPECT_EQ(HintOf(eps[3]), "-");
  EXPECT_THAT(events,
              ElementsAre(Event{"Normal", "TopologyAwareHintsEnabled",
                                "Topology Aware Hints has been enabled, addressType: IPv4"}));
  EXPECT_TRUE(c.HasPopulatedHints("ns/svc"));
  // Already enabled: no second event.
  SliceInfo again = InfoWith({Ep("zone-a", true), Ep("zone-b", true)});
  EXPECT_THAT(c.AddHints(again), IsEmpty());
}

// Scenario 24.
TEST(TopologyCache, TooFewEndpointsDisablesHints) {
  TopologyCache c;
  c.SetNodes(ZonesWithCpu({{"zone-a", "300m"}, {"zone-b", "400m"}, {"zone-c", "300m"}}));
  SliceInfo info = InfoWith({Ep("zone-a", true), Ep("zone-b", true)});
  info.to_create[0].endpoints[0].hints = api::discovery::v1::EndpointHints{};
  auto events = c.AddHints(info);
  EXPECT_THAT(events, ElementsAre(Event{"Warning", "TopologyAwareHintsDisabled",
                                        "Insufficient number of endpoints (2 endpoints, 3 zones), "
                                        "addressType: IPv4"}));
  for (const auto& e : info.to_create[0].endpoints) EXPECT_EQ(HintOf(e), "-");
  EXPECT_FALSE(c.HasPopulatedHints("ns/svc"));
}

TEST(TopologyCache, InsufficientNodeInfoAndMissingZone) {
  TopologyCache c;
  SliceInfo info = InfoWith({Ep("zone-a", true), Ep("zone-b", true)});
  auto events = c.AddHints(info);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].message,
            "Insufficient Node information: allocatable CPU or zone not specified on one or more "
            "nodes, addressType: IPv4");
  c.SetNodes(ZonesWithCpu({{"zone-a", "1"}, {"zone-b", "1"}}));
  SliceInfo no_zone = InfoWith({Ep("zone-a", true), Ep("", true)});
  events = c.AddHints(no_zone);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].message,
            "One or more endpoints do not have a zone specified, addressType: IPv4");
  for (const auto& e : no_zone.to_create[0].endpoints) EXPECT_EQ(HintOf(e), "-");
}

// Scenario 25.
TEST(TopologyCache, RedistributesFromOverfullZone) {
  TopologyCache c;
  c.SetNodes(ZonesWithCpu({{"zone-a", "350m"}, {"zone-b", "350m"}, {"zone-c", "300m"}}));
  std::vector<Endpoint> eps;
  for (int i = 0; i < 5; ++i) eps.push_back(Ep("zone-a", true));
  for (int i = 0; i < 2; ++i) eps.push_back(Ep("zone-b", true));
  for (int i = 0; i < 3; ++i) eps.push_back(Ep("zone-c", true));
  SliceInfo info = InfoWith(eps);
  c.AddHints(info);
  const auto& out = info.to_create[0].endpoints;
  EXPECT_EQ(HintOf(out[0]), "zone-b");
  for (int i = 1; i < 5; ++i) EXPECT_EQ(HintOf(out[i]), "zone-a");
  EXPECT_EQ(c.HintsForTest("ns/svc", "IPv4"),
            (TopologyCache::ZoneCounts{{"zone-a", 4}, {"zone-b", 3}, {"zone-c", 3}}));
  EXPECT_THAT(c.GetOverloadedServices(), IsEmpty());
  // Zone c loses most of its capacity share to a: the allocation no longer fits.
  c.SetNodes(ZonesWithCpu({{"zone-a", "100m"}, {"zone-b", "100m"}, {"zone-c", "800m"}}));
  EXPECT_THAT(c.GetOverloadedServices(), ElementsAre("ns/svc"));
}

TEST(TopologyCache, UnchangedSlicesKeepFittingHints) {
  TopologyCache c;
  c.SetNodes(ZonesWithCpu({{"zone-a", "1"}, {"zone-b", "1"}}));
  SliceInfo first = InfoWith({Ep("zone-a", true), Ep("zone-b", true)});
  c.AddHints(first);
  SliceInfo info;
  info.service_key = "ns/svc";
  info.address_type = "IPv4";
  info.unchanged.push_back(Share(first.to_create[0]));
  c.AddHints(info);
  EXPECT_TRUE(info.to_update.empty());
  EXPECT_EQ(info.unchanged.size(), 1u);
  // A slice with a ready endpoint lacking hints must be rewritten.
  EndpointSlice bare = first.to_create[0];
  bare.endpoints[0].hints.reset();
  SliceInfo info2;
  info2.service_key = "ns/svc";
  info2.address_type = "IPv4";
  info2.unchanged.push_back(Share(bare));
  c.AddHints(info2);
  ASSERT_EQ(info2.to_update.size(), 1u);
  EXPECT_EQ(HintOf(info2.to_update[0].endpoints[0]), "zone-a");
}

// Reconciler-level: annotation on → hints written and event; off → hints cleared with event.
TEST(TopologyReconcile, AnnotationTurnsHintsOnAndOff) {
  TopologyCache cache;
  Harness h(ReconcilerOptions{}, &cache);
  h.nodes() = {Share(MakeNode("node-a", "zone-a")), Share(MakeNode("node-b", "zone-b"))};
  cache.SetNodes(h.nodes());
  for (int i = 0; i < 6; ++i)
    h.pods().push_back(Share(MakePod(i, "ns", i % 2 ? "node-b" : "node-a")));
  Service svc = h.service();
  svc.metadata.annotations["service.kubernetes.io/topology-mode"] = "Auto";
  h.SetService(svc);
  SlicePlan plan = h.Sync();
  EXPECT_EQ(plan.metrics.topology_label, "Auto");
  ASSERT_EQ(plan.events.size(), 1u);
  EXPECT_EQ(plan.events[0].reason, "TopologyAwareHintsEnabled");
  for (const auto& ep : h.ServiceSlices()[0]->endpoints) EXPECT_EQ(HintOf(ep), *ep.zone);
  // Nothing changed: hints still fit, no writes.
  EXPECT_EQ(h.Sync().Writes(), 0);

  svc.metadata.annotations.clear();
  h.SetService(svc);
  plan = h.Sync();
  ASSERT_EQ(plan.events.size(), 1u);
  EXPECT_EQ(plan.events[0].reason, "TopologyAwareHintsDisabled");
  EXPECT_EQ(plan.events[0].message, "Topology Aware Hints has been disabled, addressType: IPv4");
  EXPECT_EQ(h.writer().Count("update"), 1);
  for (const auto& ep : h.ServiceSlices()[0]->endpoints) EXPECT_FALSE(ep.hints.has_value());
}

// Scenario 27.
TEST(TrafficDistribution, PreferCloseHintsOwnZone) {
  Harness h(ReconcilerOptions{});
  h.nodes() = {Share(MakeNode("node-a", "zone-a")), Share(MakeNode("node-b", "zone-b"))};
  for (int i = 0; i < 4; ++i)
    h.pods().push_back(Share(MakePod(i, "ns", i % 2 ? "node-b" : "node-a", i != 3)));
  h.Sync();
  for (const auto& ep : h.ServiceSlices()[0]->endpoints) EXPECT_FALSE(ep.hints.has_value());
  Service svc = h.service();
  svc.spec.traffic_distribution = "PreferClose";
  h.SetService(svc);
  SlicePlan plan = h.Sync();
  EXPECT_EQ(plan.metrics.traffic_distribution_label, "PreferClose");
  EXPECT_EQ(h.writer().Count("update"), 1);  // the unchanged slice lacked hints
  for (const auto& ep : h.ServiceSlices()[0]->endpoints) {
    if (*ep.conditions.ready) {
      EXPECT_EQ(HintOf(ep), *ep.zone);
    } else {
      EXPECT_FALSE(ep.hints.has_value());
    }
  }
  EXPECT_EQ(h.Sync().Writes(), 0);

  // The annotation takes precedence: with no topology cache configured, hints are removed.
  svc.metadata.annotations["service.kubernetes.io/topology-mode"] = "Auto";
  h.SetService(svc);
  plan = h.Sync();
  EXPECT_EQ(plan.metrics.traffic_distribution_label, "");
  for (const auto& ep : h.ServiceSlices()[0]->endpoints) EXPECT_FALSE(ep.hints.has_value());
}

// Scenario 28.
TEST(TrafficDistribution, RemovingItClearsHints) {
  Harness h(ReconcilerOptions{});
  h.nodes() = {Share(MakeNode("node-a", "zone-a"))};
  Service svc = h.service();
  svc.spec.traffic_distribution = "PreferClose";
  h.SetService(svc);
  h.AddPods(0, 150, "node-a");
  h.Sync();
  for (const auto& s : h.ServiceSlices()) {
    for (const auto& ep : s->endpoints) EXPECT_EQ(HintOf(ep), "zone-a");
  }
  svc.spec.traffic_distribution.reset();
  h.SetService(svc);
  h.Sync();
  EXPECT_EQ(h.writer().Count("update"), 2);
  for (const auto& s : h.ServiceSlices()) {
    for (const auto& ep : s->endpoints) EXPECT_FALSE(ep.hints.has_value());
  }
}

TEST(TrafficDistribution, PreferSameNodeAlsoHintsNode) {
  SliceInfo info = InfoWith({Ep("zone-a", true)});
  info.to_create[0].endpoints[0].node_name = "n1";
  ReconcileTrafficDistributionHints("PreferSameNode", info);
  const auto& h = *info.to_create[0].endpoints[0].hints;
  ASSERT_EQ(h.for_nodes.size(), 1u);
  EXPECT_EQ(h.for_nodes[0].name, "n1");
  EXPECT_EQ(h.for_zones[0].name, "zone-a");
}

}  // namespace
}  // namespace svcplane::controllers::endpointslice
