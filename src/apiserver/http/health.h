#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "apiserver/http/handler.h"

namespace svcplane::apiserver::http {

struct HealthCheck {
  std::string name;  // "ping", "shutdown", "poststarthook/svcplane-ready"
  bool ok = true;
  // Why it failed, shown only when the check is asked for alone (/readyz/<name>); the list
  // form withholds reasons, as upstream does.
  std::string reason;
};

// The /livez, /readyz, /healthz answer as the Kubernetes API server words it: 200 "ok" when all
// checks pass; 500 with "[+]name ok" / "[-]name failed: reason withheld" lines and
// "<endpoint> check failed" otherwise; with `verbose`, the lines plus "<endpoint> check passed".
// `endpoint` is "livez", "readyz" or "healthz". Clients must rely on the status code only.
Response HealthResponse(std::string_view endpoint, const std::vector<HealthCheck>& checks,
                        bool verbose);

// /livez/<name>, /readyz/<name>: upstream's single-check handler: 200 "ok", or 500
// "internal server error: <reason>".
Response SingleCheckResponse(const HealthCheck& check);

}  // namespace svcplane::apiserver::http
