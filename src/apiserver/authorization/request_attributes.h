#pragma once

#include "apiserver/authorization/authorizer.h"
#include "apiserver/http/handler.h"

namespace svcplane::apiserver::authorization {

// Upstream RequestInfoFactory.NewRequestInfo + authorizer attributes (spec §3.1): resource
// requests are /api/<v>/... (3+ parts) and /apis/<g>/<v>/... (4+ parts), everything else is a
// non-resource request with verb = lowercase method. Attributes.user points at
// request.identity, so the request must outlive the result.
Attributes AttributesFromRequest(const http::Request& request);

}  // namespace svcplane::apiserver::authorization
