#pragma once

// ClusterIP and NodePort allocation around Service writes, as kube-apiserver's Service REST
// does it (pkg/registry/core/service/storage/alloc.go): ipFamilies/ipFamilyPolicy defaulting,
// cluster IPs per family, node ports and the health-check node port, all-or-nothing.
//
// The registry calls Begin after PrepareForCreate/PrepareForUpdate and before validation, and
// calls the returned Finish exactly once with whether the object was stored: true runs the
// deferred releases (ports and IPs the update dropped), false gives back what Begin took.
// After a Service is deleted, ReleaseAll frees everything it held.

#include <functional>
#include <memory>
#include <string_view>
#include <vector>

#include "api/core/v1/service.h"
#include "apiserver/allocator/allocators.h"
#include "base/result.h"
#include "storage/store.h"

namespace svcplane::apiserver::allocator {

struct ServiceAllocatorOptions {
  // One CIDR, or two of different families (dual stack); the first is the primary.
  std::vector<CidrRange> cidrs;
  PortRange node_ports;
};

using FinishFn = std::function<void(bool stored)>;

// Safe from any thread.
class ServiceAllocator {
 public:
  ServiceAllocator(storage::Store* store, ServiceAllocatorOptions options);

  // Fills clusterIP(s), ipFamilies, ipFamilyPolicy, nodePorts and healthCheckNodePort of `svc`
  // (`old` is the stored object on update, nullptr on create). Errors are the statuses
  // upstream returns: 422 Invalid with upstream's field texts, or 500 for a full range.
  Result<FinishFn> Begin(api::core::v1::Service& svc, const api::core::v1::Service* old,
                         bool dry_run);
  // Frees every IP and port `svc` holds (after its deletion).
  void ReleaseAll(const api::core::v1::Service& svc);

  IpAllocator& primary() { return *ips_[0]; }
  // nullptr if the family is not configured.
  IpAllocator* ForFamily(std::string_view family);
  const std::vector<std::unique_ptr<IpAllocator>>& ip_allocators() const { return ips_; }
  PortAllocator& node_ports() { return *ports_; }

 private:
  struct Txn;

  Status InitIpFamilyFields(api::core::v1::Service& svc, const api::core::v1::Service* old);
  Status AllocClusterIps(api::core::v1::Service& svc, bool dry_run, Txn& txn);
  // Allocates cluster IPs for the given positions of spec.ipFamilies ("" entries: dynamic).
  Status AllocIps(api::core::v1::Service& svc, const std::vector<size_t>& indexes, bool dry_run,
                  Txn& txn);
  Status UpdateClusterIps(api::core::v1::Service& svc, const api::core::v1::Service& old,
                          bool dry_run, Txn& txn);
  Status InitNodePorts(api::core::v1::Service& svc, bool dry_run, Txn& txn);
  Status UpdateNodePorts(api::core::v1::Service& svc, const api::core::v1::Service& old,
                         bool dry_run, Txn& txn);
  Status AllocHealthCheckNodePort(api::core::v1::Service& svc, bool dry_run, Txn& txn);
  Status AllocPort(api::core::v1::Service& svc, size_t index, int port, bool dry_run, Txn& txn);
  Result<int> AllocNextPort(bool dry_run, Txn& txn);
  void ReleaseIpLater(std::string ip, Txn& txn);
  void ReleasePortLater(int port, Txn& txn);

  std::vector<std::unique_ptr<IpAllocator>> ips_;
  std::unique_ptr<PortAllocator> ports_;
};

// Node ports a Service holds (each non-zero ports[].nodePort, de-duplicated, plus
// healthCheckNodePort): what delete releases.
std::vector<int> CollectNodePorts(const api::core::v1::Service& svc, bool with_health_check);

}  // namespace svcplane::apiserver::allocator
