#include "apiserver/rest/watch_hub.h"

#include <gtest/gtest.h>

#include <thread>

namespace svcplane::apiserver::rest {
namespace {

// A pump with `left` batches to deliver: each Drain delivers one and asks to be called again
// while any remain.
class CountingPump final : public WatchPump {
 public:
  explicit CountingPump(int left) : left_(left) {}
  bool Drain() override {
    ++drains;
    return --left_ > 0;
  }
  bool Tick(std::chrono::steady_clock::time_point) override { return left_ > 0; }
  std::atomic<int> drains{0};

 private:
  int left_;
};

// Regression: a pump that stopped with events left was never drained again (its storage watch
// does not notify while unread events remain), so a watch from "0" over a large collection
// stalled after its first 16384 events.
TEST(WatchHubTest, PumpThatStopsWithEventsLeftIsDrainedAgain) {
  WatchHub hub(2);
  auto pump = std::make_shared<CountingPump>(5);
  hub.Register(pump);
  hub.Schedule(pump);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (pump->drains.load() < 5 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_EQ(pump->drains.load(), 5);
}

// A pump that counts its drains and always reports itself drained, like a watch with one event.
class OneShotPump final : public WatchPump {
 public:
  bool Drain() override {
    ++drains;
    return false;
  }
  bool Tick(std::chrono::steady_clock::time_point) override { return true; }
  std::atomic<int> drains{0};
};

// Regression (issue 20): the workers and the ticker waited on one condition variable, so a
// Schedule's notify_one could wake the ticker instead, and the pump then waited for the next
// 500 ms tick. On an idle hub every later change of a watch arrived ~450 ms late.
TEST(WatchHubTest, EachScheduleOnAnIdleHubDrainsAtOnce) {
  WatchHub hub(1);
  auto pump = std::make_shared<OneShotPump>();
  hub.Register(pump);
  for (int round = 1; round <= 20; ++round) {
    const auto start = std::chrono::steady_clock::now();
    hub.Schedule(pump);
    while (pump->drains.load() < round &&
           std::chrono::steady_clock::now() - start < std::chrono::seconds(2)) {
      std::this_thread::yield();
    }
    const auto waited = std::chrono::steady_clock::now() - start;
    ASSERT_EQ(pump->drains.load(), round);
    // Far below the 500 ms tick, far above a scheduling hiccup.
    EXPECT_LT(waited, std::chrono::milliseconds(100)) << "round " << round;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // let the hub go idle
  }
}

}  // namespace
}  // namespace svcplane::apiserver::rest
