#include "apiserver/allocator/stored_range.h"

#include <algorithm>
#include <chrono>
#include <random>
#include <thread>

#include "apiserver/allocator/range_record.h"

namespace svcplane::apiserver::allocator {
namespace {

constexpr int kMaxAttempts = 64;

// After losing a race for the range record, wait a random while (up to 50 us, doubling per
// loss, at most 3.2 ms) before reading it again. Retrying at once let the servers that kept
// winning starve one that kept losing: 4 allocators on one store failed a request after 64
// straight conflicts (StoredRangeTest.ConcurrentServersNeverDoubleAllocate, under load).
void BackOffAfterConflict(int attempt) {
  thread_local std::minstd_rand random{std::random_device{}()};
  const int ceiling_us = 50 << std::min(attempt, 6);
  std::uniform_int_distribution<int> pick(0, ceiling_us);
  std::this_thread::sleep_for(std::chrono::microseconds(pick(random)));
}

}  // namespace

StoredRange::StoredRange(storage::Store* store, std::string key, std::string range_text,
                         size_t size, size_t band_offset, uint64_t seed)
    : store_(store),
      key_(std::move(key)),
      range_text_(std::move(range_text)),
      size_(size),
      band_offset_(band_offset),
      rng_(seed) {}

uint64_t StoredRange::Random() {
  std::lock_guard<std::mutex> lock(rng_mu_);
  return rng_();
}

std::string StoredRange::EncodeRecord(const Bitmap& map) const {
  return EncodeRangeRecord(key_, range_text_, map);
}

Result<RangeSnapshot> StoredRange::Read() {
  RangeSnapshot snap;
  auto kv = store_->Get(key_);
  if (!kv.ok()) {
    if (kv.status().code() != Code::kNotFound) return kv.status();
    snap.map = Bitmap(size_, band_offset_);
    return snap;
  }
  // On etcd the value was converted from kube's RangeAllocation by the store's codec; either
  // way it is JSON here (range_record.h).
  auto record = ParseRangeRecord(*kv->value);
  if (!record.ok()) return InternalError(key_ + ": " + record.status().message());
  snap.range = record->range;
  snap.revision = kv->mod_revision;
  if (snap.range != range_text_) {
    // Another range: the map's offsets mean other addresses. Callers see an empty map of
    // their range and the mismatch in `range`.
    snap.map = Bitmap(size_, band_offset_);
    return snap;
  }
  auto map = record->Map(size_, band_offset_);
  if (!map.ok()) return InternalError("range record " + key_ + ": " + map.status().message());
  snap.map = std::move(*map);
  return snap;
}

Status StoredRange::Write(const Bitmap& map, storage::Revision expected) {
  auto value = storage::MakeValue(EncodeRecord(map));
  auto r = expected == 0 ? store_->Create(key_, value) : store_->Update(key_, value, expected);
  return r.ok() ? Status::Ok() : r.status();
}

Status StoredRange::ApplyBatch(const std::vector<Pending*>& batch) {
  for (int attempt = 0; attempt < kMaxAttempts; ++attempt) {
    auto snap = Read();
    if (!snap.ok()) return snap.status();
    if (snap->revision != 0 && snap->range != range_text_) {
      return InternalError("the provided network does not match the current range");
    }
    bool changed = false;
    for (Pending* p : batch) changed = (*p->change)(snap->map) || changed;
    if (!changed) return Status::Ok();
    Status st = Write(snap->map, snap->revision);
    if (st.ok()) return st;
    // Another server wrote in between: run every change again on its state.
    if (st.code() != Code::kConflict && st.code() != Code::kAlreadyExists &&
        st.code() != Code::kNotFound) {
      return st;
    }
    BackOffAfterConflict(attempt);
  }
  return ConflictError("too many concurrent changes to " + key_);
}

Status StoredRange::Mutate(const std::function<bool(Bitmap&)>& change) {
  Pending me{&change};
  std::unique_lock<std::mutex> lock(mu_);
  queue_.push_back(&me);
  while (!me.done) {
    if (writing_) {
      done_cv_.wait(lock);
      continue;
    }
    // Nobody is writing: apply everything queued so far (this caller's change included).
    writing_ = true;
    std::vector<Pending*> batch(queue_.begin(), queue_.end());
    queue_.clear();
    lock.unlock();
    Status st = ApplyBatch(batch);
    lock.lock();
    for (Pending* p : batch) {
      p->status = st;
      p->done = true;
    }
    writing_ = false;
    done_cv_.notify_all();
  }
  return me.status;
}

Result<bool> StoredRange::Allocate(size_t offset, bool dry_run) {
  bool taken = false;
  if (dry_run) {
    auto snap = Read();
    if (!snap.ok()) return snap.status();
    return !snap->map.Has(offset);
  }
  Status st = Mutate([&](Bitmap& map) {
    taken = map.Allocate(offset);
    return taken;
  });
  if (!st.ok()) return st;
  return taken;
}

Result<std::optional<size_t>> StoredRange::AllocateNext(bool dry_run) {
  std::optional<size_t> got;
  auto random = [this] { return Random(); };
  if (dry_run) {
    auto snap = Read();
    if (!snap.ok()) return snap.status();
    return snap->map.PeekNext(random);
  }
  Status st = Mutate([&](Bitmap& map) {
    got = map.AllocateNext(random);
    return got.has_value();
  });
  if (!st.ok()) return st;
  return got;
}

Status StoredRange::Release(size_t offset) {
  return Mutate([&](Bitmap& map) {
    if (!map.Has(offset)) return false;
    map.Release(offset);
    return true;
  });
}

}  // namespace svcplane::apiserver::allocator
