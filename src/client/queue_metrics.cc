#include "client/queue_metrics.h"

namespace svcplane::client {

QueueMetricSeries QueueMetricSeries::Register(MetricsRegistry& registry, const std::string& name) {
  const MetricLabels labels = {{"name", name}};
  // Same buckets as client-go's workqueue metrics: 10ns .. 10s, factor 10.
  const std::vector<double> buckets = ExponentialBuckets(10e-9, 10, 10);
  QueueMetricSeries s;
  s.depth = &registry.GetGauge("workqueue_depth", "Current depth of workqueue", labels);
  s.adds = &registry.GetCounter("workqueue_adds_total", "Total number of adds handled by workqueue",
                                labels);
  s.queue_latency = &registry.GetHistogram(
      "workqueue_queue_duration_seconds",
      "How long in seconds an item stays in workqueue before being requested.", labels, buckets);
  s.work_duration = &registry.GetHistogram(
      "workqueue_work_duration_seconds",
      "How long in seconds processing an item from workqueue takes.", labels, buckets);
  s.unfinished_work_seconds = &registry.GetGauge(
      "workqueue_unfinished_work_seconds",
      "How many seconds of work has done that is in progress and hasn't been observed by "
      "work_duration. Large values indicate stuck threads. One can deduce the number of stuck "
      "threads by observing the rate at which this increases.",
      labels);
  s.longest_running_processor = &registry.GetGauge(
      "workqueue_longest_running_processor_seconds",
      "How many seconds has the longest running processor for workqueue been running.", labels);
  s.retries = &registry.GetCounter("workqueue_retries_total",
                                   "Total number of retries handled by workqueue", labels);
  return s;
}

}  // namespace svcplane::client
