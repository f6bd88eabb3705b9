#pragma once

// The mirroring controller's Prometheus series (endpointslice-mirroring.md §8), upstream names
// under the `endpoint_slice_mirroring_controller` subsystem. Gauges are sums over Endpoints, so a
// per-key cache remembers each one's last contribution. No-ops without a registry.

#include <map>
#include <mutex>
#include <string>

#include "base/metrics.h"
#include "controllers/mirroring/reconciler.h"

namespace svcplane::controllers::mirroring {

// Safe from any thread.
class MirroringMetrics {
 public:
  explicit MirroringMetrics(MetricsRegistry* registry);

  void ObserveReconcile(const std::string& key, const MirrorMetrics& m, int creates, int updates,
                        int deletes);
  void ObserveSyncDuration(double seconds);
  void Forget(const std::string& key);

 private:
  struct Contribution {
    int endpoints = 0;
    int slices = 0;
    int desired_slices = 0;
  };
  void Publish();  // requires mu_

  MetricsRegistry* const registry_;
  Histogram* added_ = nullptr;
  Histogram* updated_ = nullptr;
  Histogram* removed_ = nullptr;
  Histogram* skipped_ = nullptr;
  Histogram* sync_duration_ = nullptr;
  Gauge* endpoints_desired_ = nullptr;
  Gauge* num_slices_ = nullptr;
  Gauge* desired_slices_ = nullptr;

  std::mutex mu_;
  std::map<std::string, Contribution> by_key_;  // guarded by mu_
};

}  // namespace svcplane::controllers::mirroring
