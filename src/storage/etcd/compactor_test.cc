#include "storage/etcd/compactor.h"

#include <gtest/gtest.h>

#include "storage/etcd/internal/etcd_client.h"
#include "storage/etcd/testing/etcd_process.h"

namespace svcplane::storage::etcd {
namespace {

using testing::EtcdProcess;

class CompactorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto started = EtcdProcess::Start();
    ASSERT_TRUE(started.ok()) << started.status().ToString();
    etcd_ = std::move(*started);
    for (auto* store : {&store_a_, &store_b_}) {
      EtcdStoreOptions o;
      o.client.endpoints = etcd_->endpoint();
      auto s = EtcdStore::Open(std::move(o));
      ASSERT_TRUE(s.ok()) << s.status().ToString();
      *store = std::move(*s);
    }
  }

  // kCompactRevKey as etcd holds it: {value, version}.
  std::pair<std::string, int64_t> ClaimKey() {
    internal::pb::RangeRequest r;
    r.set_key(std::string(kCompactRevKey));
    auto response = store_a_->client().Range(r, store_a_->client().ReadDeadline());
    EXPECT_TRUE(response.ok());
    if (!response.ok() || response->kvs_size() == 0) return {"", 0};
    return {response->kvs(0).value(), response->kvs(0).version()};
  }

  void Write(int n) {
    for (int i = 0; i < n; ++i) {
      ASSERT_TRUE(store_a_->Create("/registry/c/" + std::to_string(next_++), MakeValue("v")).ok());
    }
  }

  std::unique_ptr<EtcdProcess> etcd_;
  std::unique_ptr<EtcdStore> store_a_;
  std::unique_ptr<EtcdStore> store_b_;
  int next_ = 0;
};

// Two servers on one etcd: each round exactly one claims the clock, and the claimer compacts
// to the revision recorded the round before (spec §3.9, scenarios 16-17).
TEST_F(CompactorTest, TwoServersCompactOncePerRoundToThePreviousRoundsRevision) {
  Compactor a(*store_a_);
  Compactor b(*store_b_);
  Write(3);

  // Round 1: a claims and only records (no compaction on bootstrap); b adopts a's clock.
  auto a1 = a.RunOnce();
  ASSERT_TRUE(a1.ok()) << a1.status().ToString();
  EXPECT_TRUE(a1->claimed);
  EXPECT_EQ(a1->compacted, 0);
  auto b1 = b.RunOnce();
  ASSERT_TRUE(b1.ok());
  EXPECT_FALSE(b1->claimed);
  EXPECT_EQ(b1->clock, 1);
  EXPECT_EQ(ClaimKey(), std::make_pair(std::string("0"), int64_t{1}));
  EXPECT_EQ(store_a_->CompactedRevision(), 0);

  // Round 2: b comes first and wins with the clock it adopted; it compacts to what it saw.
  Write(3);
  auto b2 = b.RunOnce();
  ASSERT_TRUE(b2.ok());
  EXPECT_TRUE(b2->claimed);
  EXPECT_EQ(b2->compacted, b1->recorded);
  auto a2 = a.RunOnce();
  ASSERT_TRUE(a2.ok());
  EXPECT_FALSE(a2->claimed);
  EXPECT_EQ(a2->clock, 2);
  EXPECT_EQ(ClaimKey(), std::make_pair(std::to_string(b1->recorded), int64_t{2}));
  EXPECT_EQ(store_a_->CompactedRevision(), b1->recorded);

  // Round 3: a wins again and compacts to the revision it recorded when it lost round 2.
  Write(3);
  auto a3 = a.RunOnce();
  ASSERT_TRUE(a3.ok());
  EXPECT_TRUE(a3->claimed);
  EXPECT_EQ(a3->compacted, a2->recorded);
  auto b3 = b.RunOnce();
  ASSERT_TRUE(b3.ok());
  EXPECT_FALSE(b3->claimed);
  EXPECT_EQ(ClaimKey().second, 3);
  EXPECT_EQ(store_b_->CompactedRevision(), a2->recorded);
  // History between the compaction point and now survives.
  EXPECT_TRUE(store_a_->Watch("/registry/c/", a2->recorded, {}).ok());
  EXPECT_EQ(store_a_->Watch("/registry/c/", a2->recorded - 1, {}).status().code(), Code::kGone);
}

// Racing rounds: whatever the interleaving, one claim per clock value.
TEST_F(CompactorTest, ConcurrentRoundsClaimOnce) {
  Compactor a(*store_a_);
  Compactor b(*store_b_);
  for (int round = 1; round <= 5; ++round) {
    Write(2);
    Result<Compactor::Round> ra = Status(Code::kInternal, "not run");
    Result<Compactor::Round> rb = Status(Code::kInternal, "not run");
    std::thread ta([&] { ra = a.RunOnce(); });
    std::thread tb([&] { rb = b.RunOnce(); });
    ta.join();
    tb.join();
    ASSERT_TRUE(ra.ok() && rb.ok());
    EXPECT_NE(ra->claimed, rb->claimed) << "round " << round;
    EXPECT_EQ(ClaimKey().second, round);
  }
}

}  // namespace
}  // namespace svcplane::storage::etcd
