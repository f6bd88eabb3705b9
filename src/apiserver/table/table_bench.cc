// kubectl get pods on a 500-pod namespace: the cost of turning typed objects into a Table.
#include <benchmark/benchmark.h>

#include "api/codec/json.h"
#include "apiserver/table/accept.h"
#include "apiserver/table/table.h"

namespace svcplane::apiserver::table {
namespace {

std::vector<api::core::v1::Pod> MakePods(int n) {
  std::vector<api::core::v1::Pod> pods(n);
  for (int i = 0; i < n; ++i) {
    auto& p = pods[i];
    p.kind = "Pod";
    p.api_version = "v1";
    p.metadata.name = "web-" + std::to_string(i);
    p.metadata.namespace_ = "default";
    p.metadata.uid = "0d3c1c44-6f0b-4a43-9d7e-" + std::to_string(100000000000 + i);
    p.metadata.resource_version = std::to_string(1000 + i);
    p.metadata.creation_timestamp = api::meta::Time::FromUnix(1700000000 - 3600);
    p.metadata.labels = {{"app", "web"}, {"pod-template-hash", "5d7f9c6b8d"}};
    p.spec.containers.resize(1);
    p.spec.containers[0].name = "app";
    p.spec.containers[0].image = "nginx:1.25";
    p.spec.node_name = "node-" + std::to_string(i % 20);
    p.status.phase = "Running";
    p.status.pod_ips = {api::core::v1::PodIP{
        "10.0." + std::to_string(i / 250) + "." + std::to_string(i % 250), {}}};
    p.status.rest->container_statuses = {api::meta::RawJson{
        R"({"name":"app","ready":true,"restartCount":1,"started":true,"state":{"running":)"
        R"({"startedAt":"2023-11-14T21:00:00Z"}},"lastState":{"terminated":{"exitCode":1,)"
        R"("finishedAt":"2023-11-14T20:59:00Z"}}})"}};
  }
  return pods;
}

void BM_PodListTable(benchmark::State& state) {
  auto pods = MakePods(static_cast<int>(state.range(0)));
  std::vector<std::string> json;
  for (const auto& p : pods) json.push_back(api::codec::EncodeJson(p));
  std::vector<TableItem<api::core::v1::Pod>> items;
  for (size_t i = 0; i < pods.size(); ++i) items.push_back({&pods[i], json[i]});
  TableOptions opt;
  opt.now = std::chrono::system_clock::from_time_t(1700000000);
  api::meta::ListMeta lm;
  lm.resource_version = "12345";
  size_t bytes = 0;
  for (auto _ : state) {
    std::string out = EncodeListTable<api::core::v1::Pod>(items, lm, opt);
    bytes += out.size();
    benchmark::DoNotOptimize(out);
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
}
BENCHMARK(BM_PodListTable)->Arg(500);

void BM_NegotiateKubectlGet(benchmark::State& state) {
  for (auto _ : state) {
    benchmark::DoNotOptimize(NegotiateResponse(
        "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;"
        "g=meta.k8s.io,application/json"));
  }
}
BENCHMARK(BM_NegotiateKubectlGet);

}  // namespace
}  // namespace svcplane::apiserver::table

BENCHMARK_MAIN();
