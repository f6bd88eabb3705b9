#pragma once

#include "apiserver/authorization/authorizer.h"
#include "apiserver/http/handler.h"

namespace svcplane::apiserver::audit {

// The request attributes of spec §3.1 (upstream's RequestInfoFactory), which both the audit
// policy and the authorizer evaluate: resource or non-resource, verb, namespace, resource,
// subresource, name, API group and version. `user` points at req.identity.
//
// TODO(integrator): the authorization filter builds the same attributes; keep one builder and
// have both call it. #22
authorization::Attributes RequestAttributes(const http::Request& req);

}  // namespace svcplane::apiserver::audit
