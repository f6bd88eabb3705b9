#include "storage/internal/versioned_map.h"

#include <algorithm>
#include <cstdint>
#include <utility>

#include "base/check.h"
#include "base/thread_name.h"

namespace svcplane::storage::internal {

namespace {

bool HasPrefix(std::string_view key, std::string_view prefix) { return key.starts_with(prefix); }

// True if `key` lies in [begin, end), where an empty `end` means no upper bound.
bool InRange(std::string_view key, std::string_view begin, std::string_view end) {
  return key >= begin && (end.empty() || key < end);
}

}  // namespace

size_t HistoryCost(const WatchEvent& event) {
  // The event, its control block, two KeyValues and the deque slot.
  constexpr size_t kOverhead = 192;
  return kOverhead + event.kv.key.size() + (event.kv.value ? event.kv.value->size() : 0);
}

VersionedMap::VersionedMap(HistoryOptions options) : options_(std::move(options)) {
  dispatcher_ = std::thread([this] {
    NameThisThread("svc-watch-disp");
    DispatchLoop();
  });
}

VersionedMap::~VersionedMap() {
  {
    std::lock_guard lock(dispatch_mu_);
    stopping_ = true;
  }
  dispatch_cv_.notify_all();
  dispatcher_.join();
  std::vector<std::shared_ptr<WatchChannel>> watchers;
  {
    std::lock_guard lock(dispatch_mu_);
    watchers.swap(watchers_);
  }
  for (auto& w : watchers) {
    w->Fail(UnavailableError("store closed"));
    w->NotifyIfNeeded();
  }
}

Result<KeyValue> VersionedMap::Get(std::string_view key) const {
  auto kv = Lookup(key);
  if (!kv) return NotFoundError("key \"" + std::string(key) + "\" not found");
  return std::move(*kv);
}

std::optional<KeyValue> VersionedMap::Lookup(std::string_view key) const {
  std::shared_lock lock(mu_);
  auto it = live_.find(key);
  if (it == live_.end()) return std::nullopt;
  return KeyValue{it->first, it->second.value, it->second.create_revision, it->second.mod_revision};
}

bool VersionedMap::WaitForRevision(Revision revision, std::chrono::milliseconds timeout) const {
  std::unique_lock lock(rev_mu_);
  return rev_cv_.wait_for(lock, timeout, [&] { return current_revision() >= revision; });
}

Result<ListResult> VersionedMap::List(const ListOptions& options) const {
  if (!options.start_key.empty() && !HasPrefix(options.start_key, options.prefix)) {
    return BadRequestError("start key \"" + options.start_key + "\" is outside prefix \"" +
                           options.prefix + "\"");
  }
  if (options.match != RevisionMatch::kLatest && options.revision > current_revision() &&
      !WaitForRevision(options.revision, options_.future_wait)) {
    return Status(Code::kTimeout,
                  "Too large resource version: " + std::to_string(options.revision) +
                      ", current: " + std::to_string(current_revision()));
  }
  const std::string begin = options.start_key.empty() ? options.prefix : options.start_key;
  const std::string end = PrefixEnd(options.prefix);

  std::shared_lock lock(mu_);
  const Revision current = current_revision();
  const Revision at = options.match == RevisionMatch::kExact ? options.revision : current;
  if (at < compacted_revision()) {
    return GoneError("The resourceVersion " + std::to_string(at) +
                     " is too old: history starts after " + std::to_string(compacted_revision()));
  }

  // Keys changed after `at` map to their state at `at` (nullopt: did not exist then). The first
  // event after `at` for a key carries that state as its prev.
  std::map<std::string_view, const std::optional<KeyValue>*> undo;
  if (at < current) {
    auto first = std::partition_point(history_.begin(), history_.end(),
                                      [&](const auto& h) { return h.event->revision() <= at; });
    for (auto it = first; it != history_.end(); ++it) {
      const WatchEvent& e = *it->event;
      if (InRange(e.kv.key, begin, end)) undo.try_emplace(e.kv.key, &e.prev);
    }
  }

  ListResult result;
  result.revision = at;
  const size_t limit = options.limit == 0 ? SIZE_MAX : options.limit;
  // A full page: from here on only count what is left (remainingItemCount). Counting must not
  // build KeyValues (a key copy each): an informer paging through 100k objects would pay that
  // for every remaining object on every page.
  auto page_full = [&] { return result.items.size() >= limit; };
  auto emit = [&](KeyValue kv) {
    if (!page_full()) {
      result.items.push_back(std::move(kv));
    } else {
      if (result.continue_key.empty()) result.continue_key = kv.key;
      ++result.remaining;
    }
  };
  auto live = live_.lower_bound(begin);
  auto live_end = end.empty() ? live_.end() : live_.lower_bound(end);
  if (undo.empty()) {
    // One allocation: growing a vector of 100k items reallocates 17 times, and each large
    // allocation makes malloc consolidate every small chunk freed since.
    result.items.reserve(std::min<size_t>(limit, std::distance(live, live_end)));
  }
  auto old = undo.begin();
  while (live != live_end || old != undo.end()) {
    if (page_full() && !result.continue_key.empty()) {
      if (old == undo.end()) {  // the common case: listing the latest state
        result.remaining += std::distance(live, live_end);
        break;
      }
      const bool take_live = live != live_end && live->first < old->first;
      if (take_live) {
        ++result.remaining;
        ++live;
        continue;
      }
      if (live != live_end && live->first == old->first) ++live;
      if (old->second->has_value()) ++result.remaining;
      ++old;
      continue;
    }
    const bool take_live = old == undo.end() || (live != live_end && live->first < old->first);
    if (take_live) {
      if (!options.keys && !page_full()) {
        result.items.push_back(KeyValue{std::string(), live->second.value,
                                        live->second.create_revision, live->second.mod_revision});
      } else {
        emit(KeyValue{live->first, live->second.value, live->second.create_revision,
                      live->second.mod_revision});
      }
      ++live;
      continue;
    }
    if (live != live_end && live->first == old->first) ++live;
    if (old->second->has_value()) emit(**old->second);
    ++old;
  }
  return result;
}

Result<std::unique_ptr<storage::WatchStream>> VersionedMap::Watch(std::string_view prefix,
                                                                  Revision after,
                                                                  const WatchOptions& options) {
  std::shared_lock lock(mu_);
  if (after < compacted_revision()) {
    return GoneError("too old resource version: " + std::to_string(after) + " (" +
                     std::to_string(compacted_revision()) + ")");
  }
  const Revision current = current_revision();
  auto channel =
      std::make_shared<WatchChannel>(std::string(prefix), std::max(after, current) + 1, options);
  std::vector<EventPtr> replay;
  auto first = std::partition_point(history_.begin(), history_.end(),
                                    [&](const auto& h) { return h.event->revision() <= after; });
  for (auto it = first; it != history_.end(); ++it) {
    if (HasPrefix(it->event->kv.key, prefix)) replay.push_back(it->event);
  }
  channel->PushReplay(std::move(replay));
  {
    std::lock_guard dlock(dispatch_mu_);
    if (stopping_) return UnavailableError("store closed");
    watchers_.push_back(channel);
  }
  lock.unlock();
  channel->NotifyIfNeeded();
  return std::make_unique<storage::WatchStream>(std::move(channel));
}

void VersionedMap::Publish(std::vector<HistoryEntry> entries) {
  if (entries.empty()) return;
  {
    std::unique_lock lock(mu_);
    std::vector<EventPtr> events;
    events.reserve(entries.size());
    for (auto& h : entries) {
      const WatchEvent& e = *h.event;
      SVC_CHECK(e.revision() > current_revision())
          << "revision went backwards: " << e.revision() << " <= " << current_revision();
      if (e.type == WatchEvent::Type::kPut) {
        live_.insert_or_assign(e.kv.key,
                               Entry{e.kv.value, e.kv.create_revision, e.kv.mod_revision});
      } else {
        auto it = live_.find(e.kv.key);
        if (it != live_.end()) live_.erase(it);
      }
      current_.store(e.revision(), std::memory_order_release);
      events.push_back(h.event);
      history_bytes_ += HistoryCost(e);
      history_.push_back(std::move(h));
    }
    TrimLocked(entries.back().time);
    {
      std::lock_guard dlock(dispatch_mu_);
      pending_.insert(pending_.end(), events.begin(), events.end());
    }
  }
  { std::lock_guard rlock(rev_mu_); }
  rev_cv_.notify_all();
}

void VersionedMap::WakeWatchers() { dispatch_cv_.notify_one(); }

Status VersionedMap::Compact(Revision revision) {
  std::unique_lock lock(mu_);
  if (revision > current_revision()) {
    return BadRequestError("cannot compact to future revision " + std::to_string(revision) +
                           " (current " + std::to_string(current_revision()) + ")");
  }
  if (revision <= compacted_revision()) return Status::Ok();
  while (!history_.empty() && history_.front().event->revision() <= revision) {
    history_bytes_ -= HistoryCost(*history_.front().event);
    history_.pop_front();
  }
  compacted_.store(revision, std::memory_order_release);
  return Status::Ok();
}

Revision VersionedMap::TrimHistory() {
  std::unique_lock lock(mu_);
  TrimLocked(options_.now ? options_.now() : std::chrono::system_clock::now());
  return compacted_revision();
}

void VersionedMap::TrimLocked(std::chrono::system_clock::time_point now) {
  Revision dropped = compacted_revision();
  while (!history_.empty()) {
    const bool too_many = history_.size() > options_.max_events;
    const bool too_big = history_bytes_ > options_.max_bytes;
    const bool too_old =
        history_.size() > options_.min_events && now - history_.front().time > options_.max_age;
    if (!too_many && !too_big && !too_old) break;
    dropped = history_.front().event->revision();
    history_bytes_ -= HistoryCost(*history_.front().event);
    history_.pop_front();
  }
  if (dropped > compacted_revision()) compacted_.store(dropped, std::memory_order_release);
}

void VersionedMap::Reset(std::vector<KeyValue> live, std::vector<HistoryEntry> history,
                         Revision current, Revision compacted, const Status& watch_error) {
  std::vector<std::shared_ptr<WatchChannel>> ended;
  {
    std::unique_lock lock(mu_);
    live_.clear();
    for (auto& kv : live) {
      live_.insert_or_assign(std::move(kv.key),
                             Entry{std::move(kv.value), kv.create_revision, kv.mod_revision});
    }
    history_.assign(std::make_move_iterator(history.begin()),
                    std::make_move_iterator(history.end()));
    history_bytes_ = 0;
    for (const auto& h : history_) history_bytes_ += HistoryCost(*h.event);
    current_.store(current, std::memory_order_release);
    compacted_.store(compacted, std::memory_order_release);
    TrimLocked(options_.now ? options_.now() : std::chrono::system_clock::now());
    std::lock_guard dlock(dispatch_mu_);
    pending_.clear();
    ended.swap(watchers_);
  }
  for (auto& w : ended) {
    w->Fail(watch_error);
    w->NotifyIfNeeded();
  }
  { std::lock_guard rlock(rev_mu_); }
  rev_cv_.notify_all();
}

size_t VersionedMap::history_size() const {
  std::shared_lock lock(mu_);
  return history_.size();
}

size_t VersionedMap::history_bytes() const {
  std::shared_lock lock(mu_);
  return history_bytes_;
}

void VersionedMap::DispatchLoop() {
  std::vector<EventPtr> events;
  std::vector<std::shared_ptr<WatchChannel>> watchers;
  while (true) {
    {
      std::unique_lock lock(dispatch_mu_);
      dispatch_cv_.wait(lock, [&] { return stopping_ || !pending_.empty(); });
      if (pending_.empty() && stopping_) return;
      events.swap(pending_);
      std::erase_if(watchers_, [](const auto& w) { return w->done(); });
      watchers = watchers_;
    }
    for (auto& w : watchers) {
      for (const auto& e : events) {
        if (e->revision() < w->next_revision() || !HasPrefix(e->kv.key, w->prefix())) continue;
        if (!w->Push(e)) break;
      }
      w->AdvanceProgress(events.back()->revision());
      w->NotifyIfNeeded();
    }
    events.clear();
    watchers.clear();
  }
}

// WritePlanner

WritePlanner::WritePlanner(const VersionedMap& map, std::chrono::system_clock::time_point now)
    : map_(map), now_(now), next_(map.current_revision() + 1) {}

std::optional<KeyValue> WritePlanner::Current(const std::string& key) const {
  auto it = overlay_.find(key);
  if (it != overlay_.end()) return it->second;
  return map_.Lookup(key);
}

Result<EventPtr> WritePlanner::Plan(const WriteRequest& request) {
  if (request.key.empty()) return BadRequestError("empty key");
  std::optional<KeyValue> current = Current(request.key);
  auto event = std::make_shared<WatchEvent>();
  event->kv.key = request.key;
  switch (request.kind) {
    case WriteKind::kCreate:
      if (current) return AlreadyExistsError("key \"" + request.key + "\" already exists");
      event->type = WatchEvent::Type::kPut;
      event->kv.value = request.value ? request.value : MakeValue("");
      event->kv.create_revision = next_;
      break;
    case WriteKind::kUpdate:
    case WriteKind::kDelete:
      if (!current) return NotFoundError("key \"" + request.key + "\" not found");
      if (current->mod_revision != request.expected_mod_revision) {
        return ConflictError("key \"" + request.key + "\" is at revision " +
                             std::to_string(current->mod_revision) + ", not " +
                             std::to_string(request.expected_mod_revision));
      }
      event->kv.create_revision = current->create_revision;
      if (request.kind == WriteKind::kUpdate) {
        event->type = WatchEvent::Type::kPut;
        event->kv.value = request.value ? request.value : MakeValue("");
      } else {
        event->type = WatchEvent::Type::kDelete;
        event->kv.value = current->value;
      }
      event->prev = std::move(current);
      break;
  }
  event->kv.mod_revision = next_++;
  if (event->type == WatchEvent::Type::kPut) {
    overlay_.insert_or_assign(request.key, event->kv);
  } else {
    overlay_.insert_or_assign(request.key, std::nullopt);
  }
  EventPtr out = event;
  entries_.push_back(HistoryEntry{out, now_});
  return out;
}

}  // namespace svcplane::storage::internal
