#pragma once

// client-go's Reflector: keeps a cache in step with one resource by listing it, then watching
// from the list's resourceVersion.
//   - As client-go, the first list asks for resourceVersion "0" in pages of page_size (a server
//     with a watch cache, as kube-apiserver and ours, ignores the limit at "0" and answers the
//     whole list at once); a relist asks for the last version seen, unpaged, unless the server
//     paged at "0"; a version that is gone or too new falls back to "" (a consistent read).
//     A continue token that expires mid-way (410) restarts the list unpaged.
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
  // One watch event (never kBookmark); `more_ready`: another follows at once (WatchEvent).
  std::function<void(WatchEventType type, ObjectPtr<T> obj, bool more_ready)> apply;
  // A watch ended: whatever `apply` held back for a batch must reach its consumers now.
  // Optional.
  std::function<void()> watch_ended;
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

  // client-go's relistResourceVersion: "0" for the first list (any recent state will do, and
  // kube-apiserver serves it from the watch cache), the last version seen for a relist (a list
  // "not older than" it), "" (a consistent read) once that version proved unavailable.
  std::string RelistResourceVersion() const {
    if (last_sync_rv_unavailable_) return "";
    if (last_sync_rv_.empty()) return "0";
    return last_sync_rv_;
  }

  // client-go's pager: pages of `page_size` (0: one request) from `opts`; the pages after the
  // first carry the continue token and no resourceVersion; a continue token that expired (410)
  // restarts as one unpaged list at the requested version. `*paginated`: the server paged.
  Result<ObjectList<T>> ListPages(ListOptions opts, int64_t page_size, bool* paginated) {
    opts.limit = page_size;
    const ListOptions requested = opts;
    ObjectList<T> all;
    while (true) {
      auto page = client_.List(options_.namespace_, opts);
      if (!page.ok()) {
        if (IsResourceExpired(page.status()) && !opts.continue_token.empty()) {
          ListOptions whole = requested;
          whole.limit = 0;
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
      opts.resource_version
          .clear();  // "specifying resource version is not allowed when using continue"
      opts.resource_version_match.clear();
      *paginated = true;
    }
  }

  // client-go's Reflector.list: which version and page size to list with, and the fallback to
  // a consistent read when that version is unavailable.
  Result<ObjectList<T>> ListAll() {
    ++lists_;
    ListOptions opts;
    opts.label_selector = options_.label_selector;
    opts.field_selector = options_.field_selector;
    opts.resource_version = RelistResourceVersion();
    int64_t page_size = options_.page_size;
    if (!paginated_result_ && !opts.resource_version.empty() && opts.resource_version != "0") {
      // A list "not older than" a version is served from the watch cache only when unpaged:
      // do not send the whole list to etcd on a relist (client-go turns paging off here too).
      // At "0" the watch cache ignores the limit anyway, and a server without one pages.
      page_size = 0;
    }
    bool paginated = false;
    auto list = ListPages(opts, page_size, &paginated);
    if (!list.ok() &&
        (IsResourceExpired(list.status()) || IsTooLargeResourceVersion(list.status()))) {
      // The version is compacted away, or the server's cache is behind it: a consistent read.
      last_sync_rv_unavailable_ = true;
      ListOptions again = opts;
      again.resource_version = RelistResourceVersion();
      list = ListPages(again, page_size, &paginated);
    }
    if (!list.ok()) return list.status();
    // A server that pages lists at "0" has no watch cache: keep paging later relists too.
    if (opts.resource_version == "0" && paginated) paginated_result_ = true;
    last_sync_rv_unavailable_ = false;
    last_sync_rv_ = list->resource_version;
    return list;
  }

  // client-go's isTooLargeResourceVersionError: the server's cache has not caught up with the
  // asked version (504 Timeout "Too large resource version").
  static bool IsTooLargeResourceVersion(const Status& st) {
    return IsTimeout(st) && st.message().find("Too large resource version") != std::string::npos;
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
            last_sync_rv_ = rv;
            if (ev.type != WatchEventType::kBookmark) {
              sink_.apply(ev.type, std::move(ev.object), ev.more_ready);
            }
            sink_.progress(rv);
            return !cancel->cancelled();
          },
          *cancel);
      if (sink_.watch_ended) sink_.watch_ended();
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
  // Reflector thread only (client-go's lastSyncResourceVersion and friends).
  std::string last_sync_rv_;
  bool last_sync_rv_unavailable_ = false;
  bool paginated_result_ = false;
  std::atomic<int> lists_{0};
  std::atomic<int> watches_{0};
};

}  // namespace svcplane::client::informers
