#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "apiserver/http/handler.h"

namespace svcplane::apiserver::http {

struct HealthCheck {
  std::string name;  // "ping", "shutdown", "poststarthook/svcplane-ready"
  bool ok = true;
};

// The /livez, /readyz, /healthz answer as the Kubernetes API server words it: 200 "ok" when all
// checks pass; 500 with "[+]name ok" / "[-]name failed: reason withheld" lines and
// "<endpoint> check failed" otherwise; with `verbose`, the lines plus "<endpoint> check passed".
// `endpoint` is "livez", "readyz" or "healthz". Clients must rely on the status code only.
Response HealthResponse(std::string_view endpoint, const std::vector<HealthCheck>& checks,
                        bool verbose);

}  // namespace svcplane::apiserver::http
