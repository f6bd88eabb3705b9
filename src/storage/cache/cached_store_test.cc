#include "storage/cache/cached_store.h"

#include <gtest/gtest.h>

#include <atomic>

#include "storage/memory/memory_store.h"
#include "storage/rocks/rocks_store.h"
#include "storage/testing/store_conformance.h"
#include "storage/testing/temp_dir.h"

namespace svcplane::storage::cache {
namespace {

using namespace ::svcplane::storage::testing;  // NOLINT: the typed suite's names

internal::HistoryOptions History(const ConformanceOptions& options) {
  internal::HistoryOptions h;
  h.max_events = options.history_max_events;
  h.future_wait = options.future_wait;
  return h;
}

struct CacheOverRocksFactory {
  static constexpr bool kPersistent = true;
  std::unique_ptr<Store> Open(const ConformanceOptions& options) {
    rocks::RocksStoreOptions o;
    o.path = dir.path() + "/db";
    o.history = History(options);
    auto rocks = rocks::RocksStore::Open(std::move(o));
    EXPECT_TRUE(rocks.ok()) << rocks.status().ToString();
    if (!rocks.ok()) return nullptr;
    auto cache = CachedStore::Open(std::move(*rocks), {.history = History(options)});
    EXPECT_TRUE(cache.ok()) << cache.status().ToString();
    return cache.ok() ? std::move(*cache) : nullptr;
  }
  TempDir dir;
};

struct CacheOverMemoryFactory {
  static constexpr bool kPersistent = false;
  std::unique_ptr<Store> Open(const ConformanceOptions& options) {
    auto upstream = std::make_unique<memory::MemoryStore>(
        memory::MemoryStoreOptions{.history = History(options)});
    auto cache = CachedStore::Open(std::move(upstream), {.history = History(options)});
    EXPECT_TRUE(cache.ok()) << cache.status().ToString();
    return cache.ok() ? std::move(*cache) : nullptr;
  }
};

INSTANTIATE_TYPED_TEST_SUITE_P(CacheOverRocks, StoreConformance, CacheOverRocksFactory);
INSTANTIATE_TYPED_TEST_SUITE_P(CacheOverMemory, StoreConformance, CacheOverMemoryFactory);

// A backend that counts watches and lets a test end the upstream watch it handed out.
class CountingStore final : public Store {
 public:
  Result<KeyValue> Get(std::string_view key) override { return inner_.Get(key); }
  Result<ListResult> List(const ListOptions& o) override {
    ++lists;
    return inner_.List(o);
  }
  Result<KeyValue> Create(std::string_view k, std::shared_ptr<const std::string> v) override {
    return inner_.Create(k, std::move(v));
  }
  Result<KeyValue> Update(std::string_view k, std::shared_ptr<const std::string> v,
                          Revision r) override {
    return inner_.Update(k, std::move(v), r);
  }
  Result<KeyValue> Delete(std::string_view k, Revision r) override { return inner_.Delete(k, r); }
  Result<std::unique_ptr<WatchStream>> Watch(std::string_view p, Revision r,
                                             const WatchOptions& o) override {
    ++watches;
    auto w = static_cast<Store&>(inner_).Watch(p, r, o);
    if (w.ok()) last_watch = w->get();
    return w;
  }
  Status Compact(Revision r) override { return inner_.Compact(r); }
  Revision CurrentRevision() override {
    ++current_revisions;
    return inner_.CurrentRevision();
  }
  Revision CompactedRevision() override { return inner_.CompactedRevision(); }

  std::atomic<int> lists{0}, watches{0}, current_revisions{0};
  WatchStream* last_watch = nullptr;

 private:
  memory::MemoryStore inner_;
};

TEST(CachedStoreTest, ThousandWatchersShareOneUpstreamWatch) {
  auto upstream = std::make_unique<CountingStore>();
  CountingStore* counting = upstream.get();
  auto cache = CachedStore::Open(std::move(upstream));
  ASSERT_TRUE(cache.ok());
  Store& s = **cache;
  std::vector<std::unique_ptr<WatchStream>> watches;
  for (int i = 0; i < 1000; ++i) {
    auto w = s.Watch("/svc/", s.CurrentRevision(), {});
    ASSERT_TRUE(w.ok());
    watches.push_back(std::move(*w));
  }
  auto kv = s.Create("/svc/a", MakeValue("v"));
  ASSERT_TRUE(kv.ok());
  for (auto& w : watches) {
    auto e = Collect(*w, 1);
    ASSERT_EQ(e.size(), 1u);
    EXPECT_EQ(e[0]->revision(), kv->mod_revision);
  }
  EXPECT_EQ(counting->watches.load(), 1);
  const int lists_before = counting->lists.load();
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(s.List({.prefix = "/svc/"}).ok());
  EXPECT_EQ(counting->lists.load(), lists_before) << "lists must be served from memory";
}

// GetCached answers from memory when the cache holds the key (no revision round trip: on etcd a
// quorum read), and asks the backend when it does not: another server may have just created it.
TEST(CachedStoreTest, GetCachedSkipsTheBackendOnlyForKeysItHolds) {
  auto upstream = std::make_unique<CountingStore>();
  CountingStore* counting = upstream.get();
  auto cache = CachedStore::Open(std::move(upstream));
  ASSERT_TRUE(cache.ok());
  Store& s = **cache;
  ASSERT_TRUE(s.Create("/ns/a", MakeValue("1")).ok());
  ASSERT_TRUE(s.Get("/ns/a").ok());  // the cache has applied the create
  const int before = counting->current_revisions.load();
  for (int i = 0; i < 10; ++i) {
    auto kv = s.GetCached("/ns/a");
    ASSERT_TRUE(kv.ok());
    EXPECT_EQ(*kv->value, "1");
  }
  EXPECT_EQ(counting->current_revisions.load(), before);
  EXPECT_EQ(s.GetCached("/ns/missing").status().code(), Code::kNotFound);
  EXPECT_GT(counting->current_revisions.load(), before) << "a miss must ask the backend";
}

TEST(CachedStoreTest, LostUpstreamWatchRelistsAndEndsCacheWatches) {
  auto upstream = std::make_unique<CountingStore>();
  CountingStore* counting = upstream.get();
  auto cache = CachedStore::Open(std::move(upstream));
  ASSERT_TRUE(cache.ok());
  Store& s = **cache;
  ASSERT_TRUE(s.Create("/a", MakeValue("1")).ok());
  auto w = s.Watch("/", s.CurrentRevision(), {});
  ASSERT_TRUE(w.ok());
  counting->last_watch->Stop();
  Status terminal;
  Collect(**w, 1, &terminal);
  EXPECT_EQ(terminal.code(), Code::kUnavailable) << terminal.ToString();
  EXPECT_EQ((*cache)->relists(), 1);
  EXPECT_EQ(counting->watches.load(), 2);
  // The re-listed cache serves new writes and watches again.
  auto w2 = s.Watch("/", s.CurrentRevision(), {});
  ASSERT_TRUE(w2.ok());
  ASSERT_TRUE(s.Create("/b", MakeValue("2")).ok());
  EXPECT_EQ(Collect(**w2, 1).size(), 1u);
  auto list = s.List({.prefix = "/"});
  ASSERT_TRUE(list.ok());
  EXPECT_EQ(list->items.size(), 2u);
}

// A write returns once the backend committed it, not once the cache applied it; every read
// right after it still sees it (Get and consistent lists wait for the backend's revision, a
// watch from just before it replays or receives it).
TEST(CachedStoreTest, ReadsSeeAWriteAtOnceAlthoughTheWriteDoesNotWaitForTheCache) {
  auto cache = CachedStore::Open(std::make_unique<memory::MemoryStore>());
  ASSERT_TRUE(cache.ok());
  Store& s = **cache;
  for (int i = 0; i < 200; ++i) {
    const std::string key = "/r/" + std::to_string(i);
    auto kv = s.Create(key, MakeValue("v" + std::to_string(i)));
    ASSERT_TRUE(kv.ok()) << kv.status().ToString();
    auto got = s.Get(key);
    ASSERT_TRUE(got.ok()) << i << ": " << got.status().ToString();
    EXPECT_EQ(got->mod_revision, kv->mod_revision);
    auto list = s.List({.prefix = "/r/"});
    ASSERT_TRUE(list.ok());
    EXPECT_EQ(list->items.size(), static_cast<size_t>(i + 1));
    EXPECT_GE(list->revision, kv->mod_revision);
    auto w = s.Watch(key, kv->mod_revision - 1, {});
    ASSERT_TRUE(w.ok());
    auto events = Collect(**w, 1);
    ASSERT_EQ(events.size(), 1u) << i;
    EXPECT_EQ(events[0]->revision(), kv->mod_revision);
  }
}

TEST(CachedStoreTest, PinnedListOlderThanCacheGoesToBackend) {
  auto upstream = std::make_unique<memory::MemoryStore>();
  auto a = upstream->Create("/p/a", MakeValue("old"));
  ASSERT_TRUE(a.ok());
  ASSERT_TRUE(upstream->Update("/p/a", MakeValue("new"), a->mod_revision).ok());
  auto cache = CachedStore::Open(std::move(upstream));
  ASSERT_TRUE(cache.ok());
  auto old = (*cache)->List(
      {.prefix = "/p/", .revision = a->mod_revision, .match = RevisionMatch::kExact});
  ASSERT_TRUE(old.ok()) << old.status().ToString();
  ASSERT_EQ(old->items.size(), 1u);
  EXPECT_EQ(ValueOf(old->items[0]), "old");
}

// After a restart the cache's own history starts at its first list; a watch from an older
// revision that the persistent backend still remembers resumes instead of getting Gone.
TEST(CachedStoreTest, WatchOlderThanCacheResumesFromPersistentBackend) {
  TempDir dir;
  auto open = [&]() -> std::unique_ptr<Store> {
    auto rocks = rocks::RocksStore::Open({.path = dir.path() + "/db"});
    EXPECT_TRUE(rocks.ok()) << rocks.status().ToString();
    auto cache = CachedStore::Open(std::move(*rocks));
    EXPECT_TRUE(cache.ok()) << cache.status().ToString();
    return std::move(*cache);
  };
  Revision before_restart = 0;
  {
    auto store = open();
    auto a = store->Create("/p/a", MakeValue("1"));
    ASSERT_TRUE(a.ok());
    before_restart = a->mod_revision;
    ASSERT_TRUE(store->Update("/p/a", MakeValue("2"), a->mod_revision).ok());
    ASSERT_TRUE(store->Create("/p/b", MakeValue("3")).ok());
  }
  auto store = open();
  auto watch = store->Watch("/p/", before_restart, {});
  ASSERT_TRUE(watch.ok()) << watch.status().ToString();
  std::vector<std::string> seen;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (seen.size() < 2) {
    auto ev = (*watch)->WaitNext(deadline);
    ASSERT_TRUE(ev.ok()) << ev.status().ToString();
    ASSERT_NE(*ev, nullptr) << "timed out after " << seen.size() << " events";
    seen.push_back((*ev)->kv.key + "=" + ValueOf((*ev)->kv));
  }
  EXPECT_EQ(seen, (std::vector<std::string>{"/p/a=2", "/p/b=3"}));
  // Live events keep flowing on the resumed watch.
  ASSERT_TRUE(store->Create("/p/c", MakeValue("4")).ok());
  auto live = (*watch)->WaitNext(std::chrono::steady_clock::now() + std::chrono::seconds(5));
  ASSERT_TRUE(live.ok());
  ASSERT_NE(*live, nullptr);
  EXPECT_EQ((*live)->kv.key, "/p/c");
}

}  // namespace
}  // namespace svcplane::storage::cache
