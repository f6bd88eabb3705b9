#pragma once

// The worker side of a controller, as upstream's processNextWorkItem loop: N threads take keys
// from a rate-limited queue, run `sync`, forget the key on success, retry it with backoff on
// error until `max_retries` requeues, then drop it (the next event re-enqueues it).

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
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

  // Nothing ready in the queue nor being synced; keys waiting for a delay do not count (a
  // snapshot; for tests).
  bool IdleForTest() const { return queue_.Len() == 0 && in_flight_.load() == 0; }
  // Syncs finished (successful or not) and keys dropped after max retries, for tests.
  int64_t SyncsForTest() const { return syncs_.load(); }
  int64_t DroppedForTest() const { return dropped_.load(); }

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
};

}  // namespace svcplane::controllers::endpointslice
