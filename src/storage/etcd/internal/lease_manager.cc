#include "storage/etcd/internal/lease_manager.h"

#include <algorithm>

#include "storage/etcd/internal/etcd_client.h"

namespace svcplane::storage::etcd::internal {

int64_t LeaseManager::GrantSeconds(int64_t ttl_seconds) {
  const auto reuse = std::min(
      static_cast<int64_t>(kReuseFraction * static_cast<double>(ttl_seconds)), kMaxReuseSeconds);
  return ttl_seconds + reuse;
}

Result<int64_t> LeaseManager::LeaseFor(int64_t ttl_seconds) {
  const auto now = std::chrono::steady_clock::now();
  const auto grant = GrantSeconds(ttl_seconds);
  // Held across the grant, as upstream holds leaseMu: concurrent writers wait for one grant
  // instead of each granting their own.
  std::lock_guard<std::mutex> lock(mu_);
  Current& cur = by_ttl_[ttl_seconds];
  const bool outlives = now + std::chrono::seconds(ttl_seconds) < cur.expires;
  const bool not_too_long = now + std::chrono::seconds(grant) > cur.expires;
  // Every call counts against the lease, whether or not its write succeeds (as upstream).
  if (cur.id != 0 && outlives && not_too_long && ++cur.keys <= kMaxKeysPerLease) return cur.id;
  pb::LeaseGrantRequest request;
  request.set_ttl(grant);
  auto response = client_.LeaseGrant(request, client_.WriteDeadline());
  if (!response.ok()) return response.status();
  cur = Current{response->id(), now + std::chrono::seconds(grant), 1};
  return cur.id;
}

}  // namespace svcplane::storage::etcd::internal
