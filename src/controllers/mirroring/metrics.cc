#include "controllers/mirroring/metrics.h"

namespace svcplane::controllers::mirroring {
namespace {

std::string Name(const char* suffix) {
  return std::string("endpoint_slice_mirroring_controller_") + suffix;
}

}  // namespace

MirroringMetrics::MirroringMetrics(MetricsRegistry* registry) : registry_(registry) {
  if (registry_ == nullptr) return;
  auto histogram = [&](const char* name, const char* help, std::vector<double> buckets) {
    return &registry_->GetHistogram(Name(name), help, {}, std::move(buckets));
  };
  added_ = histogram("endpoints_added_per_sync", "Number of endpoints added on each Endpoints sync",
                     ExponentialBuckets(2, 2, 15));
  updated_ =
      histogram("endpoints_updated_per_sync", "Number of endpoints updated on each Endpoints sync",
                ExponentialBuckets(2, 2, 15));
  removed_ =
      histogram("endpoints_removed_per_sync", "Number of endpoints removed on each Endpoints sync",
                ExponentialBuckets(2, 2, 15));
  skipped_ = histogram("addresses_skipped_per_sync",
                       "Number of addresses skipped on each Endpoints sync due to being invalid or "
                       "exceeding MaxEndpointsPerSubset",
                       ExponentialBuckets(2, 2, 15));
  sync_duration_ = histogram("endpoints_sync_duration", "Duration of syncEndpoints() in seconds",
                             ExponentialBuckets(0.001, 2, 15));
  endpoints_desired_ =
      &registry_->GetGauge(Name("endpoints_desired"), "Number of endpoints desired", {});
  num_slices_ = &registry_->GetGauge(Name("num_endpoint_slices"), "Number of EndpointSlices", {});
  desired_slices_ = &registry_->GetGauge(
      Name("desired_endpoint_slices"),
      "Number of EndpointSlices that would exist with perfect endpoint allocation", {});
}

void MirroringMetrics::ObserveReconcile(const std::string& key, const MirrorMetrics& m, int creates,
                                        int updates, int deletes) {
  if (registry_ == nullptr) return;
  added_->Observe(m.endpoints_added);
  updated_->Observe(m.endpoints_updated);
  removed_->Observe(m.endpoints_removed);
  skipped_->Observe(m.addresses_skipped);
  const struct {
    const char* op;
    int n;
  } changes[] = {{"create", creates}, {"update", updates}, {"delete", deletes}};
  for (const auto& c : changes) {
    if (c.n == 0) continue;
    registry_->GetCounter(Name("changes"), "Number of EndpointSlice changes", {{"operation", c.op}})
        .Inc(c.n);
  }
  std::lock_guard<std::mutex> l(mu_);
  by_key_[key] = {m.endpoints_desired, m.slices_actual, m.slices_desired};
  Publish();
}

void MirroringMetrics::ObserveSyncDuration(double seconds) {
  if (registry_ != nullptr) sync_duration_->Observe(seconds);
}

void MirroringMetrics::Forget(const std::string& key) {
  if (registry_ == nullptr) return;
  std::lock_guard<std::mutex> l(mu_);
  by_key_.erase(key);
  Publish();
}

void MirroringMetrics::Publish() {
  double endpoints = 0, slices = 0, desired = 0;
  for (const auto& [key, c] : by_key_) {
    endpoints += c.endpoints;
    slices += c.slices;
    desired += c.desired_slices;
  }
  endpoints_desired_->Set(endpoints);
  num_slices_->Set(slices);
  desired_slices_->Set(desired);
}

}  // namespace svcplane::controllers::mirroring
