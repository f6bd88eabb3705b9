// Work-queue throughput: one Add + Get + Done cycle per item, single-threaded, as a controller
// worker sees it when keys arrive faster than they are processed. Target: >= 1,000,000 cycles/s.
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "base/metrics.h"
#include "client/rate_limiting_queue.h"
#include "client/workqueue.h"

namespace svcplane::client {
namespace {

std::vector<std::string> Keys(int n) {
  std::vector<std::string> keys;
  for (int i = 0; i < n; ++i) keys.push_back("default/service-" + std::to_string(i));
  return keys;
}

// Adds a batch of distinct keys, then drains it: Len grows to the batch size as with a real
// informer burst.
template <typename Q>
void RunBatches(benchmark::State& state, Q& q) {
  const std::vector<std::string> keys = Keys(state.range(0));
  for (auto _ : state) {
    for (const auto& k : keys) q.Add(k);
    for (size_t i = 0; i < keys.size(); ++i) {
      auto item = q.Get();
      q.Done(*item);
    }
  }
  state.SetItemsProcessed(state.iterations() * keys.size());
}

void BM_QueueAddGetDone(benchmark::State& state) {
  Queue<std::string> q;
  RunBatches(state, q);
}
BENCHMARK(BM_QueueAddGetDone)->Arg(1)->Arg(1000)->Arg(100000);

void BM_QueueAddGetDoneWithMetrics(benchmark::State& state) {
  MetricsRegistry reg;
  Queue<std::string> q({.name = "bench", .metrics = &reg});
  RunBatches(state, q);
}
BENCHMARK(BM_QueueAddGetDoneWithMetrics)->Arg(1000);

void BM_RateLimitingQueueAddGetDone(benchmark::State& state) {
  RateLimitingQueue<std::string> q(DefaultControllerRateLimiter<std::string>(RealClock::Get()));
  RunBatches(state, q);
}
BENCHMARK(BM_RateLimitingQueueAddGetDone)->Arg(1000);

// Duplicate adds of one hot key between Gets (dedup path).
void BM_QueueDuplicateAdds(benchmark::State& state) {
  Queue<std::string> q;
  const std::string key = "default/hot";
  for (auto _ : state) {
    for (int i = 0; i < 10; ++i) q.Add(key);
    auto item = q.Get();
    q.Done(*item);
  }
  state.SetItemsProcessed(state.iterations() * 10);
}
BENCHMARK(BM_QueueDuplicateAdds);

}  // namespace
}  // namespace svcplane::client

BENCHMARK_MAIN();
