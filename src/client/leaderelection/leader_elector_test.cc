#include "client/leaderelection/leader_elector.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "client/record/event_broadcaster.h"
#include "client/testing/fake_clientset.h"
#include "client/testing/stepping_clock.h"

namespace svcplane::client::leaderelection {
namespace {

using api::coordination::v1::Lease;
using namespace std::chrono_literals;
using client::testing::Action;
using client::testing::FakeResourceClient;
using client::testing::SteppingClock;

int64_t Micros(WallTime t) {
  return std::chrono::duration_cast<std::chrono::microseconds>(t.time_since_epoch()).count();
}

struct Candidate {
  Candidate(std::string id, FakeResourceClient<Lease>& leases, const Clock& clock,
            record::EventRecorder* recorder = nullptr, bool release = false) {
    config.lock =
        std::make_shared<LeaseLock>(leases, LeaseLockConfig{.namespace_ = "kube-system",
                                                            .name = "svcplane-controller-manager",
                                                            .identity = id,
                                                            .recorder = recorder});
    config.clock = &clock;
    config.release_on_cancel = release;
    config.name = "svcplane-controller-manager";
    config.metrics = &metrics;
    config.random01 = [] { return 0.5; };
    config.callbacks.on_started_leading = [this](std::stop_token stop) {
      started = true;
      std::mutex mu;
      std::condition_variable_any cv;
      std::unique_lock<std::mutex> l(mu);
      cv.wait(l, stop, [] { return false; });
      leading_stopped = true;
    };
    config.callbacks.on_stopped_leading = [this] { stopped = true; };
    config.callbacks.on_new_leader = [this](const std::string& id) {
      std::lock_guard<std::mutex> l(mu);
      new_leaders.push_back(id);
    };
  }
  std::unique_ptr<LeaderElector> Make() { return std::move(*LeaderElector::Create(config)); }
  std::vector<std::string> NewLeaders() {
    std::lock_guard<std::mutex> l(mu);
    return new_leaders;
  }

  LeaderElectionConfig config;
  MetricsRegistry metrics;
  std::atomic<bool> started{false}, stopped{false}, leading_stopped{false};
  std::mutex mu;
  std::vector<std::string> new_leaders;
};

ObjectPtr<Lease> TheLease(FakeResourceClient<Lease>& leases) {
  return leases.Peek("kube-system", "svcplane-controller-manager");
}

TEST(LeaderElectorConfigTest, ValidatesDurations) {
  FakeResourceClient<Lease> leases;
  FakeClock clock;
  Candidate c("a", leases, clock);
  c.config.renew_deadline = 15s;
  auto r = LeaderElector::Create(c.config);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "leaseDuration must be greater than renewDeadline");

  c.config.renew_deadline = 2s;  // needs > 1.2 * 2 s
  r = LeaderElector::Create(c.config);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "renewDeadline must be greater than retryPeriod*JitterFactor");

  c.config.renew_deadline = 2500ms;
  EXPECT_TRUE(LeaderElector::Create(c.config).ok());

  c.config.callbacks.on_stopped_leading = nullptr;
  EXPECT_FALSE(LeaderElector::Create(c.config).ok());
}

TEST(LeaderElectorConfigTest, DefaultsAsKubeControllerManager) {
  LeaderElectionConfig config;
  EXPECT_EQ(config.lease_duration, 15s);
  EXPECT_EQ(config.renew_deadline, 10s);
  EXPECT_EQ(config.retry_period, 2s);
  std::string id = DefaultIdentity();
  EXPECT_NE(id.find('_'), std::string::npos);
  EXPECT_EQ(id.size() - id.find('_') - 1, 36u);  // a UUID after the host name
}

TEST(LeaseLockTest, UpdateBeforeGetOrCreateFails) {
  FakeResourceClient<Lease> leases;
  LeaseLock lock(leases, {.name = "x", .identity = "a"});
  Status st = lock.Update({});
  EXPECT_EQ(st.message(), "lease not initialized, call get or create first");
}

TEST(LeaderElectorTest, CreatesTheLeaseWhenMissing) {
  FakeResourceClient<Lease> leases;
  FakeClock clock;
  Candidate a("a", leases, clock);
  auto e = a.Make();
  EXPECT_TRUE(e->TryAcquireOrRenewForTest());
  auto lease = TheLease(leases);
  ASSERT_NE(lease, nullptr);
  EXPECT_EQ(lease->spec.holder_identity, "a");
  EXPECT_EQ(lease->spec.lease_duration_seconds, 15);
  EXPECT_EQ(lease->spec.lease_transitions, 0);
  EXPECT_EQ(lease->spec.acquire_time->unix_micros, Micros(clock.WallNow()));
  EXPECT_EQ(lease->spec.renew_time, lease->spec.acquire_time);
  EXPECT_TRUE(e->IsLeader());
}

TEST(LeaderElectorTest, RenewKeepsAcquireTimeAndTransitions) {
  FakeResourceClient<Lease> leases;
  FakeClock clock;
  Candidate a("a", leases, clock);
  auto e = a.Make();
  ASSERT_TRUE(e->TryAcquireOrRenewForTest());
  auto first = TheLease(leases);
  leases.ClearActions();
  clock.Advance(2s);
  ASSERT_TRUE(e->TryAcquireOrRenewForTest());
  auto renewed = TheLease(leases);
  EXPECT_EQ(renewed->spec.acquire_time, first->spec.acquire_time);
  EXPECT_EQ(renewed->spec.lease_transitions, 0);
  EXPECT_EQ(renewed->spec.renew_time->unix_micros, Micros(clock.WallNow()));
  // The fast path: no GET, one conditional PUT.
  auto actions = leases.Actions();
  ASSERT_EQ(actions.size(), 1u);
  EXPECT_EQ(actions[0].verb, "update");
}

TEST(LeaderElectorTest, ExpiryIsJudgedOnTheLocalClockNotTheRecord) {
  FakeResourceClient<Lease> leases;
  FakeClock clock;
  // B's record claims it renewed an hour ago (clock skew, or a stale lease).
  Lease held;
  held.metadata.namespace_ = "kube-system";
  held.metadata.name = "svcplane-controller-manager";
  held.spec.holder_identity = "b";
  held.spec.lease_duration_seconds = 15;
  held.spec.lease_transitions = 4;
  auto hour_ago = api::meta::MicroTime::FromUnixMicros(Micros(clock.WallNow() - 1h));
  held.spec.acquire_time = held.spec.renew_time = hour_ago;
  leases.Put(held);

  Candidate a("a", leases, clock);
  auto e = a.Make();
  EXPECT_FALSE(e->TryAcquireOrRenewForTest());  // first observation starts A's own timer
  EXPECT_EQ(e->GetLeader(), "b");
  clock.Advance(14s);
  EXPECT_FALSE(e->TryAcquireOrRenewForTest());
  clock.Advance(2s);
  ASSERT_TRUE(e->TryAcquireOrRenewForTest());
  auto lease = TheLease(leases);
  EXPECT_EQ(lease->spec.holder_identity, "a");
  EXPECT_EQ(lease->spec.lease_transitions, 5);
  EXPECT_EQ(lease->spec.acquire_time->unix_micros, Micros(clock.WallNow()));
  EXPECT_EQ(lease->spec.renew_time, lease->spec.acquire_time);
}

TEST(LeaderElectorTest, ARenewingHolderKeepsTheLease) {
  FakeResourceClient<Lease> leases;
  FakeClock clock;
  Candidate a("a", leases, clock), b("b", leases, clock);
  auto ea = a.Make();
  auto eb = b.Make();
  ASSERT_TRUE(ea->TryAcquireOrRenewForTest());
  for (int i = 0; i < 20; ++i) {
    EXPECT_FALSE(eb->TryAcquireOrRenewForTest());
    clock.Advance(2s);
    ASSERT_TRUE(ea->TryAcquireOrRenewForTest());
  }
  EXPECT_EQ(TheLease(leases)->spec.holder_identity, "a");
}

TEST(LeaderElectorTest, EmptyHolderIsFreeImmediately) {
  FakeResourceClient<Lease> leases;
  FakeClock clock;
  Lease released;
  released.metadata.namespace_ = "kube-system";
  released.metadata.name = "svcplane-controller-manager";
  released.spec.holder_identity = "";
  released.spec.lease_duration_seconds = 1;
  released.spec.lease_transitions = 2;
  leases.Put(released);
  Candidate a("a", leases, clock);
  ASSERT_TRUE(a.Make()->TryAcquireOrRenewForTest());
  EXPECT_EQ(TheLease(leases)->spec.lease_transitions, 3);
}

TEST(LeaderElectorTest, AChangedRecordRestartsTheExpiryTimer) {
  FakeResourceClient<Lease> leases;
  FakeClock clock;
  Candidate a("a", leases, clock), b("b", leases, clock);
  auto ea = a.Make();
  auto eb = b.Make();
  ASSERT_TRUE(ea->TryAcquireOrRenewForTest());
  EXPECT_FALSE(eb->TryAcquireOrRenewForTest());  // B observes A's record
  clock.Advance(14s);
  ASSERT_TRUE(ea->TryAcquireOrRenewForTest());  // A renews just in time
  clock.Advance(2s);
  EXPECT_FALSE(eb->TryAcquireOrRenewForTest());  // B sees a new record: 15 s from now
  clock.Advance(14s);
  EXPECT_FALSE(eb->TryAcquireOrRenewForTest());
  clock.Advance(1s);
  EXPECT_TRUE(eb->TryAcquireOrRenewForTest());
}

TEST(LeaderElectorTest, ConflictingWriterLoses) {
  FakeResourceClient<Lease> leases;
  FakeClock clock;
  Candidate a("a", leases, clock), b("b", leases, clock);
  auto ea = a.Make();
  auto eb = b.Make();
  ASSERT_TRUE(ea->TryAcquireOrRenewForTest());
  EXPECT_FALSE(eb->TryAcquireOrRenewForTest());
  clock.Advance(16s);
  // Someone writes between B's read and B's write: the store rejects B's stale version.
  leases.SetReactor([&](const Action& act) -> std::optional<Status> {
    if (act.verb == "update") return ConflictError("the object has been modified");
    return std::nullopt;
  });
  EXPECT_FALSE(eb->TryAcquireOrRenewForTest());
  EXPECT_FALSE(eb->IsLeader());
  EXPECT_EQ(TheLease(leases)->spec.holder_identity, "a");
}

TEST(LeaderElectorTest, CheckFailsWhenTheLeaderStopsRenewing) {
  FakeResourceClient<Lease> leases;
  FakeClock clock;
  Candidate a("a", leases, clock);
  auto e = a.Make();
  ASSERT_TRUE(e->TryAcquireOrRenewForTest());
  EXPECT_TRUE(e->Check(20s).ok());
  clock.Advance(36s);
  EXPECT_FALSE(e->Check(20s).ok());
  Candidate b("b", leases, clock);
  EXPECT_TRUE(b.Make()->Check(20s).ok());  // followers are always healthy
}

TEST(LeaderElectorRunTest, LeadsThenReleasesOnStopAndAStandbyTakesOver) {
  FakeResourceClient<Lease> leases;
  FakeResourceClient<api::core::v1::Event> events;
  record::ClientEventSink sink(events);
  SteppingClock clock;
  record::EventBroadcaster broadcaster(sink, {.clock = &clock});
  auto recorder = broadcaster.NewRecorder({.component = "svcplane-controller-manager"});
  Candidate a("a", leases, clock, recorder.get(), /*release=*/true);
  auto ea = a.Make();
  std::stop_source stop_a;
  std::thread run_a([&] { ea->Run(stop_a.get_token()); });

  ASSERT_TRUE(clock.AdvanceUntil(1, [&] { return a.started.load(); }));
  EXPECT_EQ(
      a.metrics
          .GetGauge("leader_election_master_status", "", {{"name", "svcplane-controller-manager"}})
          .Value(),
      1);
  // Renewals keep it.
  clock.BlockUntilWaiters(1);
  clock.Advance(20s);
  ASSERT_TRUE(clock.AdvanceUntil(1, [&] {
    auto l = TheLease(leases);
    return l->spec.renew_time->unix_micros >= Micros(clock.WallNow()) - 2'000'000;
  }));
  EXPECT_EQ(TheLease(leases)->spec.holder_identity, "a");

  stop_a.request_stop();
  run_a.join();
  EXPECT_TRUE(a.stopped);
  EXPECT_TRUE(a.leading_stopped);
  auto lease = TheLease(leases);
  EXPECT_EQ(lease->spec.holder_identity, "");
  EXPECT_EQ(lease->spec.lease_duration_seconds, 1);
  EXPECT_EQ(lease->spec.lease_transitions, 0);

  Candidate b("b", leases, clock);
  ASSERT_TRUE(b.Make()->TryAcquireOrRenewForTest());
  EXPECT_EQ(TheLease(leases)->spec.holder_identity, "b");
  EXPECT_EQ(TheLease(leases)->spec.lease_transitions, 1);
  EXPECT_EQ(a.NewLeaders(), (std::vector<std::string>{"a"}));  // release reports nothing

  broadcaster.WaitIdleForTest();
  std::vector<std::string> messages;
  for (const auto& e : events.All()) {
    EXPECT_EQ(e->reason, "LeaderElection");
    EXPECT_EQ(e->involved_object.kind, "Lease");
    EXPECT_EQ(e->involved_object.name, "svcplane-controller-manager");
    messages.push_back(e->message);
  }
  std::sort(messages.begin(), messages.end());
  EXPECT_EQ(messages, (std::vector<std::string>{"a became leader", "a stopped leading"}));
}

TEST(LeaderElectorRunTest, LosesLeadershipWhenRenewFailsPastTheDeadline) {
  FakeResourceClient<Lease> leases;
  SteppingClock clock;
  Candidate a("a", leases, clock);
  auto ea = a.Make();
  std::stop_source stop;
  std::thread run([&] { ea->Run(stop.get_token()); });
  ASSERT_TRUE(clock.AdvanceUntil(1, [&] { return a.started.load(); }));

  leases.SetReactor([](const Action&) { return UnavailableError("connection refused"); });
  const TimePoint cut = clock.Now();
  ASSERT_TRUE(clock.AdvanceUntil(1, [&] { return a.stopped.load(); }));
  run.join();
  EXPECT_TRUE(a.leading_stopped);
  // Gave up after the 10 s renew deadline (plus at most one retry period before the attempt).
  EXPECT_GE(clock.Now() - cut, 10s);
  EXPECT_LE(clock.Now() - cut, 12s + 1ms);
  EXPECT_EQ(
      a.metrics
          .GetGauge("leader_election_master_status", "", {{"name", "svcplane-controller-manager"}})
          .Value(),
      0);
}

TEST(LeaderElectorRunTest, FollowerTakesOverAfterTheLeaderDies) {
  FakeResourceClient<Lease> leases;
  SteppingClock clock;
  Candidate a("a", leases, clock), b("b", leases, clock);
  auto ea = a.Make();
  ASSERT_TRUE(ea->TryAcquireOrRenewForTest());  // A leads, then dies without releasing
  auto eb = b.Make();
  std::stop_source stop;
  std::thread run([&] { eb->Run(stop.get_token()); });
  const TimePoint died = clock.Now();
  // The elector thread's own write, not the leader callback's thread: once B leads, its renew
  // loop keeps the clock moving while that thread may not have been scheduled yet.
  ASSERT_TRUE(clock.AdvanceUntil(1, [&] { return TheLease(leases)->spec.holder_identity == "b"; }));
  // B waits out the full lease from its first observation, then its next retry (<= 4.4 s).
  EXPECT_GE(clock.Now() - died, 15s);
  EXPECT_LE(clock.Now() - died, 15s + 4400ms);
  EXPECT_EQ(TheLease(leases)->spec.lease_transitions, 1);
  while (!b.started) std::this_thread::sleep_for(1ms);
  EXPECT_EQ(b.NewLeaders(), (std::vector<std::string>{"a", "b"}));
  stop.request_stop();
  run.join();
  EXPECT_TRUE(b.stopped);
}

TEST(LeaderElectorRunTest, StopWhileAcquiringCallsOnStoppedLeading) {
  FakeResourceClient<Lease> leases;
  SteppingClock clock;
  Candidate a("a", leases, clock), b("b", leases, clock);
  ASSERT_TRUE(a.Make()->TryAcquireOrRenewForTest());
  auto eb = b.Make();
  std::stop_source stop;
  std::thread run([&] { eb->Run(stop.get_token()); });
  clock.BlockUntilWaiters(1);
  stop.request_stop();
  run.join();
  EXPECT_FALSE(b.started);
  EXPECT_TRUE(b.stopped);
}

}  // namespace
}  // namespace svcplane::client::leaderelection
