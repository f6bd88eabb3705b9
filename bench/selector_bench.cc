// Parse and match costs of label and field selectors. Matching runs for every object of a
// list/watch, so it must stay allocation-free and in the tens of nanoseconds.

#include <array>
#include <string>

#include "api/selectors/field_selector.h"
#include "api/selectors/label_selector.h"
#include "benchmark/benchmark.h"

namespace {

using svcplane::api::meta::StringMap;
using svcplane::api::selectors::FieldSelector;
using svcplane::api::selectors::FieldValue;
using svcplane::api::selectors::LabelSelector;
using svcplane::api::selectors::ParseFieldSelector;
using svcplane::api::selectors::ParseLabelSelector;
using svcplane::api::selectors::SelectorFromSet;

constexpr const char* kComplex = "app in (web,api),tier!=db,!canary,kubernetes.io/os=linux,rev>3";

StringMap PodLabels() {
  return {{"app", "web"},
          {"tier", "frontend"},
          {"kubernetes.io/os", "linux"},
          {"pod-template-hash", "5d8f7c9b6"},
          {"rev", "7"},
          {"team", "platform"}};
}

void BM_ParseLabelSimple(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(ParseLabelSelector("app=web"));
}
BENCHMARK(BM_ParseLabelSimple);

void BM_ParseLabelComplex(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(ParseLabelSelector(kComplex));
}
BENCHMARK(BM_ParseLabelComplex);

void BM_MatchLabelEquality(benchmark::State& state) {
  LabelSelector sel = *ParseLabelSelector("app=web");
  StringMap labels = PodLabels();
  for (auto _ : state) benchmark::DoNotOptimize(sel.Matches(labels));
}
BENCHMARK(BM_MatchLabelEquality);

void BM_MatchLabelComplex(benchmark::State& state) {
  LabelSelector sel = *ParseLabelSelector(kComplex);
  StringMap labels = PodLabels();
  for (auto _ : state) benchmark::DoNotOptimize(sel.Matches(labels));
}
BENCHMARK(BM_MatchLabelComplex);

void BM_MatchServiceSelector(benchmark::State& state) {
  LabelSelector sel = SelectorFromSet({{"app", "web"}, {"tier", "frontend"}});
  StringMap labels = PodLabels();
  for (auto _ : state) benchmark::DoNotOptimize(sel.Matches(labels));
}
BENCHMARK(BM_MatchServiceSelector);

void BM_ParseField(benchmark::State& state) {
  for (auto _ : state) {
    benchmark::DoNotOptimize(
        ParseFieldSelector("spec.nodeName=n1,status.phase!=Succeeded,status.phase!=Failed"));
  }
}
BENCHMARK(BM_ParseField);

void BM_MatchField(benchmark::State& state) {
  FieldSelector sel =
      *ParseFieldSelector("spec.nodeName=n1,status.phase!=Succeeded,status.phase!=Failed");
  std::array<FieldValue, 5> fields = {{{"metadata.name", "web-0"},
                                       {"metadata.namespace", "default"},
                                       {"spec.nodeName", "n1"},
                                       {"spec.restartPolicy", "Always"},
                                       {"status.phase", "Running"}}};
  for (auto _ : state) benchmark::DoNotOptimize(sel.Matches(fields));
}
BENCHMARK(BM_MatchField);

}  // namespace

BENCHMARK_MAIN();
