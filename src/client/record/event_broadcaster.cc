#include "client/record/event_broadcaster.h"

#include <spdlog/spdlog.h>

#include "client/errors.h"

namespace svcplane::client::record {

using api::core::v1::Event;

class RecorderImpl final : public EventRecorder {
 public:
  RecorderImpl(EventBroadcaster& broadcaster, api::core::v1::EventSource source)
      : broadcaster_(broadcaster), source_(std::move(source)) {}

  void Event(const api::meta::ObjectReference& object, std::string_view type,
             std::string_view reason, std::string message) override {
    if (type != kEventTypeNormal && type != kEventTypeWarning) {
      spdlog::error("unsupported event type: '{}'", type);
      return;
    }
    const WallTime now = broadcaster_.clock_.WallNow();
    api::core::v1::Event e;
    e.metadata.name = EventName(object.name, broadcaster_.UniqueNameTime(now));
    e.metadata.namespace_ = object.namespace_.empty() ? "default" : object.namespace_;
    e.involved_object = object;
    e.reason = std::string(reason);
    e.message = std::move(message);
    e.first_timestamp = ToMetaTime(now);
    e.last_timestamp = e.first_timestamp;
    e.count = 1;
    e.type = std::string(type);
    e.source = source_;
    e.reporting_component = source_.component;
    e.reporting_instance = source_.host;
    broadcaster_.Enqueue(std::move(e));
  }

 private:
  EventBroadcaster& broadcaster_;
  const api::core::v1::EventSource source_;
};

EventBroadcaster::EventBroadcaster(EventSink& sink, BroadcasterOptions options)
    : sink_(sink),
      options_(options),
      clock_(options.clock ? *options.clock : RealClock::Get()),
      correlator_(clock_, options.correlator),
      worker_([this](std::stop_token stop) { Loop(stop); }) {}

EventBroadcaster::~EventBroadcaster() { Shutdown(); }

std::unique_ptr<EventRecorder> EventBroadcaster::NewRecorder(api::core::v1::EventSource source) {
  return std::make_unique<RecorderImpl>(*this, std::move(source));
}

void EventBroadcaster::Shutdown() {
  {
    std::lock_guard<std::mutex> l(mu_);
    if (shut_down_) return;
    shut_down_ = true;
    dropped_ += queue_.size();
    queue_.clear();
  }
  worker_.request_stop();
  changed_.notify_all();
  if (worker_.joinable()) worker_.join();
}

void EventBroadcaster::WaitIdleForTest() {
  std::unique_lock<std::mutex> l(mu_);
  changed_.wait(l, [&] { return (queue_.empty() && !busy_) || shut_down_; });
}

WallTime EventBroadcaster::UniqueNameTime(WallTime now) {
  std::lock_guard<std::mutex> l(mu_);
  if (now <= last_name_time_) now = last_name_time_ + std::chrono::nanoseconds(1);
  last_name_time_ = now;
  return now;
}

uint64_t EventBroadcaster::dropped() const {
  std::lock_guard<std::mutex> l(mu_);
  return dropped_;
}

void EventBroadcaster::Enqueue(Event event) {
  {
    std::lock_guard<std::mutex> l(mu_);
    if (shut_down_ || queue_.size() >= options_.max_queued_events) {
      ++dropped_;
      return;
    }
    queue_.push_back(std::move(event));
  }
  changed_.notify_all();
}

void EventBroadcaster::Loop(std::stop_token stop) {
  while (true) {
    Event event;
    {
      std::unique_lock<std::mutex> l(mu_);
      busy_ = false;
      changed_.notify_all();
      changed_.wait(l, [&] { return !queue_.empty() || shut_down_; });
      if (shut_down_) return;
      event = std::move(queue_.front());
      queue_.pop_front();
      busy_ = true;
    }
    RecordToSink(event, stop);
  }
}

void EventBroadcaster::RecordToSink(const Event& event, std::stop_token stop) {
  CorrelateResult result = correlator_.Correlate(event);
  if (result.skip) return;
  for (int tries = 1;; ++tries) {
    if (RecordEvent(result.event, result.patch)) return;
    if (tries >= options_.max_tries_per_event) {
      spdlog::error("unable to write event {}/{} (retry limit exceeded)",
                    result.event.metadata.namespace_, result.event.metadata.name);
      return;
    }
    Duration sleep = options_.retry_sleep;
    if (tries == 1) {
      // Randomized so that many clients do not retry in step after an API server outage.
      std::lock_guard<std::mutex> l(mu_);
      sleep = Duration(static_cast<int64_t>(static_cast<double>(sleep.count()) *
                                            std::uniform_real_distribution<>(0, 1)(rng_)));
    }
    if (!SleepUnlessStopped(sleep, stop)) return;
  }
}

bool EventBroadcaster::RecordEvent(Event event, const std::string& patch) {
  const bool update_existing = event.count > 1;
  Result<ObjectPtr<Event>> written = NotFoundError("not written yet");
  if (update_existing) written = sink_.Patch(event, patch);
  // The earlier event may have expired (events have a TTL) or never been written.
  if (!update_existing || IsNotFound(written.status())) {
    event.metadata.resource_version.clear();
    written = sink_.Create(event);
  }
  if (written.ok()) {
    correlator_.UpdateState(**written);
    return true;
  }
  const Status& st = written.status();
  // Connection trouble: hold on and retry. Anything the server decided: drop (upstream drops
  // every StatusError, retrying only transport errors).
  if (IsServiceUnavailable(st) || IsTimeout(st) || IsTooManyRequests(st)) {
    spdlog::warn("unable to write event {}/{}: {} (may retry after sleeping)",
                 event.metadata.namespace_, event.metadata.name, st.ToString());
    return false;
  }
  if (IsAlreadyExists(st)) {
    spdlog::debug("server rejected event {}/{}: {} (will not retry)", event.metadata.namespace_,
                  event.metadata.name, st.ToString());
  } else {
    spdlog::error("server rejected event {}/{}: {} (will not retry)", event.metadata.namespace_,
                  event.metadata.name, st.ToString());
  }
  return true;
}

bool EventBroadcaster::SleepUnlessStopped(Duration d, std::stop_token stop) {
  std::mutex mu;
  std::condition_variable cv;
  std::stop_callback wake(stop, [&] {
    std::lock_guard<std::mutex> l(mu);
    cv.notify_all();
  });
  std::unique_lock<std::mutex> l(mu);
  return !clock_.WaitUntil(l, cv, clock_.Now() + d, [&] { return stop.stop_requested(); });
}

}  // namespace svcplane::client::record
