#include "storage/memory/memory_store.h"

#include <gtest/gtest.h>

#include "storage/testing/store_conformance.h"

namespace svcplane::storage::memory {
namespace {

using namespace ::svcplane::storage::testing;  // NOLINT: the typed suite's names

struct MemoryFactory {
  static constexpr bool kPersistent = false;
  std::unique_ptr<Store> Open(const ConformanceOptions& options) {
    MemoryStoreOptions o;
    o.history.max_events = options.history_max_events;
    o.history.future_wait = options.future_wait;
    return std::make_unique<MemoryStore>(std::move(o));
  }
};

INSTANTIATE_TYPED_TEST_SUITE_P(Memory, StoreConformance, MemoryFactory);

TEST(MemoryStoreTest, HistoryIsBoundedByAgeOnlyAboveMinEvents) {
  auto now = std::chrono::system_clock::now();
  MemoryStoreOptions o;
  o.history.max_age = std::chrono::seconds(60);
  o.history.min_events = 2;
  o.history.now = [&] { return now; };
  MemoryStore store(o);
  Store& s = store;
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(s.Create("/a/" + std::to_string(i), MakeValue("v")).ok());
  EXPECT_EQ(s.CompactedRevision(), 0);
  now += std::chrono::seconds(61);
  ASSERT_TRUE(s.Create("/a/new", MakeValue("v")).ok());
  // The five old events are past max_age; min_events keeps the newest two of all six.
  EXPECT_EQ(s.CompactedRevision(), 4);
  EXPECT_EQ(s.Watch("/a/", 3).status().code(), Code::kGone);
  EXPECT_TRUE(s.Watch("/a/", 4).ok());
}

TEST(PrefixEndTest, IncrementsLastByte) {
  EXPECT_EQ(PrefixEnd("/a/"), "/a0");
  EXPECT_EQ(PrefixEnd(""), "");
  EXPECT_EQ(PrefixEnd(std::string("a\xff", 2)), "b");
}

}  // namespace
}  // namespace svcplane::storage::memory
