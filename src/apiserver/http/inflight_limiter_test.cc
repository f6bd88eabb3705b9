#include "apiserver/http/inflight_limiter.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

namespace svcplane::apiserver::http {
namespace {

using Kind = InflightLimiter::Kind;

const Identity kJane{"jane", {"dev", "system:authenticated"}};
const Identity kAdmin{"admin", {"system:masters", "system:authenticated"}};

TEST(InflightLimiterTest, MethodsSplitIntoReadOnlyAndMutating) {
  EXPECT_EQ(InflightLimiter::KindOf("GET"), Kind::kReadOnly);
  EXPECT_EQ(InflightLimiter::KindOf("HEAD"), Kind::kReadOnly);
  for (const char* m : {"POST", "PUT", "PATCH", "DELETE", "OPTIONS", "BREW"}) {
    EXPECT_EQ(InflightLimiter::KindOf(m), Kind::kMutating) << m;
  }
}

TEST(InflightLimiterTest, RefusesOverTheLimitAndAdmitsAgainOnceASlotIsReturned) {
  InflightLimiter limiter(2, 1);
  auto a = limiter.TryAcquire(Kind::kReadOnly, kJane);
  auto b = limiter.TryAcquire(Kind::kReadOnly, kJane);
  ASSERT_TRUE(a && b);
  EXPECT_FALSE(limiter.TryAcquire(Kind::kReadOnly, kJane));
  EXPECT_EQ(limiter.InFlightForTest(Kind::kReadOnly), 2);
  // The kinds are counted apart.
  auto w = limiter.TryAcquire(Kind::kMutating, kJane);
  ASSERT_TRUE(w);
  EXPECT_FALSE(limiter.TryAcquire(Kind::kMutating, kJane));
  a.reset();
  EXPECT_EQ(limiter.InFlightForTest(Kind::kReadOnly), 1);
  EXPECT_TRUE(limiter.TryAcquire(Kind::kReadOnly, kJane));
}

TEST(InflightLimiterTest, SystemMastersAreNeverRefusedNorCounted) {
  InflightLimiter limiter(1, 1);
  auto jane = limiter.TryAcquire(Kind::kReadOnly, kJane);
  ASSERT_TRUE(jane);
  EXPECT_FALSE(limiter.TryAcquire(Kind::kReadOnly, kJane));
  std::vector<InflightLimiter::Slot> admin;
  for (int i = 0; i < 100; ++i) {
    auto s = limiter.TryAcquire(Kind::kReadOnly, kAdmin);
    ASSERT_TRUE(s);
    admin.push_back(std::move(*s));
  }
  EXPECT_EQ(limiter.InFlightForTest(Kind::kReadOnly), 1);
}

TEST(InflightLimiterTest, ZeroMeansNoLimit) {
  InflightLimiter limiter(0, 0);
  std::vector<InflightLimiter::Slot> held;
  for (int i = 0; i < 1000; ++i) held.push_back(*limiter.TryAcquire(Kind::kMutating, kJane));
  EXPECT_TRUE(limiter.TryAcquire(Kind::kReadOnly, kJane));
}

TEST(InflightLimiterTest, ConcurrentAcquirersNeverExceedTheLimit) {
  InflightLimiter limiter(4, 4);
  std::atomic<int> max_seen{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 20000; ++i) {
        auto s = limiter.TryAcquire(Kind::kReadOnly, kJane);
        if (!s) continue;
        int now = limiter.InFlightForTest(Kind::kReadOnly);
        int prev = max_seen.load();
        while (now > prev && !max_seen.compare_exchange_weak(prev, now)) {
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_LE(max_seen.load(), 4);
  EXPECT_EQ(limiter.InFlightForTest(Kind::kReadOnly), 0);
}

TEST(InflightLimiterTest, TooManyRequestsIsUpstreamsPlainText) {
  Response r = TooManyRequestsResponse();
  EXPECT_EQ(r.status, 429);
  EXPECT_EQ(r.content_type, "text/plain; charset=utf-8");
  EXPECT_EQ(r.body, "Too many requests, please try again later.\n");
  EXPECT_EQ(r.headers, (Headers{{"Retry-After", "1"}, {"X-Content-Type-Options", "nosniff"}}));
}

}  // namespace
}  // namespace svcplane::apiserver::http
