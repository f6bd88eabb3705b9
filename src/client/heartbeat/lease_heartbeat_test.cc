#include "client/heartbeat/lease_heartbeat.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "client/testing/fake_clientset.h"

namespace svcplane::client::heartbeat {
namespace {

using api::coordination::v1::Lease;
using client::testing::Action;
using client::testing::FakeResourceClient;
using namespace std::chrono_literals;

std::vector<std::string> Verbs(const std::vector<Action>& actions) {
  std::vector<std::string> out;
  for (const auto& a : actions) out.push_back(a.verb);
  return out;
}

int64_t Micros(WallTime t) {
  return std::chrono::duration_cast<std::chrono::microseconds>(t.time_since_epoch()).count();
}

template <typename Pred>
bool AdvanceUntil(FakeClock& clock, Duration step, Pred done) {
  for (int i = 0; i < 20000; ++i) {
    if (done()) return true;
    if (clock.Waiters() > 0) clock.Advance(step);
    std::this_thread::sleep_for(200us);
  }
  return done();
}

struct Fixture {
  explicit Fixture(HeartbeatOptions o = {}) {
    o.holder_identity = "node-1";
    o.clock = &clock;
    o.on_repeated_heartbeat_failure = [this] { ++failures; };
    options = o;
  }
  LeaseHeartbeat Make() { return LeaseHeartbeat(leases, options); }

  FakeClock clock;
  FakeResourceClient<Lease> leases;
  HeartbeatOptions options;
  std::atomic<int> failures{0};
};

TEST(LeaseHeartbeatTest, CreatesTheLeaseThenRenewsWithoutGet) {
  Fixture f;
  auto hb = f.Make();
  hb.Sync();
  auto lease = f.leases.Peek("kube-node-lease", "node-1");
  ASSERT_NE(lease, nullptr);
  EXPECT_EQ(lease->spec.holder_identity, "node-1");
  EXPECT_EQ(lease->spec.lease_duration_seconds, 40);
  EXPECT_EQ(lease->spec.renew_time->unix_micros, Micros(f.clock.WallNow()));
  EXPECT_EQ(Verbs(f.leases.Actions()), (std::vector<std::string>{"get", "create"}));

  f.leases.ClearActions();
  f.clock.Advance(10s);
  hb.Sync();
  EXPECT_EQ(Verbs(f.leases.Actions()), (std::vector<std::string>{"update"}));
  lease = f.leases.Peek("kube-node-lease", "node-1");
  EXPECT_EQ(lease->spec.renew_time->unix_micros, Micros(f.clock.WallNow()));
  EXPECT_EQ(hb.latest_lease(), lease);
}

TEST(LeaseHeartbeatTest, ExistingLeaseIsUpdatedNotCreated) {
  Fixture f;
  Lease existing;
  existing.metadata.namespace_ = "kube-node-lease";
  existing.metadata.name = "node-1";
  existing.spec.holder_identity = "someone-else";
  existing.spec.lease_duration_seconds = 7;
  f.leases.Put(existing);
  auto hb = f.Make();
  hb.Sync();
  EXPECT_EQ(Verbs(f.leases.Actions()), (std::vector<std::string>{"get", "update"}));
  // Holder and duration are not re-asserted on update, only renewTime.
  auto lease = f.leases.Peek("kube-node-lease", "node-1");
  EXPECT_EQ(lease->spec.holder_identity, "someone-else");
  EXPECT_EQ(lease->spec.lease_duration_seconds, 7);
  EXPECT_TRUE(lease->spec.renew_time.has_value());
}

TEST(LeaseHeartbeatTest, TwoFailuresThenSuccessCallsBackOnce) {
  Fixture f;
  auto hb = f.Make();
  hb.Sync();
  int fail = 2;
  f.leases.SetReactor([&](const Action& a) -> std::optional<Status> {
    if (a.verb == "update" && fail-- > 0) return InternalError("etcd hiccup");
    return std::nullopt;
  });
  f.leases.ClearActions();
  hb.Sync();
  EXPECT_EQ(f.failures, 1);
  EXPECT_EQ(Verbs(f.leases.Actions()), (std::vector<std::string>{"update", "update", "update"}));
}

TEST(LeaseHeartbeatTest, PersistentFailureCallsBackEightTimesPerTick) {
  Fixture f;
  auto hb = f.Make();
  hb.Sync();
  f.leases.SetReactor([&](const Action& a) -> std::optional<Status> {
    if (a.verb == "update") return InternalError("etcd down");
    return std::nullopt;
  });
  f.leases.ClearActions();
  hb.Sync();
  // 5 updates from the remembered lease, a GET, 5 more from the fetched one.
  EXPECT_EQ(f.failures, 8);
  auto verbs = Verbs(f.leases.Actions());
  ASSERT_EQ(verbs.size(), 11u);
  EXPECT_EQ(verbs[5], "get");
  EXPECT_EQ(std::count(verbs.begin(), verbs.end(), "update"), 10);
}

TEST(LeaseHeartbeatTest, ConflictReReadsAndRetriesWithoutCallback) {
  Fixture f;
  auto hb = f.Make();
  hb.Sync();
  // Someone else bumps the lease: our remembered version is stale.
  Lease other = *f.leases.Peek("kube-node-lease", "node-1");
  other.metadata.labels.emplace("touched", "yes");
  f.leases.Put(other);
  f.leases.ClearActions();
  f.clock.Advance(10s);
  hb.Sync();
  EXPECT_EQ(Verbs(f.leases.Actions()), (std::vector<std::string>{"update", "get", "update"}));
  EXPECT_EQ(f.failures, 0);
  auto lease = f.leases.Peek("kube-node-lease", "node-1");
  EXPECT_EQ(lease->metadata.labels.at("touched"), "yes");  // the re-read version was the base
  EXPECT_EQ(lease->spec.renew_time->unix_micros, Micros(f.clock.WallNow()));
}

TEST(LeaseHeartbeatTest, PostProcessFailureSkipsCreate) {
  HeartbeatOptions o;
  o.new_lease_post_process = [](Lease&) { return NotFoundError("node not there yet"); };
  Fixture f(o);
  auto hb = f.Make();
  hb.Sync();
  EXPECT_EQ(Verbs(f.leases.Actions()), (std::vector<std::string>{"get"}));
  EXPECT_EQ(hb.latest_lease(), nullptr);
}

// A FakeClock that records how long each wait was asked to last.
class RecordingClock final : public Clock {
 public:
  TimePoint Now() const override { return fake.Now(); }
  WallTime WallNow() const override { return fake.WallNow(); }
  void Sleep(Duration d) const override {
    Record(d);
    fake.Sleep(d);
  }
  bool WaitUntil(std::unique_lock<std::mutex>& lock, std::condition_variable& cv,
                 TimePoint deadline, const std::function<bool()>& done) const override {
    Record(deadline - fake.Now());
    return fake.WaitUntil(lock, cv, deadline, done);
  }
  std::vector<Duration> waits() const {
    std::lock_guard<std::mutex> l(mu);
    return waits_;
  }

  FakeClock fake;

 private:
  void Record(Duration d) const {
    std::lock_guard<std::mutex> l(mu);
    waits_.push_back(d);
  }
  mutable std::mutex mu;
  mutable std::vector<Duration> waits_;
};

TEST(LeaseHeartbeatTest, EnsureBacksOffDoublingFrom200msCappedAt7s) {
  RecordingClock clock;
  FakeResourceClient<Lease> leases;
  int fail = 10;
  leases.SetReactor([&](const Action& a) -> std::optional<Status> {
    if (a.verb == "get" && fail-- > 0) return UnavailableError("connection refused");
    return std::nullopt;
  });
  LeaseHeartbeat hb(leases, {.holder_identity = "node-1", .clock = &clock});
  std::atomic<bool> done{false};
  std::thread t([&] {
    hb.Sync();
    done = true;
  });
  ASSERT_TRUE(AdvanceUntil(clock.fake, 7s, [&] { return done.load(); }));
  t.join();
  std::vector<Duration> want = {200ms, 400ms, 800ms, 1600ms, 3200ms, 6400ms, 7s, 7s, 7s, 7s};
  EXPECT_EQ(clock.waits(), want);
  EXPECT_NE(leases.Peek("kube-node-lease", "node-1"), nullptr);
}

TEST(LeaseHeartbeatTest, RunRenewsEveryIntervalWithJitter) {
  RecordingClock clock;
  FakeResourceClient<Lease> leases;
  LeaseHeartbeat hb(leases,
                    {.holder_identity = "node-1", .clock = &clock, .random01 = [] { return 0.5; }});
  std::stop_source stop;
  std::thread t([&] { hb.Run(stop.get_token()); });
  ASSERT_TRUE(AdvanceUntil(clock.fake, 1s, [&] { return clock.waits().size() >= 4; }));
  stop.request_stop();
  t.join();
  // The first tick ran at once; each wait is 10 s * (1 + 0.04 * r), here r = 0.5.
  for (Duration d : clock.waits()) EXPECT_EQ(d, 10200ms);
  auto lease = leases.Peek("kube-node-lease", "node-1");
  ASSERT_NE(lease, nullptr);
}

TEST(LeaseHeartbeatTest, NodeOwnerReferenceOnceTheNodeExists) {
  FakeResourceClient<api::core::v1::Node> nodes;
  HeartbeatOptions o;
  Fixture f(o);
  f.options.new_lease_post_process = SetNodeOwner(nodes, "node-1");
  auto hb = f.Make();
  hb.Sync();  // no Node yet: no lease
  EXPECT_EQ(f.leases.Peek("kube-node-lease", "node-1"), nullptr);

  api::core::v1::Node node;
  node.metadata.name = "node-1";
  node.metadata.uid = "node-uid";
  nodes.Put(node);
  hb.Sync();
  auto lease = f.leases.Peek("kube-node-lease", "node-1");
  ASSERT_NE(lease, nullptr);
  ASSERT_EQ(lease->metadata.owner_references.size(), 1u);
  const auto& ref = lease->metadata.owner_references[0];
  EXPECT_EQ(ref.api_version, "v1");
  EXPECT_EQ(ref.kind, "Node");
  EXPECT_EQ(ref.name, "node-1");
  EXPECT_EQ(ref.uid, "node-uid");
}

TEST(LeaseHeartbeatTest, StopInterruptsTheBackoff) {
  Fixture f;
  f.leases.SetReactor([](const Action&) { return UnavailableError("down"); });
  auto hb = f.Make();
  std::stop_source stop;
  std::thread t([&] { hb.Run(stop.get_token()); });
  f.clock.BlockUntilWaiters(1);
  stop.request_stop();
  t.join();
  SUCCEED();
}

}  // namespace
}  // namespace svcplane::client::heartbeat
