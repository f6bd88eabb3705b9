// etcd stopped, killed and restarted under a live EtcdStore. These cases bound wall-clock
// time, so ctest runs them alone (SERIAL in CMakeLists.txt).

#include <gtest/gtest.h>

#include <thread>

#include "storage/etcd/etcd_store.h"
#include "storage/etcd/testing/etcd_process.h"
#include "storage/testing/store_conformance.h"

namespace svcplane::storage::etcd {
namespace {

using std::chrono::milliseconds;
using std::chrono::steady_clock;
using testing::EtcdProcess;

constexpr milliseconds kDeadline{1000};
// Slack over a deadline for scheduling on a busy 2-core machine.
constexpr milliseconds kSlack{1500};

bool UnknownOrUnreachable(const Status& s) {
  return s.code() == Code::kTimeout || s.code() == Code::kUnavailable;
}

class EtcdFaultsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto started = EtcdProcess::Start();
    ASSERT_TRUE(started.ok()) << started.status().ToString();
    etcd_ = std::move(*started);
    EtcdStoreOptions o;
    o.client.endpoints = etcd_->endpoint();
    o.client.read_timeout = kDeadline;
    o.client.write_timeout = kDeadline;
    o.watch_reconnect_timeout = std::chrono::seconds(20);
    auto s = EtcdStore::Open(std::move(o));
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    store_ = std::move(*s);
  }
  void TearDown() override {
    if (etcd_) etcd_->Resume();  // a failed case must not leave it stopped for the destructor
  }

  // Runs `op` and checks it failed as "unknown or unreachable" within the deadline.
  template <typename Op>
  void ExpectFailsInTime(const char* what, Op op) {
    const auto start = steady_clock::now();
    Status s = op();
    const auto took = steady_clock::now() - start;
    EXPECT_TRUE(UnknownOrUnreachable(s)) << what << ": " << s.ToString();
    EXPECT_LT(took, kDeadline + kSlack) << what << " took too long";
  }

  // Retries a Get until etcd answers again, for up to `limit`.
  bool RecoversWithin(milliseconds limit, const std::string& key) {
    const auto until = steady_clock::now() + limit;
    while (steady_clock::now() < until) {
      if (store_->Get(key).ok()) return true;
      std::this_thread::sleep_for(milliseconds(50));
    }
    return false;
  }

  std::unique_ptr<EtcdProcess> etcd_;
  std::unique_ptr<EtcdStore> store_;
};

TEST_F(EtcdFaultsTest, StoppedEtcdFailsCallsAtTheDeadlineAndWorksAfterResume) {
  auto a = store_->Create("/registry/f/a", MakeValue("1"));
  ASSERT_TRUE(a.ok());
  etcd_->Pause();
  ExpectFailsInTime("get", [&] { return store_->Get("/registry/f/a").status(); });
  ExpectFailsInTime("list", [&] { return store_->List({.prefix = "/registry/f/"}).status(); });
  ExpectFailsInTime("create",
                    [&] { return store_->Create("/registry/f/b", MakeValue("1")).status(); });
  ExpectFailsInTime("watch", [&] { return store_->Watch("/registry/f/", 0, {}).status(); });
  etcd_->Resume();
  ASSERT_TRUE(RecoversWithin(std::chrono::seconds(5), "/registry/f/a"));
  // The create that timed out may or may not have been applied; either is legal.
  auto b = store_->Get("/registry/f/b");
  EXPECT_TRUE(b.ok() || b.status().code() == Code::kNotFound) << b.status().ToString();
}

TEST_F(EtcdFaultsTest, KilledEtcdFailsCallsAndRestartedEtcdServesTheSameData) {
  auto a = store_->Create("/registry/f/a", MakeValue("1"));
  ASSERT_TRUE(a.ok());
  etcd_->Kill();
  ExpectFailsInTime("get", [&] { return store_->Get("/registry/f/a").status(); });
  ExpectFailsInTime("update", [&] {
    return store_->Update("/registry/f/a", MakeValue("2"), a->mod_revision).status();
  });
  ExpectFailsInTime("compact", [&] { return store_->Compact(a->mod_revision); });
  ASSERT_TRUE(etcd_->Restart().ok()) << etcd_->LogTail();
  ASSERT_TRUE(RecoversWithin(std::chrono::seconds(5), "/registry/f/a"));
  auto got = store_->Get("/registry/f/a");
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->mod_revision, a->mod_revision);
  EXPECT_TRUE(store_->Update("/registry/f/a", MakeValue("2"), a->mod_revision).ok());
}

// A watch whose stream breaks re-creates itself from its last revision: no loss, no repeat.
TEST_F(EtcdFaultsTest, WatchResumesAcrossAnEtcdRestartWithoutLoss) {
  const Revision start = store_->CurrentRevision();
  auto w = store_->Watch("/registry/w/", start, {.queue_capacity = 10'000});
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  auto write = [&](int from, int to) {
    for (int i = from; i < to; ++i) {
      ASSERT_TRUE(store_->Create("/registry/w/" + std::to_string(i), MakeValue("v")).ok());
    }
  };
  write(0, 50);
  auto first = storage::testing::Collect(**w, 50);
  ASSERT_EQ(first.size(), 50u);
  etcd_->Kill();
  ASSERT_TRUE(etcd_->Restart().ok()) << etcd_->LogTail();
  ASSERT_TRUE(RecoversWithin(std::chrono::seconds(5), "/registry/w/0"));
  write(50, 100);
  auto second = storage::testing::Collect(**w, 50);
  ASSERT_EQ(second.size(), 50u);
  Revision rev = start;
  for (const auto& e : first) EXPECT_EQ(e->revision(), ++rev);
  for (const auto& e : second) EXPECT_EQ(e->revision(), ++rev);
  EXPECT_TRUE(storage::testing::StaysQuiet(**w, milliseconds(200)));
}

TEST_F(EtcdFaultsTest, WatchEndsUnavailableWhenEtcdStaysDown) {
  EtcdStoreOptions o;
  o.client.endpoints = etcd_->endpoint();
  o.watch_reconnect_timeout = milliseconds(500);
  auto store = EtcdStore::Open(std::move(o));
  ASSERT_TRUE(store.ok());
  auto w = (*store)->Watch("/registry/w/", (*store)->CurrentRevision(), {});
  ASSERT_TRUE(w.ok());
  etcd_->Kill();
  auto e = (*w)->WaitNext(steady_clock::now() + std::chrono::seconds(5));
  ASSERT_FALSE(e.ok()) << "the watch did not end";
  EXPECT_EQ(e.status().code(), Code::kUnavailable) << e.status().ToString();
}

TEST_F(EtcdFaultsTest, StoreOpensWithoutEtcdAndWorksOnceItIsUp) {
  etcd_->Kill();
  EtcdStoreOptions o;
  o.client.endpoints = etcd_->endpoint();
  o.client.read_timeout = kDeadline;
  const auto start = steady_clock::now();
  auto store = EtcdStore::Open(std::move(o));
  ASSERT_TRUE(store.ok());
  EXPECT_LT(steady_clock::now() - start, milliseconds(500)) << "Open must not wait for etcd";
  EXPECT_TRUE(UnknownOrUnreachable((*store)->Get("/registry/x").status()));
  ASSERT_TRUE(etcd_->Restart().ok());
  const auto until = steady_clock::now() + std::chrono::seconds(5);
  Status last;
  while (steady_clock::now() < until) {
    last = (*store)->Get("/registry/x").status();
    if (last.code() == Code::kNotFound) break;
  }
  EXPECT_EQ(last.code(), Code::kNotFound) << last.ToString();
}

}  // namespace
}  // namespace svcplane::storage::etcd
