#include "sim/heartbeats.h"

#include <gtest/gtest.h>

#include "client/testing/fake_clientset.h"
#include "sim/node_factory.h"

namespace svcplane::sim {
namespace {

using api::coordination::v1::Lease;
using client::testing::FakeResourceClient;
using std::chrono::seconds;

SimOptions Opts() {
  SimOptions opts;
  opts.heartbeat_interval = std::chrono::milliseconds(10000);
  opts.heartbeat_jitter = 0.0;
  opts.heartbeat_workers = 1;
  return opts;
}

int64_t RenewMicros(FakeResourceClient<Lease>& leases, const std::string& node) {
  auto l = leases.Peek(kNodeLeaseNamespace, node);
  return l ? l->spec.renew_time->unix_micros : -1;
}

TEST(NodeHeartbeatsTest, CreatesThenRenewsWithOneUpdateEach) {
  FakeClock clock;
  FakeResourceClient<Lease> leases;
  NodeHeartbeats hb(leases, nullptr, Opts(), clock, 1);
  hb.Add("n1", "zone-a");
  ASSERT_TRUE(hb.RenewForTest("n1").ok());
  auto created = leases.Peek(kNodeLeaseNamespace, "n1");
  ASSERT_NE(created, nullptr);
  EXPECT_EQ(created->spec.holder_identity, "n1");
  clock.Advance(seconds(10));
  leases.ClearActions();
  ASSERT_TRUE(hb.RenewForTest("n1").ok());
  ASSERT_EQ(leases.Actions().size(), 1u);  // the cached Lease: no Get before the Update
  EXPECT_EQ(leases.Actions()[0].verb, "update");
  EXPECT_EQ(FromMicroTime(*leases.Peek(kNodeLeaseNamespace, "n1")->spec.renew_time),
            clock.WallNow());
}

// Issue 20: a kubelet creates its Lease right after registering; the simulator waited for the
// first renewal, up to a whole interval later. The clock never moves here: no timer can fire.
TEST(NodeHeartbeatsTest, LeaseIsCreatedAsTheNodeIsAdded) {
  FakeClock clock;
  FakeResourceClient<Lease> leases;
  NodeHeartbeats hb(leases, nullptr, Opts(), clock, 1);
  hb.Start();
  hb.Add("n1", "zone-a");
  for (int i = 0; i < 1000 && leases.Peek(kNodeLeaseNamespace, "n1") == nullptr; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_NE(leases.Peek(kNodeLeaseNamespace, "n1"), nullptr);
  EXPECT_EQ(hb.Stats().renewals, 1);
  hb.Shutdown();
}

TEST(NodeHeartbeatsTest, RecoversFromAConflictingWriteBySomeoneElse) {
  FakeClock clock;
  FakeResourceClient<Lease> leases;
  NodeHeartbeats hb(leases, nullptr, Opts(), clock, 1);
  hb.Add("n1", "zone-a");
  ASSERT_TRUE(hb.RenewForTest("n1").ok());
  Lease other = *leases.Peek(kNodeLeaseNamespace, "n1");
  leases.Put(other);  // new resourceVersion: our cached copy is stale
  clock.Advance(seconds(10));
  ASSERT_TRUE(hb.RenewForTest("n1").ok());
  EXPECT_EQ(FromMicroTime(*leases.Peek(kNodeLeaseNamespace, "n1")->spec.renew_time),
            clock.WallNow());
}

TEST(NodeHeartbeatsTest, LoopRenewsEveryIntervalAndAStoppedZoneGoesSilent) {
  FakeClock clock;
  FakeResourceClient<Lease> leases;
  NodeHeartbeats hb(leases, nullptr, Opts(), clock, 1);
  hb.Add("a1", "zone-a");
  hb.Add("b1", "zone-b");
  hb.Start();
  auto wait_for = [&](const std::function<bool()>& cond) {
    for (int i = 0; i < 2000 && !cond(); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return cond();
  };
  // Time moves in 1 s steps with a pause for the workers, so no renewal races an Advance.
  auto advance = [&](int secs, const std::function<bool()>& until) {
    for (int i = 0; i < secs && !(until && until()); ++i) {
      clock.Advance(seconds(1));
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  };
  // First renewals fall within the first interval.
  advance(100, [&] { return hb.Stats().renewals >= 2; });
  ASSERT_GE(hb.Stats().renewals, 2);
  const int64_t b_first = RenewMicros(leases, "b1");

  hb.StopZone("zone-a");
  EXPECT_FALSE(hb.Alive("a1"));
  EXPECT_TRUE(hb.Alive("b1"));
  const int64_t a_before = RenewMicros(leases, "a1");
  advance(30, nullptr);
  ASSERT_TRUE(wait_for([&] { return RenewMicros(leases, "b1") >= b_first + 20000000; }));
  EXPECT_EQ(RenewMicros(leases, "a1"), a_before);
  EXPECT_GE(hb.Stats().skipped, 2);

  hb.ResumeZone("zone-a");  // renews at once
  ASSERT_TRUE(wait_for([&] { return RenewMicros(leases, "a1") > a_before; }));
  hb.Shutdown();
}

}  // namespace
}  // namespace svcplane::sim
