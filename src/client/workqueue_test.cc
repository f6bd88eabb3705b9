#include "client/workqueue.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <string>
#include <thread>
#include <vector>

namespace svcplane::client {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

TEST(QueueTest, DeduplicatesAndKeepsFifoOrder) {
  Queue<std::string> q;
  q.Add("a");
  q.Add("a");
  q.Add("b");
  EXPECT_EQ(q.Len(), 2);
  EXPECT_EQ(q.Get(), "a");
  EXPECT_EQ(q.Get(), "b");
  EXPECT_EQ(q.Len(), 0);
}

TEST(QueueTest, AddDuringProcessingIsQueuedAgainAfterDone) {
  Queue<std::string> q;
  q.Add("a");
  ASSERT_EQ(q.Get(), "a");
  q.Add("a");
  q.Add("a");
  EXPECT_EQ(q.Len(), 0);  // held back while processing
  q.Done("a");
  EXPECT_EQ(q.Len(), 1);  // exactly one more processing
  EXPECT_EQ(q.Get(), "a");
  q.Done("a");
  EXPECT_EQ(q.Len(), 0);
}

TEST(QueueTest, KeyIsNeverProcessedByTwoWorkersAtOnce) {
  Queue<std::string> q;
  std::atomic<int> in_flight{0};
  std::atomic<bool> overlap{false};
  std::atomic<int> processed{0};
  std::vector<std::thread> workers;
  for (int w = 0; w < 4; ++w) {
    workers.emplace_back([&] {
      while (auto key = q.Get()) {
        if (in_flight.fetch_add(1) != 0) overlap = true;
        std::this_thread::sleep_for(std::chrono::microseconds(50));
        in_flight.fetch_sub(1);
        ++processed;
        q.Done(*key);
      }
    });
  }
  for (int i = 0; i < 2000; ++i) {
    q.Add("only-key");
    if (i % 100 == 0) std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  q.ShutDownWithDrain();
  for (auto& t : workers) t.join();
  EXPECT_FALSE(overlap);
  EXPECT_GE(processed.load(), 1);
}

TEST(QueueTest, ShutDownHandsOutQueuedItemsThenReportsShutdown) {
  Queue<std::string> q;
  q.Add("a");
  q.ShutDown();
  EXPECT_TRUE(q.ShuttingDown());
  EXPECT_EQ(q.Get(), "a");
  EXPECT_EQ(q.Get(), std::nullopt);
  q.Add("b");  // ignored
  EXPECT_EQ(q.Len(), 0);
}

TEST(QueueTest, ShutDownWakesBlockedGet) {
  Queue<std::string> q;
  auto got = std::async(std::launch::async, [&] { return q.Get(); });
  std::this_thread::sleep_for(milliseconds(20));
  q.ShutDown();
  EXPECT_EQ(got.get(), std::nullopt);
}

TEST(QueueTest, ShutDownWithDrainWaitsForProcessingItems) {
  Queue<std::string> q;
  q.Add("a");
  ASSERT_EQ(q.Get(), "a");
  std::atomic<bool> returned{false};
  std::thread drainer([&] {
    q.ShutDownWithDrain();
    returned = true;
  });
  std::this_thread::sleep_for(milliseconds(50));
  EXPECT_FALSE(returned);
  q.Done("a");
  drainer.join();
  EXPECT_TRUE(returned);
}

TEST(QueueTest, ShutDownCancelsADrain) {
  Queue<std::string> q;
  q.Add("a");
  ASSERT_EQ(q.Get(), "a");
  std::thread drainer([&] { q.ShutDownWithDrain(); });
  std::this_thread::sleep_for(milliseconds(20));
  q.ShutDown();
  drainer.join();  // returns although "a" was never Done
}

TEST(QueueTest, MetricsUseUpstreamNames) {
  FakeClock clock;
  MetricsRegistry reg;
  {
    Queue<std::string> q({.name = "svc", .metrics = &reg, .clock = &clock});
    q.Add("a");
    q.Add("a");
    q.Add("b");
    clock.Advance(seconds(2));
    ASSERT_EQ(q.Get(), "a");
    clock.Advance(seconds(3));
    q.UpdateUnfinishedWorkMetricsForTest();
    const std::string text = reg.RenderPrometheus();
    EXPECT_THAT(text, testing::HasSubstr("workqueue_adds_total{name=\"svc\"} 2\n"));
    EXPECT_THAT(text, testing::HasSubstr("workqueue_depth{name=\"svc\"} 1\n"));
    EXPECT_THAT(text, testing::HasSubstr("workqueue_queue_duration_seconds_sum{name=\"svc\"} 2\n"));
    EXPECT_THAT(text, testing::HasSubstr("workqueue_unfinished_work_seconds{name=\"svc\"} 3\n"));
    EXPECT_THAT(
        text, testing::HasSubstr("workqueue_longest_running_processor_seconds{name=\"svc\"} 3\n"));
    q.Done("a");
    EXPECT_THAT(reg.RenderPrometheus(),
                testing::HasSubstr("workqueue_work_duration_seconds_sum{name=\"svc\"} 3\n"));
  }
}

TEST(QueueTest, UnnamedQueueRegistersNoMetrics) {
  MetricsRegistry reg;
  Queue<std::string> q({.metrics = &reg});
  q.Add("a");
  EXPECT_EQ(reg.RenderPrometheus(), "");
}

TEST(QueueTest, WorksWithNonStringKeys) {
  Queue<int> q;
  q.Add(3);
  q.Add(3);
  q.Add(1);
  EXPECT_EQ(q.Get(), 3);
  EXPECT_EQ(q.Get(), 1);
}

}  // namespace
}  // namespace svcplane::client
