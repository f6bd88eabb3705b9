#include "apiserver/rest/watch_hub.h"

#include <algorithm>

#include "base/thread_name.h"

namespace svcplane::apiserver::rest {

WatchHub::WatchHub(int threads) {
  for (int i = 0; i < threads; ++i) {
    workers_.emplace_back([this] {
      NameThisThread("svc-watch-hub");
      WorkLoop();
    });
  }
  ticker_ = std::thread([this] {
    NameThisThread("svc-watch-tick");
    TickLoop();
  });
}

WatchHub::~WatchHub() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  work_cv_.notify_all();
  tick_cv_.notify_all();
  for (auto& t : workers_) t.join();
  ticker_.join();
}

void WatchHub::Register(const std::shared_ptr<WatchPump>& pump) {
  std::lock_guard lock(mu_);
  pumps_.push_back(pump);
}

void WatchHub::Schedule(const std::shared_ptr<WatchPump>& pump) {
  if (pump->scheduled.exchange(true)) return;
  {
    std::lock_guard lock(mu_);
    if (stopping_) return;
    queue_.push_back(pump);
  }
  work_cv_.notify_one();
}

size_t WatchHub::ActiveForTest() {
  std::lock_guard lock(mu_);
  return pumps_.size();
}

void WatchHub::WorkLoop() {
  while (true) {
    std::shared_ptr<WatchPump> pump;
    {
      std::unique_lock lock(mu_);
      work_cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (stopping_) return;
      pump = std::move(queue_.front());
      queue_.pop_front();
    }
    // Clear first: news arriving while we drain schedules the pump again.
    pump->scheduled.store(false);
    bool more = false;
    {
      std::lock_guard pump_lock(pump->mu);
      more = pump->Drain();
    }
    if (more) Schedule(pump);
  }
}

void WatchHub::TickLoop() {
  while (true) {
    std::vector<std::shared_ptr<WatchPump>> live;
    {
      std::unique_lock lock(mu_);
      tick_cv_.wait_for(lock, std::chrono::milliseconds(500), [&] { return stopping_; });
      if (stopping_) return;
      live = pumps_;
    }
    auto now = std::chrono::steady_clock::now();
    std::vector<std::shared_ptr<WatchPump>> ended;
    for (auto& p : live) {
      std::lock_guard pump_lock(p->mu);
      if (!p->Tick(now)) ended.push_back(p);
    }
    if (!ended.empty()) {
      std::lock_guard lock(mu_);
      std::erase_if(pumps_, [&](const auto& p) {
        return std::find(ended.begin(), ended.end(), p) != ended.end();
      });
    }
  }
}

}  // namespace svcplane::apiserver::rest
