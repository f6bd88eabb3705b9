#pragma once

#include <algorithm>
#include <chrono>
#include <mutex>
#include <random>

#include "base/clock.h"

namespace svcplane::client::informers {

// client-go's exponential backoff manager as reflectors use it (NewExponentialBackoffManager(
// 800ms, 30s, 2m, 2.0, 1.0)): each Next() doubles the base delay up to `max`, adds up to
// `jitter` x delay of random extra so a fleet of clients does not retry in step, and starts over
// from `initial` once no backoff was needed for `reset_after`. Unlike client-go the jittered
// delay is clamped to `max`, so the wait never exceeds the documented ceiling.
struct BackoffOptions {
  std::chrono::milliseconds initial{800};
  std::chrono::milliseconds max{30000};
  double factor = 2.0;
  double jitter = 1.0;
  std::chrono::milliseconds reset_after{std::chrono::minutes(2)};
};

class Backoff {
 public:
  Backoff(const Clock& clock, BackoffOptions options, uint64_t seed = std::random_device{}())
      : clock_(clock), options_(options), next_(options.initial), rng_(seed) {}

  // The delay before the next attempt.
  Duration Next() {
    std::lock_guard lock(mu_);
    const TimePoint now = clock_.Now();
    if (used_ && now - last_ >= options_.reset_after) next_ = options_.initial;
    used_ = true;
    last_ = now;
    Duration base = next_;
    next_ = std::min<Duration>(std::chrono::duration_cast<Duration>(next_ * options_.factor),
                               options_.max);
    Duration jittered = base;
    if (options_.jitter > 0) {
      std::uniform_real_distribution<double> extra(0.0, options_.jitter);
      jittered += std::chrono::duration_cast<Duration>(base * extra(rng_));
    }
    return std::min<Duration>(jittered, options_.max);
  }

  // Back to `initial` (after a success that proves the remote side healthy again).
  void Reset() {
    std::lock_guard lock(mu_);
    next_ = options_.initial;
  }

 private:
  const Clock& clock_;
  const BackoffOptions options_;
  std::mutex mu_;
  Duration next_;
  TimePoint last_{};
  bool used_ = false;
  std::mt19937_64 rng_;
};

}  // namespace svcplane::client::informers
