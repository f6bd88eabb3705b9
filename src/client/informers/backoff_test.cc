#include "client/informers/backoff.h"

#include <gtest/gtest.h>

namespace svcplane::client::informers {
namespace {

using std::chrono::milliseconds;

TEST(BackoffTest, DoublesFrom800msToTheCapWithoutJitter) {
  FakeClock clock;
  Backoff b(clock, {.jitter = 0});
  std::vector<int64_t> got;
  for (int i = 0; i < 8; ++i) {
    got.push_back(std::chrono::duration_cast<milliseconds>(b.Next()).count());
  }
  EXPECT_EQ(got, (std::vector<int64_t>{800, 1600, 3200, 6400, 12800, 25600, 30000, 30000}));
}

TEST(BackoffTest, JitterStaysWithinOneDelayAndTheCap) {
  FakeClock clock;
  Backoff b(clock, {}, /*seed=*/7);
  Duration base = milliseconds(800);
  bool varied = false;
  for (int i = 0; i < 10; ++i) {
    Duration d = b.Next();
    EXPECT_GE(d, std::min<Duration>(base, milliseconds(30000)));
    EXPECT_LE(d, std::min<Duration>(2 * base, milliseconds(30000)));
    if (d != base) varied = true;
    base = std::min<Duration>(2 * base, milliseconds(30000));
  }
  EXPECT_TRUE(varied);
}

TEST(BackoffTest, StartsOverAfterTwoQuietMinutes) {
  FakeClock clock;
  Backoff b(clock, {.jitter = 0});
  b.Next();
  b.Next();
  EXPECT_EQ(b.Next(), milliseconds(3200));
  clock.Advance(std::chrono::minutes(2));
  EXPECT_EQ(b.Next(), milliseconds(800));
  b.Reset();
  EXPECT_EQ(b.Next(), milliseconds(800));
}

}  // namespace
}  // namespace svcplane::client::informers
