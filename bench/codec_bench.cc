// JSON codec throughput: a realistic ~4 KB Pod (containers, probes, volumes, status) and a
// 10,000-Pod PodList, decode including typed object construction, and encode.
#include <benchmark/benchmark.h>

#include <fstream>
#include <optional>
#include <sstream>

#include "api/codec/json.h"
#include "api/codec/strict.h"

namespace svcplane::api::codec {
namespace {

std::string CompactPod() {
  std::ifstream in(std::string(SVCPLANE_TESTDATA) + "/pod.json");
  std::stringstream ss;
  ss << in.rdbuf();
  auto pod = DecodeJson<core::v1::Pod>(ss.str());
  if (!pod.ok()) std::abort();
  return EncodeJson(*pod);  // compact, as the server sends it
}

PodList MakeList(int n) {
  auto pod = *DecodeJson<core::v1::Pod>(CompactPod());
  PodList list;
  list.kind = "PodList";
  list.api_version = "v1";
  list.metadata.resource_version = "123456789";
  for (int i = 0; i < n; ++i) {
    pod.metadata.name = "web-7d9c6b5f4-" + std::to_string(100000 + i);
    pod.metadata.uid = "0b8b1d8e-6a1e-4b6e-8a0a-" + std::to_string(300000000000 + i);
    pod.status.pod_ip = "10.244." + std::to_string(i / 250) + "." + std::to_string(i % 250);
    pod.status.pod_ips[0].ip = pod.status.pod_ip;
    list.items.push_back(pod);
  }
  return list;
}

void BM_DecodePod(benchmark::State& state) {
  std::string json = CompactPod();
  for (auto _ : state) {
    auto pod = DecodeJson<core::v1::Pod>(json);
    benchmark::DoNotOptimize(pod);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * json.size()));
  state.counters["bytes"] = static_cast<double>(json.size());
}
BENCHMARK(BM_DecodePod);

// fieldValidation=Strict|Warn (the default): the unknown/duplicate field walk over the same Pod,
// on top of the decode above.
void BM_StrictFieldsPod(benchmark::State& state) {
  std::string json = CompactPod();
  for (auto _ : state) {
    auto problems = StrictDecodingErrors<core::v1::Pod>(json);
    if (!problems.empty()) std::abort();
    benchmark::DoNotOptimize(problems);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * json.size()));
}
BENCHMARK(BM_StrictFieldsPod);

void BM_EncodePod(benchmark::State& state) {
  auto pod = *DecodeJson<core::v1::Pod>(CompactPod());
  std::string out;
  for (auto _ : state) {
    out.clear();
    EncodeJson(pod, &out);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * out.size()));
}
BENCHMARK(BM_EncodePod);

// Destroying 10,000 Pods (hundreds of thousands of frees) is not decoding: the timed region is
// parse + typed construction; the previous result is released with the clock paused.
void BM_DecodePodList10k(benchmark::State& state) {
  std::string json = EncodeJson(MakeList(10000));
  std::optional<Result<PodList>> keep;
  for (auto _ : state) {
    state.PauseTiming();
    keep.reset();
    state.ResumeTiming();
    keep.emplace(DecodeJson<PodList>(json));
    if (!keep->ok() || (*keep)->items.size() != 10000) state.SkipWithError("decode failed");
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * json.size()));
  state.counters["MB"] = static_cast<double>(json.size()) / 1e6;
}
BENCHMARK(BM_DecodePodList10k)->Unit(benchmark::kMillisecond);

void BM_EncodePodList10k(benchmark::State& state) {
  PodList list = MakeList(10000);
  std::string out;
  for (auto _ : state) {
    out.clear();
    EncodeJson(list, &out);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * out.size()));
}
BENCHMARK(BM_EncodePodList10k)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace svcplane::api::codec

BENCHMARK_MAIN();
