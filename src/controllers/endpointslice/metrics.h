#pragma once

// The EndpointSlice controller's Prometheus series (spec §12), with upstream's names under the
// `endpoint_slice_controller` subsystem. The gauges are sums over Services, so a per-Service cache
// remembers each Service's last contribution. All methods are no-ops without a registry.

#include <map>
#include <mutex>
#include <string>
#include <string_view>

#include "base/metrics.h"
#include "controllers/endpointslice/reconciler.h"

namespace svcplane::controllers::endpointslice {

// Safe from any thread.
class SliceControllerMetrics {
 public:
  explicit SliceControllerMetrics(MetricsRegistry* registry);

  // One reconcile: the plan's SyncMetrics plus the writes that succeeded.
  void ObserveReconcile(const std::string& service_key, const SyncMetrics& m, int creates,
                        int updates, int deletes);
  // syncs{result=success|stale|error}.
  void ObserveSync(std::string_view result);
  // services_count_by_traffic_distribution: the Service's current value ("" when unset).
  void SetTrafficDistribution(const std::string& service_key, const std::string& value);
  void ForgetService(const std::string& service_key);

 private:
  struct Contribution {
    int endpoints = 0;
    int slices = 0;
    int desired_slices = 0;
    std::string traffic_distribution;  // "" when none
  };
  void Publish();  // requires mu_

  MetricsRegistry* const registry_;
  Histogram* added_ = nullptr;
  Histogram* removed_ = nullptr;
  Gauge* endpoints_desired_ = nullptr;
  Gauge* num_slices_ = nullptr;
  Gauge* desired_slices_ = nullptr;

  std::mutex mu_;
  std::map<std::string, Contribution> services_;  // guarded by mu_
};

}  // namespace svcplane::controllers::endpointslice
