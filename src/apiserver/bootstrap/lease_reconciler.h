#pragma once

// The lease-based endpoint reconciler for the `kubernetes` Service (upstream
// pkg/controlplane/reconcilers/lease.go and endpointsadapter.go): every API server keeps a
// record with a TTL under /registry/masterleases/<ip>; the Endpoints and EndpointSlice
// `default/kubernetes` list the addresses of the live records. Our stores have no TTLs, so a
// record carries its expiry (wall time) and readers drop expired ones.

#include <atomic>
#include <mutex>
#include <string>
#include <vector>

#include "api/core/v1/endpoints.h"
#include "api/discovery/v1/endpoint_slice.h"
#include "apiserver/registry/registry.h"
#include "base/clock.h"
#include "base/result.h"
#include "storage/store.h"

namespace svcplane::apiserver::bootstrap {

inline constexpr std::string_view kMasterLeasesPrefix = "/registry/masterleases/";
inline constexpr std::string_view kKubernetesName = "kubernetes";
inline constexpr std::chrono::seconds kMasterLeaseTtl{15};

// The port the endpoints advertise: {name https, port <secure port>, protocol TCP}.
struct EndpointPortSpec {
  std::string name = "https";
  int32_t port = 6443;
  std::string protocol = "TCP";
};

// EndpointsAdapter.Sync: writes Endpoints and EndpointSlice `kubernetes` in `default` listing
// `ips` (sorted; the family of the first one; others dropped). Ports are (re)set when the
// object has none or `reconcile_ports`. Retries on Conflict/AlreadyExists.
Status SyncKubernetesEndpoints(registry::Registry<api::core::v1::Endpoints>& endpoints,
                               registry::Registry<api::discovery::v1::EndpointSlice>& slices,
                               std::vector<std::string> ips, const EndpointPortSpec& port,
                               bool reconcile_ports);

// Safe from any thread; calls are serialised.
class LeaseEndpointReconciler {
 public:
  LeaseEndpointReconciler(storage::Store* store,
                          registry::Registry<api::core::v1::Endpoints>* endpoints,
                          registry::Registry<api::discovery::v1::EndpointSlice>* slices,
                          const Clock& clock, Duration ttl = kMasterLeaseTtl);

  // Refreshes this server's lease, then writes the endpoints of every live lease. Refuses
  // (error, nothing written) if no lease is listed; a no-op once StopReconciling was called.
  Status ReconcileEndpoints(const std::string& ip, const EndpointPortSpec& port,
                            bool reconcile_ports);
  // Deletes this server's lease and rewrites the endpoints without it (an empty list is
  // allowed while stopping). NotFound when there was no lease (a clean previous exit).
  Status RemoveEndpoints(const std::string& ip, const EndpointPortSpec& port);
  void StopReconciling() { stopping_ = true; }

  // Addresses of the unexpired leases, sorted; expired records are deleted on the way.
  Result<std::vector<std::string>> ListLeases();
  // Writes (creates or renews) the lease of `ip` with expiry now + ttl.
  Status UpdateLease(const std::string& ip);

 private:
  Status Reconcile(const EndpointPortSpec& port, bool reconcile_ports);

  storage::Store* const store_;
  registry::Registry<api::core::v1::Endpoints>* const endpoints_;
  registry::Registry<api::discovery::v1::EndpointSlice>* const slices_;
  const Clock& clock_;
  const Duration ttl_;
  std::mutex mu_;
  std::atomic<bool> stopping_{false};
};

}  // namespace svcplane::apiserver::bootstrap
