#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <utility>
#include <vector>

#include "base/clock.h"
#include "client/token_bucket.h"

namespace svcplane::client {

// client-go's workqueue.RateLimiter. Implementations are safe from any thread.
template <typename T>
class RateLimiter {
 public:
  virtual ~RateLimiter() = default;
  // How long to wait before retrying `item`; records one failure.
  virtual Duration When(const T& item) = 0;
  // Failures recorded for `item` since its last Forget.
  virtual int NumRequeues(const T& item) = 0;
  // Stops tracking `item` (call on success).
  virtual void Forget(const T& item) = 0;
};

// base * 2^failures, capped at `max`.
template <typename T>
class ItemExponentialFailureRateLimiter final : public RateLimiter<T> {
 public:
  ItemExponentialFailureRateLimiter(Duration base, Duration max) : base_(base), max_(max) {}

  Duration When(const T& item) override {
    std::lock_guard<std::mutex> l(mu_);
    const int exp = failures_[item]++;
    // Floating point as upstream, so large exponents saturate instead of overflowing.
    const double backoff = static_cast<double>(base_.count()) * std::pow(2.0, exp);
    if (backoff > static_cast<double>(max_.count())) return max_;
    return Duration(static_cast<Duration::rep>(backoff));
  }
  int NumRequeues(const T& item) override {
    std::lock_guard<std::mutex> l(mu_);
    auto it = failures_.find(item);
    return it == failures_.end() ? 0 : it->second;
  }
  void Forget(const T& item) override {
    std::lock_guard<std::mutex> l(mu_);
    failures_.erase(item);
  }

 private:
  const Duration base_;
  const Duration max_;
  std::mutex mu_;
  std::unordered_map<T, int> failures_;  // guarded by mu_
};

// `fast` for the first `max_fast_attempts` failures, `slow` after.
template <typename T>
class ItemFastSlowRateLimiter final : public RateLimiter<T> {
 public:
  ItemFastSlowRateLimiter(Duration fast, Duration slow, int max_fast_attempts)
      : fast_(fast), slow_(slow), max_fast_attempts_(max_fast_attempts) {}

  Duration When(const T& item) override {
    std::lock_guard<std::mutex> l(mu_);
    return ++failures_[item] <= max_fast_attempts_ ? fast_ : slow_;
  }
  int NumRequeues(const T& item) override {
    std::lock_guard<std::mutex> l(mu_);
    auto it = failures_.find(item);
    return it == failures_.end() ? 0 : it->second;
  }
  void Forget(const T& item) override {
    std::lock_guard<std::mutex> l(mu_);
    failures_.erase(item);
  }

 private:
  const Duration fast_;
  const Duration slow_;
  const int max_fast_attempts_;
  std::mutex mu_;
  std::unordered_map<T, int> failures_;  // guarded by mu_
};

// One token bucket shared by all items: bounds the overall retry rate.
template <typename T>
class BucketRateLimiter final : public RateLimiter<T> {
 public:
  BucketRateLimiter(double qps, int burst, const Clock& clock) : bucket_(qps, burst, clock) {}

  Duration When(const T&) override { return bucket_.Reserve(); }
  int NumRequeues(const T&) override { return 0; }
  void Forget(const T&) override {}

 private:
  TokenBucket bucket_;
};

// The largest delay of its children. Every child sees every call, so all record the failure.
template <typename T>
class MaxOfRateLimiter final : public RateLimiter<T> {
 public:
  explicit MaxOfRateLimiter(std::vector<std::unique_ptr<RateLimiter<T>>> limiters)
      : limiters_(std::move(limiters)) {}

  Duration When(const T& item) override {
    Duration result = Duration::zero();
    for (auto& l : limiters_) result = std::max(result, l->When(item));
    return result;
  }
  int NumRequeues(const T& item) override {
    int result = 0;
    for (auto& l : limiters_) result = std::max(result, l->NumRequeues(item));
    return result;
  }
  void Forget(const T& item) override {
    for (auto& l : limiters_) l->Forget(item);
  }

 private:
  const std::vector<std::unique_ptr<RateLimiter<T>>> limiters_;
};

// Max-of(exponential base..max, bucket 10 qps / burst 100). client-go's
// DefaultControllerRateLimiter is base 5 ms, max 1000 s; the EndpointSlice controllers pass 1 s.
template <typename T>
std::unique_ptr<RateLimiter<T>> NewControllerRateLimiter(
    const Clock& clock, Duration base = std::chrono::milliseconds(5),
    Duration max = std::chrono::seconds(1000)) {
  std::vector<std::unique_ptr<RateLimiter<T>>> children;
  children.push_back(std::make_unique<ItemExponentialFailureRateLimiter<T>>(base, max));
  children.push_back(std::make_unique<BucketRateLimiter<T>>(10, 100, clock));
  return std::make_unique<MaxOfRateLimiter<T>>(std::move(children));
}

template <typename T>
std::unique_ptr<RateLimiter<T>> DefaultControllerRateLimiter(const Clock& clock) {
  return NewControllerRateLimiter<T>(clock);
}

}  // namespace svcplane::client
