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

}  // namespace
}  // namespace svcplane::apiserver::rest
