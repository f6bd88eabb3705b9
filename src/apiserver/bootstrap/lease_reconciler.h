#pragma once

// The lease-based endpoint reconciler for the `kubernetes` Service (upstream
// pkg/controlplane/reconcilers/lease.go and endpointsadapter.go): every API server keeps a
// record with a TTL under /registry/masterleases/<ip>; the Endpoints and EndpointSlice
// `default/kubernetes` list the addresses of the live records. A record is upstream's v1
// Endpoints, so kube-apiserver and svcplane sharing one etcd list each other. The embedded
// store has no TTLs, so a record also carries its expiry (wall time, an annotation) and readers
// drop expired ones; on etcd it is written with a 15 s etcd lease as upstream's.

#include <atomic>
#include <mutex>
#include <optional>
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
inline constexpr std::string_view kMasterLeaseExpiryAnnotation = "svcplane.io/expires-at-micros";

// The expiry (Unix micros) svcplane wrote into a master lease record; nullopt for a record
// without one (a kube-apiserver's) or not JSON.
std::optional<int64_t> MasterLeaseExpiry(std::string_view record);

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
                          const Clock& clock, Duration ttl = kMasterLeaseTtl,
                          bool store_expires_records = false);

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
  // The store deletes a record when its own TTL runs out (etcd), so records without our expiry
  // annotation (a kube-apiserver's) are live; elsewhere they are leftovers and are removed.
  const bool store_expires_records_;
  std::mutex mu_;
  std::atomic<bool> stopping_{false};
};

}  // namespace svcplane::apiserver::bootstrap
