#pragma once

// Which Services a Pod event concerns (endpoints-controller.md §3.3–3.7), shared by the Endpoints
// and EndpointSlice controllers.

#include <string>
#include <vector>

#include "api/core/v1/pod.h"
#include "api/core/v1/service.h"
#include "client/informers/interface.h"

namespace svcplane::controllers::endpointslice {

struct PodChange {
  bool pod_changed = false;     // deletionTimestamp, Ready, or pod IPs changed
  bool labels_changed = false;  // labels, hostname or subdomain changed
};
PodChange ComparePods(const api::core::v1::Pod& old_pod, const api::core::v1::Pod& new_pod);

// "ns/name" of every Service in `ns` whose (non-empty) selector matches `labels`, sorted.
std::vector<std::string> ServicesSelecting(
    const client::informers::Lister<api::core::v1::Service>& services, const std::string& ns,
    const api::meta::StringMap& labels);

// The Services to enqueue for a Pod add or delete (`old_pod` null) or update.
std::vector<std::string> ServicesForPodEvent(
    const client::informers::Lister<api::core::v1::Service>& services,
    const api::core::v1::Pod* old_pod, const api::core::v1::Pod& pod);

}  // namespace svcplane::controllers::endpointslice
