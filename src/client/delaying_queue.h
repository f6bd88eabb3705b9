#pragma once

#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <vector>

#include "client/workqueue.h"

namespace svcplane::client {

// client-go's DelayingInterface: a Queue plus AddAfter, driven by the queue's Clock. A background
// thread holds waiting items ordered by ready time and Adds each one when its time comes.
// Safe from any thread.
template <typename T>
class DelayingQueue : public Queue<T> {
 public:
  explicit DelayingQueue(QueueConfig config = {}) : Queue<T>(std::move(config)) {
    loop_ = std::thread([this] { WaitingLoop(); });
  }
  ~DelayingQueue() override {
    Stop();
    loop_.join();
  }

  // Adds `item` once `delay` has passed; d <= 0 adds now. If the item already waits, the earlier
  // ready time wins. Ignored after shutdown. Counts as a retry in the metrics.
  void AddAfter(const T& item, Duration delay) {
    if (this->ShuttingDown()) return;
    if (this->metrics()) this->metrics()->retries->Inc();
    if (delay <= Duration::zero()) {
      this->Add(item);
      return;
    }
    std::lock_guard<std::mutex> l(mu_);
    const TimePoint ready_at = this->clock().Now() + delay;
    if (auto it = index_.find(item); it != index_.end()) {
      if (ready_at >= it->second->first) return;  // earliest wins
      waiting_.erase(it->second);
      it->second = waiting_.emplace(ready_at, item);
    } else {
      index_.emplace(item, waiting_.emplace(ready_at, item));
    }
    changed_ = true;
    wake_.notify_one();
  }

  // Items waiting for their delay (for tests and debugging).
  int WaitingLen() const {
    std::lock_guard<std::mutex> l(mu_);
    return static_cast<int>(waiting_.size());
  }

  // Pending delayed items are dropped.
  void ShutDown() override {
    Stop();
    Queue<T>::ShutDown();
  }
  void ShutDownWithDrain() override {
    Stop();
    Queue<T>::ShutDownWithDrain();
  }

 private:
  // Upstream wakes at least every 10 s even with nothing due, as a safety net.
  static constexpr Duration kMaxWait = std::chrono::seconds(10);

  void Stop() {
    std::lock_guard<std::mutex> l(mu_);
    stopping_ = true;
    wake_.notify_all();
  }

  void WaitingLoop() {
    std::unique_lock<std::mutex> l(mu_);
    std::vector<T> ready;
    while (!stopping_) {
      const TimePoint now = this->clock().Now();
      while (!waiting_.empty() && waiting_.begin()->first <= now) {
        auto head = waiting_.begin();
        index_.erase(head->second);
        ready.push_back(std::move(head->second));
        waiting_.erase(head);
      }
      if (!ready.empty()) {
        l.unlock();  // Add takes the queue's lock; never hold both
        for (const T& item : ready) this->Add(item);
        ready.clear();
        l.lock();
        continue;
      }
      TimePoint deadline = now + kMaxWait;
      if (!waiting_.empty()) deadline = std::min(deadline, waiting_.begin()->first);
      changed_ = false;
      this->clock().WaitUntil(l, wake_, deadline, [&] { return stopping_ || changed_; });
    }
  }

  mutable std::mutex mu_;
  std::condition_variable wake_;
  // Guarded by mu_.
  std::multimap<TimePoint, T> waiting_;
  std::unordered_map<T, typename std::multimap<TimePoint, T>::iterator> index_;
  bool changed_ = false;  // a new or earlier entry arrived
  bool stopping_ = false;

  std::thread loop_;
};

}  // namespace svcplane::client
