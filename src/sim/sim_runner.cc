// sim_runner: the simulator against any API server through a kubeconfig, for tests and benches
// until `svcplane simulate` is wired in src/cmd. Reads commands on stdin, one per line:
//   stop ZONE | resume ZONE | stop-node NODE | resume-node NODE | stats | quit
// and answers each with one line on stdout. Prints "ready" once every Node is registered.

#include <CLI/CLI.hpp>

#include <algorithm>
#include <csignal>
#include <iostream>
#include <sstream>
#include <string>

#include "base/logging.h"
#include "client/informers/informer_factory.h"
#include "client/transport/https_transport.h"
#include "client/transport/kubeconfig.h"
#include "client/typed/rest_clientset.h"
#include "sim/simulator.h"

namespace {

std::string StatsLine(const svcplane::sim::SimStats& s) {
  std::ostringstream out;
  out << "nodes=" << s.nodes_registered << " bound=" << s.pods_bound
      << " status_writes=" << s.pod_status_writes << " deleted=" << s.pods_deleted
      << " killing_events=" << s.killing_events << " nodes_unknown=" << s.nodes_marked_unknown
      << " pods_not_ready=" << s.pods_marked_not_ready << " errors=" << s.write_errors
      << " renewals=" << s.heartbeats.renewals << " renew_failures=" << s.heartbeats.failures
      << " renew_skipped=" << s.heartbeats.skipped;
  return out.str();
}

}  // namespace

int main(int argc, char** argv) {
  using namespace svcplane;
  CLI::App app{"svcplane node simulator (kwok-like) against a kubeconfig"};
  std::string kubeconfig;
  std::string log_level = "warn";
  double qps = -1;
  sim::SimOptions opts;
  int64_t grace_ms = opts.node_monitor_grace.count();
  int64_t period_ms = opts.node_monitor_period.count();
  int64_t heartbeat_ms = opts.heartbeat_interval.count();
  int64_t create_ms = opts.pod_create_delay.count();
  int64_t ready_ms = opts.pod_ready_delay.count();
  int64_t terminate_ms = opts.pod_terminate_delay.count();
  app.add_option("--kubeconfig", kubeconfig, "kubeconfig of the API server")->required();
  app.add_option("--nodes", opts.nodes, "number of simulated nodes");
  app.add_option("--cluster-cidr", opts.cluster_cidr,
                 "split into one /24 podCIDR per node (a /16 fits 256 nodes)");
  app.add_option("--zones", opts.zones, "zones the nodes are spread over");
  app.add_option("--workers", opts.workers, "concurrent Pod/Node writers");
  app.add_option("--heartbeat-workers", opts.heartbeat_workers, "concurrent Lease writers");
  app.add_option("--heartbeat-interval-ms", heartbeat_ms, "Lease renewal interval");
  app.add_option("--node-monitor-grace-ms", grace_ms, "silence before Ready=Unknown");
  app.add_option("--node-monitor-period-ms", period_ms, "lifecycle check period");
  app.add_option("--pod-create-delay-ms", create_ms, "bound -> ContainerCreating delay");
  app.add_option("--pod-ready-delay-ms", ready_ms, "ContainerCreating -> Running/Ready delay");
  app.add_option("--pod-terminate-delay-ms", terminate_ms, "terminating -> deleted delay");
  app.add_option("--qps", qps, "client-side rate limit; negative: none");
  app.add_option("--log-level", log_level, "trace|debug|info|warn|error");
  CLI11_PARSE(app, argc, argv);
  if (Status st = SetLogLevel(log_level); !st.ok()) {
    std::cerr << st.ToString() << "\n";
    return 2;
  }
  opts.node_monitor_grace = std::chrono::milliseconds(grace_ms);
  opts.node_monitor_period = std::chrono::milliseconds(period_ms);
  opts.heartbeat_interval = std::chrono::milliseconds(heartbeat_ms);
  opts.pod_create_delay = std::chrono::milliseconds(create_ms);
  opts.pod_ready_delay = std::chrono::milliseconds(ready_ms);
  opts.pod_terminate_delay = std::chrono::milliseconds(terminate_ms);

  // kwok runs with a high client QPS too: client-go's default 5 qps would take minutes to
  // register a thousand nodes.
  auto config = client::transport::LoadKubeconfig(kubeconfig, "");
  if (!config.ok()) {
    std::cerr << "sim_runner: " << config.status().ToString() << "\n";
    return 1;
  }
  config->qps = qps;
  config->burst = std::max(10, static_cast<int>(qps));
  auto https = client::transport::HttpsTransport::Create(*config);
  if (!https.ok()) {
    std::cerr << "sim_runner: " << https.status().ToString() << "\n";
    return 1;
  }
  auto cs = client::typed::MakeRestClientset(
      std::shared_ptr<client::transport::HttpTransport>(std::move(*https)));
  std::signal(SIGPIPE, SIG_IGN);
  auto factory = client::informers::MakeInformerFactory(*cs, {});
  client::informers::InformerFactory& informers = *factory;
  auto simulator = std::make_unique<sim::Simulator>(*cs, informers, opts);
  informers.Start();
  if (Status st = simulator->Start(); !st.ok()) {
    std::cerr << "sim_runner: " << st.ToString() << "\n";
    informers.Shutdown();
    return 1;
  }
  std::cout << "ready" << std::endl;

  std::string line;
  while (std::getline(std::cin, line)) {
    std::istringstream in(line);
    std::string cmd, arg;
    in >> cmd >> arg;
    if (cmd == "stop") {
      simulator->StopHeartbeats(arg);
    } else if (cmd == "resume") {
      simulator->ResumeHeartbeats(arg);
    } else if (cmd == "stop-node") {
      simulator->StopNodeHeartbeats(arg);
    } else if (cmd == "resume-node") {
      simulator->ResumeNodeHeartbeats(arg);
    } else if (cmd == "stats") {
      std::cout << StatsLine(simulator->Stats()) << std::endl;
      continue;
    } else if (cmd == "quit") {
      break;
    } else if (!cmd.empty()) {
      std::cout << "error: unknown command " << cmd << std::endl;
      continue;
    }
    if (!cmd.empty()) std::cout << "ok" << std::endl;
  }
  simulator->Shutdown();
  informers.Shutdown();
  simulator.reset();
  return 0;
}
