#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <vector>

namespace svcplane {

using Duration = std::chrono::nanoseconds;
// Monotonic time, for deadlines and durations.
using TimePoint = std::chrono::steady_clock::time_point;
// Wall time, for timestamps written into objects (creationTimestamp, renewTime, expiry).
using WallTime = std::chrono::system_clock::time_point;

// Source of time, passed into constructors so that tests can run on simulated time.
// Safe from any thread.
class Clock {
 public:
  virtual ~Clock() = default;

  virtual TimePoint Now() const = 0;
  virtual WallTime WallNow() const = 0;

  // Blocks the calling thread until `d` has passed on this clock.
  virtual void Sleep(Duration d) const = 0;

  // Waits on `cv` (with `lock` held, as std::condition_variable::wait_until does) until `done()`
  // is true or this clock reaches `deadline`. Returns done(). The caller's code notifies `cv`
  // for its own events; the clock wakes the wait when the deadline passes.
  virtual bool WaitUntil(std::unique_lock<std::mutex>& lock, std::condition_variable& cv,
                         TimePoint deadline, const std::function<bool()>& done) const = 0;
};

class RealClock final : public Clock {
 public:
  TimePoint Now() const override { return std::chrono::steady_clock::now(); }
  WallTime WallNow() const override { return std::chrono::system_clock::now(); }
  void Sleep(Duration d) const override;
  bool WaitUntil(std::unique_lock<std::mutex>& lock, std::condition_variable& cv,
                 TimePoint deadline, const std::function<bool()>& done) const override;

  // A process-wide instance for production wiring (stateless, so sharing it is harmless).
  static const RealClock& Get();
};

// Manual time for tests: time stands still until Advance(). Advance wakes every Sleep and
// WaitUntil whose deadline has passed.
class FakeClock final : public Clock {
 public:
  explicit FakeClock(TimePoint start = TimePoint{} + std::chrono::hours(1),
                     WallTime wall_start = WallTime{} + std::chrono::hours(24 * 365 * 56));

  TimePoint Now() const override;
  WallTime WallNow() const override;
  void Sleep(Duration d) const override;
  bool WaitUntil(std::unique_lock<std::mutex>& lock, std::condition_variable& cv,
                 TimePoint deadline, const std::function<bool()>& done) const override;

  void Advance(Duration d);
  // Number of threads currently blocked in Sleep/WaitUntil, so a test can wait until a
  // background loop is parked before advancing time.
  int Waiters() const;
  // Blocks (in real time) until at least `n` threads are waiting on this clock.
  void BlockUntilWaiters(int n) const;

 private:
  mutable std::mutex mu_;
  mutable std::condition_variable changed_;  // time advanced or waiter count changed
  TimePoint now_;
  WallTime wall_now_;
  mutable int waiters_ = 0;
  // Condition variables of WaitUntil callers, notified on Advance.
  mutable std::vector<std::condition_variable*> waiting_cvs_;
};

}  // namespace svcplane
