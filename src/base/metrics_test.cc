#include "base/metrics.h"

#include <gtest/gtest.h>

namespace svcplane {
namespace {

TEST(MetricsRegistryTest, SameNameAndLabelsGiveSameMetric) {
  MetricsRegistry reg;
  Counter& a = reg.GetCounter("x_total", "help", {{"name", "q"}});
  Counter& b = reg.GetCounter("x_total", "help", {{"name", "q"}});
  Counter& c = reg.GetCounter("x_total", "help", {{"name", "r"}});
  EXPECT_EQ(&a, &b);
  EXPECT_NE(&a, &c);
}

TEST(MetricsRegistryTest, RendersPrometheusText) {
  MetricsRegistry reg;
  reg.GetCounter("workqueue_adds_total", "Total adds", {{"name", "svc"}}).Inc(3);
  reg.GetGauge("workqueue_depth", "Depth", {{"name", "svc"}}).Set(2);
  Histogram& h = reg.GetHistogram("lat_seconds", "Latency", {{"name", "svc"}}, {0.1, 1});
  h.Observe(0.05);
  h.Observe(0.5);
  h.Observe(5);
  EXPECT_EQ(reg.RenderPrometheus(),
            "# HELP lat_seconds Latency\n"
            "# TYPE lat_seconds histogram\n"
            "lat_seconds_bucket{name=\"svc\",le=\"0.1\"} 1\n"
            "lat_seconds_bucket{name=\"svc\",le=\"1\"} 2\n"
            "lat_seconds_bucket{name=\"svc\",le=\"+Inf\"} 3\n"
            "lat_seconds_sum{name=\"svc\"} 5.55\n"
            "lat_seconds_count{name=\"svc\"} 3\n"
            "# HELP workqueue_adds_total Total adds\n"
            "# TYPE workqueue_adds_total counter\n"
            "workqueue_adds_total{name=\"svc\"} 3\n"
            "# HELP workqueue_depth Depth\n"
            "# TYPE workqueue_depth gauge\n"
            "workqueue_depth{name=\"svc\"} 2\n");
}

TEST(MetricsTest, ExponentialBuckets) {
  EXPECT_EQ(ExponentialBuckets(1, 10, 3), (std::vector<double>{1, 10, 100}));
}

}  // namespace
}  // namespace svcplane
