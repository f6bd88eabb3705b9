#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <random>
#include <stop_token>
#include <thread>

#include "base/clock.h"
#include "client/record/event_recorder.h"
#include "client/record/events_cache.h"

namespace svcplane::client::record {

struct BroadcasterOptions {
  const Clock* clock = nullptr;     // null means RealClock
  size_t max_queued_events = 1000;  // beyond this, new events are dropped (never block)
  int max_tries_per_event = 12;     // writes that fail for connection reasons are retried...
  Duration retry_sleep = std::chrono::seconds(10);  // ...this far apart (the first randomized)
  CorrelatorOptions correlator;
};

// client-go's EventBroadcaster wired to an EventSink (StartRecordingToSink): recorders queue
// events; one background thread correlates each (spam filter, aggregation, repeat counting)
// and writes it to the sink — a create, or a patch of the earlier event for a repeat.
// Recorders must not outlive their broadcaster. Safe from any thread.
class EventBroadcaster {
 public:
  explicit EventBroadcaster(EventSink& sink, BroadcasterOptions options = {});
  ~EventBroadcaster();  // Shutdown()

  EventBroadcaster(const EventBroadcaster&) = delete;
  EventBroadcaster& operator=(const EventBroadcaster&) = delete;

  // A recorder stamping `source` (component, host) on its events.
  std::unique_ptr<EventRecorder> NewRecorder(api::core::v1::EventSource source);

  // Stops the background thread: the event being written gets no more retries and queued
  // events are discarded. Idempotent.
  void Shutdown();

  // Blocks (in real time) until the queue is empty and no write is in progress.
  void WaitIdleForTest();
  // Events dropped because the queue was full or after Shutdown.
  uint64_t dropped() const;

 private:
  friend class RecorderImpl;
  void Enqueue(api::core::v1::Event event);
  // `now`, or 1 ns past the last name's time: upstream names events "<object>.<unix nanos>",
  // which a coarse or fake clock would repeat (the second create would be AlreadyExists).
  WallTime UniqueNameTime(WallTime now);
  void Loop(std::stop_token stop);
  void RecordToSink(const api::core::v1::Event& event, std::stop_token stop);
  // One write; true when done with the event (written, or rejected for good).
  bool RecordEvent(api::core::v1::Event event, const std::string& patch);
  bool SleepUnlessStopped(Duration d, std::stop_token stop);

  // Constant after construction.
  EventSink& sink_;
  const BroadcasterOptions options_;
  const Clock& clock_;
  EventCorrelator correlator_;

  mutable std::mutex mu_;
  std::condition_variable changed_;
  // Guarded by mu_.
  std::deque<api::core::v1::Event> queue_;
  bool busy_ = false;
  bool shut_down_ = false;
  uint64_t dropped_ = 0;
  WallTime last_name_time_{};
  std::mt19937_64 rng_{std::random_device{}()};

  std::jthread worker_;  // last: starts after everything above exists
};

}  // namespace svcplane::client::record
