// Protobuf vs JSON: encode and decode of the 10,000-Pod PodList (the realistic ~4 KB Pod of
// codec_bench) and of a watch stream of 1,000 EndpointSlice events (100 endpoints each), as the
// server writes them and a client reads them. Compare the *_Json and *_Protobuf pairs; the
// "MB" counters give the sizes on the wire.
#include <benchmark/benchmark.h>

#include <fstream>
#include <optional>
#include <sstream>

#include "api/codec/encoding_cache.h"
#include "api/codec/json.h"
#include "api/codec/protobuf.h"

namespace svcplane::api::codec {
namespace {

core::v1::Pod RealisticPod() {
  std::ifstream in(std::string(SVCPLANE_TESTDATA) + "/pod.json");
  std::stringstream ss;
  ss << in.rdbuf();
  auto pod = DecodeJson<core::v1::Pod>(ss.str());
  if (!pod.ok()) std::abort();
  return *pod;
}

PodList MakeList(int n) {
  auto pod = RealisticPod();
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

std::vector<discovery::v1::EndpointSlice> MakeSlices(int n, int endpoints) {
  std::vector<discovery::v1::EndpointSlice> out;
  for (int s = 0; s < n; ++s) {
    discovery::v1::EndpointSlice slice;
    slice.kind = "EndpointSlice";
    slice.api_version = "discovery.k8s.io/v1";
    slice.metadata.name = "web-" + std::to_string(10000 + s);
    slice.metadata.rest->generate_name = "web-";
    slice.metadata.namespace_ = "default";
    slice.metadata.uid = "5c1e7f0a-1b2c-4d3e-8f4a-" + std::to_string(500000000000 + s);
    slice.metadata.resource_version = std::to_string(1000000 + s);
    slice.metadata.rest->generation = 3;
    slice.metadata.creation_timestamp = meta::Time::FromUnix(1714557600);
    slice.metadata.labels = {
        {"endpointslice.kubernetes.io/managed-by", "endpointslice-controller.k8s.io"},
        {"kubernetes.io/service-name", "web"}};
    slice.metadata.owner_references.push_back({.api_version = "v1",
                                               .kind = "Service",
                                               .name = "web",
                                               .uid = "svc-uid",
                                               .controller = true,
                                               .block_owner_deletion = true});
    slice.address_type = "IPv4";
    for (int e = 0; e < endpoints; ++e) {
      discovery::v1::Endpoint ep;
      ep.addresses = {"10.244." + std::to_string(e / 250) + "." + std::to_string(e % 250)};
      ep.conditions = {.ready = true, .serving = true, .terminating = false};
      ep.node_name = "node-" + std::to_string(e % 50);
      ep.zone = "zone-" + std::to_string(e % 3);
      ep.target_ref = meta::ObjectReference{.kind = "Pod",
                                            .namespace_ = "default",
                                            .name = "web-" + std::to_string(e),
                                            .uid = "pod-uid-" + std::to_string(e)};
      slice.endpoints.push_back(std::move(ep));
    }
    slice.ports =
        std::vector<discovery::v1::EndpointPort>{{.name = "http", .protocol = "TCP", .port = 8080}};
    out.push_back(std::move(slice));
  }
  return out;
}

// --- the 10,000-Pod list ---------------------------------------------------------------------

void BM_EncodePodList10k_Json(benchmark::State& state) {
  PodList list = MakeList(10000);
  std::string out;
  for (auto _ : state) {
    out.clear();
    EncodeJson(list, &out);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * out.size()));
  state.counters["MB"] = static_cast<double>(out.size()) / 1e6;
}
BENCHMARK(BM_EncodePodList10k_Json)->Unit(benchmark::kMillisecond);

void BM_EncodePodList10k_Protobuf(benchmark::State& state) {
  PodList list = MakeList(10000);
  std::string out;
  for (auto _ : state) {
    out.clear();
    EncodeProtobuf(list, "v1", "PodList", &out);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * out.size()));
  state.counters["MB"] = static_cast<double>(out.size()) / 1e6;
}
BENCHMARK(BM_EncodePodList10k_Protobuf)->Unit(benchmark::kMillisecond);

// What the server pays for the second and later lists of the same stored objects: each item's
// message comes from the EncodingCache, only the envelope is built (JSON's counterpart is the
// concatenation of the cached JSON texts the server keeps anyway).
void BM_EncodePodList10k_ProtobufCached(benchmark::State& state) {
  PodList list = MakeList(10000);
  std::vector<std::shared_ptr<const core::v1::Pod>> stored;
  for (auto& p : list.items) stored.push_back(std::make_shared<const core::v1::Pod>(p));
  EncodingCache cache(size_t{256} << 20);
  auto encode = [](const core::v1::Pod& p) {
    std::string m;
    EncodeProtobufMessage(p, &m);
    return m;
  };
  for (const auto& p : stored) cache.Get(p, encode);  // the first list filled it
  std::string out;
  std::vector<std::shared_ptr<const std::string>> messages;
  std::vector<std::string_view> views;
  for (auto _ : state) {
    out.clear();
    messages.clear();
    views.clear();
    for (const auto& p : stored) {
      messages.push_back(cache.Get(p, encode));
      views.push_back(*messages.back());
    }
    EncodeProtobufListOfMessages(list.metadata, views, "v1", "PodList", &out);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * out.size()));
  state.counters["MB"] = static_cast<double>(out.size()) / 1e6;
}
BENCHMARK(BM_EncodePodList10k_ProtobufCached)->Unit(benchmark::kMillisecond);

// Freeing 10,000 Pods is not decoding: the previous result is released with the clock paused.
template <typename Decode>
void DecodeList(benchmark::State& state, const std::string& bytes, Decode decode) {
  std::optional<Result<PodList>> keep;
  for (auto _ : state) {
    state.PauseTiming();
    keep.reset();
    state.ResumeTiming();
    keep.emplace(decode(bytes));
    if (!keep->ok() || (*keep)->items.size() != 10000) state.SkipWithError("decode failed");
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes.size()));
  state.counters["MB"] = static_cast<double>(bytes.size()) / 1e6;
}

void BM_DecodePodList10k_Json(benchmark::State& state) {
  DecodeList(state, EncodeJson(MakeList(10000)),
             [](const std::string& b) { return DecodeJson<PodList>(b); });
}
BENCHMARK(BM_DecodePodList10k_Json)->Unit(benchmark::kMillisecond);

void BM_DecodePodList10k_Protobuf(benchmark::State& state) {
  DecodeList(state, EncodeProtobuf(MakeList(10000), "v1", "PodList"),
             [](const std::string& b) { return DecodeProtobuf<PodList>(b); });
}
BENCHMARK(BM_DecodePodList10k_Protobuf)->Unit(benchmark::kMillisecond);

// --- a watch stream of EndpointSlice events --------------------------------------------------

constexpr int kSlices = 1000;
constexpr int kEndpointsPerSlice = 100;

void BM_EncodeSliceWatch_Json(benchmark::State& state) {
  auto slices = MakeSlices(kSlices, kEndpointsPerSlice);
  std::string out, obj;
  for (auto _ : state) {
    out.clear();
    for (const auto& s : slices) {
      obj.clear();
      EncodeJson(s, &obj);
      EncodeWatchEvent("MODIFIED", obj, &out);
      out.push_back('\n');
    }
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(state.iterations() * kSlices);
  state.counters["MB"] = static_cast<double>(out.size()) / 1e6;
}
BENCHMARK(BM_EncodeSliceWatch_Json)->Unit(benchmark::kMillisecond);

void BM_EncodeSliceWatch_Protobuf(benchmark::State& state) {
  auto slices = MakeSlices(kSlices, kEndpointsPerSlice);
  std::string out, obj;
  for (auto _ : state) {
    out.clear();
    for (const auto& s : slices) {
      obj.clear();
      EncodeProtobuf(s, "discovery.k8s.io/v1", "EndpointSlice", &obj);
      AppendProtobufWatchFrame("MODIFIED", obj, &out);
    }
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(state.iterations() * kSlices);
  state.counters["MB"] = static_cast<double>(out.size()) / 1e6;
}
BENCHMARK(BM_EncodeSliceWatch_Protobuf)->Unit(benchmark::kMillisecond);

void BM_DecodeSliceWatch_Json(benchmark::State& state) {
  auto slices = MakeSlices(kSlices, kEndpointsPerSlice);
  std::string stream;
  for (const auto& s : slices) {
    EncodeWatchEvent("MODIFIED", EncodeJson(s), &stream);
    stream.push_back('\n');
  }
  for (auto _ : state) {
    std::string_view rest = stream;
    size_t n = 0;
    while (!rest.empty()) {
      size_t nl = rest.find('\n');
      auto ev = DecodeWatchEvent(rest.substr(0, nl));
      auto slice = DecodeJson<discovery::v1::EndpointSlice>(ev->object);
      if (!slice.ok()) state.SkipWithError("decode failed");
      benchmark::DoNotOptimize(slice);
      rest.remove_prefix(nl + 1);
      ++n;
    }
    if (n != kSlices) state.SkipWithError("wrong event count");
  }
  state.SetItemsProcessed(state.iterations() * kSlices);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * stream.size()));
}
BENCHMARK(BM_DecodeSliceWatch_Json)->Unit(benchmark::kMillisecond);

void BM_DecodeSliceWatch_Protobuf(benchmark::State& state) {
  auto slices = MakeSlices(kSlices, kEndpointsPerSlice);
  std::string stream;
  for (const auto& s : slices) {
    AppendProtobufWatchFrame("MODIFIED", EncodeProtobuf(s, "discovery.k8s.io/v1", "EndpointSlice"),
                             &stream);
  }
  for (auto _ : state) {
    std::string_view rest = stream;
    size_t n = 0;
    while (!rest.empty()) {
      auto frame = NextProtobufWatchFrame(&rest);
      if (!frame.ok() || !frame->has_value()) {
        state.SkipWithError("bad frame");
        break;
      }
      auto slice = DecodeProtobuf<discovery::v1::EndpointSlice>((*frame)->object);
      if (!slice.ok()) state.SkipWithError("decode failed");
      benchmark::DoNotOptimize(slice);
      ++n;
    }
    if (n != kSlices) state.SkipWithError("wrong event count");
  }
  state.SetItemsProcessed(state.iterations() * kSlices);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * stream.size()));
}
BENCHMARK(BM_DecodeSliceWatch_Protobuf)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace svcplane::api::codec

BENCHMARK_MAIN();
