#pragma once

// Topology-aware hints (spec §10) and trafficDistribution hints (spec §11).
//
// TopologyCache holds the per-zone share of allocatable CPU (from SetNodes) and, per Service and
// address type, how many endpoints each zone was last allocated. AddHints spreads the ready
// endpoints of one Service over the zones in proportion to CPU, keeping each zone within the
// overload threshold; when that is not possible it removes all hints and says why in an event.

#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "api/core/v1/node.h"
#include "api/discovery/v1/endpoint_slice.h"

namespace svcplane::controllers::endpointslice {

inline constexpr double kOverloadThreshold = 0.2;

// An event the wiring records on the Service (reason as upstream names it).
struct Event {
  std::string type;  // "Normal" | "Warning"
  std::string reason;
  std::string message;
  bool operator==(const Event&) const = default;
};

// The slices of one Service and address type after the endpoint diff, before hints. Functions
// below edit to_create / to_update in place and move slices out of `unchanged` (copying them into
// to_update) when their hints must change; cached objects are never modified.
struct SliceInfo {
  std::string service_key;  // "ns/name"
  std::string address_type;
  std::vector<api::discovery::v1::EndpointSlice> to_create;
  std::vector<api::discovery::v1::EndpointSlice> to_update;
  std::vector<std::shared_ptr<const api::discovery::v1::EndpointSlice>> unchanged;
};

// Endpoint is ready iff conditions.ready is set and true (unset counts as not ready).
bool EndpointReady(const api::discovery::v1::Endpoint& endpoint);

// §10.8 / §11.4: strips hints from to_create and to_update, and moves unchanged slices that
// carry any hint into to_update (copy, hints cleared).
void RemoveHintsFromSlices(SliceInfo& info);

// §11: trafficDistribution PreferClose / PreferSameZone / PreferSameNode. Every ready endpoint
// of to_create / to_update is hinted to its own zone (and node for PreferSameNode); unchanged
// slices whose hints differ from that are copied into to_update.
void ReconcileTrafficDistributionHints(const std::string& traffic_distribution, SliceInfo& info);

// Safe from any thread: the topology worker calls SetNodes while sync workers call AddHints.
class TopologyCache {
 public:
  using ZoneCounts = std::map<std::string, int>;

  // §10.2: recomputes CPU ratios per zone from the current Nodes.
  void SetNodes(const std::vector<std::shared_ptr<const api::core::v1::Node>>& nodes);
  // §10.3–10.6. Returns the events to record on the Service.
  std::vector<Event> AddHints(SliceInfo& info);
  void SetHints(const std::string& service_key, const std::string& address_type, ZoneCounts counts);
  void RemoveHints(const std::string& service_key, const std::string& address_type);
  bool HasPopulatedHints(const std::string& service_key) const;
  // §10.7: services ("ns/name") whose allocation no longer fits the current CPU ratios.
  std::vector<std::string> GetOverloadedServices() const;

  // For tests and metrics.
  std::map<std::string, double> CpuRatiosForTest() const;
  bool SufficientNodeInfoForTest() const;
  ZoneCounts HintsForTest(const std::string& service_key, const std::string& address_type) const;

 private:
  struct Allocation {
    int minimum = 0;
    int maximum = 0;
    double desired = 0;
  };
  // nullopt + event when allocation is impossible.
  std::optional<std::map<std::string, Allocation>> GetAllocations(int num_endpoints,
                                                                  Event* event) const;

  mutable std::mutex mu_;
  bool sufficient_node_info_ = false;         // guarded by mu_
  std::map<std::string, double> cpu_ratios_;  // guarded by mu_; zone -> share of CPU
  // guarded by mu_: service key -> address type -> zone -> endpoints allocated.
  std::map<std::string, std::map<std::string, ZoneCounts>> endpoints_by_service_;
  std::set<std::string> hints_populated_;  // guarded by mu_
};

}  // namespace svcplane::controllers::endpointslice
