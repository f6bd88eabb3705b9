#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <vector>

#include "apiserver/registry/object_memo.h"
#include "apiserver/registry/types.h"
#include "storage/watch.h"

namespace svcplane::apiserver::registry {

// Decodes and filters one storage watch into Kubernetes watch events, mapping selector
// transitions as upstream does (api-wire §6.2): an object that starts matching is ADDED, one
// that stops matching is DELETED (carrying its last matching state at the new revision).
// Poll from one thread at a time.
template <typename T>
class TypedWatch {
 public:
  TypedWatch(std::unique_ptr<storage::WatchStream> stream, ObjectMemo<T>* memo,
             std::function<bool(const T&)> predicate, std::vector<WatchItem<T>> initial,
             storage::Revision from)
      : stream_(std::move(stream)),
        memo_(memo),
        predicate_(std::move(predicate)),
        initial_(std::move(initial)),
        initial_count_(initial_.size()),
        last_revision_(from) {}

  // How many synthetic ADDED events (the state at the start) precede the live ones.
  size_t initial_count() const { return initial_count_; }

  // `predicate` null: every object matches (no selectors), so previous states need no decoding.

  // Events available now (possibly none), or the watch's terminal error.
  Result<std::vector<WatchItem<T>>> Poll(size_t max) {
    std::vector<WatchItem<T>> out;
    while (next_initial_ < initial_.size() && out.size() < max) {
      out.push_back(std::move(initial_[next_initial_++]));
    }
    if (next_initial_ == initial_.size() && !initial_.empty()) initial_.clear();
    // Keeps reading while the selector filters out everything read: the stream re-arms its
    // notify only once it is read empty, so returning "nothing" early would leave the
    // consumer waiting for a notification that never comes.
    while (out.size() < max) {
      auto batch = stream_->TryNextBatch(max - out.size());
      if (!batch.ok()) {
        if (!out.empty()) return out;  // deliver what we have; the error comes next time
        return batch.status();
      }
      if (batch->empty()) break;
      for (const auto& ev : *batch) {
        last_revision_ = ev->revision();
        auto item = Translate(*ev);
        if (!item.ok()) return item.status();
        if (item->has_value()) out.push_back(std::move(**item));
      }
      if (!out.empty()) break;
    }
    return out;
  }

  // Blocks until at least one event, the terminal error or `deadline` (then an empty vector).
  Result<std::vector<WatchItem<T>>> Next(size_t max,
                                         std::chrono::steady_clock::time_point deadline) {
    while (true) {
      auto got = Poll(max);
      if (!got.ok() || !got->empty()) return got;
      auto ev = stream_->WaitNext(deadline);
      if (!ev.ok()) return ev.status();
      if (*ev == nullptr) return std::vector<WatchItem<T>>{};
      last_revision_ = (*ev)->revision();
      auto item = Translate(**ev);
      if (!item.ok()) return item.status();
      if (item->has_value()) return std::vector<WatchItem<T>>{std::move(**item)};
    }
  }

  // The revision of the last storage event seen (matching or not): a bookmark may report it.
  storage::Revision last_revision() const { return last_revision_; }
  void Stop() { stream_->Stop(); }

 private:
  Result<Object<T>> Uncached(const storage::KeyValue& kv) {
    auto decoded = api::codec::DecodeJson<T>(*kv.value);
    if (!decoded.ok()) return InternalError("stored object " + kv.key + " does not decode");
    decoded->metadata.resource_version = std::to_string(kv.mod_revision);
    return Object<T>{std::make_shared<const T>(std::move(*decoded)),
                     ObjectJson(kv.value, kv.mod_revision), kv.mod_revision};
  }

  Result<std::optional<WatchItem<T>>> Translate(const storage::WatchEvent& ev) {
    using Out = std::optional<WatchItem<T>>;
    if (ev.type == storage::WatchEvent::Type::kDelete) {
      auto obj = Uncached(ev.kv);
      if (!obj.ok()) return obj.status();
      if (predicate_ && !predicate_(*obj->obj)) return Out();
      return Out(WatchItem<T>{WatchEventType::kDeleted, std::move(*obj)});
    }
    auto obj = memo_->Materialize(ev.kv);
    if (!obj.ok()) return obj.status();
    if (!predicate_) {
      return Out(WatchItem<T>{ev.prev ? WatchEventType::kModified : WatchEventType::kAdded,
                              std::move(*obj)});
    }
    const bool now_matches = predicate_(*obj->obj);
    if (!ev.prev) {
      if (!now_matches) return Out();
      return Out(WatchItem<T>{WatchEventType::kAdded, std::move(*obj)});
    }
    auto prev = api::codec::DecodeJson<T>(*ev.prev->value);
    if (!prev.ok()) return InternalError("stored object " + ev.kv.key + " does not decode");
    const bool matched = predicate_(*prev);
    if (now_matches) {
      return Out(WatchItem<T>{matched ? WatchEventType::kModified : WatchEventType::kAdded,
                              std::move(*obj)});
    }
    if (!matched) return Out();
    storage::KeyValue last = *ev.prev;
    last.mod_revision = ev.kv.mod_revision;
    auto gone = Uncached(last);
    if (!gone.ok()) return gone.status();
    return Out(WatchItem<T>{WatchEventType::kDeleted, std::move(*gone)});
  }

  std::unique_ptr<storage::WatchStream> stream_;
  ObjectMemo<T>* memo_;
  std::function<bool(const T&)> predicate_;
  std::vector<WatchItem<T>> initial_;
  size_t next_initial_ = 0;
  size_t initial_count_ = 0;
  storage::Revision last_revision_;
};

}  // namespace svcplane::apiserver::registry
