#include "cmd/simulate.h"

#include <pthread.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <csignal>
#include <iostream>
#include <memory>

#include "client/informers/informer_factory.h"
#include "client/transport/failover_transport.h"
#include "client/transport/kubeconfig.h"
#include "client/typed/rest_clientset.h"
#include "sim/simulator.h"

namespace svcplane::cmd {

CLI::App* AddSimulateCommand(CLI::App& app, SimulateFlags& f) {
  auto* c = app.add_subcommand(
      "simulate", "Simulate kwok-like nodes (scheduler, kubelet stand-in) against an API server");
  c->add_option("--kubeconfig", f.kubeconfig, "kubeconfig of the API server")->required();
  c->add_option("--context", f.context, "kubeconfig context (default: current-context)");
  c->add_option("--server", f.servers,
                "API server URL, replacing the kubeconfig's; repeat it (or separate with commas) "
                "for several servers of one HA cluster: the client sticks to one and fails over "
                "to the next")
      ->take_all();
  c->add_option("--kube-api-content-type", f.kube_api_content_type,
                "content type of requests sent to the API server")
      ->check(CLI::IsMember({"application/vnd.kubernetes.protobuf", "application/json"}))
      ->capture_default_str();
  c->add_option("--nodes", f.options.nodes, "number of simulated nodes")->capture_default_str();
  c->add_option("--cluster-cidr", f.options.cluster_cidr,
                "Pod CIDR split into one /24 per node (a /16 fits 256 nodes)")
      ->capture_default_str();
  c->add_option("--zones", f.options.zones, "zones the nodes are spread over")
      ->delimiter(',')
      ->capture_default_str();
  c->add_option("--kube-api-qps", f.kube_api_qps, "client-side rate limit; negative: none")
      ->capture_default_str();
  return c;
}

int RunSimulate(SimulateFlags& f) {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);  // every thread started below inherits it

  auto config = client::transport::LoadKubeconfig(f.kubeconfig, f.context);
  if (!config.ok()) {
    std::cerr << "svcplane simulate: " << config.status().message() << "\n";
    return 1;
  }
  if (Status st = client::transport::OverrideServers(f.servers, &*config); !st.ok()) {
    std::cerr << "svcplane simulate: " << st.message() << "\n";
    return 1;
  }
  config->qps = f.kube_api_qps;
  config->burst = std::max(10, static_cast<int>(f.kube_api_qps));
  config->user_agent = "svcplane-simulator";
  auto transport = client::transport::NewHttpTransport(*config);
  if (!transport.ok()) {
    std::cerr << "svcplane simulate: " << transport.status().message() << "\n";
    return 1;
  }
  auto content_type = client::transport::ParseContentType(f.kube_api_content_type);
  if (!content_type.ok()) {
    std::cerr << "svcplane simulate: " << content_type.status().message() << "\n";
    return 1;
  }
  auto cs =
      client::typed::MakeRestClientset(std::move(*transport), {.content_type = *content_type});
  auto informers = client::informers::MakeInformerFactory(*cs, {});
  auto simulator = std::make_unique<sim::Simulator>(*cs, *informers, f.options);
  informers->Start();
  int code = 0;
  if (Status st = simulator->Start(); !st.ok()) {
    std::cerr << "svcplane simulate: " << st.message() << "\n";
    code = 1;
  } else {
    spdlog::info("simulating {} nodes", f.options.nodes);
    int sig = 0;
    sigwait(&signals, &sig);
    spdlog::info("received {}, shutting down", sig == SIGTERM ? "SIGTERM" : "SIGINT");
  }
  simulator->Shutdown();
  informers->Shutdown();
  return code;
}

}  // namespace svcplane::cmd
