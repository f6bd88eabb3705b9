#pragma once

#include <string>

#include "base/metrics.h"

namespace svcplane::client {

// The series of one named work queue, with client-go's names and the `name` label. Created only
// for named queues with a registry; unnamed queues pay nothing.
struct QueueMetricSeries {
  Gauge* depth;                      // workqueue_depth
  Counter* adds;                     // workqueue_adds_total
  Histogram* queue_latency;          // workqueue_queue_duration_seconds (add -> get)
  Histogram* work_duration;          // workqueue_work_duration_seconds (get -> done)
  Gauge* unfinished_work_seconds;    // workqueue_unfinished_work_seconds
  Gauge* longest_running_processor;  // workqueue_longest_running_processor_seconds
  Counter* retries;                  // workqueue_retries_total (AddAfter calls)

  static QueueMetricSeries Register(MetricsRegistry& registry, const std::string& name);
};

}  // namespace svcplane::client
