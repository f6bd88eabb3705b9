#pragma once

// API server identity (KEP-1965, upstream pkg/controlplane/apiserver/options and
// controller/apiserverleasegc; etcd-backend-and-ha.md §4.3): every server keeps a Lease
// kube-system/apiserver-<hash of its hostname> alive, so `kubectl get leases -n kube-system -l
// apiserver.kubernetes.io/identity=kube-apiserver` counts the live servers (svcplane's and
// kube-apiserver's alike), and every server deletes the leases of servers gone for good.

#include <condition_variable>
#include <memory>
#include <mutex>
#include <stop_token>
#include <string>
#include <string_view>
#include <thread>

#include "api/coordination/v1/lease.h"
#include "base/clock.h"
#include "base/result.h"
#include "client/heartbeat/lease_heartbeat.h"
#include "client/typed/interface.h"

namespace svcplane::apiserver::bootstrap {

inline constexpr std::string_view kIdentityLabel = "apiserver.kubernetes.io/identity";
inline constexpr std::string_view kIdentityLabelValue = "kube-apiserver";
inline constexpr std::string_view kHostnameLabel = "kubernetes.io/hostname";
inline constexpr std::string_view kIdentityNamespace = "kube-system";

// "apiserver-" + lowercase unpadded base32 of the first 16 bytes of SHA-256 over the
// length-prefixed (big-endian uint16) hostname and "kube-apiserver": 26 characters after the
// dash, the same for the same host whoever computes it.
std::string IdentityLeaseName(std::string_view hostname);

struct IdentityOptions {
  std::string hostname;  // required
  int32_t lease_duration_seconds = 3600;
  Duration renew_interval = std::chrono::seconds(10);
  Duration gc_interval = std::chrono::hours(1);
  const Clock* clock = nullptr;  // null: RealClock
};

class ApiServerIdentity {
 public:
  ApiServerIdentity(client::ResourceClient<api::coordination::v1::Lease>& leases,
                    IdentityOptions options);
  ~ApiServerIdentity();  // Stop()

  const std::string& lease_name() const { return lease_name_; }
  const std::string& holder_identity() const { return holder_; }

  // Starts the heartbeat and the garbage collector (its first pass after one interval).
  void Start();
  // Stops both. The lease is left to expire, as upstream leaves it on shutdown.
  void Stop();

  // One garbage-collection pass: deletes identity leases whose renewTime + duration has passed
  // (or that lack either), after reading each again to see it is still expired. Returns how
  // many it deleted; NotFound on delete counts as done (another server got there first).
  Result<int> CollectExpired();

 private:
  bool Expired(const api::coordination::v1::Lease& lease) const;
  void GcLoop(std::stop_token stop);

  client::ResourceClient<api::coordination::v1::Lease>& leases_;
  const IdentityOptions options_;
  const Clock& clock_;
  const std::string lease_name_;
  const std::string holder_;
  std::unique_ptr<client::heartbeat::LeaseHeartbeat> heartbeat_;
  std::jthread heartbeat_thread_;
  std::jthread gc_thread_;
};

}  // namespace svcplane::apiserver::bootstrap
