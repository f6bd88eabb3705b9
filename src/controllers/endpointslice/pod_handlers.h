#pragma once

// Which Services a Pod event concerns (endpoints-controller.md §3.3–3.7), shared by the Endpoints
// and EndpointSlice controllers.

#include <string>
#include <vector>

#include "api/core/v1/pod.h"
#include "api/core/v1/service.h"
#include "api/discovery/v1/endpoint_slice.h"
#include "client/informers/interface.h"

namespace svcplane::controllers::endpointslice {

struct PodChange {
  bool pod_changed = false;     // deletionTimestamp, Ready, or pod IPs changed
  bool labels_changed = false;  // labels, hostname or subdomain changed
};
PodChange ComparePods(const api::core::v1::Pod& old_pod, const api::core::v1::Pod& new_pod);

// Beyond upstream: indexes that turn "which Pods does this Service select" and "which Services
// select this Pod" from scans of the namespace into lookups (upstream scans; with 10,000
// Services and 100,000 Pods in one namespace that is quadratic). Values are "ns/key=value".
inline constexpr char kPodLabelIndex[] = "svcplane.io/pod-labels";
inline constexpr char kServiceSelectorIndex[] = "svcplane.io/service-selector";

// Which indexes the informers carry. Register them before the informers start; afterwards (or
// without them) the functions below fall back to scans.
struct SelectionIndexes {
  bool pods = false;
  bool services = false;
};
SelectionIndexes AddSelectionIndexes(
    client::informers::SharedInformer<api::core::v1::Pod>& pods,
    client::informers::SharedInformer<api::core::v1::Service>& services);

// Slices by "ns/<kubernetes.io/service-name label>" (any manager). True when the index exists.
inline constexpr char kSliceServiceIndex[] = "svcplane.io/slice-service";
bool AddSliceServiceIndex(
    client::informers::SharedInformer<api::discovery::v1::EndpointSlice>& slices);
// The slices labelled for Service ns/name managed by `managed_by` (any deletion state).
std::vector<client::ObjectPtr<api::discovery::v1::EndpointSlice>> SlicesLabelledFor(
    const client::informers::Lister<api::discovery::v1::EndpointSlice>& slices, bool indexed,
    const std::string& ns, const std::string& name, std::string_view managed_by);

// The Pods of the Service's namespace its (non-empty) selector matches.
std::vector<client::ObjectPtr<api::core::v1::Pod>> PodsForService(
    const client::informers::Lister<api::core::v1::Pod>& pods, const api::core::v1::Service& svc,
    const SelectionIndexes& indexes = {});

// "ns/name" of every Service in `ns` whose (non-empty) selector matches `labels`, sorted.
std::vector<std::string> ServicesSelecting(
    const client::informers::Lister<api::core::v1::Service>& services, const std::string& ns,
    const api::meta::StringMap& labels, const SelectionIndexes& indexes = {});

// The Services to enqueue for a Pod add or delete (`old_pod` null) or update.
std::vector<std::string> ServicesForPodEvent(
    const client::informers::Lister<api::core::v1::Service>& services,
    const api::core::v1::Pod* old_pod, const api::core::v1::Pod& pod,
    const SelectionIndexes& indexes = {});

}  // namespace svcplane::controllers::endpointslice
