#pragma once

#include <mutex>

#include "base/clock.h"

namespace svcplane::client {

// A token bucket with golang.org/x/time/rate semantics, as client-go uses for both the
// work-queue BucketRateLimiter and the client-side QPS/burst limit: tokens refill continuously
// at `qps` per second up to `burst`, and the bucket starts full. Safe from any thread.
class TokenBucket {
 public:
  TokenBucket(double qps, int burst, const Clock& clock);

  // Takes one token now, even if it is not there yet, and returns how long the caller must wait
  // before using it (zero if a token was available). The reservation is never given back.
  Duration Reserve();

  // Takes a token only if one is available now.
  bool TryAccept();

  // Reserve(), then sleep on the clock for the returned delay.
  void Wait();

  double qps() const { return qps_; }
  int burst() const { return burst_; }

 private:
  void RefillLocked(TimePoint now);

  // Constant after construction.
  const double qps_;
  const int burst_;
  const Clock& clock_;

  std::mutex mu_;
  // Guarded by mu_.
  double tokens_;
  TimePoint last_;
};

}  // namespace svcplane::client
