#include "base/clock.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

namespace svcplane {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

TEST(FakeClockTest, StandsStillUntilAdvanced) {
  FakeClock clock;
  const TimePoint t0 = clock.Now();
  const WallTime w0 = clock.WallNow();
  EXPECT_EQ(clock.Now(), t0);
  clock.Advance(seconds(3));
  EXPECT_EQ(clock.Now() - t0, seconds(3));
  EXPECT_EQ(clock.WallNow() - w0, seconds(3));
}

TEST(FakeClockTest, SleepWakesOnlyWhenDeadlinePasses) {
  FakeClock clock;
  std::atomic<bool> woke{false};
  std::thread t([&] {
    clock.Sleep(seconds(10));
    woke = true;
  });
  clock.BlockUntilWaiters(1);
  clock.Advance(seconds(9));
  std::this_thread::sleep_for(milliseconds(20));
  EXPECT_FALSE(woke);
  clock.Advance(seconds(1));
  t.join();
  EXPECT_TRUE(woke);
}

TEST(FakeClockTest, WaitUntilReturnsOnDeadlineOrCondition) {
  FakeClock clock;
  std::mutex mu;
  std::condition_variable cv;
  bool flag = false;

  std::thread timed_out([&] {
    std::unique_lock<std::mutex> l(mu);
    EXPECT_FALSE(clock.WaitUntil(l, cv, clock.Now() + seconds(5), [&] { return flag; }));
  });
  clock.BlockUntilWaiters(1);
  clock.Advance(seconds(5));
  timed_out.join();

  std::thread signalled([&] {
    std::unique_lock<std::mutex> l(mu);
    EXPECT_TRUE(clock.WaitUntil(l, cv, clock.Now() + seconds(5), [&] { return flag; }));
  });
  clock.BlockUntilWaiters(1);
  {
    std::lock_guard<std::mutex> l(mu);
    flag = true;
  }
  cv.notify_all();
  signalled.join();
}

TEST(RealClockTest, WaitUntilTimesOut) {
  const RealClock& clock = RealClock::Get();
  std::mutex mu;
  std::condition_variable cv;
  std::unique_lock<std::mutex> l(mu);
  const TimePoint start = clock.Now();
  EXPECT_FALSE(clock.WaitUntil(l, cv, start + milliseconds(20), [] { return false; }));
  EXPECT_GE(clock.Now() - start, milliseconds(20));
}

}  // namespace
}  // namespace svcplane
