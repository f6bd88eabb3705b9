#include "controllers/endpointslice/trigger_time_tracker.h"

namespace svcplane::controllers::endpointslice {
namespace {

constexpr int64_t kNanosPerSecond = 1000000000;

int64_t ToNanos(const api::meta::Time& t) {
  return t.IsZero() ? 0 : t.unix_seconds * kNanosPerSecond;
}

}  // namespace

int64_t PodTriggerTime(const api::core::v1::Pod& pod) {
  for (const auto& c : pod.status.conditions) {
    if (c.type == "Ready") return ToNanos(c.last_transition_time);
  }
  return 0;
}

std::optional<int64_t> TriggerTimeTracker::Compute(
    const std::string& key, const api::core::v1::Service& service,
    const std::vector<std::shared_ptr<const api::core::v1::Pod>>& pods) {
  State next;
  next.service_time = ToNanos(service.metadata.creation_timestamp);
  next.pod_times.reserve(pods.size());
  for (const auto& pod : pods) next.pod_times[pod->metadata.name] = PodTriggerTime(*pod);

  std::lock_guard<std::mutex> l(mu_);
  auto it = states_.find(key);
  if (it == states_.end()) {
    // First sync since start (or since the Service was deleted): the Service's creation is the
    // change being published.
    states_.emplace(key, std::move(next));
    if (service.metadata.creation_timestamp.IsZero()) return std::nullopt;
    return ToNanos(service.metadata.creation_timestamp);
  }
  std::optional<int64_t> min;
  auto consider = [&](int64_t t) {
    if (!min || t < *min) min = t;
  };
  for (const auto& [name, t] : next.pod_times) {
    if (t == 0) continue;
    auto old = it->second.pod_times.find(name);
    int64_t before = old == it->second.pod_times.end() ? 0 : old->second;
    if (t > before) consider(t);
  }
  if (next.service_time > it->second.service_time) consider(next.service_time);
  it->second = std::move(next);
  return min;
}

void TriggerTimeTracker::Delete(const std::string& key) {
  std::lock_guard<std::mutex> l(mu_);
  states_.erase(key);
}

}  // namespace svcplane::controllers::endpointslice
