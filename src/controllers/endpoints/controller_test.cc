// The Endpoints controller against the real in-process API and informers (loopback), plus the
// batch-period behaviour on the in-memory fake cluster with a manual clock.

#include "controllers/endpoints/controller.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "client/errors.h"
#include "controllers/endpointslice/testing/fake_cluster.h"
#include "controllers/endpointslice/testing/loopback_env.h"
#include "controllers/endpointslice/testing/wait.h"

namespace svcplane::controllers::endpoints {
namespace {

using endpointslice::RecordingEventSink;
using endpointslice::testing::MakePod;
using endpointslice::testing::MakeService;
using endpointslice::testing::WaitFor;
using ::testing::HasSubstr;

class EndpointsLoopbackTest : public ::testing::Test {
 protected:
  void TearDown() override {
    if (controller_) controller_->Shutdown();
    env_.informers().Shutdown();
  }
  void Start() {
    EndpointsControllerOptions options;
    options.retry_base = std::chrono::milliseconds(1);
    controller_ = std::make_unique<EndpointsController>(env_.informers(), env_.clients(), events_,
                                                        &metrics_, RealClock::Get(), options);
    env_.informers().Start();
    controller_->Run(2);
  }
  std::shared_ptr<const Endpoints> Get(const std::string& name) {
    auto e = env_.clients().Endpoints().Get("ns", name);
    return e.ok() ? *e : nullptr;
  }
  int Addresses(const std::string& name, bool ready) {
    auto e = Get(name);
    if (e == nullptr) return -1;
    int n = 0;
    for (const auto& s : e->subsets) {
      n += static_cast<int>(ready ? s.addresses.size() : s.not_ready_addresses.size());
    }
    return n;
  }

  endpointslice::testing::LoopbackEnv env_;
  RecordingEventSink events_;
  MetricsRegistry metrics_;
  std::unique_ptr<EndpointsController> controller_;
};

TEST_F(EndpointsLoopbackTest, EndpointsFollowPodsAndTheService) {
  ASSERT_TRUE(env_.clients().Services().Create(MakeService("svc")).ok());
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(env_.CreatePod(i, /*ready=*/i != 0).ok());
  Start();
  ASSERT_TRUE(WaitFor([&] { return Addresses("svc", true) == 4 && Addresses("svc", false) == 1; }));
  auto e = Get("svc");
  EXPECT_EQ(e->metadata.labels.at("endpoints.kubernetes.io/managed-by"), "endpoint-controller");
  EXPECT_FALSE(e->metadata.labels.contains("service.kubernetes.io/headless"));
  ASSERT_EQ(e->subsets.size(), 1u);
  ASSERT_EQ(e->subsets[0].ports.size(), 1u);
  EXPECT_EQ(e->subsets[0].ports[0].port, 8080);
  EXPECT_EQ(e->subsets[0].ports[0].name, "http");

  ASSERT_TRUE(env_.SetReady("pod-0", true).ok());
  ASSERT_TRUE(WaitFor([&] { return Addresses("svc", true) == 5; }));

  // A user deleting the Endpoints gets them back.
  ASSERT_TRUE(env_.clients().Endpoints().Delete("ns", "svc").ok());
  ASSERT_TRUE(WaitFor([&] { return Addresses("svc", true) == 5; }));

  // Deleting the Service deletes its Endpoints.
  ASSERT_TRUE(env_.clients().Services().Delete("ns", "svc").ok());
  ASSERT_TRUE(WaitFor([&] { return Get("svc") == nullptr; }));
  EXPECT_THAT(metrics_.RenderPrometheus(), HasSubstr("workqueue_adds_total{name=\"endpoint\"}"));
}

TEST_F(EndpointsLoopbackTest, SelectorlessServiceKeepsUserEndpoints) {
  api::core::v1::Service svc = MakeService("custom");
  svc.spec.selector.clear();
  ASSERT_TRUE(env_.clients().Services().Create(svc).ok());
  Endpoints user;
  user.metadata.name = "custom";
  user.metadata.namespace_ = "ns";
  EndpointSubset s;
  s.addresses.push_back(EndpointAddress{"6.7.8.9", "", {}, {}, {}});
  s.ports.push_back(EndpointPort{"", 1000, "TCP", {}, {}});
  user.subsets.push_back(s);
  ASSERT_TRUE(env_.clients().Endpoints().Create(user).ok());
  // A second, selecting Service proves the workers ran.
  ASSERT_TRUE(env_.clients().Services().Create(MakeService("svc")).ok());
  Start();
  ASSERT_TRUE(WaitFor([&] { return Get("svc") != nullptr; }));
  auto e = Get("custom");
  ASSERT_NE(e, nullptr);
  ASSERT_EQ(e->subsets.size(), 1u);
  EXPECT_EQ(e->subsets[0].addresses[0].ip, "6.7.8.9");
  EXPECT_FALSE(e->metadata.labels.contains("endpoints.kubernetes.io/managed-by"));
}

// §13: Endpoints left behind by a Service deleted while the controller was down.
TEST_F(EndpointsLoopbackTest, StartupScanDeletesOrphansButNotLeaderLocks) {
  Endpoints orphan;
  orphan.metadata.name = "gone";
  orphan.metadata.namespace_ = "ns";
  ASSERT_TRUE(env_.clients().Endpoints().Create(orphan).ok());
  Endpoints lock = orphan;
  lock.metadata.name = "lock";
  lock.metadata.annotations["control-plane.alpha.kubernetes.io/leader"] = "{}";
  ASSERT_TRUE(env_.clients().Endpoints().Create(lock).ok());
  Start();
  ASSERT_TRUE(WaitFor([&] { return Get("gone") == nullptr; }));
  EXPECT_NE(Get("lock"), nullptr);
}

TEST_F(EndpointsLoopbackTest, Over1000AddressesAreTruncated) {
  ASSERT_TRUE(env_.clients().Services().Create(MakeService("svc")).ok());
  for (int i = 0; i < 1001; ++i) ASSERT_TRUE(env_.CreatePod(i).ok());
  Start();
  ASSERT_TRUE(WaitFor([&] { return Addresses("svc", true) == 1000; }));
  EXPECT_EQ(Get("svc")->metadata.annotations.at("endpoints.kubernetes.io/over-capacity"),
            "truncated");
}

// Scenario 26 on the fake cluster (manual clock): three pod changes inside one batch period
// cause one write; without batching, three.
class EndpointsBatchTest : public ::testing::TestWithParam<bool> {};

TEST_P(EndpointsBatchTest, BatchPeriodCollapsesPodEvents) {
  const bool batch = GetParam();
  endpointslice::testing::FakeCluster cluster;
  FakeClock clock;
  RecordingEventSink events;
  ASSERT_TRUE(cluster.Services().Create(MakeService("svc")).ok());
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(cluster.Pods().Create(MakePod(i)).ok());
  EndpointsControllerOptions options;
  options.batch_period = batch ? std::chrono::seconds(1) : Duration::zero();
  EndpointsController controller(cluster, cluster, events, nullptr, clock, options);
  controller.Run(1);
  auto ready_count = [&] {
    auto e = cluster.Endpoints().lister().Get("ns", "svc");
    return e == nullptr || e->subsets.empty() ? 0
                                              : static_cast<int>(e->subsets[0].addresses.size());
  };
  ASSERT_TRUE(WaitFor([&] { return ready_count() == 5; }));
  auto settle = [&] {
    cluster.Drain();
    ASSERT_TRUE(endpointslice::testing::WaitForIdle([&] { return controller.IdleForTest(); }));
  };
  settle();
  cluster.ClearActions();
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(cluster.Pods().Delete("ns", "pod-" + std::to_string(i)).ok());
    cluster.Drain();
    if (!batch) {
      ASSERT_TRUE(WaitFor([&] { return ready_count() == 4 - i; }));
    }
    clock.Advance(std::chrono::milliseconds(100));
  }
  clock.Advance(std::chrono::seconds(1));
  ASSERT_TRUE(WaitFor([&] { return ready_count() == 2; }));
  settle();
  int writes = 0;
  for (const auto& a : cluster.Actions()) writes += a.rfind("update endpoints", 0) == 0;
  EXPECT_EQ(writes, batch ? 1 : 3);
  controller.Shutdown();
  cluster.Shutdown();
}

// Issue 20: a sync that finds the informer behind the controller's own Endpoints write (an update
// it made, or a create it made) parks the key instead of failing into backoff, and goes on when
// the write's event arrives. The clock never moves, so no backoff or recheck can fire.
class EndpointsStaleCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(cluster_.Services().Create(MakeService("svc")).ok());
    for (int i = 0; i < 3; ++i) ASSERT_TRUE(cluster_.Pods().Create(MakePod(i)).ok());
  }
  void TearDown() override {
    if (controller_) controller_->Shutdown();
    cluster_.Shutdown();
  }
  void Start() {
    controller_ = std::make_unique<EndpointsController>(cluster_, cluster_, events_, nullptr,
                                                        clock_, EndpointsControllerOptions{});
    controller_->Run(1);
  }
  int StoredReady() {  // as the server has it, not as a held cache shows it
    auto e = cluster_.Endpoints().Get("ns", "svc");
    return !e.ok() || (*e)->subsets.empty() ? 0
                                            : static_cast<int>((*e)->subsets[0].addresses.size());
  }
  void MakeUnready(int i) {
    api::core::v1::Pod p = *cluster_.Pods().lister().Get("ns", "pod-" + std::to_string(i));
    p.status.conditions[0].status = "False";
    ASSERT_TRUE(cluster_.Pods().UpdateStatus(p).ok());
  }
  void Settle() {
    cluster_.Drain();
    ASSERT_TRUE(endpointslice::testing::WaitForIdle([&] { return controller_->IdleForTest(); }));
  }

  endpointslice::testing::FakeCluster cluster_;
  FakeClock clock_;
  RecordingEventSink events_;
  std::unique_ptr<EndpointsController> controller_;
};

TEST_F(EndpointsStaleCacheTest, AfterOurUpdate) {
  Start();
  ASSERT_TRUE(WaitFor([&] { return StoredReady() == 3; }));
  Settle();
  cluster_.Endpoints().HoldCache();
  MakeUnready(0);
  ASSERT_TRUE(WaitFor([&] { return StoredReady() == 2; }));
  MakeUnready(1);
  ASSERT_TRUE(WaitFor([&] { return controller_->ParkedForTest("ns/svc"); }));
  Settle();
  EXPECT_EQ(controller_->QueueForTest().NumRequeues("ns/svc"), 0);
  EXPECT_TRUE(events_.Records().empty());

  cluster_.Endpoints().ReleaseCache();
  ASSERT_TRUE(WaitFor([&] { return StoredReady() == 1; }));
  EXPECT_FALSE(controller_->ParkedForTest("ns/svc"));
  EXPECT_EQ(controller_->QueueForTest().NumRequeues("ns/svc"), 0);
}

TEST_F(EndpointsStaleCacheTest, AfterOurCreate) {
  cluster_.Endpoints().HoldCache();  // the cache will not see the Endpoints we create
  Start();
  ASSERT_TRUE(WaitFor([&] { return StoredReady() == 3; }));
  Settle();
  MakeUnready(0);
  ASSERT_TRUE(WaitFor([&] { return controller_->ParkedForTest("ns/svc"); }));
  Settle();
  // Upstream would try the create again, get AlreadyExists and back off.
  EXPECT_EQ(controller_->QueueForTest().NumRequeues("ns/svc"), 0);
  EXPECT_TRUE(events_.Records().empty());
  int creates = 0;
  for (const auto& a : cluster_.Actions()) creates += a.rfind("create endpoints", 0) == 0;
  EXPECT_EQ(creates, 1);

  cluster_.Endpoints().ReleaseCache();
  ASSERT_TRUE(WaitFor([&] { return StoredReady() == 2; }));
  EXPECT_FALSE(controller_->ParkedForTest("ns/svc"));
}

INSTANTIATE_TEST_SUITE_P(Batching, EndpointsBatchTest, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "OneSecond" : "Off"; });

}  // namespace
}  // namespace svcplane::controllers::endpoints
