#pragma once

#include <chrono>
#include <functional>
#include <thread>

namespace svcplane::controllers::endpointslice::testing {

// Polls `done` in real time (controllers run on their own threads) until it holds or `timeout`.
inline bool WaitFor(const std::function<bool()>& done,
                    std::chrono::milliseconds timeout = std::chrono::seconds(20)) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return done();
}

// Waits until `idle` holds on several consecutive polls (a key taken by a worker is briefly in
// neither the queue nor the in-flight count).
inline bool WaitForIdle(const std::function<bool()>& idle,
                        std::chrono::milliseconds timeout = std::chrono::seconds(20)) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  int streak = 0;
  while (std::chrono::steady_clock::now() < deadline) {
    streak = idle() ? streak + 1 : 0;
    if (streak >= 5) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return false;
}

}  // namespace svcplane::controllers::endpointslice::testing
