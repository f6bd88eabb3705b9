#pragma once

// One address type of one sync (spec §5.2–5.3): which owned slices keep, lose or gain
// endpoints, which are deleted and which are created, using the fewest writes; plus the opt-in
// rebalancing pass.

#include <vector>

#include "controllers/endpointslice/internal/service_state.h"
#include "controllers/endpointslice/reconciler.h"

namespace svcplane::controllers::endpointslice::internal {

struct FamilyPlan {
  std::vector<EndpointSlice> to_create;
  std::vector<EndpointSlice> to_update;
  std::vector<const EndpointSlice*> to_update_orig;  // the cached slice each update replaces
  std::vector<SlicePtr> to_delete;
  std::vector<SliceRec*> unchanged;
  int added = 0;
  int removed = 0;
  int moves = 0;
};

// Plans `fs` (already up to date with this sync's objects). `placed` receives the keys put into
// writes, which the next sync must re-check.
FamilyPlan PlanFamily(const Service& service, FamilyState& fs, const ReconcilerOptions& options,
                      std::vector<Key>* placed);

}  // namespace svcplane::controllers::endpointslice::internal
