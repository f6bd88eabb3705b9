#pragma once

// A FakeClock that knows the deadlines its waiters are waiting for, so a test can move time
// exactly to the next one once every background thread is parked (discrete-event simulation).
// Advancing "whenever someone waits" by fixed steps overshoots on a loaded machine: a waiter
// whose deadline already passed may not have woken yet when the next step lands.

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <set>
#include <thread>

#include "base/clock.h"

namespace svcplane::client::testing {

class SteppingClock final : public Clock {
 public:
  TimePoint Now() const override { return fake_.Now(); }
  WallTime WallNow() const override { return fake_.WallNow(); }
  void Sleep(Duration d) const override {
    auto it = Add(fake_.Now() + d);
    fake_.Sleep(d);
    Remove(it);
  }
  bool WaitUntil(std::unique_lock<std::mutex>& lock, std::condition_variable& cv,
                 TimePoint deadline, const std::function<bool()>& done) const override {
    auto it = Add(deadline);
    bool result = fake_.WaitUntil(lock, cv, deadline, done);
    Remove(it);
    return result;
  }

  void Advance(Duration d) { fake_.Advance(d); }

  // When at least `waiters` threads wait and none of them is already due, advances to the
  // earliest deadline and returns true; otherwise does nothing and returns false.
  bool StepIfParked(int waiters) {
    TimePoint next;
    {
      std::lock_guard<std::mutex> l(mu_);
      if (static_cast<int>(deadlines_.size()) < waiters || deadlines_.empty()) return false;
      next = *deadlines_.begin();
    }
    const TimePoint now = fake_.Now();
    if (next <= now) return false;  // a waiter is due and about to wake: let it run first
    fake_.Advance(next - now);
    return true;
  }

  // Steps time (see StepIfParked) until `done()`; false after ~30 s of real time.
  template <typename Pred>
  bool AdvanceUntil(int waiters, Pred done) {
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (std::chrono::steady_clock::now() < give_up) {
      if (done()) return true;
      if (!StepIfParked(waiters)) std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    return done();
  }

  void BlockUntilWaiters(int n) const { fake_.BlockUntilWaiters(n); }
  int Waiters() const { return fake_.Waiters(); }

 private:
  std::multiset<TimePoint>::iterator Add(TimePoint deadline) const {
    std::lock_guard<std::mutex> l(mu_);
    return deadlines_.insert(deadline);
  }
  void Remove(std::multiset<TimePoint>::iterator it) const {
    std::lock_guard<std::mutex> l(mu_);
    deadlines_.erase(it);
  }

  mutable FakeClock fake_;
  mutable std::mutex mu_;
  mutable std::multiset<TimePoint> deadlines_;  // guarded by mu_
};

}  // namespace svcplane::client::testing
