#pragma once

// client-go's Reflector: keeps a cache in step with one resource by listing it, then watching
// from the list's resourceVersion.
//   - The list is paged (limit page_size) at resourceVersion "" (a consistent read); a continue
//     token that expires mid-way (410) restarts it unpaged.
//   - Watches ask for bookmarks and end server-side after a random 5-10 min (timeoutSeconds),
//     then resume from the last resourceVersion seen, so no event is lost or repeated.
//   - 410 Gone (the resourceVersion was compacted away) relists at once.
//   - A broken connection or 429 backs off (800ms doubling to 30s, jittered) and re-watches;
//     any other error backs off and relists. A watch that ends within a second without any
//     event also counts as an error, so a misbehaving server cannot make it spin.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "base/clock.h"
#include "base/logging.h"
#include "client/errors.h"
#include "client/informers/backoff.h"
#include "client/typed/interface.h"

namespace svcplane::client::informers {

struct ReflectorOptions {
  const Clock* clock = nullptr;  // null: RealClock
  int64_t page_size = 500;       // client-go's default page size
  BackoffOptions backoff;
  // Watches time out server-side after a random duration in [min, 2 x min].
  std::chrono::seconds min_watch_timeout{std::chrono::minutes(5)};
  std::string namespace_;  // "" for all namespaces (and for cluster-scoped kinds)
  std::string label_selector;
  std::string field_selector;
};

// What the reflector feeds (the informer). Called from the reflector's thread only.
template <typename T>
struct ReflectorSink {
  // A full list: the cache becomes exactly `items`, at `resource_version`.
  std::function<void(std::vector<ObjectPtr<T>> items, const std::string& resource_version)> replace;
  // One watch event (never kBookmark).
  std::function<void(WatchEventType type, ObjectPtr<T> obj)> apply;
  // The cache is now at `resource_version` (bookmarks, and after every event).
  std::function<void(const std::string& resource_version)> progress;
};

template <typename T>
class Reflector {
 public:
  Reflector(ResourceClient<T>& client, ReflectorSink<T> sink, ReflectorOptions options)
      : client_(client),
        sink_(std::move(sink)),
        options_(std::move(options)),
        clock_(options_.clock ? *options_.clock : RealClock::Get()),
        backoff_(clock_, options_.backoff),
        rng_(std::random_device{}()) {}

  // Runs until Stop(); call from one thread.
  void Run() {
    while (!stopped()) {
      Status st = ListAndWatch();
      if (stopped()) break;
      if (!st.ok()) {
        spdlog::warn("reflector: {}", st.ToString());
        Wait(backoff_.Next());
      }
    }
  }

  // Safe from any thread; returns at once. Run returns soon after (an in-flight list page
  // finishes first).
  void Stop() {
    std::lock_guard lock(mu_);
    stopped_ = true;
    if (cancel_) cancel_->Cancel();
    cv_.notify_all();
  }

  // Lists (counted) since start: for tests and metrics.
  int lists() const { return lists_.load(); }
  int watches() const { return watches_.load(); }

 private:
  bool stopped() const {
    std::lock_guard lock(mu_);
    return stopped_;
  }

  void Wait(Duration d) {
    std::unique_lock lock(mu_);
    clock_.WaitUntil(lock, cv_, clock_.Now() + d, [this] { return stopped_; });
  }

  Result<ObjectList<T>> ListAll() {
    ++lists_;
    ListOptions opts;
    opts.label_selector = options_.label_selector;
    opts.field_selector = options_.field_selector;
    opts.limit = options_.page_size;
    ObjectList<T> all;
    while (true) {
      auto page = client_.List(options_.namespace_, opts);
      if (!page.ok()) {
        if (IsGone(page.status()) && !opts.continue_token.empty()) {
          // The snapshot behind the continue token was compacted: one consistent unpaged list.
          ListOptions whole = opts;
          whole.limit = 0;
          whole.continue_token.clear();
          return client_.List(options_.namespace_, whole);
        }
        return page.status();
      }
      if (all.items.empty()) {
        all.items = std::move(page->items);
      } else {
        all.items.insert(all.items.end(), std::make_move_iterator(page->items.begin()),
                         std::make_move_iterator(page->items.end()));
      }
      all.resource_version = page->resource_version;
      if (page->continue_token.empty() || stopped()) return all;
      opts.continue_token = std::move(page->continue_token);
    }
  }

  Status ListAndWatch() {
    auto list = ListAll();
    if (!list.ok()) return list.status();
    if (stopped()) return Status::Ok();
    std::string rv = list->resource_version;
    sink_.replace(std::move(list->items), rv);
    backoff_.Reset();
    while (!stopped()) {
      ListOptions opts;
      opts.label_selector = options_.label_selector;
      opts.field_selector = options_.field_selector;
      opts.resource_version = rv;
      opts.allow_watch_bookmarks = true;
      const int64_t min_s = options_.min_watch_timeout.count();
      opts.timeout_seconds = min_s + std::uniform_int_distribution<int64_t>(0, min_s)(rng_);
      auto cancel = std::make_shared<CancelToken>();
      {
        std::lock_guard lock(mu_);
        if (stopped_) return Status::Ok();
        cancel_ = cancel;
      }
      ++watches_;
      const TimePoint started = clock_.Now();
      int events = 0;
      Status st = client_.Watch(
          options_.namespace_, opts,
          [&](WatchEvent<T> ev) {
            ++events;
            rv = ev.object->metadata.resource_version;
            if (ev.type != WatchEventType::kBookmark) sink_.apply(ev.type, std::move(ev.object));
            sink_.progress(rv);
            return !cancel->cancelled();
          },
          *cancel);
      {
        std::lock_guard lock(mu_);
        cancel_.reset();
      }
      if (stopped()) return Status::Ok();
      if (st.ok()) {
        if (events == 0 && clock_.Now() - started < std::chrono::seconds(1)) {
          return UnavailableError("very short watch: the watch ended at once without events");
        }
        continue;  // a server-side timeout: resume from rv
      }
      if (IsGone(st)) {
        spdlog::info("reflector: watch from resourceVersion {} expired ({}); relisting", rv,
                     st.message());
        return Status::Ok();
      }
      if (IsServiceUnavailable(st) || IsTooManyRequests(st) || IsTimeout(st)) {
        spdlog::info("reflector: watch ended: {}; re-watching from {}", st.ToString(), rv);
        Wait(backoff_.Next());
        continue;
      }
      return st;
    }
    return Status::Ok();
  }

  ResourceClient<T>& client_;
  const ReflectorSink<T> sink_;
  const ReflectorOptions options_;
  const Clock& clock_;
  Backoff backoff_;
  std::mt19937_64 rng_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stopped_ = false;                 // guarded by mu_
  std::shared_ptr<CancelToken> cancel_;  // guarded by mu_: the running watch's
  std::atomic<int> lists_{0};
  std::atomic<int> watches_{0};
};

}  // namespace svcplane::client::informers
