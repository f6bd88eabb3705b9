#include "apiserver/http/request_timeout.h"

#include "base/go_duration.h"

namespace svcplane::apiserver::http {

Result<std::chrono::milliseconds> RequestTimeout(const Request& req,
                                                 std::chrono::milliseconds server_default) {
  auto value = req.Query("timeout");
  if (!value || value->empty()) return server_default;
  auto parsed = ParseGoDuration(*value);
  if (!parsed.ok()) {
    return BadRequestError("invalid timeout specified in the request URL - " +
                           parsed.status().message());
  }
  // Rounded up: a positive timeout under a millisecond must not become "no timeout".
  auto asked = std::chrono::ceil<std::chrono::milliseconds>(*parsed);
  if (asked > std::chrono::milliseconds::zero() && asked < server_default) return asked;
  return server_default;
}

Response RequestTimeoutResponse() {
  Response r;
  r.status = 504;
  r.body = R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)"
           R"("message":"Timeout: request did not complete within the allotted timeout",)"
           R"("reason":"Timeout","details":{},"code":504})";
  return r;
}

}  // namespace svcplane::apiserver::http
