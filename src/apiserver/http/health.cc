#include "apiserver/http/health.h"

#include <fmt/format.h>

namespace svcplane::apiserver::http {

Response HealthResponse(std::string_view endpoint, const std::vector<HealthCheck>& checks,
                        bool verbose) {
  bool all_ok = true;
  std::string lines;
  for (const auto& c : checks) {
    all_ok = all_ok && c.ok;
    lines += c.ok ? fmt::format("[+]{} ok\n", c.name)
                  : fmt::format("[-]{} failed: reason withheld\n", c.name);
  }
  Response r;
  r.content_type = "text/plain; charset=utf-8";
  r.headers.emplace_back("X-Content-Type-Options", "nosniff");
  if (all_ok) {
    r.status = 200;
    r.body = verbose ? fmt::format("{}{} check passed\n", lines, endpoint) : "ok";
  } else {
    r.status = 500;
    r.body = fmt::format("{}{} check failed\n", lines, endpoint);
  }
  return r;
}

Response SingleCheckResponse(const HealthCheck& check) {
  Response r;
  r.content_type = "text/plain; charset=utf-8";
  r.headers.emplace_back("X-Content-Type-Options", "nosniff");
  r.status = check.ok ? 200 : 500;
  r.body = check.ok ? "ok"
                    : fmt::format("internal server error: {}\n",
                                  check.reason.empty() ? "reason withheld" : check.reason);
  return r;
}

}  // namespace svcplane::apiserver::http
