#pragma once

// Informer transforms (SharedInformer::SetTransform) that keep only what the service-discovery
// controllers read, as client-go users strip managedFields and the like: a cached Pod shrinks
// from a full object to the handful of fields the endpoints/EndpointSlice controllers use.

#include "api/core/v1/pod.h"
#include "client/typed/interface.h"

namespace svcplane::client::informers {

// Keeps metadata (name, namespace, uid, resourceVersion, labels, deletionTimestamp), spec
// (nodeName, hostname, subdomain, readiness gates, the ports of containers that have some, and
// of sidecar init containers) and status (phase, pod IPs, the Ready condition). Drops
// annotations, owner references, managedFields, images, volumes, probes, host IPs, other
// conditions, container statuses and every other unknown field: the result has no boxed `rest`
// (api/core/v1/pod.h) unless the Pod has sidecars with ports.
ObjectPtr<api::core::v1::Pod> SlimPodForServiceControllers(ObjectPtr<api::core::v1::Pod> pod);

}  // namespace svcplane::client::informers
