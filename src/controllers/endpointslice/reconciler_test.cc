#include "controllers/endpointslice/reconciler.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>

#include "controllers/endpointslice/testing/reconciler_harness.h"
#include "controllers/endpointslice/utils.h"

namespace svcplane::controllers::endpointslice {
namespace {

using ::testing::ElementsAre;
using testing::FakeSliceWriter;
using testing::Harness;
using testing::MakeNode;
using testing::MakePod;
using testing::Share;
using ::testing::UnorderedElementsAre;
using Sizes = std::multiset<size_t>;

// Every scenario runs twice: from scratch each sync, and with the per-Service memo.
class ReconcilerTest : public ::testing::TestWithParam<bool> {
 protected:
  static ReconcilerOptions Opts() {
    ReconcilerOptions o;
    o.incremental = GetParam();
    return o;
  }
  Harness h{Opts()};
};

INSTANTIATE_TEST_SUITE_P(Modes, ReconcilerTest, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "Incremental" : "Scratch"; });

// Scenario 1.
TEST_P(ReconcilerTest, NoPodsCreatesPlaceholder) {
  SlicePlan plan = h.Sync();
  ASSERT_TRUE(h.status().ok()) << h.status().ToString();
  EXPECT_THAT(h.writer().Actions(), ElementsAre(FakeSliceWriter::Action{"create", "svc-xxxx1"}));
  auto slices = h.ServiceSlices();
  ASSERT_EQ(slices.size(), 1u);
  const EndpointSlice& s = *slices[0];
  ASSERT_TRUE(s.ports.has_value());
  EXPECT_TRUE(s.ports->empty());
  EXPECT_TRUE(s.endpoints.empty());
  EXPECT_EQ(s.address_type, "IPv4");
  EXPECT_EQ(s.metadata.rest->generate_name, "svc-");
  EXPECT_EQ(s.metadata.labels, (api::meta::StringMap{{"kubernetes.io/service-name", "svc"},
                                                     {"endpointslice.kubernetes.io/managed-by",
                                                      "endpointslice-controller.k8s.io"}}));
  ASSERT_EQ(s.metadata.owner_references.size(), 1u);
  const auto& ref = s.metadata.owner_references[0];
  EXPECT_EQ(ref.kind, "Service");
  EXPECT_EQ(ref.api_version, "v1");
  EXPECT_EQ(ref.uid, "svc-uid-svc");
  EXPECT_EQ(ref.controller, true);
  EXPECT_EQ(ref.block_owner_deletion, true);
  EXPECT_EQ(plan.metrics.slices_desired, 1);
  EXPECT_EQ(plan.metrics.slices_actual, 1);
}

// Scenario 2.
TEST_P(ReconcilerTest, ExistingPlaceholderIsKeptOrUpdated) {
  h.Sync();
  h.Sync();
  EXPECT_TRUE(h.writer().Actions().empty());

  EndpointSlice extra = *h.ServiceSlices()[0];
  extra.metadata.labels["bar"] = "baz";
  ASSERT_TRUE(h.writer().Update(extra).ok());
  h.Sync();
  EXPECT_THAT(h.writer().Actions(), ElementsAre(FakeSliceWriter::Action{"update", "svc-xxxx1"}));
  EXPECT_EQ(h.ServiceSlices()[0]->metadata.labels.count("bar"), 0u);
}

// Scenario 4.
TEST_P(ReconcilerTest, AddressFamiliesFollowIpFamilies) {
  auto run = [&](std::vector<std::string> families, std::string cluster_ip) {
    Harness hh(Opts());
    Service svc = hh.service();
    svc.spec.ip_families = std::move(families);
    svc.spec.cluster_ip = std::move(cluster_ip);
    hh.SetService(svc);
    hh.pods().push_back(Share(MakePod(1, "ns", "node-1", true, /*dual=*/true)));
    hh.Sync();
    EXPECT_TRUE(hh.status().ok());
    std::vector<std::string> types;
    for (const auto& s : hh.ServiceSlices()) types.push_back(s->address_type);
    std::sort(types.begin(), types.end());
    return std::make_pair(types, hh.ServiceSlices());
  };
  EXPECT_THAT(run({"IPv4"}, "10.0.0.1").first, ElementsAre("IPv4"));
  EXPECT_THAT(run({"IPv6"}, "fd00::1").first, ElementsAre("IPv6"));
  EXPECT_THAT(run({"IPv4", "IPv6"}, "10.0.0.1").first, ElementsAre("IPv4", "IPv6"));
  auto [types, slices] = run({}, "None");
  EXPECT_THAT(types, ElementsAre("IPv4", "IPv6"));
  for (const auto& s : slices) {
    EXPECT_EQ(s->metadata.labels.count("service.kubernetes.io/headless"), 1u);
    ASSERT_EQ(s->endpoints.size(), 1u);
    const Endpoint& ep = s->endpoints[0];
    EXPECT_EQ(ep.conditions.ready, true);
    EXPECT_EQ(ep.conditions.serving, true);
    EXPECT_EQ(ep.conditions.terminating, false);
    EXPECT_EQ(ep.zone, "us-central1-a");
    EXPECT_EQ(ep.node_name, "node-1");
    ASSERT_TRUE(ep.target_ref.has_value());
    EXPECT_EQ(ep.target_ref->kind, "Pod");
    EXPECT_EQ(ep.target_ref->name, "pod-1");
    EXPECT_EQ(ep.target_ref->namespace_, "ns");
    EXPECT_EQ(ep.target_ref->uid, "pod-uid-1");
    EXPECT_EQ(ep.addresses,
              std::vector<std::string>{s->address_type == "IPv4" ? "10.0.0.1" : "fd00::1"});
  }
}

// Scenario 5.
TEST_P(ReconcilerTest, PublishNotReadyAddressesMakesAllReady) {
  Service svc = h.service();
  svc.spec.publish_not_ready_addresses = true;
  h.SetService(svc);
  for (int i = 0; i < 50; ++i) h.pods().push_back(Share(MakePod(i, "ns", "node-1", i % 3 != 0)));
  h.Sync();
  EXPECT_EQ(h.Sizes(), (Sizes{50}));
  for (const auto& ep : h.ServiceSlices()[0]->endpoints) EXPECT_EQ(ep.conditions.ready, true);
}

// Scenario 6.
TEST_P(ReconcilerTest, ManyPodsSplitIntoFullSlices) {
  h.AddPods(0, 250);
  h.Sync();
  EXPECT_EQ(h.writer().Count("create"), 3);
  EXPECT_EQ(h.Sizes(), (Sizes{100, 100, 50}));
}

// Scenario 7.
TEST_P(ReconcilerTest, FillsClosestUnchangedSliceAndCreatesRest) {
  h.AddPods(0, 250);
  h.SeedSlice(0, 62, "existing-a");
  h.SeedSlice(62, 123, "existing-b");
  SlicePlan plan = h.Sync();
  EXPECT_EQ(h.writer().Count("create"), 1);
  EXPECT_EQ(h.writer().Count("update"), 1);
  EXPECT_EQ(h.writer().Count("delete"), 0);
  EXPECT_EQ(h.Sizes(), (Sizes{89, 61, 100}));
  EXPECT_EQ(plan.metrics.endpoints_added, 127);
}

// Scenario 8.
TEST_P(ReconcilerTest, DoesNotTouchUnchangedSlicesWhenLeftoversDontFit) {
  h.AddPods(0, 300);
  h.SeedSlice(0, 74, "existing-a");
  h.SeedSlice(74, 148, "existing-b");
  h.Sync();
  EXPECT_EQ(h.writer().Count("create"), 2);
  EXPECT_EQ(h.writer().Count("update"), 0);
  EXPECT_EQ(h.Sizes(), (Sizes{74, 74, 100, 52}));
}

Service WithTargetPort(Service svc, int port) {
  svc.spec.ports[0].target_port = api::meta::IntOrString::FromInt(port);
  return svc;
}

// Scenario 9.
TEST_P(ReconcilerTest, TargetPortChangeUpdatesInPlace) {
  h.AddPods(0, 250);
  h.Sync();
  h.SetService(WithTargetPort(h.service(), 9090));
  h.Sync();
  EXPECT_EQ(h.writer().Count("update"), 3);
  EXPECT_EQ(h.writer().Count("create"), 0);
  EXPECT_EQ(h.writer().Count("delete"), 0);
  for (const auto& s : h.ServiceSlices()) EXPECT_EQ((*s->ports)[0].port, 9090);
}

// Scenario 10.
TEST_P(ReconcilerTest, ServiceLabelsAreMirrored) {
  h.AddPods(0, 250);
  h.Sync();
  Service svc = h.service();
  svc.metadata.labels = {{"foo", "bar"}};
  h.SetService(svc);
  h.Sync();
  EXPECT_EQ(h.writer().Count("update"), 3);
  for (const auto& s : h.ServiceSlices()) EXPECT_EQ(s->metadata.labels.at("foo"), "bar");
}

// Scenario 11.
TEST_P(ReconcilerTest, ReservedServiceLabelsCauseNoWrites) {
  h.AddPods(0, 250);
  h.Sync();
  Service svc = h.service();
  svc.metadata.labels = {{"kubernetes.io/service-name", "bad"},
                         {"endpointslice.kubernetes.io/managed-by", "actor"},
                         {"service.kubernetes.io/headless", "invalid"}};
  h.SetService(svc);
  h.Sync();
  EXPECT_TRUE(h.writer().Actions().empty());
  for (const auto& s : h.ServiceSlices()) {
    EXPECT_EQ(s->metadata.labels.at("kubernetes.io/service-name"), "svc");
  }
}

// Scenario 12.
TEST_P(ReconcilerTest, PortChangeCompactsManySmallSlices) {
  h.AddPods(0, 300);
  for (int i = 0; i < 10; ++i) h.SeedSlice(i * 30, i * 30 + 30, "existing-" + std::to_string(i));
  h.Sync();
  EXPECT_TRUE(h.writer().Actions().empty());
  h.SetService(WithTargetPort(h.service(), 9090));
  h.Sync();
  EXPECT_EQ(h.writer().Count("update"), 3);
  EXPECT_EQ(h.writer().Count("delete"), 7);
  EXPECT_EQ(h.writer().Count("create"), 0);
  EXPECT_EQ(h.Sizes(), (Sizes{100, 100, 100}));
}

// Scenario 13.
TEST_P(ReconcilerTest, ChangedSlicesAbsorbNewEndpointsFullestFirst) {
  h.AddPods(0, 100);
  h.SeedSlice(0, 80, "existing-a");
  h.SeedSlice(80, 100, "existing-b");
  h.Sync();
  ASSERT_TRUE(h.writer().Actions().empty());
  for (int i = 0; i < 100; i += 10) h.ReplacePod(i, MakePod(i, "ns", "node-1", false));
  h.AddPods(100, 115);
  h.Sync();
  EXPECT_EQ(h.writer().Count("update"), 2);
  EXPECT_EQ(h.writer().Count("create"), 0);
  EXPECT_EQ(h.Sizes(), (Sizes{95, 20}));
}

// Scenario 14.
TEST_P(ReconcilerTest, LegacyIpSlicesAreReplaced) {
  h.AddPods(0, 10);
  h.SeedSlice(0, 5, "legacy-a", "IP");
  h.SeedSlice(5, 10, "legacy-b", "IP");
  h.Sync();
  ASSERT_TRUE(h.status().ok());
  EXPECT_EQ(h.writer().Count("delete"), 2);
  EXPECT_EQ(h.writer().Count("create"), 1);
  auto slices = h.ServiceSlices();
  ASSERT_EQ(slices.size(), 1u);
  EXPECT_EQ(slices[0]->address_type, "IPv4");
  EXPECT_EQ(slices[0]->endpoints.size(), 10u);
}

// Scenario 15.
TEST_P(ReconcilerTest, TerminatingPodConditions) {
  Pod pod = MakePod(1);
  pod.metadata.deletion_timestamp = api::meta::Time::FromUnix(100);
  h.pods().push_back(Share(pod));
  h.Sync();
  const Endpoint& ep = h.ServiceSlices()[0]->endpoints.at(0);
  EXPECT_EQ(ep.conditions.ready, false);
  EXPECT_EQ(ep.conditions.serving, true);
  EXPECT_EQ(ep.conditions.terminating, true);

  Service svc = h.service();
  svc.spec.publish_not_ready_addresses = true;
  h.SetService(svc);
  h.Sync();
  EXPECT_EQ(h.ServiceSlices()[0]->endpoints.at(0).conditions.ready, true);
}

// Scenario 16.
TEST_P(ReconcilerTest, TerminalAndIplessPodsAreExcluded) {
  Pod succeeded = MakePod(1), failed = MakePod(2), no_ip = MakePod(3);
  succeeded.status.phase = "Succeeded";
  failed.status.phase = "Failed";
  no_ip.status.pod_ip.clear();
  no_ip.status.pod_ips.clear();
  h.pods() = {Share(succeeded), Share(failed), Share(no_ip), Share(MakePod(4))};
  h.Sync();
  auto slices = h.ServiceSlices();
  ASSERT_EQ(slices.size(), 1u);
  ASSERT_EQ(slices[0]->endpoints.size(), 1u);
  EXPECT_EQ(slices[0]->endpoints[0].target_ref->name, "pod-4");
}

// Scenario 17.
TEST_P(ReconcilerTest, PodOnMissingNode) {
  h.AddPods(0, 2);
  h.pods().push_back(Share(MakePod(2, "ns", "node-gone")));
  h.Sync();
  EXPECT_FALSE(h.status().ok());
  EXPECT_EQ(h.status().message(),
            "skipping Pod pod-2 for Service ns/svc: Node node-gone Not Found");
  EXPECT_EQ(h.Sizes(), (Sizes{2}));

  Service svc = h.service();
  svc.spec.publish_not_ready_addresses = true;
  h.SetService(svc);
  h.Sync();
  EXPECT_TRUE(h.status().ok()) << h.status().ToString();
  EXPECT_EQ(h.Sizes(), (Sizes{3}));
  for (const auto& ep : h.ServiceSlices()[0]->endpoints) {
    if (ep.target_ref->name == "pod-2") {
      EXPECT_FALSE(ep.zone.has_value());
      EXPECT_EQ(ep.node_name, "node-gone");
    }
  }
}

// Scenario 18.
TEST_P(ReconcilerTest, NamedTargetPortResolvesPerPod) {
  Service svc = h.service();
  svc.spec.ports[0].target_port = api::meta::IntOrString::FromString("http");
  h.SetService(svc);
  Pod a = MakePod(1), b = MakePod(2);
  a.spec.containers[0].ports[0].container_port = 80;
  b.spec.containers[0].ports[0].container_port = 8080;
  h.pods() = {Share(a), Share(b)};
  h.Sync();
  auto slices = h.ServiceSlices();
  ASSERT_EQ(slices.size(), 2u);
  std::set<int> ports;
  for (const auto& s : slices) {
    ASSERT_EQ(s->ports->size(), 1u);
    ports.insert(*(*s->ports)[0].port);
    EXPECT_EQ(s->endpoints.size(), 1u);
  }
  EXPECT_EQ(ports, (std::set<int>{80, 8080}));
}

// Scenario 20.
TEST_P(ReconcilerTest, SliceBeingDeletedIsIgnored) {
  h.AddPods(0, 3);
  EndpointSlice doomed = *h.SeedSlice(0, 3, "doomed");
  doomed.metadata.deletion_timestamp = api::meta::Time::FromUnix(5);
  h.writer().Seed(doomed);
  h.Sync();
  EXPECT_EQ(h.writer().Count("create"), 1);
  EXPECT_EQ(h.writer().Count("delete"), 0);
}

// Scenario 21.
TEST_P(ReconcilerTest, SliceOfAnotherControllerIsNeverTouched) {
  h.AddPods(0, 3);
  EndpointSlice foreign = *h.SeedSlice(0, 3, "foreign");
  foreign.metadata.labels["endpointslice.kubernetes.io/managed-by"] = "someone-else";
  auto stored = h.writer().Seed(foreign);
  h.Sync();
  h.Sync();
  for (const auto& a : h.writer().Actions()) EXPECT_NE(a.name, "foreign");
  auto all = h.writer().Slices();
  auto it = std::find_if(all.begin(), all.end(),
                         [](const auto& s) { return s->metadata.name == "foreign"; });
  ASSERT_NE(it, all.end());
  EXPECT_EQ(**it, *stored);
}

TEST_P(ReconcilerTest, NotOwnedSliceIsDeletedAndReplaced) {
  h.AddPods(0, 3);
  EndpointSlice orphan = *h.SeedSlice(0, 3, "orphan");
  orphan.metadata.owner_references[0].uid = "other";
  h.writer().Seed(orphan);
  h.Sync();
  // Not owned → deleted; only owned slices can be recycled by create→update conversion.
  EXPECT_EQ(h.writer().Count("create"), 1);
  EXPECT_EQ(h.writer().Count("update"), 0);
  EXPECT_EQ(h.writer().Count("delete"), 1);
  EXPECT_EQ(h.Sizes(), (Sizes{3}));
}

TEST_P(ReconcilerTest, TriggerTimeAnnotationSetAndCleared) {
  h.AddPods(0, 3);
  h.set_trigger(int64_t{1714557600} * 1000000000 + 500000000);
  h.Sync();
  EXPECT_EQ(h.ServiceSlices()[0]->metadata.annotations.at(std::string(kTriggerTimeAnnotation)),
            "2024-05-01T10:00:00.5Z");
  h.set_trigger(std::nullopt);
  h.AddPods(3, 4);
  h.Sync();
  EXPECT_EQ(h.ServiceSlices()[0]->metadata.annotations.count(std::string(kTriggerTimeAnnotation)),
            0u);
}

TEST_P(ReconcilerTest, UnchangedInputsCauseNoWrites) {
  h.AddPods(0, 250);
  h.Sync();
  for (int i = 0; i < 3; ++i) {
    SlicePlan plan = h.Sync();
    EXPECT_EQ(plan.Writes(), 0);
    EXPECT_EQ(plan.unchanged, 3);
  }
}

TEST_P(ReconcilerTest, OnePodChangeWritesOneSlice) {
  h.AddPods(0, 1000);
  h.Sync();
  Pod p = MakePod(500, "ns", "node-1", /*ready=*/false);
  h.ReplacePod(500, p);
  h.Sync();
  EXPECT_EQ(h.writer().Actions().size(), 1u);
  EXPECT_EQ(h.writer().Count("update"), 1);
  // A pod replaced by a new one with a new IP: old endpoint out, new one in the same slice.
  h.pods().erase(h.pods().begin() + 10);
  h.AddPods(5000, 5001);
  h.Sync();
  EXPECT_EQ(h.writer().Actions().size(), 1u);
  EXPECT_EQ(h.StoredKeys().size(), 1000u);
}

TEST_P(ReconcilerTest, MaxEndpointsPerSliceOption) {
  ReconcilerOptions o = Opts();
  o.max_endpoints_per_slice = 7;
  Harness hh(o);
  hh.AddPods(0, 20);
  hh.Sync();
  EXPECT_EQ(hh.Sizes(), (Sizes{7, 7, 6}));
}

TEST_P(ReconcilerTest, CreateErrorStopsAndNamespaceTerminatingIsSuccess) {
  h.AddPods(0, 250);
  h.writer().FailNextCreate(UnavailableError("etcd down"));
  h.Sync();
  EXPECT_EQ(h.status().code(), Code::kUnavailable);
  EXPECT_EQ(h.status().message(), "failed to create EndpointSlice for Service ns/svc: etcd down");
  EXPECT_TRUE(h.writer().Actions().empty());
  h.writer().FailNextCreate(
      Status(Code::kForbidden, "namespace is terminating")
          .WithCauses({{"NamespaceTerminating", "metadata.namespace", "ns"}}));
  h.Sync();
  EXPECT_TRUE(h.status().ok());
  EXPECT_TRUE(h.writer().Actions().empty());
  h.Sync();
  EXPECT_EQ(h.Sizes(), (Sizes{100, 100, 50}));
}

TEST_P(ReconcilerTest, FailedUpdateIsRetriedNextSync) {
  h.AddPods(0, 150);
  h.Sync();
  h.ReplacePod(3, MakePod(3, "ns", "node-1", false));
  h.writer().FailNextUpdate(ConflictError("modified"));
  h.Sync();
  EXPECT_EQ(h.status().code(), Code::kConflict);
  h.Sync();
  EXPECT_TRUE(h.status().ok());
  EXPECT_EQ(h.writer().Count("update"), 1);
  int not_ready = 0;
  for (const auto& s : h.ServiceSlices()) {
    for (const auto& ep : s->endpoints) not_ready += *ep.conditions.ready ? 0 : 1;
  }
  EXPECT_EQ(not_ready, 1);
}

TEST_P(ReconcilerTest, DeletingServiceSkipsCreates) {
  Service svc = h.service();
  svc.metadata.deletion_timestamp = api::meta::Time::FromUnix(1);
  h.SetService(svc);
  h.AddPods(0, 3);
  h.Sync();
  EXPECT_TRUE(h.writer().Actions().empty());
}

TEST_P(ReconcilerTest, CachedObjectsAreNotModified) {
  h.AddPods(0, 150);
  h.Sync();
  std::vector<EndpointSlice> before;
  for (const auto& s : h.ServiceSlices()) before.push_back(*s);
  std::vector<Pod> pods_before;
  for (const auto& p : h.pods()) pods_before.push_back(*p);
  auto slices = h.ServiceSlices();
  Service svc = h.service();
  svc.metadata.labels["x"] = "y";
  h.SetService(svc);
  h.Sync();
  for (size_t i = 0; i < slices.size(); ++i) EXPECT_EQ(*slices[i], before[i]);
  for (size_t i = 0; i < pods_before.size(); ++i) EXPECT_EQ(*h.pods()[i], pods_before[i]);
}

// Random churn: after every sync the slices hold every desired endpoint exactly once, and the
// incremental reconciler issues the same number of writes with the same slice sizes as a
// from-scratch one given identical inputs.
TEST(ReconcilerEquivalence, RandomChurnMatchesFromScratch) {
  ReconcilerOptions inc_opts, scratch_opts;
  scratch_opts.incremental = false;
  Harness h(inc_opts);
  Reconciler scratch(scratch_opts);
  std::mt19937 rng(7);
  int next_pod = 0;
  h.AddPods(0, 400);
  next_pod = 400;
  for (int round = 0; round < 60; ++round) {
    int ops = 1 + static_cast<int>(rng() % 30);
    for (int k = 0; k < ops; ++k) {
      auto& pods = h.pods();
      switch (rng() % 4) {
        case 0:
          if (!pods.empty()) pods.erase(pods.begin() + static_cast<long>(rng() % pods.size()));
          break;
        case 1:
          h.AddPods(next_pod, next_pod + 1);
          ++next_pod;
          break;
        case 2:
          if (!pods.empty()) {
            size_t idx = rng() % pods.size();
            Pod p = *pods[idx];
            p.status.conditions[0].status =
                p.status.conditions[0].status == "True" ? "False" : "True";
            pods[idx] = Share(p);
          }
          break;
        case 3:
          if (!pods.empty()) {
            size_t idx = rng() % pods.size();
            std::swap(pods[idx], pods[rng() % pods.size()]);
          }
          break;
      }
    }
    auto slices = h.ServiceSlices();
    SlicePlan ref = scratch.Plan(Share(h.service()), h.pods(), h.nodes(), slices);
    SlicePlan got = h.Sync();
    ASSERT_TRUE(h.status().ok()) << h.status().ToString();
    EXPECT_EQ(got.to_create.size(), ref.to_create.size()) << "round " << round;
    EXPECT_EQ(got.to_update.size(), ref.to_update.size()) << "round " << round;
    EXPECT_EQ(got.to_delete.size(), ref.to_delete.size()) << "round " << round;
    EXPECT_EQ(got.metrics.endpoints_added, ref.metrics.endpoints_added);
    EXPECT_EQ(got.metrics.endpoints_removed, ref.metrics.endpoints_removed);
    std::multiset<std::string> want;
    for (const auto& p : h.pods())
      want.insert(EndpointKey(*PodToEndpoint(*p, h.service(), "IPv4", "", "")));
    ASSERT_EQ(h.StoredKeys(), want) << "round " << round;
  }
}

}  // namespace
}  // namespace svcplane::controllers::endpointslice
