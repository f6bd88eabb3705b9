#include "controllers/endpointslice/utils.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "controllers/endpointslice/testing/fixtures.h"

namespace svcplane::controllers::endpointslice {
namespace {

using ::testing::ElementsAre;
using testing::MakePod;
using testing::MakeService;
using testing::Share;
using ::testing::UnorderedElementsAre;

TEST(AddressFamily, ParsesAndCanonicalizes) {
  std::string c;
  EXPECT_EQ(AddressFamily("10.0.0.1", &c), "IPv4");
  EXPECT_EQ(c, "10.0.0.1");
  EXPECT_EQ(AddressFamily("010.000.000.001", &c), "IPv4");
  EXPECT_EQ(c, "10.0.0.1");
  EXPECT_EQ(AddressFamily("::ffff:1.2.3.4", &c), "IPv4");
  EXPECT_EQ(c, "1.2.3.4");
  EXPECT_EQ(AddressFamily("FD00:0:0:0:0:0:0:1", &c), "IPv6");
  EXPECT_EQ(c, "fd00::1");
  EXPECT_EQ(AddressFamily("2001:db8:0:0:1:0:0:1", &c), "IPv6");
  EXPECT_EQ(c, "2001:db8::1:0:0:1");
  EXPECT_EQ(AddressFamily("::", &c), "IPv6");
  EXPECT_EQ(c, "::");
  EXPECT_EQ(AddressFamily("1:0:2:3:4:5:6:7", &c), "IPv6");
  EXPECT_EQ(c, "1:0:2:3:4:5:6:7");
  EXPECT_FALSE(AddressFamily("not-an-ip", &c).has_value());
}

TEST(SupportedAddressTypes, FromFamiliesOrClusterIP) {
  Service s = MakeService();
  s.spec.ip_families = {"IPv6", "IPv4"};
  EXPECT_THAT(SupportedAddressTypes(s), ElementsAre("IPv4", "IPv6"));
  s.spec.ip_families.clear();
  s.spec.cluster_ip = "fd00::10";
  EXPECT_THAT(SupportedAddressTypes(s), ElementsAre("IPv6"));
  s.spec.cluster_ip = "10.0.0.1";
  EXPECT_THAT(SupportedAddressTypes(s), ElementsAre("IPv4"));
  s.spec.cluster_ip = "None";
  EXPECT_THAT(SupportedAddressTypes(s), ElementsAre("IPv4", "IPv6"));
}

TEST(EndpointPorts, NamedPortsSidecarsAndOrder) {
  Service s = MakeService();
  s.spec.ports.clear();
  api::core::v1::ServicePort a, b, c;
  a.name = "z";
  a.protocol = "TCP";
  a.port = 1;
  a.target_port = api::meta::IntOrString::FromString("http");
  b.name = "a";
  b.protocol = "UDP";
  b.port = 2;
  b.target_port = api::meta::IntOrString::FromString("http");  // protocol mismatch → omitted
  c.name = "m";
  c.protocol = "TCP";
  c.port = 3;
  c.target_port = api::meta::IntOrString::FromString("side");
  c.app_protocol = "h2c";
  s.spec.ports = {a, b, c};
  Pod pod = MakePod(1);
  api::core::v1::Container sidecar;
  sidecar.name = "sidecar";
  sidecar.unknown.items.push_back({"restartPolicy", "\"Always\""});
  api::core::v1::ContainerPort sp;
  sp.name = "side";
  sp.container_port = 9000;
  sp.protocol = "TCP";
  sidecar.ports.push_back(sp);
  pod.spec.rest->init_containers.push_back(sidecar);
  auto ports = EndpointPortsForPod(s, pod);
  ASSERT_EQ(ports.size(), 2u);
  EXPECT_EQ(ports[0].name, "m");
  EXPECT_EQ(ports[0].port, 9000);
  EXPECT_EQ(ports[0].app_protocol, "h2c");
  EXPECT_EQ(ports[1].name, "z");
  EXPECT_EQ(ports[1].port, 8080);
  // A plain init container does not serve.
  pod.spec.rest->init_containers[0].unknown.items.clear();
  EXPECT_EQ(EndpointPortsForPod(s, pod).size(), 1u);

  std::vector<EndpointPort> reversed(ports.rbegin(), ports.rend());
  EXPECT_EQ(PortMapKey(ports), PortMapKey(reversed));
  reversed[0].port = 1234;
  EXPECT_NE(PortMapKey(ports), PortMapKey(reversed));
}

TEST(PodToEndpoint, HostnameOnlyForMatchingSubdomain) {
  Service s = MakeService();
  Pod pod = MakePod(1);
  pod.spec.hostname = "web-0";
  pod.spec.subdomain = "other";
  EXPECT_FALSE(PodToEndpoint(pod, s, "IPv4", "n", "z")->hostname.has_value());
  pod.spec.subdomain = "svc";
  EXPECT_EQ(PodToEndpoint(pod, s, "IPv4", "n", "z")->hostname, "web-0");
  EXPECT_FALSE(PodToEndpoint(pod, s, "IPv6", "n", "z").has_value());
  auto ep = PodToEndpoint(pod, s, "IPv4", "", "");
  EXPECT_FALSE(ep->node_name.has_value());
  EXPECT_FALSE(ep->zone.has_value());
}

TEST(EndpointKey, IgnoresAddressOrderAndConditions) {
  Endpoint a, b;
  a.addresses = {"10.0.0.1", "10.0.0.2"};
  b.addresses = {"10.0.0.2", "10.0.0.1"};
  a.conditions.ready = true;
  EXPECT_EQ(EndpointKey(a), EndpointKey(b));
  b.hostname = "h";
  EXPECT_NE(EndpointKey(a), EndpointKey(b));
}

TEST(EndpointChangedBeyondKey, ComparesConditionsNodeZoneTargetRef) {
  Endpoint a;
  a.conditions.ready = true;
  a.target_ref = api::meta::ObjectReference{};
  a.target_ref->name = "p";
  Endpoint b = a;
  b.target_ref->resource_version = "7";
  b.hints = api::discovery::v1::EndpointHints{};
  EXPECT_FALSE(EndpointChangedBeyondKey(a, b));
  b.conditions.serving = false;  // nil vs false is a change
  EXPECT_TRUE(EndpointChangedBeyondKey(a, b));
  b = a;
  b.zone = "z";
  EXPECT_TRUE(EndpointChangedBeyondKey(a, b));
}

// Scenario 3.
TEST(PlaceholderEqual, IgnoresNameAndTimestampsOnly) {
  Service s = MakeService();
  EndpointSlice a = NewSlice(s, {}, "IPv4"), b = a;
  a.metadata.name = "x";
  b.metadata.name = "y";
  b.metadata.creation_timestamp = api::meta::Time::FromUnix(99);
  EXPECT_TRUE(PlaceholderEqual(a, b));
  b.metadata.labels["extra"] = "1";
  EXPECT_FALSE(PlaceholderEqual(a, b));
  b = a;
  b.address_type = "IPv6";
  EXPECT_FALSE(PlaceholderEqual(a, b));
}

TEST(Labels, MirrorServiceLabelsMinusReserved) {
  Service s = MakeService();
  s.metadata.labels = {{"app", "x"}, {"kubernetes.io/service-name", "evil"}};
  auto labels = SliceLabels(s);
  EXPECT_EQ(labels.at("app"), "x");
  EXPECT_EQ(labels.at("kubernetes.io/service-name"), "svc");
  EXPECT_EQ(labels.count("service.kubernetes.io/headless"), 0u);
  EndpointSlice slice = NewSlice(s, {}, "IPv4");
  EXPECT_FALSE(ServiceLabelsOutOfDate(slice, s));
  s.metadata.labels["app"] = "y";
  EXPECT_TRUE(ServiceLabelsOutOfDate(slice, s));
  s.spec.cluster_ip = "None";
  EXPECT_EQ(SliceLabels(s).at("service.kubernetes.io/headless"), "");
}

TEST(FormatRFC3339Nano, TrimsZeros) {
  EXPECT_EQ(FormatRFC3339Nano(int64_t{1714557600} * 1000000000), "2024-05-01T10:00:00Z");
  EXPECT_EQ(FormatRFC3339Nano(int64_t{1714557600} * 1000000000 + 120000000),
            "2024-05-01T10:00:00.12Z");
}

TEST(TopologyAnnotations, DeprecatedKeyWins) {
  Service s = MakeService();
  EXPECT_FALSE(TopologyHintsEnabled(s));
  s.metadata.annotations["service.kubernetes.io/topology-mode"] = "Auto";
  EXPECT_TRUE(TopologyHintsEnabled(s));
  s.metadata.annotations["service.kubernetes.io/topology-aware-hints"] = "disabled";
  EXPECT_FALSE(TopologyHintsEnabled(s));
  s.metadata.annotations["service.kubernetes.io/topology-aware-hints"] = "auto";
  EXPECT_TRUE(TopologyHintsEnabled(s));
  s.spec.traffic_distribution = "PreferClose";
  EXPECT_FALSE(TrafficDistributionUsable(s));
  s.metadata.annotations.clear();
  EXPECT_TRUE(TrafficDistributionUsable(s));
}

// Scenarios 20 and 21: what the controller lists for a Service.
TEST(SlicesForService, SkipsDeletingAndForeignSlices) {
  Service s = MakeService();
  EndpointSlice mine = NewSlice(s, {}, "IPv4");
  mine.metadata.name = "mine";
  EndpointSlice deleting = mine;
  deleting.metadata.name = "deleting";
  deleting.metadata.deletion_timestamp = api::meta::Time::FromUnix(1);
  EndpointSlice foreign = mine;
  foreign.metadata.name = "foreign";
  foreign.metadata.labels["endpointslice.kubernetes.io/managed-by"] = "other";
  EndpointSlice other_ns = mine;
  other_ns.metadata.namespace_ = "elsewhere";
  auto got = SlicesForService(s, {Share(mine), Share(deleting), Share(foreign), Share(other_ns)});
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0]->metadata.name, "mine");
}

// Scenario 22.
TEST(ServicesToSync, ServiceNameLabelChangeEnqueuesBoth) {
  Service a = MakeService("svc-a");
  EndpointSlice old_slice = NewSlice(a, {}, "IPv4");
  EndpointSlice new_slice = old_slice;
  new_slice.metadata.labels["kubernetes.io/service-name"] = "svc-b";
  EXPECT_THAT(ServicesToSyncForSliceChange(&old_slice, new_slice, false),
              UnorderedElementsAre("ns/svc-a", "ns/svc-b"));
  // Same service, ours, and the tracker already saw this generation → nothing.
  EXPECT_TRUE(ServicesToSyncForSliceChange(&old_slice, old_slice, false).empty());
  EXPECT_THAT(ServicesToSyncForSliceChange(&old_slice, old_slice, true), ElementsAre("ns/svc-a"));
  // Managed-by moved away from us → resync so we recreate ours.
  EndpointSlice moved = old_slice;
  moved.metadata.labels["endpointslice.kubernetes.io/managed-by"] = "other";
  EXPECT_THAT(ServicesToSyncForSliceChange(&old_slice, moved, false), ElementsAre("ns/svc-a"));
  // Adds of foreign slices are ignored.
  EXPECT_TRUE(ServicesToSyncForSliceChange(nullptr, moved, true).empty());
  EXPECT_THAT(ServicesToSyncForSliceChange(nullptr, old_slice, true), ElementsAre("ns/svc-a"));
}

}  // namespace
}  // namespace svcplane::controllers::endpointslice
