#pragma once

// The `scale` subresource of Deployments and ReplicaSets (upstream's ScaleREST in
// pkg/registry/apps/*/storage): GET, PUT and PATCH of an autoscaling/v1 Scale built from the
// object; a write copies spec.replicas (and the Scale's resourceVersion, if any) into the
// object and runs the object's normal update (generation, validation, conflicts).

#include <type_traits>

#include "api/types.h"
#include "apiserver/http/handler.h"
#include "apiserver/registry/registry.h"
#include "apiserver/rest/request_info.h"

namespace svcplane::apiserver::rest {

template <typename T>
inline constexpr bool kHasScale =
    std::is_same_v<T, api::apps::v1::Deployment> || std::is_same_v<T, api::apps::v1::ReplicaSet>;

// Answers any method on {resource}/{name}/scale; instantiated for the kinds of kHasScale.
template <typename T>
http::Reply HandleScale(registry::Registry<T>& reg, const http::Request& req,
                        const RequestInfo& info);

}  // namespace svcplane::apiserver::rest
