#include "controllers/mirroring/reconciler.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "controllers/endpointslice/testing/fake_slice_writer.h"

namespace svcplane::controllers::mirroring {
namespace {

using endpointslice::testing::FakeSliceWriter;
using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::SizeIs;
using Action = FakeSliceWriter::Action;
using api::core::v1::EndpointAddress;
using api::core::v1::EndpointSubset;

Endpoints MakeEndpoints(std::vector<std::string> ready = {},
                        std::vector<std::string> not_ready = {}, int32_t port = 80) {
  Endpoints e;
  e.metadata.name = "foo";
  e.metadata.namespace_ = "ns";
  e.metadata.uid = "ep-uid";
  EndpointSubset s;
  for (auto& ip : ready) s.addresses.push_back(EndpointAddress{ip, "", {}, {}, {}});
  for (auto& ip : not_ready) s.not_ready_addresses.push_back(EndpointAddress{ip, "", {}, {}, {}});
  api::core::v1::EndpointPort p;
  p.name = "http";
  p.port = port;
  p.protocol = "TCP";
  s.ports.push_back(p);
  e.subsets.push_back(s);
  return e;
}

std::vector<std::string> Ips(int n, int offset = 0) {
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i) {
    int v = i + offset;
    out.push_back("10." + std::to_string(v >> 16) + "." + std::to_string((v >> 8) & 255) + "." +
                  std::to_string(v & 255));
  }
  return out;
}

class MirroringTest : public ::testing::Test {
 protected:
  MirrorPlan Sync(const Endpoints& e) {
    auto existing = MirroredSlices(e, writer_.Slices());
    MirrorPlan plan = ShouldMirror(e) ? Plan(e, existing, options_) : PlanCleanup(existing);
    status_ = Apply("ns", "foo", false, plan, writer_, &tracker_);
    return plan;
  }
  std::vector<SlicePtr> Mirrored(const Endpoints& e) { return MirroredSlices(e, writer_.Slices()); }

  MirroringOptions options_;
  FakeSliceWriter writer_;
  endpointslice::SliceTracker tracker_;
  Status status_;
};

// Scenario 1.
TEST_F(MirroringTest, NoAddressesNoSlices) {
  Endpoints e = MakeEndpoints();
  Sync(e);
  EXPECT_THAT(writer_.Actions(), IsEmpty());
}

// Scenarios 2–5.
TEST_F(MirroringTest, SkipMirrorAndLeaderAnnotation) {
  Endpoints e = MakeEndpoints({"10.0.0.1"});
  e.metadata.labels["endpointslice.kubernetes.io/skip-mirror"] = "true";
  EXPECT_FALSE(ShouldMirror(e));
  Sync(e);
  EXPECT_THAT(writer_.Actions(), IsEmpty());

  for (std::string v : {"false", "invalid"}) {
    e.metadata.labels["endpointslice.kubernetes.io/skip-mirror"] = v;
    EXPECT_TRUE(ShouldMirror(e)) << v;
  }
  Sync(e);
  ASSERT_THAT(writer_.Actions(), ElementsAre(Action{"create", "foo-xxxx1"}));
  auto slices = Mirrored(e);
  ASSERT_THAT(slices, SizeIs(1));
  ASSERT_THAT(slices[0]->endpoints, SizeIs(1));
  EXPECT_EQ(slices[0]->endpoints[0].conditions.ready, true);

  Endpoints leader = MakeEndpoints({"10.0.0.1"});
  leader.metadata.annotations["control-plane.alpha.kubernetes.io/leader"] = "";
  EXPECT_FALSE(ShouldMirror(leader));
}

// Scenario 6 (the wiring decides cleanup when the Service is missing or has a selector): the
// cleanup plan deletes every mirrored slice.
TEST_F(MirroringTest, CleanupDeletesMirroredSlices) {
  Endpoints e = MakeEndpoints({"10.0.0.1"});
  Sync(e);
  writer_.ClearActions();
  MirrorPlan plan = PlanCleanup(Mirrored(e));
  ASSERT_TRUE(ApplyCleanup("ns", "foo", plan, writer_, &tracker_).ok());
  EXPECT_THAT(writer_.Actions(), ElementsAre(Action{"delete", "foo-xxxx1"}));
  EXPECT_THAT(Mirrored(e), IsEmpty());
  // A second delete of a vanished slice is reported with the aggregate message.
  Status st = ApplyCleanup("ns", "foo", plan, writer_, &tracker_);
  EXPECT_THAT(st.message(), ::testing::StartsWith("error(s) deleting 1/1 EndpointSlices for ns/foo "
                                                  "Endpoints, including: "));
}

// Scenario 7.
TEST_F(MirroringTest, EmptiedEndpointsDeleteTheSlice) {
  Sync(MakeEndpoints({"10.0.0.1"}));
  writer_.ClearActions();
  Endpoints e = MakeEndpoints();
  Sync(e);
  EXPECT_THAT(writer_.Actions(), ElementsAre(Action{"delete", "foo-xxxx1"}));
  EXPECT_THAT(Mirrored(e), IsEmpty());
}

// Scenarios 8 and 11.
TEST_F(MirroringTest, OtherSlicesAreInvisible) {
  Endpoints e = MakeEndpoints({"10.0.0.1"});
  auto labelled = [](std::string ns, std::string svc, std::string managed_by) {
    EndpointSlice s;
    s.metadata.namespace_ = std::move(ns);
    if (!svc.empty()) s.metadata.labels["kubernetes.io/service-name"] = svc;
    if (!managed_by.empty())
      s.metadata.labels["endpointslice.kubernetes.io/managed-by"] = managed_by;
    s.address_type = "IPv4";
    return s;
  };
  const std::string ours(kControllerName);
  writer_.Seed(labelled("ns", "foo", "something-else"));
  writer_.Seed(labelled("other", "foo", ours));
  writer_.Seed(labelled("ns", "bar", ours));
  writer_.Seed(labelled("ns", "foo", ""));
  writer_.Seed(labelled("ns", "", ours));
  EXPECT_THAT(Mirrored(e), IsEmpty());
  Sync(e);
  EXPECT_THAT(writer_.Actions(), ElementsAre(Action{"create", "foo-xxxx6"}));
  EXPECT_THAT(writer_.Slices(), SizeIs(6));
}

// Scenarios 9 and 10.
TEST_F(MirroringTest, AtMostMaxAddressesPerSubset) {
  Endpoints e = MakeEndpoints(Ips(1000));
  MirrorPlan plan = Sync(e);
  EXPECT_THAT(plan.events, IsEmpty());
  ASSERT_THAT(Mirrored(e), SizeIs(1));
  EXPECT_THAT(Mirrored(e)[0]->endpoints, SizeIs(1000));

  Endpoints big = MakeEndpoints(Ips(1001));
  plan = Sync(big);
  ASSERT_THAT(Mirrored(big), SizeIs(1));
  EXPECT_THAT(Mirrored(big)[0]->endpoints, SizeIs(1000));
  EXPECT_EQ(plan.metrics.addresses_skipped, 1);
  ASSERT_THAT(plan.events, SizeIs(1));
  EXPECT_EQ(plan.events[0].reason, "TooManyAddressesToMirror");
  EXPECT_EQ(plan.events[0].message,
            "A max of 1000 addresses can be mirrored to EndpointSlices per Endpoints subset. 1 "
            "addresses were skipped");
}

TEST_F(MirroringTest, MaxIsConfigurable) {
  options_.max_endpoints_per_subset = 2;
  Endpoints e = MakeEndpoints({"10.0.0.1", "10.0.0.2"}, {"10.0.0.3"});
  MirrorPlan plan = Sync(e);
  ASSERT_THAT(Mirrored(e), SizeIs(1));
  EXPECT_THAT(Mirrored(e)[0]->endpoints, SizeIs(2));
  EXPECT_EQ(plan.metrics.addresses_skipped, 1);
}

// Scenario 12.
TEST_F(MirroringTest, DualStackSubsetMakesOneSlicePerFamily) {
  Endpoints e = MakeEndpoints({"10.0.0.1", "fd00::1"});
  Sync(e);
  auto slices = Mirrored(e);
  ASSERT_THAT(slices, SizeIs(2));
  std::multiset<std::string> types;
  for (const auto& s : slices) {
    types.insert(s->address_type);
    EXPECT_EQ(s->ports, slices[0]->ports);
    EXPECT_THAT(s->endpoints, SizeIs(1));
  }
  EXPECT_EQ(types, (std::multiset<std::string>{"IPv4", "IPv6"}));
}

// Scenario 13.
TEST_F(MirroringTest, InvalidAddressesAreSkippedWithAnEvent) {
  Endpoints e = MakeEndpoints({"invalid-ip", "10.0.0.1"});
  MirrorPlan plan = Sync(e);
  ASSERT_THAT(Mirrored(e), SizeIs(1));
  EXPECT_THAT(Mirrored(e)[0]->endpoints, SizeIs(1));
  ASSERT_THAT(plan.events, SizeIs(1));
  EXPECT_EQ(plan.events[0].type, "Warning");
  EXPECT_EQ(plan.events[0].reason, "InvalidIPAddress");
  EXPECT_EQ(plan.events[0].message,
            "Skipped 1 invalid IP addresses when mirroring to EndpointSlices");
}

// Scenario 14 and the slice shape of §6.
TEST_F(MirroringTest, SliceShape) {
  Endpoints e = MakeEndpoints({"10.0.0.2"}, {"10.0.0.1"});
  e.metadata.labels = {{"app", "a"}, {"kubernetes.io/service-name", "spoof"}};
  e.metadata.annotations = {{"keep", "me"},
                            {"endpoints.kubernetes.io/last-change-trigger-time", "x"},
                            {"kubectl.kubernetes.io/last-applied-configuration", "{}"}};
  EndpointAddress named{"10.0.0.3", "h", std::string("node-1"), std::nullopt, {}};
  api::meta::ObjectReference ref;
  ref.kind = "Pod";
  ref.name = "p";
  ref.namespace_ = "ns";
  named.target_ref = ref;
  e.subsets[0].addresses.push_back(named);
  Sync(e);
  auto slices = Mirrored(e);
  ASSERT_THAT(slices, SizeIs(1));
  const EndpointSlice& s = *slices[0];
  EXPECT_EQ(s.metadata.rest->generate_name, "foo-");
  EXPECT_EQ(s.metadata.labels,
            (api::meta::StringMap{{"app", "a"},
                                  {"kubernetes.io/service-name", "foo"},
                                  {"endpointslice.kubernetes.io/managed-by",
                                   "endpointslicemirroring-controller.k8s.io"}}));
  EXPECT_EQ(s.metadata.annotations, (api::meta::StringMap{{"keep", "me"}}));
  ASSERT_THAT(s.metadata.owner_references, SizeIs(1));
  EXPECT_EQ(s.metadata.owner_references[0].kind, "Endpoints");
  EXPECT_EQ(s.metadata.owner_references[0].uid, "ep-uid");
  EXPECT_EQ(s.metadata.owner_references[0].controller, true);
  EXPECT_EQ(s.metadata.owner_references[0].block_owner_deletion, true);
  ASSERT_TRUE(s.ports.has_value());
  ASSERT_THAT(*s.ports, SizeIs(1));
  EXPECT_EQ((*s.ports)[0].name, "http");
  EXPECT_EQ((*s.ports)[0].port, 80);
  EXPECT_EQ((*s.ports)[0].protocol, "TCP");
  ASSERT_THAT(s.endpoints, SizeIs(3));
  for (const auto& ep : s.endpoints) {
    EXPECT_FALSE(ep.conditions.serving.has_value());
    EXPECT_FALSE(ep.conditions.terminating.has_value());
    EXPECT_FALSE(ep.zone.has_value());
    if (ep.addresses[0] == "10.0.0.1") {
      EXPECT_EQ(ep.conditions.ready, false);
    }
    if (ep.addresses[0] == "10.0.0.3") {
      EXPECT_EQ(ep.conditions.ready, true);
      EXPECT_EQ(ep.hostname, "h");
      EXPECT_EQ(ep.node_name, "node-1");
      ASSERT_TRUE(ep.target_ref.has_value());
      EXPECT_EQ(ep.target_ref->name, "p");
    }
  }
}

// Scenario 15.
TEST_F(MirroringTest, SubsetsWithSamePortsMerge) {
  Endpoints e = MakeEndpoints({"10.0.0.1"});
  e.subsets.push_back(MakeEndpoints({"10.0.0.2"}).subsets[0]);
  Sync(e);
  ASSERT_THAT(Mirrored(e), SizeIs(1));
  EXPECT_THAT(Mirrored(e)[0]->endpoints, SizeIs(2));
}

// Scenarios 16 and 17.
TEST_F(MirroringTest, LabelChangeUpdatesTriggerTimeDoesNot) {
  Endpoints e = MakeEndpoints({"10.0.0.1"});
  e.metadata.labels["app"] = "a";
  Sync(e);
  writer_.ClearActions();
  e.metadata.labels["app"] = "b";
  Sync(e);
  EXPECT_THAT(writer_.Actions(), ElementsAre(Action{"update", "foo-xxxx1"}));
  EXPECT_EQ(Mirrored(e)[0]->metadata.labels.at("app"), "b");

  writer_.ClearActions();
  e.metadata.annotations["endpoints.kubernetes.io/last-change-trigger-time"] =
      "2024-01-01T00:00:00Z";
  Sync(e);
  EXPECT_THAT(writer_.Actions(), IsEmpty());
  // Nothing changed at all: nothing written.
  Sync(e);
  EXPECT_THAT(writer_.Actions(), IsEmpty());
}

// Scenario 18.
TEST_F(MirroringTest, DuplicateSlicesOfOneGroupAreCollapsed) {
  Endpoints e = MakeEndpoints({"10.0.0.1"});
  Sync(e);
  EndpointSlice dup = *Mirrored(e)[0];
  dup.metadata.name = "foo-zzzzz";
  writer_.Seed(dup);
  writer_.ClearActions();
  Sync(e);
  EXPECT_THAT(writer_.Actions(), ElementsAre(Action{"delete", "foo-zzzzz"}));

  // Same again but the kept (first) slice differs: it is updated, the other deleted.
  dup.metadata.name = "foo-zzzzz";
  writer_.Seed(dup);
  writer_.ClearActions();
  Endpoints changed = MakeEndpoints({"10.0.0.1", "10.0.0.2"});
  Sync(changed);
  EXPECT_THAT(writer_.Actions(),
              ElementsAre(Action{"update", "foo-xxxx1"}, Action{"delete", "foo-zzzzz"}));
}

// A port change: the old group's slice is recycled (one update instead of create + delete).
TEST_F(MirroringTest, PortChangeRecyclesTheSlice) {
  Sync(MakeEndpoints({"10.0.0.1"}, {}, 80));
  writer_.ClearActions();
  Endpoints e = MakeEndpoints({"10.0.0.1"}, {}, 8080);
  MirrorPlan plan = Sync(e);
  EXPECT_THAT(writer_.Actions(), ElementsAre(Action{"update", "foo-xxxx1"}));
  ASSERT_THAT(Mirrored(e), SizeIs(1));
  EXPECT_EQ((*Mirrored(e)[0]->ports)[0].port, 8080);
  EXPECT_EQ(plan.metrics.endpoints_added, 1);
  EXPECT_EQ(plan.metrics.endpoints_removed, 1);
}

TEST_F(MirroringTest, SliceChangeRouting) {
  EndpointSlice s;
  s.metadata.namespace_ = "ns";
  s.metadata.labels = {{"kubernetes.io/service-name", "foo"},
                       {"endpointslice.kubernetes.io/managed-by", std::string(kControllerName)}};
  EXPECT_THAT(EndpointsToSyncForSliceChange(nullptr, s, true), ElementsAre("ns/foo"));
  EXPECT_THAT(EndpointsToSyncForSliceChange(nullptr, s, false), IsEmpty());
  EndpointSlice moved = s;
  moved.metadata.labels["kubernetes.io/service-name"] = "bar";
  EXPECT_THAT(EndpointsToSyncForSliceChange(&s, moved, false), ElementsAre("ns/bar", "ns/foo"));
  EndpointSlice foreign = s;
  foreign.metadata.labels["endpointslice.kubernetes.io/managed-by"] = "x";
  EXPECT_THAT(EndpointsToSyncForSliceChange(&s, foreign, false), ElementsAre("ns/foo"));
  EXPECT_THAT(EndpointsToSyncForSliceChange(&foreign, foreign, true), IsEmpty());
}

}  // namespace
}  // namespace svcplane::controllers::mirroring
