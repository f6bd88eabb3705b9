#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "apiserver/registry/registry.h"
#include "base/logging.h"
#include "base/thread_name.h"

namespace svcplane::apiserver::server {

// Keeps an in-memory view of one kind current from the server's own registry: a full state
// first (and again after the watch ended, e.g. compaction or a cache relist), then each change.
// The server's authorizer reads RBAC objects this way, as kube-apiserver's RBAC authorizer reads
// its informers; unlike an informer it also lets a writer wait until its own write is applied
// (WaitFor), so a RoleBinding that was acknowledged already authorizes the next request.
template <typename T>
class RegistryFeed {
 public:
  struct Callbacks {
    // The whole collection: replaces everything applied before.
    std::function<void(std::vector<std::shared_ptr<const T>>)> replace;
    std::function<void(std::shared_ptr<const T>)> upsert;
    std::function<void(const T& last)> remove;
  };

  RegistryFeed(registry::Registry<T>* registry, Callbacks callbacks)
      : registry_(registry), callbacks_(std::move(callbacks)) {}
  ~RegistryFeed() { Stop(); }
  RegistryFeed(const RegistryFeed&) = delete;
  RegistryFeed& operator=(const RegistryFeed&) = delete;

  void Start(std::string thread_name) {
    thread_ = std::thread([this, name = std::move(thread_name)] {
      NameThisThread(name);
      Run();
    });
  }

  void Stop() {
    stop_.store(true);
    if (thread_.joinable()) thread_.join();
  }

  // Whether the first full state has been applied.
  bool synced() const { return synced_.load(); }

  // Waits until every change up to `revision` has been applied, or `timeout`; true if applied.
  bool WaitFor(storage::Revision revision, std::chrono::milliseconds timeout) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, timeout, [&] { return applied_.load() >= revision; });
  }

 private:
  void Applied(storage::Revision revision) {
    synced_.store(true);
    {
      std::lock_guard lock(mu_);
      if (revision > applied_.load()) applied_.store(revision);
    }
    cv_.notify_all();
  }

  void Run() {
    while (!stop_.load()) {
      auto watch = registry_->Watch("", registry::ListQuery{}, storage::WatchOptions{});
      if (!watch.ok()) {
        spdlog::warn("{} feed: {}; retrying", registry_->info().resource, watch.status().message());
        Sleep(std::chrono::seconds(1));
        continue;
      }
      size_t initial = (*watch)->initial_count();
      std::vector<std::shared_ptr<const T>> state;
      bool replaced = false;
      if (initial == 0) {
        callbacks_.replace({});
        replaced = true;
        Applied((*watch)->last_revision());
      }
      while (!stop_.load()) {
        auto batch =
            (*watch)->Next(256, std::chrono::steady_clock::now() + std::chrono::milliseconds(200));
        if (!batch.ok()) {
          spdlog::info("{} feed: watch ended ({}); re-listing", registry_->info().resource,
                       batch.status().message());
          break;
        }
        for (auto& item : *batch) {
          if (!replaced) {
            state.push_back(item.object.obj);
            if (--initial == 0) {
              callbacks_.replace(std::move(state));
              state.clear();
              replaced = true;
            }
            continue;
          }
          if (item.type == registry::WatchEventType::kDeleted) {
            callbacks_.remove(*item.object.obj);
          } else {
            callbacks_.upsert(item.object.obj);
          }
        }
        if (replaced) Applied((*watch)->last_revision());
      }
    }
  }

  void Sleep(std::chrono::milliseconds d) {
    const auto until = std::chrono::steady_clock::now() + d;
    while (!stop_.load() && std::chrono::steady_clock::now() < until) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }

  registry::Registry<T>* registry_;
  Callbacks callbacks_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> synced_{false};
  std::atomic<storage::Revision> applied_{0};
  std::mutex mu_;
  std::condition_variable cv_;
  std::thread thread_;
};

}  // namespace svcplane::apiserver::server
