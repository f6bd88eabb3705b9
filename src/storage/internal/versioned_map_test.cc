#include "storage/internal/versioned_map.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace svcplane::storage::internal {
namespace {

// Commits one put of `size` bytes at `key` through the planner, as a backend's writer does.
void Put(VersionedMap& map, const std::string& key, size_t size) {
  WritePlanner planner(map, std::chrono::system_clock::now());
  auto current = map.Lookup(key);
  WriteRequest request{.kind = current ? WriteKind::kUpdate : WriteKind::kCreate,
                       .key = key,
                       .value = MakeValue(std::string(size, 'x')),
                       .expected_mod_revision = current ? current->mod_revision : 0};
  ASSERT_TRUE(planner.Plan(request).ok());
  map.Apply(planner.TakeEntries());
}

HistoryOptions Budget(size_t max_bytes) {
  HistoryOptions o;
  o.max_bytes = max_bytes;
  o.min_events = 0;
  return o;
}

TEST(VersionedMapList, ValuesOnlyListLeavesKeysEmptyButStillPages) {
  VersionedMap map(HistoryOptions{});
  for (int i = 0; i < 5; ++i) Put(map, "/k/" + std::to_string(i), 10 + i);
  auto keyed = map.List({.prefix = "/k/"});
  auto bare = map.List({.prefix = "/k/", .keys = false});
  ASSERT_TRUE(keyed.ok() && bare.ok());
  ASSERT_EQ(bare->items.size(), 5u);
  for (size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(bare->items[i].key, "");
    EXPECT_EQ(bare->items[i].value, keyed->items[i].value);  // the same shared bytes
    EXPECT_EQ(bare->items[i].mod_revision, keyed->items[i].mod_revision);
  }
  auto page = map.List({.prefix = "/k/", .limit = 2, .keys = false});
  ASSERT_TRUE(page.ok());
  EXPECT_EQ(page->items.size(), 2u);
  EXPECT_EQ(page->continue_key, "/k/2");
  EXPECT_EQ(page->remaining, 3);
}

TEST(VersionedMapHistory, ByteBudgetForgetsOldestLargeRewrites) {
  VersionedMap map(Budget(100'000));
  for (int i = 0; i < 50; ++i) Put(map, "/slices/a", 10'000);
  // Ten 10 KB values fit in 100 KB with their overhead only nine at a time.
  EXPECT_LE(map.history_bytes(), 100'000u);
  EXPECT_EQ(map.history_size(), 9u);
  EXPECT_EQ(map.compacted_revision(), 41);
  EXPECT_EQ(map.current_revision(), 50);
  // The latest value is live regardless of history.
  auto kv = map.Get("/slices/a");
  ASSERT_TRUE(kv.ok());
  EXPECT_EQ(kv->value->size(), 10'000u);
}

TEST(VersionedMapHistory, SmallEventsAreKeptByCountNotBytes) {
  VersionedMap map(Budget(100'000));
  for (int i = 0; i < 200; ++i) Put(map, "/leases/n" + std::to_string(i % 10), 100);
  EXPECT_EQ(map.history_size(), 200u);
  EXPECT_EQ(map.compacted_revision(), 0);
}

TEST(VersionedMapHistory, WatchResumesWithinBudgetAndIsGoneBeyondIt) {
  VersionedMap map(Budget(100'000));
  for (int i = 0; i < 20; ++i) Put(map, "/slices/a", 10'000);
  const Revision oldest_kept = map.compacted_revision();
  ASSERT_GT(oldest_kept, 0);
  auto resumed = map.Watch("/slices/", oldest_kept, {});
  ASSERT_TRUE(resumed.ok()) << resumed.status().ToString();
  auto first = (*resumed)->TryNext();
  ASSERT_TRUE(first.ok());
  ASSERT_NE(*first, nullptr);
  EXPECT_EQ((*first)->revision(), oldest_kept + 1);
  auto too_old = map.Watch("/slices/", oldest_kept - 1, {});
  ASSERT_FALSE(too_old.ok());
  EXPECT_EQ(too_old.status().code(), Code::kGone);
}

TEST(VersionedMapHistory, CompactAndResetKeepTheByteCount) {
  VersionedMap map(Budget(1 << 20));
  for (int i = 0; i < 10; ++i) Put(map, "/k" + std::to_string(i), 1000);
  const size_t ten = map.history_bytes();
  EXPECT_EQ(ten, 10 * HistoryCost(*map.Watch("/k0", 0, {}).value()->TryNext().value()));
  ASSERT_TRUE(map.Compact(5).ok());
  EXPECT_EQ(map.history_bytes(), ten / 2);
  map.Reset({}, {}, 10, 10, Status::Ok());
  EXPECT_EQ(map.history_bytes(), 0u);
}

}  // namespace
}  // namespace svcplane::storage::internal
