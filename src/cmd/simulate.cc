#include "cmd/simulate.h"

#include <pthread.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <csignal>
#include <iostream>
#include <memory>

#include "base/go_duration.h"
#include "client/informers/informer_factory.h"
#include "client/transport/failover_transport.h"
#include "client/transport/kubeconfig.h"
#include "client/typed/rest_clientset.h"
#include "sim/simulator.h"

namespace svcplane::cmd {

namespace {

void AddDurationFlag(CLI::App& app, const std::string& name, std::chrono::milliseconds& into,
                     const std::string& help) {
  app.add_option_function<std::string>(
         name,
         [&into](const std::string& text) {
           // Checked below before this runs.
           into = std::chrono::duration_cast<std::chrono::milliseconds>(*ParseGoDuration(text));
         },
         help)
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            auto d = ParseGoDuration(text);
            if (!d.ok()) return d.status().message();
            if (*d < Duration::zero()) return "must not be negative";
            return "";
          },
          ""))
      ->type_name("DURATION")
      ->default_str(FormatGoDuration(into));
}

}  // namespace

void AddSimPodDelayFlags(CLI::App& app, const std::string& prefix, sim::SimOptions& opts) {
  const std::string flag = "--" + prefix + "pod-";
  AddDurationFlag(app, flag + "create-delay", opts.pod_create_delay,
                  "kubelet stand-in: this long after a Pod is bound (plus up to " + flag +
                      "create-jitter), it shows its containers being created: phase Pending, "
                      "podIP, containers waiting (ContainerCreating), Ready False");
  AddDurationFlag(app, flag + "create-jitter", opts.pod_create_jitter,
                  "random extra create delay per Pod, up to this much; none by default to "
                  "keep tests fast (kwok uses 1s + up to 5s)");
  AddDurationFlag(app, flag + "ready-delay", opts.pod_ready_delay,
                  "this long after the create stage (plus up to " + flag +
                      "ready-jitter), the Pod is Running and Ready; a Pod's annotation "
                      "sim.svcplane.io/ready-after (a duration such as 2s, or never) overrides "
                      "it");
  AddDurationFlag(app, flag + "ready-jitter", opts.pod_ready_jitter,
                  "random extra ready delay per Pod, up to this much; none by default (kwok: "
                  "1s + up to 5s)");
  AddDurationFlag(app, flag + "terminate-delay", opts.pod_terminate_delay,
                  "a Pod being deleted stays Running and Ready (serving, terminating) this long "
                  "(plus up to " +
                      flag +
                      "terminate-jitter, but never past its grace period), then is deleted with "
                      "grace 0");
  AddDurationFlag(app, flag + "terminate-jitter", opts.pod_terminate_jitter,
                  "random extra terminate delay per Pod, up to this much; none by default");
}

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
  AddSimPodDelayFlags(*c, "", f.options);
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
