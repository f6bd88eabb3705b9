#pragma once

// The worker side of a controller, as upstream's processNextWorkItem loop: N threads take keys
// from a rate-limited queue, run `sync`, forget the key on success, retry it with backoff on
// error until `max_retries` requeues, then drop it (the next event re-enqueues it).
//
// Unlike upstream, a sync that finds the informer cache behind this controller's own writes is
// not an error: it parks the key (Park) and returns OK. The key then costs no backoff and no
// token of the shared rate-limit bucket (which paced every such retry at 10 per second, so a
// burst of 10,000 Pods took ~95 s to converge); the informer event that brings the write
// unparks it (Unpark) and it is synced again at once.

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_set>
#include <vector>

#include "base/status.h"
#include "client/rate_limiting_queue.h"

namespace svcplane::controllers::endpointslice {

using KeyQueue = client::RateLimitingQueue<std::string>;

class KeyWorkerPool {
 public:
  using SyncFn = std::function<Status(const std::string& key)>;

  // `queue` must outlive the pool. `name` only labels log lines.
  KeyWorkerPool(std::string name, KeyQueue& queue, SyncFn sync, int max_retries);
  ~KeyWorkerPool();  // Shutdown()
  KeyWorkerPool(const KeyWorkerPool&) = delete;
  KeyWorkerPool& operator=(const KeyWorkerPool&) = delete;

  // Starts `workers` threads. Each first waits until `ready()` (informer caches synced; polled
  // every 20 ms) and then runs `on_ready` once (for the whole pool) before taking keys.
  void Start(int workers, std::function<bool()> ready, std::function<void()> on_ready = {});
  // Shuts the queue down and joins the workers (a sync in progress finishes first). Idempotent.
  void Shutdown();

  // One Get/sync/Done round on the calling thread; false once the queue is shut down.
  bool ProcessNextItem();

  // Called by a sync that found the cache behind its own writes, before it returns OK. The key
  // waits for Unpark, or at most `kParkedRecheck` (in case the awaited event never comes: the
  // write was overtaken and the cache moved on without the event the sync expects).
  // The caller must look at the cache again after Park and Unpark if it caught up meanwhile:
  // an event handled between the sync's read and Park found nothing to unpark.
  void Park(const std::string& key);
  // Queues `key` at once if it is parked; does nothing otherwise. Safe from event handlers.
  void Unpark(const std::string& key);
  static constexpr std::chrono::seconds kParkedRecheck{1};

  // Nothing ready in the queue nor being synced; keys waiting for a delay do not count (a
  // snapshot; for tests).
  bool IdleForTest() const { return queue_.Len() == 0 && in_flight_.load() == 0; }
  // Syncs finished (successful or not) and keys dropped after max retries, for tests.
  int64_t SyncsForTest() const { return syncs_.load(); }
  int64_t DroppedForTest() const { return dropped_.load(); }
  bool ParkedForTest(const std::string& key) const {
    std::lock_guard<std::mutex> l(parked_mu_);
    return parked_.contains(key);
  }

 private:
  void WorkerLoop(const std::function<bool()>& ready);

  const std::string name_;
  KeyQueue& queue_;
  const SyncFn sync_;
  const int max_retries_;

  std::mutex mu_;
  std::vector<std::thread> threads_;  // guarded by mu_
  std::function<void()> on_ready_;    // guarded by mu_; reset once run
  std::atomic<bool> stopping_{false};
  std::atomic<int> in_flight_{0};
  std::atomic<int64_t> syncs_{0};
  std::atomic<int64_t> dropped_{0};

  mutable std::mutex parked_mu_;
  std::unordered_set<std::string> parked_;  // guarded by parked_mu_
};

}  // namespace svcplane::controllers::endpointslice
