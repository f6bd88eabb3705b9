#pragma once

// The last-change trigger time (endpoints-controller.md §9): when did the change that a sync is
// about to publish happen? Shared by the Endpoints and EndpointSlice controllers, each with its own
// instance. The answer is the earliest Pod Ready transition (or Service creation) that the
// previous sync of the same key had not seen yet.

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "api/core/v1/pod.h"
#include "api/core/v1/service.h"

namespace svcplane::controllers::endpointslice {

// Safe from any thread; calls for one key must not overlap (the work queue guarantees it).
class TriggerTimeTracker {
 public:
  // Unix nanoseconds, or nullopt for Go's zero time (the annotation is then removed). Replaces the
  // stored state for `key` with `service` and `pods` (the Pods the Service selects).
  std::optional<int64_t> Compute(
      const std::string& key, const api::core::v1::Service& service,
      const std::vector<std::shared_ptr<const api::core::v1::Pod>>& pods);
  // Forgets `key` (its Service was deleted): the next Compute returns the creation time again.
  void Delete(const std::string& key);

 private:
  struct State {
    int64_t service_time = 0;                            // 0 = zero time
    std::unordered_map<std::string, int64_t> pod_times;  // pod name -> nanos, 0 = zero
  };

  std::mutex mu_;
  std::map<std::string, State> states_;  // guarded by mu_
};

// The Ready condition's lastTransitionTime in unix nanoseconds; 0 when absent.
int64_t PodTriggerTime(const api::core::v1::Pod& pod);

}  // namespace svcplane::controllers::endpointslice
