#pragma once

// Free functions of the Endpoints controller (endpoints-controller.md §5–§10): no I/O, no state.

#include <optional>
#include <string_view>
#include <vector>

#include "api/core/v1/endpoints.h"
#include "api/core/v1/pod.h"
#include "api/core/v1/service.h"
#include "api/meta/string_map.h"

namespace svcplane::controllers::endpoints {

using api::core::v1::EndpointAddress;
using api::core::v1::EndpointPort;
using api::core::v1::Endpoints;
using api::core::v1::EndpointSubset;
using api::core::v1::Pod;
using api::core::v1::Service;

inline constexpr std::string_view kOverCapacityAnnotation = "endpoints.kubernetes.io/over-capacity";
inline constexpr std::string_view kTruncated = "truncated";
inline constexpr std::string_view kTriggerTimeAnnotation =
    "endpoints.kubernetes.io/last-change-trigger-time";
inline constexpr std::string_view kHeadlessLabel = "service.kubernetes.io/headless";
inline constexpr std::string_view kManagedByLabel = "endpoints.kubernetes.io/managed-by";
inline constexpr std::string_view kManagedByValue = "endpoint-controller";
inline constexpr std::string_view kLeaderAnnotation = "control-plane.alpha.kubernetes.io/leader";
inline constexpr int kMaxCapacity = 1000;

// §7: the canonical form of `subsets`. Addresses are identified by (ip, targetRef uid); a port
// group's not-ready wins over ready; ports with the same address set share a subset. Order:
// addresses by (ip, nil targetRef first, uid), ports by (name, port, protocol, appProtocol),
// subsets by their first port (a port-less subset first).
std::vector<EndpointSubset> RepackSubsets(const std::vector<EndpointSubset>& subsets);

// §8.2: equal as sets (subset, address and port order ignored), targetRef.resourceVersion ignored.
bool SubsetsEqualIgnoreResourceVersion(const std::vector<EndpointSubset>& a,
                                       const std::vector<EndpointSubset>& b);

// Ready plus not-ready addresses over all subsets.
int CountAddresses(const std::vector<EndpointSubset>& subsets);

// §10: cuts `subsets` to `max` addresses (not-ready ones first, then ready ones, spread over the
// subsets in proportion to their sizes). Returns true if anything was cut.
bool TruncateSubsets(std::vector<EndpointSubset>* subsets, int max = kMaxCapacity);

// §5.1: Succeeded/Failed pods, pods without an IP and (unless publishNotReadyAddresses)
// terminating pods are left out.
bool ShouldPodBeInEndpoints(const Pod& pod, bool include_terminating);

// §5.2–5.4: the address of `pod` in the Service's primary family; nullopt if it has none.
std::optional<EndpointAddress> PodToEndpointAddress(const Pod& pod, const Service& service);

// A Service selector matches labels iff every key/value is present (an empty map matches all).
bool SelectorMatches(const api::meta::StringMap& selector, const api::meta::StringMap& labels);

}  // namespace svcplane::controllers::endpoints
