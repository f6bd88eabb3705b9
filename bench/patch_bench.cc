// PATCH engines on a realistic ~4 KB Pod (the codec test fixture): a kubectl-apply style strategic
// merge patch (labels change, one container image change, $setElementOrder/containers) and a
// kubectl-label style JSON merge patch of labels. "Engine" cases start from parsed values and
// include the copy of the live object; "ApplyPatch" cases are the REST layer's full call (parse
// the body, copy, apply).
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include <boost/json.hpp>

#include "apiserver/patch/json_patch.h"
#include "apiserver/patch/merge_patch.h"
#include "apiserver/patch/patch.h"
#include "apiserver/patch/schema.h"
#include "apiserver/patch/strategic.h"

namespace svcplane::apiserver::patch {
namespace {

namespace json = boost::json;

const json::value& Pod() {
  static const json::value* const kPod = [] {
    std::ifstream in(std::string(SVCPLANE_TESTDATA) + "/pod.json");
    std::stringstream ss;
    ss << in.rdbuf();
    boost::system::error_code ec;
    auto* v = new json::value(json::parse(ss.str(), ec));
    if (ec || !v->is_object()) std::abort();
    return v;
  }();
  return *kPod;
}

constexpr const char* kStrategicBody = R"({
  "metadata":{"labels":{"tier":null,"version":"v2"}},
  "spec":{"$setElementOrder/containers":[{"name":"web"}],
          "containers":[{"name":"web","image":"registry.example.com/web:1.5.0"}]}})";

constexpr const char* kMergeBody = R"({"metadata":{"labels":{"tier":null,"version":"v2"}}})";

constexpr const char* kJsonPatchBody =
    R"([{"op":"replace","path":"/spec/containers/0/image","value":"registry.example.com/web:1.5.0"},
        {"op":"add","path":"/metadata/labels/version","value":"v2"}])";

void BM_CopyPod(benchmark::State& state) {
  for (auto _ : state) {
    json::value copy = Pod();
    benchmark::DoNotOptimize(copy);
  }
}
BENCHMARK(BM_CopyPod);

void BM_StrategicMergePod_Engine(benchmark::State& state) {
  const json::value patch = json::parse(kStrategicBody);
  const Schema& schema = *StrategicSchemaForKind("Pod");
  for (auto _ : state) {
    json::value pod = Pod();
    Status s = internal::StrategicMergeInPlace(pod.get_object(), patch.get_object(), schema);
    if (!s.ok()) state.SkipWithError(s.message().c_str());
    benchmark::DoNotOptimize(pod);
  }
}
BENCHMARK(BM_StrategicMergePod_Engine);

void BM_StrategicMergePod_ApplyPatch(benchmark::State& state) {
  for (auto _ : state) {
    Result<json::value> r = ApplyPatch(PatchType::kStrategicMerge, "Pod", Pod(), kStrategicBody);
    if (!r.ok()) state.SkipWithError(r.status().message().c_str());
    benchmark::DoNotOptimize(r);
  }
}
BENCHMARK(BM_StrategicMergePod_ApplyPatch);

void BM_MergePatchLabels_Engine(benchmark::State& state) {
  const json::value patch = json::parse(kMergeBody);
  for (auto _ : state) {
    json::value pod = Pod();
    internal::MergePatchInPlace(pod.get_object(), patch.get_object());
    benchmark::DoNotOptimize(pod);
  }
}
BENCHMARK(BM_MergePatchLabels_Engine);

void BM_MergePatchLabels_ApplyPatch(benchmark::State& state) {
  for (auto _ : state) {
    Result<json::value> r = ApplyPatch(PatchType::kMergePatch, "Pod", Pod(), kMergeBody);
    if (!r.ok()) state.SkipWithError(r.status().message().c_str());
    benchmark::DoNotOptimize(r);
  }
}
BENCHMARK(BM_MergePatchLabels_ApplyPatch);

void BM_JsonPatchImage_ApplyPatch(benchmark::State& state) {
  for (auto _ : state) {
    Result<json::value> r = ApplyPatch(PatchType::kJsonPatch, "Pod", Pod(), kJsonPatchBody);
    if (!r.ok()) state.SkipWithError(r.status().message().c_str());
    benchmark::DoNotOptimize(r);
  }
}
BENCHMARK(BM_JsonPatchImage_ApplyPatch);

}  // namespace
}  // namespace svcplane::apiserver::patch

BENCHMARK_MAIN();
