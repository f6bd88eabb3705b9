// Propagation delay through the EndpointSlice controller, in-process: the real registries over a
// memory store behind the loopback Clientset, real informers, the real controller. S Services ×
// P Pods are created and converged; then Pod readiness flips are written through the status
// subresource at R per second for D seconds, and a separate watcher (its own informer on
// EndpointSlices) records when each flip shows up in a slice. Prints p50 / p99 / max of
// "Pod status write → slice event at the watcher". No HTTP: this measures the controller path.
//
//   build/bench/propagation_bench --services 10000 --pods 10 --rate 1000 --seconds 10

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <map>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

#include "apiserver/loopback/testing/memory_clientset.h"
#include "client/informers/informer_factory.h"
#include "controllers/endpointslice/controller.h"
#include "controllers/endpointslice/testing/fixtures.h"

using namespace svcplane;
using Steady = std::chrono::steady_clock;

int main(int argc, char** argv) {
  CLI::App app("EndpointSlice controller propagation delay (in-process)");
  int services = 1000, pods_per = 10, rate = 1000, seconds = 5, workers = 5;
  app.add_option("--services", services);
  app.add_option("--pods", pods_per);
  app.add_option("--rate", rate, "readiness flips per second");
  app.add_option("--seconds", seconds);
  app.add_option("--workers", workers, "--concurrent-service-endpoint-syncs");
  CLI11_PARSE(app, argc, argv);
  spdlog::set_level(spdlog::level::warn);

  apiserver::loopback::testing::MemoryClientset api;
  api.CreateNamespace("ns");
  auto& clients = api.clients();
  if (!clients.Nodes().Create(controllers::endpointslice::testing::MakeNode("node-1", "a")).ok()) {
    return 1;
  }
  const auto setup_start = Steady::now();
  for (int s = 0; s < services; ++s) {
    auto svc = controllers::endpointslice::testing::MakeService("svc-" + std::to_string(s));
    svc.spec.cluster_ip.clear();
    svc.spec.cluster_ips.clear();
    svc.spec.cluster_ip = "None";  // headless: no IP allocation needed in-process
    if (!clients.Services().Create(svc).ok()) return 1;
    for (int p = 0; p < pods_per; ++p) {
      const int i = s * pods_per + p;
      auto pod = controllers::endpointslice::testing::MakePod(i);
      pod.metadata.labels = {{"app", "svc-" + std::to_string(s)}};
      for (auto& c : pod.spec.containers) c.image = "nginx:1.25";
      auto created = clients.Pods().Create(pod);
      if (!created.ok()) return 1;
      api::core::v1::Pod with_status = **created;
      with_status.status = pod.status;
      if (!clients.Pods().UpdateStatus(with_status).ok()) return 1;
    }
  }
  const double setup_s = std::chrono::duration<double>(Steady::now() - setup_start).count();

  auto informers = client::informers::MakeInformerFactory(clients, {});
  auto watcher = client::informers::MakeInformerFactory(clients, {});
  controllers::endpointslice::LoggingEventSink events;
  MetricsRegistry metrics;
  controllers::endpointslice::EndpointSliceControllerOptions options;
  options.workers = workers;
  controllers::endpointslice::EndpointSliceController controller(
      *informers, clients, events, &metrics, RealClock::Get(), options);

  // Pending flips: pod name -> (write time, expected ready).
  std::mutex mu;
  std::map<std::string, std::pair<Steady::time_point, bool>> pending;
  std::vector<double> latencies_ms;
  std::atomic<int64_t> ready_endpoints{0};
  client::informers::ResourceEventHandler<api::discovery::v1::EndpointSlice> h;
  auto observe = [&](const client::ObjectPtr<api::discovery::v1::EndpointSlice>& s) {
    const auto now = Steady::now();
    std::lock_guard<std::mutex> l(mu);
    for (const auto& e : s->endpoints) {
      if (!e.target_ref) continue;
      auto it = pending.find(e.target_ref->name);
      if (it == pending.end() || e.conditions.ready != it->second.second) continue;
      latencies_ms.push_back(
          std::chrono::duration<double, std::milli>(now - it->second.first).count());
      pending.erase(it);
    }
  };
  h.on_add = [&](const client::ObjectPtr<api::discovery::v1::EndpointSlice>& s, bool) {
    ready_endpoints += static_cast<int64_t>(s->endpoints.size());
    observe(s);
  };
  h.on_update = [&](const client::ObjectPtr<api::discovery::v1::EndpointSlice>& o,
                    const client::ObjectPtr<api::discovery::v1::EndpointSlice>& s) {
    ready_endpoints +=
        static_cast<int64_t>(s->endpoints.size()) - static_cast<int64_t>(o->endpoints.size());
    observe(s);
  };
  watcher->EndpointSlices().AddEventHandler(h);

  const auto converge_start = Steady::now();
  informers->Start();
  watcher->Start();
  controller.Run();
  const int64_t total = static_cast<int64_t>(services) * pods_per;
  while (ready_endpoints.load() < total) {
    if (Steady::now() - converge_start > std::chrono::minutes(10)) {
      std::fprintf(stderr, "did not converge: %lld of %lld endpoints\n",
                   static_cast<long long>(ready_endpoints.load()), static_cast<long long>(total));
      return 1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  const double converge_s = std::chrono::duration<double>(Steady::now() - converge_start).count();

  // Flip readiness at `rate` per second (each flip: GET + PUT status).
  std::mt19937 rng(42);
  std::map<int, bool> ready_state;
  const int flips = rate * seconds;
  const auto flip_start = Steady::now();
  int written = 0;
  for (int k = 0; k < flips; ++k) {
    const auto due = flip_start + std::chrono::microseconds(int64_t{1000000} * k / rate);
    std::this_thread::sleep_until(due);
    const int i = static_cast<int>(rng() % static_cast<unsigned>(total));
    const std::string name = "pod-" + std::to_string(i);
    {
      std::lock_guard<std::mutex> l(mu);
      if (pending.contains(name)) continue;  // still in flight: pick another next time
    }
    auto cur = clients.Pods().Get("ns", name);
    if (!cur.ok()) continue;
    api::core::v1::Pod p = **cur;
    bool& ready = ready_state.try_emplace(i, true).first->second;
    ready = !ready;
    p.status.conditions[0].status = ready ? "True" : "False";
    {
      std::lock_guard<std::mutex> l(mu);
      pending[name] = {Steady::now(), ready};
    }
    if (!clients.Pods().UpdateStatus(p).ok()) {
      std::lock_guard<std::mutex> l(mu);
      pending.erase(name);
      continue;
    }
    ++written;
  }
  const double flip_s = std::chrono::duration<double>(Steady::now() - flip_start).count();
  const auto drain_deadline = Steady::now() + std::chrono::seconds(30);
  while (Steady::now() < drain_deadline) {
    {
      std::lock_guard<std::mutex> l(mu);
      if (pending.empty()) break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  controller.Shutdown();
  informers->Shutdown();
  watcher->Shutdown();

  std::lock_guard<std::mutex> l(mu);
  std::sort(latencies_ms.begin(), latencies_ms.end());
  auto pct = [&](double q) {
    if (latencies_ms.empty()) return 0.0;
    return latencies_ms[std::min(
        latencies_ms.size() - 1,
        static_cast<size_t>(q * static_cast<double>(latencies_ms.size())))];
  };
  std::printf("services=%d pods/service=%d workers=%d\n", services, pods_per, workers);
  std::printf("setup (objects through the API)      %8.2f s\n", setup_s);
  std::printf("initial convergence (%lld endpoints)  %8.2f s\n", static_cast<long long>(total),
              converge_s);
  std::printf("flips written %d in %.2f s (%.0f/s)\n", written, flip_s, written / flip_s);
  std::printf("propagation p50 %.2f ms  p99 %.2f ms  max %.2f ms  observed %zu  missing %zu\n",
              pct(0.50), pct(0.99), latencies_ms.empty() ? 0.0 : latencies_ms.back(),
              latencies_ms.size(), pending.size());
  return pending.empty() ? 0 : 2;
}
