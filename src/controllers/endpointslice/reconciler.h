#pragma once

// The EndpointSlice reconciler (spec §4–§8): given one Service, the Pods it selects, the Nodes
// and the Service's existing slices (all straight from informer caches, never modified), Plan
// computes which slices to create, update and delete so that the slices hold exactly the desired
// endpoints with as few writes as possible. Apply executes a plan through a SliceWriter.
//
// The reconciler remembers, per Service, what it derived from the objects it saw last time
// (keyed by object identity: cache objects are immutable, so the same pointer means the same
// content). A sync after a one-Pod change then touches that Pod and the one slice holding its
// endpoint instead of re-deriving every endpoint. The memo is only an accelerator: the plan is
// the same as a from-scratch computation of the upstream algorithm (see reconciler_test.cc,
// which runs every scenario both ways).

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "api/core/v1/node.h"
#include "api/core/v1/pod.h"
#include "api/core/v1/service.h"
#include "api/discovery/v1/endpoint_slice.h"
#include "base/result.h"
#include "base/status.h"
#include "controllers/endpointslice/slice_tracker.h"
#include "controllers/endpointslice/topology_cache.h"

namespace svcplane::controllers::endpointslice {

namespace internal {
struct ServiceState;  // what is remembered per Service (internal/service_state.h)
class NodeZoneCache;  // the Node zones all Services share (internal/service_state.h)
}  // namespace internal

struct ReconcilerOptions {
  int max_endpoints_per_slice = 100;  // 1..1000
  // Reuse what earlier syncs of the same Service derived (see the file comment).
  bool incremental = true;
  // Beyond upstream: compact half-empty slices so that each port group uses at most
  // floor((1 + rebalance_slack) * ceil(endpoints / max)) slices, spending at most
  // rebalance_max_extra_writes writes per address type and sync beyond what upstream would do.
  bool rebalance = false;
  double rebalance_slack = 0.10;
  int rebalance_max_extra_writes = 10;
};

// What a sync observed, for the metrics of spec §12 (the wiring owns the registry).
struct SyncMetrics {
  int endpoints_added = 0;
  int endpoints_removed = 0;
  int endpoints_desired = 0;
  int slices_actual = 0;                   // existing + created − deleted
  int slices_desired = 0;                  // Σ ceil(endpoints / max) per port group, at least 1
  int rebalance_moves = 0;                 // endpoints moved by rebalancing
  std::string topology_label;              // "Auto" | "Disabled"
  std::string traffic_distribution_label;  // the usable value or ""
};

struct SlicePlan {
  std::vector<api::discovery::v1::EndpointSlice> to_create;  // generateName set, name empty
  std::vector<api::discovery::v1::EndpointSlice> to_update;  // copies carrying resourceVersion
  std::vector<std::shared_ptr<const api::discovery::v1::EndpointSlice>> to_delete;
  // Slices of address types the Service no longer uses (§4.3), deleted before anything else.
  std::vector<std::shared_ptr<const api::discovery::v1::EndpointSlice>> to_delete_unsupported;
  int unchanged = 0;
  std::vector<Event> events;
  // Returned by Apply after the writes (e.g. a Pod skipped because its Node is missing), so that
  // the wiring retries the Service.
  Status deferred_error;
  SyncMetrics metrics;

  int Writes() const {
    return static_cast<int>(to_create.size() + to_update.size() + to_delete.size() +
                            to_delete_unsupported.size());
  }
};

// The writes a plan needs. Implemented by the wiring over the typed client, and by a stateful
// in-memory fake in tests. Create/Update return the object as stored (name, uid, generation).
class SliceWriter {
 public:
  virtual ~SliceWriter() = default;
  virtual Result<api::discovery::v1::EndpointSlice> Create(
      const api::discovery::v1::EndpointSlice& slice) = 0;
  virtual Result<api::discovery::v1::EndpointSlice> Update(
      const api::discovery::v1::EndpointSlice& slice) = 0;
  virtual Status Delete(const std::string& ns, const std::string& name) = 0;
};

// Safe to call from several workers at once for different Services; calls for the same Service
// must not overlap (the work queue guarantees it).
class Reconciler {
 public:
  // `topology` may be null (no topology-aware hints); it must outlive the reconciler.
  explicit Reconciler(ReconcilerOptions options, TopologyCache* topology = nullptr);
  ~Reconciler();

  // `trigger_time_unix_nanos` is the last-change-trigger-time (nullopt: annotation removed).
  // Speed, not correctness, depends on `pods` keeping a stable order between syncs (the lister's
  // order): unchanged runs are skipped by pointer comparison, anything else is matched by hash.
  // `existing_slices` are those of SlicesForService(); pods must already match the selector.
  SlicePlan Plan(
      const std::shared_ptr<const api::core::v1::Service>& service,
      const std::vector<std::shared_ptr<const api::core::v1::Pod>>& pods,
      const std::vector<std::shared_ptr<const api::core::v1::Node>>& nodes,
      const std::vector<std::shared_ptr<const api::discovery::v1::EndpointSlice>>& existing_slices,
      std::optional<int64_t> trigger_time_unix_nanos = std::nullopt);

  // Executes `plan` (§5.3.4): unsupported-type deletes, creates, updates, deletes. Stops at the
  // first create/update error. Records every write in `tracker` when given.
  Status Apply(const api::core::v1::Service& service, const SlicePlan& plan, SliceWriter& writer,
               SliceTracker* tracker) const;

  // Drops what was remembered about a Service (call when it is deleted).
  void Forget(const std::string& ns, const std::string& name);

  const ReconcilerOptions& options() const { return options_; }

 private:
  std::shared_ptr<internal::ServiceState> StateFor(const api::core::v1::Service& service);

  const ReconcilerOptions options_;
  TopologyCache* const topology_;
  std::mutex mu_;
  std::map<std::string, std::shared_ptr<internal::ServiceState>> states_;  // guarded by mu_
  std::unique_ptr<internal::NodeZoneCache> node_zones_;                    // never null
};

}  // namespace svcplane::controllers::endpointslice
