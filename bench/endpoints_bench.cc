// Endpoints controller and EndpointSlice mirroring reconcile cost:
//   BM_EndpointsFullSync  – first sync of a Service with N Pods (desired subsets, repack,
//                           truncation to 1000, create)
//   BM_EndpointsOnePod    – converged Service; one Pod flips readiness; Plan only (writes/sync)
//   BM_EndpointsNoChange  – converged Service, nothing changed (the skip-if-equal path)
//   BM_MirroringFullSync  – custom Endpoints with N addresses in N/1000 subsets → slices
// Counters: writes = API writes per sync.

#include <benchmark/benchmark.h>

#include "controllers/endpoints/reconciler.h"
#include "controllers/endpoints/testing/fake_endpoints_writer.h"
#include "controllers/endpointslice/testing/fake_slice_writer.h"
#include "controllers/endpointslice/testing/fixtures.h"
#include "controllers/mirroring/reconciler.h"

namespace svcplane::controllers {
namespace {

using api::core::v1::Pod;
using api::core::v1::Service;
using PodPtr = std::shared_ptr<const Pod>;

Service BenchService() {
  Service s = endpointslice::testing::MakeService("svc", "ns");
  s.spec.selector = {{"app", "svc"}};
  return s;
}

std::vector<PodPtr> BenchPods(int n) {
  std::vector<PodPtr> pods;
  pods.reserve(n);
  for (int i = 0; i < n; ++i) {
    pods.push_back(std::make_shared<const Pod>(endpointslice::testing::MakePod(i)));
  }
  return pods;
}

void BM_EndpointsFullSync(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  Service svc = BenchService();
  auto pods = BenchPods(n);
  int64_t writes = 0;
  for (auto _ : state) {
    endpoints::Reconciler r;
    endpoints::testing::FakeEndpointsWriter w;
    auto plan = r.Plan("ns", "svc", &svc, pods, nullptr);
    auto result = r.Apply(*plan, w);
    writes += static_cast<int64_t>(w.Actions().size());
    benchmark::DoNotOptimize(result);
  }
  state.counters["writes"] =
      benchmark::Counter(static_cast<double>(writes), benchmark::Counter::kAvgIterations);
}
BENCHMARK(BM_EndpointsFullSync)->Arg(100)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond);

void OnePod(benchmark::State& state, bool change) {
  const int n = static_cast<int>(state.range(0));
  Service svc = BenchService();
  auto pods = BenchPods(n);
  endpoints::Reconciler r;
  endpoints::testing::FakeEndpointsWriter w;
  (void)r.Apply(*r.Plan("ns", "svc", &svc, pods, nullptr), w);
  int64_t writes = 0, iter = 0;
  for (auto _ : state) {
    state.PauseTiming();
    if (change) {
      const size_t idx = static_cast<size_t>((iter++ * 7919) % n);
      Pod p = *pods[idx];
      auto& cond = p.status.conditions[0];
      cond.status = cond.status == "True" ? "False" : "True";
      p.metadata.resource_version = std::to_string(iter);
      pods[idx] = std::make_shared<const Pod>(std::move(p));
    }
    auto current = w.Get("ns", "svc");
    state.ResumeTiming();
    auto plan = r.Plan("ns", "svc", &svc, pods, current.get());
    state.PauseTiming();
    if (plan->action != endpoints::EndpointsPlan::Action::kNone) {
      ++writes;
      (void)r.Apply(*plan, w);
    }
    state.ResumeTiming();
  }
  state.counters["writes"] =
      benchmark::Counter(static_cast<double>(writes), benchmark::Counter::kAvgIterations);
}
void BM_EndpointsOnePod(benchmark::State& state) { OnePod(state, true); }
void BM_EndpointsNoChange(benchmark::State& state) { OnePod(state, false); }
BENCHMARK(BM_EndpointsOnePod)->Arg(100)->Arg(1000)->Arg(10000)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_EndpointsNoChange)->Arg(100)->Arg(1000)->Arg(10000)->Unit(benchmark::kMicrosecond);

void BM_MirroringFullSync(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  api::core::v1::Endpoints e;
  e.metadata.name = "svc";
  e.metadata.namespace_ = "ns";
  for (int s = 0; s * 1000 < n; ++s) {
    api::core::v1::EndpointSubset subset;
    for (int i = s * 1000; i < std::min(n, (s + 1) * 1000); ++i) {
      api::core::v1::EndpointAddress a;
      a.ip = "10." + std::to_string(i >> 16) + "." + std::to_string((i >> 8) & 255) + "." +
             std::to_string(i & 255);
      subset.addresses.push_back(a);
    }
    api::core::v1::EndpointPort p;
    p.port = 8000 + s;
    p.protocol = "TCP";
    subset.ports.push_back(p);
    e.subsets.push_back(std::move(subset));
  }
  int64_t writes = 0;
  for (auto _ : state) {
    endpointslice::testing::FakeSliceWriter w;
    mirroring::MirrorPlan plan = mirroring::Plan(e, {});
    Status s = mirroring::Apply("ns", "svc", false, plan, w, nullptr);
    writes += plan.Writes();
    benchmark::DoNotOptimize(s);
  }
  state.counters["writes"] =
      benchmark::Counter(static_cast<double>(writes), benchmark::Counter::kAvgIterations);
}
BENCHMARK(BM_MirroringFullSync)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace svcplane::controllers

BENCHMARK_MAIN();
