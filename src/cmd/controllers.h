#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "base/status.h"
#include "controllers/manager/options.h"

namespace svcplane::cmd {

// `svcplane controllers`: the controller manager against any API server, with
// kube-controller-manager's flag names.
struct ControllersFlags {
  std::string kubeconfig;  // "": in-cluster config
  std::string context;
  // --server, repeatable or comma-separated: the API servers of an HA deployment, replacing the
  // kubeconfig's server (its CA and credentials stay). Empty: the kubeconfig's.
  std::vector<std::string> servers;
  // --kube-api-content-type: the encoding of requests to the API server, protobuf by default
  // like kube-controller-manager.
  std::string kube_api_content_type = "application/vnd.kubernetes.protobuf";
  controllers::manager::ControllerManagerOptions options;
  // Duration flags as written (Go syntax), parsed after CLI11 is done.
  std::string lease_duration = "15s";
  std::string renew_deadline = "10s";
  std::string retry_period = "2s";
  std::string endpoint_updates_batch_period = "0s";
  std::string endpointslice_updates_batch_period = "0s";
  std::string mirroring_endpointslice_updates_batch_period = "0s";
};

CLI::App* AddControllersCommand(CLI::App& app, ControllersFlags& flags);

// The flags that choose and tune controllers (--controllers, --leader-elect*, the controllers'
// own), shared by `svcplane controllers` and `svcplane serve`, which runs them in-process.
void AddControllerManagerFlags(CLI::App* command, ControllersFlags& flags);
// Parses the Go-syntax duration flags into flags.options.
Status ParseDurationFlags(ControllersFlags& flags);

// Runs until SIGTERM/SIGINT (exit 0) or a lost election / failed start (exit 1).
int RunControllers(ControllersFlags& flags);

}  // namespace svcplane::cmd
