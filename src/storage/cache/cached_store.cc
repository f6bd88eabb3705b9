#include "storage/cache/cached_store.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <utility>

namespace svcplane::storage::cache {

using internal::HistoryEntry;

Result<std::unique_ptr<CachedStore>> CachedStore::Open(std::unique_ptr<Store> upstream,
                                                       CachedStoreOptions options) {
  std::unique_ptr<CachedStore> cache(new CachedStore(std::move(upstream), std::move(options)));
  SVC_RETURN_IF_ERROR(cache->Sync(UnavailableError("watch cache initialising")));
  cache->feeder_ = std::thread([c = cache.get()] { c->FeedLoop(); });
  return cache;
}

CachedStore::CachedStore(std::unique_ptr<Store> upstream, CachedStoreOptions options)
    : upstream_(std::move(upstream)), options_(std::move(options)), map_(options_.history) {}

CachedStore::~CachedStore() {
  stopping_ = true;
  {
    std::lock_guard lock(watch_mu_);
    if (upstream_watch_) upstream_watch_->Stop();
  }
  if (feeder_.joinable()) feeder_.join();
}

Status CachedStore::Sync(const Status& watch_error) {
  // Retries if the list's revision is compacted before the watch opens.
  for (int attempt = 0;; ++attempt) {
    std::vector<KeyValue> items;
    ListOptions page{.limit = options_.list_page};
    auto first = upstream_->List(page);
    if (!first.ok()) return first.status();
    const Revision at = first->revision;
    items = std::move(first->items);
    std::string next = first->continue_key;
    while (!next.empty()) {
      auto more = upstream_->List({.start_key = next,
                                   .limit = options_.list_page,
                                   .revision = at,
                                   .match = RevisionMatch::kExact});
      if (!more.ok()) return more.status();
      items.insert(items.end(), std::make_move_iterator(more->items.begin()),
                   std::make_move_iterator(more->items.end()));
      next = more->continue_key;
    }
    auto watch = upstream_->Watch("", at, {.queue_capacity = options_.upstream_queue});
    if (!watch.ok()) {
      if (watch.status().code() == Code::kGone && attempt < 5) continue;
      return watch.status();
    }
    map_.Reset(std::move(items), {}, at, at, watch_error);
    std::lock_guard lock(watch_mu_);
    upstream_watch_ = std::move(*watch);
    return Status::Ok();
  }
}

void CachedStore::FeedLoop() {
  const auto now = options_.history.now
                       ? options_.history.now
                       : internal::WallClock([] { return std::chrono::system_clock::now(); });
  while (!stopping_) {
    WatchStream* watch;
    {
      std::lock_guard lock(watch_mu_);
      watch = upstream_watch_.get();
    }
    auto first = watch->WaitNext(std::chrono::steady_clock::now() + std::chrono::seconds(1));
    Result<std::vector<EventPtr>> rest = std::vector<EventPtr>();
    if (first.ok() && *first) rest = watch->TryNextBatch(4096);
    if (!first.ok() || !rest.ok()) {
      if (stopping_) return;
      Status why = first.ok() ? rest.status() : first.status();
      spdlog::warn("watch cache: upstream watch ended ({}); re-listing", why.ToString());
      ++relists_;
      Status synced = Sync(UnavailableError("watch cache re-initialised after: " + why.message()));
      if (!synced.ok()) {
        spdlog::error("watch cache: re-list failed: {}", synced.ToString());
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
      continue;
    }
    if (!*first) {
      map_.TrimHistory();
      continue;
    }
    std::vector<HistoryEntry> entries;
    const auto t = now();
    entries.push_back(HistoryEntry{std::move(*first), t});
    for (auto& e : *rest) entries.push_back(HistoryEntry{std::move(e), t});
    map_.Apply(std::move(entries));
  }
}

bool CachedStore::CaughtUp(Revision revision) const {
  return map_.current_revision() >= revision ||
         map_.WaitForRevision(revision, options_.catch_up_wait);
}

Result<KeyValue> CachedStore::Get(std::string_view key) {
  if (!CaughtUp(upstream_->CurrentRevision())) return upstream_->Get(key);
  return map_.Get(key);
}

// No round trip for a key the cache holds; on etcd the consistent Get costs a linearizable
// Range (a quorum read) per call, which on every create was most of etcd's work. A key the
// cache lacks may have been created by another server a moment ago: ask the backend.
Result<KeyValue> CachedStore::GetCached(std::string_view key) {
  auto cached = map_.Get(key);
  if (cached.ok() || cached.status().code() != Code::kNotFound) return cached;
  return Get(key);
}

Result<ListResult> CachedStore::List(const ListOptions& options) {
  switch (options.match) {
    case RevisionMatch::kLatest:
      if (!CaughtUp(upstream_->CurrentRevision())) return upstream_->List(options);
      return map_.List(options);
    case RevisionMatch::kNotOlderThan:
      // Not older than the given revision, and not older than this server's own last write
      // either: writes no longer wait for the cache, and a client that lists right after its
      // writes (resourceVersion=0 included) must still see them, as before.
      CaughtUp(std::max(options.revision, upstream_->CurrentRevision()));
      return map_.List(options);
    case RevisionMatch::kExact:
      if (options.revision < map_.compacted_revision()) return upstream_->List(options);
      return map_.List(options);
  }
  return InternalError("unknown revision match");
}

// Writes return as soon as the backend committed; they do not wait for the cache to apply
// them. Every read that must see them waits itself: Get, consistent lists, Watch and
// CompactedRevision wait for the backend's current revision, lists at a revision wait for that
// revision. Waiting here as well cost each
// write two more thread hand-offs (backend dispatcher -> feeder -> this thread).
Result<KeyValue> CachedStore::Create(std::string_view key,
                                     std::shared_ptr<const std::string> value) {
  return upstream_->Create(key, std::move(value));
}

Result<KeyValue> CachedStore::Update(std::string_view key, std::shared_ptr<const std::string> value,
                                     Revision expected_mod_revision) {
  return upstream_->Update(key, std::move(value), expected_mod_revision);
}

Result<KeyValue> CachedStore::Delete(std::string_view key, Revision expected_mod_revision) {
  return upstream_->Delete(key, expected_mod_revision);
}

Result<std::unique_ptr<storage::WatchStream>> CachedStore::Watch(std::string_view prefix,
                                                                 Revision after_revision,
                                                                 const WatchOptions& options) {
  // Like a consistent read: a watch sees the cache's history as of the backend's last write
  // (what it replays, and whether after_revision is already compacted away).
  CaughtUp(upstream_->CurrentRevision());
  auto watch = map_.Watch(prefix, after_revision, options);
  // The cache's history starts where it last listed (at start-up, or after a re-list), but the
  // backend may remember further back: a persistent store keeps its history across restarts.
  // Such a resume is served by the backend rather than refused, so a client that watched
  // before a restart continues without a 410 and a full re-list.
  if (!watch.ok() && watch.status().code() == Code::kGone &&
      after_revision >= upstream_->CompactedRevision()) {
    auto from_backend = upstream_->Watch(prefix, after_revision, options);
    if (from_backend.ok()) return from_backend;
  }
  return watch;
}

Status CachedStore::Compact(Revision revision) {
  SVC_RETURN_IF_ERROR(upstream_->Compact(revision));
  if (revision > map_.current_revision()) CaughtUp(revision);
  return map_.Compact(std::min(revision, map_.current_revision()));
}

Revision CachedStore::CurrentRevision() { return upstream_->CurrentRevision(); }

Revision CachedStore::CompactedRevision() {
  CaughtUp(upstream_->CurrentRevision());
  return map_.compacted_revision();
}

}  // namespace svcplane::storage::cache
