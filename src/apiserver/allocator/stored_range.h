#pragma once

// An allocation map kept in the store as one RangeAllocation record
// (/registry/ranges/serviceips, /registry/ranges/servicenodeports), as upstream's etcd-backed
// allocator keeps it: every change is a read-modify-write guarded by the record's mod revision,
// retried on conflict, so several API servers sharing one store never hand out an offset twice.
// The record is svcplane's sparse JSON in every store (range_record.h); on etcd the store's
// codec turns it into kube's RangeAllocation and back, so a kube-apiserver sharing the etcd
// shares the map too.

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "apiserver/allocator/bitmap.h"
#include "base/result.h"
#include "storage/store.h"

namespace svcplane::apiserver::allocator {

// The stored record, decoded.
struct RangeSnapshot {
  std::string range;  // the range text the map was built for ("" when never written)
  Bitmap map;
  storage::Revision revision = 0;  // mod revision of the record; 0 when absent
};

// Safe from any thread. Store errors are returned as they come (Unavailable...); a record
// whose range differs from the configured one refuses allocations until the repair loop
// rewrites it, as upstream's ErrMismatchedNetwork does.
class StoredRange {
 public:
  StoredRange(storage::Store* store, std::string key, std::string range_text, size_t size,
              size_t band_offset, uint64_t seed = std::random_device{}());

  const std::string& key() const { return key_; }
  const std::string& range_text() const { return range_text_; }
  size_t size() const { return size_; }
  size_t band_offset() const { return band_offset_; }

  // True if `offset` was free and is now taken; false if it was already taken.
  Result<bool> Allocate(size_t offset, bool dry_run = false);
  // A dynamically chosen offset (upper band first), or nullopt when the range is full.
  Result<std::optional<size_t>> AllocateNext(bool dry_run = false);
  // Frees `offset`; a no-op if it was free.
  Status Release(size_t offset);

  // The current record (an empty map of the configured range when absent).
  Result<RangeSnapshot> Read();
  // Replaces the record if its mod revision is still `expected` (0: it must not exist).
  // Conflict/AlreadyExists when someone wrote in between.
  Status Write(const Bitmap& map, storage::Revision expected);

  // The record's JSON, EncodeRangeRecord's (exposed for tests that corrupt it).
  std::string EncodeRecord(const Bitmap& map) const;

 private:
  struct Pending {
    const std::function<bool(Bitmap&)>* change;
    Status status;
    bool done = false;
  };

  // Runs `change` on a fresh copy of the map and writes it back; retries on conflict. `change`
  // returns false when there is nothing to write, and must be safe to run again (on a fresh
  // copy) after a conflict. Concurrent callers are combined: one of them applies every queued
  // change and writes once, so N concurrent allocations cost one store write, not N.
  Status Mutate(const std::function<bool(Bitmap&)>& change);
  // One read-modify-write of all of `batch`, retried on conflict.
  Status ApplyBatch(const std::vector<Pending*>& batch);
  uint64_t Random();

  storage::Store* const store_;
  const std::string key_;
  const std::string range_text_;
  const size_t size_;
  const size_t band_offset_;

  std::mutex mu_;
  std::condition_variable done_cv_;
  std::deque<Pending*> queue_;  // guarded by mu_
  bool writing_ = false;        // guarded by mu_: a caller is applying a batch
  std::mutex rng_mu_;
  std::mt19937_64 rng_;
};

}  // namespace svcplane::apiserver::allocator
