#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "base/result.h"
#include "storage/store.h"
#include "storage/watch.h"

namespace svcplane::storage::internal {

using WallClock = std::function<std::chrono::system_clock::time_point()>;

// How much watch history to keep. An event is forgotten when more than max_events are held,
// when the held events cost more than max_bytes, or when it is older than max_age and more than
// min_events are held (kube-apiserver's watch cache keeps 100..100k events and aims at >= 75 s).
// The byte budget is what bounds memory at scale: under churn of large objects (EndpointSlices
// of 100 endpoints are ~30 KB) 100k events would pin gigabytes of superseded values, and the
// count alone cannot tell a 300-byte Lease renewal from such a rewrite. 128 MiB is ~100k
// Pod-sized events (more than the count bound allows anyway for 1 KB objects) and keeps the
// 150k-Pod scale envelope within its 2 GiB; a watcher further behind relists (410 Gone), as
// it would from a kube-apiserver whose watch cache rolled over.
struct HistoryOptions {
  size_t max_events = 100'000;
  size_t max_bytes = size_t{128} << 20;
  std::chrono::milliseconds max_age = std::chrono::minutes(5);
  size_t min_events = 1000;
  // How long a read at a future revision waits for it before Timeout (kube-apiserver: 3 s).
  std::chrono::milliseconds future_wait = std::chrono::seconds(3);
  WallClock now;  // defaults to system_clock::now
};

struct HistoryEntry {
  EventPtr event;
  std::chrono::system_clock::time_point time;  // commit time, for age-based trimming
};

// What keeping `event` in history costs, for HistoryOptions::max_bytes: its key and new value
// plus bookkeeping. The previous value is not counted: it is the new value of the key's
// previous event (or still live), so each value is counted once.
size_t HistoryCost(const WatchEvent& event);

// The in-memory MVCC state shared by every backend: latest value per key, a bounded log of
// recent events (with previous values) that lets reads go back to any retained revision, and
// the watch fan-out. Reads and watch registration are safe from any thread; Apply, Compact,
// Restore and Reset must be called by one writer at a time (the backend's commit path), which
// is what makes "check precondition, then apply" atomic.
class VersionedMap {
 public:
  explicit VersionedMap(HistoryOptions options);
  // Ends all watches with Unavailable("store closed") after delivering what was committed.
  ~VersionedMap();

  Result<KeyValue> Get(std::string_view key) const;
  std::optional<KeyValue> Lookup(std::string_view key) const;
  Result<ListResult> List(const ListOptions& options) const;
  Result<std::unique_ptr<storage::WatchStream>> Watch(std::string_view prefix, Revision after,
                                                      const WatchOptions& options);

  Revision current_revision() const { return current_.load(std::memory_order_acquire); }
  Revision compacted_revision() const { return compacted_.load(std::memory_order_acquire); }
  // Blocks until current_revision() >= revision; false after `timeout`.
  bool WaitForRevision(Revision revision, std::chrono::milliseconds timeout) const;

  // Writer side. `entries` have increasing revisions above current_revision(); each becomes
  // visible to reads and is delivered to watches in that order.
  void Apply(std::vector<HistoryEntry> entries) {
    Publish(std::move(entries));
    WakeWatchers();
  }
  // Apply in two steps, for a writer with answers to give: Publish makes the entries visible
  // and queues their events, WakeWatchers (after the answers) starts their delivery. Woken
  // first, the dispatcher took the writer's core before the answers went out (1 in 4
  // commits, under load): a write's latency included a watch fan-out.
  void Publish(std::vector<HistoryEntry> entries);
  void WakeWatchers();
  Status Compact(Revision revision);
  // Drops events past the count/age bounds; returns the new compacted revision.
  Revision TrimHistory();
  // Replaces all state (for opening a persisted store or relisting a cache). Watches that
  // exist are ended with `watch_error` since they cannot continue across the jump.
  void Reset(std::vector<KeyValue> live, std::vector<HistoryEntry> history, Revision current,
             Revision compacted, const Status& watch_error);
  size_t history_size() const;
  // Bytes held by history as counted by HistoryCost.
  size_t history_bytes() const;

 private:
  struct Entry {
    std::shared_ptr<const std::string> value;
    Revision create_revision;
    Revision mod_revision;
  };
  using LiveMap = std::map<std::string, Entry, std::less<>>;

  void TrimLocked(std::chrono::system_clock::time_point now);
  void DispatchLoop();
  void Deliver(const std::vector<EventPtr>& events);

  // Constant after construction.
  const HistoryOptions options_;

  mutable std::shared_mutex mu_;
  LiveMap live_;                        // guarded by mu_
  std::deque<HistoryEntry> history_;    // guarded by mu_; revisions increasing
  size_t history_bytes_ = 0;            // guarded by mu_; sum of HistoryCost over history_
  std::atomic<Revision> current_{0};    // written under mu_ (exclusive)
  std::atomic<Revision> compacted_{0};  // written under mu_ (exclusive)

  mutable std::mutex rev_mu_;  // pairs with rev_cv_ for WaitForRevision
  mutable std::condition_variable rev_cv_;

  // Fan-out: Apply queues events here under mu_, so the dispatcher sees commit order.
  std::mutex dispatch_mu_;
  std::condition_variable dispatch_cv_;
  std::vector<EventPtr> pending_;                        // guarded by dispatch_mu_
  bool stopping_ = false;                                // guarded by dispatch_mu_
  std::vector<std::shared_ptr<WatchChannel>> watchers_;  // guarded by dispatch_mu_
  std::thread dispatcher_;
};

enum class WriteKind { kCreate, kUpdate, kDelete };

struct WriteRequest {
  WriteKind kind = WriteKind::kCreate;
  std::string key;
  std::shared_ptr<const std::string> value;  // unused for kDelete
  Revision expected_mod_revision = 0;        // unused for kCreate
};

// Turns a group of write requests into events with consecutive revisions, checking each
// precondition against the map plus the earlier requests of the same group. A rejected request
// consumes no revision. Used by the single writer only.
class WritePlanner {
 public:
  WritePlanner(const VersionedMap& map, std::chrono::system_clock::time_point now);

  // The event this request commits, or NotFound/AlreadyExists/Conflict/BadRequest.
  Result<EventPtr> Plan(const WriteRequest& request);
  std::vector<HistoryEntry> TakeEntries() { return std::move(entries_); }
  bool empty() const { return entries_.empty(); }
  Revision planned() const { return static_cast<Revision>(entries_.size()); }

 private:
  std::optional<KeyValue> Current(const std::string& key) const;

  const VersionedMap& map_;
  const std::chrono::system_clock::time_point now_;
  Revision next_;
  std::map<std::string, std::optional<KeyValue>, std::less<>> overlay_;
  std::vector<HistoryEntry> entries_;
};

}  // namespace svcplane::storage::internal
