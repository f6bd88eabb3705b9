#include "client/leaderelection/leader_elector.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <condition_variable>
#include <thread>

#include "base/uuid.h"
#include "client/errors.h"

namespace svcplane::client::leaderelection {

namespace {

api::meta::MicroTime MicroNow(const Clock& clock) {
  return api::meta::MicroTime::FromUnixMicros(
      std::chrono::duration_cast<std::chrono::microseconds>(clock.WallNow().time_since_epoch())
          .count());
}

}  // namespace

std::string DefaultIdentity() {
  char host[256] = {};
  if (gethostname(host, sizeof(host) - 1) != 0 || host[0] == '\0') {
    return NewUuid();
  }
  return std::string(host) + "_" + NewUuid();
}

Result<std::unique_ptr<LeaderElector>> LeaderElector::Create(LeaderElectionConfig config) {
  if (config.lease_duration <= config.renew_deadline) {
    return InvalidError("leaseDuration must be greater than renewDeadline");
  }
  if (config.renew_deadline <=
      Duration(static_cast<int64_t>(kJitterFactor * config.retry_period.count()))) {
    return InvalidError("renewDeadline must be greater than retryPeriod*JitterFactor");
  }
  if (config.lease_duration < Duration(1)) {
    return InvalidError("leaseDuration must be greater than zero");
  }
  if (config.renew_deadline < Duration(1)) {
    return InvalidError("renewDeadline must be greater than zero");
  }
  if (config.retry_period < Duration(1)) {
    return InvalidError("retryPeriod must be greater than zero");
  }
  if (!config.callbacks.on_started_leading) {
    return InvalidError("OnStartedLeading callback must not be nil");
  }
  if (!config.callbacks.on_stopped_leading) {
    return InvalidError("OnStoppedLeading callback must not be nil");
  }
  if (config.lock == nullptr) return InvalidError("Lock must not be nil.");
  if (config.lock->Identity().empty()) return InvalidError("Lock identity is empty");
  return std::unique_ptr<LeaderElector>(new LeaderElector(std::move(config)));
}

LeaderElector::LeaderElector(LeaderElectionConfig config)
    : config_(std::move(config)), clock_(config_.clock ? *config_.clock : RealClock::Get()) {
  SetLeaderMetric(false);
}

void LeaderElector::Run(std::stop_token stop) {
  std::jthread leading;
  if (Acquire(stop)) {
    leading = std::jthread([this](std::stop_token leading_stop) {
      config_.callbacks.on_started_leading(leading_stop);
    });
    Renew(stop);
    leading.request_stop();
  }
  config_.callbacks.on_stopped_leading();
  // Joined last: a leader callback that ignores its stop must not delay OnStoppedLeading
  // (which typically exits the process).
  if (leading.joinable()) leading.join();
}

bool LeaderElector::Acquire(std::stop_token stop) {
  spdlog::info("attempting to acquire leader lease {}...", config_.lock->Describe());
  while (!stop.stop_requested()) {
    const bool acquired = TryAcquireOrRenew();
    MaybeReportTransition();
    if (acquired) {
      config_.lock->RecordEvent("became leader");
      SetLeaderMetric(true);
      spdlog::info("successfully acquired lease {}", config_.lock->Describe());
      return true;
    }
    if (!SleepUnlessStopped(Jittered(config_.retry_period), stop)) break;
  }
  return false;
}

void LeaderElector::Renew(std::stop_token stop) {
  while (!stop.stop_requested()) {
    // Retry every RetryPeriod (first at once) until success or RenewDeadline passes.
    const TimePoint deadline = clock_.Now() + config_.renew_deadline;
    bool renewed = false;
    while (!stop.stop_requested()) {
      if (TryAcquireOrRenew()) {
        renewed = true;
        break;
      }
      const Duration left = deadline - clock_.Now();
      if (left <= Duration::zero()) break;
      if (!SleepUnlessStopped(std::min(config_.retry_period, left), stop)) break;
      if (clock_.Now() >= deadline) break;
    }
    MaybeReportTransition();
    if (stop.stop_requested()) break;
    if (!renewed) {
      spdlog::info("failed to renew lease {}: timed out waiting for the condition",
                   config_.lock->Describe());
      SetLeaderMetric(false);
      break;
    }
    if (!SleepUnlessStopped(config_.retry_period, stop)) break;
  }
  config_.lock->RecordEvent("stopped leading");
  SetLeaderMetric(false);
  if (config_.release_on_cancel) Release();
}

bool LeaderElector::Release() {
  if (!IsLeader()) return true;
  LeaderElectionRecord record;
  {
    std::lock_guard<std::mutex> l(mu_);
    record.leader_transitions = observed_record_.leader_transitions;
  }
  record.lease_duration_seconds = 1;
  record.renew_time = record.acquire_time = MicroNow(clock_);
  if (Status st = config_.lock->Update(record); !st.ok()) {
    spdlog::error("failed to release lock {}: {}", config_.lock->Describe(), st.ToString());
    return false;
  }
  SetObservedRecord(record);
  return true;
}

LeaderElectionRecord LeaderElector::DesiredRecord() const {
  LeaderElectionRecord r;
  r.holder_identity = config_.lock->Identity();
  r.lease_duration_seconds = static_cast<int32_t>(
      std::chrono::duration_cast<std::chrono::seconds>(config_.lease_duration).count());
  r.renew_time = r.acquire_time = MicroNow(clock_);
  return r;
}

bool LeaderElector::TryAcquireOrRenew() {
  LeaderElectionRecord desired = DesiredRecord();
  ResourceLock& lock = *config_.lock;

  // 1. Fast path: the leader updates optimistically, assuming its last observation is current.
  bool fast_path = false;
  {
    std::lock_guard<std::mutex> l(mu_);
    if (observed_record_.holder_identity == lock.Identity() && IsLeaseValidLocked(clock_.Now())) {
      desired.acquire_time = observed_record_.acquire_time;
      desired.leader_transitions = observed_record_.leader_transitions;
      fast_path = true;
    }
  }
  if (fast_path) {
    Status st = lock.Update(desired);
    if (st.ok()) {
      SetObservedRecord(desired);
      return true;
    }
    spdlog::error("failed to update lock optimistically: {}, falling back to slow path",
                  st.ToString());
  }

  // 2. Read the record, or create it.
  auto got = lock.Get();
  if (!got.ok()) {
    if (!IsNotFound(got.status())) {
      spdlog::error("error retrieving resource lock {}: {}", lock.Describe(),
                    got.status().ToString());
      return false;
    }
    desired = DesiredRecord();
    if (Status st = lock.Create(desired); !st.ok()) {
      spdlog::error("error initially creating leader election record: {}", st.ToString());
      return false;
    }
    SetObservedRecord(desired);
    return true;
  }
  const auto& [old_record, old_raw] = *got;

  // 3. Check the holder and the expiry (on our own clock, from when we saw the record change).
  {
    std::unique_lock<std::mutex> l(mu_);
    if (observed_raw_record_ != old_raw) {
      observed_record_ = old_record;
      observed_raw_record_ = old_raw;
      observed_time_ = clock_.Now();
    }
    const bool is_leader = observed_record_.holder_identity == lock.Identity();
    if (!old_record.holder_identity.empty() && IsLeaseValidLocked(clock_.Now()) && !is_leader) {
      spdlog::debug("lock is held by {} and has not yet expired", old_record.holder_identity);
      return false;
    }
    // 4. Keep acquireTime and transitions when renewing; count a transition when taking over.
    if (is_leader) {
      desired.acquire_time = old_record.acquire_time;
      desired.leader_transitions = old_record.leader_transitions;
    } else {
      desired.leader_transitions = old_record.leader_transitions + 1;
    }
  }
  if (Status st = lock.Update(desired); !st.ok()) {
    spdlog::error("failed to update lock {}: {}", lock.Describe(), st.ToString());
    return false;
  }
  SetObservedRecord(desired);
  return true;
}

void LeaderElector::MaybeReportTransition() {
  std::string holder = GetLeader();
  if (holder == reported_leader_) return;
  reported_leader_ = holder;
  spdlog::info("new leader for {}: \"{}\"", config_.lock->Describe(), holder);
  if (config_.callbacks.on_new_leader) config_.callbacks.on_new_leader(holder);
}

void LeaderElector::SetObservedRecord(const LeaderElectionRecord& record) {
  std::lock_guard<std::mutex> l(mu_);
  observed_record_ = record;
  observed_time_ = clock_.Now();
}

bool LeaderElector::IsLeaseValidLocked(TimePoint now) const {
  return observed_time_ + std::chrono::seconds(observed_record_.lease_duration_seconds) > now;
}

bool LeaderElector::IsLeader() const {
  std::lock_guard<std::mutex> l(mu_);
  return observed_record_.holder_identity == config_.lock->Identity();
}

std::string LeaderElector::GetLeader() const {
  std::lock_guard<std::mutex> l(mu_);
  return observed_record_.holder_identity;
}

Status LeaderElector::Check(Duration max_tolerable_expired_lease) const {
  std::lock_guard<std::mutex> l(mu_);
  if (observed_record_.holder_identity != config_.lock->Identity()) return Status::Ok();
  if (clock_.Now() - observed_time_ > config_.lease_duration + max_tolerable_expired_lease) {
    return InternalError("failed election to renew leadership on lease " + config_.name);
  }
  return Status::Ok();
}

void LeaderElector::SetLeaderMetric(bool leader) {
  if (config_.metrics == nullptr) return;
  config_.metrics
      ->GetGauge("leader_election_master_status",
                 "Gauge of if the reporting system is master of the relevant lease, 0 indicates "
                 "backup, 1 indicates master. 'name' is the string used to identify the lease.",
                 {{"name", config_.name}})
      .Set(leader ? 1 : 0);
}

Duration LeaderElector::Jittered(Duration d) {
  double r;
  if (config_.random01) {
    r = config_.random01();
  } else {
    std::lock_guard<std::mutex> l(mu_);
    r = std::uniform_real_distribution<>(0, 1)(rng_);
  }
  return d + Duration(static_cast<int64_t>(kJitterFactor * r * static_cast<double>(d.count())));
}

bool LeaderElector::SleepUnlessStopped(Duration d, std::stop_token stop) const {
  std::mutex mu;
  std::condition_variable cv;
  std::stop_callback wake(stop, [&] {
    std::lock_guard<std::mutex> l(mu);
    cv.notify_all();
  });
  std::unique_lock<std::mutex> l(mu);
  return !clock_.WaitUntil(l, cv, clock_.Now() + d, [&] { return stop.stop_requested(); });
}

}  // namespace svcplane::client::leaderelection
