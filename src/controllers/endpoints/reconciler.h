#pragma once

// The Endpoints reconciler (endpoints-controller.md §4–§11): given a Service (or its absence), the
// Pods its selector matches and the current Endpoints (all from informer caches, never modified),
// Plan decides whether to create, update, delete or leave the Endpoints of the same name; Apply
// executes that decision through an EndpointsWriter. The wiring (controller.h) owns queues, retries
// and events; everything that decides *what* to write lives here and is unit-tested.

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "api/core/v1/endpoints.h"
#include "api/core/v1/pod.h"
#include "api/core/v1/service.h"
#include "base/result.h"
#include "base/status.h"
#include "controllers/endpoints/utils.h"
#include "controllers/endpointslice/topology_cache.h"  // Event
#include "controllers/endpointslice/trigger_time_tracker.h"

namespace svcplane::controllers::endpoints {

using endpointslice::Event;

struct EndpointsPlan {
  enum class Action { kNone, kCreate, kUpdate, kDelete };
  Action action = Action::kNone;
  std::string ns;
  std::string name;
  // kCreate / kUpdate: the object to write (an update carries the cached resourceVersion).
  Endpoints object;
  bool truncated = false;  // more than 1000 addresses were desired
  int ready = 0;           // addresses written, for logs and tests
  int not_ready = 0;
};

// The writes a plan needs. Implemented by the wiring over the typed client and by a stateful fake
// in tests. Create/Update return the object as stored.
class EndpointsWriter {
 public:
  virtual ~EndpointsWriter() = default;
  virtual Result<Endpoints> Create(const Endpoints& endpoints) = 0;
  virtual Result<Endpoints> Update(const Endpoints& endpoints) = 0;
  virtual Status Delete(const std::string& ns, const std::string& name) = 0;
};

struct ApplyResult {
  Status status;
  // Warning events for the Endpoints object (§4.12.2); empty on success.
  std::vector<Event> events;
};

// Safe to call from several workers at once for different keys; calls for the same key must not
// overlap (the work queue guarantees it).
class Reconciler {
 public:
  // `service` null: the Service is gone and its Endpoints are deleted. `pods` are the Pods of the
  // Service's namespace that match its selector (lister order). `current` is the cached Endpoints
  // of the same name, or null. Returns an error when the cache has not caught up with our own last
  // write (§11), so that the key is retried.
  Result<EndpointsPlan> Plan(const std::string& ns, const std::string& name, const Service* service,
                             const std::vector<std::shared_ptr<const Pod>>& pods,
                             const Endpoints* current);

  // Executes `plan`. A create refused because the namespace is terminating counts as success.
  ApplyResult Apply(const EndpointsPlan& plan, EndpointsWriter& writer);

  // True when `current` (the cached Endpoints for `key`, or null) does not yet show our own last
  // write: it still carries the resourceVersion our update replaced, or is absent after our
  // create. The wiring then waits for the informer instead of calling Plan (which would fail).
  bool CacheBehind(const std::string& key, const Endpoints* current);
  // The cache saw the Endpoints of `key` deleted: whatever we wrote before is gone.
  void ObserveDeletion(const std::string& key);

  // Drops what is remembered about a key (trigger times, stale resourceVersion).
  void Forget(const std::string& key);

 private:
  endpointslice::TriggerTimeTracker trigger_times_;
  std::mutex mu_;
  // key -> resourceVersion our last update replaced (the cache must move past it), or
  // kAwaitingCreate after our create (the cache must show the object).
  std::map<std::string, std::string> stale_rv_;  // guarded by mu_
  static constexpr char kAwaitingCreate[] = "";  // no resourceVersion is empty
};

// §5–§7 on their own: the canonical subsets for `service` and `pods`.
std::vector<EndpointSubset> DesiredSubsets(const Service& service,
                                           const std::vector<std::shared_ptr<const Pod>>& pods);

}  // namespace svcplane::controllers::endpoints
