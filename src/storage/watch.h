#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "base/status.h"

namespace svcplane::storage {

// The global revision: one counter for every key, incremented once per committed write.
using Revision = int64_t;

// One key's state. `value` is shared and never mutated, so reads and watch fan-out copy a
// pointer, not the bytes.
struct KeyValue {
  std::string key;
  std::shared_ptr<const std::string> value;
  Revision create_revision = 0;
  Revision mod_revision = 0;
};

struct WatchEvent {
  enum class Type { kPut, kDelete };
  Type type = Type::kPut;
  // For kPut the new state; for kDelete the last value with mod_revision = the deletion
  // revision. kv.mod_revision is always the revision of this event.
  KeyValue kv;
  // The state before this event (absent for a create).
  std::optional<KeyValue> prev;

  Revision revision() const { return kv.mod_revision; }
};

using EventPtr = std::shared_ptr<const WatchEvent>;

struct WatchOptions {
  // Live events that may wait unread; one more and the watch ends with WatchDroppedError.
  // History replay at start does not count against it.
  size_t queue_capacity = 1000;
  // Called (from the store's dispatcher thread, never under a store lock) when events or the
  // terminal error become available after a TryNext found nothing. Must not block; an Asio
  // connection posts to its strand here. Set before the watch starts, so none is missed.
  std::function<void()> notify;
};

// The error a watch ends with when its consumer fell behind by more than queue_capacity.
// Code kTooManyRequests keeps it apart from Gone and Unavailable; re-watch from the last
// revision seen.
Status WatchDroppedError(std::string detail);
bool IsWatchDropped(const Status& status);

namespace internal {
class WatchChannel;
}

// A consumer's handle on one watch. Events arrive in strictly increasing revision order with
// no gaps. After the last event the watch yields its terminal error: Gone, WatchDroppedError,
// Unavailable (store closed), or Unavailable "stopped" after Stop(). Thread-safe; destroying it
// stops the watch.
class WatchStream {
 public:
  explicit WatchStream(std::shared_ptr<internal::WatchChannel> channel);
  ~WatchStream();
  WatchStream(const WatchStream&) = delete;
  WatchStream& operator=(const WatchStream&) = delete;

  // Non-blocking: the next event, nullptr if none is queued yet, or the terminal error.
  // When it returns nullptr and `progress` is set, *progress receives the watch's progress
  // revision: every matching change up to it has already been returned. That is the revision a
  // BOOKMARK may carry; reading it in the same call keeps it consistent with the queue.
  Result<EventPtr> TryNext(Revision* progress = nullptr);
  // Up to `max` queued events (empty if none), or the terminal error when nothing is queued.
  // `progress` as for TryNext, set when the result is empty.
  Result<std::vector<EventPtr>> TryNextBatch(size_t max, Revision* progress = nullptr);
  // Blocks until an event, the terminal error, or `deadline` (then returns nullptr and sets
  // `progress` as TryNext does).
  Result<EventPtr> WaitNext(std::chrono::steady_clock::time_point deadline,
                            Revision* progress = nullptr);
  // Ends the watch; the store stops delivering to it. Idempotent.
  void Stop();

 private:
  std::shared_ptr<internal::WatchChannel> channel_;
};

namespace internal {

// The queue between a store's dispatcher (producer) and one Watch (consumer).
class WatchChannel {
 public:
  WatchChannel(std::string prefix, Revision next_revision, const WatchOptions& options);

  const std::string& prefix() const { return prefix_; }
  // The dispatcher delivers only events with revision >= this (earlier ones were replayed).
  Revision next_revision() const { return next_revision_; }

  // Producer side. Queues events replayed from history; they do not count against capacity.
  void PushReplay(std::vector<EventPtr> events);
  // Queues a live event. Returns false (and ends the watch with WatchDroppedError) on
  // overflow, or if the watch already ended.
  bool Push(EventPtr event);
  // Ends the watch with `status` after the queued events. The first terminal status wins.
  void Fail(Status status);
  // Everything matching up to `revision` has been queued (the dispatcher went past it).
  void AdvanceProgress(Revision revision);
  // Calls notify if the consumer is waiting for it. Call without holding store locks.
  void NotifyIfNeeded();
  bool done() const;
  // Called once, on the consumer's thread, when the consumer stops the watch (Stop or the
  // WatchStream's destruction). A producer blocked on something else than this channel (a
  // network stream) uses it to let go at once. Set before the WatchStream is handed out.
  void SetOnStop(std::function<void()> on_stop);

  // Consumer side.
  Result<std::vector<EventPtr>> TryNextBatch(size_t max, Revision* progress);
  Result<EventPtr> WaitNext(std::chrono::steady_clock::time_point deadline, Revision* progress);
  void Stop();

 private:
  Result<std::vector<EventPtr>> TakeLocked(size_t max, Revision* progress);

  // Constant after construction.
  const std::string prefix_;
  const Revision next_revision_;
  const size_t capacity_;
  const std::function<void()> notify_;
  std::function<void()> on_stop_;  // set before the consumer sees the channel

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<EventPtr> queue_;   // guarded by mu_
  size_t replay_left_ = 0;       // guarded by mu_; replayed events still at the queue front
  Revision progress_;            // guarded by mu_; see AdvanceProgress
  Status terminal_;              // guarded by mu_; non-OK once ended
  bool want_notify_ = true;      // guarded by mu_; the consumer found the queue empty
  bool pending_notify_ = false;  // guarded by mu_
};

}  // namespace internal
}  // namespace svcplane::storage
