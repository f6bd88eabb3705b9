#include "base/clock.h"

#include <algorithm>
#include <thread>

namespace svcplane {

void RealClock::Sleep(Duration d) const {
  if (d > Duration::zero()) std::this_thread::sleep_for(d);
}

bool RealClock::WaitUntil(std::unique_lock<std::mutex>& lock, std::condition_variable& cv,
                          TimePoint deadline, const std::function<bool()>& done) const {
  return cv.wait_until(lock, deadline, done);
}

const RealClock& RealClock::Get() {
  static const RealClock* clock = new RealClock();  // never destroyed: no exit-order issues
  return *clock;
}

FakeClock::FakeClock(TimePoint start, WallTime wall_start) : now_(start), wall_now_(wall_start) {}

TimePoint FakeClock::Now() const {
  std::lock_guard<std::mutex> l(mu_);
  return now_;
}

WallTime FakeClock::WallNow() const {
  std::lock_guard<std::mutex> l(mu_);
  return wall_now_;
}

void FakeClock::Sleep(Duration d) const {
  std::unique_lock<std::mutex> l(mu_);
  const TimePoint deadline = now_ + d;
  ++waiters_;
  changed_.notify_all();
  changed_.wait(l, [&] { return now_ >= deadline; });
  --waiters_;
  changed_.notify_all();
}

bool FakeClock::WaitUntil(std::unique_lock<std::mutex>& lock, std::condition_variable& cv,
                          TimePoint deadline, const std::function<bool()>& done) const {
  {
    std::lock_guard<std::mutex> l(mu_);
    ++waiters_;
    waiting_cvs_.push_back(&cv);
    changed_.notify_all();
  }
  bool result;
  while (true) {
    if (done()) {
      result = true;
      break;
    }
    if (Now() >= deadline) {
      result = false;
      break;
    }
    // Advance notifies `cv` without holding the caller's mutex (taking it would invert the lock
    // order with callers that hold it while reading Now()), so a notification can slip in
    // between the checks above and the wait. The short real-time bound closes that window.
    cv.wait_for(lock, std::chrono::milliseconds(2));
  }
  std::lock_guard<std::mutex> l(mu_);
  --waiters_;
  waiting_cvs_.erase(std::find(waiting_cvs_.begin(), waiting_cvs_.end(), &cv));
  changed_.notify_all();
  return result;
}

void FakeClock::Advance(Duration d) {
  std::lock_guard<std::mutex> l(mu_);
  now_ += d;
  wall_now_ += std::chrono::duration_cast<WallTime::duration>(d);
  // Holding mu_ keeps every registered cv alive: its waiter must take mu_ to unregister.
  for (std::condition_variable* cv : waiting_cvs_) cv->notify_all();
  changed_.notify_all();
}

int FakeClock::Waiters() const {
  std::lock_guard<std::mutex> l(mu_);
  return waiters_;
}

void FakeClock::BlockUntilWaiters(int n) const {
  std::unique_lock<std::mutex> l(mu_);
  changed_.wait(l, [&] { return waiters_ >= n; });
}

}  // namespace svcplane
