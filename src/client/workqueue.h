#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "base/clock.h"
#include "base/metrics.h"
#include "client/queue_metrics.h"

namespace svcplane::client {

struct QueueConfig {
  // Metrics are kept only for a named queue with a registry (client-go's rule).
  std::string name;
  MetricsRegistry* metrics = nullptr;  // not owned; must outlive the queue
  const Clock* clock = nullptr;        // not owned; null means RealClock
};

// client-go's workqueue.Type: a FIFO with a `dirty` set (needs processing) and a `processing`
// set (handed to a worker, not yet Done). Guarantees:
//  - an item is never handed to two workers at once;
//  - any number of Adds before a Get collapse into one processing;
//  - an Add during processing causes exactly one more processing, after Done.
// Every method is safe from any thread. Workers must call Done for every item Get returned.
template <typename T>
class Queue {
 public:
  explicit Queue(QueueConfig config = {})
      : clock_(config.clock ? config.clock : &RealClock::Get()), name_(std::move(config.name)) {
    if (config.metrics != nullptr && !name_.empty()) {
      metrics_ = QueueMetricSeries::Register(*config.metrics, name_);
      metrics_loop_ = std::thread([this] { UpdateUnfinishedWorkLoop(); });
    }
  }
  virtual ~Queue() {
    ShutDown();
    if (metrics_loop_.joinable()) metrics_loop_.join();
  }
  Queue(const Queue&) = delete;
  Queue& operator=(const Queue&) = delete;

  // Ignored after shutdown.
  void Add(const T& item) {
    std::lock_guard<std::mutex> l(mu_);
    if (shutting_down_) return;
    if (!dirty_.insert(item).second) return;  // already waiting: dedup
    if (metrics_) OnAddLocked(item);
    if (processing_.contains(item)) return;  // re-queued by Done
    queue_.push_back(item);
    if (metrics_) metrics_->depth->Inc();
    cond_.notify_one();
  }

  // Blocks until an item is available. Returns nullopt once the queue is shut down and empty;
  // items queued before ShutDown are still handed out.
  std::optional<T> Get() {
    std::unique_lock<std::mutex> l(mu_);
    cond_.wait(l, [&] { return !queue_.empty() || shutting_down_; });
    if (queue_.empty()) return std::nullopt;
    T item = std::move(queue_.front());
    queue_.pop_front();
    processing_.insert(item);
    dirty_.erase(item);
    if (metrics_) OnGetLocked(item);
    return item;
  }

  // Marks `item` finished; if it was added again meanwhile, it goes back to the tail.
  void Done(const T& item) {
    std::lock_guard<std::mutex> l(mu_);
    processing_.erase(item);
    if (metrics_) OnDoneLocked(item);
    if (dirty_.contains(item)) {
      queue_.push_back(item);
      if (metrics_) metrics_->depth->Inc();
      cond_.notify_one();
    } else if (processing_.empty()) {
      drained_.notify_all();
    }
  }

  // Items waiting for a worker (excludes items being processed). Informational only.
  int Len() const {
    std::lock_guard<std::mutex> l(mu_);
    return static_cast<int>(queue_.size());
  }

  // Stops accepting items and wakes every Get; queued items are still handed out.
  virtual void ShutDown() {
    std::lock_guard<std::mutex> l(mu_);
    shutting_down_ = true;
    drain_ = false;
    cond_.notify_all();
    drained_.notify_all();
    metrics_wake_.notify_all();
  }

  // As ShutDown, then blocks until every item handed out has been marked Done (or until a
  // concurrent ShutDown cancels the drain).
  virtual void ShutDownWithDrain() {
    std::unique_lock<std::mutex> l(mu_);
    shutting_down_ = true;
    drain_ = true;
    cond_.notify_all();
    metrics_wake_.notify_all();
    drained_.wait(l, [&] { return processing_.empty() || !drain_; });
  }

  bool ShuttingDown() const {
    std::lock_guard<std::mutex> l(mu_);
    return shutting_down_;
  }

  // Recomputes workqueue_unfinished_work_seconds and _longest_running_processor_seconds now
  // (the background loop does it every 500 ms).
  void UpdateUnfinishedWorkMetricsForTest() { UpdateUnfinishedWork(); }

 protected:
  const Clock& clock() const { return *clock_; }
  const std::optional<QueueMetricSeries>& metrics() const { return metrics_; }

 private:
  void OnAddLocked(const T& item) {
    metrics_->adds->Inc();
    add_times_.try_emplace(item, clock_->Now());
  }
  void OnGetLocked(const T& item) {
    const TimePoint now = clock_->Now();
    metrics_->depth->Dec();
    if (auto it = add_times_.find(item); it != add_times_.end()) {
      metrics_->queue_latency->Observe(Seconds(now - it->second));
      add_times_.erase(it);
    }
    processing_start_[item] = now;
  }
  void OnDoneLocked(const T& item) {
    if (auto it = processing_start_.find(item); it != processing_start_.end()) {
      metrics_->work_duration->Observe(Seconds(clock_->Now() - it->second));
      processing_start_.erase(it);
    }
  }

  void UpdateUnfinishedWork() {
    std::lock_guard<std::mutex> l(mu_);
    if (!metrics_) return;
    const TimePoint now = clock_->Now();
    double total = 0, longest = 0;
    for (const auto& [item, start] : processing_start_) {
      const double s = Seconds(now - start);
      total += s;
      longest = std::max(longest, s);
    }
    metrics_->unfinished_work_seconds->Set(total);
    metrics_->longest_running_processor->Set(longest);
  }

  void UpdateUnfinishedWorkLoop() {
    while (true) {
      {
        std::unique_lock<std::mutex> l(mu_);
        const TimePoint deadline = clock_->Now() + std::chrono::milliseconds(500);
        if (clock_->WaitUntil(l, metrics_wake_, deadline, [&] { return shutting_down_; })) return;
      }
      UpdateUnfinishedWork();
    }
  }

  static double Seconds(Duration d) { return std::chrono::duration<double>(d).count(); }

  // Constant after construction.
  const Clock* clock_;
  const std::string name_;
  std::optional<QueueMetricSeries> metrics_;

  mutable std::mutex mu_;
  std::condition_variable cond_;          // an item was queued, or shutdown
  std::condition_variable drained_;       // processing became empty, or the drain was cancelled
  std::condition_variable metrics_wake_;  // shutdown, for the metrics loop
  // Guarded by mu_.
  std::deque<T> queue_;
  std::unordered_set<T> dirty_;
  std::unordered_set<T> processing_;
  bool shutting_down_ = false;
  bool drain_ = false;
  std::unordered_map<T, TimePoint> add_times_;         // metrics only
  std::unordered_map<T, TimePoint> processing_start_;  // metrics only

  std::thread metrics_loop_;
};

}  // namespace svcplane::client
