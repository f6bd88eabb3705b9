#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace svcplane {

// Minimal Prometheus-style metrics: enough for the work queue and the API server to expose
// their upstream-named series. Updates are lock-free; registration and rendering take a mutex.

using MetricLabels = std::vector<std::pair<std::string, std::string>>;

class Counter {
 public:
  void Inc(double v = 1) { value_.fetch_add(v, std::memory_order_relaxed); }
  double Value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0};
};

class Gauge {
 public:
  void Set(double v) { value_.store(v, std::memory_order_relaxed); }
  void Inc(double v = 1) { value_.fetch_add(v, std::memory_order_relaxed); }
  void Dec(double v = 1) { value_.fetch_sub(v, std::memory_order_relaxed); }
  double Value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0};
};

class Histogram {
 public:
  // `bounds` are the upper bounds of the buckets, ascending; +Inf is implicit.
  explicit Histogram(std::vector<double> bounds);
  void Observe(double v);

  const std::vector<double>& bounds() const { return bounds_; }
  // Cumulative count of observations <= bounds()[i]; index bounds().size() is +Inf.
  uint64_t CumulativeCount(size_t i) const;
  uint64_t Count() const { return count_.load(std::memory_order_relaxed); }
  double Sum() const { return sum_.load(std::memory_order_relaxed); }

 private:
  const std::vector<double> bounds_;
  std::unique_ptr<std::atomic<uint64_t>[]> buckets_;  // per bucket, not cumulative
  std::atomic<uint64_t> count_{0};
  std::atomic<double> sum_{0};
};

// start, start*factor, ... (count values), as prometheus.ExponentialBuckets.
std::vector<double> ExponentialBuckets(double start, double factor, int count);

// Owns metrics by (name, labels). Get* returns the same object for the same name and labels;
// references stay valid for the registry's lifetime. Safe from any thread.
class MetricsRegistry {
 public:
  Counter& GetCounter(const std::string& name, const std::string& help, MetricLabels labels);
  Gauge& GetGauge(const std::string& name, const std::string& help, MetricLabels labels);
  Histogram& GetHistogram(const std::string& name, const std::string& help, MetricLabels labels,
                          std::vector<double> bounds);

  // Prometheus text exposition format 0.0.4, families sorted by name.
  std::string RenderPrometheus() const;

 private:
  enum class Type { kCounter, kGauge, kHistogram };
  struct Family {
    Type type;
    std::string help;
    std::map<MetricLabels, std::unique_ptr<Counter>> counters;
    std::map<MetricLabels, std::unique_ptr<Gauge>> gauges;
    std::map<MetricLabels, std::unique_ptr<Histogram>> histograms;
  };
  Family& FamilyFor(const std::string& name, const std::string& help, Type type);

  mutable std::mutex mu_;
  std::map<std::string, Family> families_;  // guarded by mu_
};

}  // namespace svcplane
