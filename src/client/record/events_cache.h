#pragma once

// client-go's EventCorrelator (tools/record/events_cache.go): decides, for each new event,
// whether to drop it (spam filter), fold it into an aggregate ("(combined from similar
// events): ..."), or count it as a repeat of one already written (count++, patch instead of
// create). Pure logic on an injected clock; no I/O.

#include <memory>
#include <mutex>
#include <set>
#include <string>

#include "api/core/v1/event.h"
#include "base/clock.h"
#include "client/record/internal/lru_cache.h"
#include "client/token_bucket.h"

namespace svcplane::client::record {

struct CorrelatorOptions {
  size_t lru_cache_size = 4096;                       // maxLruCacheEntries
  int max_events = 10;                                // similar events before aggregating
  Duration max_interval = std::chrono::seconds(600);  // aggregation window
  int spam_burst = 25;                                // events per source+object before filtering
  double spam_qps = 1.0 / 300.0;                      // refill: one per 5 minutes
};

struct CorrelateResult {
  api::core::v1::Event event;  // what to write (name/count/firstTimestamp from history)
  std::string patch;           // a strategic merge patch when event.count > 1
  bool skip = false;           // dropped by the spam filter
};

// The keys client-go derives from an event.
std::string EventKey(const api::core::v1::Event& e);      // everything including the message
std::string SpamKey(const api::core::v1::Event& e);       // source + object + type
std::string AggregateKey(const api::core::v1::Event& e);  // source + object + type + reason

// Safe from any thread.
class EventCorrelator {
 public:
  EventCorrelator(const Clock& clock, CorrelatorOptions options = {});

  CorrelateResult Correlate(const api::core::v1::Event& event);
  // Records what the server returned (name, resourceVersion, count) after a successful write.
  void UpdateState(const api::core::v1::Event& written);

 private:
  struct AggregateRecord {
    std::set<std::string> local_keys;  // distinct messages seen in the window
    TimePoint last;
  };
  struct EventLog {
    int32_t count = 0;
    api::meta::Time first_timestamp;
    std::string name;
    std::string resource_version;
  };
  struct SpamRecord {
    std::shared_ptr<TokenBucket> bucket;
  };

  // Returns the event to observe and its cache key.
  std::pair<api::core::v1::Event, std::string> Aggregate(const api::core::v1::Event& event);
  // Applies history to the event; returns the patch ("" for a first occurrence).
  std::string Observe(api::core::v1::Event& event, const std::string& key);
  bool Filter(const api::core::v1::Event& event);

  // Constant after construction.
  const Clock& clock_;
  const CorrelatorOptions options_;

  std::mutex mu_;
  // Guarded by mu_.
  internal::LruCache<AggregateRecord> aggregates_;
  internal::LruCache<EventLog> logs_;
  internal::LruCache<SpamRecord> spam_;
};

// Event name as client-go makes it: "<object name>.<unix nanos in hex>".
std::string EventName(std::string_view object_name, WallTime t);
// metav1.Time of a wall time (whole seconds).
api::meta::Time ToMetaTime(WallTime t);

}  // namespace svcplane::client::record
