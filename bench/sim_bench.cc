// sim_bench: the node simulator at scale against a real `svcplane serve` (started here as a
// child process on 127.0.0.1:0). Not a Google Benchmark binary; it prints a table:
//   - time to register N simulated Nodes,
//   - time from the first Pod create until all P Pods are Running and Ready (Pods and S
//     Services are created by --creators client threads while the simulator schedules and runs
//     them),
//   - server RSS (VmRSS and peak VmHWM) once everything is Ready,
//   - how long after that the EndpointSlices list every Ready Pod (the controllers' tail),
//   - steady-state CPU of the server and of this process (the simulator: N node Lease renewals
//     every 10 s) over --steady-seconds, opened once the slices have caught up.
// Usage: sim_bench --nodes 1000 --pods 30000 [--services 0] [--svcplane build/bin/svcplane]

#include <fmt/format.h>
#include <unistd.h>
#include <CLI/CLI.hpp>

#include <atomic>
#include <chrono>
#include <iostream>
#include <thread>
#include <vector>

#include "base/logging.h"
#include "bench/common/server_process.h"
#include "client/informers/informer_factory.h"
#include "client/transport/https_transport.h"
#include "client/transport/kubeconfig.h"
#include "client/typed/rest_clientset.h"
#include "sim/pod_status.h"
#include "sim/simulator.h"

namespace {

namespace core = svcplane::api::core::v1;
using SteadyClock = std::chrono::steady_clock;

double Seconds(SteadyClock::duration d) { return std::chrono::duration<double>(d).count(); }

core::Pod MakePod(int i, int services) {
  core::Pod p;
  p.metadata.namespace_ = "default";
  p.metadata.name = fmt::format("bench-{:06d}", i);
  p.metadata.labels["app"] = services > 0 ? fmt::format("svc-{:05d}", i % services) : "bench";
  core::Container c;
  c.name = "c";
  c.image = "registry.k8s.io/pause:3.9";
  core::ContainerPort port;
  port.container_port = 8080;
  port.protocol = "TCP";
  c.ports.push_back(port);
  p.spec.containers.push_back(c);
  return p;
}

core::Service MakeService(int i) {
  core::Service s;
  s.metadata.namespace_ = "default";
  s.metadata.name = fmt::format("svc-{:05d}", i);
  s.spec.selector["app"] = s.metadata.name;
  core::ServicePort port;
  port.port = 80;
  port.protocol = "TCP";
  port.target_port = svcplane::api::meta::IntOrString::FromInt(8080);
  s.spec.ports.push_back(port);
  return s;
}

// Runs `fn(i)` for i in [0, n) on `threads` threads; returns the number of failures.
template <typename Fn>
int64_t Parallel(int n, int threads, Fn fn) {
  std::atomic<int> next{0};
  std::atomic<int64_t> failures{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&] {
      for (int i = next++; i < n; i = next++) {
        if (!fn(i)) ++failures;
      }
    });
  }
  for (std::thread& t : pool) t.join();
  return failures;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace svcplane;
  CLI::App app{"svcplane node simulation benchmark"};
  std::string binary = SVCPLANE_BIN;
  int pods = 30000, services = 0, creators = 8, steady_seconds = 30, timeout_seconds = 600;
  sim::SimOptions opts;
  opts.nodes = 1000;
  opts.cluster_cidr = "10.0.0.0/8";  // room for 65,536 /24s
  opts.workers = 8;
  app.add_option("--svcplane", binary, "the svcplane binary");
  app.add_option("--nodes", opts.nodes, "simulated nodes");
  app.add_option("--pods", pods, "Pods to create");
  app.add_option("--services", services, "Services to create (Pods spread over them)");
  app.add_option("--creators", creators, "client threads creating Pods and Services");
  app.add_option("--workers", opts.workers, "simulator writers");
  app.add_option("--heartbeat-workers", opts.heartbeat_workers, "simulator Lease writers");
  app.add_option("--steady-seconds", steady_seconds, "steady-state CPU window");
  app.add_option("--timeout-seconds", timeout_seconds, "give up waiting for Ready after");
  bool recreate = false;
  app.add_flag("--recreate-binding", recreate,
               "bind by delete + create (RecreateBinder) instead of pods/binding");
  CLI11_PARSE(app, argc, argv);
  SetLogLevel("warn").IgnoreError();

  bench::ServerProcess server({.binary = binary, .dir_prefix = "svcplane-simbench"});
  server.Start();
  auto config = client::transport::LoadKubeconfig(server.kubeconfig_path(), "");
  if (!config.ok()) {
    std::cerr << config.status().ToString() << "\n";
    return 1;
  }
  config->qps = -1;
  auto https = client::transport::HttpsTransport::Create(*config);
  if (!https.ok()) {
    std::cerr << https.status().ToString() << "\n";
    return 1;
  }
  auto cs = client::typed::MakeRestClientset(
      std::shared_ptr<client::transport::HttpTransport>(std::move(*https)));
  auto factory = client::informers::MakeInformerFactory(*cs, {});
  client::informers::InformerFactory& informers = *factory;
  std::unique_ptr<sim::Binder> binder;
  if (recreate) binder = std::make_unique<sim::RecreateBinder>(*cs);
  auto simulator = std::make_unique<sim::Simulator>(*cs, informers, opts,
                                                    svcplane::RealClock::Get(), std::move(binder));
  informers.Start();

  const auto t_nodes = SteadyClock::now();
  if (Status st = simulator->Start(); !st.ok()) {
    std::cerr << "simulator: " << st.ToString() << "\n";
    return 1;
  }
  const double nodes_s = Seconds(SteadyClock::now() - t_nodes);

  const auto t_svc = SteadyClock::now();
  const int64_t svc_failures = Parallel(
      services, creators, [&](int i) { return cs->Services().Create(MakeService(i)).ok(); });
  const double services_s = Seconds(SteadyClock::now() - t_svc);

  const double ramp_srv0 = bench::ProcessCpuSeconds(server.pid()),
               ramp_self0 = bench::ProcessCpuSeconds(getpid());
  const auto t_pods = SteadyClock::now();
  std::atomic<double> created_s{0};
  std::atomic<int64_t> pod_failures{0};
  std::thread creator([&] {
    pod_failures = Parallel(pods, creators,
                            [&](int i) { return cs->Pods().Create(MakePod(i, services)).ok(); });
    created_s = Seconds(SteadyClock::now() - t_pods);
  });
  auto count_ready = [&] {
    int64_t n = 0;
    for (const auto& p : informers.Pods().lister().List("default")) {
      if (!p->spec.node_name.empty() && sim::IsPodReady(*p)) ++n;
    }
    return n;
  };
  int64_t ready = 0;
  const auto deadline = t_pods + std::chrono::seconds(timeout_seconds);
  while ((ready = count_ready()) < pods - pod_failures && SteadyClock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
  const double ready_s = Seconds(SteadyClock::now() - t_pods);
  creator.join();
  const double ramp_srv = bench::ProcessCpuSeconds(server.pid()) - ramp_srv0;
  const double ramp_self = bench::ProcessCpuSeconds(getpid()) - ramp_self0;
  const long rss_kb = bench::ProcessStatusKb(server.pid(), "VmRSS:");
  const long hwm_kb = bench::ProcessStatusKb(server.pid(), "VmHWM:");

  // The controllers' tail: until every Ready Pod is a ready endpoint of its Service's slices,
  // the server still works on them, and a steady window opened now would count that work.
  const auto t_caught_up = SteadyClock::now();
  int64_t ready_endpoints = 0;
  if (services > 0) {
    auto& slices = informers.EndpointSlices();
    informers.Start();
    auto count_endpoints = [&] {
      int64_t n = 0;
      for (const auto& s : slices.lister().List("default")) {
        auto svc = s->metadata.labels.find("kubernetes.io/service-name");
        // Our Services only: the `kubernetes` Service's slice lists the server itself.
        if (svc == s->metadata.labels.end() || svc->second.rfind("svc-", 0) != 0) continue;
        for (const auto& e : s->endpoints) n += e.conditions.ready.value_or(false) ? 1 : 0;
      }
      return n;
    };
    while ((ready_endpoints = count_endpoints()) < ready && SteadyClock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(250));
    }
  }
  const double caught_up_s = Seconds(SteadyClock::now() - t_caught_up);

  // Steady state: nothing changes but Lease renewals (and the lifecycle monitor's scans).
  const auto sim_before = simulator->Stats();
  const double srv0 = bench::ProcessCpuSeconds(server.pid()),
               self0 = bench::ProcessCpuSeconds(getpid());
  std::this_thread::sleep_for(std::chrono::seconds(steady_seconds));
  const double srv1 = bench::ProcessCpuSeconds(server.pid()),
               self1 = bench::ProcessCpuSeconds(getpid());
  const auto sim_after = simulator->Stats();

  fmt::print("| metric | value |\n|---|---|\n");
  fmt::print("| nodes registered | {} in {:.1f} s |\n", opts.nodes, nodes_s);
  if (services > 0) {
    fmt::print("| services created | {} in {:.1f} s ({} failed) |\n", services, services_s,
               svc_failures);
  }
  fmt::print("| pods created | {} in {:.1f} s ({} failed) |\n", pods, created_s.load(),
             pod_failures.load());
  fmt::print("| pods Running+Ready | {} of {} {:.1f} s after the first create{} |\n", ready, pods,
             ready_s, ready < pods - pod_failures ? " (TIMED OUT)" : "");
  fmt::print(
      "| CPU until all Ready: server / this process (creators + simulator) | {:.0f} s / "
      "{:.0f} s ({:.0f}% / {:.0f}% of one core) |\n",
      ramp_srv, ramp_self, 100.0 * ramp_srv / ready_s, 100.0 * ramp_self / ready_s);
  if (services > 0) {
    fmt::print(
        "| slices list every Ready Pod as a ready endpoint | {} of {}, {:.1f} s after all "
        "Ready |\n",
        ready_endpoints, ready, caught_up_s);
  }
  fmt::print("| server RSS when all Ready | {:.0f} MiB (peak {:.0f} MiB) |\n", rss_kb / 1024.0,
             hwm_kb / 1024.0);
  fmt::print("| steady state ({} s): Lease renewals | {} ({:.0f}/s) |\n", steady_seconds,
             sim_after.heartbeats.renewals - sim_before.heartbeats.renewals,
             (sim_after.heartbeats.renewals - sim_before.heartbeats.renewals) /
                 static_cast<double>(steady_seconds));
  fmt::print("| steady state: server CPU | {:.1f}% of one core |\n",
             100.0 * (srv1 - srv0) / steady_seconds);
  fmt::print("| steady state: simulator CPU | {:.1f}% of one core |\n",
             100.0 * (self1 - self0) / steady_seconds);
  fmt::print("| simulator write errors | {} |\n", sim_after.write_errors);
  std::fflush(stdout);

  simulator->Shutdown();
  informers.Shutdown();
  simulator.reset();
  return ready < pods - pod_failures ? 1 : 0;
}
