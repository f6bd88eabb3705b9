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
// Runs until SIGTERM/SIGINT (exit 0); 1 if the simulator cannot start.
int RunSimulate(SimulateFlags& flags);

}  // namespace svcplane::cmd
