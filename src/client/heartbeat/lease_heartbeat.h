#pragma once

// The lease heartbeat controller, as component-helpers/apimachinery/lease/controller.go: keeps
// one Lease alive for a component (a kubelet's node lease, an API server's identity lease).
// Every renew interval (jittered by 4%, measured from the end of the previous tick) it updates
// spec.renewTime, creating the lease first if missing; conflicts are resolved by re-reading,
// other errors by backing off (200 ms doubling to 7 s) and retrying.

#include <cstdint>
#include <functional>
#include <mutex>
#include <random>
#include <stop_token>
#include <string>

#include "api/coordination/v1/lease.h"
#include "api/core/v1/node.h"
#include "base/clock.h"
#include "client/typed/interface.h"

namespace svcplane::client::heartbeat {

// Customizes a lease before every create and update (e.g. sets an owner reference). An error
// skips the create for this tick; on update it is ignored, as upstream does.
using ProcessLeaseFunc = std::function<Status(api::coordination::v1::Lease& lease)>;

// Immediate update attempts per tick (maxUpdateRetries).
inline constexpr int kMaxUpdateRetries = 5;
// Cap of the ensure-lease backoff (maxBackoff).
inline constexpr Duration kMaxBackoff = std::chrono::seconds(7);
// Jitter of the renew interval (wait.JitterUntil factor).
inline constexpr double kRenewJitterFactor = 0.04;

struct HeartbeatOptions {
  std::string holder_identity;  // required; spec.holderIdentity
  std::string lease_name;       // defaults to holder_identity (as kubelet: the node name)
  std::string namespace_ = "kube-node-lease";
  int32_t lease_duration_seconds = 40;
  Duration renew_interval = std::chrono::seconds(10);
  // Called when an update fails again within one tick (not for conflicts), e.g. to drop idle
  // connections as the kubelet does. Optional.
  std::function<void()> on_repeated_heartbeat_failure;
  ProcessLeaseFunc new_lease_post_process;  // optional
  const Clock* clock = nullptr;             // null: RealClock
  std::function<double()> random01;         // optional jitter source in [0, 1)
};

class LeaseHeartbeat {
 public:
  LeaseHeartbeat(ResourceClient<api::coordination::v1::Lease>& client, HeartbeatOptions options);

  // Blocks, ticking until `stop` fires (the first tick at once).
  void Run(std::stop_token stop);
  // One tick (controller.sync). Returns early if `stop` fires while backing off.
  void Sync(std::stop_token stop = {});

  // The lease last created or updated by this controller (null before).
  ObjectPtr<api::coordination::v1::Lease> latest_lease() const;

 private:
  // Returns the lease (null when the post-process hook blocked its creation, or on stop) and
  // whether this call created it.
  std::pair<ObjectPtr<api::coordination::v1::Lease>, bool> BackoffEnsureLease(std::stop_token stop);
  Result<std::pair<ObjectPtr<api::coordination::v1::Lease>, bool>> EnsureLease();
  Status RetryUpdateLease(ObjectPtr<api::coordination::v1::Lease> base, std::stop_token stop);
  // A new lease when `base` is null, else a copy of it; renewTime = now; post-processed.
  std::pair<api::coordination::v1::Lease, Status> NewLease(
      const api::coordination::v1::Lease* base) const;
  bool SleepUnlessStopped(Duration d, std::stop_token stop) const;

  // Constant after construction.
  ResourceClient<api::coordination::v1::Lease>& client_;
  const HeartbeatOptions options_;
  const std::string lease_name_;
  const Clock& clock_;

  mutable std::mutex mu_;
  // Guarded by mu_.
  ObjectPtr<api::coordination::v1::Lease> latest_lease_;
  std::mt19937_64 rng_{std::random_device{}()};
};

// The kubelet's post-process hook: until the lease has an owner, reads the Node and sets
// ownerReferences = [{v1, Node, name, uid}]; fails (blocking the create) while the Node cannot
// be read.
ProcessLeaseFunc SetNodeOwner(ResourceClient<api::core::v1::Node>& nodes, std::string node_name);

}  // namespace svcplane::client::heartbeat
