// EndpointSlice reconcile cost for one Service with 1k / 10k / 100k endpoints:
//   BM_FullBuild       – first sync, no slices yet (all creates)
//   BM_OnePodChange    – one Pod flips readiness in a converged Service (reconcile CPU only)
//   BM_OnePodReplace   – one Pod deleted and a new one added (list shifts)
//   BM_RollingUpdate   – slice count after replacing every Pod, default vs rebalancing mode
// Counters: writes = slice writes per sync; slices = slices left at the end.

#include <benchmark/benchmark.h>

#include "controllers/endpointslice/reconciler.h"
#include "controllers/endpointslice/testing/reconciler_harness.h"
#include "controllers/endpointslice/testing/rolling_update.h"

namespace svcplane::controllers::endpointslice {
namespace {

using testing::Harness;
using testing::MakePod;
using testing::Share;

void BM_FullBuild(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  Harness h(ReconcilerOptions{});
  h.AddPods(0, n);
  auto service = Share(h.service());
  int64_t writes = 0;
  for (auto _ : state) {
    Reconciler r(ReconcilerOptions{});
    SlicePlan plan = r.Plan(service, h.pods(), h.nodes(), {});
    writes += plan.Writes();
    benchmark::DoNotOptimize(plan);
  }
  state.counters["writes"] =
      benchmark::Counter(static_cast<double>(writes), benchmark::Counter::kAvgIterations);
}
BENCHMARK(BM_FullBuild)->Arg(1000)->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond);

// Converged Service; each iteration changes one Pod and reconciles. Only Plan is timed: listing
// the cache and applying to the fake writer are paused.
void OnePod(benchmark::State& state, bool incremental, bool replace, bool rebalance = false) {
  const int n = static_cast<int>(state.range(0));
  ReconcilerOptions opts;
  opts.incremental = incremental;
  opts.rebalance = rebalance;
  Harness h(opts);
  h.AddPods(0, n);
  h.Sync();
  h.Sync();
  auto service = Share(h.service());
  int64_t writes = 0, iter = 0;
  int next = n;
  for (auto _ : state) {
    state.PauseTiming();
    size_t idx = static_cast<size_t>((iter * 7919) % n);
    if (replace) {
      h.pods().erase(h.pods().begin() + static_cast<long>(idx));
      h.AddPods(next, next + 1);
      ++next;
    } else {
      Pod p = *h.pods()[idx];
      auto& st = p.status.conditions[0].status;
      st = st == "True" ? "False" : "True";
      h.ReplacePod(idx, p);
    }
    auto slices = h.ServiceSlices();
    state.ResumeTiming();
    SlicePlan plan = h.reconciler().Plan(service, h.pods(), h.nodes(), slices);
    state.PauseTiming();
    writes += plan.Writes();
    Status s = h.reconciler().Apply(*service, plan, h.writer(), &h.tracker());
    if (!s.ok()) state.SkipWithError(s.ToString().c_str());
    ++iter;
    state.ResumeTiming();
  }
  state.counters["writes"] =
      benchmark::Counter(static_cast<double>(writes), benchmark::Counter::kAvgIterations);
}

void BM_OnePodChange(benchmark::State& state) { OnePod(state, true, false); }
void BM_OnePodChange_Scratch(benchmark::State& state) { OnePod(state, false, false); }
void BM_OnePodReplace(benchmark::State& state) { OnePod(state, true, true); }
void BM_OnePodChange_Rebalance(benchmark::State& state) { OnePod(state, true, false, true); }
BENCHMARK(BM_OnePodChange_Rebalance)->Arg(100000)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_OnePodChange)->Arg(1000)->Arg(10000)->Arg(100000)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_OnePodReplace)->Arg(1000)->Arg(10000)->Arg(100000)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_OnePodChange_Scratch)
    ->Arg(1000)
    ->Arg(10000)
    ->Arg(100000)
    ->Unit(benchmark::kMicrosecond);

// range(0): pods, range(1): surge/delete batch, range(2): 1 = rebalancing mode.
void BM_RollingUpdate(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  ReconcilerOptions opts;
  opts.rebalance = state.range(2) != 0;
  testing::RollingUpdateResult r;
  for (auto _ : state) {
    state.PauseTiming();
    Harness h(opts);
    h.AddPods(0, n);
    h.Sync();
    state.ResumeTiming();
    r = testing::RollingUpdate(h, 1000000, static_cast<int>(state.range(1)));
  }
  state.counters["slices"] = static_cast<double>(r.slices);
  state.counters["min_slices"] = static_cast<double>((n + 99) / 100);
  state.counters["writes"] = static_cast<double>(r.writes);
  state.counters["syncs"] = static_cast<double>(r.syncs);
  state.counters["max_writes_per_sync"] = static_cast<double>(r.max_writes_per_sync);
  state.counters["peak_slices"] = static_cast<double>(r.peak_slices);
}
BENCHMARK(BM_RollingUpdate)
    ->ArgNames({"pods", "batch", "rebalance"})
    ->Args({10000, 250, 0})
    ->Args({10000, 250, 1})
    ->Args({10000, 25, 0})
    ->Args({10000, 25, 1})
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

// Scale 10k → 20k → 10k (random Pods removed, 500 per sync), then quiet syncs until no writes.
void BM_ScaleUpDown(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  ReconcilerOptions opts;
  opts.rebalance = state.range(1) != 0;
  testing::RollingUpdateResult r;
  for (auto _ : state) {
    state.PauseTiming();
    Harness h(opts);
    h.AddPods(0, n);
    h.Sync();
    state.ResumeTiming();
    r = testing::ScaleUpDown(h, 1000000, n, 500);
  }
  state.counters["slices"] = static_cast<double>(r.slices);
  state.counters["min_slices"] = static_cast<double>((n + 99) / 100);
  state.counters["writes"] = static_cast<double>(r.writes);
  state.counters["syncs"] = static_cast<double>(r.syncs);
  state.counters["max_writes_per_sync"] = static_cast<double>(r.max_writes_per_sync);
}
BENCHMARK(BM_ScaleUpDown)
    ->ArgNames({"pods", "rebalance"})
    ->Args({10000, 0})
    ->Args({10000, 1})
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace svcplane::controllers::endpointslice

BENCHMARK_MAIN();
