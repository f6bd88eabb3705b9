#include "storage/rocks/rocks_store.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <functional>
#include <mutex>
#include <thread>

#include "base/suspend.h"
#include "storage/rocks/internal/prewritten_wal.h"
#include "storage/testing/store_conformance.h"
#include "storage/testing/temp_dir.h"

namespace svcplane::storage::rocks {
namespace {

namespace fs = std::filesystem;
using namespace ::svcplane::storage::testing;  // NOLINT: the typed suite's names

struct RocksFactory {
  static constexpr bool kPersistent = true;
  std::unique_ptr<Store> Open(const ConformanceOptions& options) {
    RocksStoreOptions o;
    o.path = dir.path() + "/db";
    o.history.max_events = options.history_max_events;
    o.history.future_wait = options.future_wait;
    auto s = RocksStore::Open(std::move(o));
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    return s.ok() ? std::move(*s) : nullptr;
  }
  TempDir dir;
};

INSTANTIATE_TYPED_TEST_SUITE_P(Rocks, StoreConformance, RocksFactory);

class RocksStoreTest : public ::testing::Test {
 protected:
  Result<std::unique_ptr<RocksStore>> OpenAt(const std::string& path) {
    RocksStoreOptions o;
    o.path = path;
    return RocksStore::Open(std::move(o));
  }
  std::string db_path() const { return dir_.path() + "/db"; }

  // Creates keys k0..k{n-1} and flushes them into an SST file.
  void WriteAndFlush(int n) {
    auto s = OpenAt(db_path());
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    for (int i = 0; i < n; ++i) {
      ASSERT_TRUE((*s)->Create("/k" + std::to_string(i), MakeValue(std::string(100, 'v'))).ok());
    }
    ASSERT_TRUE((*s)->FlushForTest().ok());
  }

  std::vector<fs::path> Files(std::string_view ext) {
    std::vector<fs::path> out;
    for (auto& e : fs::directory_iterator(db_path())) {
      if (e.path().extension() == ext) out.push_back(e.path());
    }
    return out;
  }

  TempDir dir_;
};

TEST_F(RocksStoreTest, RefusesAWriteOverEtcdsDefaultRequestLimit) {
  auto s = OpenAt(db_path());
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  const std::string key = "/registry/pods/demo/big";
  const size_t limit = RocksStoreOptions().max_request_bytes;
  ASSERT_EQ(limit, 1572864u);
  auto too_big = (*s)->Create(key, MakeValue(std::string(limit - key.size() + 1, 'x')));
  ASSERT_FALSE(too_big.ok());
  EXPECT_EQ(too_big.status().code(), Code::kRequestEntityTooLarge);
  EXPECT_EQ(too_big.status().message(), "etcdserver: request is too large");
  auto fits = (*s)->Create(key, MakeValue(std::string(limit - key.size(), 'x')));
  ASSERT_TRUE(fits.ok()) << fits.status().ToString();
  auto grown = (*s)->Update(key, MakeValue(std::string(limit, 'x')), fits->mod_revision);
  ASSERT_FALSE(grown.ok());
  EXPECT_EQ(grown.status().code(), Code::kRequestEntityTooLarge);
}

TEST_F(RocksStoreTest, SecondOpenOfALockedFolderFails) {
  auto first = OpenAt(db_path());
  ASSERT_TRUE(first.ok());
  auto second = OpenAt(db_path());
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), Code::kUnavailable);
  EXPECT_NE(second.status().message().find("lock"), std::string::npos) << second.status().message();
}

TEST_F(RocksStoreTest, RefusesAFolderThatHoldsSomethingElse) {
  fs::create_directories(db_path());
  std::ofstream(db_path() + "/notes.txt") << "not a store";
  auto s = OpenAt(db_path());
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), Code::kUnavailable);
  EXPECT_NE(s.status().message().find("not empty"), std::string::npos) << s.status().message();
}

TEST_F(RocksStoreTest, MissingCurrentFileFailsStart) {
  WriteAndFlush(10);
  fs::remove(db_path() + "/CURRENT");
  auto s = OpenAt(db_path());
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("CURRENT"), std::string::npos) << s.status().message();
}

TEST_F(RocksStoreTest, MissingTableFileFailsStart) {
  WriteAndFlush(10);
  auto ssts = Files(".sst");
  ASSERT_FALSE(ssts.empty());
  for (auto& f : ssts) fs::remove(f);
  auto s = OpenAt(db_path());
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), Code::kUnavailable);
  std::cerr << "reported: " << s.status().message() << "\n";
}

TEST_F(RocksStoreTest, CorruptedTableFileFailsStart) {
  WriteAndFlush(200);
  auto ssts = Files(".sst");
  ASSERT_FALSE(ssts.empty());
  for (auto& f : ssts) {
    std::fstream file(f, std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(100);
    std::string junk(512, '\x5a');
    file.write(junk.data(), static_cast<std::streamsize>(junk.size()));
  }
  auto s = OpenAt(db_path());
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), Code::kUnavailable);
  std::cerr << "reported: " << s.status().message() << "\n";
}

TEST_F(RocksStoreTest, CorruptedWalBeforeItsTailFailsStart) {
  {
    auto s = OpenAt(db_path());
    ASSERT_TRUE(s.ok());
    for (int i = 0; i < 200; ++i) {
      ASSERT_TRUE((*s)->Create("/w/" + std::to_string(i), MakeValue(std::string(500, 'v'))).ok());
    }
  }
  auto logs = Files(".log");
  ASSERT_FALSE(logs.empty());
  fs::path wal = logs.back();
  for (auto& f : logs) {
    if (fs::file_size(f) > fs::file_size(wal)) wal = f;
  }
  ASSERT_GT(fs::file_size(wal), 50'000u);
  {
    std::fstream file(wal, std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(static_cast<std::streamoff>(fs::file_size(wal) / 3));
    std::string junk(64, '\x5a');
    file.write(junk.data(), static_cast<std::streamsize>(junk.size()));
  }
  // Acknowledged writes after the damaged record exist only in the WAL: opening anyway would
  // silently lose them, so the open must fail.
  auto s = OpenAt(db_path());
  ASSERT_FALSE(s.ok()) << "opened a store whose WAL is damaged in the middle";
  EXPECT_EQ(s.status().code(), Code::kUnavailable);
  std::cerr << "reported: " << s.status().message() << "\n";
}

TEST_F(RocksStoreTest, AcknowledgedWritesSurviveReopenWithoutFlush) {
  Revision last = 0;
  {
    auto s = OpenAt(db_path());
    ASSERT_TRUE(s.ok());
    for (int i = 0; i < 50; ++i) {
      auto kv = (*s)->Create("/a/" + std::to_string(i), MakeValue("v" + std::to_string(i)));
      ASSERT_TRUE(kv.ok());
      last = kv->mod_revision;
    }
  }
  auto s = OpenAt(db_path());
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ((*s)->CurrentRevision(), last);
  auto list = (*s)->List({.prefix = "/a/"});
  ASSERT_TRUE(list.ok());
  EXPECT_EQ(list->items.size(), 50u);
}

// Writers commit their own group when nobody is committing, and the committer thread takes
// over otherwise; with maintenance ticking every millisecond and a history that trims by count,
// the two must still never commit at once: every write gets its own revision, the revisions
// are gapless, and all acknowledged writes are there after a reopen.
TEST_F(RocksStoreTest, WritersAndCommitterNeverCommitAtOnce) {
  constexpr int kThreads = 8, kPerThread = 150;
  std::vector<Revision> revisions;
  {
    RocksStoreOptions o;
    o.path = db_path();
    o.maintenance_interval = std::chrono::milliseconds(1);
    o.history.max_events = 100;
    o.history.min_events = 10;
    auto s = RocksStore::Open(std::move(o));
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    std::vector<std::vector<Revision>> per(kThreads);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        for (int i = 0; i < kPerThread; ++i) {
          auto kv =
              (*s)->Create("/w/" + std::to_string(t) + "-" + std::to_string(i), MakeValue("v"));
          if (kv.ok()) per[static_cast<size_t>(t)].push_back(kv->mod_revision);
          if (i % 50 == 49 && kv.ok()) (*s)->Compact(kv->mod_revision - 1).IgnoreError();
        }
      });
    }
    for (auto& th : threads) th.join();
    for (auto& p : per) revisions.insert(revisions.end(), p.begin(), p.end());
  }
  ASSERT_EQ(revisions.size(), static_cast<size_t>(kThreads * kPerThread));
  std::sort(revisions.begin(), revisions.end());
  for (size_t i = 1; i < revisions.size(); ++i) {
    ASSERT_EQ(revisions[i], revisions[i - 1] + 1) << "revision gap or duplicate at " << i;
  }
  auto s = OpenAt(db_path());
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ((*s)->CurrentRevision(), revisions.back());
  auto list = (*s)->List({.prefix = "/w/"});
  ASSERT_TRUE(list.ok());
  EXPECT_EQ(list->items.size(), revisions.size());
}

TEST_F(RocksStoreTest, CompactionIsPersistedAndHistoryShrinksOnDisk) {
  Revision mid = 0;
  {
    auto s = OpenAt(db_path());
    ASSERT_TRUE(s.ok());
    for (int i = 0; i < 20; ++i) {
      auto kv = (*s)->Create("/c/" + std::to_string(i), MakeValue("v"));
      ASSERT_TRUE(kv.ok());
      if (i == 9) mid = kv->mod_revision;
    }
    ASSERT_TRUE((*s)->Compact(mid).ok());
    // One more write persists the compaction in its batch.
    ASSERT_TRUE((*s)->Create("/c/last", MakeValue("v")).ok());
  }
  auto s = OpenAt(db_path());
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ((*s)->CompactedRevision(), mid);
  EXPECT_EQ((*s)->Watch("/c/", mid - 1, {}).status().code(), Code::kGone);
  auto w = (*s)->Watch("/c/", mid, {});
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(Collect(**w, 11).size(), 11u);
}

// Runs a shell command; false if it failed (e.g. not allowed to mount here).
bool Shell(const std::string& cmd) { return std::system((cmd + " >/dev/null 2>&1").c_str()) == 0; }

class TmpfsTest : public RocksStoreTest {
 protected:
  void SetUp() override {
    mount_ = dir_.path() + "/mnt";
    fs::create_directories(mount_);
    if (!Shell("mount -t tmpfs -o size=6m tmpfs " + mount_)) {
      GTEST_SKIP() << "cannot mount a tmpfs here (needs root)";
    }
    mounted_ = true;
  }
  void TearDown() override {
    if (mounted_) Shell("umount -l " + mount_);
  }
  std::string mount_;
  bool mounted_ = false;
};

TEST_F(TmpfsTest, ReadOnlyFolderFailsStartClearly) {
  {
    auto s = OpenAt(mount_ + "/db");
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    ASSERT_TRUE((*s)->Create("/x", MakeValue("1")).ok());
  }
  ASSERT_TRUE(Shell("mount -o remount,ro " + mount_));
  auto s = OpenAt(mount_ + "/db");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), Code::kUnavailable);
  EXPECT_NE(s.status().message().find("not writable"), std::string::npos) << s.status().message();
}

// A WAL spare (internal/prewritten_wal.h) is only written while the disk has room for four:
// here each would be 1.9 MB on a 6 MB disk, so none may appear, and writes go on as before.
TEST_F(TmpfsTest, NoWalSpareWithoutRoomForFour) {
  RocksStoreOptions o;
  o.path = mount_ + "/db";
  o.memtable_bytes = 1536 << 10;
  auto s = RocksStore::Open(o);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  for (int i = 0; i < 100; ++i) {
    ASSERT_TRUE((*s)->Create("/w/" + std::to_string(i), MakeValue(std::string(1024, 'x'))).ok());
  }
  // The first spare would be started with the first WAL, at the open: time to write it.
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_FALSE(fs::exists(mount_ + "/db/" + internal::kWalSpareName));
}

TEST_F(TmpfsTest, DiskFullFailsWritesAndKeepsAcknowledgedOnes) {
  std::vector<std::string> acked;
  Status failure;
  {
    auto s = OpenAt(mount_ + "/db");
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    for (int i = 0; i < 100000 && failure.ok(); ++i) {
      std::string key = "/full/" + std::to_string(i);
      auto r = (*s)->Create(key, MakeValue(std::string(1024, 'x')));
      if (r.ok()) {
        acked.push_back(key);
      } else {
        failure = r.status();
      }
    }
    ASSERT_FALSE(failure.ok()) << "6 MB tmpfs never filled up";
    EXPECT_EQ(failure.code(), Code::kUnavailable);
    EXPECT_NE(failure.message().find("space"), std::string::npos) << failure.message();
    // The store stays failed rather than accepting writes it may not keep.
    EXPECT_EQ((*s)->Create("/full/again", MakeValue("x")).status().code(), Code::kUnavailable);
  }
  ASSERT_GT(acked.size(), 100u);
  // Make room (as an operator would) and check that every acknowledged write is back.
  ASSERT_TRUE(Shell("mount -o remount,size=64m " + mount_));
  auto s = OpenAt(mount_ + "/db");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  for (const auto& key : acked) {
    auto kv = (*s)->Get(key);
    ASSERT_TRUE(kv.ok()) << key << ": " << kv.status().ToString();
    ASSERT_EQ(kv->value->size(), 1024u);
  }
}

namespace svcplane::storage::rocks {
namespace {

TEST(RocksChurnTest, DiskUsageStaysBoundedUnderChurn) {
  testing::TempDir dir;
  RocksStoreOptions o;
  o.path = dir.path() + "/db";
  o.history.max_events = 500;
  o.memtable_bytes = 1 << 20;
  o.compaction_interval = std::chrono::milliseconds(200);
  auto s = RocksStore::Open(o);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  // 10 keys rewritten 1,000 times each with 1 KB values: ~10 MB of values, ~20 MB with the
  // previous values in history. Only 10 keys and 500 history events need to stay.
  std::vector<Revision> revs(10, 0);
  for (int k = 0; k < 10; ++k) {
    auto kv = (*s)->Create("/churn/" + std::to_string(k), MakeValue(std::string(1024, 'a')));
    ASSERT_TRUE(kv.ok());
    revs[k] = kv->mod_revision;
  }
  const std::string value(1024, 'b');
  std::vector<std::thread> threads;
  for (int k = 0; k < 10; ++k) {
    threads.emplace_back([&, k] {
      for (int i = 0; i < 1000; ++i) {
        auto kv = (*s)->Update("/churn/" + std::to_string(k), MakeValue(value), revs[k]);
        ASSERT_TRUE(kv.ok()) << kv.status().ToString();
        revs[k] = kv->mod_revision;
      }
    });
  }
  for (auto& t : threads) t.join();
  ASSERT_GE((*s)->CompactedRevision(), (*s)->CurrentRevision() - 500);
  // Give the compactor a few intervals.
  uint64_t bytes = 0;
  for (int i = 0; i < 50; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    bytes = (*s)->DiskBytesForTest();
    if (bytes < (8u << 20)) break;
  }
  EXPECT_LT(bytes, 8u << 20) << "store folder keeps growing under churn";
  std::cerr << "disk bytes after churn: " << bytes << "\n";
}

}  // namespace
}  // namespace svcplane::storage::rocks

// Stands in for a request fiber: Suspend() blocks this thread until the Resumer ran.
class RecordingSuspender : public Suspender {
 public:
  std::function<void()> Resumer() override {
    return [this] {
      std::lock_guard lock(mu_);
      resumed_ = true;
      resumer_thread_ = std::this_thread::get_id();
      cv_.notify_all();
    };
  }
  void Suspend() override {
    std::unique_lock lock(mu_);
    suspended_ = true;
    cv_.wait(lock, [&] { return resumed_; });
  }

  std::mutex mu_;
  std::condition_variable cv_;
  bool suspended_ = false;
  bool resumed_ = false;
  std::thread::id resumer_thread_;
};

TEST_F(RocksStoreTest, WriterWithASuspenderSuspendsAndLetsTheCommitterCommit) {
  auto s = OpenAt(db_path());
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  RecordingSuspender suspender;
  Result<KeyValue> kv = InternalError("not run");
  {
    ScopedSuspender current(&suspender);
    kv = (*s)->Create("/fiber", MakeValue("v1"));
  }
  ASSERT_TRUE(kv.ok()) << kv.status().ToString();
  EXPECT_EQ(*kv->value, "v1");
  EXPECT_TRUE(suspender.suspended_);
  EXPECT_TRUE(suspender.resumed_);
  // Without a commit running, a plain writer commits on its own thread; a suspending one must
  // not (its thread serves other connections): the committer thread answered it.
  EXPECT_NE(suspender.resumer_thread_, std::this_thread::get_id());
  auto got = (*s)->Get("/fiber");
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->mod_revision, kv->mod_revision);

  // A failed write resumes the writer too, with the error.
  RecordingSuspender again;
  ScopedSuspender current(&again);
  auto dup = (*s)->Create("/fiber", MakeValue("v2"));
  EXPECT_EQ(dup.status().code(), Code::kAlreadyExists);
  EXPECT_TRUE(again.suspended_);
  EXPECT_TRUE(again.resumed_);
}

TEST_F(RocksStoreTest, WriterWithoutASuspenderDoesNotSuspend) {
  auto s = OpenAt(db_path());
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(CurrentSuspender(), nullptr);
  ASSERT_TRUE((*s)->Create("/plain", MakeValue("v")).ok());
}

}  // namespace
}  // namespace svcplane::storage::rocks
