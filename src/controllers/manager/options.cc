#include "controllers/manager/options.h"

#include <fmt/format.h>

#include <cmath>

namespace svcplane::controllers::manager {

Status Validate(const ControllerManagerOptions& o) {
  const auto& le = o.leader_election;
  if (le.leader_elect) {
    if (le.resource_lock != "leases") {
      return InvalidError("--leader-elect-resource-lock: only \"leases\" is supported, got \"" +
                          le.resource_lock + "\"");
    }
    if (le.lease_duration <= le.renew_deadline) {
      return InvalidError(
          "--leader-elect-lease-duration must be greater than --leader-elect-renew-deadline");
    }
    if (le.renew_deadline <= Duration(static_cast<int64_t>(1.2 * le.retry_period.count()))) {
      return InvalidError(
          "--leader-elect-renew-deadline must be greater than 1.2 x "
          "--leader-elect-retry-period");
    }
    if (le.retry_period <= Duration::zero()) {
      return InvalidError("--leader-elect-retry-period must be greater than zero");
    }
    if (le.resource_name.empty() || le.resource_namespace.empty()) {
      return InvalidError("--leader-elect-resource-name and -namespace must not be empty");
    }
  }
  if (o.kube_api_burst < 0) return InvalidError("--kube-api-burst must not be negative");
  if (o.port < 0 || o.port > 65535) {
    return InvalidError("--port must be between 0 and 65535");
  }
  if (o.secure_port < 0 || o.secure_port > 65535) {
    return InvalidError("--secure-port must be between 0 and 65535");
  }
  if (o.tls_cert_file.empty() != o.tls_private_key_file.empty()) {
    return InvalidError("--tls-cert-file and --tls-private-key-file must be given together");
  }
  auto positive = [](int v, const char* flag) -> Status {
    if (v < 1) return InvalidError(fmt::format("{} must be at least 1, got {}", flag, v));
    return Status::Ok();
  };
  SVC_RETURN_IF_ERROR(
      positive(o.endpoint.concurrent_endpoint_syncs, "--concurrent-endpoint-syncs"));
  SVC_RETURN_IF_ERROR(positive(o.endpointslice.concurrent_service_endpoint_syncs,
                               "--concurrent-service-endpoint-syncs"));
  SVC_RETURN_IF_ERROR(positive(o.mirroring.mirroring_concurrent_service_endpoint_syncs,
                               "--mirroring-concurrent-service-endpoint-syncs"));
  // Upstream's validation: 1..1000 endpoints per slice / per subset.
  if (o.endpointslice.max_endpoints_per_slice < 1 ||
      o.endpointslice.max_endpoints_per_slice > 1000) {
    return InvalidError("--max-endpoints-per-slice must be between 1 and 1000");
  }
  if (o.mirroring.mirroring_max_endpoints_per_subset < 1 ||
      o.mirroring.mirroring_max_endpoints_per_subset > 1000) {
    return InvalidError("--mirroring-max-endpoints-per-subset must be between 1 and 1000");
  }
  return Status::Ok();
}

Result<Duration> ParseGoDuration(std::string_view text) {
  const std::string original(text);
  auto bad = [&] { return InvalidError("time: invalid duration \"" + original + "\""); };
  bool negative = false;
  if (!text.empty() && (text[0] == '-' || text[0] == '+')) {
    negative = text[0] == '-';
    text.remove_prefix(1);
  }
  if (text == "0") return Duration::zero();
  if (text.empty()) return bad();
  long double total_ns = 0;
  while (!text.empty()) {
    size_t i = 0;
    while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.'))
      ++i;
    if (i == 0) return bad();
    long double value;
    try {
      value = std::stold(std::string(text.substr(0, i)));
    } catch (const std::exception&) {
      return bad();
    }
    text.remove_prefix(i);
    size_t u = 0;
    while (u < text.size() && !std::isdigit(static_cast<unsigned char>(text[u])) && text[u] != '.')
      ++u;
    std::string_view unit = text.substr(0, u);
    text.remove_prefix(u);
    long double scale;
    if (unit == "ns") {
      scale = 1;
    } else if (unit == "us" || unit == "\xC2\xB5s" || unit == "\xCE\xBCs") {
      scale = 1e3;
    } else if (unit == "ms") {
      scale = 1e6;
    } else if (unit == "s") {
      scale = 1e9;
    } else if (unit == "m") {
      scale = 60e9;
    } else if (unit == "h") {
      scale = 3600e9;
    } else {
      return unit.empty() ? InvalidError("time: missing unit in duration \"" + original + "\"")
                          : InvalidError("time: unknown unit \"" + std::string(unit) +
                                         "\" in duration \"" + original + "\"");
    }
    total_ns += value * scale;
  }
  if (total_ns > 9.2e18L) return bad();
  auto ns = static_cast<int64_t>(std::llround(total_ns));
  return Duration(negative ? -ns : ns);
}

std::string FormatGoDuration(Duration d) {
  using namespace std::chrono;
  if (d == Duration::zero()) return "0s";
  if (d < seconds(1)) {
    if (d % milliseconds(1) == Duration::zero()) {
      return std::to_string(duration_cast<milliseconds>(d).count()) + "ms";
    }
    return std::to_string(d.count()) + "ns";
  }
  std::string out;
  auto h = duration_cast<hours>(d);
  d -= h;
  auto m = duration_cast<minutes>(d);
  d -= m;
  if (h.count() > 0) out += std::to_string(h.count()) + "h";
  if (h.count() > 0 || m.count() > 0) out += std::to_string(m.count()) + "m";
  double s = static_cast<double>(d.count()) / 1e9;
  out += fmt::format("{}s", s);
  return out;
}

}  // namespace svcplane::controllers::manager
