#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

#include "storage/internal/versioned_map.h"
#include "storage/store.h"

namespace svcplane::storage::cache {

struct CachedStoreOptions {
  // History the cache keeps for watch resumption and pinned lists (like the cacher's ring).
  internal::HistoryOptions history;
  // How long a consistent read waits for the cache to catch up with the backend
  // before it falls back to reading the backend directly.
  std::chrono::milliseconds catch_up_wait = std::chrono::seconds(3);
  // Events the single upstream watch may buffer before the backend drops it (then the cache
  // re-lists and ends its own watches).
  size_t upstream_queue = 1 << 20;
  size_t list_page = 10'000;
};

// A watch cache in front of any Store, as kube-apiserver's cacher: one list plus one upstream
// watch over the whole key space keep an in-memory copy (internal::VersionedMap) from which
// Get, List and Watch are served, so thousands of watchers cost the backend a single watch.
// Writes go to the backend and return once it committed them. A client still reads its own
// writes: consistent reads (kLatest, Get), Watch and CompactedRevision first wait until the
// cache reached the backend's current revision, lists at a newer revision wait for it. Pinned
// lists older than the cache's history go to the backend.
// Watches older than the cache's history get Gone. If the upstream watch fails the cache
// re-lists and ends its watches with Unavailable; their clients re-watch.
class CachedStore final : public Store {
 public:
  static Result<std::unique_ptr<CachedStore>> Open(std::unique_ptr<Store> upstream,
                                                   CachedStoreOptions options = {});
  ~CachedStore() override;

  Result<KeyValue> Get(std::string_view key) override;
  Result<KeyValue> GetCached(std::string_view key) override;
  Result<ListResult> List(const ListOptions& options) override;
  Result<KeyValue> Create(std::string_view key, std::shared_ptr<const std::string> value) override;
  Result<KeyValue> Update(std::string_view key, std::shared_ptr<const std::string> value,
                          Revision expected_mod_revision) override;
  Result<KeyValue> Delete(std::string_view key, Revision expected_mod_revision) override;
  Result<std::unique_ptr<storage::WatchStream>> Watch(std::string_view prefix,
                                                      Revision after_revision,
                                                      const WatchOptions& options) override;
  Status Compact(Revision revision) override;
  Revision CurrentRevision() override;
  Revision CompactedRevision() override;

  Store& upstream() { return *upstream_; }
  // Times the cache had to re-list (its upstream watch failed).
  int64_t relists() const { return relists_.load(); }

 private:
  CachedStore(std::unique_ptr<Store> upstream, CachedStoreOptions options);
  // Lists the backend and opens the upstream watch at the list's revision.
  Status Sync(const Status& watch_error);
  void FeedLoop();
  bool CaughtUp(Revision revision) const;

  std::unique_ptr<Store> upstream_;
  const CachedStoreOptions options_;
  internal::VersionedMap map_;

  std::mutex watch_mu_;
  std::unique_ptr<WatchStream> upstream_watch_;  // guarded by watch_mu_ (swapped on re-list)
  std::atomic<bool> stopping_{false};
  std::atomic<int64_t> relists_{0};
  std::thread feeder_;
};

}  // namespace svcplane::storage::cache
