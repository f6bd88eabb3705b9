#include "controllers/replicaset/expectations.h"

#include <gtest/gtest.h>

namespace svcplane::controllers::replicaset {
namespace {

TEST(ExpectationsTest, NoRecordIsSatisfied) {
  FakeClock clock;
  Expectations e(clock);
  EXPECT_TRUE(e.Satisfied("ns/rs"));
  EXPECT_FALSE(e.PendingForTest("ns/rs").has_value());
}

TEST(ExpectationsTest, CreationsMustAllBeObserved) {
  FakeClock clock;
  Expectations e(clock);
  e.ExpectCreations("ns/rs", 2);
  EXPECT_FALSE(e.Satisfied("ns/rs"));
  e.CreationObserved("ns/rs");
  EXPECT_FALSE(e.Satisfied("ns/rs"));
  e.CreationObserved("ns/rs");
  EXPECT_TRUE(e.Satisfied("ns/rs"));
  // More observations than expected stay satisfied (adds < 0).
  e.CreationObserved("ns/rs");
  EXPECT_TRUE(e.Satisfied("ns/rs"));
  EXPECT_EQ(e.PendingForTest("ns/rs")->adds, -1);
  EXPECT_TRUE(e.Satisfied("ns/other"));
}

TEST(ExpectationsTest, DeletionsCountEachTrackedPodOnce) {
  FakeClock clock;
  Expectations e(clock);
  e.ExpectDeletions("ns/rs", {"ns/a", "ns/b"});
  EXPECT_EQ(e.PendingForTest("ns/rs")->deletes, 2);
  e.DeletionObserved("ns/rs", "ns/a");
  e.DeletionObserved("ns/rs", "ns/a");  // the final delete after the graceful one
  e.DeletionObserved("ns/rs", "ns/unrelated");
  EXPECT_FALSE(e.Satisfied("ns/rs"));
  EXPECT_EQ(e.PendingForTest("ns/rs")->deletes, 1);
  e.DeletionObserved("ns/rs", "ns/b");
  EXPECT_TRUE(e.Satisfied("ns/rs"));
}

TEST(ExpectationsTest, ExpireAfterFiveMinutes) {
  FakeClock clock;
  Expectations e(clock);
  e.ExpectCreations("ns/rs", 3);
  clock.Advance(std::chrono::minutes(5));
  EXPECT_FALSE(e.Satisfied("ns/rs"));  // not older than 5 min yet
  clock.Advance(std::chrono::seconds(1));
  EXPECT_TRUE(e.Satisfied("ns/rs"));
  // A new expectation starts a new clock.
  e.ExpectCreations("ns/rs", 1);
  EXPECT_FALSE(e.Satisfied("ns/rs"));
}

TEST(ExpectationsTest, DeleteDropsTheRecord) {
  FakeClock clock;
  Expectations e(clock);
  e.ExpectCreations("ns/rs", 3);
  e.Delete("ns/rs");
  EXPECT_TRUE(e.Satisfied("ns/rs"));
  e.CreationObserved("ns/rs");  // no record: nothing to lower
  EXPECT_FALSE(e.PendingForTest("ns/rs").has_value());
}

}  // namespace
}  // namespace svcplane::controllers::replicaset
