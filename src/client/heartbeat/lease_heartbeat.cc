#include "client/heartbeat/lease_heartbeat.h"

#include <spdlog/spdlog.h>

#include <condition_variable>

#include "client/errors.h"

namespace svcplane::client::heartbeat {

using api::coordination::v1::Lease;

LeaseHeartbeat::LeaseHeartbeat(ResourceClient<Lease>& client, HeartbeatOptions options)
    : client_(client),
      options_(std::move(options)),
      lease_name_(options_.lease_name.empty() ? options_.holder_identity : options_.lease_name),
      clock_(options_.clock ? *options_.clock : RealClock::Get()) {}

void LeaseHeartbeat::Run(std::stop_token stop) {
  while (!stop.stop_requested()) {
    Sync(stop);
    double r;
    if (options_.random01) {
      r = options_.random01();
    } else {
      std::lock_guard<std::mutex> l(mu_);
      r = std::uniform_real_distribution<>(0, 1)(rng_);
    }
    const Duration wait =
        options_.renew_interval +
        Duration(static_cast<int64_t>(kRenewJitterFactor * r *
                                      static_cast<double>(options_.renew_interval.count())));
    if (!SleepUnlessStopped(wait, stop)) return;
  }
}

void LeaseHeartbeat::Sync(std::stop_token stop) {
  if (ObjectPtr<Lease> latest = latest_lease()) {
    // Optimistically assume nobody else changed the lease since our last write: saves a GET.
    Status st = RetryUpdateLease(latest, stop);
    if (st.ok()) return;
    spdlog::info("failed to update lease using latest lease, fallback to ensure lease, err: {}",
                 st.ToString());
  }
  auto [lease, created] = BackoffEnsureLease(stop);
  {
    std::lock_guard<std::mutex> l(mu_);
    latest_lease_ = lease;
  }
  // A lease we just created needs no update.
  if (!created && lease != nullptr) {
    if (Status st = RetryUpdateLease(lease, stop); !st.ok()) {
      spdlog::error(
          "{}, will retry after {} ms", st.message(),
          std::chrono::duration_cast<std::chrono::milliseconds>(options_.renew_interval).count());
    }
  }
}

ObjectPtr<Lease> LeaseHeartbeat::latest_lease() const {
  std::lock_guard<std::mutex> l(mu_);
  return latest_lease_;
}

std::pair<ObjectPtr<Lease>, bool> LeaseHeartbeat::BackoffEnsureLease(std::stop_token stop) {
  Duration sleep = std::chrono::milliseconds(100);
  while (true) {
    auto ensured = EnsureLease();
    if (ensured.ok()) return *ensured;
    sleep = std::min<Duration>(2 * sleep, kMaxBackoff);
    spdlog::error("failed to ensure lease exists, will retry in {} ms, error: {}",
                  std::chrono::duration_cast<std::chrono::milliseconds>(sleep).count(),
                  ensured.status().ToString());
    if (!SleepUnlessStopped(sleep, stop)) return {nullptr, false};
  }
}

Result<std::pair<ObjectPtr<Lease>, bool>> LeaseHeartbeat::EnsureLease() {
  auto got = client_.Get(options_.namespace_, lease_name_);
  if (got.ok()) return std::make_pair(*got, false);
  if (!IsNotFound(got.status())) return got.status();
  auto [lease, hook] = NewLease(nullptr);
  // The hook could not complete the lease (e.g. its owner is not readable yet): create nothing
  // this time; the next tick retries.
  if (!hook.ok()) return std::make_pair(ObjectPtr<Lease>(), false);
  auto created = client_.Create(lease);
  if (!created.ok()) return created.status();
  return std::make_pair(*created, true);
}

Status LeaseHeartbeat::RetryUpdateLease(ObjectPtr<Lease> base, std::stop_token stop) {
  for (int i = 0; i < kMaxUpdateRetries; ++i) {
    auto [desired, hook] = NewLease(base.get());
    hook.IgnoreError();  // an update goes ahead without what the hook would have added
    auto updated = client_.Update(desired);
    if (updated.ok()) {
      std::lock_guard<std::mutex> l(mu_);
      latest_lease_ = *updated;
      return Status::Ok();
    }
    spdlog::error("failed to update lease, error: {}", updated.status().ToString());
    // A newer version exists: continue from it.
    if (IsConflict(updated.status())) {
      base = BackoffEnsureLease(stop).first;
      if (base == nullptr) break;
      continue;
    }
    if (i > 0 && options_.on_repeated_heartbeat_failure) options_.on_repeated_heartbeat_failure();
  }
  return InternalError("failed " + std::to_string(kMaxUpdateRetries) + " attempts to update lease");
}

std::pair<Lease, Status> LeaseHeartbeat::NewLease(const Lease* base) const {
  Lease lease;
  if (base == nullptr) {
    lease.metadata.name = lease_name_;
    lease.metadata.namespace_ = options_.namespace_;
    lease.spec.holder_identity = options_.holder_identity;
    lease.spec.lease_duration_seconds = options_.lease_duration_seconds;
  } else {
    lease = *base;
  }
  lease.spec.renew_time = api::meta::MicroTime::FromUnixMicros(
      std::chrono::duration_cast<std::chrono::microseconds>(clock_.WallNow().time_since_epoch())
          .count());
  Status hook;
  if (options_.new_lease_post_process) hook = options_.new_lease_post_process(lease);
  return {std::move(lease), std::move(hook)};
}

bool LeaseHeartbeat::SleepUnlessStopped(Duration d, std::stop_token stop) const {
  std::mutex mu;
  std::condition_variable cv;
  std::stop_callback wake(stop, [&] {
    std::lock_guard<std::mutex> l(mu);
    cv.notify_all();
  });
  std::unique_lock<std::mutex> l(mu);
  return !clock_.WaitUntil(l, cv, clock_.Now() + d, [&] { return stop.stop_requested(); });
}

ProcessLeaseFunc SetNodeOwner(ResourceClient<api::core::v1::Node>& nodes, std::string node_name) {
  return [&nodes, node_name = std::move(node_name)](Lease& lease) -> Status {
    // The Node's UID is needed, and the Node may not be readable when the lease is first
    // created: try again on every renewal until it is set.
    if (!lease.metadata.owner_references.empty()) return Status::Ok();
    auto node = nodes.Get("", node_name);
    if (!node.ok()) {
      spdlog::error("failed to get node {} when trying to set owner ref to the node lease: {}",
                    node_name, node.status().ToString());
      return node.status();
    }
    api::meta::OwnerReference ref;
    ref.api_version = "v1";
    ref.kind = "Node";
    ref.name = node_name;
    ref.uid = (*node)->metadata.uid;
    lease.metadata.owner_references = {std::move(ref)};
    return Status::Ok();
  };
}

}  // namespace svcplane::client::heartbeat
