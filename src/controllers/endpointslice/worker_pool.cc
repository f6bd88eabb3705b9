#include "controllers/endpointslice/worker_pool.h"

#include <spdlog/spdlog.h>

#include <chrono>

namespace svcplane::controllers::endpointslice {

KeyWorkerPool::KeyWorkerPool(std::string name, KeyQueue& queue, SyncFn sync, int max_retries)
    : name_(std::move(name)), queue_(queue), sync_(std::move(sync)), max_retries_(max_retries) {}

KeyWorkerPool::~KeyWorkerPool() { Shutdown(); }

void KeyWorkerPool::Start(int workers, std::function<bool()> ready,
                          std::function<void()> on_ready) {
  std::lock_guard<std::mutex> l(mu_);
  on_ready_ = std::move(on_ready);
  for (int i = 0; i < workers; ++i) {
    threads_.emplace_back([this, ready] { WorkerLoop(ready); });
  }
}

void KeyWorkerPool::WorkerLoop(const std::function<bool()>& ready) {
  // Real time on purpose: cache sync is driven by the informers' threads, not by a test clock.
  while (ready && !ready()) {
    if (stopping_.load() || queue_.ShuttingDown()) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  {
    std::function<void()> once;
    {
      std::lock_guard<std::mutex> l(mu_);
      once.swap(on_ready_);
    }
    if (once) once();
  }
  while (ProcessNextItem()) {
  }
}

bool KeyWorkerPool::ProcessNextItem() {
  auto key = queue_.Get();
  if (!key) return false;
  ++in_flight_;
  {
    // Whatever parked the key is looked at again now (the recheck after kParkedRecheck, or an
    // unrelated event); the sync parks it again if the cache is still behind.
    std::lock_guard<std::mutex> l(parked_mu_);
    parked_.erase(*key);
  }
  Status s = sync_(*key);
  ++syncs_;
  if (s.ok()) {
    queue_.Forget(*key);
  } else if (queue_.NumRequeues(*key) < max_retries_) {
    spdlog::debug("{}: error syncing {}, retrying: {}", name_, *key, s.ToString());
    queue_.AddRateLimited(*key);
  } else {
    spdlog::warn("{}: dropping {} out of the queue after {} retries: {}", name_, *key, max_retries_,
                 s.ToString());
    ++dropped_;
    queue_.Forget(*key);
  }
  queue_.Done(*key);
  --in_flight_;
  return true;
}

void KeyWorkerPool::Park(const std::string& key) {
  {
    std::lock_guard<std::mutex> l(parked_mu_);
    parked_.insert(key);
  }
  // A delayed add, not a rate-limited one: no backoff, no token from the shared bucket.
  queue_.AddAfter(key, kParkedRecheck);
}

void KeyWorkerPool::Unpark(const std::string& key) {
  {
    std::lock_guard<std::mutex> l(parked_mu_);
    if (parked_.erase(key) == 0) return;
  }
  queue_.Add(key);
}

void KeyWorkerPool::Shutdown() {
  stopping_.store(true);
  queue_.ShutDown();
  std::vector<std::thread> threads;
  {
    std::lock_guard<std::mutex> l(mu_);
    threads.swap(threads_);
  }
  for (auto& t : threads) {
    if (t.joinable()) t.join();
  }
}

}  // namespace svcplane::controllers::endpointslice
