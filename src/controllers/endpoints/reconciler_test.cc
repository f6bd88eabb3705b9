#include "controllers/endpoints/reconciler.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "controllers/endpoints/testing/fake_endpoints_writer.h"
#include "controllers/endpointslice/testing/fixtures.h"

namespace svcplane::controllers::endpoints {
namespace {

using endpointslice::testing::MakePod;
using endpointslice::testing::MakeService;
using ::testing::ElementsAre;
using testing::FakeEndpointsWriter;
using ::testing::IsEmpty;
using PodPtr = std::shared_ptr<const Pod>;
using api::meta::StringMap;

const StringMap kManagedBy{{"endpoints.kubernetes.io/managed-by", "endpoint-controller"}};

StringMap With(StringMap m, const std::string& k, const std::string& v) {
  m[k] = v;
  return m;
}

// A Service selecting app=svc whose clusterIP is "" (the upstream tests' default).
Service TestService() {
  Service s = MakeService("foo", "ns");
  s.spec.selector = {{"app", "svc"}};
  s.spec.cluster_ip = "";
  s.spec.ip_families = {"IPv4"};
  s.spec.ports[0].name = "";
  s.spec.ports[0].port = 80;
  s.spec.ports[0].target_port = api::meta::IntOrString::FromInt(8080);
  s.metadata.creation_timestamp = api::meta::Time::FromUnix(1700000000);
  return s;
}

Pod TestPod(int i, bool ready = true) {
  Pod p = MakePod(i, "ns", "", ready);
  p.spec.node_name = "";
  return p;
}

Endpoints UserEndpoints(const std::string& name, StringMap labels = {}) {
  Endpoints e;
  e.metadata.name = name;
  e.metadata.namespace_ = "ns";
  e.metadata.labels = std::move(labels);
  return e;
}

EndpointAddress Addr(const Pod& pod, std::string node = "") {
  EndpointAddress a;
  a.ip = pod.status.pod_ip;
  a.node_name = std::move(node);
  api::meta::ObjectReference ref;
  ref.kind = "Pod";
  ref.namespace_ = pod.metadata.namespace_;
  ref.name = pod.metadata.name;
  ref.uid = pod.metadata.uid;
  a.target_ref = ref;
  return a;
}

EndpointPort Port(int32_t port, std::string protocol = "TCP", std::string name = "") {
  EndpointPort p;
  p.name = std::move(name);
  p.port = port;
  p.protocol = std::move(protocol);
  return p;
}

class EndpointsReconcilerTest : public ::testing::Test {
 protected:
  // One sync of ns/foo against the fake's current state.
  EndpointsPlan Sync(const Service* service) {
    std::vector<PodPtr> selected;
    if (service != nullptr) {
      for (const auto& p : pods_) {
        if (SelectorMatches(service->spec.selector, p->metadata.labels)) selected.push_back(p);
      }
    }
    auto current = writer_.Get("ns", "foo");
    auto plan = reconciler_.Plan("ns", "foo", service, selected, current.get());
    if (!plan.ok()) {
      status_ = plan.status();
      return {};
    }
    ApplyResult r = reconciler_.Apply(*plan, writer_);
    status_ = r.status;
    events_ = r.events;
    return *plan;
  }
  const Endpoints& Stored() {
    auto e = writer_.Get("ns", "foo");
    EXPECT_NE(e, nullptr);
    static Endpoints empty;
    return e ? *e : empty;
  }
  void AddPod(Pod p) { pods_.push_back(std::make_shared<const Pod>(std::move(p))); }

  Reconciler reconciler_;
  FakeEndpointsWriter writer_;
  std::vector<PodPtr> pods_;
  Status status_;
  std::vector<Event> events_;
};

// Scenario 1.
TEST_F(EndpointsReconcilerTest, SelectorlessServiceIsLeftAlone) {
  Service svc = TestService();
  svc.spec.selector.clear();
  Endpoints user = UserEndpoints("foo");
  EndpointSubset s;
  EndpointAddress a;
  a.ip = "6.7.8.9";
  s.addresses.push_back(a);
  s.ports.push_back(Port(1000));
  user.subsets.push_back(s);
  writer_.Seed(user);
  AddPod(TestPod(1));
  Sync(&svc);
  EXPECT_TRUE(status_.ok());
  EXPECT_THAT(writer_.Actions(), IsEmpty());
}

// Scenario 2 and 9: nil and empty subsets are equal; controller labels are not compared.
TEST_F(EndpointsReconcilerTest, EmptySubsetsAndControllerLabelsNeedNoWrite) {
  Service svc = TestService();
  svc.spec.selector = {{"foo", "bar"}};
  writer_.Seed(UserEndpoints("foo", kManagedBy));
  Sync(&svc);
  EXPECT_THAT(writer_.Actions(), IsEmpty());

  writer_.Seed(UserEndpoints("foo", With(kManagedBy, "service.kubernetes.io/headless", "")));
  Sync(&svc);
  EXPECT_THAT(writer_.Actions(), IsEmpty());
}

// Scenario 3.
TEST_F(EndpointsReconcilerTest, NewServiceWithoutPodsCreatesEmptyEndpoints) {
  Service svc = TestService();
  EndpointsPlan plan = Sync(&svc);
  ASSERT_TRUE(status_.ok()) << status_.ToString();
  EXPECT_EQ(plan.action, EndpointsPlan::Action::kCreate);
  EXPECT_THAT(writer_.Actions(), ElementsAre("create ns/foo"));
  EXPECT_THAT(Stored().subsets, IsEmpty());
  EXPECT_EQ(Stored().metadata.name, "foo");
  EXPECT_EQ(Stored().kind, "Endpoints");
}

// Scenario 4 and 30 (resourceVersion of targetRef is ignored).
TEST_F(EndpointsReconcilerTest, TargetRefResourceVersionIsIgnored) {
  Service svc = TestService();
  svc.spec.cluster_ip = "10.0.0.1";
  AddPod(TestPod(1));
  Sync(&svc);
  Endpoints e = Stored();
  e.subsets[0].addresses[0].target_ref->resource_version = "42";
  writer_.Seed(e);
  writer_.ClearActions();
  Sync(&svc);
  EXPECT_THAT(writer_.Actions(), IsEmpty());
}

// Scenario 5 (with a selector that matches the pod: an empty selector is "none" in our model).
TEST_F(EndpointsReconcilerTest, ReadyPodBecomesAddress) {
  Service svc = TestService();
  writer_.Seed(UserEndpoints("foo"));
  Pod pod = TestPod(0);
  pod.status.pod_ip = "1.2.3.4";
  pod.status.pod_ips = {{"1.2.3.4", {}}};
  AddPod(pod);
  Sync(&svc);
  EXPECT_THAT(writer_.Actions(), ElementsAre("update ns/foo"));
  const Endpoints& e = Stored();
  ASSERT_EQ(e.subsets.size(), 1u);
  EXPECT_THAT(e.subsets[0].addresses, ElementsAre(Addr(pod)));
  EXPECT_THAT(e.subsets[0].not_ready_addresses, IsEmpty());
  EXPECT_THAT(e.subsets[0].ports, ElementsAre(Port(8080)));
  EXPECT_EQ(e.metadata.labels, With(kManagedBy, "service.kubernetes.io/headless", ""));
  ASSERT_TRUE(e.subsets[0].addresses[0].node_name.has_value());
  EXPECT_EQ(*e.subsets[0].addresses[0].node_name, "");
}

// Scenario 6.
TEST_F(EndpointsReconcilerTest, ProtocolIsCopied) {
  for (std::string proto : {"UDP", "SCTP"}) {
    Service svc = TestService();
    svc.spec.ports[0].protocol = proto;
    AddPod(TestPod(0));
    Sync(&svc);
    ASSERT_EQ(Stored().subsets.size(), 1u);
    EXPECT_THAT(Stored().subsets[0].ports, ElementsAre(Port(8080, proto)));
  }
}

// Scenarios 7 and 8.
TEST_F(EndpointsReconcilerTest, NotReadyPodsGoToNotReadyAddresses) {
  Service svc = TestService();
  Pod ready = TestPod(1, true), unready = TestPod(2, false);
  AddPod(unready);
  Sync(&svc);
  ASSERT_EQ(Stored().subsets.size(), 1u);
  EXPECT_THAT(Stored().subsets[0].addresses, IsEmpty());
  EXPECT_THAT(Stored().subsets[0].not_ready_addresses, ElementsAre(Addr(unready)));

  AddPod(ready);
  Sync(&svc);
  ASSERT_EQ(Stored().subsets.size(), 1u);
  EXPECT_THAT(Stored().subsets[0].addresses, ElementsAre(Addr(ready)));
  EXPECT_THAT(Stored().subsets[0].not_ready_addresses, ElementsAre(Addr(unready)));
}

// Scenario 10.
TEST_F(EndpointsReconcilerTest, ExternalNameIsLeftAlone) {
  Service svc = TestService();
  svc.spec.type = "ExternalName";
  AddPod(TestPod(1));
  Sync(&svc);
  svc.spec.selector.clear();
  svc.spec.ports.clear();
  Sync(&svc);
  EXPECT_THAT(writer_.Actions(), IsEmpty());
}

// Scenario 11.
TEST_F(EndpointsReconcilerTest, TerminalPodsAreExcludedAndStaleLabelsDropped) {
  Service svc = TestService();
  writer_.Seed(UserEndpoints("foo", {{"foo", "bar"}}));
  for (std::string phase : {"Failed", "Succeeded"}) {
    Pod p = TestPod(phase == "Failed" ? 1 : 2, false);
    p.status.phase = phase;
    AddPod(p);
  }
  Sync(&svc);
  EXPECT_THAT(writer_.Actions(), ElementsAre("update ns/foo"));
  EXPECT_THAT(Stored().subsets, IsEmpty());
  EXPECT_EQ(Stored().metadata.labels, With(kManagedBy, "service.kubernetes.io/headless", ""));
}

// Scenarios 12 and 13.
TEST_F(EndpointsReconcilerTest, HeadlessWithoutPortsPublishesPortlessAddresses) {
  Service svc = TestService();
  svc.spec.cluster_ip = "None";
  svc.spec.ports.clear();
  svc.metadata.labels = {{"a", "b"}};
  const Service before = svc;
  Pod pod = TestPod(1);
  AddPod(pod);
  Sync(&svc);
  EXPECT_THAT(writer_.Actions(), ElementsAre("create ns/foo"));
  ASSERT_EQ(Stored().subsets.size(), 1u);
  EXPECT_THAT(Stored().subsets[0].addresses, ElementsAre(Addr(pod)));
  EXPECT_THAT(Stored().subsets[0].ports, IsEmpty());
  EXPECT_EQ(Stored().metadata.labels,
            With(With(kManagedBy, "service.kubernetes.io/headless", ""), "a", "b"));
  EXPECT_EQ(svc, before);
}

TEST_F(EndpointsReconcilerTest, NonHeadlessWithoutPortsPublishesNothing) {
  Service svc = TestService();
  svc.spec.cluster_ip = "10.0.0.1";
  svc.spec.ports.clear();
  AddPod(TestPod(1));
  Sync(&svc);
  EXPECT_THAT(Stored().subsets, IsEmpty());
  EXPECT_EQ(Stored().metadata.labels, kManagedBy);  // no headless label with a cluster IP
}

// Scenario 14.
TEST_F(EndpointsReconcilerTest, DeletedServiceDeletesEndpoints) {
  writer_.Seed(UserEndpoints("foo"));
  EndpointsPlan plan = Sync(nullptr);
  EXPECT_EQ(plan.action, EndpointsPlan::Action::kDelete);
  EXPECT_THAT(writer_.Actions(), ElementsAre("delete ns/foo"));
  EXPECT_EQ(writer_.Get("ns", "foo"), nullptr);
  // NotFound is tolerated.
  Sync(nullptr);
  EXPECT_TRUE(status_.ok());
}

// Scenario 17.
TEST_F(EndpointsReconcilerTest, PodWithoutAddressOfPrimaryFamilyIsSkipped) {
  Service svc = TestService();
  svc.spec.ip_families = {"IPv6"};
  AddPod(TestPod(1));
  Sync(&svc);
  EXPECT_THAT(Stored().subsets, IsEmpty());
}

TEST_F(EndpointsReconcilerTest, DualStackPodUsesPrimaryFamilyOnly) {
  Service svc = TestService();
  svc.spec.ip_families = {"IPv6", "IPv4"};
  AddPod(MakePod(1, "ns", "", true, /*dual=*/true));
  Sync(&svc);
  ASSERT_EQ(Stored().subsets.size(), 1u);
  ASSERT_EQ(Stored().subsets[0].addresses.size(), 1u);
  EXPECT_EQ(Stored().subsets[0].addresses[0].ip, "fd00::1");
}

// Scenario 18.
TEST_F(EndpointsReconcilerTest, PodIPIsCanonicalised) {
  Service svc = TestService();
  Pod p = TestPod(1);
  p.status.pod_ip = "01.2.3.4";
  p.status.pod_ips = {{"01.2.3.4", {}}};
  AddPod(p);
  Sync(&svc);
  ASSERT_EQ(Stored().subsets.size(), 1u);
  EXPECT_EQ(Stored().subsets[0].addresses[0].ip, "1.2.3.4");
}

// Scenarios 19–22.
class CapacityTest : public EndpointsReconcilerTest {
 protected:
  Service svc_ = TestService();
  void SeedAddresses(int n, StringMap annotations = {}) {
    Endpoints e = UserEndpoints("foo");
    e.metadata.annotations = std::move(annotations);
    EndpointSubset s;
    for (int i = 0; i < n; ++i) s.addresses.push_back(Addr(TestPod(50000 + i)));
    s.ports.push_back(Port(8080));
    e.subsets.push_back(s);
    writer_.Seed(e);
  }
  void AddPods(int ready, int not_ready) {
    for (int i = 0; i < ready; ++i) AddPod(TestPod(i, true));
    for (int i = 0; i < not_ready; ++i) AddPod(TestPod(10000 + i, false));
  }
  int Ready() { return static_cast<int>(Stored().subsets.at(0).addresses.size()); }
  int NotReady() { return static_cast<int>(Stored().subsets.at(0).not_ready_addresses.size()); }
  std::optional<std::string> OverCapacity() {
    auto& a = Stored().metadata.annotations;
    auto it = a.find(kOverCapacityAnnotation);
    return it == a.end() ? std::nullopt : std::optional<std::string>(it->second);
  }
};

TEST_F(CapacityTest, NotReadyAreCutFirst) {
  SeedAddresses(999);
  AddPods(997, 4);
  Sync(&svc_);
  EXPECT_EQ(Ready(), 997);
  EXPECT_EQ(NotReady(), 3);
  EXPECT_EQ(OverCapacity(), "truncated");
}

TEST_F(CapacityTest, ReadyAboveCapacityDropsAllNotReady) {
  SeedAddresses(999);
  AddPods(1000, 10);
  Sync(&svc_);
  EXPECT_EQ(Ready(), 1000);
  EXPECT_EQ(Stored().subsets.at(0).not_ready_addresses.size(), 0u);
  EXPECT_EQ(OverCapacity(), "truncated");
}

TEST_F(CapacityTest, AnnotationRemovedAtOrBelowCapacity) {
  SeedAddresses(1000, {{"endpoints.kubernetes.io/over-capacity", "truncated"}});
  AddPods(999, 0);
  Sync(&svc_);
  EXPECT_EQ(Ready(), 999);
  EXPECT_EQ(OverCapacity(), std::nullopt);

  SeedAddresses(999, {{"endpoints.kubernetes.io/over-capacity", "truncated"}});
  AddPod(TestPod(999, true));
  Sync(&svc_);
  EXPECT_EQ(Ready(), 1000);
  EXPECT_EQ(OverCapacity(), std::nullopt);
}

TEST_F(CapacityTest, AnyAnnotationValueBecomesTruncated) {
  for (std::string value : {"invalid", "warning"}) {
    pods_.clear();
    SeedAddresses(1000, {{"endpoints.kubernetes.io/over-capacity", value}});
    AddPods(1001, 0);
    Sync(&svc_);
    EXPECT_EQ(Ready(), 1000);
    EXPECT_EQ(OverCapacity(), "truncated");
  }
}

// Scenario 25.
TEST_F(EndpointsReconcilerTest, AppProtocolIsCopied) {
  Service svc = TestService();
  svc.spec.ports[0].app_protocol = "http";
  AddPod(TestPod(1));
  Sync(&svc);
  ASSERT_EQ(Stored().subsets.at(0).ports.size(), 1u);
  EXPECT_EQ(Stored().subsets[0].ports[0].app_protocol, "http");

  svc.spec.ports[0].app_protocol.reset();
  Sync(&svc);
  EXPECT_EQ(Stored().subsets.at(0).ports[0].app_protocol, std::nullopt);
}

// Scenarios 28 and 29: phase × readiness × terminating × publishNotReadyAddresses.
TEST_F(EndpointsReconcilerTest, ReadinessMatrix) {
  struct Case {
    std::string phase;
    bool ready;
    bool terminating;
    bool publish;
    int want_ready;
    int want_not_ready;
  };
  const Case cases[] = {
      {"Running", true, false, false, 1, 0}, {"Pending", true, false, false, 1, 0},
      {"Unknown", true, false, false, 1, 0}, {"Running", false, false, false, 0, 1},
      {"Running", true, true, false, 0, 0},  {"Running", false, false, true, 1, 0},
      {"Pending", false, true, true, 1, 0},  {"Unknown", false, true, true, 1, 0},
      {"Failed", false, false, true, 0, 0},  {"Succeeded", false, false, true, 0, 0},
      {"Failed", false, false, false, 0, 0}, {"Succeeded", true, false, false, 0, 0},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.phase + " ready=" + std::to_string(c.ready) + " terminating=" +
                 std::to_string(c.terminating) + " publish=" + std::to_string(c.publish));
    Service svc = TestService();
    svc.spec.publish_not_ready_addresses = c.publish;
    Pod p = TestPod(1, c.ready);
    p.status.phase = c.phase;
    if (c.terminating) p.metadata.deletion_timestamp = api::meta::Time::FromUnix(1);
    auto subsets = DesiredSubsets(svc, {std::make_shared<const Pod>(p)});
    EXPECT_EQ(CountAddresses(subsets), c.want_ready + c.want_not_ready);
    int ready = 0;
    for (const auto& s : subsets) ready += static_cast<int>(s.addresses.size());
    EXPECT_EQ(ready, c.want_ready);
  }
}

// The deprecated tolerate-unready annotation is ignored (spec §5.6).
TEST_F(EndpointsReconcilerTest, TolerateUnreadyAnnotationIsIgnored) {
  Service svc = TestService();
  svc.metadata.annotations["service.alpha.kubernetes.io/tolerate-unready-endpoints"] = "true";
  auto subsets = DesiredSubsets(svc, {std::make_shared<const Pod>(TestPod(1, false))});
  ASSERT_EQ(subsets.size(), 1u);
  EXPECT_THAT(subsets[0].addresses, IsEmpty());
  EXPECT_EQ(subsets[0].not_ready_addresses.size(), 1u);
}

// Named targetPort resolved per pod: pods with different numbers land in different subsets.
TEST_F(EndpointsReconcilerTest, NamedTargetPortsResolvePerPod) {
  Service svc = TestService();
  svc.spec.ports[0].name = "web";
  svc.spec.ports[0].target_port = api::meta::IntOrString::FromString("http");
  Pod a = TestPod(1), b = TestPod(2), c = TestPod(3), d = TestPod(4);
  b.spec.containers[0].ports[0].container_port = 9090;
  c.spec.containers[0].ports[0].protocol = "UDP";  // protocol must match: no port for this pod
  d.spec.containers[0].ports[0].container_port = 9090;
  auto subsets =
      DesiredSubsets(svc, {std::make_shared<const Pod>(a), std::make_shared<const Pod>(b),
                           std::make_shared<const Pod>(c), std::make_shared<const Pod>(d)});
  ASSERT_EQ(subsets.size(), 2u);
  EXPECT_THAT(subsets[0].ports, ElementsAre(Port(8080, "TCP", "web")));
  EXPECT_THAT(subsets[0].addresses, ElementsAre(Addr(a)));
  EXPECT_THAT(subsets[1].ports, ElementsAre(Port(9090, "TCP", "web")));
  EXPECT_THAT(subsets[1].addresses, ElementsAre(Addr(b), Addr(d)));
}

TEST_F(EndpointsReconcilerTest, NamedPortFoundInSidecarInitContainer) {
  Service svc = TestService();
  svc.spec.ports[0].target_port = api::meta::IntOrString::FromString("metrics");
  Pod p = TestPod(1);
  api::core::v1::Container sidecar;
  sidecar.name = "sidecar";
  api::core::v1::ContainerPort cp;
  cp.name = "metrics";
  cp.container_port = 9100;
  cp.protocol = "TCP";
  sidecar.ports.push_back(cp);
  p.spec.rest->init_containers.push_back(sidecar);
  // A plain init container does not count.
  EXPECT_THAT(DesiredSubsets(svc, {std::make_shared<const Pod>(p)}), IsEmpty());
  p.spec.rest->init_containers[0].unknown.items.emplace_back("restartPolicy", "\"Always\"");
  auto subsets = DesiredSubsets(svc, {std::make_shared<const Pod>(p)});
  ASSERT_EQ(subsets.size(), 1u);
  EXPECT_THAT(subsets[0].ports, ElementsAre(Port(9100)));
}

TEST_F(EndpointsReconcilerTest, HostnameOnlyWithMatchingSubdomain) {
  Service svc = TestService();
  Pod a = TestPod(1), b = TestPod(2), c = TestPod(3);
  a.spec.hostname = "a";
  a.spec.subdomain = "foo";
  b.spec.hostname = "b";
  b.spec.subdomain = "other";
  c.spec.subdomain = "foo";
  auto subsets =
      DesiredSubsets(svc, {std::make_shared<const Pod>(a), std::make_shared<const Pod>(b),
                           std::make_shared<const Pod>(c)});
  ASSERT_EQ(subsets.size(), 1u);
  ASSERT_EQ(subsets[0].addresses.size(), 3u);
  EXPECT_EQ(subsets[0].addresses[0].hostname, "a");
  EXPECT_EQ(subsets[0].addresses[1].hostname, "");
  EXPECT_EQ(subsets[0].addresses[2].hostname, "");
}

TEST_F(EndpointsReconcilerTest, MultiplePortsShareOneSubset) {
  Service svc = TestService();
  api::core::v1::ServicePort second = svc.spec.ports[0];
  second.name = "b";
  second.port = 81;
  second.target_port = api::meta::IntOrString::FromInt(8081);
  svc.spec.ports[0].name = "a";
  svc.spec.ports.push_back(second);
  auto subsets = DesiredSubsets(
      svc, {std::make_shared<const Pod>(TestPod(2)), std::make_shared<const Pod>(TestPod(1))});
  ASSERT_EQ(subsets.size(), 1u);
  EXPECT_THAT(subsets[0].ports, ElementsAre(Port(8080, "TCP", "a"), Port(8081, "TCP", "b")));
  EXPECT_THAT(subsets[0].addresses, ElementsAre(Addr(TestPod(1)), Addr(TestPod(2))));
}

// Scenario 31: the trigger time annotation.
TEST_F(EndpointsReconcilerTest, LastChangeTriggerTime) {
  Service svc = TestService();
  Pod p = TestPod(1, false);
  AddPod(p);
  Sync(&svc);
  EXPECT_EQ(Stored().metadata.annotations.at(std::string(kTriggerTimeAnnotation)),
            "2023-11-14T22:13:20Z");

  p.status.conditions[0].status = "True";
  p.status.conditions[0].last_transition_time = api::meta::Time::FromUnix(1700000100);
  pods_ = {std::make_shared<const Pod>(p)};
  Sync(&svc);
  EXPECT_EQ(Stored().metadata.annotations.at(std::string(kTriggerTimeAnnotation)),
            "2023-11-14T22:15:00Z");

  // Nothing changed: no write; the tracker now reports no trigger, visible once a label forces a
  // write.
  writer_.ClearActions();
  Sync(&svc);
  EXPECT_THAT(writer_.Actions(), IsEmpty());
  svc.metadata.labels["x"] = "y";
  Sync(&svc);
  EXPECT_THAT(writer_.Actions(), ElementsAre("update ns/foo"));
  EXPECT_FALSE(Stored().metadata.annotations.contains(kTriggerTimeAnnotation));
}

// §11: after our own update the cache must move past the replaced resourceVersion.
TEST_F(EndpointsReconcilerTest, StaleCacheIsAnErrorNotAWrite) {
  Service svc = TestService();
  writer_.Seed(UserEndpoints("foo"));
  auto stale = writer_.Get("ns", "foo");
  AddPod(TestPod(1));
  Sync(&svc);
  ASSERT_TRUE(status_.ok());
  AddPod(TestPod(2));
  auto plan = reconciler_.Plan("ns", "foo", &svc, pods_, stale.get());
  ASSERT_FALSE(plan.ok());
  EXPECT_THAT(plan.status().message(),
              ::testing::HasSubstr("endpoints informer cache is out of date, resource version"));
  // The fresh object is fine.
  auto fresh = writer_.Get("ns", "foo");
  EXPECT_TRUE(reconciler_.Plan("ns", "foo", &svc, pods_, fresh.get()).ok());
}

TEST_F(EndpointsReconcilerTest, WriteFailuresProduceEvents) {
  Service svc = TestService();
  writer_.FailNext(InternalError("boom"));
  Sync(&svc);
  EXPECT_FALSE(status_.ok());
  ASSERT_EQ(events_.size(), 1u);
  EXPECT_EQ(events_[0].type, "Warning");
  EXPECT_EQ(events_[0].reason, "FailedToCreateEndpoint");
  EXPECT_THAT(events_[0].message,
              ::testing::StartsWith("Failed to create endpoint for service ns/foo: "));

  Sync(&svc);
  ASSERT_TRUE(status_.ok());
  AddPod(TestPod(1));
  writer_.FailNext(ConflictError("changed"));
  Sync(&svc);
  ASSERT_EQ(events_.size(), 1u);
  EXPECT_EQ(events_[0].reason, "FailedToUpdateEndpoint");
  EXPECT_THAT(events_[0].message, ::testing::StartsWith("Failed to update endpoint ns/foo: "));
}

TEST_F(EndpointsReconcilerTest, NamespaceTerminatingCreateIsSuccess) {
  Service svc = TestService();
  writer_.FailNext(Status(Code::kForbidden, "namespace ns is being terminated")
                       .WithCauses({{"NamespaceTerminating", "metadata.namespace", "ns"}}));
  Sync(&svc);
  EXPECT_TRUE(status_.ok());
  EXPECT_THAT(events_, IsEmpty());
}

}  // namespace
}  // namespace svcplane::controllers::endpoints
