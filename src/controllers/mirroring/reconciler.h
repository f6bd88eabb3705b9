#pragma once

// The EndpointSlice mirroring reconciler (endpointslice-mirroring.md §4–§7): mirrors the custom
// Endpoints of a selectorless Service into EndpointSlices, one slice per (address type, port set)
// of the repacked subsets, no packing. Plan is pure (cached objects in, a plan out); Apply writes
// it through the same SliceWriter the EndpointSlice reconciler uses.

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "api/core/v1/endpoints.h"
#include "api/core/v1/service.h"
#include "api/discovery/v1/endpoint_slice.h"
#include "base/status.h"
#include "controllers/endpointslice/reconciler.h"  // SliceWriter
#include "controllers/endpointslice/slice_tracker.h"
#include "controllers/endpointslice/topology_cache.h"  // Event

namespace svcplane::controllers::mirroring {

using api::core::v1::Endpoints;
using api::discovery::v1::EndpointSlice;
using endpointslice::Event;
using SlicePtr = std::shared_ptr<const EndpointSlice>;

inline constexpr std::string_view kControllerName = "endpointslicemirroring-controller.k8s.io";
inline constexpr std::string_view kSkipMirrorLabel = "endpointslice.kubernetes.io/skip-mirror";
inline constexpr std::string_view kLeaderAnnotation = "control-plane.alpha.kubernetes.io/leader";
inline constexpr std::string_view kLastAppliedAnnotation =
    "kubectl.kubernetes.io/last-applied-configuration";
inline constexpr int kDefaultMaxEndpointsPerSubset = 1000;

struct MirroringOptions {
  int max_endpoints_per_subset = kDefaultMaxEndpointsPerSubset;  // 1..1000
};

// What a sync observed, for the metrics of spec §8 (the wiring owns the registry).
struct MirrorMetrics {
  int endpoints_added = 0;
  int endpoints_updated = 0;
  int endpoints_removed = 0;
  int addresses_skipped = 0;
  int endpoints_desired = 0;
  int slices_desired = 0;  // Σ ceil(endpoints / max) per group
  int slices_actual = 0;   // existing + created − deleted
};

struct MirrorPlan {
  std::vector<EndpointSlice> to_create;  // generateName set
  std::vector<EndpointSlice> to_update;  // whole replacements of existing slices
  std::vector<SlicePtr> to_delete;
  std::vector<Event> events;  // Warnings on the Endpoints (§5.1.5)
  MirrorMetrics metrics;

  int Writes() const {
    return static_cast<int>(to_create.size() + to_update.size() + to_delete.size());
  }
};

// §2: false for skip-mirror=true or the leader-election annotation.
bool ShouldMirror(const Endpoints& endpoints);

// §4.4 / scenario 11: the slices of `all` mirrored from `endpoints` (namespace, service-name and
// managed-by labels match). Slices managed by anyone else are never seen.
std::vector<SlicePtr> MirroredSlices(const Endpoints& endpoints, const std::vector<SlicePtr>& all);
bool ManagedByMirroring(const EndpointSlice& slice);

// §3.3: the Endpoints keys ("ns/name") to sync for a slice add (old null) or update.
std::vector<std::string> EndpointsToSyncForSliceChange(const EndpointSlice* old_slice,
                                                       const EndpointSlice& new_slice,
                                                       bool tracker_should_sync);

// §5: the writes that make `existing` (MirroredSlices) mirror `endpoints`.
MirrorPlan Plan(const Endpoints& endpoints, const std::vector<SlicePtr>& existing,
                const MirroringOptions& options = {});

// §7: every mirrored slice deleted (Endpoints gone, skip-mirror set, Service gone or selected).
MirrorPlan PlanCleanup(const std::vector<SlicePtr>& existing);

// §5.3 steps 2–3: creates (unless the Endpoints is being deleted), updates, deletes. Stops at the
// first create/update error; delete errors are collected. `tracker` may be null.
Status Apply(const std::string& ns, const std::string& name, bool endpoints_terminating,
             const MirrorPlan& plan, endpointslice::SliceWriter& writer,
             endpointslice::SliceTracker* tracker);

// §7 on its own: deletes every slice of `plan.to_delete` and aggregates the errors.
Status ApplyCleanup(const std::string& ns, const std::string& name, const MirrorPlan& plan,
                    endpointslice::SliceWriter& writer, endpointslice::SliceTracker* tracker);

}  // namespace svcplane::controllers::mirroring
