#pragma once

// Free functions of the EndpointSlice controller: no I/O, no state. They turn cached objects into
// the pieces a reconcile compares (endpoints, ports, keys, labels) and decide the small yes/no
// questions of the spec (owned? labels out of date? placeholder?).

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/core/v1/node.h"
#include "api/core/v1/pod.h"
#include "api/core/v1/service.h"
#include "api/discovery/v1/endpoint_slice.h"
#include "api/meta/types.h"

namespace svcplane::controllers::endpointslice {

using api::core::v1::Node;
using api::core::v1::Pod;
using api::core::v1::Service;
using api::discovery::v1::Endpoint;
using api::discovery::v1::EndpointPort;
using api::discovery::v1::EndpointSlice;

inline constexpr std::string_view kManagedByLabel = "endpointslice.kubernetes.io/managed-by";
inline constexpr std::string_view kControllerName = "endpointslice-controller.k8s.io";
inline constexpr std::string_view kServiceNameLabel = "kubernetes.io/service-name";
inline constexpr std::string_view kHeadlessLabel = "service.kubernetes.io/headless";
inline constexpr std::string_view kTriggerTimeAnnotation =
    "endpoints.kubernetes.io/last-change-trigger-time";
inline constexpr std::string_view kZoneLabel = "topology.kubernetes.io/zone";
inline constexpr std::string_view kTopologyModeAnnotation = "service.kubernetes.io/topology-mode";
inline constexpr std::string_view kDeprecatedTopologyAnnotation =
    "service.kubernetes.io/topology-aware-hints";
inline constexpr std::string_view kAddressTypeIPv4 = "IPv4";
inline constexpr std::string_view kAddressTypeIPv6 = "IPv6";
inline constexpr int kDefaultMaxEndpointsPerSlice = 100;
inline constexpr int kMaxMaxEndpointsPerSlice = 1000;

// §4: the address types a Service's slices use, in the order IPv4, IPv6.
std::vector<std::string> SupportedAddressTypes(const Service& service);

// "IPv4" / "IPv6" for a parseable IP (ParseIPSloppy; IPv4-mapped IPv6 counts as IPv4, as Go's
// To4() does), nullopt otherwise. `canonical` receives the re-formatted address (Go's IP.String()).
std::optional<std::string_view> AddressFamily(std::string_view ip, std::string* canonical);

// §7: the EndpointPorts of `pod` for `service`, in a canonical order (sorted by name, protocol,
// port, appProtocol) so that equal port sets compare equal. Ports whose targetPort does not
// resolve on the pod are omitted.
std::vector<EndpointPort> EndpointPortsForPod(const Service& service, const Pod& pod);
// Resolves a Service port's targetPort on a pod (endpoints-controller.md §6.3).
std::optional<int32_t> FindPort(const Pod& pod, const api::core::v1::ServicePort& port);
// Order-independent key of a port list: equal for the same multiset of ports.
uint64_t PortMapKey(const std::vector<EndpointPort>& ports);

// §5.1.2: a pod is a candidate iff it is not terminal and has a pod IP.
bool ShouldIncludePod(const Pod& pod);
bool PodIsReady(const Pod& pod);

// §6: the endpoint of `pod` for one address type, or nullopt if the pod has no address of that
// family. `zone` is the Node's zone label (empty when unknown).
std::optional<Endpoint> PodToEndpoint(const Pod& pod, const Service& service,
                                      std::string_view address_type, std::string_view node_name,
                                      std::string_view zone);

// §5.1.6: identity of an endpoint (sorted addresses, hostname, targetRef namespace/name).
std::string EndpointKey(const Endpoint& endpoint);
// §5.2 step 1: differences that the key does not capture (hints are ignored on purpose).
bool EndpointChangedBeyondKey(const Endpoint& existing, const Endpoint& desired);

// §8.
api::meta::OwnerReference ServiceOwnerReference(const Service& service);
bool OwnedBy(const EndpointSlice& slice, const Service& service);
api::meta::StringMap SliceLabels(const Service& service);
bool IsReservedLabel(std::string_view key);
bool ServiceLabelsOutOfDate(const EndpointSlice& slice, const Service& service);
// A fresh slice (no name; generateName set) for `service`, with `ports` and `address_type`.
EndpointSlice NewSlice(const Service& service, std::vector<EndpointPort> ports,
                       std::string_view address_type);
std::string GenerateNamePrefix(const Service& service);

// §5.3.2: equality that ignores name, annotations, ownerReferences and timestamps.
bool PlaceholderEqual(const EndpointSlice& a, const EndpointSlice& b);

// Go's time.RFC3339Nano in UTC ("2024-05-01T10:00:00.5Z", trailing zeros trimmed).
std::string FormatRFC3339Nano(int64_t unix_nanos);

// §10.1: topology-mode Auto (or the deprecated annotation) is on.
bool TopologyHintsEnabled(const Service& service);
// §11.1: trafficDistribution is usable (PreferClose / PreferSameZone / PreferSameNode).
bool TrafficDistributionUsable(const Service& service);

// §3.4–3.5: the slices of `all` that belong to `service` and this controller (managed-by and
// service-name labels match, namespace matches) and are not being deleted.
std::vector<std::shared_ptr<const EndpointSlice>> SlicesForService(
    const Service& service, const std::vector<std::shared_ptr<const EndpointSlice>>& all);

// §2.4–2.5: the services ("ns/name") to enqueue for a slice update; `old_slice` may be null
// (an add). Empty when the slice is not (and was not) ours.
std::vector<std::string> ServicesToSyncForSliceChange(const EndpointSlice* old_slice,
                                                      const EndpointSlice& new_slice,
                                                      bool tracker_should_sync);

// "ns/name" of the service that owns a slice via the service-name label; empty if unlabeled.
std::string ServiceKeyForSlice(const EndpointSlice& slice);

}  // namespace svcplane::controllers::endpointslice
