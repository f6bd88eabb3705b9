#include "client/rate_limiters.h"

#include <gtest/gtest.h>

#include <string>

namespace svcplane::client {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

TEST(ItemExponentialFailureRateLimiterTest, DoublesPerFailureAndForgetResets) {
  ItemExponentialFailureRateLimiter<std::string> l(milliseconds(5), seconds(1000));
  EXPECT_EQ(l.When("x"), milliseconds(5));
  EXPECT_EQ(l.When("x"), milliseconds(10));
  EXPECT_EQ(l.When("x"), milliseconds(20));
  EXPECT_EQ(l.When("x"), milliseconds(40));
  EXPECT_EQ(l.NumRequeues("x"), 4);
  EXPECT_EQ(l.When("y"), milliseconds(5));  // per item
  l.Forget("x");
  EXPECT_EQ(l.NumRequeues("x"), 0);
  EXPECT_EQ(l.When("x"), milliseconds(5));
}

TEST(ItemExponentialFailureRateLimiterTest, OneSecondSequenceIsCapped) {
  ItemExponentialFailureRateLimiter<std::string> l(seconds(1), seconds(1000));
  const Duration expected[] = {seconds(1),   seconds(2),   seconds(4),    seconds(8),
                               seconds(16),  seconds(32),  seconds(64),   seconds(128),
                               seconds(256), seconds(512), seconds(1000), seconds(1000)};
  for (Duration d : expected) EXPECT_EQ(l.When("x"), d);
}

TEST(ItemExponentialFailureRateLimiterTest, HugeExponentSaturatesAtMax) {
  ItemExponentialFailureRateLimiter<std::string> l(milliseconds(1), seconds(1000));
  for (int i = 0; i < 2000; ++i) l.When("x");
  EXPECT_EQ(l.When("x"), seconds(1000));
}

TEST(ItemFastSlowRateLimiterTest, FastThenSlow) {
  ItemFastSlowRateLimiter<std::string> l(milliseconds(5), seconds(10), 3);
  EXPECT_EQ(l.When("x"), milliseconds(5));
  EXPECT_EQ(l.When("x"), milliseconds(5));
  EXPECT_EQ(l.When("x"), milliseconds(5));
  EXPECT_EQ(l.When("x"), seconds(10));
  EXPECT_EQ(l.When("x"), seconds(10));
  EXPECT_EQ(l.NumRequeues("x"), 5);
}

TEST(BucketRateLimiterTest, BurstThenRateLimited) {
  FakeClock clock;
  BucketRateLimiter<std::string> l(10, 100, clock);
  for (int i = 0; i < 100; ++i) ASSERT_EQ(l.When("x" + std::to_string(i)), Duration::zero());
  EXPECT_EQ(std::chrono::duration_cast<milliseconds>(l.When("y")), milliseconds(100));
  EXPECT_EQ(std::chrono::duration_cast<milliseconds>(l.When("z")), milliseconds(200));
  EXPECT_EQ(l.NumRequeues("y"), 0);
  clock.Advance(seconds(10));  // refills 100 tokens, minus the 2 reserved
  for (int i = 0; i < 98; ++i) ASSERT_EQ(l.When("w"), Duration::zero());
  EXPECT_GT(l.When("w"), Duration::zero());
}

TEST(MaxOfRateLimiterTest, LargestDelayAndAllChildrenRecord) {
  std::vector<std::unique_ptr<RateLimiter<std::string>>> children;
  children.push_back(std::make_unique<ItemExponentialFailureRateLimiter<std::string>>(
      milliseconds(1), seconds(1)));
  children.push_back(std::make_unique<ItemExponentialFailureRateLimiter<std::string>>(
      milliseconds(2), seconds(2)));
  MaxOfRateLimiter<std::string> l(std::move(children));
  EXPECT_EQ(l.When("x"), milliseconds(2));
  EXPECT_EQ(l.NumRequeues("x"), 1);
  EXPECT_EQ(l.When("x"), milliseconds(4));
  l.Forget("x");
  EXPECT_EQ(l.NumRequeues("x"), 0);
  EXPECT_EQ(l.When("x"), milliseconds(2));
}

TEST(DefaultControllerRateLimiterTest, ExponentialFromFiveMillisAndSharedBucket) {
  FakeClock clock;
  auto l = DefaultControllerRateLimiter<std::string>(clock);
  EXPECT_EQ(l->When("a"), milliseconds(5));
  EXPECT_EQ(l->When("a"), milliseconds(10));
  // Burst 100 shared by all keys: 98 more fresh keys fit, then the bucket delays.
  for (int i = 0; i < 98; ++i) ASSERT_EQ(l->When("k" + std::to_string(i)), milliseconds(5));
  EXPECT_EQ(std::chrono::duration_cast<milliseconds>(l->When("fresh")), milliseconds(100));
}

}  // namespace
}  // namespace svcplane::client
