#include "client/token_bucket.h"

#include <algorithm>

namespace svcplane::client {

TokenBucket::TokenBucket(double qps, int burst, const Clock& clock)
    : qps_(qps), burst_(burst), clock_(clock), tokens_(burst), last_(clock.Now()) {}

void TokenBucket::RefillLocked(TimePoint now) {
  if (now <= last_) return;
  const double elapsed = std::chrono::duration<double>(now - last_).count();
  tokens_ = std::min<double>(burst_, tokens_ + elapsed * qps_);
  last_ = now;
}

Duration TokenBucket::Reserve() {
  std::lock_guard<std::mutex> l(mu_);
  RefillLocked(clock_.Now());
  tokens_ -= 1;
  if (tokens_ >= 0) return Duration::zero();
  // A bucket that never refills: "forever", kept far from overflow when added to a time.
  if (qps_ <= 0) return std::chrono::hours(24 * 365 * 100);
  return std::chrono::duration_cast<Duration>(std::chrono::duration<double>(-tokens_ / qps_));
}

bool TokenBucket::TryAccept() {
  std::lock_guard<std::mutex> l(mu_);
  RefillLocked(clock_.Now());
  if (tokens_ < 1) return false;
  tokens_ -= 1;
  return true;
}

void TokenBucket::Wait() { clock_.Sleep(Reserve()); }

}  // namespace svcplane::client
