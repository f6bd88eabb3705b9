#include "client/delaying_queue.h"

#include <gtest/gtest.h>

#include <future>
#include <string>
#include <thread>

#include "client/rate_limiting_queue.h"

namespace svcplane::client {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

// Waits (in real time, bounded) until the queue holds `n` ready items: the waiting loop moves
// them on its own thread after the fake clock advances.
bool WaitForLen(const Queue<std::string>& q, int n) {
  for (int i = 0; i < 2000; ++i) {
    if (q.Len() == n) return true;
    std::this_thread::sleep_for(milliseconds(1));
  }
  return false;
}

class DelayingQueueTest : public testing::Test {
 protected:
  FakeClock clock_;
  DelayingQueue<std::string> q_{{.clock = &clock_}};
};

TEST_F(DelayingQueueTest, ItemAppearsOnlyAfterItsDelay) {
  q_.AddAfter("a", milliseconds(50));
  EXPECT_EQ(q_.WaitingLen(), 1);
  clock_.Advance(milliseconds(49));
  std::this_thread::sleep_for(milliseconds(20));
  EXPECT_EQ(q_.Len(), 0);
  clock_.Advance(milliseconds(1));
  ASSERT_TRUE(WaitForLen(q_, 1));
  EXPECT_EQ(q_.Get(), "a");
  EXPECT_EQ(q_.WaitingLen(), 0);
}

TEST_F(DelayingQueueTest, EarlierReadyTimeWinsEitherOrder) {
  q_.AddAfter("a", milliseconds(50));
  q_.AddAfter("a", milliseconds(10));
  q_.AddAfter("b", milliseconds(10));
  q_.AddAfter("b", milliseconds(50));
  EXPECT_EQ(q_.WaitingLen(), 2);
  clock_.Advance(milliseconds(10));
  ASSERT_TRUE(WaitForLen(q_, 2));
  clock_.Advance(milliseconds(100));
  std::this_thread::sleep_for(milliseconds(20));
  EXPECT_EQ(q_.Len(), 2);  // each appears once
  EXPECT_EQ(q_.WaitingLen(), 0);
}

TEST_F(DelayingQueueTest, ZeroOrNegativeDelayAddsImmediately) {
  q_.AddAfter("a", Duration::zero());
  q_.AddAfter("b", -seconds(1));
  EXPECT_EQ(q_.Len(), 2);
  EXPECT_EQ(q_.WaitingLen(), 0);
}

TEST_F(DelayingQueueTest, ImmediateAddIsNotDelayedByPendingAddAfter) {
  q_.AddAfter("a", seconds(1));
  q_.Add("a");
  EXPECT_EQ(q_.Get(), "a");
  q_.Done("a");
  clock_.Advance(seconds(1));
  ASSERT_TRUE(WaitForLen(q_, 1));  // the timer re-adds it
}

TEST_F(DelayingQueueTest, ItemsComeOutInReadyOrder) {
  q_.AddAfter("late", seconds(3));
  q_.AddAfter("early", seconds(1));
  clock_.Advance(seconds(1));
  ASSERT_TRUE(WaitForLen(q_, 1));
  clock_.Advance(seconds(2));
  ASSERT_TRUE(WaitForLen(q_, 2));
  EXPECT_EQ(q_.Get(), "early");
  EXPECT_EQ(q_.Get(), "late");
}

TEST_F(DelayingQueueTest, ShutDownDropsPendingAndIgnoresNewAddAfter) {
  q_.AddAfter("a", seconds(1));
  q_.ShutDown();
  q_.AddAfter("b", Duration::zero());
  clock_.Advance(seconds(5));
  std::this_thread::sleep_for(milliseconds(10));
  EXPECT_EQ(q_.Get(), std::nullopt);
}

TEST(DelayingQueueMetricsTest, AddAfterCountsRetries) {
  FakeClock clock;
  MetricsRegistry reg;
  DelayingQueue<std::string> q({.name = "q", .metrics = &reg, .clock = &clock});
  q.AddAfter("a", seconds(1));
  q.AddAfter("a", Duration::zero());
  EXPECT_EQ(reg.GetCounter("workqueue_retries_total", "", {{"name", "q"}}).Value(), 2);
}

TEST(RateLimitingQueueTest, ControllerRetryPatternDropsAfterMaxRetries) {
  FakeClock clock;
  RateLimitingQueue<std::string> q(std::make_unique<ItemExponentialFailureRateLimiter<std::string>>(
                                       milliseconds(5), seconds(1000)),
                                   {.clock = &clock});
  constexpr int kMaxRetries = 15;
  q.Add("key");
  int processings = 0;
  while (true) {
    auto key = q.Get();
    ASSERT_TRUE(key.has_value());
    ++processings;
    // The sync always fails.
    if (q.NumRequeues(*key) < kMaxRetries) {
      q.AddRateLimited(*key);
      q.Done(*key);
      clock.Advance(seconds(1000));  // past any backoff
      continue;
    }
    q.Forget(*key);
    q.Done(*key);
    break;
  }
  EXPECT_EQ(processings, kMaxRetries + 1);
  EXPECT_EQ(q.NumRequeues("key"), 0);
  EXPECT_EQ(q.Len(), 0);
  EXPECT_EQ(q.WaitingLen(), 0);
}

TEST(RateLimitingQueueTest, AddRateLimitedWaitsForBackoff) {
  FakeClock clock;
  RateLimitingQueue<std::string> q(
      std::make_unique<ItemExponentialFailureRateLimiter<std::string>>(seconds(1), seconds(60)),
      {.clock = &clock});
  q.AddRateLimited("a");  // 1 s
  clock.Advance(milliseconds(999));
  std::this_thread::sleep_for(milliseconds(10));
  EXPECT_EQ(q.Len(), 0);
  clock.Advance(milliseconds(1));
  ASSERT_TRUE(WaitForLen(q, 1));
  EXPECT_EQ(q.NumRequeues("a"), 1);
}

}  // namespace
}  // namespace svcplane::client
