#include "controllers/manager/controller_manager.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "client/testing/fake_clientset.h"
#include "client/testing/stepping_clock.h"
#include "controllers/manager/builtin_controllers.h"

namespace svcplane::controllers::manager {
namespace {

using client::testing::Action;
using client::testing::FakeClientset;
using client::testing::SteppingClock;
using namespace std::chrono_literals;

// A controller that counts its starts and runs one worker until stopped.
struct CountingController {
  std::atomic<int> starts{0};
  std::atomic<int> running{0};
  StartFunc Start() {
    return [this](ControllerContext& ctx) {
      ++starts;
      EXPECT_EQ(ctx.options.endpointslice.max_endpoints_per_slice, 100);
      ctx.spawn("counting-worker", [this](std::stop_token stop) {
        ++running;
        std::mutex mu;
        std::condition_variable_any cv;
        std::unique_lock<std::mutex> l(mu);
        cv.wait(l, stop, [] { return false; });
        --running;
      });
      return Status::Ok();
    };
  }
};

struct Instance {
  Instance(std::string id, FakeClientset& client, const Clock& clock, CountingController& ctrl,
           bool leader_elect = true) {
    EXPECT_TRUE(registry.Register({"counting", ctrl.Start()}).ok());
    ControllerManagerOptions o;
    o.leader_election.leader_elect = leader_elect;
    auto m = ControllerManager::Create(
        o, registry, ManagerDeps{.client = client, .clock = &clock, .identity = id, .random01 = [] {
                                   return 0.0;
                                 }});
    EXPECT_TRUE(m.ok()) << m.status().ToString();
    manager = std::move(*m);
  }
  void Start() {
    thread = std::thread([this] { result = manager->Run(stop.get_token()); });
  }
  void Stop() {
    stop.request_stop();
    if (thread.joinable()) thread.join();
  }
  ~Instance() { Stop(); }

  ControllerRegistry registry;
  std::unique_ptr<ControllerManager> manager;
  std::stop_source stop;
  std::thread thread;
  Status result;
};

const char kLease[] = "svcplane-controller-manager";

TEST(ControllerManagerTest, UnknownControllerFailsCreate) {
  FakeClientset client;
  ControllerRegistry registry;
  ControllerManagerOptions o;
  o.controllers = {"*", "nope"};
  auto m = ControllerManager::Create(o, registry, {.client = client});
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().message(), "\"nope\" is not in the list of known controllers");
}

TEST(ControllerManagerTest, OnlyTheLeaderRunsControllersAndAStandbyTakesOverOnStop) {
  FakeClientset client;
  SteppingClock clock;
  CountingController ca, cb;
  Instance a("a", client, clock, ca), b("b", client, clock, cb);
  a.Start();
  EXPECT_EQ(a.manager->ServeHttp("/livez").status, 200);
  // Ready once its controllers have started (a moment after their workers run).
  ASSERT_TRUE(clock.AdvanceUntil(
      1, [&] { return ca.running == 1 && a.manager->ServeHttp("/readyz").status == 200; }));
  EXPECT_TRUE(a.manager->IsLeading());
  b.Start();
  // B stays standby through several retry periods.
  ASSERT_TRUE(clock.AdvanceUntil(2, [&] { return clock.Now() > TimePoint{} + 1h + 10s; }));
  EXPECT_EQ(cb.starts, 0);
  EXPECT_FALSE(b.manager->IsLeading());
  EXPECT_EQ(b.manager->ServeHttp("/readyz").status, 200);  // a standby is ready
  EXPECT_EQ(b.manager->ServeHttp("/livez").status, 200);
  EXPECT_EQ(client.Leases().Peek("kube-system", kLease)->spec.holder_identity, "a");

  // A stops cleanly: its workers are joined and the lease released; B takes over.
  a.Stop();
  EXPECT_TRUE(a.result.ok()) << a.result.ToString();
  EXPECT_EQ(ca.running, 0);
  ASSERT_TRUE(clock.AdvanceUntil(1, [&] { return cb.running == 1; }));
  auto lease = client.Leases().Peek("kube-system", kLease);
  EXPECT_EQ(lease->spec.holder_identity, "b");
  EXPECT_EQ(lease->spec.lease_transitions, 1);
  std::string metrics = b.manager->ServeHttp("/metrics").body;
  EXPECT_NE(metrics.find("leader_election_master_status{name=\"svcplane-controller-manager\"} 1"),
            std::string::npos)
      << metrics;
  b.Stop();
  EXPECT_TRUE(b.result.ok());
}

TEST(ControllerManagerTest, LosingTheLeaseStopsControllersAndFailsRun) {
  FakeClientset client;
  SteppingClock clock;
  CountingController c;
  Instance a("a", client, clock, c);
  a.Start();
  ASSERT_TRUE(clock.AdvanceUntil(1, [&] { return c.running == 1; }));
  client.Leases().SetReactor([](const Action&) { return UnavailableError("apiserver down"); });
  ASSERT_TRUE(clock.AdvanceUntil(1, [&] { return c.running == 0; }));
  a.thread.join();
  EXPECT_EQ(a.result.code(), Code::kUnavailable);
  EXPECT_EQ(a.result.message(), "leaderelection lost");
  EXPECT_EQ(a.manager->ServeHttp("/livez").status, 500);
}

TEST(ControllerManagerTest, WithoutLeaderElectionControllersStartAtOnce) {
  FakeClientset client;
  SteppingClock clock;
  CountingController c;
  Instance a("a", client, clock, c, /*leader_elect=*/false);
  a.Start();
  while (c.running == 0 || a.manager->started_controllers().empty()) {
    std::this_thread::sleep_for(1ms);
  }
  EXPECT_EQ(client.Leases().Peek("kube-system", kLease), nullptr);
  EXPECT_EQ(a.manager->started_controllers(), std::vector<std::string>{"counting"});
  a.Stop();
  EXPECT_EQ(c.running, 0);
}

TEST(ControllerManagerTest, FailedStartStopsTheManager) {
  FakeClientset client;
  ControllerRegistry registry;
  ASSERT_TRUE(
      registry.Register({"broken", [](ControllerContext&) { return InvalidError("no"); }}).ok());
  ControllerManagerOptions o;
  o.leader_election.leader_elect = false;
  auto m = ControllerManager::Create(o, registry, {.client = client});
  ASSERT_TRUE(m.ok());
  Status st = (*m)->Run(std::stop_token());
  EXPECT_EQ(st.message(), "error starting \"broken\": no");
}

TEST(ControllerManagerTest, HealthEndpointsAnswerAsTheApiServerWords) {
  FakeClientset client;
  ControllerRegistry registry;
  auto m = ControllerManager::Create({}, registry, {.client = client});
  ASSERT_TRUE(m.ok());
  HttpReply r = (*m)->ServeHttp("/livez");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "ok");
  r = (*m)->ServeHttp("/readyz?verbose");
  EXPECT_EQ(r.status, 200);
  EXPECT_NE(r.body.find("[+]leaderElection ok"), std::string::npos) << r.body;
  EXPECT_NE(r.body.find("readyz check passed"), std::string::npos);
  EXPECT_EQ((*m)->ServeHttp("/nope").status, 404);
  EXPECT_EQ((*m)->ServeHttp("/metrics").status, 200);
}

TEST(LeaseHolderLoggerTest, ReportsTheHolderAsAnEvent) {
  FakeClientset client;
  SteppingClock clock;
  ControllerRegistry registry;
  ASSERT_TRUE(RegisterBuiltinControllers(registry).ok());
  ControllerManagerOptions o;
  o.controllers = {"*", "lease-holder-logger"};
  auto m =
      ControllerManager::Create(o, registry, {.client = client, .clock = &clock, .identity = "me"});
  ASSERT_TRUE(m.ok());
  std::stop_source stop;
  std::thread run([&] { (*m)->Run(stop.get_token()).IgnoreError(); });
  ASSERT_TRUE(clock.AdvanceUntil(1, [&] {
    for (const auto& e : client.Events().All()) {
      if (e->reason == "LeaseHolderObserved") return e->message == "lease held by me";
    }
    return false;
  })) << client.Events().Actions().size();
  stop.request_stop();
  run.join();
}

}  // namespace
}  // namespace svcplane::controllers::manager
