#pragma once

// The endpoint slice tracker (spec §9): remembers the generation of every slice this controller
// wrote, and the slices it deleted, so that a sync can tell when the informer cache has not yet
// caught up with its own writes (and must not act on stale state).

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "api/core/v1/service.h"
#include "api/discovery/v1/endpoint_slice.h"

namespace svcplane::controllers::endpointslice {

// Safe from any thread: event handlers and sync workers share one tracker.
class SliceTracker {
 public:
  // Recorded after our own create/update: the cache is stale until it shows this generation.
  void Update(const api::discovery::v1::EndpointSlice& slice);
  // Recorded after our own delete: the cache is stale while it still lists the slice.
  void ExpectDeletion(const api::discovery::v1::EndpointSlice& slice);
  // True if the slice is newer than what we recorded (or unknown): someone else changed it.
  bool ShouldSync(const api::discovery::v1::EndpointSlice& slice) const;
  bool Has(const api::discovery::v1::EndpointSlice& slice) const;
  // Forgets the slice; true when the deletion was expected (or the slice was never tracked as
  // written by us), false when we had recorded a generation for it.
  bool HandleDeletion(const api::discovery::v1::EndpointSlice& slice);
  // True if `slices` (the cache's view for `service`) lacks one of our writes.
  bool StaleSlices(
      const api::core::v1::Service& service,
      const std::vector<std::shared_ptr<const api::discovery::v1::EndpointSlice>>& slices);
  void DeleteService(const std::string& ns, const std::string& name);

 private:
  static constexpr int64_t kDeletionExpected = -1;
  struct ServiceRecord {
    std::string service_uid;
    std::unordered_map<std::string, int64_t> generation_by_slice_uid;
  };
  static std::string KeyOf(const api::discovery::v1::EndpointSlice& slice);

  mutable std::mutex mu_;
  std::map<std::string, ServiceRecord> services_;  // guarded by mu_; key "ns/name"
};

}  // namespace svcplane::controllers::endpointslice
