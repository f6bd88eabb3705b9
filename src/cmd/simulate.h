#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "sim/sim_options.h"

namespace svcplane::cmd {

// `svcplane simulate --kubeconfig FILE --nodes N`: simulated nodes against any API server.
struct SimulateFlags {
  std::string kubeconfig;
  std::string context;
  std::vector<std::string> servers;  // --server, as `svcplane controllers`
  std::string kube_api_content_type = "application/vnd.kubernetes.protobuf";
  double kube_api_qps = -1;  // kwok-like: no client-side limit unless asked
  sim::SimOptions options;
};

CLI::App* AddSimulateCommand(CLI::App& app, SimulateFlags& flags);

// The kubelet stand-in's delays (SimOptions::pod_*_delay/_jitter) as Go-duration flags named
// `--<prefix>pod-create-delay` and so on, written into `opts` as they are parsed. Shared by
// `svcplane simulate` (no prefix) and `svcplane serve` (prefix "simulate-").
void AddSimPodDelayFlags(CLI::App& app, const std::string& prefix, sim::SimOptions& opts);
// Runs until SIGTERM/SIGINT (exit 0); 1 if the simulator cannot start.
int RunSimulate(SimulateFlags& flags);

}  // namespace svcplane::cmd
