#include "controllers/manager/options.h"

#include <fmt/format.h>

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
  SVC_RETURN_IF_ERROR(
      positive(o.replicaset.concurrent_replicaset_syncs, "--concurrent-replicaset-syncs"));
  SVC_RETURN_IF_ERROR(
      positive(o.deployment.concurrent_deployment_syncs, "--concurrent-deployment-syncs"));
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

}  // namespace svcplane::controllers::manager
