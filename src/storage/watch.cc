#include "storage/watch.h"

#include <algorithm>
#include <utility>

namespace svcplane::storage {

namespace {
constexpr std::string_view kDroppedPrefix = "watch dropped: consumer too slow";
}  // namespace

Status WatchDroppedError(std::string detail) {
  return Status(Code::kTooManyRequests, std::string(kDroppedPrefix) + ": " + detail);
}

bool IsWatchDropped(const Status& status) {
  return status.code() == Code::kTooManyRequests &&
         std::string_view(status.message()).starts_with(kDroppedPrefix);
}

WatchStream::WatchStream(std::shared_ptr<internal::WatchChannel> channel)
    : channel_(std::move(channel)) {}

WatchStream::~WatchStream() { channel_->Stop(); }

Result<EventPtr> WatchStream::TryNext(Revision* progress) {
  auto batch = channel_->TryNextBatch(1, progress);
  if (!batch.ok()) return batch.status();
  if (batch->empty()) return EventPtr();
  return std::move((*batch)[0]);
}

Result<std::vector<EventPtr>> WatchStream::TryNextBatch(size_t max, Revision* progress) {
  return channel_->TryNextBatch(max, progress);
}

Result<EventPtr> WatchStream::WaitNext(std::chrono::steady_clock::time_point deadline,
                                       Revision* progress) {
  return channel_->WaitNext(deadline, progress);
}

void WatchStream::Stop() { channel_->Stop(); }

namespace internal {

WatchChannel::WatchChannel(std::string prefix, Revision next_revision, const WatchOptions& options)
    : prefix_(std::move(prefix)),
      next_revision_(next_revision),
      capacity_(options.queue_capacity == 0 ? 1 : options.queue_capacity),
      notify_(options.notify),
      progress_(next_revision - 1) {}

void WatchChannel::PushReplay(std::vector<EventPtr> events) {
  std::lock_guard lock(mu_);
  replay_left_ += events.size();
  for (auto& e : events) queue_.push_back(std::move(e));
  if (!queue_.empty() && want_notify_) {
    want_notify_ = false;
    pending_notify_ = true;
  }
  cv_.notify_all();
}

bool WatchChannel::Push(EventPtr event) {
  std::lock_guard lock(mu_);
  if (!terminal_.ok()) return false;
  if (queue_.size() - replay_left_ >= capacity_) {
    terminal_ =
        WatchDroppedError("more than " + std::to_string(capacity_) + " events unread at revision " +
                          std::to_string(event->revision()));
  } else {
    progress_ = std::max(progress_, event->revision());
    queue_.push_back(std::move(event));
  }
  if (want_notify_) {
    want_notify_ = false;
    pending_notify_ = true;
  }
  cv_.notify_all();
  return terminal_.ok();
}

void WatchChannel::Fail(Status status) {
  std::lock_guard lock(mu_);
  if (!terminal_.ok()) return;
  terminal_ = std::move(status);
  if (want_notify_) {
    want_notify_ = false;
    pending_notify_ = true;
  }
  cv_.notify_all();
}

void WatchChannel::AdvanceProgress(Revision revision) {
  std::lock_guard lock(mu_);
  progress_ = std::max(progress_, revision);
}

void WatchChannel::NotifyIfNeeded() {
  {
    std::lock_guard lock(mu_);
    if (!pending_notify_) return;
    pending_notify_ = false;
  }
  if (notify_) notify_();
}

bool WatchChannel::done() const {
  std::lock_guard lock(mu_);
  return !terminal_.ok();
}

Result<std::vector<EventPtr>> WatchChannel::TakeLocked(size_t max, Revision* progress) {
  std::vector<EventPtr> out;
  while (!queue_.empty() && out.size() < max) {
    out.push_back(std::move(queue_.front()));
    queue_.pop_front();
    if (replay_left_ > 0) --replay_left_;
  }
  if (!out.empty()) return out;
  want_notify_ = true;
  if (!terminal_.ok()) return terminal_;
  if (progress) *progress = progress_;
  return out;
}

Result<std::vector<EventPtr>> WatchChannel::TryNextBatch(size_t max, Revision* progress) {
  std::lock_guard lock(mu_);
  return TakeLocked(max == 0 ? 1 : max, progress);
}

Result<EventPtr> WatchChannel::WaitNext(std::chrono::steady_clock::time_point deadline,
                                        Revision* progress) {
  std::unique_lock lock(mu_);
  cv_.wait_until(lock, deadline, [&] { return !queue_.empty() || !terminal_.ok(); });
  auto batch = TakeLocked(1, progress);
  if (!batch.ok()) return batch.status();
  if (batch->empty()) return EventPtr();
  return std::move((*batch)[0]);
}

void WatchChannel::SetOnStop(std::function<void()> on_stop) { on_stop_ = std::move(on_stop); }

void WatchChannel::Stop() {
  std::function<void()> on_stop;
  {
    std::lock_guard lock(mu_);
    if (terminal_.ok()) terminal_ = UnavailableError("watch stopped");
    queue_.clear();
    replay_left_ = 0;
    cv_.notify_all();
    on_stop.swap(on_stop_);
  }
  if (on_stop) on_stop();
}

}  // namespace internal
}  // namespace svcplane::storage
