#include "apiserver/registry/event_ttl.h"

#include <algorithm>
#include <vector>

#include "base/logging.h"

namespace svcplane::apiserver::registry {

using api::core::v1::Event;

EventTtl::EventTtl(Registry<Event>* events, const Clock& clock, Duration ttl)
    : events_(events), clock_(clock), ttl_(ttl) {
  WriteHooks<Event> hooks;
  // Stamped before the write reaches storage, not after: a sweep that re-checks the stamp and
  // then deletes with the resourceVersion it read can then never remove a write it did not see
  // (a write stamped after the re-check commits after the read, so the precondition fails).
  hooks.begin_write = [this](Event& obj, const Event*,
                             bool dry_run) -> Result<std::function<void(bool)>> {
    if (!dry_run) {
      std::lock_guard lock(mu_);
      last_write_[{obj.metadata.namespace_, obj.metadata.name}] = clock_.Now();
    }
    return std::function<void(bool)>();
  };
  hooks.after_delete = [this](const Event& last) {
    std::lock_guard lock(mu_);
    last_write_.erase({last.metadata.namespace_, last.metadata.name});
  };
  events_->SetHooks(std::move(hooks));

  auto list = events_->List("", {});
  if (!list.ok()) {
    spdlog::warn("event-ttl: listing events at start: {}", list.status().message());
    return;
  }
  std::lock_guard lock(mu_);
  const TimePoint now = clock_.Now();
  for (const auto& o : list->items) {
    last_write_.try_emplace({o.obj->metadata.namespace_, o.obj->metadata.name}, now);
  }
}

EventTtl::~EventTtl() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

Duration EventTtl::DefaultPeriod(Duration ttl) {
  return std::clamp<Duration>(ttl / 4, std::chrono::milliseconds(100), std::chrono::minutes(1));
}

void EventTtl::Start() {
  thread_ = std::thread([this] { Loop(); });
}

void EventTtl::Loop() {
  const Duration period = DefaultPeriod(ttl_);
  std::unique_lock lock(mu_);
  while (!stopping_) {
    clock_.WaitUntil(lock, cv_, clock_.Now() + period, [this] { return stopping_; });
    if (stopping_) break;
    lock.unlock();
    size_t deleted = Sweep();
    if (deleted > 0) spdlog::debug("event-ttl: deleted {} expired events", deleted);
    lock.lock();
  }
}

size_t EventTtl::TrackedForTest() const {
  std::lock_guard lock(mu_);
  return last_write_.size();
}

size_t EventTtl::Sweep() {
  std::vector<Key> expired;
  {
    std::lock_guard lock(mu_);
    const TimePoint now = clock_.Now();
    for (const auto& [key, at] : last_write_) {
      if (now - at >= ttl_) expired.push_back(key);
    }
  }
  size_t deleted = 0;
  for (const auto& [ns, name] : expired) {
    auto cur = events_->Get(ns, name);
    if (!cur.ok()) {
      if (cur.status().code() == Code::kNotFound) {
        std::lock_guard lock(mu_);
        auto it = last_write_.find({ns, name});
        if (it != last_write_.end() && clock_.Now() - it->second >= ttl_) last_write_.erase(it);
      }
      continue;
    }
    {
      std::lock_guard lock(mu_);
      auto it = last_write_.find({ns, name});
      if (it != last_write_.end() && clock_.Now() - it->second < ttl_) continue;  // rewritten
    }
    DeleteOptions opts;
    opts.precondition_resource_version = cur->obj->metadata.resource_version;
    auto del = events_->Delete(ns, name, opts);
    if (del.ok()) {
      ++deleted;
    } else if (del.status().code() != Code::kConflict && del.status().code() != Code::kNotFound) {
      spdlog::warn("event-ttl: deleting {}/{}: {}", ns, name, del.status().message());
    }
  }
  return deleted;
}

}  // namespace svcplane::apiserver::registry
