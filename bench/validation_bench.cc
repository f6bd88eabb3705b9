// Cost of defaulting + validating the objects the control plane writes most: EndpointSlices
// (every endpoint change), Pods (every status change) and Services. Validation runs on every
// write, so it should stay well below the cost of encoding and storing the object.

#include <string>

#include "api/validation/defaults.h"
#include "api/validation/strategy.h"
#include "api/validation/validation.h"
#include "benchmark/benchmark.h"

namespace {

namespace v = svcplane::api::validation;
namespace core = svcplane::api::core::v1;
namespace discovery = svcplane::api::discovery::v1;

discovery::EndpointSlice MakeSlice(int endpoints) {
  discovery::EndpointSlice slice;
  slice.metadata.name = "web-x7k2p";
  slice.metadata.namespace_ = "default";
  slice.metadata.resource_version = "10";
  slice.metadata.labels = {
      {"kubernetes.io/service-name", "web"},
      {"endpointslice.kubernetes.io/managed-by", "endpointslice-controller.k8s.io"}};
  slice.address_type = "IPv4";
  for (int i = 0; i < endpoints; ++i) {
    discovery::Endpoint ep;
    ep.addresses = {"10.1." + std::to_string(i / 250) + "." + std::to_string(i % 250 + 1)};
    ep.conditions.ready = true;
    ep.node_name = "node-" + std::to_string(i % 50);
    ep.zone = "zone-a";
    ep.target_ref = svcplane::api::meta::ObjectReference{};
    ep.target_ref->kind = "Pod";
    ep.target_ref->name = "web-" + std::to_string(i);
    slice.endpoints.push_back(std::move(ep));
  }
  discovery::EndpointPort port;
  port.name = "http";
  port.port = 8080;
  slice.ports = std::vector<discovery::EndpointPort>{port};
  v::Default(slice);
  return slice;
}

void BM_ValidateEndpointSliceCreate(benchmark::State& state) {
  discovery::EndpointSlice slice = MakeSlice(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    auto errs = v::ValidateCreate(slice);
    benchmark::DoNotOptimize(errs);
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_ValidateEndpointSliceCreate)->Arg(1)->Arg(100)->Arg(1000);

void BM_EndpointSliceUpdatePath(benchmark::State& state) {
  discovery::EndpointSlice old = MakeSlice(100);
  discovery::EndpointSlice updated = old;
  updated.endpoints[0].conditions.ready = false;
  for (auto _ : state) {
    discovery::EndpointSlice slice = updated;
    v::Default(slice);
    v::PrepareForUpdate(slice, old);
    auto errs = v::ValidateCommonUpdate(slice.metadata, old.metadata, true);
    auto kind_errs = v::ValidateUpdate(slice, old);
    benchmark::DoNotOptimize(errs);
    benchmark::DoNotOptimize(kind_errs);
  }
}
BENCHMARK(BM_EndpointSliceUpdatePath);

core::Pod MakePod() {
  core::Pod pod;
  pod.metadata.name = "web-5d8f7c9b6-abcde";
  pod.metadata.namespace_ = "default";
  pod.metadata.resource_version = "10";
  pod.metadata.labels = {{"app", "web"}, {"pod-template-hash", "5d8f7c9b6"}};
  pod.metadata.owner_references.push_back(
      {"apps/v1", "ReplicaSet", "web-5d8f7c9b6", "uid-1", true, true, {}});
  core::Container c;
  c.name = "web";
  c.image = "nginx:1.25";
  c.rest->resources.text = R"({"limits":{"cpu":"1","memory":"1Gi"}})";
  core::ContainerPort p;
  p.name = "http";
  p.container_port = 8080;
  c.ports.push_back(p);
  pod.spec.containers.push_back(c);
  pod.spec.node_name = "node-1";
  v::Default(pod);
  v::PrepareForCreate(pod);
  return pod;
}

void BM_PodCreatePath(benchmark::State& state) {
  core::Pod base = MakePod();
  for (auto _ : state) {
    core::Pod pod = base;
    v::Default(pod);
    v::PrepareForCreate(pod);
    auto errs = v::ValidateCreate(pod);
    benchmark::DoNotOptimize(errs);
  }
}
BENCHMARK(BM_PodCreatePath);

void BM_PodStatusUpdatePath(benchmark::State& state) {
  core::Pod old = MakePod();
  core::Pod updated = old;
  updated.status.phase = "Running";
  updated.status.pod_ip = "10.1.2.3";
  updated.status.pod_ips = {{"10.1.2.3", {}}};
  for (auto _ : state) {
    core::Pod pod = updated;
    v::PrepareForStatusUpdate(pod, old);
    auto errs = v::ValidateStatusUpdate(pod, old);
    benchmark::DoNotOptimize(errs);
  }
}
BENCHMARK(BM_PodStatusUpdatePath);

void BM_ServiceCreatePath(benchmark::State& state) {
  core::Service base;
  base.metadata.name = "web";
  base.metadata.namespace_ = "default";
  base.spec.selector = {{"app", "web"}};
  base.spec.ports.resize(2);
  base.spec.ports[0].name = "http";
  base.spec.ports[0].port = 80;
  base.spec.ports[1].name = "https";
  base.spec.ports[1].port = 443;
  for (auto _ : state) {
    core::Service svc = base;
    v::Default(svc);
    v::PrepareForCreate(svc);
    svc.spec.cluster_ip = "10.96.0.10";  // what the allocator would fill in
    svc.spec.cluster_ips = {"10.96.0.10"};
    svc.spec.ip_families = {"IPv4"};
    svc.spec.ip_family_policy = "SingleStack";
    auto errs = v::ValidateCreate(svc);
    benchmark::DoNotOptimize(errs);
  }
}
BENCHMARK(BM_ServiceCreatePath);

}  // namespace

BENCHMARK_MAIN();
