#pragma once

#include <chrono>

#include "apiserver/http/handler.h"
#include "base/result.h"

namespace svcplane::apiserver::http {

// How long a non-long-running request may take before it is answered 504 (upstream's
// WithRequestDeadline): `server_default` (--request-timeout), shortened by a `?timeout=` Go
// duration below it; `0`, a negative or a longer one leaves the default. BadRequest
// `invalid timeout specified in the request URL - <Go's parse error>` for a malformed one.
Result<std::chrono::milliseconds> RequestTimeout(const Request& req,
                                                 std::chrono::milliseconds server_default);

// Upstream's 504 for a request that did not finish in time (apierrors.NewTimeoutError with no
// retry hint, hence the empty details).
Response RequestTimeoutResponse();

}  // namespace svcplane::apiserver::http
