#pragma once

#include <memory>
#include <utility>

#include "base/check.h"
#include "client/delaying_queue.h"
#include "client/rate_limiters.h"

namespace svcplane::client {

// client-go's RateLimitingInterface, the queue controllers use:
//   while (auto key = q.Get()) {
//     Status s = Sync(*key);
//     if (s.ok()) q.Forget(*key);
//     else if (q.NumRequeues(*key) < kMaxRetries) q.AddRateLimited(*key);
//     else q.Forget(*key);  // drop
//     q.Done(*key);
//   }
template <typename T>
class RateLimitingQueue final : public DelayingQueue<T> {
 public:
  RateLimitingQueue(std::unique_ptr<RateLimiter<T>> limiter, QueueConfig config = {})
      : DelayingQueue<T>(std::move(config)), limiter_(std::move(limiter)) {
    SVC_CHECK(limiter_ != nullptr) << "RateLimitingQueue needs a rate limiter";
  }

  // AddAfter(item, limiter.When(item)).
  void AddRateLimited(const T& item) { this->AddAfter(item, limiter_->When(item)); }
  // Resets the item's failure history; does not remove it from the queue.
  void Forget(const T& item) { limiter_->Forget(item); }
  int NumRequeues(const T& item) { return limiter_->NumRequeues(item); }

 private:
  const std::unique_ptr<RateLimiter<T>> limiter_;
};

}  // namespace svcplane::client
