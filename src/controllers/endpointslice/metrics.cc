#include "controllers/endpointslice/metrics.h"

namespace svcplane::controllers::endpointslice {
namespace {

constexpr char kPrefix[] = "endpoint_slice_controller_";

std::string Name(std::string_view suffix) { return std::string(kPrefix) + std::string(suffix); }

}  // namespace

SliceControllerMetrics::SliceControllerMetrics(MetricsRegistry* registry) : registry_(registry) {
  if (registry_ == nullptr) return;
  added_ = &registry_->GetHistogram(Name("endpoints_added_per_sync"),
                                    "Number of endpoints added on each Service sync", {},
                                    ExponentialBuckets(2, 2, 15));
  removed_ = &registry_->GetHistogram(Name("endpoints_removed_per_sync"),
                                      "Number of endpoints removed on each Service sync", {},
                                      ExponentialBuckets(2, 2, 15));
  endpoints_desired_ =
      &registry_->GetGauge(Name("endpoints_desired"), "Number of endpoints desired", {});
  num_slices_ = &registry_->GetGauge(Name("num_endpoint_slices"), "Number of EndpointSlices", {});
  desired_slices_ = &registry_->GetGauge(Name("desired_endpoint_slices"),
                                         "Number of EndpointSlices that would exist with perfect "
                                         "endpoint allocation",
                                         {});
}

void SliceControllerMetrics::ObserveReconcile(const std::string& service_key, const SyncMetrics& m,
                                              int creates, int updates, int deletes) {
  if (registry_ == nullptr) return;
  added_->Observe(m.endpoints_added);
  removed_->Observe(m.endpoints_removed);
  const struct {
    const char* op;
    int n;
  } changes[] = {{"create", creates}, {"update", updates}, {"delete", deletes}};
  for (const auto& c : changes) {
    if (c.n == 0) continue;
    // `changes` is upstream's (deprecated) name, `changes_total` its replacement.
    registry_->GetCounter(Name("changes"), "Number of EndpointSlice changes", {{"operation", c.op}})
        .Inc(c.n);
    registry_
        ->GetCounter(Name("changes_total"), "Number of EndpointSlice changes",
                     {{"operation", c.op}})
        .Inc(c.n);
  }
  registry_
      ->GetHistogram(
          Name("endpointslices_changed_per_sync"),
          "Number of EndpointSlices changed on each Service sync",
          {{"topology", m.topology_label}, {"traffic_distribution", m.traffic_distribution_label}},
          ExponentialBuckets(2, 2, 15))
      .Observe(creates + updates + deletes);
  std::lock_guard<std::mutex> l(mu_);
  Contribution& c = services_[service_key];
  // Totals move by this Service's change: no walk over every Service per sync.
  endpoints_desired_->Inc(m.endpoints_desired - c.endpoints);
  num_slices_->Inc(m.slices_actual - c.slices);
  desired_slices_->Inc(m.slices_desired - c.desired_slices);
  c.endpoints = m.endpoints_desired;
  c.slices = m.slices_actual;
  c.desired_slices = m.slices_desired;
}

void SliceControllerMetrics::ObserveSync(std::string_view result) {
  if (registry_ == nullptr) return;
  registry_
      ->GetCounter(Name("syncs"), "Number of EndpointSlice syncs",
                   {{"result", std::string(result)}})
      .Inc();
}

void SliceControllerMetrics::SetTrafficDistribution(const std::string& service_key,
                                                    const std::string& value) {
  if (registry_ == nullptr) return;
  std::lock_guard<std::mutex> l(mu_);
  std::string& current = services_[service_key].traffic_distribution;
  if (current == value) return;
  current = value;
  Publish();
}

void SliceControllerMetrics::ForgetService(const std::string& service_key) {
  if (registry_ == nullptr) return;
  std::lock_guard<std::mutex> l(mu_);
  services_.erase(service_key);
  Publish();
}

void SliceControllerMetrics::Publish() {
  double endpoints = 0, slices = 0, desired = 0;
  std::map<std::string, int> by_distribution = {{"PreferClose", 0}, {"ImplementationSpecific", 0}};
  for (const auto& [key, c] : services_) {
    endpoints += c.endpoints;
    slices += c.slices;
    desired += c.desired_slices;
    if (c.traffic_distribution.empty()) continue;
    ++by_distribution[c.traffic_distribution == "PreferClose" ? "PreferClose"
                                                              : "ImplementationSpecific"];
  }
  endpoints_desired_->Set(endpoints);
  num_slices_->Set(slices);
  desired_slices_->Set(desired);
  for (const auto& [value, n] : by_distribution) {
    registry_
        ->GetGauge(Name("services_count_by_traffic_distribution"),
                   "Number of Services using some specific trafficDistribution",
                   {{"traffic_distribution", value}})
        .Set(n);
  }
}

}  // namespace svcplane::controllers::endpointslice
