#pragma once

// Leader election as client-go's tools/leaderelection: candidates race to hold a lock (a
// Lease); the holder renews it every RetryPeriod and gives up leadership if it cannot renew
// within RenewDeadline; the others take over once the lease has not changed for
// LeaseDuration.
//
// Expiry is judged only on this process's monotonic clock: "the record has not changed since I
// observed it at T, and T + leaseDurationSeconds has passed". Timestamps inside the record
// are never compared with the local clock, so clock offset between hosts does not matter
// (clock rate skew is bounded by the LeaseDuration/RenewDeadline ratio).
//
// Leader election does not fence: a deposed leader may still act until its OnStartedLeading
// code observes the stop. Callers that need safety exit on OnStoppedLeading, as
// kube-controller-manager does.

#include <functional>
#include <memory>
#include <mutex>
#include <random>
#include <stop_token>
#include <string>

#include "base/clock.h"
#include "base/metrics.h"
#include "base/result.h"
#include "client/leaderelection/resource_lock.h"

namespace svcplane::client::leaderelection {

// wait.Jitter's factor for the acquire retry, and the RenewDeadline/RetryPeriod minimum ratio.
inline constexpr double kJitterFactor = 1.2;

struct LeaderCallbacks {
  // Runs on its own thread once leadership is acquired; `stop` fires when leadership ends (or
  // Run is stopped). Required.
  std::function<void(std::stop_token stop)> on_started_leading;
  // Runs on Run's thread when Run returns, whether or not leadership was ever acquired (as
  // upstream, also when acquiring was abandoned). Required.
  std::function<void()> on_stopped_leading;
  // Called with each newly observed holder identity (including our own and the first one
  // seen). Runs on the elector's thread and must not block. Optional.
  std::function<void(const std::string& identity)> on_new_leader;
};

struct LeaderElectionConfig {
  std::shared_ptr<ResourceLock> lock;  // required, with a non-empty identity
  // Defaults as kube-controller-manager's --leader-elect-* flags.
  Duration lease_duration = std::chrono::seconds(15);
  Duration renew_deadline = std::chrono::seconds(10);
  Duration retry_period = std::chrono::seconds(2);
  LeaderCallbacks callbacks;
  // On a clean stop, clear the holder (and set leaseDurationSeconds 1) so that a standby takes
  // over at its next retry instead of waiting out the lease.
  bool release_on_cancel = false;
  std::string name;  // the lock's name for metrics and logs

  const Clock* clock = nullptr;        // null: RealClock
  MetricsRegistry* metrics = nullptr;  // optional: leader_election_master_status{name}
  std::function<double()> random01;    // optional jitter source in [0, 1)
};

class LeaderElector {
 public:
  // Validates as client-go's NewLeaderElector (errors name the rule that failed).
  static Result<std::unique_ptr<LeaderElector>> Create(LeaderElectionConfig config);

  // Blocks: acquires (retrying every RetryPeriod with jitter), starts OnStartedLeading, renews
  // until it fails past RenewDeadline or `stop` fires, releases if configured, calls
  // OnStoppedLeading and joins the OnStartedLeading thread. Call at most once.
  void Run(std::stop_token stop);

  // True when the last observed record names us.
  bool IsLeader() const;
  // The last observed holder identity ("" if none yet).
  std::string GetLeader() const;
  // Health check: an error if we are the leader but have not renewed for longer than
  // LeaseDuration + max_tolerable_expired_lease (a stuck renew loop).
  Status Check(Duration max_tolerable_expired_lease) const;

  // One acquire-or-renew attempt (tryAcquireOrRenew), for tests.
  bool TryAcquireOrRenewForTest() { return TryAcquireOrRenew(); }

 private:
  explicit LeaderElector(LeaderElectionConfig config);

  bool Acquire(std::stop_token stop);
  void Renew(std::stop_token stop);
  bool Release();
  bool TryAcquireOrRenew();
  void MaybeReportTransition();
  void SetObservedRecord(const LeaderElectionRecord& record);
  bool IsLeaseValidLocked(TimePoint now) const;
  void SetLeaderMetric(bool leader);
  // Sleeps on the clock; false if `stop` fired first.
  bool SleepUnlessStopped(Duration d, std::stop_token stop) const;
  Duration Jittered(Duration d);
  LeaderElectionRecord DesiredRecord() const;

  // Constant after construction.
  const LeaderElectionConfig config_;
  const Clock& clock_;

  mutable std::mutex mu_;
  // Guarded by mu_.
  LeaderElectionRecord observed_record_;
  std::string observed_raw_record_;
  TimePoint observed_time_{};
  std::mt19937_64 rng_{std::random_device{}()};

  // Elector thread only.
  std::string reported_leader_;
};

// kube-controller-manager's identity: "<hostname>_<random UUID>".
std::string DefaultIdentity();

}  // namespace svcplane::client::leaderelection
