#pragma once

// Private to storage/etcd. The etcd leases that TTL keys (Events, master leases) are attached
// to, handed out as kube-apiserver's storage/etcd3/lease_manager.go does (spec §3.10): a lease
// is granted for ttl + reuse, where reuse = min(0.05 x ttl, 60 s) in whole seconds, and later
// writes with the same ttl share it while it still outlives them by at most `reuse` and holds
// at most 1,000 keys. With Events (ttl 3600) that is one lease a minute instead of one per write;
// with master leases (ttl 15, reuse 0) every refresh gets a fresh lease.

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>

#include "base/result.h"

namespace svcplane::storage::etcd::internal {

class EtcdClient;

class LeaseManager {
 public:
  static constexpr int64_t kMaxReuseSeconds = 60;  // --lease-reuse-duration-seconds
  static constexpr double kReuseFraction = 0.05;
  static constexpr int64_t kMaxKeysPerLease = 1000;

  explicit LeaseManager(EtcdClient& client) : client_(client) {}

  // A lease that keeps a key written now alive for at least `ttl_seconds` (> 0).
  Result<int64_t> LeaseFor(int64_t ttl_seconds);

  // The part of the decision that needs no etcd, for tests: how long a lease granted now for
  // `ttl_seconds` is asked for.
  static int64_t GrantSeconds(int64_t ttl_seconds);

 private:
  struct Current {
    int64_t id = 0;
    std::chrono::steady_clock::time_point expires;
    int64_t keys = 0;
  };

  EtcdClient& client_;
  std::mutex mu_;
  std::map<int64_t, Current> by_ttl_;  // guarded by mu_; one reusable lease per ttl
};

}  // namespace svcplane::storage::etcd::internal
