#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace svcplane::apiserver::rest {

// One watch response being fed: drains its storage watch into its HTTP stream. Drain and Tick
// never run concurrently for one pump (the hub serialises them with `mu`).
class WatchPump {
 public:
  virtual ~WatchPump() = default;
  // Moves available events to the client. Runs on a hub thread after the watch's notify.
  // Returns true when it stopped with events left, to be scheduled again.
  virtual bool Drain() = 0;
  // Periodic: bookmarks and the request timeout. Returns false once the pump has ended.
  virtual bool Tick(std::chrono::steady_clock::time_point now) = 0;

  std::mutex mu;
  std::atomic<bool> scheduled{false};
};

// Runs every watch pump of the server on a few threads, so thousands of open watches cost no
// thread each: a pump is scheduled when its storage watch has news (notify) and ticked twice a
// second for bookmarks and timeouts.
class WatchHub {
 public:
  explicit WatchHub(int threads);
  ~WatchHub();

  void Register(const std::shared_ptr<WatchPump>& pump);
  // Safe from any thread, including a storage dispatcher's notify; cheap when already queued.
  void Schedule(const std::shared_ptr<WatchPump>& pump);
  size_t ActiveForTest();

 private:
  void WorkLoop();
  void TickLoop();

  std::mutex mu_;
  // Two condition variables on purpose: with one, Schedule's notify_one could wake the ticker,
  // whose predicate ignores the queue, and the pump then waited for the next tick (~450 ms).
  std::condition_variable work_cv_;                // workers: the queue has a pump, or stopping
  std::condition_variable tick_cv_;                // the ticker: stopping
  std::deque<std::shared_ptr<WatchPump>> queue_;   // guarded by mu_
  std::vector<std::shared_ptr<WatchPump>> pumps_;  // guarded by mu_; owned until ended
  bool stopping_ = false;                          // guarded by mu_
  std::vector<std::thread> workers_;
  std::thread ticker_;
};

}  // namespace svcplane::apiserver::rest
