#pragma once

// kube-apiserver's --event-ttl: an Event is deleted once `ttl` has passed since its last write
// (upstream attaches an etcd lease of that TTL to every Event write). We keep the time of each
// Event's last write in memory, fed by the events registry's write hooks, and sweep
// periodically. Events found at start count as written then: after a restart they live at most
// one more TTL, never less than upstream would keep them.

#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <string>
#include <thread>

#include "api/core/v1/event.h"
#include "apiserver/registry/registry.h"
#include "base/clock.h"

namespace svcplane::apiserver::registry {

class EventTtl {
 public:
  // Installs write hooks on `events` (which must have none) and records the Events stored now.
  // `events` and `clock` must outlive this object. Call Start() for the background sweeper, or
  // SweepForTest() to sweep by hand.
  EventTtl(Registry<api::core::v1::Event>* events, const Clock& clock, Duration ttl);
  ~EventTtl();

  // Sweeps every `period` on the clock until destroyed (upstream's lease granularity is a
  // second or so; a period of ttl/4, at most a minute, keeps the lateness bounded the same way).
  void Start();
  static Duration DefaultPeriod(Duration ttl);

  // Deletes every Event last written `ttl` or more ago; returns how many were deleted.
  size_t SweepForTest() { return Sweep(); }
  size_t TrackedForTest() const;

 private:
  using Key = std::pair<std::string, std::string>;  // namespace, name

  size_t Sweep();
  void Loop();

  Registry<api::core::v1::Event>* events_;
  const Clock& clock_;
  const Duration ttl_;

  mutable std::mutex mu_;
  std::map<Key, TimePoint> last_write_;  // guarded by mu_
  std::condition_variable cv_;
  bool stopping_ = false;  // guarded by mu_
  std::thread thread_;
};

}  // namespace svcplane::apiserver::registry
