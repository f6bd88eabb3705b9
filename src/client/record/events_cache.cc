#include "client/record/events_cache.h"

#include <fmt/format.h>

#include <string_view>

#include "base/json_string.h"

namespace svcplane::client::record {

using api::core::v1::Event;

namespace {

std::string Join(std::initializer_list<std::string_view> parts) {
  std::string out;
  for (std::string_view p : parts) out += p;
  return out;
}

// The two-way merge patch client-go computes between the event with count 0, lastTimestamp at
// the epoch and no message, and the event itself: exactly these three fields.
std::string RepeatPatch(const Event& e) {
  std::string patch =
      fmt::format("{{\"count\":{},\"lastTimestamp\":{}", e.count,
                  e.last_timestamp.IsZero()
                      ? "null"
                      : JsonQuote(api::meta::FormatRFC3339(e.last_timestamp.unix_seconds)));
  if (!e.message.empty()) patch += ",\"message\":" + JsonQuote(e.message);
  return patch + "}";
}

}  // namespace

std::string EventKey(const Event& e) {
  const auto& o = e.involved_object;
  return Join({e.source.component, e.source.host, o.kind, o.namespace_, o.name, o.field_path, o.uid,
               o.api_version, e.type, e.reason, e.message});
}

std::string SpamKey(const Event& e) {
  const auto& o = e.involved_object;
  return Join({e.source.component, e.source.host, o.kind, o.namespace_, o.name, o.uid,
               o.api_version, e.type});
}

std::string AggregateKey(const Event& e) {
  const auto& o = e.involved_object;
  return Join({e.source.component, e.source.host, o.kind, o.namespace_, o.name, o.uid,
               o.api_version, e.type, e.reason, e.reporting_component, e.reporting_instance});
}

std::string EventName(std::string_view object_name, WallTime t) {
  auto nanos = std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
  return fmt::format("{}.{:x}", object_name, static_cast<uint64_t>(nanos));
}

api::meta::Time ToMetaTime(WallTime t) {
  return api::meta::Time::FromUnix(
      std::chrono::duration_cast<std::chrono::seconds>(t.time_since_epoch()).count());
}

EventCorrelator::EventCorrelator(const Clock& clock, CorrelatorOptions options)
    : clock_(clock),
      options_(options),
      aggregates_(options.lru_cache_size),
      logs_(options.lru_cache_size),
      spam_(options.lru_cache_size) {}

CorrelateResult EventCorrelator::Correlate(const Event& event) {
  std::lock_guard<std::mutex> l(mu_);
  auto [observed, key] = Aggregate(event);
  CorrelateResult result;
  result.patch = Observe(observed, key);
  // As upstream, the spam filter runs last, so a filtered event still counts in the history.
  result.skip = Filter(observed);
  result.event = std::move(observed);
  return result;
}

void EventCorrelator::UpdateState(const Event& written) {
  std::lock_guard<std::mutex> l(mu_);
  logs_.Add(EventKey(written), EventLog{written.count, written.first_timestamp,
                                        written.metadata.name, written.metadata.resource_version});
}

std::pair<Event, std::string> EventCorrelator::Aggregate(const Event& event) {
  const TimePoint now = clock_.Now();
  const std::string aggregate_key = AggregateKey(event);
  AggregateRecord record;
  if (AggregateRecord* found = aggregates_.Get(aggregate_key)) record = *found;
  if (now - record.last > options_.max_interval) record = AggregateRecord{};
  record.local_keys.insert(event.message);
  record.last = now;
  const bool aggregate = static_cast<int>(record.local_keys.size()) >= options_.max_events;
  // Keep the set below the limit (upstream pops an arbitrary key).
  if (aggregate) record.local_keys.erase(record.local_keys.begin());
  aggregates_.Add(aggregate_key, record);
  if (!aggregate) return {event, EventKey(event)};

  const WallTime wall = clock_.WallNow();
  Event combined;
  combined.metadata.name = EventName(event.involved_object.name, wall);
  combined.metadata.namespace_ = event.metadata.namespace_;
  combined.count = 1;
  combined.first_timestamp = ToMetaTime(wall);
  combined.last_timestamp = combined.first_timestamp;
  combined.involved_object = event.involved_object;
  combined.message = "(combined from similar events): " + event.message;
  combined.type = event.type;
  combined.reason = event.reason;
  combined.source = event.source;
  return {std::move(combined), aggregate_key};
}

std::string EventCorrelator::Observe(Event& event, const std::string& key) {
  std::string patch;
  if (EventLog* last = logs_.Get(key); last != nullptr && last->count > 0) {
    event.metadata.name = last->name;
    event.metadata.resource_version = last->resource_version;
    event.first_timestamp = last->first_timestamp;
    event.count = last->count + 1;
    patch = RepeatPatch(event);
  }
  logs_.Add(key, EventLog{event.count, event.first_timestamp, event.metadata.name,
                          event.metadata.resource_version});
  return patch;
}

bool EventCorrelator::Filter(const Event& event) {
  const std::string key = SpamKey(event);
  SpamRecord* record = spam_.Get(key);
  if (record == nullptr) {
    spam_.Add(key, SpamRecord{std::make_shared<TokenBucket>(options_.spam_qps, options_.spam_burst,
                                                            clock_)});
    record = spam_.Get(key);
  }
  return !record->bucket->TryAccept();
}

}  // namespace svcplane::client::record
